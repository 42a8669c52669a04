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
-- The rule is in situacao_fiscal_por_retrato (one home for it: the changes compare its two
-- snapshots); this table is its "agora" side with the company's name.
SELECT e.cnpj,
       e.razao_social,
       s.inscricoes_ativas,
       s.inscricoes_em_cobranca,
       s.situacao_fiscal_estimada
FROM empresas e
JOIN situacao_fiscal_por_retrato s ON s.cnpj = e.cnpj
WHERE s.retrato = 'agora'
ORDER BY e.cnpj
