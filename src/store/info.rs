//! `fiscal-report store info DIR`: what a store holds, read without taking its lock (a run
//! may be committing; what it shows is the last committed version).

use std::fmt::Write as _;
use std::path::Path;

use super::{StoreError, StoreRoot, TABLES, read_runs, table};

/// The text `store info` prints.
pub(crate) async fn describe(location: &Path) -> Result<String, StoreError> {
    let root = &StoreRoot::new(location)?;
    super::check_layout(root, false).await?;
    let runs = read_runs(root).await?;
    let mut out = String::new();
    let _ = writeln!(out, "store {root}");
    let Some(last) = runs.last() else {
        let _ = writeln!(out, "no version yet: no run has committed to it");
        return Ok(out);
    };
    let _ = writeln!(out, "\nversions ({}):", runs.len());
    let _ =
        writeln!(out, "  version  kind     snapshot  committed at          requests  companies (records)");
    for r in &runs {
        let records =
            r.company_records.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(
            out,
            "  {:>7}  {:<7}  {:<8}  {:<20}  {:>8}  {}",
            r.version, r.kind, r.snapshot, r.committed_at, r.requests, records
        );
    }
    let _ = writeln!(out, "\ntables at version {} (rows by partition):", last.version);
    for name in TABLES {
        let Some(v) = last.tables.get(name) else { continue };
        let t = table(root, name);
        let parts = t.partitions(*v).await?;
        let total: u64 = parts.values().sum();
        let _ = writeln!(out, "  {name} (Delta version {v}): {total} rows");
        let shown: Vec<String> = parts.iter().map(|(p, n)| format!("{}={p}: {n}", t.partition)).collect();
        let _ = writeln!(out, "    {}", shown.join(", "));
    }
    let _ = writeln!(
        out,
        "\nlast run: {} ({}), snapshot {}, credits of {} months ({} fetched, the rest from the store)",
        last.run_id,
        last.committed_at,
        last.snapshot,
        last.months.len(),
        last.credit_months_fetched.len()
    );
    Ok(out)
}
