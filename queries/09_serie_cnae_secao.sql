-- titulo: Série mensal por seção CNAE
-- title: Monthly series by CNAE section
-- report: section
-- descricao: A evolução, mês a mês ao longo do período buscado, do estoque de créditos ativos de
--   cada seção CNAE.
-- description: How each CNAE section's stock of active credits has evolved, month by month, over
--   the period fetched.
-- answers: Month by month over the period fetched, how has the stock of active credits of each
--   CNAE section evolved?
SELECT ano_mes,
       cnae_secao_cod,
       MAX(cnae_secao_descr) AS cnae_secao_descr,
       SUM(valor_total) AS valor_total
FROM creditos_ativos
GROUP BY ano_mes, cnae_secao_cod
ORDER BY ano_mes, cnae_secao_cod
