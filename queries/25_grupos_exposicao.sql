-- titulo: Exposição por grupo econômico
-- title: Exposure by economic group
-- report: section
-- descricao: Empresas que compartilham a raiz do CNPJ, ou em que uma é sócia da outra, formam um
--   grupo econômico. Para cada grupo: quantas empresas ele tem, quantas estão na carteira, quanto
--   as da carteira devem e quanto o grupo inteiro deve (as da carteira e as sócias buscadas com
--   --expand-groups; uma sócia não buscada não soma nada). O grupo leva o nome da empresa que é
--   sócia do maior número das outras. Cada empresa conta uma vez, ainda que a carteira liste
--   mais de um estabelecimento dela, e cada inscrição em dívida ativa conta uma vez: na empresa
--   da carteira a que ela é atribuída (a devedora principal, se estiver na carteira), e entre as
--   sócias buscadas só as inscrições que a carteira não deve.
-- description: Companies sharing a CNPJ root, or where one is a partner of another, form an
--   economic group. For each group: how many companies it has, how many are in the portfolio,
--   what the portfolio's members owe and what the whole group owes (the portfolio's members and
--   the partner companies fetched with --expand-groups; a partner not fetched adds nothing). A
--   group is named after the company that is a partner of most of the others. Each company
--   counts once, even when the portfolio lists more than one of its establishments, and each
--   active-debt inscription counts once: for the portfolio company it is credited to (its
--   principal, when in the portfolio), and among the partner companies fetched only the
--   inscriptions the portfolio does not owe.
-- answers: Which groups of related companies does the portfolio hold, and how much does each
--   group owe, inside the portfolio and as a whole?
-- Members and links come from grupos_economicos (built from the partners lists: closing the
-- links is a graph walk SQL cannot do); amounts from carteira_exposicao (query 14) and, for the
-- partner companies fetched by the expansion, the same query over their records
-- (socias_exposicao), both through their exposicao_contada.
WITH membros AS (
    SELECT g.grupo,
           g.grupo_nome,
           g.origem,
           g.cnpjs_na_carteira,
           CASE WHEN g.origem = 'carteira' THEN x.exposicao_contada ELSE CAST(0 AS DECIMAL(18, 2)) END AS exposicao_carteira,
           CASE WHEN g.origem = 'carteira' THEN x.exposicao_contada
                WHEN g.origem = 'expansao' THEN s.exposicao_contada
                ELSE CAST(0 AS DECIMAL(18, 2)) END AS exposicao_grupo
    FROM grupos_economicos g
    LEFT JOIN carteira_exposicao x ON x.cnpj = g.cnpj
    LEFT JOIN socias_exposicao s ON s.cnpj = g.cnpj
)
SELECT grupo,
       grupo_nome,
       COUNT(*) AS empresas,
       SUM(CASE WHEN origem = 'carteira' THEN 1 ELSE 0 END) AS empresas_na_carteira,
       SUM(CASE WHEN origem = 'socia_nao_buscada' THEN 0 ELSE 1 END) AS empresas_com_dados,
       SUM(cnpjs_na_carteira) AS cnpjs_na_carteira,
       COALESCE(SUM(exposicao_carteira), CAST(0 AS DECIMAL(18, 2))) AS exposicao_carteira,
       COALESCE(SUM(exposicao_grupo), CAST(0 AS DECIMAL(18, 2))) AS exposicao_grupo
FROM membros
GROUP BY grupo, grupo_nome
ORDER BY exposicao_grupo DESC, grupo
