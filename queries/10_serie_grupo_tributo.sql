-- titulo: Série mensal por grupo de tributo
-- title: Monthly series by tax group
-- report: section
-- descricao: A evolução, mês a mês ao longo do período buscado, do estoque de créditos ativos de
--   cada grupo de tributo.
-- description: How each tax group's stock of active credits has evolved, month by month, over the
--   period fetched.
-- answers: Month by month over the period fetched, how has the stock of active credits of each
--   tax group evolved?
SELECT ano_mes,
       grupo_tributo,
       SUM(valor_total) AS valor_total
FROM creditos_ativos
GROUP BY ano_mes, grupo_tributo
ORDER BY ano_mes, grupo_tributo
