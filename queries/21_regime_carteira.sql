-- titulo: Regime tributário da carteira
-- title: The portfolio's tax regime
-- report: none
-- descricao: Uma linha por empresa da carteira com o seu regime tributário: MEI ou Simples
--   Nacional quando é optante hoje (arquivo Simples da RFB); senão a forma de tributação do ano
--   mais recente da sua ECF nos arquivos de regime tributário da RFB (Lucro Real, Lucro Presumido,
--   Lucro Arbitrado, Imune do IRPJ, Isenta do IRPJ; duas formas no mesmo ano, como Lucro Real e
--   Lucro Arbitrado, aparecem juntas, "Lucro Real + Lucro Arbitrado"); "Não informado" quando os
--   arquivos não trazem nenhuma. A ECF de um ano sai em janeiro de dois anos depois, por isso o
--   ano mais recente fica dois anos atrás. As linhas de SCP da empresa não contam para o seu
--   regime. anos_ecf conta os anos com ECF. Guardada a cada retrato, para as mudanças dizerem
--   "mudou de regime".
-- description: One row per portfolio company with its tax regime: MEI or Simples Nacional when it
--   opts in today (RFB's Simples file); otherwise the form of taxation of the latest year of its
--   ECF in RFB's tax regime files (two forms in one year, such as Lucro Real and Lucro Arbitrado,
--   are shown together); "Não informado" when the files hold none. A year's ECF is published in
--   the January two years later, so the latest year lags two years. Rows of the company's SCPs
--   do not count for its regime. anos_ecf counts the years with an ECF. Kept with every
--   snapshot, so the changes say "mudou de regime".
-- answers: Which tax regime is each portfolio company in, and since which year's ECF?
-- A company is found by its CNPJ's root: RFB's rows name the head office or a branch.
WITH anos AS (
    SELECT cnpj_basico, ano,
           MAX(CASE WHEN regime = 'lucro_real' THEN 1 ELSE 0 END) AS real,
           MAX(CASE WHEN regime = 'lucro_presumido' THEN 1 ELSE 0 END) AS presumido,
           MAX(CASE WHEN regime = 'lucro_arbitrado' THEN 1 ELSE 0 END) AS arbitrado,
           MAX(CASE WHEN regime = 'imune' THEN 1 ELSE 0 END) AS imune,
           MAX(CASE WHEN regime = 'isenta' THEN 1 ELSE 0 END) AS isenta,
           MAX(CASE WHEN regime = 'outro' THEN forma_tributacao END) AS outra
    FROM regime_tributario
    WHERE cnpj_scp IS NULL AND ano IS NOT NULL
    GROUP BY cnpj_basico, ano
),
ultimo AS (
    SELECT cnpj_basico, MAX(ano) AS ano, COUNT(*) AS anos_ecf FROM anos GROUP BY cnpj_basico
),
ecf AS (
    SELECT u.cnpj_basico, u.ano, u.anos_ecf,
           CONCAT_WS(' + ',
                     CASE WHEN a.real = 1 THEN 'Lucro Real' END,
                     CASE WHEN a.presumido = 1 THEN 'Lucro Presumido' END,
                     CASE WHEN a.arbitrado = 1 THEN 'Lucro Arbitrado' END,
                     CASE WHEN a.imune = 1 THEN 'Imune do IRPJ' END,
                     CASE WHEN a.isenta = 1 THEN 'Isenta do IRPJ' END,
                     a.outra) AS forma
    FROM ultimo u
    JOIN anos a ON a.cnpj_basico = u.cnpj_basico AND a.ano = u.ano
)
SELECT x.cnpj,
       x.razao_social,
       CASE WHEN e.opcao_pelo_mei = 'S' THEN 'MEI'
            WHEN e.opcao_pelo_simples = 'S' THEN 'Simples Nacional'
            WHEN f.forma IS NOT NULL THEN f.forma
            ELSE 'Não informado' END AS regime,
       f.forma AS regime_ecf,
       f.ano AS ano_ecf,
       COALESCE(f.anos_ecf, 0) AS anos_ecf
FROM carteira_exposicao x
LEFT JOIN empresas e ON e.cnpj = x.cnpj
LEFT JOIN ecf f ON f.cnpj_basico = SUBSTR(x.cnpj, 1, 8)
ORDER BY x.cnpj
