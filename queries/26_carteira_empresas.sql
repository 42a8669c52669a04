-- titulo: Empresas da carteira
-- title: The portfolio's companies
-- report: section
-- descricao: Cada empresa da carteira que o serviço encontrou, com a situação fiscal estimada e a
--   exposição: ajuizada, não ajuizada, como devedora principal e como corresponsável, em
--   parcelamentos e em transações. No relatório em HTML a tabela se ordena por qualquer coluna,
--   se filtra por UF, seção e situação e se busca por CNPJ ou razão social.
-- description: Every portfolio company the service found, with its estimated tax standing and
--   its exposure: filed in court, not filed, as principal and as co-responsible, in instalment
--   plans and in tax settlements. In the HTML report the table sorts by any column, filters by
--   state, section and standing, and searches by CNPJ or company name.
-- answers: What does each company of the portfolio owe, and how does its standing look, in one
--   table an analyst can sort, filter and search?
-- Reads the aggregates carteira_exposicao (query 14) and situacao_fiscal_estimada (query 20).
-- The same columns as carteira_maiores (query 17), for every company rather than the 20
-- largest: one question per file (the README says why the copies stay).
SELECT e.cnpj,
       e.razao_social,
       e.uf,
       e.cnae_secao,
       s.situacao_fiscal_estimada,
       e.nao_prev_ajuizada + e.prev_ajuizada + e.fgts_ajuizada AS divida_ajuizada,
       e.nao_prev_nao_ajuizada + e.prev_nao_ajuizada + e.fgts_nao_ajuizada AS divida_nao_ajuizada,
       e.divida_principal,
       e.divida_corresponsavel,
       e.parcelamentos_saldo,
       e.transacoes_saldo,
       e.exposicao_total
FROM carteira_exposicao e
LEFT JOIN situacao_fiscal_estimada s ON s.cnpj = e.cnpj
ORDER BY e.exposicao_total DESC, e.cnpj
