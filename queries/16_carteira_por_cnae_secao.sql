-- titulo: Exposição da carteira por seção CNAE
-- title: Portfolio exposure by CNAE section
-- report: section
-- descricao: Como a exposição da carteira se distribui pela seção CNAE das empresas, com o número
--   de empresas e a dívida ajuizada de cada seção.
-- description: How the portfolio's exposure spreads across the companies' CNAE sections, with the
--   number of companies and the debt filed in court in each section.
-- answers: How is the portfolio's exposure spread across the companies' CNAE sections, and how many
--   companies and how much court-filed debt are there in each?
-- Reads the aggregate carteira_exposicao (query 14), its "contada" columns: an inscription
-- several portfolio companies owe counts once, in the state or section of the company credited
-- with it (query 14 says which), so the rows add up to the portfolio's total.
WITH grupos AS (
    SELECT COALESCE(cnae_secao, '?') AS cnae_secao,
           COUNT(*) AS empresas,
           SUM(ajuizada_contada) AS divida_ajuizada,
           SUM(nao_prev_contada + prev_contada + fgts_contada - ajuizada_contada) AS divida_nao_ajuizada,
           SUM(parcelamentos_contado) AS parcelamentos_saldo,
           SUM(transacoes_contado) AS transacoes_saldo,
           SUM(exposicao_contada) AS exposicao_total
    FROM carteira_exposicao
    GROUP BY COALESCE(cnae_secao, '?')
),
linhas AS (
    SELECT cnae_secao, empresas, divida_ajuizada, divida_nao_ajuizada, parcelamentos_saldo, transacoes_saldo, exposicao_total, 0 AS ordem
    FROM grupos
    UNION ALL
    SELECT 'TOTAL' AS cnae_secao, SUM(empresas), SUM(divida_ajuizada), SUM(divida_nao_ajuizada),
           SUM(parcelamentos_saldo), SUM(transacoes_saldo), SUM(exposicao_total), 1 AS ordem
    FROM grupos
)
SELECT cnae_secao, empresas, divida_ajuizada, divida_nao_ajuizada, parcelamentos_saldo, transacoes_saldo, exposicao_total
FROM linhas
ORDER BY ordem, exposicao_total DESC, cnae_secao
