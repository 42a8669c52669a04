-- titulo: Linha do tempo de cada empresa
-- title: Each company's timeline
-- report: none
-- descricao: Cada mudança que os retratos guardados mostram, empresa por empresa, da mais antiga à
--   mais recente: a data do fato quando os arquivos a dão (a entrada de um sócio, a inscrição, a
--   situação cadastral, a opção pelo Simples), senão o primeiro dia do mês do retrato em que a
--   mudança apareceu (fato_datado diz qual); o tipo, o valor antes e depois, e o retrato.
-- description: Every change the stored snapshots show, company by company, oldest first: the
--   event's date when the files give one (a partner's entry, the inscription, the cadastral
--   situation, the Simples option), else the first day of the month of the snapshot the change
--   showed in (fato_datado says which); the kind, the value before and after, and the snapshot.
-- answers: What happened to each company, and when?
-- Reads mudancas_por_retrato: the store's mudancas (query 28, committed with each snapshot),
-- every snapshot.
SELECT cnpj,
       razao_social,
       COALESCE(data_evento,
                DATE(CONCAT(SUBSTRING(snapshot, 1, 4), '-', SUBSTRING(snapshot, 5, 2), '-01'))) AS data,
       data_evento IS NOT NULL AS fato_datado,
       mudanca,
       valor_anterior,
       valor_novo,
       variacao,
       tabela,
       chave,
       snapshot
FROM mudancas_por_retrato
ORDER BY cnpj, data, snapshot, tabela, chave, mudanca
