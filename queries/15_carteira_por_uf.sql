-- titulo: Exposição da carteira por UF
-- title: Portfolio exposure by state
-- report: section
-- descricao: Como a exposição da carteira se distribui pela UF das empresas, com o número de
--   empresas e a dívida ajuizada de cada UF.
-- description: How the portfolio's exposure spreads across the companies' states, with the number
--   of companies and the debt filed in court in each state.
-- answers: How is the portfolio's exposure spread across the companies' states, and how many
--   companies and how much court-filed debt are there in each?
-- Reads the aggregate carteira_exposicao (query 14).
WITH grupos AS (
    SELECT COALESCE(uf, '?') AS uf,
           COUNT(*) AS empresas,
           SUM(nao_prev_ajuizada + prev_ajuizada + fgts_ajuizada) AS divida_ajuizada,
           SUM(nao_prev_nao_ajuizada + prev_nao_ajuizada + fgts_nao_ajuizada) AS divida_nao_ajuizada,
           SUM(parcelamentos_saldo) AS parcelamentos_saldo,
           SUM(transacoes_saldo) AS transacoes_saldo,
           SUM(exposicao_total) AS exposicao_total
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
