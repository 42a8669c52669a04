-- titulo: Variação da exposição por empresa
-- title: Change in exposure per company
-- report: section
-- descricao: Para cada empresa da carteira que estava também no retrato anterior, quanto ela devia
--   então e quanto deve agora (dívida ativa, parcelamentos e transações, como na exposição da
--   carteira), a variação em R$ e em %. A % fica vazia quando a empresa não devia nada antes.
--   Vazia na primeira execução sobre um armazenamento (não há retrato anterior).
-- description: For each portfolio company that was also in the previous snapshot, what it owed
--   then and what it owes now (active debt, instalment plans and transactions, as in the
--   portfolio exposure), the change in R$ and in %. The % is empty when the company owed nothing
--   before. Empty on a store's first run (there is no previous snapshot).
-- answers: Whose exposure grew or shrank since the previous snapshot, and by how much?
-- exposicao_anterior sums the same amounts as carteira_exposicao.exposicao_total, over the
-- previous snapshot's tables.
WITH montantes AS (
    SELECT cnpj, valor_consolidado AS valor FROM dividas_pgfn_anterior
    UNION ALL
    SELECT cnpj, saldo_devedor AS valor FROM parcelamentos_rfb_anterior
    UNION ALL
    SELECT cnpj, saldo_devedor AS valor FROM transacoes_rfb_anterior
),
anterior AS (
    SELECT cnpj, SUM(valor) AS exposicao FROM montantes GROUP BY cnpj
),
ambos AS (
    SELECT x.cnpj, x.razao_social, x.exposicao_total AS exposicao_atual,
           COALESCE(a.exposicao, CAST(0 AS DECIMAL(38, 2))) AS exposicao_anterior
    FROM carteira_exposicao x
    JOIN empresas_anterior p ON p.cnpj = x.cnpj
    LEFT JOIN anterior a ON a.cnpj = x.cnpj
)
SELECT c.snapshot, c.snapshot_anterior, b.cnpj, b.razao_social,
       b.exposicao_anterior, b.exposicao_atual,
       b.exposicao_atual - b.exposicao_anterior AS variacao,
       CASE WHEN b.exposicao_anterior > 0
            THEN CAST(b.exposicao_atual - b.exposicao_anterior AS DOUBLE) * 100.0
                 / CAST(b.exposicao_anterior AS DOUBLE)
       END AS variacao_percentual
FROM ambos b
CROSS JOIN comparacao c
ORDER BY variacao DESC, b.cnpj
