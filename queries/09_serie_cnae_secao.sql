-- title: Série mensal por seção CNAE
-- report: section
-- answers: Month by month over the period fetched, how has the stock of active credits of each
--   CNAE section evolved?
SELECT ano_mes,
       cnae_secao_cod,
       MAX(cnae_secao_descr) AS cnae_secao_descr,
       SUM(valor_total) AS valor_total
FROM creditos_ativos
GROUP BY ano_mes, cnae_secao_cod
ORDER BY ano_mes, cnae_secao_cod
