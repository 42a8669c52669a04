-- titulo: Exposição da carteira por UF
-- title: Portfolio exposure by state
-- report: section
-- descricao: Como a exposição da carteira se distribui pela UF das empresas, com o número de
--   empresas e a dívida ajuizada de cada UF.
-- description: How the portfolio's exposure spreads across the companies' states, with the number
--   of companies and the debt filed in court in each state.
-- answers: How is the portfolio's exposure spread across the companies' states, and how many
--   companies and how much court-filed debt are there in each?
-- Reads the aggregate carteira_exposicao (query 14), its "contada" columns: an inscription
-- several portfolio companies owe counts once, in the state or section of the company credited
-- with it (query 14 says which), so the rows add up to the portfolio's total.
WITH grupos AS (
    SELECT COALESCE(uf, '?') AS uf,
           COUNT(*) AS empresas,
           SUM(ajuizada_contada) AS divida_ajuizada,
           SUM(nao_prev_contada + prev_contada + fgts_contada - ajuizada_contada) AS divida_nao_ajuizada,
           SUM(parcelamentos_contado) AS parcelamentos_saldo,
           SUM(transacoes_contado) AS transacoes_saldo,
           SUM(exposicao_contada) AS exposicao_total
    FROM carteira_exposicao
    GROUP BY COALESCE(uf, '?')
),
linhas AS (
    SELECT uf, empresas, divida_ajuizada, divida_nao_ajuizada, parcelamentos_saldo, transacoes_saldo, exposicao_total, 0 AS ordem
    FROM grupos
    UNION ALL
    SELECT 'TOTAL' AS uf, SUM(empresas), SUM(divida_ajuizada), SUM(divida_nao_ajuizada),
           SUM(parcelamentos_saldo), SUM(transacoes_saldo), SUM(exposicao_total), 1 AS ordem
    FROM grupos
)
SELECT uf, empresas, divida_ajuizada, divida_nao_ajuizada, parcelamentos_saldo, transacoes_saldo, exposicao_total
FROM linhas
ORDER BY ordem, exposicao_total DESC, uf
