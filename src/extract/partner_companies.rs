//! `--expand-groups`: the companies the partners lists name, fetched as a portfolio company is
//! (profile and lists, from the run's source: the pool with its retries, rate limit and
//! accounting, or the release's files) but
//! kept apart from the portfolio: their records count for their economic group only. It
//! follows partners of partners up to `EXPANSION_DEPTH` steps from the portfolio.
//!
//! It does not stage (a rerun fetches them again: a few requests per group) nor decide who
//! belongs with whom (`transform::economic_groups` does).

use std::collections::{BTreeMap, BTreeSet};

use futures::StreamExt;

use super::plan::CompanyTask;
use super::records::Records;
use super::runner::{TaskOutput, company_task};
use crate::api::{ApiError, Cnpj};
use crate::tables::{Row, Table, value};

/// How many steps from the portfolio the expansion follows partner companies: a holding's
/// holding's holding. Control chains in practice are short; the cap keeps a partner web that
/// reaches half the registry from fetching it.
pub(crate) const EXPANSION_DEPTH: usize = 3;

/// What the expansion fetched.
#[derive(Debug, Default)]
pub(crate) struct Expansion {
    /// The staged rows of every company it found, by table (as a monthly fetch stages them).
    pub rows: BTreeMap<Table, Vec<Row>>,
    /// Companies fetched (the service knew them).
    pub found: usize,
    /// Companies a partners list named that the service does not know.
    pub not_found: usize,
    /// Companies whose fetch failed after retries, with why: their group counts without them.
    pub failed: Vec<(Cnpj, String)>,
}

/// Fetches `first` (partner companies the portfolio names), then the partner companies those
/// name, up to `EXPANSION_DEPTH` steps; `known` are the roots already held (the portfolio's),
/// never fetched again. Only a rejected key stops it: any other failure costs that company.
pub(crate) async fn expand_groups(
    f: &Records,
    first: BTreeSet<Cnpj>,
    mut known: BTreeSet<String>,
) -> Result<Expansion, ApiError> {
    let mut out = Expansion::default();
    let parallel = (f.in_flight_ceiling() * 4).max(8);
    let mut frontier: Vec<Cnpj> =
        first.into_iter().filter(|c| known.insert(c.basico().to_string())).collect();
    for _ in 0..EXPANSION_DEPTH {
        if frontier.is_empty() {
            break;
        }
        let results: Vec<(Cnpj, TaskOutput)> = futures::stream::iter(frontier)
            .map(|cnpj| async move {
                let out = company_task(f, &CompanyTask { cnpj: cnpj.clone() }, None).await;
                (cnpj, out)
            })
            .buffer_unordered(parallel)
            .collect()
            .await;
        let mut next = BTreeSet::new();
        for (cnpj, result) in results {
            match result {
                TaskOutput::Done { rows, .. } => {
                    out.found += 1;
                    for partner in rows.get(&Table::Socios).into_iter().flatten() {
                        if let Some(c) =
                            value(Table::Socios, partner, "cnpj_cpf_socio").and_then(|d| Cnpj::parse(d).ok())
                        {
                            next.insert(c);
                        }
                    }
                    for (table, rows) in rows {
                        out.rows.entry(table).or_default().extend(rows);
                    }
                }
                TaskOutput::NotFound => out.not_found += 1,
                TaskOutput::Failed(e @ ApiError::KeyRejected { .. }) => return Err(e),
                TaskOutput::Failed(e) => out.failed.push((cnpj, e.to_string())),
            }
        }
        frontier = next.into_iter().filter(|c| known.insert(c.basico().to_string())).collect();
    }
    Ok(out)
}
