-- titulo: Exposição da carteira em cada retrato
-- title: The portfolio's exposure at each snapshot
-- report: section
-- descricao: Para cada retrato guardado no armazenamento (um por mês de execução), a exposição da
--   carteira por categoria de dívida ativa (não previdenciária, previdenciária e FGTS), ajuizada
--   ou não, e os saldos de parcelamentos e transações, cada inscrição contada uma só vez, como no
--   resumo da carteira do relatório daquele mês.
-- description: For each snapshot the store keeps (one per monthly run), the portfolio's exposure
--   by active-debt categoria (other than social security, social security and FGTS), filed in
--   court or not, and the instalment and settlement balances, each inscription counted once, as
--   in that month's report's portfolio summary.
-- answers: How did the portfolio's exposure move over the snapshots, by categoria and in court
--   or not?
-- Reads carteira_exposicao_por_retrato: query 14 (carteira_exposicao) run over each snapshot's
-- rows of the store, with the snapshot beside each company's row.
SELECT snapshot,
       COUNT(*) AS empresas_encontradas,
       SUM(CASE WHEN exposicao_total > 0 THEN 1 ELSE 0 END) AS com_divida,
       SUM(nao_prev_contada) AS nao_previdenciario,
       SUM(prev_contada) AS previdenciario,
       SUM(fgts_contada) AS fgts,
       SUM(ajuizada_contada) AS divida_ajuizada,
       SUM(nao_prev_contada) + SUM(prev_contada) + SUM(fgts_contada) - SUM(ajuizada_contada) AS divida_nao_ajuizada,
       SUM(parcelamentos_contado) AS parcelamentos_saldo,
       SUM(transacoes_contado) AS transacoes_saldo,
       SUM(exposicao_contada) AS exposicao_total
FROM carteira_exposicao_por_retrato
GROUP BY snapshot
ORDER BY snapshot
