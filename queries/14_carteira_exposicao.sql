-- titulo: Exposição da carteira por empresa
-- title: Portfolio exposure by company
-- report: none
-- descricao: Para cada empresa da carteira encontrada no serviço, quanto ela deve em dívida ativa
--   (não previdenciária, previdenciária e FGTS, ajuizada ou não), como devedora principal e como
--   corresponsável ou solidária, em parcelamentos e em transações. A exposição total é a soma
--   desses valores. A PGFN publica uma linha por devedor de cada inscrição: a principal e cada
--   corresponsável repetem o número e o valor. Por isso os totais (por UF, seção, grupo e da
--   carteira) somam as colunas "contada": cada inscrição entra uma só vez, na conta da devedora
--   principal quando ela está na carteira, senão na do menor CNPJ da carteira que a deve; e os
--   parcelamentos e transações de uma empresa listada com mais de um CNPJ entram uma vez.
-- description: For each portfolio company the service found, how much it owes in active debt (other
--   than social security, social security and FGTS, filed in court or not), as principal debtor
--   and as co-responsible or jointly liable, in instalment plans and in tax settlements. The total
--   exposure is the sum of these amounts. PGFN publishes one row per debtor of an inscription: the
--   principal and each co-responsible repeat its number and value. So totals (by state, section,
--   group and of the portfolio) add up the "contada" columns: each inscription counts once, for
--   its principal when the principal is in the portfolio, else for the smallest portfolio CNPJ
--   that owes it; and a company listed under more than one CNPJ has its plans counted once.
-- answers: For each company of the portfolio the service knows, how much does it owe: active
--   debt per categoria (filed in court or not), as principal and as co-debtor, instalment
--   balance and transaction balance; and what of it counts in the portfolio's totals?
-- exposicao_total is the sum of the eight amounts: the company's own exposure, every inscription
-- it owes in any role (once, even when listed twice). exposicao_contada is its share of the
-- portfolio's totals. inscricoes_da_carteira is empty here; when this query runs over the
-- partner companies fetched for the economic groups, it holds the inscriptions the portfolio
-- owes, which the partners then do not count again. Only a row that says PRINCIPAL makes its
-- company the principal: a role the file does not state, or another one, never takes the credit
-- from a named principal, and shows with the co-debtors' amounts.
WITH papeis AS (
    SELECT cnpj, categoria, numero_inscricao,
           CASE WHEN tipo_devedor = 'PRINCIPAL' THEN 1 ELSE 0 END AS principal,
           CASE WHEN indicador_ajuizado = 'SIM' THEN 1 ELSE 0 END AS ajuizada,
           valor_consolidado AS valor
    FROM dividas_pgfn
),
-- One row per company and inscription; an inscription without a number is its own.
inscricoes AS (
    SELECT cnpj, categoria, numero_inscricao,
           MAX(principal) AS principal, MAX(ajuizada) AS ajuizada, MAX(valor) AS valor
    FROM papeis
    WHERE numero_inscricao IS NOT NULL
    GROUP BY cnpj, categoria, numero_inscricao
),
-- Each inscription's debtors numbered, its holder first (ordem 1): a principal before a
-- co-debtor ('0' before '1'), then the smallest CNPJ. Numbering the rows reads the inscriptions
-- once, where grouping them by holder and joining back held them twice (at 500,000 companies,
-- 400 MB more).
inscricoes_numeradas AS (
    SELECT cnpj, categoria, numero_inscricao, principal, ajuizada, valor,
           ROW_NUMBER() OVER (
               PARTITION BY categoria, numero_inscricao
               ORDER BY CASE WHEN principal = 1 THEN '0' ELSE '1' END || cnpj
           ) AS ordem
    FROM inscricoes
),
ja_contadas AS (
    SELECT DISTINCT categoria, numero_inscricao FROM inscricoes_da_carteira
),
proprias AS (
    SELECT cnpj, categoria, principal, ajuizada, valor FROM inscricoes_numeradas
    UNION ALL
    SELECT cnpj, categoria, principal, ajuizada, valor FROM papeis WHERE numero_inscricao IS NULL
),
contadas AS (
    SELECT n.cnpj, n.categoria, n.ajuizada, n.valor
    FROM inscricoes_numeradas n
    LEFT JOIN ja_contadas j ON j.categoria = n.categoria AND j.numero_inscricao = n.numero_inscricao
    WHERE n.ordem = 1 AND j.numero_inscricao IS NULL
    UNION ALL
    SELECT cnpj, categoria, ajuizada, valor FROM papeis WHERE numero_inscricao IS NULL
),
dividas AS (
    SELECT cnpj,
           SUM(CASE WHEN categoria = 'nao_previdenciario' AND ajuizada = 1 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS nao_prev_ajuizada,
           SUM(CASE WHEN categoria = 'nao_previdenciario' AND ajuizada = 0 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS nao_prev_nao_ajuizada,
           SUM(CASE WHEN categoria = 'previdenciario' AND ajuizada = 1 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS prev_ajuizada,
           SUM(CASE WHEN categoria = 'previdenciario' AND ajuizada = 0 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS prev_nao_ajuizada,
           SUM(CASE WHEN categoria = 'fgts' AND ajuizada = 1 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS fgts_ajuizada,
           SUM(CASE WHEN categoria = 'fgts' AND ajuizada = 0 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS fgts_nao_ajuizada,
           SUM(CASE WHEN principal = 1 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS divida_principal,
           SUM(CASE WHEN principal = 0 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS divida_corresponsavel,
           COUNT(*) AS inscricoes,
           SUM(CASE WHEN principal = 0 THEN 1 ELSE 0 END) AS inscricoes_corresponsavel
    FROM proprias
    GROUP BY cnpj
),
dividas_contadas AS (
    SELECT cnpj,
           SUM(CASE WHEN categoria = 'nao_previdenciario' THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS nao_prev_contada,
           SUM(CASE WHEN categoria = 'previdenciario' THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS prev_contada,
           SUM(CASE WHEN categoria = 'fgts' THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS fgts_contada,
           SUM(CASE WHEN ajuizada = 1 THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS ajuizada_contada
    FROM contadas
    GROUP BY cnpj
),
-- The first CNPJ of each company (a head office and its branches share the first 8 digits).
primeiro_cnpj AS (
    SELECT MIN(cnpj) AS cnpj FROM empresas GROUP BY LEFT(cnpj, 8)
),
parcelamentos AS (
    SELECT cnpj, SUM(saldo_devedor) AS saldo, COUNT(*) AS planos FROM parcelamentos_rfb GROUP BY cnpj
),
transacoes AS (
    SELECT cnpj, SUM(saldo_devedor) AS saldo, COUNT(*) AS acordos FROM transacoes_rfb GROUP BY cnpj
),
-- The debtor's state PGFN's files give from 2022 Q4 (uf_devedor): the company's state where
-- its register gives none (a release of PGFN's files alone).
estado_devedor AS (
    SELECT cnpj, MIN(uf_devedor) AS uf FROM dividas_pgfn GROUP BY cnpj
),
linhas AS (
    SELECT e.cnpj,
           e.razao_social,
           COALESCE(e.uf, s.uf) AS uf,
           e.cnae_secao,
           COALESCE(d.nao_prev_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS nao_prev_ajuizada,
           COALESCE(d.nao_prev_nao_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS nao_prev_nao_ajuizada,
           COALESCE(d.prev_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS prev_ajuizada,
           COALESCE(d.prev_nao_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS prev_nao_ajuizada,
           COALESCE(d.fgts_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS fgts_ajuizada,
           COALESCE(d.fgts_nao_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS fgts_nao_ajuizada,
           COALESCE(d.divida_principal, CAST(0 AS DECIMAL(18, 2))) AS divida_principal,
           COALESCE(d.divida_corresponsavel, CAST(0 AS DECIMAL(18, 2))) AS divida_corresponsavel,
           COALESCE(p.saldo, CAST(0 AS DECIMAL(18, 2))) AS parcelamentos_saldo,
           COALESCE(t.saldo, CAST(0 AS DECIMAL(18, 2))) AS transacoes_saldo,
           COALESCE(c.nao_prev_contada, CAST(0 AS DECIMAL(18, 2))) AS nao_prev_contada,
           COALESCE(c.prev_contada, CAST(0 AS DECIMAL(18, 2))) AS prev_contada,
           COALESCE(c.fgts_contada, CAST(0 AS DECIMAL(18, 2))) AS fgts_contada,
           COALESCE(c.ajuizada_contada, CAST(0 AS DECIMAL(18, 2))) AS ajuizada_contada,
           CASE WHEN f.cnpj IS NULL THEN CAST(0 AS DECIMAL(18, 2)) ELSE COALESCE(p.saldo, CAST(0 AS DECIMAL(18, 2))) END AS parcelamentos_contado,
           CASE WHEN f.cnpj IS NULL THEN CAST(0 AS DECIMAL(18, 2)) ELSE COALESCE(t.saldo, CAST(0 AS DECIMAL(18, 2))) END AS transacoes_contado,
           COALESCE(d.inscricoes, 0) AS inscricoes,
           COALESCE(d.inscricoes_corresponsavel, 0) AS inscricoes_corresponsavel,
           COALESCE(p.planos, 0) AS parcelamentos,
           COALESCE(t.acordos, 0) AS transacoes
    FROM empresas e
    LEFT JOIN dividas d ON d.cnpj = e.cnpj
    LEFT JOIN dividas_contadas c ON c.cnpj = e.cnpj
    LEFT JOIN primeiro_cnpj f ON f.cnpj = e.cnpj
    LEFT JOIN parcelamentos p ON p.cnpj = e.cnpj
    LEFT JOIN transacoes t ON t.cnpj = e.cnpj
    LEFT JOIN estado_devedor s ON s.cnpj = e.cnpj
)
SELECT cnpj, razao_social, uf, cnae_secao,
       nao_prev_ajuizada, nao_prev_nao_ajuizada, prev_ajuizada, prev_nao_ajuizada, fgts_ajuizada, fgts_nao_ajuizada,
       divida_principal, divida_corresponsavel,
       parcelamentos_saldo, transacoes_saldo,
       divida_principal + divida_corresponsavel + parcelamentos_saldo + transacoes_saldo AS exposicao_total,
       nao_prev_contada, prev_contada, fgts_contada, ajuizada_contada, parcelamentos_contado, transacoes_contado,
       nao_prev_contada + prev_contada + fgts_contada + parcelamentos_contado + transacoes_contado AS exposicao_contada,
       inscricoes, inscricoes_corresponsavel, parcelamentos, transacoes
FROM linhas
ORDER BY exposicao_total DESC, cnpj
