-- titulo: Créditos ativos por UF e mês
-- title: Active credits by state and month
-- report: section
-- descricao: O estoque de créditos ativos de cada UF em cada mês, sua participação no total
--   nacional e a variação em relação ao mês anterior.
-- description: Each state's stock of active credits each month, its share of the national total and
--   its change on the previous month.
-- answers: How large is each state's stock of active credits each month, what share of the
--   national total is it, and how did it change on the previous month?
WITH por_uf_bruto AS (
    SELECT uf, ano_mes, ano_mes_anterior, SUM(valor_total) AS valor_total
    FROM creditos_ativos
    WHERE ano_mes IS NOT NULL
    GROUP BY uf, ano_mes, ano_mes_anterior
),
por_uf AS (
    -- A blank uf is named '?' so that it still meets its previous month in the join below;
    -- named after grouping (GROUP BY keeps NULLs together), so over a few hundred rows only.
    SELECT COALESCE(uf, '?') AS uf, ano_mes, ano_mes_anterior, valor_total
    FROM por_uf_bruto
)
-- The national total of a month is the sum of its states' rows (each state once a month).
SELECT c.uf,
       c.ano_mes,
       c.valor_total,
       ROUND(100.0 * CAST(c.valor_total AS DOUBLE) / CAST(NULLIF(SUM(c.valor_total) OVER (PARTITION BY c.ano_mes), 0) AS DOUBLE), 4) AS participacao_pct,
       c.valor_total - p.valor_total AS variacao_mes,
       ROUND(100.0 * CAST(c.valor_total - p.valor_total AS DOUBLE) / CAST(NULLIF(p.valor_total, 0) AS DOUBLE), 4) AS variacao_mes_pct
FROM por_uf c
LEFT JOIN por_uf p ON p.uf = c.uf AND p.ano_mes = c.ano_mes_anterior
ORDER BY c.ano_mes, c.uf
