-- titulo: Dívida ativa da União em cada retrato, de toda a publicação da PGFN
-- title: Federal active debt at each snapshot, from PGFN's whole release
-- report: section
-- descricao: Para cada retrato guardado que leu a publicação da PGFN (um por trimestre carregado
--   dos arquivos), todas as inscrições da publicação contadas uma vez: quantas são, quanto valem,
--   quanto disso devem empresas e pessoas físicas, e a variação desde o retrato anterior que também
--   a leu. Os retratos de execuções sobre o serviço não entram.
-- description: For each snapshot kept that read PGFN's release (one per quarter loaded from the
--   files), every inscription of the release counted once: how many, their value, how much of it
--   companies and people owe, and the change since the previous snapshot that read one too.
--   Snapshots of runs over the service are left out.
-- answers: How did the country's federal active debt move from quarter to quarter?
-- Reads divida_ativa_nacional_por_retrato: the store's divida_ativa_nacional of every snapshot
-- that holds it, with `snapshot` and `snapshot_anterior` (the previous snapshot that holds it,
-- null for the first) beside each cell.
WITH por_retrato AS (
    SELECT snapshot,
           MAX(snapshot_anterior) AS snapshot_anterior,
           SUM(inscricoes) AS inscricoes,
           SUM(valor) AS valor_total,
           SUM(CASE WHEN tipo_pessoa = 'J' THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS valor_pj,
           SUM(CASE WHEN tipo_pessoa = 'F' THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS valor_pf
    FROM divida_ativa_nacional_por_retrato
    GROUP BY snapshot
)
SELECT r.snapshot, r.inscricoes, r.valor_total, r.valor_pj, r.valor_pf,
       r.valor_total - p.valor_total AS variacao,
       ROUND(100.0 * CAST(r.valor_total - p.valor_total AS DOUBLE) / CAST(NULLIF(p.valor_total, 0) AS DOUBLE), 4) AS variacao_pct
FROM por_retrato r
LEFT JOIN por_retrato p ON p.snapshot = r.snapshot_anterior
ORDER BY r.snapshot
