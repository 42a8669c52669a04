-- titulo: Cadastro da carteira
-- title: Portfolio register
-- report: none
-- descricao: Uma linha por CNPJ da carteira: se o serviço o encontrou, o cadastro da empresa
--   (razão social, UF, município, natureza jurídica, CNAE, situação cadastral, datas, capital
--   social, Simples e MEI), o regime tributário (regime_carteira) com o ano da ECF de que vem, a
--   exposição total e a situação fiscal estimada. É a planilha
--   "Carteira" do arquivo report.xlsx.
-- description: One row per portfolio CNPJ: whether the service found it, the company's register
--   entry (name, state, municipality, legal nature, CNAE, registration status, dates, share
--   capital, Simples and MEI), its tax regime (regime_carteira) with the year of the ECF it
--   comes from, its total exposure and its estimated tax standing. It is the
--   "Carteira" sheet of report.xlsx.
-- answers: Who is in the portfolio, as the register knows them, and what does each owe?
-- Companies the service did not find (or could not be read) keep their row, with the register
-- columns empty, so the sheet lists the whole portfolio an analyst handed in.
SELECT c.cnpj,
       c.situacao AS consulta,
       e.razao_social,
       e.nome_fantasia,
       e.uf,
       e.municipio,
       e.natureza_juridica,
       e.porte_empresa,
       e.cnae_fiscal_principal,
       e.cnae_secao,
       e.identificador_matriz_filial,
       e.situacao_cadastral,
       e.data_situacao_cadastral,
       e.data_inicio_atividade,
       e.capital_social,
       e.opcao_pelo_simples,
       e.data_opcao_simples,
       e.opcao_pelo_mei,
       r.regime AS regime_tributario,
       r.ano_ecf,
       x.exposicao_total,
       s.situacao_fiscal_estimada
FROM carteira c
LEFT JOIN empresas e ON e.cnpj = c.cnpj
LEFT JOIN carteira_exposicao x ON x.cnpj = c.cnpj
LEFT JOIN regime_carteira r ON r.cnpj = c.cnpj
LEFT JOIN situacao_fiscal_estimada s ON s.cnpj = c.cnpj
ORDER BY c.cnpj
