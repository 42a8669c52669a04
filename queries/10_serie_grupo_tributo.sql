-- title: Série mensal por grupo de tributo
-- report: section
-- answers: Month by month over the period fetched, how has the stock of active credits of each
--   tax group evolved?
SELECT ano_mes,
       grupo_tributo,
       SUM(valor_total) AS valor_total
FROM creditos_ativos
GROUP BY ano_mes, grupo_tributo
ORDER BY ano_mes, grupo_tributo
