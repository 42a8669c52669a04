//! `docs/data-dictionary.md`, generated from the table schemas (`transform::schema`), the
//! partition layout (`export::tables`) and the query headers, so it cannot drift from the code.
//! A test regenerates it and fails when the committed copy differs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::analyze::Query;
use crate::export::partition::partition_columns;
use crate::tables::Table;
use crate::transform::RESUMOS;
use crate::transform::schema::{self, Kind, columns};

fn type_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Money => "decimal(18,2)",
        Kind::Date | Kind::AnoMesDate => "date",
        Kind::Int => "int64",
        _ => "string",
    }
}

fn table_meaning(table: &str) -> &'static str {
    match table {
        "creditos_ativos" => {
            "Aggregated active federal tax credits (operation 14), one row per combination of month, state and dimensions."
        }
        "empresas" => "One row per portfolio company the service knows: its profile (operation 1) flattened.",
        "dividas_pgfn" => "Active-debt registrations (operation 5) of the portfolio, all three categorias.",
        "parcelamentos_rfb" => "Tax instalment plans (operation 6) of the portfolio.",
        "transacoes_rfb" => "Tax transactions (operation 7) of the portfolio.",
        "resumos" => {
            "The summaries each company profile (operation 1) gives of its lists: how many records and what total \
             the service says a list holds. `aggregates/conciliacao_resumos.parquet` checks them against the records."
        }
        "estabelecimentos" => {
            "Every establishment (head office and branches) of a company with a dossier (operation 2)."
        }
        "socios" => {
            "The partners (operation 4) of every portfolio company (and, under dossies/, of each dossier's company); \
             a partner with a CNPJ is a company, which links economic groups."
        }
        "obras" => {
            "The construction works (CNO) of a company with a dossier (operation 3, with operation 8's fields)."
        }
        "obra_vinculos" => "Who is linked to each of those works, and when (operation 9).",
        "obra_cnaes" => "The CNAEs of each of those works (operation 10).",
        "obra_areas" => "The areas of each of those works (operation 11), as published.",
        _ => "",
    }
}

/// How the debts are totalled, in the analyst's words: PGFN's files repeat a shared inscription
/// once per debtor.
const COUNTED_ONCE: &str = "## Each inscription counted once\n\n\
PGFN publishes one row per debtor of an inscription: the principal debtor and each co-responsible \
(`CORRESPONSAVEL`) or jointly liable one (`SOLIDARIO`) repeat the inscription's `numero_inscricao` \
and value. `dividas_pgfn` keeps every row, each with its `tipo_devedor` (one spelling whatever the \
file wrote: `PRINCIPAL`, `Principal`, `Corresponsável`). A company's own figures (the eight amounts \
and `exposicao_total` of `carteira_exposicao`, split into `divida_principal` and \
`divida_corresponsavel`) hold every inscription it owes in any role, each once. Totals (the \
portfolio's, each state's, section's and economic group's) add up the `*_contada` columns instead: \
an inscription (`categoria` + `numero_inscricao`) counts once, for its principal debtor when that \
company is in the portfolio, else for the smallest portfolio CNPJ that owes it; a company listed \
under several CNPJs has its plans and settlements counted once, under its smallest CNPJ. \
`carteira_resumo.contagem_dupla_evitada` is what a plain sum of the companies' own exposures would \
have counted twice.\n";

