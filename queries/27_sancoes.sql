-- titulo: Sanções e listas restritivas
-- title: Sanctions and restrictive lists
-- report: none
-- descricao: Cada empresa da carteira que aparece numa lista pública (CEIS, CNEP, CEPIM e acordos de
--   leniência da CGU; Cadastro de Empregadores do MTE, a "lista suja" do trabalho escravo; embargos do
--   IBAMA), uma linha por registro da lista, com o vínculo: o próprio CNPJ (cnpj), outro
--   estabelecimento da mesma raiz (raiz), um sócio cujo documento a lista dá inteiro (socio), um CPF
--   mascarado com o nome de um sócio, que pode ser ele ou um homônimo (socio_possivel), ou uma
--   empresa do seu grupo econômico (grupo). Quando o registro a alcança de mais de um modo, vale o
--   mais próximo. Vigente na data da lista, pela regra que a definição da lista dá (coluna
--   vigencia): periodo, já começou e não terminou (fim vazio ou "Sem informação" é em aberto; cada
--   período do MTE é um registro); enquanto_listado (CEPIM), enquanto está na lista; embargo
--   (IBAMA), até ser levantado ou cancelado. Um placeholder do CNPJ da leniência não alcança ninguém.
-- description: Each portfolio company on a public list (CGU's CEIS, CNEP, CEPIM and leniency
--   agreements; the labour ministry's Cadastro de Empregadores; IBAMA's embargoes), one row per list
--   record, with how it is reached: its own CNPJ (cnpj), another establishment of its root (raiz), a
--   partner whose whole document the list gives (socio), a masked CPF with a partner's name, him or
--   a namesake (socio_possivel), or a company of its economic group (grupo); the closest way when
--   several hold. In force on the list's date by the rule its definition gives (column vigencia):
--   periodo, started and not ended (an empty end or "Sem informação" is open; each MTE period is a
--   record); enquanto_listado (CEPIM), while listed; embargo (IBAMA), until lifted or cancelled.
-- answers: Which portfolio companies are on a public list, through what link (own CNPJ, another
--   establishment, a partner, possibly a partner, a company of the group), and is each record in
--   force on its list's date?
-- listas holds every record of the lists read (one per period of an MTE row); a whole CPF
-- (MTE) meets RFB's masked partner CPF by its six middle digits and the name, and so does a
-- masked one as CGU writes it (***921012** on CEIS, ***.921.012-** on PEP).
WITH carteira_raiz AS (
    SELECT cnpj, SUBSTRING(cnpj, 1, 8) AS raiz
    FROM carteira
),
cnpjs_carteira AS (
    SELECT DISTINCT cnpj, raiz
    FROM carteira_raiz
),
registros AS (
    SELECT registro, lista, sancionado, documento, nome, categoria, orgao, inicio, fim, valor_multa, fonte, data_lista,
           SUBSTRING(documento, 1, 8) AS raiz_documento,
           UPPER(TRIM(nome)) AS nome_comparado,
           CASE WHEN LENGTH(documento) = 11 THEN '***' || SUBSTRING(documento, 4, 6) || '**' END AS cpf_mascarado,
           CASE WHEN sancionado LIKE '***%' THEN REPLACE(REPLACE(sancionado, '.', ''), '-', '') END AS mascarado,
           CASE vigencia
                WHEN 'enquanto_listado' THEN TRUE
                WHEN 'embargo' THEN NOT cancelado AND (fim IS NULL OR fim > data_lista)
                WHEN 'periodo' THEN (inicio IS NULL OR inicio <= data_lista) AND (fim IS NULL OR fim >= data_lista)
           END AS vigente
    FROM listas
),
socios_nomeados AS (
    SELECT s.cnpj, s.cnpj_cpf_socio AS documento, UPPER(TRIM(s.nome_socio_razao_social)) AS nome_comparado
    FROM socios s
    JOIN cnpjs_carteira e ON e.cnpj = s.cnpj
),
socios_da_carteira AS (
    SELECT DISTINCT cnpj, documento, nome_comparado
    FROM socios_nomeados
),
vinculos AS (
    SELECT e.cnpj, r.registro, 1 AS ordem
    FROM cnpjs_carteira e
    JOIN registros r ON r.documento = e.cnpj
    UNION ALL
    SELECT e.cnpj, r.registro, 2 AS ordem
    FROM cnpjs_carteira e
    JOIN registros r ON r.raiz_documento = e.raiz
    WHERE LENGTH(r.documento) = 14 AND r.documento <> e.cnpj
    UNION ALL
    SELECT s.cnpj, r.registro, 3 AS ordem
    FROM socios_da_carteira s
    JOIN registros r ON r.documento = s.documento
    WHERE LENGTH(r.documento) = 14
    UNION ALL
    SELECT s.cnpj, r.registro, 3 AS ordem
    FROM socios_da_carteira s
    JOIN registros r ON r.cpf_mascarado = s.documento AND r.nome_comparado = s.nome_comparado
    UNION ALL
    SELECT s.cnpj, r.registro, 4 AS ordem
    FROM socios_da_carteira s
    JOIN registros r ON r.mascarado = s.documento AND r.nome_comparado = s.nome_comparado
    UNION ALL
    SELECT e.cnpj, r.registro, 5 AS ordem
    FROM cnpjs_carteira e
    JOIN grupos_economicos g ON g.cnpj_basico = e.raiz
    JOIN grupos_economicos m ON m.grupo = g.grupo
    JOIN registros r ON r.raiz_documento = m.cnpj_basico
    WHERE LENGTH(r.documento) = 14 AND m.cnpj_basico <> e.raiz
),
mais_proximo AS (
    SELECT cnpj, registro, MIN(ordem) AS ordem
    FROM vinculos
    GROUP BY cnpj, registro
)
SELECT v.cnpj,
       r.lista,
       CASE WHEN v.ordem = 1 THEN 'cnpj'
            WHEN v.ordem = 2 THEN 'raiz'
            WHEN v.ordem = 3 THEN 'socio'
            WHEN v.ordem = 4 THEN 'socio_possivel'
            ELSE 'grupo' END AS vinculo,
       r.vigente,
       r.sancionado,
       r.nome,
       r.categoria,
       r.orgao,
       r.inicio,
       r.fim,
       r.valor_multa,
       r.fonte,
       r.data_lista
FROM mais_proximo v
JOIN registros r ON r.registro = v.registro
ORDER BY cnpj, lista, vinculo, sancionado, inicio, fonte
