-- titulo: Empresas por situação fiscal estimada em cada retrato
-- title: Companies per estimated tax standing at each snapshot
-- report: section
-- descricao: Para cada retrato guardado, quantas empresas da carteira estavam em cada situação
--   fiscal estimada: sem inscrições, positiva com efeitos de negativa ou irregular.
-- description: For each snapshot kept, how many portfolio companies were in each estimated tax
--   standing: no inscription, positive with the effects of negative, or irregular.
-- answers: How many companies of the portfolio were in each standing, snapshot by snapshot?
-- Reads situacao_fiscal_estimada_por_retrato: the store's situacao_fiscal_estimada (query 20,
-- committed with each snapshot), every snapshot.
SELECT snapshot,
       SUM(CASE WHEN situacao_fiscal_estimada = 'sem inscrições' THEN 1 ELSE 0 END) AS sem_inscricoes,
       SUM(CASE WHEN situacao_fiscal_estimada = 'positiva com efeitos de negativa' THEN 1 ELSE 0 END) AS positiva_com_efeitos_de_negativa,
       SUM(CASE WHEN situacao_fiscal_estimada = 'irregular' THEN 1 ELSE 0 END) AS irregular,
       COUNT(*) AS empresas
FROM situacao_fiscal_estimada_por_retrato
GROUP BY snapshot
ORDER BY snapshot
