-- titulo: Resumo da carteira
-- title: Portfolio summary
-- report: section
-- descricao: Quantas empresas da carteira o serviço encontrou, quantas não devem nada e qual é a
--   exposição total, por categoria de dívida e com a parte ajuizada. Cada inscrição conta uma
--   vez, ainda que várias empresas da carteira a devam (principal e corresponsáveis).
-- description: How many portfolio companies the service found, how many owe nothing, and the total
--   exposure, by category of debt and with the share filed in court. Each inscription counts
--   once, even when several portfolio companies owe it (principal and co-responsibles).
-- answers: How many portfolio companies did the service know, how many owe nothing, and what
--   is the total exposure, by categoria and court-filed share?
-- One row. Reads carteira (every CNPJ asked for) and carteira_exposicao (query 14). Totals count
-- each inscription once (query 14's "contada" columns); divida_como_corresponsavel is what the
-- companies owe as co-responsible or jointly liable, and contagem_dupla_evitada what a plain sum
-- of every company's own exposure would have counted twice.
WITH situacao AS (
    SELECT COUNT(*) AS empresas_carteira,
           SUM(CASE WHEN situacao = 'encontrada' THEN 1 ELSE 0 END) AS encontradas,
           SUM(CASE WHEN situacao = 'nao_encontrada' THEN 1 ELSE 0 END) AS nao_encontradas,
           SUM(CASE WHEN situacao = 'falhou' THEN 1 ELSE 0 END) AS com_falha
    FROM carteira
),
exposicao AS (
    -- sem_divida: no registration, plan or transaction at all. A company with records but no
    -- positive balance (a settled plan, or an amount data_quality could not read) is in neither.
    SELECT SUM(CASE WHEN inscricoes + parcelamentos + transacoes = 0 THEN 1 ELSE 0 END) AS sem_divida,
           SUM(CASE WHEN exposicao_total > 0 THEN 1 ELSE 0 END) AS com_divida,
           SUM(nao_prev_contada) AS nao_previdenciario,
           SUM(prev_contada) AS previdenciario,
           SUM(fgts_contada) AS fgts,
           SUM(ajuizada_contada) AS divida_ajuizada,
           SUM(divida_corresponsavel) AS divida_como_corresponsavel,
           SUM(parcelamentos_contado) AS parcelamentos_saldo,
           SUM(transacoes_contado) AS transacoes_saldo,
           SUM(exposicao_contada) AS exposicao_total,
           SUM(exposicao_total) - SUM(exposicao_contada) AS contagem_dupla_evitada
    FROM carteira_exposicao
)
SELECT s.empresas_carteira,
       s.encontradas,
       s.nao_encontradas,
       s.com_falha,
       e.com_divida,
       e.sem_divida,
       e.nao_previdenciario,
       e.previdenciario,
       e.fgts,
       e.divida_ajuizada,
       ROUND(100.0 * CAST(e.divida_ajuizada AS DOUBLE)
             / CAST(NULLIF(e.nao_previdenciario + e.previdenciario + e.fgts, 0) AS DOUBLE), 4) AS ajuizado_pct,
       e.parcelamentos_saldo,
       e.transacoes_saldo,
       e.exposicao_total,
       e.divida_como_corresponsavel,
       e.contagem_dupla_evitada
FROM situacao s CROSS JOIN exposicao e
