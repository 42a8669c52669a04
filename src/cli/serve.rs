//! `serve`'s flags: the embedded registry, its faults and files, and the publishers' mirror.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free one and prints it).
    #[arg(long, default_value = "127.0.0.1:8089")]
    pub addr: String,

    /// The key clients must send in X-API-Key.
    #[arg(long, env = "REGISTRY_API_KEY", hide_env_values = true, default_value = "KEY")]
    pub api_key: String,

    /// Dataset seed: the same seed and scale give byte-identical responses.
    #[arg(long, default_value_t = crate::simulator::RegistryConfig::DEFAULT_SEED)]
    pub seed: u64,

    /// Dataset scale: 1.0 = ~5,000 companies and tens of thousands of credit rows a month. At
    /// most 64 served, 1000 (5 million companies) with --write-open-data.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,

    /// Latency of every answer, in milliseconds: each is sent that long after its request came
    /// in (the answer is made meanwhile), to within a tenth of a millisecond.
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,

    /// Share of requests (0..1) that meet a fault: 500/503, 429, dropped connection, cut-off body.
    #[arg(long, default_value_t = 0.0)]
    pub fault_rate: f64,

    /// Requests per second beyond which the server answers 429 with Retry-After.
    #[arg(long)]
    pub rate_limit: Option<u32>,

    /// Requests served at once: the others wait in a queue, so latency grows with load (a
    /// server with N workers). Unset: every request is served as it comes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub capacity: Option<u32>,

    /// Schema drift, for testing: every record served gains a field NAME.
    #[arg(long, value_name = "NAME")]
    pub add_field: Option<String>,

    /// Schema drift, for testing: every record served loses its field NAME.
    #[arg(long, value_name = "NAME")]
    pub drop_field: Option<String>,

    /// A source that lags, for testing: its answers report release VERSAO (repeatable), e.g.
    /// pgfn=2025T4 (the debts' fontes and their dataset_trimester) or cnpj=2026-05 (the
    /// registry's fontes and its records' dataset_month). Sources: cafir, cno, cnpj, pgfn, rfb.
    #[arg(long, value_name = "FONTE=VERSAO")]
    pub fonte_versao: Vec<String>,

    /// A failing source, for testing: its answers report status STATUS (repeatable), e.g.
    /// cnpj=indisponivel.
    #[arg(long, value_name = "FONTE=STATUS")]
    pub fonte_status: Vec<String>,

    /// Serve the rows of a published PGFN CSV as the debts of categoria CATEGORIA of the demo
    /// portfolio's first company (repeatable), e.g. fgts=tests/fixtures/real/pgfn_fgts.csv.
    #[arg(long, value_name = "CATEGORIA=FILE")]
    pub real_debts: Vec<String>,

    /// The data as it stood in month AAAAMM (one of the dataset's months; default: its latest):
    /// credits up to it, companies' debts, plans and situations as they were then.
    #[arg(long, value_name = "AAAAMM")]
    pub as_of: Option<String>,

    /// Serve the release folder DIR (as --write-open-data writes it) as the publishers' mirror
    /// instead of the registry: RFB's share over WebDAV (/index.php/s/TOKEN) and its 2024-25
    /// Apache listing, PGFN's Apache listing, with HEAD, Range, ETag and Last-Modified; the
    /// addresses `download` takes are printed. Until Ctrl-C.
    #[arg(long, value_name = "DIR")]
    pub mirror: Option<PathBuf>,

    /// With --mirror, a fault of the real servers (repeatable): cut (each file's first answer
    /// cut half-way), stall (one answer stops sending), 503 (the first three answers),
    /// ignore-range (each file's first Range answered whole).
    #[arg(
        long,
        value_name = "FAULT",
        requires = "mirror",
        value_parser = clap::builder::PossibleValuesParser::new(crate::simulator::mirror::MirrorFaults::NAMES)
    )]
    pub mirror_fault: Vec<String>,

    /// Write the dataset's ground truth (JSON) to FILE and exit.
    #[arg(long, value_name = "FILE")]
    pub dump_truth: Option<PathBuf>,

    /// Write the whole dataset to DIR as its publishers release it (PGFN's Dados_abertos_*.zip,
    /// RFB's Empresas0.zip, Estabelecimentos0.zip, Socios0.zip, Simples.zip, in dated folders)
    /// and exit: the files `run --open-data DIR` reads.
    #[arg(long, value_name = "DIR")]
    pub write_open_data: Option<PathBuf>,

    /// Write a portfolio of the dataset's companies (one CNPJ per line) to FILE and exit:
    /// a ready --cnpjs file for trying `fetch`/`run` against this server.
    #[arg(long, value_name = "FILE")]
    pub dump_portfolio: Option<PathBuf>,

    /// Companies in the --dump-portfolio file.
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub portfolio_size: usize,

    /// With --dump-portfolio: pick the companies so that this share of them (0..1) changed
    /// between the month before the as-of month and the as-of month (a new company, or a moved
    /// fingerprint or summary): the churn an incremental `--store` run meets.
    #[arg(long, value_name = "SHARE", requires = "dump_portfolio")]
    pub portfolio_changing: Option<f64>,
}
