//! The credits' queries, run while the fetch still brings the companies. A query whose SQL
//! names no table but the credits (and the results of such queries) reads the same rows before
//! the companies arrive as after: its result is ready when the fetch ends.
//!
//! Which queries run early is judged from the names a run can have; which results are taken is
//! judged again against the tables the whole run has, so a result is used only when its query
//! read nothing the early run lacked. A query that fails early is simply run again with the
//! others, where its error is reported as before.

use std::collections::{BTreeMap, HashSet};

use polars::prelude::*;

use super::{Query, run_query, waves};
use crate::store::snapshot::COMPANY_TABLES;
use crate::tables::Table;
use crate::transform::disk::held_whole_rows;
use crate::transform::economic_groups::{GRUPOS_ECONOMICOS, INSCRICOES_DA_CARTEIRA, SOCIAS_EXPOSICAO};
use crate::transform::listas::LISTAS;
use crate::transform::nacional::DIVIDA_ATIVA_NACIONAL;
use crate::transform::{CARTEIRA, RESUMOS};

/// Results of queries run on the credits alone, by query name, with the hash of the SQL
/// that made each.
#[derive(Default)]
pub struct EarlyResults {
    by_name: BTreeMap<String, (String, DataFrame)>,
}

impl EarlyResults {
    /// How many queries ran early without an error.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The early results the whole run can use, by the query's index in `queries`: those whose
    /// query is unchanged and names, among the `tables` of the whole run and the queries'
    /// tables, only the credits and the tables of the results usable before it.
    pub(super) fn usable(
        mut self,
        queries: &[Query],
        tables: &BTreeMap<String, LazyFrame>,
    ) -> Vec<Option<DataFrame>> {
        let mut names: HashSet<String> = tables.keys().cloned().collect();
        names.extend(queries.iter().map(|q| q.table.clone()));
        let mut readable = HashSet::from([Table::CreditosAtivos.name().to_string()]);
        let mut usable = vec![None; queries.len()];
        for (i, q) in queries.iter().enumerate() {
            let Some((sha, df)) = self.by_name.remove(&q.name) else { continue };
            if sha != q.sha256 || !reads_only(q, &readable, &names) {
                continue;
            }
            readable.insert(q.table.clone());
            usable[i] = Some(df);
        }
        let taken = usable.iter().flatten().count();
        if taken > 0 {
            tracing::debug!("{taken} queries' results taken from the credits' early work");
        }
        usable
    }
}

/// Runs, over `credits` alone, the queries of `queries` that read nothing else; one per core.
pub fn run_credit_queries(credits: &DataFrame, queries: &[Query]) -> EarlyResults {
    crate::stack::deep(|| run_here(credits, queries))
}

fn run_here(credits: &DataFrame, queries: &[Query]) -> EarlyResults {
    let credits_name = Table::CreditosAtivos.name().to_string();
    let mut readable = HashSet::from([credits_name.clone()]);
    let names = names_a_run_can_have(queries);
    let early: Vec<Query> = queries
        .iter()
        .filter(|q| {
            let only = reads_only(q, &readable, &names);
            if only {
                readable.insert(q.table.clone());
            }
            only
        })
        .cloned()
        .collect();
    let mut tables = BTreeMap::from([(credits_name, credits.clone().lazy())]);
    let mut results = EarlyResults::default();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The credits are in memory; streamed over when larger than a small run holds.
    let mut streamed = HashSet::new();
    if credits.height() > held_whole_rows() {
        streamed.insert(Table::CreditosAtivos.name().to_string());
    }
    for wave in waves::waves(&early, &[]) {
        let order = waves::longest_first(&wave, &early);
        let ran = crate::stack::deep_each(order.len(), threads, |k| {
            run_query(&tables, &streamed, &early[order[k]])
        });
        for (i, df) in order.into_iter().zip(ran) {
            let q = &early[i];
            match df {
                Ok(df) => {
                    tables.insert(q.table.clone(), df.clone().lazy());
                    results.by_name.insert(q.name.clone(), (q.sha256.clone(), df));
                }
                Err(e) => tracing::debug!("query {} left for after the fetch: {e}", q.name),
            }
        }
    }
    results
}

