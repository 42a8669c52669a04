-- titulo: Dívida ativa da União por UF, de toda a publicação da PGFN
-- title: Federal active debt by state, from PGFN's whole release
-- report: section
-- descricao: Todas as inscrições da publicação trimestral da PGFN, da carteira ou não, cada uma
--   contada uma vez (pela linha do devedor principal), somadas por UF: quantas são, quanto valem,
--   quanto disso devem empresas e quanto pessoas físicas, e a participação de cada UF no total.
--   Vazia numa execução sobre o serviço, que não traz a publicação inteira.
-- description: Every inscription of PGFN's quarterly release, the portfolio's or not, each counted
--   once (by its principal debtor's row), summed by state: how many, their value, how much of it
--   companies and people owe, and each state's share of the total. Empty on a run over the
--   service, which does not carry the whole release.
-- answers: Across the country, how much federal active debt does each state hold, how many
--   inscriptions, and how much of it do companies and people owe?
-- divida_ativa_nacional holds one row per state, person type, system, situation and in court
--   (extract/open_data/national.rs); a blank uf is grouped as '?'. No TOTAL row when it is empty.
WITH por_uf AS (
    SELECT COALESCE(NULLIF(uf, ''), '?') AS uf,
           SUM(inscricoes) AS inscricoes,
           SUM(valor) AS valor_total,
           SUM(CASE WHEN tipo_pessoa = 'J' THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS valor_pj,
           SUM(CASE WHEN tipo_pessoa = 'F' THEN valor ELSE CAST(0 AS DECIMAL(18, 2)) END) AS valor_pf,
           1 AS todas
    FROM divida_ativa_nacional
    GROUP BY COALESCE(NULLIF(uf, ''), '?')
),
tabela AS (
    SELECT uf, inscricoes, valor_total, valor_pj, valor_pf,
           ROUND(100.0 * CAST(valor_total AS DOUBLE) / CAST(NULLIF(SUM(valor_total) OVER (), 0) AS DOUBLE), 4) AS participacao_pct,
           0 AS ordem
    FROM por_uf
    UNION ALL
    SELECT 'TOTAL' AS uf, SUM(inscricoes), SUM(valor_total), SUM(valor_pj), SUM(valor_pf),
           100.0 AS participacao_pct,
           1 AS ordem
    FROM por_uf
    -- Grouped by a column every row holds: no row at all (not a TOTAL of nothing) when the
    -- table is empty.
    GROUP BY todas
)
SELECT uf, inscricoes, valor_total, valor_pj, valor_pf, participacao_pct
FROM tabela
ORDER BY ordem, valor_total DESC, uf
