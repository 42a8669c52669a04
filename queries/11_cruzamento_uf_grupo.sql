-- titulo: Cruzamento UF x grupo de tributo no último mês
-- title: State x tax group in the latest month
-- report: section
-- descricao: Os créditos ativos do último mês de cada UF em cada grupo de tributo, com os totais
--   por UF, por grupo e o total geral.
-- description: The latest month's active credits of each state in each tax group, with the totals
--   per state, per group and overall.
-- answers: In the latest month, how much does each state owe in each tax group? Long form (one
--   row per cell), with a TOTAL row per state, per group and overall; the report pivots it.
WITH ultimo AS (
    SELECT MAX(ano_mes) AS ano_mes FROM creditos_ativos
),
base AS (
    -- Blank keys are grouped as '?' so that the TOTAL rows still add up.
    SELECT COALESCE(c.uf, '?') AS uf, COALESCE(c.grupo_tributo, '?') AS grupo_tributo,
           SUM(c.valor_total) AS valor_total
    FROM creditos_ativos c JOIN ultimo u ON c.ano_mes = u.ano_mes
    GROUP BY COALESCE(c.uf, '?'), COALESCE(c.grupo_tributo, '?')
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
    FROM base
)
SELECT uf, grupo_tributo, valor_total
FROM celulas
ORDER BY ordem_uf, uf, ordem_grupo, grupo_tributo
