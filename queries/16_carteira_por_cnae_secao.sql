-- titulo: Exposição da carteira por seção CNAE
-- title: Portfolio exposure by CNAE section
-- report: section
-- descricao: Como a exposição da carteira se distribui pela seção CNAE das empresas, com o número
--   de empresas e a dívida ajuizada de cada seção.
-- description: How the portfolio's exposure spreads across the companies' CNAE sections, with the
--   number of companies and the debt filed in court in each section.
-- answers: How is the portfolio's exposure spread across the companies' CNAE sections, and how many
--   companies and how much court-filed debt are there in each?
-- Reads the aggregate carteira_exposicao (query 14).
WITH grupos AS (
    SELECT COALESCE(cnae_secao, '?') AS cnae_secao,
           COUNT(*) AS empresas,
           SUM(nao_prev_ajuizada + prev_ajuizada + fgts_ajuizada) AS divida_ajuizada,
           SUM(nao_prev_nao_ajuizada + prev_nao_ajuizada + fgts_nao_ajuizada) AS divida_nao_ajuizada,
           SUM(parcelamentos_saldo) AS parcelamentos_saldo,
           SUM(transacoes_saldo) AS transacoes_saldo,
           SUM(exposicao_total) AS exposicao_total
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
