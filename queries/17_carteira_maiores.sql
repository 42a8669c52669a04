-- title: As 20 maiores exposições da carteira
-- report: section
-- answers: Which 20 companies of the portfolio owe the most, and in what form?
-- Reads the aggregate carteira_exposicao (query 14).
SELECT cnpj,
       razao_social,
       uf,
       cnae_secao,
       nao_prev_ajuizada + prev_ajuizada + fgts_ajuizada AS divida_ajuizada,
       nao_prev_nao_ajuizada + prev_nao_ajuizada + fgts_nao_ajuizada AS divida_nao_ajuizada,
       parcelamentos_saldo,
       transacoes_saldo,
       exposicao_total
FROM carteira_exposicao
WHERE exposicao_total > 0
ORDER BY exposicao_total DESC, cnpj
LIMIT 20
