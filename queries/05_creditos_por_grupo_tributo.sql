-- titulo: Créditos ativos por grupo de tributo no último mês
-- title: Active credits by tax group in the latest month
-- report: section
-- descricao: Quais grupos de tributo concentram os créditos ativos do último mês e quanto cada
--   grupo variou em relação ao mês anterior. Um grupo com créditos em só um dos dois meses aparece
--   com zero no outro, e a variação fica em branco quando o mês anterior não foi buscado.
-- description: Which tax groups hold the latest month's active credits, and how much each group
--   changed on the previous month. A group with credits in only one of the two months shows zero in
--   the other, and the change stays blank when the previous month was not fetched.
-- answers: In the latest month, which tax groups hold the active credits, and how did each change on
--   the previous month?
-- A group with credits in only one of the two months still shows (FULL JOIN), at zero in the
--   other. When the previous month was not fetched at all, its column and the change stay empty
--   rather than read as zero. A blank grupo_tributo is grouped as '?'.
WITH ultimo AS (
    -- The latest month and the one before it: ano_mes_anterior grows with ano_mes, so both
    -- maxima belong to the same month.
    SELECT MAX(ano_mes) AS ano_mes, MAX(ano_mes_anterior) AS ano_mes_anterior
    FROM creditos_ativos
),
atual AS (
    SELECT COALESCE(c.grupo_tributo, '?') AS grupo_tributo, SUM(c.valor_total) AS valor_total
    FROM creditos_ativos c JOIN ultimo u ON c.ano_mes = u.ano_mes
    GROUP BY COALESCE(c.grupo_tributo, '?')
),
anterior AS (
    SELECT COALESCE(c.grupo_tributo, '?') AS grupo_tributo, SUM(c.valor_total) AS valor_total
    FROM creditos_ativos c JOIN ultimo u ON c.ano_mes = u.ano_mes_anterior
    GROUP BY COALESCE(c.grupo_tributo, '?')
),
linhas AS (
    SELECT COALESCE(a.grupo_tributo, p.grupo_tributo) AS grupo_tributo,
           COALESCE(a.valor_total, CAST(0 AS DECIMAL(18, 2))) AS valor_total,
           -- Any group with a previous value means that month was fetched (a window over the few
           -- joined rows: cheaper than looking at the raw table again).
           CASE WHEN COUNT(p.valor_total) OVER () > 0
                THEN COALESCE(p.valor_total, CAST(0 AS DECIMAL(18, 2))) END AS valor_mes_anterior
    FROM atual a FULL OUTER JOIN anterior p ON p.grupo_tributo = a.grupo_tributo
),
tabela AS (
    SELECT l.grupo_tributo,
           l.valor_total,
           ROUND(100.0 * CAST(l.valor_total AS DOUBLE) / CAST(NULLIF(SUM(l.valor_total) OVER (), 0) AS DOUBLE), 4) AS participacao_pct,
           l.valor_total - l.valor_mes_anterior AS variacao_mes,
           ROUND(100.0 * CAST(l.valor_total - l.valor_mes_anterior AS DOUBLE) / CAST(NULLIF(l.valor_mes_anterior, 0) AS DOUBLE), 4) AS variacao_mes_pct,
           0 AS ordem
    FROM linhas l
    UNION ALL
    SELECT 'TOTAL' AS grupo_tributo,
           SUM(valor_total) AS valor_total,
           100.0 AS participacao_pct,
           SUM(valor_total) - SUM(valor_mes_anterior) AS variacao_mes,
           ROUND(100.0 * CAST(SUM(valor_total) - SUM(valor_mes_anterior) AS DOUBLE) / CAST(NULLIF(SUM(valor_mes_anterior), 0) AS DOUBLE), 4) AS variacao_mes_pct,
           1 AS ordem
    FROM linhas
)
SELECT grupo_tributo, valor_total, participacao_pct, variacao_mes, variacao_mes_pct
FROM tabela
ORDER BY ordem, valor_total DESC, grupo_tributo
