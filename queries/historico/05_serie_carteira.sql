-- titulo: A carteira em cada retrato
-- title: The portfolio at each snapshot
-- report: none
-- descricao: Uma linha por retrato: a exposição da carteira (como em "Exposição da carteira em cada
--   retrato") e as empresas em cada situação fiscal estimada (como em "Empresas por situação
--   fiscal estimada em cada retrato"), lado a lado. É a série que `store series` imprime.
-- description: One row per snapshot: the portfolio's exposure (as in "The portfolio's exposure at
--   each snapshot") and its companies per estimated tax standing (as in "Companies per
--   estimated tax standing at each snapshot"), side by side. The series `store series` prints.
-- answers: How did the portfolio's exposure and standings move, in one series?
SELECT e.snapshot,
       e.empresas_encontradas,
       e.com_divida,
       e.nao_previdenciario,
       e.previdenciario,
       e.fgts,
       e.divida_ajuizada,
       e.divida_nao_ajuizada,
       e.parcelamentos_saldo,
       e.transacoes_saldo,
       e.exposicao_total,
       s.sem_inscricoes,
       s.positiva_com_efeitos_de_negativa,
       s.irregular
FROM serie_exposicao_carteira e
LEFT JOIN serie_situacao_fiscal s ON s.snapshot = e.snapshot
ORDER BY e.snapshot
