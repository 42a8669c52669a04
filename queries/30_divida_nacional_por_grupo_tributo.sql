-- titulo: Dívida ativa da União por grupo de tributo, de toda a publicação da PGFN
-- title: Federal active debt by tax group, from PGFN's whole release
-- report: section
-- descricao: Todas as inscrições da publicação trimestral da PGFN, cada uma contada uma vez, por
--   grupo de tributo: o previdenciário, o FGTS e, no não previdenciário, o tributo que a receita
--   principal nomeia (IRPJ, CSLL, PIS/PASEP, COFINS, Simples Nacional...; multas e o resto em
--   Outros). Vazia numa execução sobre o serviço.
-- description: Every inscription of PGFN's quarterly release, each counted once, by tax group: the
--   social security system, FGTS and, in the other system, the tax its main revenue names (IRPJ,
--   CSLL, PIS/PASEP, COFINS, Simples Nacional...; fines and the rest under Outros). Empty on a run
--   over the service.
-- answers: Across the country, which taxes does the federal active debt come from, and how much
--   of it each?
-- The groups are decided while the files are read (extract/open_data/national.rs, TAX_GROUPS).
WITH por_grupo AS (
    SELECT grupo_tributo,
           SUM(inscricoes) AS inscricoes,
           SUM(valor) AS valor_total,
           1 AS todas
    FROM divida_ativa_nacional
    GROUP BY grupo_tributo
),
tabela AS (
    SELECT grupo_tributo, inscricoes, valor_total,
           ROUND(100.0 * CAST(valor_total AS DOUBLE) / CAST(NULLIF(SUM(valor_total) OVER (), 0) AS DOUBLE), 4) AS participacao_pct,
           0 AS ordem
    FROM por_grupo
    UNION ALL
    SELECT 'TOTAL' AS grupo_tributo, SUM(inscricoes), SUM(valor_total), 100.0 AS participacao_pct, 1 AS ordem
    FROM por_grupo
    -- No TOTAL of nothing when the table is empty.
    GROUP BY todas
)
SELECT grupo_tributo, inscricoes, valor_total, participacao_pct
FROM tabela
ORDER BY ordem, valor_total DESC, grupo_tributo
