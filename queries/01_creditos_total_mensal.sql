-- titulo: Créditos ativos: total nacional por mês
-- title: Active credits: national total by month
-- report: section
-- descricao: O estoque nacional de créditos tributários ativos em cada mês, com a variação em
--   relação ao mês anterior e ao mesmo mês do ano anterior.
-- description: The national stock of active tax credits each month, with its change on the previous
--   month and on the same month a year before.
-- answers: How large is the national stock of active tax credits each month, and how did it
--   change on the previous month and on the same month a year before?
-- Feeds the headline cards and the national trend line.
-- The states of a month are counted as its (month, state) groups: COUNT(uf) skips the blank
-- one as COUNT(DISTINCT uf) would.
WITH por_uf AS (
    SELECT ano_mes, ano_mes_anterior, ano_mes_ano_anterior, uf, SUM(valor_total) AS valor_total
    FROM creditos_ativos
    GROUP BY ano_mes, ano_mes_anterior, ano_mes_ano_anterior, uf
),
mensal AS (
    SELECT ano_mes,
           MAX(ano_mes_anterior) AS ano_mes_anterior,
           MAX(ano_mes_ano_anterior) AS ano_mes_ano_anterior,
           SUM(valor_total) AS valor_total,
           COUNT(uf) AS ufs
    FROM por_uf
    GROUP BY ano_mes
)
SELECT m.ano_mes,
       m.valor_total,
       m.ufs,
       m.valor_total - p.valor_total AS variacao_mes,
       ROUND(100.0 * CAST(m.valor_total - p.valor_total AS DOUBLE) / CAST(NULLIF(p.valor_total, 0) AS DOUBLE), 4) AS variacao_mes_pct,
       m.valor_total - a.valor_total AS variacao_ano,
       ROUND(100.0 * CAST(m.valor_total - a.valor_total AS DOUBLE) / CAST(NULLIF(a.valor_total, 0) AS DOUBLE), 4) AS variacao_ano_pct
FROM mensal m
LEFT JOIN mensal p ON p.ano_mes = m.ano_mes_anterior
LEFT JOIN mensal a ON a.ano_mes = m.ano_mes_ano_anterior
ORDER BY m.ano_mes
