-- titulo: Situação fiscal estimada por empresa
-- title: Estimated tax standing per company
-- report: none
-- descricao: Uma estimativa, feita só com os dados públicos de dívida ativa da PGFN, do que uma
--   certidão diria de cada empresa da carteira: "sem inscrições" (nenhuma inscrição ativa),
--   "positiva com efeitos de negativa" (só inscrições com a cobrança suspensa: garantidas,
--   suspensas por decisão judicial, em negociação ou com benefício fiscal, como um parcelamento)
--   ou "irregular" (alguma inscrição em cobrança). É uma estimativa, não uma certidão: débitos da
--   Receita Federal ainda não inscritos, e os estaduais e municipais, não estão nestes dados.
-- description: An estimate, from the PGFN's public active-debt data alone, of what a clearance
--   certificate would say of each portfolio company: "sem inscrições" (no active inscription),
--   "positiva com efeitos de negativa" (only inscriptions whose collection is suspended:
--   guaranteed, suspended by a court, under negotiation or under a tax benefit such as an
--   instalment plan) or "irregular" (some inscription in collection). An estimate, not a
--   certificate: federal debts not yet inscribed, and state and municipal ones, are not here.
-- answers: For each portfolio company, would a clearance certificate likely be negative,
--   positive with the effects of negative, or positive, judging by its active inscriptions?
-- The rule reads tipo_situacao_inscricao: Garantia, Suspenso por decisão judicial, Em negociação
-- and Benefício Fiscal suspend collection; Em cobrança, Outros and a blank one do not.
WITH por_empresa AS (
    SELECT cnpj,
           COUNT(*) AS inscricoes,
           SUM(CASE WHEN tipo_situacao_inscricao IN
                         ('Garantia', 'Suspenso por decisão judicial', 'Em negociação', 'Benefício Fiscal')
                    THEN 0 ELSE 1 END) AS em_cobranca
    FROM dividas_pgfn
    GROUP BY cnpj
)
SELECT e.cnpj,
       e.razao_social,
       COALESCE(d.inscricoes, 0) AS inscricoes_ativas,
       COALESCE(d.em_cobranca, 0) AS inscricoes_em_cobranca,
       CASE WHEN COALESCE(d.inscricoes, 0) = 0 THEN 'sem inscrições'
            WHEN d.em_cobranca = 0 THEN 'positiva com efeitos de negativa'
            ELSE 'irregular'
       END AS situacao_fiscal_estimada
FROM empresas e
LEFT JOIN por_empresa d ON d.cnpj = e.cnpj
ORDER BY e.cnpj
