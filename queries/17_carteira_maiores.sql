-- titulo: As 20 maiores exposições da carteira
-- title: The portfolio's 20 largest exposures
-- report: section
-- descricao: As 20 empresas da carteira que mais devem, e como essa dívida se divide entre
--   ajuizada, não ajuizada, parcelamentos e transações, e entre a dívida da própria empresa
--   (devedora principal) e a que ela deve como corresponsável ou solidária.
-- description: The 20 portfolio companies that owe the most, and how that debt splits between filed
--   in court, not filed, instalment plans and tax settlements, and between its own debt (as
--   principal) and what it owes as co-responsible or jointly liable.
-- answers: Which 20 companies of the portfolio owe the most, and in what form?
-- Reads the aggregate carteira_exposicao (query 14).
SELECT cnpj,
       razao_social,
       uf,
       cnae_secao,
       nao_prev_ajuizada + prev_ajuizada + fgts_ajuizada AS divida_ajuizada,
       nao_prev_nao_ajuizada + prev_nao_ajuizada + fgts_nao_ajuizada AS divida_nao_ajuizada,
       divida_principal,
       divida_corresponsavel,
       parcelamentos_saldo,
       transacoes_saldo,
       exposicao_total
FROM carteira_exposicao
WHERE exposicao_total > 0
ORDER BY exposicao_total DESC, cnpj
LIMIT 20
