-- titulo: Variação da dívida ativa da União no último trimestre, por UF e por seção CNAE
-- title: The federal active debt's move in the latest quarter, by state and by CNAE section
-- report: section
-- descricao: Entre os dois retratos mais recentes que leram a publicação da PGFN, quanto a dívida
--   ativa de cada UF e de cada seção CNAE (as pessoas físicas numa linha própria, PF; uma empresa
--   sem correspondência na RFB em '?') variou, em reais e em %, da maior alta à maior queda. Vazia
--   com menos de dois desses retratos.
-- description: Between the two newest snapshots that read PGFN's release, how much each state's
--   and each CNAE section's active debt moved (people in a row of their own, PF; a company with no
--   RFB match under '?'), in reais and in %, from the largest rise to the largest fall. Empty with
--   fewer than two such snapshots.
-- answers: Which states and sectors drove the federal active debt's move in the latest quarter?
-- A key in one of the two snapshots only counts as zero in the other. Ties are broken by the keys
-- so the list is the same on every engine.
WITH ultimo AS (
    -- snapshot_anterior grows with snapshot, so both maxima belong to the newest snapshot.
    SELECT MAX(snapshot) AS snapshot, MAX(snapshot_anterior) AS snapshot_anterior
    FROM divida_ativa_nacional_por_retrato
),
chaves AS (
    SELECT 'uf' AS dimensao, COALESCE(NULLIF(uf, ''), '?') AS chave, snapshot, valor
    FROM divida_ativa_nacional_por_retrato
    UNION ALL
    SELECT 'cnae_secao' AS dimensao, cnae_secao AS chave, snapshot, valor
    FROM divida_ativa_nacional_por_retrato
),
atual AS (
    SELECT c.dimensao, c.chave, SUM(c.valor) AS valor
    FROM chaves c JOIN ultimo u ON c.snapshot = u.snapshot
    GROUP BY c.dimensao, c.chave
),
anterior AS (
    SELECT c.dimensao, c.chave, SUM(c.valor) AS valor
    FROM chaves c JOIN ultimo u ON c.snapshot = u.snapshot_anterior
    GROUP BY c.dimensao, c.chave
),
lado_a_lado AS (
    SELECT COALESCE(a.dimensao, p.dimensao) AS dimensao,
           COALESCE(a.chave, p.chave) AS chave,
           COALESCE(p.valor, CAST(0 AS DECIMAL(18, 2))) AS valor_anterior,
           COALESCE(a.valor, CAST(0 AS DECIMAL(18, 2))) AS valor_atual,
           -- Any key with a previous value means there is a previous snapshot.
           COUNT(p.valor) OVER () AS chaves_anteriores
    FROM atual a
    FULL OUTER JOIN anterior p ON p.dimensao = a.dimensao AND p.chave = a.chave
)
SELECT dimensao, chave, valor_anterior, valor_atual,
       valor_atual - valor_anterior AS variacao,
       ROUND(100.0 * CAST(valor_atual - valor_anterior AS DOUBLE) / CAST(NULLIF(valor_anterior, 0) AS DOUBLE), 4) AS variacao_pct
FROM lado_a_lado
WHERE chaves_anteriores > 0
ORDER BY dimensao DESC, variacao DESC, chave
