-- titulo: Dívida ativa da União por UF e grupo de tributo, de toda a publicação da PGFN
-- title: Federal active debt by state and tax group, from PGFN's whole release
-- report: section
-- descricao: Todas as inscrições da publicação trimestral da PGFN, cada uma contada uma vez,
--   cruzadas por UF e grupo de tributo, com os totais de cada UF, de cada grupo e o geral (TOTAL).
--   Vazia numa execução sobre o serviço.
-- description: Every inscription of PGFN's quarterly release, each counted once, crossed by state
--   and tax group, with each state's, each group's and the grand total (TOTAL). Empty on a run
--   over the service.
-- answers: Across the country, which taxes make up each state's federal active debt?
-- The same shape as 11_cruzamento_uf_grupo.sql, so the report draws both alike. A blank uf is
-- grouped as '?'. No row at all (not a TOTAL of nothing) when the table is empty.
WITH base AS (
    SELECT COALESCE(NULLIF(uf, ''), '?') AS uf, grupo_tributo, SUM(valor) AS valor_total, 1 AS todas
    FROM divida_ativa_nacional
    GROUP BY COALESCE(NULLIF(uf, ''), '?'), grupo_tributo
),
celulas AS (
    SELECT uf, grupo_tributo, valor_total, 0 AS ordem_uf, 0 AS ordem_grupo FROM base
    UNION ALL
    SELECT uf, 'TOTAL' AS grupo_tributo, SUM(valor_total) AS valor_total, 0 AS ordem_uf, 1 AS ordem_grupo
    FROM base GROUP BY uf
    UNION ALL
    SELECT 'TOTAL' AS uf, grupo_tributo, SUM(valor_total) AS valor_total, 1 AS ordem_uf, 0 AS ordem_grupo
    FROM base GROUP BY grupo_tributo
    UNION ALL
    SELECT 'TOTAL' AS uf, 'TOTAL' AS grupo_tributo, SUM(valor_total) AS valor_total, 1 AS ordem_uf, 1 AS ordem_grupo
    FROM base GROUP BY todas
)
SELECT uf, grupo_tributo, valor_total
FROM celulas
ORDER BY ordem_uf, uf, ordem_grupo, grupo_tributo
