-- titulo: Maiores quedas do último mês (UF x seção CNAE x grupo de tributo)
-- title: Largest falls of the latest month (state x CNAE section x tax group)
-- report: section
-- descricao: As 20 combinações de UF, seção CNAE e grupo de tributo cujo estoque mais caiu, em
--   reais, do mês anterior para o último mês. A lista fica vazia quando o mês anterior não foi
--   buscado.
-- description: The 20 combinations of state, CNAE section and tax group whose stock fell most, in
--   reais, from the previous month to the latest one. The list is empty when the previous month was
--   not fetched.
-- answers: Which 20 cells of (state, CNAE section, tax group) fell most in the latest month, in
--   BRL, compared with the previous month?
-- Ties are broken by the cell's keys so the list is the same on every engine.
-- Empty when the previous month was not fetched, since a cell is not a mover just because the
--   month before it is missing. Blank keys are grouped as '?'.
WITH ultimo AS (
    -- The latest month and the one before it: ano_mes_anterior grows with ano_mes, so both
    -- maxima belong to the same month.
    SELECT MAX(ano_mes) AS ano_mes, MAX(ano_mes_anterior) AS ano_mes_anterior
    FROM creditos_ativos
),
atual AS (
    SELECT COALESCE(c.uf, '?') AS uf, COALESCE(c.cnae_secao_cod, '?') AS cnae_secao_cod,
           COALESCE(c.grupo_tributo, '?') AS grupo_tributo, SUM(c.valor_total) AS valor_total
    FROM creditos_ativos c JOIN ultimo u ON c.ano_mes = u.ano_mes
    GROUP BY COALESCE(c.uf, '?'), COALESCE(c.cnae_secao_cod, '?'), COALESCE(c.grupo_tributo, '?')
),
anterior AS (
    SELECT COALESCE(c.uf, '?') AS uf, COALESCE(c.cnae_secao_cod, '?') AS cnae_secao_cod,
           COALESCE(c.grupo_tributo, '?') AS grupo_tributo, SUM(c.valor_total) AS valor_total
    FROM creditos_ativos c JOIN ultimo u ON c.ano_mes = u.ano_mes_anterior
    GROUP BY COALESCE(c.uf, '?'), COALESCE(c.cnae_secao_cod, '?'), COALESCE(c.grupo_tributo, '?')
),
celulas AS (
    SELECT COALESCE(a.uf, p.uf) AS uf,
           COALESCE(a.cnae_secao_cod, p.cnae_secao_cod) AS cnae_secao_cod,
           COALESCE(a.grupo_tributo, p.grupo_tributo) AS grupo_tributo,
           COALESCE(p.valor_total, CAST(0 AS DECIMAL(18, 2))) AS valor_mes_anterior,
           COALESCE(a.valor_total, CAST(0 AS DECIMAL(18, 2))) AS valor_total,
           -- Any cell with a previous value means that month was fetched.
           COUNT(p.valor_total) OVER () AS celulas_mes_anterior
    FROM atual a
    FULL OUTER JOIN anterior p
      ON p.uf = a.uf AND p.cnae_secao_cod = a.cnae_secao_cod AND p.grupo_tributo = a.grupo_tributo
)
SELECT uf,
       cnae_secao_cod,
       grupo_tributo,
       valor_mes_anterior,
       valor_total,
       valor_total - valor_mes_anterior AS variacao,
       ROUND(100.0 * CAST(valor_total - valor_mes_anterior AS DOUBLE) / CAST(NULLIF(valor_mes_anterior, 0) AS DOUBLE), 4) AS variacao_pct
FROM celulas
WHERE celulas_mes_anterior > 0 AND valor_total - valor_mes_anterior < 0
ORDER BY variacao ASC, uf, cnae_secao_cod, grupo_tributo
LIMIT 20
