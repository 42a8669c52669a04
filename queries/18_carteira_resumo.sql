-- titulo: Resumo da carteira
-- title: Portfolio summary
-- report: section
-- descricao: Quantas empresas da carteira o serviço encontrou, quantas não devem nada e qual é a
--   exposição total, por categoria de dívida e com a parte ajuizada.
-- description: How many portfolio companies the service found, how many owe nothing, and the total
--   exposure, by category of debt and with the share filed in court.
-- answers: How many portfolio companies did the service know, how many owe nothing, and what
--   is the total exposure, by categoria and court-filed share?
-- One row. Reads carteira (every CNPJ asked for) and carteira_exposicao (query 14).
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
           SUM(nao_prev_ajuizada + nao_prev_nao_ajuizada) AS nao_previdenciario,
           SUM(prev_ajuizada + prev_nao_ajuizada) AS previdenciario,
           SUM(fgts_ajuizada + fgts_nao_ajuizada) AS fgts,
           SUM(nao_prev_ajuizada + prev_ajuizada + fgts_ajuizada) AS divida_ajuizada,
           SUM(parcelamentos_saldo) AS parcelamentos_saldo,
           SUM(transacoes_saldo) AS transacoes_saldo,
           SUM(exposicao_total) AS exposicao_total
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
       e.exposicao_total
FROM situacao s CROSS JOIN exposicao e
