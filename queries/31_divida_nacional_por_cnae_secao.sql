-- titulo: Dívida ativa da União por seção CNAE, de toda a publicação da PGFN
-- title: Federal active debt by CNAE section, from PGFN's whole release
-- report: section
-- descricao: Todas as inscrições da publicação trimestral da PGFN, cada uma contada uma vez, pela
--   seção CNAE da atividade principal da matriz da empresa devedora, lida na publicação da RFB do
--   mesmo período. As pessoas físicas ficam numa linha própria (PF); uma empresa que a publicação
--   da RFB não traz fica em '?'. Vazia numa execução sobre o serviço.
-- description: Every inscription of PGFN's quarterly release, each counted once, by the CNAE
--   section of the debtor company's head office's main activity, read in RFB's release of the
--   same period. People are a row of their own (PF); a company RFB's release lacks is '?'. Empty
--   on a run over the service.
-- answers: Across the country, which sectors owe the federal active debt, and how much each?
-- The section is decided while the files are read (extract/open_data/national.rs); its name
-- comes with the table (transform/nacional.rs).
WITH por_secao AS (
    SELECT cnae_secao,
           MIN(cnae_secao_descricao) AS cnae_secao_descricao,
           SUM(inscricoes) AS inscricoes,
           SUM(valor) AS valor_total,
           1 AS todas
    FROM divida_ativa_nacional
    GROUP BY cnae_secao
),
tabela AS (
    SELECT cnae_secao, cnae_secao_descricao, inscricoes, valor_total,
           ROUND(100.0 * CAST(valor_total AS DOUBLE) / CAST(NULLIF(SUM(valor_total) OVER (), 0) AS DOUBLE), 4) AS participacao_pct,
           0 AS ordem
    FROM por_secao
    UNION ALL
    SELECT 'TOTAL' AS cnae_secao, 'Total' AS cnae_secao_descricao, SUM(inscricoes), SUM(valor_total),
           100.0 AS participacao_pct, 1 AS ordem
    FROM por_secao
    -- No TOTAL of nothing when the table is empty.
    GROUP BY todas
)
SELECT cnae_secao, cnae_secao_descricao, inscricoes, valor_total, participacao_pct
FROM tabela
ORDER BY ordem, valor_total DESC, cnae_secao
