-- titulo: Dívida ativa da União por natureza jurídica, de toda a publicação da PGFN
-- title: Federal active debt by legal nature, from PGFN's whole release
-- report: section
-- descricao: Todas as inscrições da publicação trimestral da PGFN, cada uma contada uma vez, pelo
--   grupo da natureza jurídica da empresa devedora (o primeiro dígito do código da tabela da
--   CONCLA: 1 administração pública, 2 entidades empresariais, 3 entidades sem fins lucrativos,
--   4 pessoas físicas, 5 organizações internacionais), lida na publicação da RFB do mesmo
--   período. As pessoas físicas devedoras ficam numa linha própria (PF); uma empresa que a
--   publicação da RFB não traz fica em '?'. Vazia numa execução sobre o serviço.
-- description: Every inscription of PGFN's quarterly release, each counted once, by the group of
--   the debtor company's legal nature (the first digit of CONCLA's code: 1 public administration,
--   2 business entities, 3 non-profit entities, 4 natural persons, 5 international
--   organisations), read in RFB's release of the same period. Debtor people are a row of their
--   own (PF); a company RFB's release lacks is '?'. Empty on a run over the service.
-- answers: Across the country, how much of the federal active debt do businesses, the public
--   administration and non-profits owe?
-- The group is decided while the files are read (extract/open_data/national.rs); its name comes
-- with the table (transform/nacional.rs).
WITH por_grupo AS (
    SELECT natureza_grupo,
           MIN(natureza_grupo_descricao) AS natureza_grupo_descricao,
           SUM(inscricoes) AS inscricoes,
           SUM(valor) AS valor_total,
           1 AS todas
    FROM divida_ativa_nacional
    GROUP BY natureza_grupo
),
tabela AS (
    SELECT natureza_grupo, natureza_grupo_descricao, inscricoes, valor_total,
           ROUND(100.0 * CAST(valor_total AS DOUBLE) / CAST(NULLIF(SUM(valor_total) OVER (), 0) AS DOUBLE), 4) AS participacao_pct,
           0 AS ordem
    FROM por_grupo
    UNION ALL
    SELECT 'TOTAL' AS natureza_grupo, 'Total' AS natureza_grupo_descricao, SUM(inscricoes), SUM(valor_total),
           100.0 AS participacao_pct, 1 AS ordem
    FROM por_grupo
    -- No TOTAL of nothing when the table is empty.
    GROUP BY todas
)
SELECT natureza_grupo, natureza_grupo_descricao, inscricoes, valor_total, participacao_pct
FROM tabela
ORDER BY ordem, valor_total DESC, natureza_grupo
