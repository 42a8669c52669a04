-- titulo: Sócios possivelmente expostos politicamente
-- title: Partners possibly politically exposed
-- report: none
-- descricao: Cada sócio de uma empresa da carteira que tem o CPF mascarado (os seis dígitos do meio)
--   e o nome de uma pessoa do cadastro de Pessoas Expostas Politicamente da CGU: possivelmente ela,
--   pois um homônimo com os mesmos dígitos é possível. Com a função (sigla, descrição, nível e fim
--   do exercício), o órgão, o início do exercício e o fim da carência (cinco anos depois de deixar
--   a função). exposto diz se a carência ainda corre na data do cadastro. Ser exposto
--   politicamente não é sanção nem acusação: é o que as regras de prevenção à lavagem de dinheiro
--   mandam verificar. É a planilha "Sócios PEP" do arquivo report.xlsx.
-- description: Each partner of a portfolio company whose masked CPF (the six middle digits) and
--   name are those of a person on CGU's register of Politically Exposed Persons: possibly that
--   person, as a namesake with the same digits is possible. With the office (code, description,
--   level and end of term), the organ, the start of the term and the end of the grace period (five
--   years after leaving office). exposto says whether the grace period still runs on the
--   register's date. Being politically exposed is no sanction nor accusation: it is what
--   anti-money-laundering rules ask to check. It is the "Sócios PEP" sheet of report.xlsx.
-- answers: Which partners of the portfolio's companies are possibly politically exposed, in what
--   office and organ, and until when?
-- Reads sancoes (query 27): a PEP record reaches a company only through a partner (socio_possivel).
SELECT s.cnpj,
       e.razao_social,
       s.nome AS socio,
       s.sancionado AS cpf_mascarado,
       s.categoria AS funcao,
       s.orgao,
       s.inicio AS inicio_exercicio,
       s.fim AS fim_carencia,
       s.vigente AS exposto,
       s.data_lista,
       s.fonte
FROM sancoes s
LEFT JOIN empresas e ON e.cnpj = s.cnpj
WHERE s.lista = 'PEP'
ORDER BY s.cnpj, s.nome, s.inicio
