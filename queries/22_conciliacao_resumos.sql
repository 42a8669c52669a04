-- titulo: Resumos do serviço que não conferem com os registros
-- title: Service summaries that disagree with the records
-- descricao: O perfil de cada empresa traz um resumo de cada lista (inscrições em dívida ativa de
--   cada categoria, parcelamentos, transações): quantos registros ela tem e o total em R$. Cada
--   linha é um resumo que não confere com os registros recebidos: na quantidade, no total ou nos
--   dois. Vazia quando tudo confere. Uma diferença aqui pede cuidado com os números dessa empresa:
--   o serviço e a lista que ele publica não dizem a mesma coisa.
-- description: Each company profile summarises each of its lists (active-debt inscriptions of
--   each categoria, instalment plans, transactions): how many records it holds and their total
--   in R$. Each row is a summary that disagrees with the records received: in the count, the
--   total or both. Empty when everything agrees.
-- answers: Do the service's own summaries agree with the records fetched, company by company?
-- A summary whose link names no list we fetch (tabela is null) is not compared; a summary whose
-- value did not parse is counted in data_quality instead. Sums leave out amounts that did not
-- parse, as the service's totals do.
WITH registros AS (
    SELECT cnpj, CONCAT('dividas_pgfn/', categoria) AS lista,
           COUNT(*) AS registros, SUM(valor_consolidado) AS valor
    FROM dividas_pgfn
    GROUP BY cnpj, categoria
    UNION ALL
    SELECT cnpj, 'parcelamentos_rfb/' AS lista, COUNT(*) AS registros, SUM(saldo_devedor) AS valor
    FROM parcelamentos_rfb
    GROUP BY cnpj
    UNION ALL
    SELECT cnpj, 'transacoes_rfb/' AS lista, COUNT(*) AS registros, SUM(saldo_devedor) AS valor
    FROM transacoes_rfb
    GROUP BY cnpj
),
resumidos AS (
    SELECT cnpj, tabela, categoria, CONCAT(tabela, '/', COALESCE(categoria, '')) AS lista,
           total, valor_total
    FROM resumos
    WHERE tabela IS NOT NULL
),
comparados AS (
    SELECT s.cnpj, s.tabela, s.categoria,
           s.total AS registros_no_resumo,
           COALESCE(r.registros, 0) AS registros_recebidos,
           s.valor_total AS valor_no_resumo,
           COALESCE(r.valor, CAST(0 AS DECIMAL(38, 2))) AS valor_recebido
    FROM resumidos s
    LEFT JOIN registros r ON r.cnpj = s.cnpj AND r.lista = s.lista
)
SELECT c.cnpj, e.razao_social, c.tabela, c.categoria,
       c.registros_no_resumo, c.registros_recebidos,
       c.valor_no_resumo, c.valor_recebido,
       c.valor_no_resumo - c.valor_recebido AS diferenca
FROM comparados c
JOIN empresas e ON e.cnpj = c.cnpj
WHERE c.registros_no_resumo <> c.registros_recebidos OR c.valor_no_resumo <> c.valor_recebido
ORDER BY c.cnpj, c.tabela, c.categoria
