-- titulo: Exposição da carteira por regime tributário
-- title: Portfolio exposure by tax regime
-- report: section
-- descricao: Como a exposição da carteira se distribui pelo regime tributário das empresas
--   (regime_carteira: MEI, Simples Nacional, a forma da ECF mais recente, ou "Não informado"),
--   com o número de empresas e a dívida ajuizada de cada regime. Diz quanto da dívida está em
--   empresas de Lucro Real, de porte e contabilidade maiores, e quanto em optantes do Simples.
-- description: How the portfolio's exposure spreads across the companies' tax regimes
--   (regime_carteira: MEI, Simples Nacional, the latest ECF's form, or "Não informado"), with
--   the number of companies and the debt filed in court in each. It says how much of the debt
--   sits with Lucro Real companies, larger and with full books, and how much with Simples ones.
-- answers: How is the portfolio's debt spread over its companies' tax regimes?
-- Reads carteira_exposicao (query 14), its "contada" columns (an inscription several portfolio
-- companies owe counts once, as in query 15), and regime_carteira (query 21).
WITH grupos AS (
    SELECT r.regime,
           COUNT(*) AS empresas,
           SUM(x.ajuizada_contada) AS divida_ajuizada,
           SUM(x.nao_prev_contada + x.prev_contada + x.fgts_contada - x.ajuizada_contada) AS divida_nao_ajuizada,
           SUM(x.parcelamentos_contado) AS parcelamentos_saldo,
           SUM(x.transacoes_contado) AS transacoes_saldo,
           SUM(x.exposicao_contada) AS exposicao_total
    FROM carteira_exposicao x
    JOIN regime_carteira r ON r.cnpj = x.cnpj
    GROUP BY r.regime
),
linhas AS (
    SELECT regime, empresas, divida_ajuizada, divida_nao_ajuizada, parcelamentos_saldo, transacoes_saldo, exposicao_total, 0 AS ordem
    FROM grupos
    UNION ALL
    SELECT 'TOTAL' AS regime, SUM(empresas), SUM(divida_ajuizada), SUM(divida_nao_ajuizada),
           SUM(parcelamentos_saldo), SUM(transacoes_saldo), SUM(exposicao_total), 1 AS ordem
    FROM grupos
)
SELECT regime, empresas, divida_ajuizada, divida_nao_ajuizada, parcelamentos_saldo, transacoes_saldo, exposicao_total
FROM linhas
ORDER BY ordem, exposicao_total DESC, regime
