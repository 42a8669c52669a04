-- titulo: Situação fiscal estimada, neste retrato e no anterior
-- title: Estimated tax standing, in this snapshot and the previous one
-- report: none
-- descricao: A regra da situação fiscal estimada aplicada a cada empresa em cada retrato: neste
--   (retrato "agora") e, quando há um armazenamento com retrato anterior, naquele ("antes").
--   Gravidade 0 é "sem inscrições", 1 "positiva com efeitos de negativa", 2 "irregular". É uma
--   estimativa feita só com os dados públicos de dívida ativa da PGFN, não uma certidão.
-- description: The estimated tax standing's rule applied to each company in each snapshot: this
--   one ("agora") and, with a store holding one, the previous ("antes"). Gravidade 0 is "sem
--   inscrições", 1 "positiva com efeitos de negativa", 2 "irregular". An estimate from the PGFN's
--   public active-debt data alone, not a certificate.
-- answers: What would a clearance certificate likely say of each company, now and a snapshot ago?
-- The one home of the rule: situacao_fiscal_estimada shows "agora", mudancas compares the two.
-- It reads tipo_situacao_inscricao: Garantia, Suspenso por decisão judicial, Em negociação and
-- Benefício Fiscal suspend collection; Em cobrança, Outros and a blank one do not.
WITH inscricoes AS (
    SELECT cnpj, tipo_situacao_inscricao, 'agora' AS retrato FROM dividas_pgfn
    UNION ALL
    SELECT cnpj, tipo_situacao_inscricao, 'antes' AS retrato FROM dividas_pgfn_anterior
),
por_empresa AS (
    SELECT cnpj, retrato,
           COUNT(*) AS inscricoes,
           SUM(CASE WHEN tipo_situacao_inscricao IN
                         ('Garantia', 'Suspenso por decisão judicial', 'Em negociação', 'Benefício Fiscal')
                    THEN 0 ELSE 1 END) AS em_cobranca
    FROM inscricoes
    GROUP BY cnpj, retrato
),
empresas_por_retrato AS (
    SELECT cnpj, 'agora' AS retrato FROM empresas
    UNION ALL
    SELECT cnpj, 'antes' AS retrato FROM empresas_anterior
),
contagens AS (
    SELECT r.cnpj, r.retrato,
           COALESCE(d.inscricoes, 0) AS inscricoes_ativas,
           COALESCE(d.em_cobranca, 0) AS inscricoes_em_cobranca
    FROM empresas_por_retrato r
    LEFT JOIN por_empresa d ON d.cnpj = r.cnpj AND d.retrato = r.retrato
)
SELECT cnpj, retrato, inscricoes_ativas, inscricoes_em_cobranca,
       CASE WHEN inscricoes_ativas = 0 THEN 'sem inscrições'
            WHEN inscricoes_em_cobranca = 0 THEN 'positiva com efeitos de negativa'
            ELSE 'irregular'
       END AS situacao_fiscal_estimada,
       CASE WHEN inscricoes_ativas = 0 THEN 0
            WHEN inscricoes_em_cobranca = 0 THEN 1
            ELSE 2
       END AS gravidade
FROM contagens
ORDER BY cnpj, retrato
