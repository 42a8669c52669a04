-- titulo: Desde quando cada empresa está na sua situação fiscal estimada
-- title: Since when each company holds its estimated tax standing
-- report: none
-- descricao: Para cada empresa da carteira no retrato mais recente, a sua situação fiscal estimada
--   e o primeiro retrato de uma sequência sem outra situação até hoje (os retratos em que a
--   empresa não estava na carteira não interrompem a sequência).
-- description: For each portfolio company of the newest snapshot, its estimated tax standing and
--   the first snapshot of an unbroken stretch in it up to now (snapshots without the company in
--   the portfolio do not break the stretch).
-- answers: Since which snapshot has each company held its current standing?
WITH ultimo AS (
    SELECT MAX(snapshot) AS snapshot FROM situacao_fiscal_estimada_por_retrato
),
atual AS (
    SELECT s.cnpj, s.situacao_fiscal_estimada
    FROM situacao_fiscal_estimada_por_retrato s
    JOIN ultimo u ON u.snapshot = s.snapshot
),
outra AS (
    SELECT s.cnpj, MAX(s.snapshot) AS ultima_outra
    FROM situacao_fiscal_estimada_por_retrato s
    JOIN atual a ON a.cnpj = s.cnpj
    WHERE s.situacao_fiscal_estimada <> a.situacao_fiscal_estimada
    GROUP BY s.cnpj
)
SELECT a.cnpj,
       a.situacao_fiscal_estimada,
       MIN(s.snapshot) AS desde,
       COUNT(*) AS retratos
FROM atual a
JOIN situacao_fiscal_estimada_por_retrato s ON s.cnpj = a.cnpj
LEFT JOIN outra o ON o.cnpj = a.cnpj
WHERE o.ultima_outra IS NULL OR s.snapshot > o.ultima_outra
GROUP BY a.cnpj, a.situacao_fiscal_estimada
ORDER BY a.cnpj