/// Whether `q` names, among `names`, only tables in `readable` (its own table's name, as a
/// column's alias say, reads nothing).
fn reads_only(q: &Query, readable: &HashSet<String>, names: &HashSet<String>) -> bool {
    q.names.iter().filter(|w| names.contains(*w) && **w != q.table).all(|w| readable.contains(w))
}

/// Every table a whole run can give its queries: the typed tables, the portfolio and its
/// summaries, groups and data quality, the previous snapshot's, and the queries' own.
fn names_a_run_can_have(queries: &[Query]) -> HashSet<String> {
    let fixed = [
        CARTEIRA,
        RESUMOS,
        GRUPOS_ECONOMICOS,
        INSCRICOES_DA_CARTEIRA,
        SOCIAS_EXPOSICAO,
        LISTAS,
        DIVIDA_ATIVA_NACIONAL,
        crate::transform::regime::REGIME_TRIBUTARIO,
    ];
    Table::ALL
        .iter()
        .map(|t| t.name().to_string())
        .chain(fixed.iter().map(|n| n.to_string()))
        .chain(["data_quality", "comparacao"].map(String::from))
        .chain(COMPANY_TABLES.iter().map(|t| format!("{}_anterior", t.name())))
        .chain(queries.iter().map(|q| q.table.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(name: &str, sql: &str) -> Query {
        Query::parse(name, sql, "test")
    }

    /// What reads only the credits (or what was made of them) runs early and is taken; what
    /// names another table of the run, or whose SQL changed since, is left for the whole run.
    #[test]
    fn only_what_reads_the_credits_alone_runs_early_and_is_taken() {
        let credits = df!("uf" => ["SP", "RJ", "SP"], "valor" => [1i64, 2, 3]).unwrap();
        let queries = [
            q("01_total", "SELECT SUM(valor) AS total FROM creditos_ativos"),
            q("02_dobro", "-- owed by empresas\nSELECT total * 2 AS dobro FROM total"),
            q("03_com_empresas", "SELECT uf FROM creditos_ativos JOIN empresas USING (uf)"),
            q("04_dos_estados", "SELECT uf, 'empresas' AS t FROM creditos_ativos GROUP BY uf"),
        ];
        let early = run_credit_queries(&credits, &queries);
        let mut ran: Vec<&str> = early.by_name.keys().map(String::as_str).collect();
        ran.sort_unstable();
        assert_eq!(ran, ["01_total", "02_dobro", "04_dos_estados"]);
        let dobro = &early.by_name["02_dobro"].1;
        assert_eq!(dobro.column("dobro").unwrap().i64().unwrap().get(0), Some(12));

        let whole = |early: EarlyResults| {
            let tables = BTreeMap::from([
                ("creditos_ativos".to_string(), credits.clone().lazy()),
                ("empresas".to_string(), df!("uf" => ["SP"]).unwrap().lazy()),
            ]);
            let usable = early.usable(&queries, &tables);
            (usable.iter().map(Option::is_some).collect::<Vec<_>>(), usable[0].is_some())
        };
        assert_eq!(whole(early), (vec![true, true, false, true], true));

        // A result for a query that reads the companies (run early by mistake) is not taken,
        // nor one whose SQL changed since, nor what reads a result not taken.
        let mut wrong = run_credit_queries(&credits, &queries);
        let any = wrong.by_name["01_total"].1.clone();
        wrong.by_name.insert("03_com_empresas".into(), (queries[2].sha256.clone(), any));
        wrong.by_name.get_mut("01_total").unwrap().0 = "another sha".into();
        assert_eq!(whole(wrong), (vec![false, false, false, true], false));
    }
}
