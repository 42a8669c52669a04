-- titulo: Exposição de cada empresa em cada retrato
-- title: Each company's exposure at each snapshot
-- report: none
-- descricao: Para cada empresa da carteira e cada retrato guardado em que ela estava na carteira,
--   a sua exposição: dívida ajuizada e não ajuizada, como principal e como corresponsável,
--   parcelamentos, transações e o total, como no relatório daquele mês, e a sua situação fiscal
--   estimada naquele retrato.
-- description: For each portfolio company and each snapshot kept in which it was in the
--   portfolio, its exposure: debt filed in court and not, as principal and as co-responsible,
--   instalments, settlements and the total, as in that month's report, and its estimated tax
--   standing at that snapshot.
-- answers: How did each company's exposure and standing move over the snapshots?
SELECT e.cnpj,
       e.snapshot,
       e.razao_social,
       e.nao_prev_ajuizada + e.prev_ajuizada + e.fgts_ajuizada AS divida_ajuizada,
       e.nao_prev_nao_ajuizada + e.prev_nao_ajuizada + e.fgts_nao_ajuizada AS divida_nao_ajuizada,
       e.divida_principal,
       e.divida_corresponsavel,
       e.parcelamentos_saldo,
       e.transacoes_saldo,
       e.exposicao_total,
       s.situacao_fiscal_estimada
FROM carteira_exposicao_por_retrato e
LEFT JOIN situacao_fiscal_estimada_por_retrato s ON s.cnpj = e.cnpj AND s.snapshot = e.snapshot
ORDER BY e.cnpj, e.snapshot
