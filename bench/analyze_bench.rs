//! Benchmark driver for bench/analyze_vs_duckdb.sh (build with --release):
//!
//! - `analyze_bench gen DIR COPIES`: credit rows of the embedded registry at scale 4 (36
//!   months), COPIES times with the years shifted, staged as text, typed by the real transform
//!   (timed: the transform throughput figure) and exported as hive-partitioned Parquet.
//! - `analyze_bench analyze DIR QUERIES`: scans DIR/creditos_ativos and runs every .sql in
//!   QUERIES with Polars SQL, as `report --from` does (the table stays on disk, each query reads
//!   what it names).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use fiscal_report::analyze::{load_queries, run_queries};
use fiscal_report::export::FileMetadata;
use fiscal_report::export::partition::write_raw_table;
use fiscal_report::simulator::Dataset;
use fiscal_report::tables::{Table, flat_row};
use fiscal_report::transform::Frames;
use fiscal_report::transform::frames::portfolio_frame;
use fiscal_report::transform::typing::type_table;
use polars::prelude::*;

/// The allocator the fiscal-report binary runs with (src/main.rs), so the bench measures it.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn staged_month(rows: &[fiscal_report::api::models::CreditoAtivo], year_shift: i32) -> DataFrame {
    let cols = Table::CreditosAtivos.columns();
    let flat: Vec<_> = rows.iter().map(|r| flat_row(Table::CreditosAtivos, r, &[])).collect();
    let columns = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let values = flat.iter().map(|r| {
                let v = r[i].clone();
                if c == "ano_mes" && year_shift != 0 {
                    v.map(|m| format!("{}{}", m[..4].parse::<i32>().unwrap_or(0) + year_shift, &m[4..]))
                } else {
                    v
                }
            });
            StringChunked::from_iter_options(c.as_str().into(), values).into_column()
        })
        .collect();
    DataFrame::new(flat.len(), columns).expect("staged frame")
}

fn generate(dir: &Path, copies: i32) {
    let d = Dataset::generate(1, 4.0);
    let mut typed: Option<DataFrame> = None;
    let (mut rows, mut transform_secs) = (0usize, 0f64);
    for copy in 0..copies {
        for m in d.months() {
            let month = d.creditos_page(None, Some(*m), 0, usize::MAX);
            let staged = staged_month(&month, 3 * copy);
            let t = Instant::now();
            let (df, _) = type_table(Table::CreditosAtivos, &staged).expect("transform");
            transform_secs += t.elapsed().as_secs_f64();
            rows += df.height();
            match &mut typed {
                None => typed = Some(df),
                Some(acc) => {
                    acc.vstack_mut_owned(df).expect("vstack");
                }
            }
        }
    }
    let typed = typed.expect("rows");
    println!("transform_rows {rows}");
    println!("transform_seconds {transform_secs:.3}");
    println!("transform_rows_per_second {:.0}", rows as f64 / transform_secs);
    let t = Instant::now();
    let files = write_raw_table("creditos_ativos", &typed, dir, &FileMetadata::default()).expect("export");
    println!("export_files {} export_seconds {:.3}", files.len(), t.elapsed().as_secs_f64());
}

fn analyze(dir: &Path, queries: &Path) {
    let t = Instant::now();
    let scan = fiscal_report::export::tables::scan_exported_table(dir, "creditos_ativos").expect("scan");
    let counted = scan.clone().select([len().alias("rows")]).collect().expect("count");
    let rows =
        counted.column("rows").and_then(|c| c.get(0)).ok().and_then(|v| v.extract::<usize>()).unwrap_or(0);
    let creditos = fiscal_report::transform::disk::DiskTable::exported(scan).expect("read");
    let read_secs = t.elapsed().as_secs_f64();
    let mut tables = BTreeMap::new();
    for table in [Table::Empresas, Table::DividasPgfn, Table::ParcelamentosRfb, Table::TransacoesRfb] {
        let schema: Schema =
            table.columns().iter().map(|c| Field::new(c.as_str().into(), DataType::String)).collect();
        tables.insert(
            table.name(),
            type_table(table, &DataFrame::empty_with_schema(&schema)).expect("empty").0,
        );
    }
    tables.insert("carteira", portfolio_frame(&[]).expect("carteira"));
    let disk = BTreeMap::from([("creditos_ativos", creditos)]);
    let frames = Frames { tables, disk, ..Default::default() };
    let qs = load_queries(Some(queries)).expect("queries");
    if std::env::var_os("PER_QUERY").is_some() {
        for q in &qs {
            let t = Instant::now();
            run_queries(&frames, std::slice::from_ref(q)).expect("query");
            println!("{:>8.3}s {}", t.elapsed().as_secs_f64(), q.name);
        }
    }
    if std::env::var_os("COLLECT_ALL").is_some() {
        // Experiment: the credit queries planned together, one streaming run over a shared scan.
        let t = Instant::now();
        let mut ctx = polars::sql::SQLContext::new();
        for name in frames.names() {
            if let Some(Ok(lf)) = frames.scan(name) {
                ctx.register(name, lf);
            }
        }
        let plans: Vec<DslPlan> =
            qs.iter().map(|q| ctx.execute(&q.sql).expect("plan").logical_plan).collect();
        let opt = OptFlags::default() | OptFlags::COMM_SUBPLAN_ELIM;
        let engine =
            if std::env::var_os("IN_MEMORY").is_some() { Engine::InMemory } else { Engine::Streaming };
        let dfs = LazyFrame::collect_all_with_engine(plans, engine, opt).expect("collect_all");
        println!("collect_all {} results in {:.3}s", dfs.len(), t.elapsed().as_secs_f64());
        return;
    }
    let t = Instant::now();
    let aggs = run_queries(&frames, &qs).expect("analyze");
    println!(
        "rows {rows} read_seconds {read_secs:.3} queries {} query_seconds {:.3}",
        aggs.results.len(),
        t.elapsed().as_secs_f64()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("gen") => generate(Path::new(&args[2]), args.get(3).and_then(|c| c.parse().ok()).unwrap_or(2)),
        Some("analyze") => analyze(Path::new(&args[2]), Path::new(&args[3])),
        _ => eprintln!("usage: analyze_bench gen DIR [COPIES] | analyze DIR QUERIES"),
    }
}