/// The whole dictionary. `examples` maps (table, column) to an example value from a demo run.
pub fn data_dictionary(
    queries: &[Query],
    history: &[Query],
    examples: &BTreeMap<(String, String), String>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Data dictionary\n");
    let _ = writeln!(
        s,
        "Generated from the code (`src/transform/schema.rs`, `src/export/tables.rs`, `queries/`) by\n\
         `UPDATE_DOCS=1 cargo test --test it data_dictionary`; do not edit by hand. Examples come from\n\
         the embedded registry's synthetic data.\n"
    );
    let _ = writeln!(
        s,
        "A value that did not parse is null in its column and keeps its text in `<column>_raw`\n\
         (present for every money, date, integer and state column); `aggregates/data_quality.parquet`\n\
         counts them per table and column with examples.\n"
    );
    let tables = Table::ALL
        .iter()
        .map(|t| (t.name(), columns(*t)))
        .chain([(RESUMOS, schema::RESUMOS)])
        // A dossier table of the same name as a raw table (socios) has its columns: listed once.
        .chain(
            schema::DOSSIER_TABLES.into_iter().filter(|(n, _)| !Table::ALL.iter().any(|t| t.name() == *n)),
        );
    for (name, specs) in tables {
        let parts = partition_columns(name);
        let _ = writeln!(s, "## `{name}`\n\n{}\n", table_meaning(name));
        let dossier = schema::DOSSIER_TABLES.iter().any(|(t, _)| *t == name);
        let layout = if dossier {
            format!(
                "`{}/{name}.parquet`, only for the companies with a dossier (`run --dossies N`, `dossie`)",
                crate::export::DOSSIER_DIR
            )
        } else if parts.is_empty() && schema::DOSSIER_TABLES.iter().any(|(t, _)| *t == name) {
            format!(
                "`{name}/part-0.parquet`; for the companies with a dossier also `{}/{name}.parquet`",
                crate::export::DOSSIER_DIR
            )
        } else if parts.is_empty() {
            format!("`{name}/part-0.parquet`")
        } else {
            let segs: Vec<String> = parts.iter().map(|p| format!("{p}=<value>")).collect();
            format!(
                "`{name}/{}/part-0.parquet` (partition columns are in the path, not in the files)",
                segs.join("/")
            )
        };
        let _ = writeln!(s, "Files: {layout}\n");
        let _ = writeln!(s, "| column | type | meaning | example |\n|---|---|---|---|");
        for c in specs {
            let ex = examples
                .get(&(name.to_string(), c.name.to_string()))
                .map(|e| format!("`{e}`"))
                .unwrap_or_default();
            let part = if parts.contains(&c.name) { " (partition)" } else { "" };
            let _ = writeln!(
                s,
                "| `{}` | {}{part} | {} | {ex} |",
                c.name,
                type_name(c.kind),
                c.meaning.replace('|', "\\|")
            );
            if c.kind.keeps_original() {
                let _ = writeln!(
                    s,
                    "| `{}_original` | string | `{}` as published; `{}` groups spellings that differ only in case, \
                     accents or spacing under the one a person writes (accents, mixed case) | |",
                    c.name, c.name, c.name
                );
            }
            if c.kind.keeps_raw() {
                let _ = writeln!(
                    s,
                    "| `{}_raw` | string | text of `{}` when it did not parse, else null | |",
                    c.name, c.name
                );
            }
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "## `carteira`\n\nEvery CNPJ of the portfolio and how the fetch found it.\n\nFiles: `carteira/part-0.parquet`\n\n\
         | column | type | meaning | example |\n|---|---|---|---|\n\
         | `cnpj` | string | CNPJ asked for (14 digits) | |\n\
         | `situacao` | string | `encontrada`, `nao_encontrada` (404) or `falhou` (failed after retries) | `encontrada` |\n"
    );
    let _ = writeln!(
        s,
        "## `grupos_economicos`\n\nThe economic groups of the portfolio: companies sharing a CNPJ root, or where one is a \
         partner of another (a CNPJ in `socios.cnpj_cpf_socio`), closed transitively. One row per member company of \
         every group of two or more companies (or of one company the portfolio lists under two or more CNPJs); a \
         company alone is no group. `aggregates/grupos_exposicao.parquet` sums what each group owes.\n\n\
         Files: `grupos_economicos/part-0.parquet`\n\n\
         | column | type | meaning | example |\n|---|---|---|---|\n\
         | `grupo` | string | The group's id: the root of its member that is a partner of most of the others (ties: the smaller root) | |\n\
         | `grupo_nome` | string | That member's name | |\n\
         | `cnpj_basico` | string | The member's CNPJ root (8 digits) | |\n\
         | `cnpj` | string | The CNPJ whose records stand for the member: the portfolio's (the smallest, when it lists several), the one fetched, or the one a partners list named | |\n\
         | `razao_social` | string | The member's name (from its profile, else from the partners list) | |\n\
         | `origem` | string | `carteira` (in the portfolio), `expansao` (a partner company fetched by `run --expand-groups`) or `socia_nao_buscada` (named as partner, not fetched: it links, it adds no amount) | `carteira` |\n\
         | `cnpjs_na_carteira` | int64 | How many portfolio CNPJs have this root | `1` |\n\
         | `socia_de` | string | Comma-separated roots of the group's members this company is a partner of | |\n"
    );
    let _ = writeln!(
        s,
        "## `socias_exposicao`\n\nWith `run --expand-groups`: what each partner company the expansion fetched owes, \
         as `queries/14_carteira_exposicao.sql` computes it for the portfolio (same columns as \
         `aggregates/carteira_exposicao.parquet`). Those companies are not in the portfolio's tables. Without \
         the expansion it is written empty, in those columns.\n\n\
         Files: `socias_exposicao/part-0.parquet`\n"
    );
    s.push_str(&LISTAS.replace("{LIST_CODES}", &list_codes()));
    s.push_str(DIVIDA_ATIVA_NACIONAL);
    s.push_str(REGIME_TRIBUTARIO);
    let _ = writeln!(
        s,
        "## The other tables the queries read\n\nWritten beside the raw tables so that every table a query reads is \
         a file (another engine runs the same `queries/` over the run's folder), one `part-0.parquet` each. The \
         previous snapshot's copies are under `anterior/`: the view `dividas_pgfn_anterior` is the folder \
         `anterior/dividas_pgfn/`, laid out as `dividas_pgfn` (so `dividas_pgfn*` matches one table).\n\n\
         | table | what it holds |\n|---|---|\n\
         | `<table>_anterior` | For `empresas`, `dividas_pgfn`, `parcelamentos_rfb`, `transacoes_rfb` and `socios`: the \
         previous snapshot's rows, in this run's columns; empty without a store or on its first snapshot |\n\
         | `sancoes_anterior` | The previous snapshot's `sancoes` (the store keeps them), in this run's columns: what \
         `mudancas` compares the lists with; empty without a store or on its first snapshot, and this run's own when the \
         previous snapshot does not keep them (a store written before it did) |\n\
         | `regime_carteira_anterior` | The previous snapshot's `regime_carteira`, likewise: what `mudancas` compares \
         the latest ECF's form with |\n\
         | `comparacao` | One row (`snapshot`, `snapshot_anterior`) when the run compared with a previous snapshot, \
         none otherwise |\n\
         | `inscricoes_da_carteira` | The inscriptions (`categoria`, `numero_inscricao`) counted before the \
         exposure query's companies: empty over the portfolio (only the partner companies of \
         `--expand-groups` have some: the portfolio's) |\n"
    );
    let _ = writeln!(s, "{COUNTED_ONCE}");
    let _ = writeln!(
        s,
        "## Aggregates\n\nOne file per query: `aggregates/<table>.parquet`, where `queries/NN_<table>.sql` made it\n\
         (each file's key-value metadata holds the query's sha256). Sums of money are `decimal(38,2)`;\n\
         shares and changes in percent are `double`.\n\n| table | what it answers |\n|---|---|"
    );
    for q in queries {
        let _ = writeln!(s, "| `{}` | {} |", q.table, q.answers.replace('|', "\\|"));
    }
    let _ = writeln!(
        s,
        "| `data_quality` | Values that did not parse (`falhas`, with `exemplos`) and values the publisher writes for \"unknown\" such as an all-zero date, read as null (`marcadores_sem_informacao`), per `tabela` and `coluna`. |\n"
    );
    let _ = writeln!(
        s,
        "## Series (with `--store`)\n\nOne file per query of `queries/historico/`: `historico/<table>.parquet`, over every\n\
         snapshot of the store (`store series` prints `serie_carteira`, or `serie_exposicao_empresa` of one\n\
         company; `store timeline` one company's `linha_do_tempo`). They read `carteira_exposicao_por_retrato`\n\
         (`aggregates/carteira_exposicao` of each snapshot, with `snapshot`), `situacao_fiscal_estimada_por_retrato`\n\
         (the standings committed with each snapshot), `mudancas_por_retrato` (the changes committed with each) and\n\
         `divida_ativa_nacional_por_retrato` (PGFN's whole release committed with each snapshot loaded from the files,\n\
         with `snapshot_anterior`, the previous one that holds it).\n\n\
         | table | what it answers |\n|---|---|"
    );
    for q in history {
        let _ = writeln!(s, "| `{}` | {} |", q.table, q.answers.replace('|', "\\|"));
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "## Code tables\n\n`dimensoes/<table>.parquet`, one per file of `codes/` (the RFB's public tables: natureza \
         jurídica, porte, situação cadastral, motivo, qualificação do sócio, CNAE, país, município, ...), with \
         two string columns, `codigo` and `nome`: join a code column to its official name. A code no table \
         knows keeps no name; it is never dropped.\n"
    );
    s.push_str(LOADING);
    s
}

/// The release's national debt (`transform::nacional`).
const DIVIDA_ATIVA_NACIONAL: &str = "## `divida_ativa_nacional`\n\n\
With `--open-data`: every inscription of PGFN's release, the portfolio's or not, summed once while the files \
are read: by its principal debtor's row (`TIPO_DEVEDOR` `Principal`), never by a co-debtor's copy. One row per \
state, person type, system, tax group, situation, whether in court, and a company debtor's CNAE section and \
legal-nature group (from RFB's files of the same release, read first). A principal row whose value is in no form PGFN \
writes is in no row (the manifest's `open_data.nacional.valores_ilegiveis` counts them). Empty, in these \
columns, on a run over the service. Definitions: [domain.md](domain.md#the-national-debt-from-pgfns-files).\n\n\
Files: `divida_ativa_nacional/part-0.parquet`\n\n\
| column | type | meaning | example |\n|---|---|---|---|\n\
| `uf` | string | The debtor's state: `UF_DEVEDOR` in the layouts that carry it (from 2022 Q4), else the responsible unit's (`UF_UNIDADE_RESPONSAVEL`) | `SP` |\n\
| `tipo_pessoa` | string | `J` (Pessoa jurídica) or `F` (Pessoa física) | `J` |\n\
| `sistema` | string | `nao_previdenciario`, `previdenciario` or `fgts` | `previdenciario` |\n\
| `grupo_tributo` | string | The tax group, as the service names them: previdenciário's `Contribuições previdenciárias`, FGTS's `FGTS`, a não previdenciário inscription's by the first group a whole word of its `RECEITA_PRINCIPAL` names (`Simples Nacional`: SIMPLES, MEI, SIMEI; then IRPJ, CSLL, `PIS/PASEP`, COFINS, IPI, IOF, IRRF, IRPF, ITR), else `Outros` | `IRPJ` |\n\
| `situacao` | string | `TIPO_SITUACAO_INSCRICAO` as published | `Em cobrança` |\n\
| `ajuizado` | string | `INDICADOR_AJUIZADO` as published | `SIM` |\n\
| `cnae_secao` | string | A company debtor's CNAE section (`A`-`U`), by its head office's `cnae_fiscal_principal` in RFB's Estabelecimentos; `?` when RFB's files do not give one; `PF` for a person | `G` |\n\
| `cnae_secao_descricao` | string | The section's name, or why there is none | `Comércio; reparação de veículos automotores e motocicletas` |\n\
| `natureza_grupo` | string | A company debtor's legal-nature group, the first digit of its `natureza_juridica` in RFB's Empresas (`1` administração pública, `2` entidades empresariais, `3` sem fins lucrativos, `4` pessoas físicas, `5` organizações internacionais); `?` when RFB's files do not give one; `PF` for a person | `2` |\n\
| `natureza_grupo_descricao` | string | The group's name (CONCLA's table), or why there is none | `Entidades empresariais` |\n\
| `inscricoes` | int64 | The inscriptions, each counted once | `1402` |\n\
| `valor` | decimal(18,2) | Their `VALOR_CONSOLIDADO`, summed exactly | |\n\n";

/// RFB's tax regime files (`transform::regime`) and what the queries make of them.
const REGIME_TRIBUTARIO: &str = "## `regime_tributario`\n\n\
The portfolio's rows of RFB's tax regime files (Lucro Real, Lucro Presumido, Lucro Arbitrado, Imunes e Isentas: \
each company's ECF, one row per company or SCP, year and form of taxation), read from the `--open-data` folder or \
from `--regime-dir` on a run over a service; a company is found by its CNPJ's root (it files from its head office \
or a branch). The same row in two files is kept once (`data_quality`, `coluna` `linha`, as markers). Empty, in \
these columns, when the run read none. A year's ECF is published in the January two years later. Definitions: \
[domain.md](domain.md#the-tax-regime).\n\n\
Files: `regime_tributario/part-0.parquet`\n\n\
| column | type | meaning | example |\n|---|---|---|---|\n\
| `cnpj` | string | The CNPJ the ECF was filed under (14 characters, no punctuation) | |\n\
| `cnpj_basico` | string | Its root (8 characters): the company | |\n\
| `ano` | int32 | The ECF's year (the calendar year taxed) | `2024` |\n\
| `cnpj_scp` | string | The SCP's CNPJ when the row is an SCP's (sociedade em conta de participação) filed by the company; null for the company's own (`0` in the file) | |\n\
| `forma_tributacao` | string | `forma_de_tributacao` as published (spacing made single) | `LUCRO PRESUMIDO` |\n\
| `regime` | string | Its code: `lucro_real`, `lucro_presumido`, `lucro_arbitrado`, `imune`, `isenta`; `outro` for a text the files were not seen to write (counted in `data_quality`) | `lucro_presumido` |\n\
| `escrituracoes` | int32 | `quantidade_de_escrituracoes`: how many ECFs the company filed for the year | `1` |\n\
| `arquivo` | string | The file and member read (`regime_tributario/entidades-lucro-real.zip/Lucro Real.csv`) | |\n\
| `linha` | int64 | The member's line | |\n\n\
`aggregates/regime_carteira.parquet` (`queries/21_regime_carteira.sql`) has one row per portfolio company: \
`regime` (`MEI` or `Simples Nacional` when it opts in today, else the latest ECF's forms in pt-BR, two forms of one \
year joined by ` + `, else `Não informado`), `regime_ecf` and `ano_ecf` (the latest ECF's forms and year, SCPs' rows \
left out) and `anos_ecf` (the years with an ECF). On a store it is kept per snapshot (its `regime_carteira` table); \
a run that read no regime file keeps the previous snapshot's ECF columns for the companies it has. \
`aggregates/carteira_por_regime.parquet` sums the portfolio's exposure by `regime`, each inscription once.\n\n";

/// The public lists' codes as `listas.lista` holds them, from their definitions (`api::listas`).
fn list_codes() -> String {
    let codes: Vec<String> = crate::api::listas::LISTAS
        .iter()
        .map(|d| format!("`{}`, {} ({})", d.codigo, d.nome, d.publicador))
        .collect();
    codes.join("; ")
}

/// The public lists' table (`transform::listas`).
const LISTAS: &str = "## `listas`\n\n\
The public lists read from the `--open-data` folder, or from `--listas-dir` on a run over a service (CGU's \
CEIS, CNEP, CEPIM and Acordos de Leniência, the labour ministry's Cadastro de Empregadores, IBAMA's embargoes), \
one row per record (an MTE row holding several periods is one record per period); empty, in these columns, \
when the folder holds none or the run has neither. `aggregates/sancoes.parquet` matches them to the \
portfolio. Rows out of their layout are counted in \
`data_quality` (`coluna` `linha`, each example `file:line`), and so are Leniência's placeholders that are no \
CNPJ (`sancionado`, as markers).\n\n\
Files: `listas/part-0.parquet`\n\n\
| column | type | meaning | example |\n|---|---|---|---|\n\
| `lista` | string | The list's code: {LIST_CODES} | `CEIS` |\n\
| `vigencia` | string | How the list decides a record is in force (its definition's rule): `periodo` (started and not ended: CEIS, CNEP, Leniência, each MTE period), `enquanto_listado` (while on the list: CEPIM), `embargo` (until lifted or cancelled: IBAMA) | `periodo` |\n\
| `sancionado` | string | The party's document as the list wrote it (a masked CPF `***921012**`, a punctuated CNPJ, a placeholder) | |\n\
| `documento` | string | Its digits when they are a whole CNPJ (14) or CPF (11); null for a masked CPF or a placeholder | |\n\
| `tipo_pessoa` | string | `J` or `F` (as listed, else by the document's length) | `J` |\n\
| `nome` | string | The party's name as listed (the MTE's without its footnote marks, `(*1)`) | |\n\
| `categoria` | string | The sanction's category (CEIS, CNEP), the reason (CEPIM), the agreement's status (Leniência), `Embargo` (IBAMA); for the MTE `Trabalho análogo ao de escravo`, then each footnote mark of the employer's name with its footnote (`; (*1) Incluído no Cadastro em cumprimento à sentença …`) | |\n\
| `orgao` | string | The authority that sanctioned (the granting body for CEPIM) | |\n\
| `inicio` | date | When the sanction, agreement, period on the MTE list or embargo began; null when the list says `Sem informação` | |\n\
| `fim` | date | When it ends or ended (IBAMA: the embargo lifted); null when open | |\n\
| `valor_multa` | decimal(18,2) | CNEP's fine, exact | |\n\
| `area_embargada` | decimal(18,4) | IBAMA's area embargoed, in hectares | |\n\
| `cancelado` | boolean | IBAMA's term cancelled (`SIT_CANCELADO = S`) | `false` |\n\
| `data_lista` | date | The list's date: CGU's in its file's name, the MTE's in its text lines, IBAMA's in its name or the day its file was written | |\n\
| `fonte` | string | The file (relative to the folder; `zip/entry`) and the list's date | |\n\
| `linha` | int64 | The line of the file the row starts at | |\n\
| `registro` | int64 | The record's number in the run (what `sancoes` matches per record) | |\n\n\
`aggregates/sancoes.parquet` (`queries/27_sancoes.sql`) has one row per portfolio company and record of `listas` \
that reaches it:\n\n\
| column | type | meaning |\n|---|---|---|\n\
| `cnpj` | string | The portfolio company |\n\
| `lista` | string | As `listas.lista` |\n\
| `vinculo` | string | How the record reaches it, the closest way when several hold: `cnpj` (its own CNPJ), `raiz` (another \
establishment of its root), `socio` (a partner whose whole CNPJ the list gives, or a whole CPF whose six middle digits and \
name are a person partner's), `socio_possivel` (a masked CPF with a partner's name: him or a namesake), `grupo` (a company \
of its economic group, as `grupos_economicos` has it) |\n\
| `vigente` | boolean | In force on the list's date: started and not ended (an empty end is open); CEPIM and MTE while \
listed (an MTE period with an end is over); an IBAMA embargo until lifted or cancelled |\n\
| `sancionado`, `nome`, `categoria`, `orgao`, `inicio`, `fim`, `valor_multa`, `fonte`, `data_lista` | as in `listas` | \
The record's |\n\n\
On a store, `sancoes` is kept per snapshot (its `sancoes` table). A run that read no list keeps the previous snapshot's \
rows, for the companies still in the portfolio (their `fonte` and `data_lista` are that list's), and says so in the \
manifest's warnings.\n\n";

const LOADING: &str = r#"## Loading

Every snippet reads a run's output directory (here `RUN`). The partition values are strings:
tell each reader so, or `ano_mes` comes back as an integer. The Python snippets run in CI
against a demo run (`tests/it/data_dictionary.rs`).

pandas (with pyarrow):

```python
import pyarrow as pa, pyarrow.dataset as ds
parts = ds.partitioning(pa.schema([("ano_mes", pa.string())]), flavor="hive")
creditos = ds.dataset(f"{RUN}/creditos_ativos", format="parquet", partitioning=parts).to_table().to_pandas()
por_uf = creditos.groupby("uf")["valor_total"].sum()      # decimal.Decimal: exact
```

polars:

```python
import polars as pl
creditos = pl.scan_parquet(f"{RUN}/creditos_ativos/**/*.parquet", hive_partitioning=True,
                           hive_schema={"ano_mes": pl.String}).collect()
exposicao = pl.read_parquet(f"{RUN}/aggregates/carteira_exposicao.parquet")
```

DuckDB:

```python
import duckdb
duckdb.sql(f"""CREATE VIEW creditos_ativos AS SELECT * FROM read_parquet('{RUN}/creditos_ativos/**/*.parquet',
           hive_partitioning = true, hive_types = {{'ano_mes': 'VARCHAR'}})""")
total = duckdb.sql("SELECT ano_mes, SUM(valor_total) FROM creditos_ativos GROUP BY ano_mes ORDER BY ano_mes").fetchall()
```

Spark (not run in CI):

```text
spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
creditos = spark.read.parquet(f"{RUN}/creditos_ativos")
creditos.createOrReplaceTempView("creditos_ativos")
```
"#;
