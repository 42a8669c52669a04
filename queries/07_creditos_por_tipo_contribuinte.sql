-- titulo: Créditos ativos por tipo de contribuinte no último mês
-- title: Active credits by taxpayer type in the latest month
-- report: section
-- descricao: Quanto do estoque do último mês é devido por empresas (PJ) e por pessoas físicas (PF),
--   e quanto cada tipo variou em relação ao mês anterior. Um tipo com créditos em só um dos dois
--   meses aparece com zero no outro, e a variação fica em branco quando o mês anterior não foi
--   buscado.
-- description: How much of the latest month's stock is owed by companies (PJ) and by individuals
--   (PF), and how much each type changed on the previous month. A type with credits in only one of
--   the two months shows zero in the other, and the change stays blank when the previous month was
--   not fetched.
-- answers: In the latest month, how much is owed by companies (PJ) and by people (PF), and how did each
--   change on the previous month?
-- A group with credits in only one of the two months still shows (FULL JOIN), at zero in the
--   other. When the previous month was not fetched at all, its column and the change stay empty
--   rather than read as zero. A blank tipo_contribuinte is grouped as '?'.
WITH ultimo AS (
    -- The latest month and the one before it: ano_mes_anterior grows with ano_mes, so both
    -- maxima belong to the same month.
    SELECT MAX(ano_mes) AS ano_mes, MAX(ano_mes_anterior) AS ano_mes_anterior
    FROM creditos_ativos
),
atual AS (
    SELECT COALESCE(c.tipo_contribuinte, '?') AS tipo_contribuinte, SUM(c.valor_total) AS valor_total
    FROM creditos_ativos c JOIN ultimo u ON c.ano_mes = u.ano_mes
    GROUP BY COALESCE(c.tipo_contribuinte, '?')
),
anterior AS (
    SELECT COALESCE(c.tipo_contribuinte, '?') AS tipo_contribuinte, SUM(c.valor_total) AS valor_total
    FROM creditos_ativos c JOIN ultimo u ON c.ano_mes = u.ano_mes_anterior
    GROUP BY COALESCE(c.tipo_contribuinte, '?')
),
linhas AS (
    SELECT COALESCE(a.tipo_contribuinte, p.tipo_contribuinte) AS tipo_contribuinte,
           COALESCE(a.valor_total, CAST(0 AS DECIMAL(18, 2))) AS valor_total,
           -- Any group with a previous value means that month was fetched (a window over the few
           -- joined rows: cheaper than looking at the raw table again).
           CASE WHEN COUNT(p.valor_total) OVER () > 0
                THEN COALESCE(p.valor_total, CAST(0 AS DECIMAL(18, 2))) END AS valor_mes_anterior
    FROM atual a FULL OUTER JOIN anterior p ON p.tipo_contribuinte = a.tipo_contribuinte
),
tabela AS (
    SELECT l.tipo_contribuinte,
           l.valor_total,
           ROUND(100.0 * CAST(l.valor_total AS DOUBLE) / CAST(NULLIF(SUM(l.valor_total) OVER (), 0) AS DOUBLE), 4) AS participacao_pct,
           l.valor_total - l.valor_mes_anterior AS variacao_mes,
           ROUND(100.0 * CAST(l.valor_total - l.valor_mes_anterior AS DOUBLE) / CAST(NULLIF(l.valor_mes_anterior, 0) AS DOUBLE), 4) AS variacao_mes_pct,
           0 AS ordem
    FROM linhas l
    UNION ALL
    SELECT 'TOTAL' AS tipo_contribuinte,
           SUM(valor_total) AS valor_total,
           100.0 AS participacao_pct,
           SUM(valor_total) - SUM(valor_mes_anterior) AS variacao_mes,
           ROUND(100.0 * CAST(SUM(valor_total) - SUM(valor_mes_anterior) AS DOUBLE) / CAST(NULLIF(SUM(valor_mes_anterior), 0) AS DOUBLE), 4) AS variacao_mes_pct,
           1 AS ordem
    FROM linhas
)
SELECT tipo_contribuinte, valor_total, participacao_pct, variacao_mes, variacao_mes_pct
FROM tabela
ORDER BY ordem, valor_total DESC, tipo_contribuinte
