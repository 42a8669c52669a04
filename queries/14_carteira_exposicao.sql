-- titulo: Exposição da carteira por empresa
-- title: Portfolio exposure by company
-- report: none
-- descricao: Para cada empresa da carteira encontrada no serviço, quanto ela deve em dívida ativa
--   (não previdenciária, previdenciária e FGTS, ajuizada ou não), em parcelamentos e em transações.
--   A exposição total é a soma desses valores.
-- description: For each portfolio company the service found, how much it owes in active debt (other
--   than social security, social security and FGTS, filed in court or not), in instalment plans and
--   in tax settlements. The total exposure is the sum of these amounts.
-- answers: For each company of the portfolio the service knows, how much does it owe: active
--   debt per categoria (filed in court or not), instalment balance and transaction balance?
-- exposicao_total is the sum of the eight amounts.
WITH dividas AS (
    SELECT cnpj,
           SUM(CASE WHEN categoria = 'nao_previdenciario' AND indicador_ajuizado = 'SIM' THEN valor_consolidado ELSE CAST(0 AS DECIMAL(18, 2)) END) AS nao_prev_ajuizada,
           SUM(CASE WHEN categoria = 'nao_previdenciario' AND COALESCE(indicador_ajuizado, '') <> 'SIM' THEN valor_consolidado ELSE CAST(0 AS DECIMAL(18, 2)) END) AS nao_prev_nao_ajuizada,
           SUM(CASE WHEN categoria = 'previdenciario' AND indicador_ajuizado = 'SIM' THEN valor_consolidado ELSE CAST(0 AS DECIMAL(18, 2)) END) AS prev_ajuizada,
           SUM(CASE WHEN categoria = 'previdenciario' AND COALESCE(indicador_ajuizado, '') <> 'SIM' THEN valor_consolidado ELSE CAST(0 AS DECIMAL(18, 2)) END) AS prev_nao_ajuizada,
           SUM(CASE WHEN categoria = 'fgts' AND indicador_ajuizado = 'SIM' THEN valor_consolidado ELSE CAST(0 AS DECIMAL(18, 2)) END) AS fgts_ajuizada,
           SUM(CASE WHEN categoria = 'fgts' AND COALESCE(indicador_ajuizado, '') <> 'SIM' THEN valor_consolidado ELSE CAST(0 AS DECIMAL(18, 2)) END) AS fgts_nao_ajuizada,
           COUNT(*) AS inscricoes
    FROM dividas_pgfn
    GROUP BY cnpj
),
parcelamentos AS (
    SELECT cnpj, SUM(saldo_devedor) AS saldo, COUNT(*) AS planos FROM parcelamentos_rfb GROUP BY cnpj
),
transacoes AS (
    SELECT cnpj, SUM(saldo_devedor) AS saldo, COUNT(*) AS acordos FROM transacoes_rfb GROUP BY cnpj
),
linhas AS (
    SELECT e.cnpj,
           e.razao_social,
           e.uf,
           e.cnae_secao,
           COALESCE(d.nao_prev_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS nao_prev_ajuizada,
           COALESCE(d.nao_prev_nao_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS nao_prev_nao_ajuizada,
           COALESCE(d.prev_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS prev_ajuizada,
           COALESCE(d.prev_nao_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS prev_nao_ajuizada,
           COALESCE(d.fgts_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS fgts_ajuizada,
           COALESCE(d.fgts_nao_ajuizada, CAST(0 AS DECIMAL(18, 2))) AS fgts_nao_ajuizada,
           COALESCE(p.saldo, CAST(0 AS DECIMAL(18, 2))) AS parcelamentos_saldo,
           COALESCE(t.saldo, CAST(0 AS DECIMAL(18, 2))) AS transacoes_saldo,
           COALESCE(d.inscricoes, 0) AS inscricoes,
           COALESCE(p.planos, 0) AS parcelamentos,
           COALESCE(t.acordos, 0) AS transacoes
    FROM empresas e
    LEFT JOIN dividas d ON d.cnpj = e.cnpj
    LEFT JOIN parcelamentos p ON p.cnpj = e.cnpj
    LEFT JOIN transacoes t ON t.cnpj = e.cnpj
)
SELECT cnpj, razao_social, uf, cnae_secao,
       nao_prev_ajuizada, nao_prev_nao_ajuizada, prev_ajuizada, prev_nao_ajuizada, fgts_ajuizada, fgts_nao_ajuizada,
       parcelamentos_saldo, transacoes_saldo,
       nao_prev_ajuizada + nao_prev_nao_ajuizada + prev_ajuizada + prev_nao_ajuizada + fgts_ajuizada + fgts_nao_ajuizada
         + parcelamentos_saldo + transacoes_saldo AS exposicao_total,
       inscricoes, parcelamentos, transacoes
FROM linhas
ORDER BY exposicao_total DESC, cnpj
