-- titulo: O que mudou na carteira
-- title: What changed in the portfolio
-- report: section
-- descricao: Uma linha por mudança de cada empresa da carteira entre o retrato anterior e este:
--   inscrições em dívida ativa novas ou encerradas (como devedora principal, ou como
--   corresponsável ou solidária: "nova corresponsabilidade"), valor, situação ou ajuizamento alterados;
--   parcelamentos e transações iniciados, encerrados ou com saldo alterado; situação cadastral
--   (com o motivo), entrada e saída do Simples e do MEI, CNAE principal e secundários, município,
--   CEP e endereço da sede, capital social, natureza jurídica e porte alterados; sócio que
--   entrou, saiu ou mudou de qualificação; situação fiscal estimada que piorou ou melhorou;
--   entrada e saída de uma lista pública ("entrou na lista CEIS", "saiu da lista CEIS", por
--   qualquer vínculo) e "sanção vencida" (um registro ainda na lista, vigente antes, cujo fim
--   passou), datadas pela data da lista; no cadastro PEP, que não é sanção, "sócio passou a ser
--   PEP" e "sócio deixou de ser PEP" (saiu do cadastro, ou a carência terminou); "mudou de regime" (regime tributário, com o de antes e
--   o de agora, da ECF mais recente, com o ano).
--   data_evento é a data que os arquivos dão ao fato (a entrada do sócio, a inscrição, a
--   situação cadastral, a entrada ou saída do Simples e do MEI), vazia quando não dão nenhuma.
--   Uma empresa nova na carteira é uma linha só. Vazia na primeira execução sobre um
--   armazenamento (não há retrato anterior). Um campo que o retrato anterior não guarda (um
--   armazenamento gravado antes de guardá-lo) não aparece como mudança.
-- description: One row per change of each portfolio company between the previous snapshot and
--   this one: active-debt inscriptions new or ended (as principal debtor, or as co-responsible or
--   jointly liable: "nova corresponsabilidade"), their value, situation or court filing
--   changed; instalment plans and transactions started, ended or with a new balance; cadastral
--   situation (with its reason), Simples and MEI entry and exit, main and secondary CNAEs, head
--   office's municipality, CEP and street address, share capital, legal nature and size changed;
--   a partner who entered, left or changed qualification; estimated tax standing worse or
--   better; entering and leaving a public list ("entrou na lista CEIS", "saiu da lista CEIS",
--   by any link) and "sanção vencida" (a record still listed, in force before, whose end
--   passed), dated by the list's date; on the PEP register, no sanction, "sócio passou a ser
--   PEP" and "sócio deixou de ser PEP" (left the register, or the grace period ended); "mudou de regime" (the latest ECF's form of taxation,
--   before and now, with its year).
--   data_evento is the date the files give the event (the partner's entry, the
--   inscription, the cadastral situation, the Simples or MEI entry or exit), empty when they
--   give none. A company new to the portfolio is one row.
--   Empty on a store's first run (there is no previous snapshot). A field the previous snapshot
--   does not hold at all (a store written before it was kept) shows no change.
-- answers: What changed, company by company, since the previous snapshot?
-- The *_anterior tables are the previous snapshot's; comparacao has one row (snapshot,
-- snapshot_anterior) when there is one and none otherwise, so every row below needs it.
-- variacao is the change in R$ a row brings to the company's exposure (new minus old).
-- sancoes_anterior is the previous snapshot's sancoes (this snapshot's when a run read no list);
-- regime_carteira_anterior likewise the previous snapshot's regimes.
WITH ambos AS (
    SELECT e.cnpj, e.razao_social
    FROM empresas e
    JOIN empresas_anterior a ON a.cnpj = e.cnpj
),
-- Whether the previous snapshot holds the fields kept from the situation's reason on (the
-- reason, the secondary CNAEs, the CEP and the street came together): a store written before
-- reads them empty for every company, and that is not a change.
anteriores AS (
    SELECT COUNT(motivo_situacao_cadastral) + COUNT(cep) + COUNT(logradouro) AS novos
    FROM empresas_anterior
),
-- The register's fields of each company in both snapshots, one row per company and field: its
-- value before and now as shown, whether it changed, and the date the files give the change.
cadastro AS (
    SELECT e.cnpj, 'situação cadastral alterada' AS mudanca,
           CASE WHEN COALESCE(a.motivo_situacao_cadastral, '00') = '00' OR a.situacao_cadastral IS NULL
                THEN a.situacao_cadastral
                ELSE CONCAT(a.situacao_cadastral, ' (motivo ', a.motivo_situacao_cadastral, ')') END AS antes,
           CASE WHEN COALESCE(e.motivo_situacao_cadastral, '00') = '00' OR e.situacao_cadastral IS NULL
                THEN e.situacao_cadastral
                ELSE CONCAT(e.situacao_cadastral, ' (motivo ', e.motivo_situacao_cadastral, ')') END AS agora,
           COALESCE(a.situacao_cadastral, '') <> COALESCE(e.situacao_cadastral, '')
               OR (k.novos > 0
                   AND COALESCE(a.motivo_situacao_cadastral, '00') <> COALESCE(e.motivo_situacao_cadastral, '00'))
               AS difere,
           e.data_situacao_cadastral AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    CROSS JOIN anteriores k
    UNION ALL
    SELECT e.cnpj,
           CASE WHEN e.opcao_pelo_simples = 'S' THEN 'entrou no Simples' ELSE 'saiu do Simples' END AS mudanca,
           a.opcao_pelo_simples AS antes, e.opcao_pelo_simples AS agora,
           COALESCE(a.opcao_pelo_simples, '') <> COALESCE(e.opcao_pelo_simples, '') AS difere,
           CASE WHEN e.opcao_pelo_simples = 'S' THEN e.data_opcao_simples ELSE e.data_exclusao_simples END AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    UNION ALL
    SELECT e.cnpj,
           CASE WHEN e.opcao_pelo_mei = 'S' THEN 'entrou no MEI' ELSE 'saiu do MEI' END AS mudanca,
           a.opcao_pelo_mei AS antes, e.opcao_pelo_mei AS agora,
           COALESCE(a.opcao_pelo_mei, '') <> COALESCE(e.opcao_pelo_mei, '') AS difere,
           CASE WHEN e.opcao_pelo_mei = 'S' THEN e.data_opcao_mei ELSE e.data_exclusao_mei END AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    UNION ALL
    SELECT e.cnpj, 'CNAE principal alterado' AS mudanca,
           a.cnae_fiscal_principal AS antes, e.cnae_fiscal_principal AS agora,
           COALESCE(a.cnae_fiscal_principal, '') <> COALESCE(e.cnae_fiscal_principal, '') AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    UNION ALL
    SELECT e.cnpj, 'CNAEs secundários alterados' AS mudanca,
           a.cnae_fiscal_secundaria AS antes, e.cnae_fiscal_secundaria AS agora,
           k.novos > 0
               AND COALESCE(a.cnae_fiscal_secundaria, '') <> COALESCE(e.cnae_fiscal_secundaria, '') AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    CROSS JOIN anteriores k
    UNION ALL
    SELECT e.cnpj, 'sede mudou de município' AS mudanca,
           a.municipio AS antes, e.municipio AS agora,
           COALESCE(a.municipio, '') <> COALESCE(e.municipio, '') AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    UNION ALL
    SELECT e.cnpj, 'CEP da sede alterado' AS mudanca,
           a.cep AS antes, e.cep AS agora,
           k.novos > 0 AND COALESCE(a.cep, '') <> COALESCE(e.cep, '') AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    CROSS JOIN anteriores k
    UNION ALL
    -- The street address as the publisher prints it: "RUA X, 123, SALA 4" (empty parts left
    -- out; none at all, empty).
    SELECT e.cnpj, 'endereço da sede alterado' AS mudanca,
           NULLIF(CONCAT_WS(', ', NULLIF(CONCAT_WS(' ', a.tipo_logradouro, a.logradouro), ''),
                            a.numero, a.complemento), '') AS antes,
           NULLIF(CONCAT_WS(', ', NULLIF(CONCAT_WS(' ', e.tipo_logradouro, e.logradouro), ''),
                            e.numero, e.complemento), '') AS agora,
           k.novos > 0
               AND (COALESCE(a.tipo_logradouro, '') <> COALESCE(e.tipo_logradouro, '')
                    OR COALESCE(a.logradouro, '') <> COALESCE(e.logradouro, '')
                    OR COALESCE(a.numero, '') <> COALESCE(e.numero, '')
                    OR COALESCE(a.complemento, '') <> COALESCE(e.complemento, '')) AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    CROSS JOIN anteriores k
    UNION ALL
    SELECT e.cnpj, 'capital social alterado' AS mudanca,
           CAST(a.capital_social AS STRING) AS antes, CAST(e.capital_social AS STRING) AS agora,
           COALESCE(CAST(a.capital_social AS STRING), '') <> COALESCE(CAST(e.capital_social AS STRING), '') AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    UNION ALL
    SELECT e.cnpj, 'natureza jurídica alterada' AS mudanca,
           a.natureza_juridica AS antes, e.natureza_juridica AS agora,
           COALESCE(a.natureza_juridica, '') <> COALESCE(e.natureza_juridica, '') AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
    UNION ALL
    SELECT e.cnpj, 'porte alterado' AS mudanca,
           a.porte_empresa AS antes, e.porte_empresa AS agora,
           COALESCE(a.porte_empresa, '') <> COALESCE(e.porte_empresa, '') AS difere,
           CAST(NULL AS DATE) AS data
    FROM empresas e JOIN empresas_anterior a ON a.cnpj = e.cnpj
),
dividas_agora AS (
    SELECT d.* FROM dividas_pgfn d JOIN ambos b ON b.cnpj = d.cnpj
),
dividas_antes AS (
    SELECT d.* FROM dividas_pgfn_anterior d JOIN ambos b ON b.cnpj = d.cnpj
),
dividas_mantidas AS (
    SELECT n.cnpj, n.numero_inscricao,
           o.valor_consolidado AS valor_antes, n.valor_consolidado AS valor_agora,
           o.situacao_inscricao AS situacao_antes, n.situacao_inscricao AS situacao_agora,
           o.indicador_ajuizado AS ajuizado_antes, n.indicador_ajuizado AS ajuizado_agora
    FROM dividas_agora n
    JOIN dividas_antes o ON o.cnpj = n.cnpj AND o.numero_inscricao = n.numero_inscricao
),
-- Instalment plans and transactions are compared alike: a record (`chave`: a plan's start
-- date and amount, which together name it; a transaction's process number) and its balance.
saldos AS (
    SELECT cnpj, 'parcelamentos_rfb' AS tabela,
           CONCAT(CAST(adesao_deferimento AS STRING), ' ', CAST(valor_parcelado AS STRING)) AS chave,
           saldo_devedor, 'agora' AS retrato
    FROM parcelamentos_rfb
    UNION ALL
    SELECT cnpj, 'parcelamentos_rfb' AS tabela,
           CONCAT(CAST(adesao_deferimento AS STRING), ' ', CAST(valor_parcelado AS STRING)) AS chave,
           saldo_devedor, 'antes' AS retrato
    FROM parcelamentos_rfb_anterior
    UNION ALL
    SELECT cnpj, 'transacoes_rfb' AS tabela, processo AS chave, saldo_devedor, 'agora' AS retrato
    FROM transacoes_rfb
    UNION ALL
    SELECT cnpj, 'transacoes_rfb' AS tabela, processo AS chave, saldo_devedor, 'antes' AS retrato
    FROM transacoes_rfb_anterior
),
saldos_agora AS (
    SELECT s.* FROM saldos s JOIN ambos b ON b.cnpj = s.cnpj WHERE s.retrato = 'agora'
),
saldos_antes AS (
    SELECT s.* FROM saldos s JOIN ambos b ON b.cnpj = s.cnpj WHERE s.retrato = 'antes'
),
-- The partners in both snapshots: a partner is its document (a CNPJ, or a masked CPF) and name.
socios_agora AS (
    SELECT s.cnpj, CONCAT(COALESCE(s.cnpj_cpf_socio, ''), ' ', COALESCE(s.nome_socio_razao_social, '')) AS chave,
           s.nome_socio_razao_social AS nome, s.data_entrada_sociedade, s.qualificacao_socio
    FROM socios s JOIN ambos b ON b.cnpj = s.cnpj
),
socios_antes AS (
    SELECT s.cnpj, CONCAT(COALESCE(s.cnpj_cpf_socio, ''), ' ', COALESCE(s.nome_socio_razao_social, '')) AS chave,
           s.nome_socio_razao_social AS nome, s.qualificacao_socio
    FROM socios_anterior s JOIN ambos b ON b.cnpj = s.cnpj
),
-- A partner's qualification in each snapshot: one row per partner, its two when the files list
-- the partner twice with different ones.
socios_nos_retratos AS (
    SELECT cnpj, chave, 'agora' AS retrato, qualificacao_socio FROM socios_agora
    UNION ALL
    SELECT cnpj, chave, 'antes' AS retrato, qualificacao_socio FROM socios_antes
),
qualificacoes AS (
    SELECT cnpj, chave, retrato,
           CASE WHEN MIN(qualificacao_socio) = MAX(qualificacao_socio) THEN MIN(qualificacao_socio)
                ELSE CONCAT(MIN(qualificacao_socio), ', ', MAX(qualificacao_socio)) END AS qualificacao
    FROM socios_nos_retratos
    GROUP BY cnpj, chave, retrato
),
-- The estimated tax standing in both snapshots (the rule is in situacao_fiscal_por_retrato).
regularidade AS (
    SELECT n.cnpj, o.situacao_fiscal_estimada AS antes, n.situacao_fiscal_estimada AS agora,
           o.gravidade AS gravidade_antes, n.gravidade AS gravidade_agora
    FROM situacao_fiscal_por_retrato n
    JOIN situacao_fiscal_por_retrato o ON o.cnpj = n.cnpj
    JOIN ambos b ON b.cnpj = n.cnpj
    WHERE n.retrato = 'agora' AND o.retrato = 'antes'
),
nomes_das_mudancas AS (
    SELECT 'parcelamentos_rfb' AS tabela, 'parcelamento iniciado' AS iniciado,
           'parcelamento encerrado' AS encerrado, 'saldo do parcelamento alterado' AS saldo_alterado
    UNION ALL
    SELECT 'transacoes_rfb' AS tabela, 'transação iniciada' AS iniciado,
           'transação encerrada' AS encerrado, 'saldo da transação alterado' AS saldo_alterado
),
mudancas AS (
    SELECT e.cnpj AS cnpj,
           'entrou na carteira' AS mudanca,
           'empresas' AS tabela,
           e.cnpj AS chave,
           CAST(NULL AS STRING) AS valor_anterior,
           CAST(NULL AS STRING) AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM empresas e LEFT JOIN empresas_anterior a ON a.cnpj = e.cnpj
    WHERE a.cnpj IS NULL
    UNION ALL
    SELECT a.cnpj AS cnpj,
           'saiu da carteira' AS mudanca,
           'empresas' AS tabela,
           a.cnpj AS chave,
           CAST(NULL AS STRING) AS valor_anterior,
           CAST(NULL AS STRING) AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM empresas_anterior a LEFT JOIN empresas e ON e.cnpj = a.cnpj
    WHERE e.cnpj IS NULL
    UNION ALL
    SELECT cnpj,
           mudanca,
           'empresas' AS tabela,
           cnpj AS chave,
           antes AS valor_anterior,
           agora AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           data AS data_evento
    FROM cadastro
    WHERE difere
    UNION ALL
    SELECT cnpj,
           CASE WHEN gravidade_agora > gravidade_antes THEN 'situação fiscal estimada piorou'
                ELSE 'situação fiscal estimada melhorou'
           END AS mudanca,
           'situacao_fiscal_estimada' AS tabela,
           cnpj AS chave,
           antes AS valor_anterior,
           agora AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM regularidade
    WHERE gravidade_agora <> gravidade_antes
    UNION ALL
    SELECT n.cnpj AS cnpj,
           CASE WHEN COALESCE(n.tipo_devedor, '') <> 'PRINCIPAL' THEN 'nova corresponsabilidade'
                ELSE 'nova inscrição' END AS mudanca,
           'dividas_pgfn' AS tabela,
           n.numero_inscricao AS chave,
           CAST(NULL AS STRING) AS valor_anterior,
           CAST(n.valor_consolidado AS STRING) AS valor_novo,
           n.valor_consolidado AS variacao,
           n.data_inscricao AS data_evento
    FROM dividas_agora n
    LEFT JOIN dividas_antes o ON o.cnpj = n.cnpj AND o.numero_inscricao = n.numero_inscricao
    WHERE o.numero_inscricao IS NULL
    UNION ALL
    SELECT o.cnpj AS cnpj,
           CASE WHEN COALESCE(o.tipo_devedor, '') <> 'PRINCIPAL' THEN 'corresponsabilidade encerrada'
                ELSE 'inscrição encerrada' END AS mudanca,
           'dividas_pgfn' AS tabela,
           o.numero_inscricao AS chave,
           CAST(o.valor_consolidado AS STRING) AS valor_anterior,
           CAST(NULL AS STRING) AS valor_novo,
           -o.valor_consolidado AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM dividas_antes o
    LEFT JOIN dividas_agora n ON n.cnpj = o.cnpj AND n.numero_inscricao = o.numero_inscricao
    WHERE n.numero_inscricao IS NULL
    UNION ALL
    SELECT cnpj AS cnpj,
           'valor da inscrição alterado' AS mudanca,
           'dividas_pgfn' AS tabela,
           numero_inscricao AS chave,
           CAST(valor_antes AS STRING) AS valor_anterior,
           CAST(valor_agora AS STRING) AS valor_novo,
           valor_agora - valor_antes AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM dividas_mantidas
    WHERE valor_antes <> valor_agora
    UNION ALL
    SELECT cnpj AS cnpj,
           'situação da inscrição alterada' AS mudanca,
           'dividas_pgfn' AS tabela,
           numero_inscricao AS chave,
           situacao_antes AS valor_anterior,
           situacao_agora AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM dividas_mantidas
    WHERE COALESCE(situacao_antes, '') <> COALESCE(situacao_agora, '')
    UNION ALL
    SELECT cnpj AS cnpj,
           CASE WHEN ajuizado_agora = 'SIM' THEN 'inscrição ajuizada' ELSE 'ajuizamento retirado' END AS mudanca,
           'dividas_pgfn' AS tabela,
           numero_inscricao AS chave,
           ajuizado_antes AS valor_anterior,
           ajuizado_agora AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM dividas_mantidas
    WHERE COALESCE(ajuizado_antes, '') <> COALESCE(ajuizado_agora, '')
    UNION ALL
    SELECT n.cnpj AS cnpj,
           k.iniciado AS mudanca,
           n.tabela AS tabela,
           n.chave AS chave,
           CAST(NULL AS STRING) AS valor_anterior,
           CAST(n.saldo_devedor AS STRING) AS valor_novo,
           n.saldo_devedor AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM saldos_agora n
    JOIN nomes_das_mudancas k ON k.tabela = n.tabela
    LEFT JOIN saldos_antes o ON o.cnpj = n.cnpj AND o.tabela = n.tabela AND o.chave = n.chave
    WHERE o.chave IS NULL
    UNION ALL
    SELECT o.cnpj AS cnpj,
           k.encerrado AS mudanca,
           o.tabela AS tabela,
           o.chave AS chave,
           CAST(o.saldo_devedor AS STRING) AS valor_anterior,
           CAST(NULL AS STRING) AS valor_novo,
           -o.saldo_devedor AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM saldos_antes o
    JOIN nomes_das_mudancas k ON k.tabela = o.tabela
    LEFT JOIN saldos_agora n ON n.cnpj = o.cnpj AND n.tabela = o.tabela AND n.chave = o.chave
    WHERE n.chave IS NULL
    UNION ALL
    SELECT n.cnpj AS cnpj,
           k.saldo_alterado AS mudanca,
           n.tabela AS tabela,
           n.chave AS chave,
           CAST(o.saldo_devedor AS STRING) AS valor_anterior,
           CAST(n.saldo_devedor AS STRING) AS valor_novo,
           n.saldo_devedor - o.saldo_devedor AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM saldos_agora n
    JOIN nomes_das_mudancas k ON k.tabela = n.tabela
    JOIN saldos_antes o ON o.cnpj = n.cnpj AND o.tabela = n.tabela AND o.chave = n.chave
    WHERE n.saldo_devedor <> o.saldo_devedor
    UNION ALL
    SELECT n.cnpj AS cnpj,
           'sócio entrou' AS mudanca,
           'socios' AS tabela,
           n.chave AS chave,
           CAST(NULL AS STRING) AS valor_anterior,
           n.nome AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           n.data_entrada_sociedade AS data_evento
    FROM socios_agora n
    LEFT JOIN socios_antes o ON o.cnpj = n.cnpj AND o.chave = n.chave
    WHERE o.chave IS NULL
    UNION ALL
    SELECT o.cnpj AS cnpj,
           'sócio saiu' AS mudanca,
           'socios' AS tabela,
           o.chave AS chave,
           o.nome AS valor_anterior,
           CAST(NULL AS STRING) AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM socios_antes o
    LEFT JOIN socios_agora n ON n.cnpj = o.cnpj AND n.chave = o.chave
    WHERE n.chave IS NULL
    UNION ALL
    SELECT n.cnpj AS cnpj,
           'qualificação do sócio alterada' AS mudanca,
           'socios' AS tabela,
           n.chave AS chave,
           o.qualificacao AS valor_anterior,
           n.qualificacao AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM qualificacoes n
    JOIN qualificacoes o ON o.cnpj = n.cnpj AND o.chave = n.chave
    WHERE n.retrato = 'agora' AND o.retrato = 'antes'
      AND COALESCE(n.qualificacao, '') <> COALESCE(o.qualificacao, '')
),
-- Each company's lists in both snapshots, by any link (the closest: cnpj, raiz, socio,
-- socio_possivel, grupo), for the companies in both; and each list's date now.
sancoes_dos_retratos AS (
    SELECT 'agora' AS retrato, cnpj, lista, vinculo, data_lista FROM sancoes
    UNION ALL
    SELECT 'antes' AS retrato, cnpj, lista, vinculo, data_lista FROM sancoes_anterior
),
vinculos_ordenados AS (
    SELECT s.retrato, s.cnpj, s.lista, s.data_lista,
           CASE WHEN s.vinculo = 'cnpj' THEN 1 WHEN s.vinculo = 'raiz' THEN 2
                WHEN s.vinculo = 'socio' THEN 3 WHEN s.vinculo = 'socio_possivel' THEN 4
                ELSE 5 END AS ordem
    FROM sancoes_dos_retratos s JOIN ambos b ON b.cnpj = s.cnpj
),
ordem_por_retrato AS (
    SELECT retrato, cnpj, lista, MAX(data_lista) AS data_lista, MIN(ordem) AS ordem
    FROM vinculos_ordenados
    GROUP BY retrato, cnpj, lista
),
listas_por_retrato AS (
    SELECT retrato, cnpj, lista, data_lista,
           CASE WHEN ordem = 1 THEN 'cnpj' WHEN ordem = 2 THEN 'raiz' WHEN ordem = 3 THEN 'socio'
                WHEN ordem = 4 THEN 'socio_possivel' ELSE 'grupo' END AS vinculo
    FROM ordem_por_retrato
),
listas_agora AS (
    SELECT cnpj, lista, vinculo, data_lista FROM listas_por_retrato WHERE retrato = 'agora'
),
listas_antes AS (
    SELECT cnpj, lista, vinculo FROM listas_por_retrato WHERE retrato = 'antes'
),
-- Each list's date in this run's files (a company that left a list has no record to date it).
datas_das_listas AS (
    SELECT lista, MAX(data_lista) AS data_lista
    FROM listas
    GROUP BY lista
),
mudancas_listas AS (
    SELECT n.cnpj AS cnpj,
           CASE WHEN n.lista = 'PEP' THEN 'sócio passou a ser PEP'
                ELSE CONCAT('entrou na lista ', n.lista) END AS mudanca,
           'sancoes' AS tabela,
           n.lista AS chave,
           CAST(NULL AS STRING) AS valor_anterior,
           n.vinculo AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           n.data_lista AS data_evento
    FROM listas_agora n
    LEFT JOIN listas_antes o ON o.cnpj = n.cnpj AND o.lista = n.lista
    WHERE o.lista IS NULL
    UNION ALL
    SELECT o.cnpj AS cnpj,
           CASE WHEN o.lista = 'PEP' THEN 'sócio deixou de ser PEP'
                ELSE CONCAT('saiu da lista ', o.lista) END AS mudanca,
           'sancoes' AS tabela,
           o.lista AS chave,
           o.vinculo AS valor_anterior,
           CAST(NULL AS STRING) AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           d.data_lista AS data_evento
    FROM listas_antes o
    LEFT JOIN listas_agora n ON n.cnpj = o.cnpj AND n.lista = o.lista
    LEFT JOIN datas_das_listas d ON d.lista = o.lista
    WHERE n.lista IS NULL
    UNION ALL
    SELECT n.cnpj AS cnpj,
           CASE WHEN n.lista = 'PEP' THEN 'sócio deixou de ser PEP' ELSE 'sanção vencida' END AS mudanca,
           'sancoes' AS tabela,
           CONCAT(n.lista, ' ', n.sancionado) AS chave,
           'vigente' AS valor_anterior,
           CONCAT('fim ', CAST(n.fim AS STRING)) AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           n.data_lista AS data_evento
    FROM sancoes n
    JOIN sancoes_anterior o
      ON o.cnpj = n.cnpj AND o.lista = n.lista AND o.sancionado = n.sancionado AND o.inicio = n.inicio
    WHERE o.vigente AND NOT n.vigente AND n.fim < n.data_lista
),
-- A company whose latest ECF (regime_carteira, query 21) is in another form than the previous
-- snapshot's: a new year's ECF. Entering and leaving the Simples and the MEI are changes of
-- their own above; a company with no ECF in either snapshot has none to compare.
mudancas_regime AS (
    SELECT n.cnpj,
           'mudou de regime' AS mudanca,
           'regime_carteira' AS tabela,
           'regime_ecf' AS chave,
           CONCAT(o.regime_ecf, ' (', CAST(o.ano_ecf AS STRING), ')') AS valor_anterior,
           CONCAT(n.regime_ecf, ' (', CAST(n.ano_ecf AS STRING), ')') AS valor_novo,
           CAST(NULL AS DECIMAL(18, 2)) AS variacao,
           CAST(NULL AS DATE) AS data_evento
    FROM regime_carteira n
    JOIN regime_carteira_anterior o ON o.cnpj = n.cnpj
    WHERE o.regime_ecf IS NOT NULL AND n.regime_ecf IS NOT NULL AND o.regime_ecf <> n.regime_ecf
      -- An older year (a folder lacking the file of the newer one) is no change.
      AND n.ano_ecf >= o.ano_ecf
),
todas AS (
    SELECT cnpj, mudanca, tabela, chave, valor_anterior, valor_novo, variacao, data_evento FROM mudancas
    UNION ALL
    SELECT cnpj, mudanca, tabela, chave, valor_anterior, valor_novo, variacao, data_evento FROM mudancas_listas
    UNION ALL
    SELECT cnpj, mudanca, tabela, chave, valor_anterior, valor_novo, variacao, data_evento FROM mudancas_regime
),
nomes AS (
    SELECT cnpj, razao_social FROM empresas
    UNION ALL
    SELECT a.cnpj, a.razao_social FROM empresas_anterior a LEFT JOIN empresas e ON e.cnpj = a.cnpj
    WHERE e.cnpj IS NULL
)
SELECT c.snapshot, c.snapshot_anterior, m.cnpj, n.razao_social, m.mudanca, m.tabela, m.chave,
       m.valor_anterior, m.valor_novo, m.variacao, m.data_evento
FROM todas m
JOIN nomes n ON n.cnpj = m.cnpj
CROSS JOIN comparacao c
ORDER BY m.cnpj, m.tabela, m.chave, m.mudanca
