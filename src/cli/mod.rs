//! Command-line definitions (clap). Values a config file or the environment can also give are
//! `Option`s here with no clap default, so `config` can tell "not given" from "given".

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod release;
mod serve;

pub use release::{DownloadArgs, ReleaseArgs};
pub use serve::ServeArgs;

#[derive(Debug, Parser)]
#[command(
    name = "fiscal-report",
    version,
    about = "Monthly fiscal reports and Parquet datasets from the business-registry API"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Only errors and the final summary on stderr.
    #[arg(long, global = true)]
    pub quiet: bool,

    /// Log line format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// More detail in logs (-v debug, -vv trace). RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The whole job: fetch, then build frames, aggregates, Parquet and the report.
    #[command(after_help = RUN_EXAMPLES)]
    Run(Box<RunArgs>),
    /// Only the fetch stage: stage every record under DIR/.staging.
    #[command(after_help = FETCH_EXAMPLES)]
    Fetch(FetchArgs),
    /// Serve the embedded registry (a local copy of the service's interface over synthetic data).
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(ServeArgs),
    /// Print one operation's JSON: an ad-hoc lookup against the service.
    #[command(after_help = GET_EXAMPLES)]
    Get(GetArgs),
    /// Combine the outputs of `fetch --shard K/N` runs into one dataset, manifest and report.
    #[command(after_help = MERGE_EXAMPLES)]
    Merge(MergeArgs),
    /// Inspect a `--store`: its versions, snapshots and row counts.
    #[command(after_help = STORE_EXAMPLES)]
    Store(StoreArgs),
    /// Re-run the aggregates, their Parquet and the report from a finished run's DIR, without
    /// fetching: how an analyst edits a query or a template and re-renders.
    #[command(after_help = REPORT_EXAMPLES)]
    Report(ReportFromArgs),
    /// One dossier per company (HTML and Markdown): profile, establishments, partners,
    /// construction works, active debts, instalment plans and transactions.
    #[command(after_help = DOSSIE_EXAMPLES)]
    Dossie(DossieArgs),
    /// Download the publishers' latest release (RFB's month, PGFN's quarter) into a folder:
    /// resumed, each file checked before it takes its name, for `run --open-data DIR`.
    #[command(after_help = DOWNLOAD_EXAMPLES)]
    Download(DownloadArgs),
}

// Each command's help ends with a few examples: what a newcomer types first. Lines stay under
// 80 columns, so the help's wrapping leaves them whole.
const RUN_EXAMPLES: &str = "Examples:
  fiscal-report run                                  # the demo, no key
  fiscal-report run --base-url URL --cnpjs carteira.csv   # REGISTRY_API_KEY set
  fiscal-report run --store store/ --rules regras/exemplo.toml --base-url URL";
const FETCH_EXAMPLES: &str = "Examples:
  fiscal-report fetch --cnpjs carteira.csv --out out/   # then report --from out/
  fiscal-report fetch --shard 0/4 --cnpjs carteira.csv --out part0/";
const SERVE_EXAMPLES: &str = "Examples:
  fiscal-report serve                                # 127.0.0.1:8089, key KEY
  fiscal-report serve --latency-ms 50 --rate-limit 100";
const GET_EXAMPLES: &str = "Examples:
  fiscal-report get empresa 33.683.111/0002-80
  fiscal-report get creditos-ativos --uf SP --ano-mes 202609";
const MERGE_EXAMPLES: &str = "Examples:
  fiscal-report merge out/ part0/ part1/ part2/ part3/
  fiscal-report merge s3://runs/2026-09 s3://runs/p0 s3://runs/p1";
const STORE_EXAMPLES: &str = "Examples:
  fiscal-report store info store/
  fiscal-report store series store/ --cnpj 33.683.111/0002-80";
const REPORT_EXAMPLES: &str = "Examples:
  fiscal-report report --from output/202509-202609   # after editing queries/
  fiscal-report report --from output/202509-202609 --locale en --pdf";
const DOWNLOAD_EXAMPLES: &str = "Examples:
  fiscal-report download --to dados/            # the latest month and quarter
  fiscal-report download --to dados/ --rfb-month 2026-01 --pgfn-quarter 2025_trimestre_04";
const DOSSIE_EXAMPLES: &str = "Examples:
  fiscal-report dossie 33.683.111/0002-80 --out out/   # out/dossies/<cnpj>.html
  fiscal-report dossie 33.683.111/0002-80 --store store/";

#[derive(Debug, Clone, Args)]
pub struct DossieArgs {
    /// The companies' CNPJs (masked or bare).
    #[arg(required = true, value_name = "CNPJ")]
    pub cnpjs: Vec<String>,

    /// Where to write: the dossiers go to DIR/dossies/<cnpj>.html and .md.
    #[arg(long, value_name = "DIR", default_value = "output")]
    pub out: PathBuf,

    #[command(flatten)]
    pub service: ServiceArgs,

    #[command(flatten)]
    pub folders: AnalystFolders,

    /// A `--store` of monthly runs: each dossier gains the company's exposure at every snapshot.
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub fetch: FetchArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Also write the dossiers (dossies/<cnpj>.html and .md) of the N companies with the
    /// largest exposure; the report links to them. Default: 10 on the demo run (embedded
    /// registry, its own portfolio), else none.
    #[arg(long, value_name = "N", env = "FISCAL_REPORT_DOSSIES")]
    pub dossies: Option<usize>,
    /// Also fetch the companies the portfolio's partners lists name (and their partner
    /// companies, up to 3 steps), so each economic group's exposure covers the whole group,
    /// not only its members in the portfolio. They count for their group only. Default: on for
    /// the demo run, else off.
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        default_missing_value = "true",
        env = "FISCAL_REPORT_EXPAND_GROUPS"
    )]
    pub expand_groups: Option<bool>,
    #[command(flatten)]
    pub email: EmailArgs,
    /// With --open-data DIR: first download the publishers' latest release into DIR (as
    /// `download --to DIR` does, resumed and checked), then run over it: the monthly schedule's
    /// one command.
    #[arg(long, requires = "open_data")]
    pub download: bool,
    #[command(flatten)]
    pub release: ReleaseArgs,
}

/// `run` mails its report once the outputs are written. Each flag has its config key (the
/// name with `_`) and its FISCAL_REPORT_* variable; the SMTP password only the variable
/// FISCAL_REPORT_SMTP_PASSWORD or a file (`--smtp-password-file`).
#[derive(Debug, Clone, Default, Args)]
pub struct EmailArgs {
    /// Mail the report to these addresses (comma-separated), once per month.
    #[arg(long, value_name = "ADDRESSES")]
    pub email_to: Option<String>,
    /// The mail server, as lettre writes it: smtp://user@host:587?tls=required (STARTTLS),
    /// smtps://user@host:465 (TLS), smtp://host:25 (a relay on the same network). No password.
    #[arg(long, value_name = "URL")]
    pub smtp_url: Option<String>,
    /// The sender's address.
    #[arg(long, value_name = "ADDRESS")]
    pub email_from: Option<String>,
    /// Where the report is read (its URL), linked in the message.
    #[arg(long, value_name = "URL")]
    pub report_url: Option<String>,
    /// What to attach: none, pdf, html, xlsx or all (comma-separated). Default: report.pdf when
    /// made, else report.html, and report.xlsx.
    #[arg(long, value_name = "FILES")]
    pub email_attach: Option<String>,
    /// Attachments above this size in all are linked instead (default 20).
    #[arg(long, value_name = "MB")]
    pub email_max_mb: Option<u64>,
    /// A file holding the SMTP password (or set FISCAL_REPORT_SMTP_PASSWORD).
    #[arg(long, value_name = "FILE")]
    pub smtp_password_file: Option<PathBuf>,
    /// Mail the report even if this month's was already mailed from this output folder.
    #[arg(long)]
    pub email_again: bool,
}

/// The folders an analyst edits and the language of what is rendered; shared by `run`,
/// `merge`, `report` and `dossie`.
#[derive(Debug, Clone, Default, Args)]
pub struct AnalystFolders {
    /// Folder of .sql files, one aggregate each (default ./queries if present, else built-in).
    #[arg(long, value_name = "DIR")]
    pub queries: Option<PathBuf>,

    /// Folder with the report and dossier templates (report.html.hbs, dossie.html.hbs, ...) and
    /// partials/ (default ./templates if present, else built-in).
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,

    /// Folder of code tables, codigo,nome CSV files (default ./codes if present, else built-in).
    #[arg(long, value_name = "DIR")]
    pub codes: Option<PathBuf>,

    /// Number, date and month format of what is rendered.
    #[arg(long, value_enum, default_value_t = Locale::PtBr)]
    pub locale: Locale,
}

/// What shapes the analysis and the report; shared by `run` and `report`.
#[derive(Debug, Clone, Default, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub folders: AnalystFolders,

    /// Also write report.pdf: report.html printed by a headless Chromium or Chrome (on PATH, or
    /// --browser). Without one, everything else is written and the exit code is 11. Also
    /// FISCAL_REPORT_PDF=true (read with the settings: `config::ReportSettings`).
    #[arg(long)]
    pub pdf: bool,

    /// The Chromium or Chrome program that prints report.pdf (default: the first of chromium,
    /// chromium-browser, google-chrome, google-chrome-stable, chrome on PATH).
    #[arg(long, value_name = "PATH", env = "FISCAL_REPORT_BROWSER")]
    pub browser: Option<PathBuf>,

    #[command(flatten)]
    pub watch: WatchArgs,
}

/// Watch rules and where their alerts go; shared by `run`, `merge` and `report`.
#[derive(Debug, Clone, Default, Args)]
pub struct WatchArgs {
    /// TOML file of watch rules and watched CNPJ lists (example: regras/exemplo.toml); its
    /// alerts go to alertas.jsonl and the report.
    #[arg(long, value_name = "FILE", env = "FISCAL_REPORT_RULES")]
    pub rules: Option<PathBuf>,

    /// Exit with code 9 when the rules raised new alerts (the outputs are still complete); with
    /// a severity (`--fail-on-alert=alta`), only for alerts of at least that severity.
    #[arg(
        long,
        requires = "rules",
        value_name = "SEVERIDADE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "baixa",
        value_parser = ["alta", "media", "baixa"]
    )]
    pub fail_on_alert: Option<String>,

    /// Post a JSON summary of the alerts to this URL when there are any (https, or http to this
    /// machine). Prefer the env var: the URL of a chat webhook is its secret.
    #[arg(
        long,
        value_name = "URL",
        env = "FISCAL_REPORT_NOTIFY_WEBHOOK",
        hide_env_values = true,
        requires = "rules"
    )]
    pub notify_webhook: Option<String>,

    /// Bearer token for --notify-webhook (from the environment only).
    #[arg(long, env = "FISCAL_REPORT_WEBHOOK_TOKEN", hide_env_values = true, hide = true)]
    pub webhook_token: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum, serde::Serialize)]
pub enum Locale {
    /// R$ 1.234.567,89 and jan/2024
    #[default]
    #[value(name = "pt-BR")]
    PtBr,
    /// R$ 1,234,567.89 and Jan 2024
    #[value(name = "en")]
    En,
}

impl From<Locale> for crate::report::Locale {
    fn from(l: Locale) -> Self {
        match l {
            Locale::PtBr => Self::PtBr,
            Locale::En => Self::En,
        }
    }
}

impl From<LogFormat> for crate::logging::LogFormat {
    fn from(f: LogFormat) -> Self {
        match f {
            LogFormat::Text => Self::Text,
            LogFormat::Json => Self::Json,
        }
    }
}

#[derive(Debug, Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Versions, snapshots, row counts per table and the last run of the store in DIR.
    Info { dir: std::path::PathBuf },
    /// The series over every snapshot of the store in DIR: the portfolio's exposure and its
    /// companies per estimated standing, or with --cnpj one company's exposure and standing.
    Series(SeriesArgs),
    /// One company's timeline over every snapshot of the store in DIR: each change the
    /// snapshots show, oldest first, dated by the event when the files date it, else by the
    /// snapshot it showed in.
    Timeline(TimelineArgs),
}

/// `store timeline`: which company, and what to print or write.
#[derive(Debug, Clone, Args)]
pub struct TimelineArgs {
    /// The store (`--store` of the monthly runs).
    pub dir: PathBuf,
    /// The company (masked or 14 digits).
    #[arg(long, value_name = "CNPJ")]
    pub cnpj: String,
    /// table (for a terminal), csv and json go to standard output unless --out names a file;
    /// parquet needs --out.
    #[arg(long, value_enum, default_value_t = StoreFormat::Table)]
    pub format: StoreFormat,
    /// Write the timeline to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Folder of .sql files whose historico/ holds the timeline's query (default ./queries if
    /// present, else built-in).
    #[arg(long, value_name = "DIR")]
    pub queries: Option<PathBuf>,
}

/// `store series`: what to print or write.
#[derive(Debug, Clone, Args)]
pub struct SeriesArgs {
    /// The store (`--store` of the monthly runs).
    pub dir: PathBuf,
    /// One company's series instead of the portfolio's (masked or 14 digits).
    #[arg(long, value_name = "CNPJ")]
    pub cnpj: Option<String>,
    /// csv, json and table (for a terminal) go to standard output unless --out names a file;
    /// parquet needs --out.
    #[arg(long, value_enum, default_value_t = StoreFormat::Csv)]
    pub format: StoreFormat,
    /// Write the series to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Folder of .sql files whose historico/ holds the series' queries (default ./queries if
    /// present, else built-in).
    #[arg(long, value_name = "DIR")]
    pub queries: Option<PathBuf>,
}

/// How `store series` and `store timeline` print or write their table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreFormat {
    Table,
    Csv,
    Json,
    Parquet,
}

#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// A new directory for the merged dataset.
    pub out: PathBuf,
    /// The --out directories of every shard.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,

    /// `freeze` refuses shards whose data shape drifted, `evolve` takes them; default: what
    /// each shard's fetch ran under.
    #[arg(long, value_name = "evolve|freeze")]
    pub schema_contract: Option<String>,
    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ReportFromArgs {
    /// A finished run's output directory.
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,

    /// `freeze` refuses data whose shape drifted, `evolve` takes it; default: what the fetch
    /// that staged DIR ran under.
    #[arg(long, value_name = "evolve|freeze")]
    pub schema_contract: Option<String>,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// Connection to the service; shared by `run`, `fetch` and `get`.
#[derive(Debug, Clone, Default, Args)]
pub struct ServiceArgs {
    /// Base URL of the registry service. Without it, `run`/`fetch` use the embedded registry.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// API key for the service (prefer the env var: a flag shows in `ps`).
    #[arg(long, env = "REGISTRY_API_KEY", hide_env_values = true, value_name = "KEY")]
    pub api_key: Option<String>,

    /// Allow plain http:// to a host other than this machine (sends the key unencrypted).
    #[arg(long)]
    pub allow_insecure_http: bool,

    /// Per-request timeout in seconds, 1 to 600 (default 30).
    #[arg(long, value_name = "SECS")]
    pub timeout_secs: Option<u64>,
}

#[derive(Debug, Clone, Default, Args)]
pub struct FetchArgs {
    #[command(flatten)]
    pub service: ServiceArgs,

    /// States to fetch credits for: `SP,RJ` or `all` (default all 27).
    #[arg(long, value_name = "UFS")]
    pub uf: Option<String>,

    /// Months: `202401`, a range `202301:202412`, or `latest` (the default: the latest 13 the
    /// service has, so a 12-month change has its base).
    #[arg(long, value_name = "AAAAMM|FROM:TO|latest")]
    pub ano_mes: Option<String>,

    /// Portfolio: CSV with a `cnpj` column, or one CNPJ per line.
    #[arg(long, value_name = "FILE")]
    pub cnpjs: Option<PathBuf>,

    /// Read the portfolio's records from the publishers' open-data files in DIR (PGFN's
    /// Dados_abertos_*.zip, RFB's Empresas*.zip, Estabelecimentos*.zip, Socios*.zip,
    /// Simples.zip, in any subfolders) instead of a service. Needs --cnpjs.
    #[arg(long, value_name = "DIR")]
    pub open_data: Option<PathBuf>,

    /// Read the public lists (CEIS, CNEP, CEPIM, Acordos de Leniência, the Cadastro de
    /// Empregadores, IBAMA's embargoes, CGU's PEP) from DIR, as `download --listas` leaves them in
    /// `listas/`, for a run over a service; --open-data reads them from its own folder.
    #[arg(long, value_name = "DIR", alias = "lists-dir")]
    pub listas_dir: Option<PathBuf>,

    /// Read RFB's tax regime files (entidades-lucro-real.zip, entidades-lucro-presumido.zip,
    /// entidades-lucro-arbitrado.zip, entidades-imunes-e-isentas.zip, or their 2025 names) from
    /// DIR, in any subfolder, for a run over a service; --open-data reads them from its own
    /// folder.
    #[arg(long, value_name = "DIR")]
    pub regime_dir: Option<PathBuf>,

    /// With --open-data: read a release that is not whole (a part or a PGFN system missing, a
    /// file empty, broken or half-downloaded) instead of stopping; the manifest, the report's
    /// banner and "Fontes e períodos" name what is missing, and on a --store what those files
    /// would have renewed is carried from the previous snapshot.
    #[arg(long)]
    pub partial: bool,

    /// Stop (exit 2) instead of going on: on the first invalid portfolio line, and on a file of
    /// the --open-data or --listas-dir folder that no reader takes or a list expected there and
    /// missing (downloaded into it, or any list for --listas-dir).
    #[arg(long)]
    pub strict: bool,

    /// Output directory (default output/<period>). Also s3://BUCKET/PREFIX (or gs://, az://):
    /// the run or fetch works in a local directory and uploads its finished outputs there (a
    /// fetch, its staging for `merge`), the manifest last; credentials from the cloud's standard
    /// environment variables.
    #[arg(long, value_name = "DIR|URL")]
    pub out: Option<PathBuf>,

    /// Most requests in flight at once (default 64). The fetch finds how many the service
    /// serves without queueing and how fast it lets them through, and stays under both: this is
    /// only the ceiling.
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,

    /// Hard cap on requests per second (default none: the pace is learned from the service's
    /// 429s).
    #[arg(long, value_name = "R")]
    pub max_rps: Option<u32>,

    /// TOML file with the same keys as the flags (flags beat env beat file).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Continue an interrupted run in --out: fetch only what is missing.
    #[arg(long)]
    pub resume: bool,

    /// Fetch only shard K of N (0-based), e.g. 0/3 (default 0/1, the whole portfolio).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,

    /// Embedded registry only: dataset scale (1.0 = tens of thousands of credit rows a month).
    #[arg(long, value_name = "F")]
    pub demo_scale: Option<f64>,

    /// What a change in the service's data shape does: `evolve` (default) records the fields
    /// added or missing and goes on; `freeze` stops before anything is exported (exit 7).
    #[arg(long, value_name = "evolve|freeze")]
    pub schema_contract: Option<String>,

    /// Embedded registry only: its data as it stood in month AAAAMM (default: its latest).
    #[arg(long, value_name = "AAAAMM")]
    pub as_of: Option<String>,

    /// A persistent Delta Lake store that each run adds a snapshot to; with it, months and
    /// companies already there are not fetched again unless they may have changed.
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,

    /// With --store: the newest K months of credits are fetched again, as the service may
    /// still revise them (default 2).
    #[arg(long, value_name = "K")]
    pub refresh_months: Option<u32>,

    /// With --store: a company whose lists were last fetched N or more months ago is fetched
    /// again even if unchanged (default 6).
    #[arg(long, value_name = "N")]
    pub max_age: Option<u32>,

    /// With --store: fetch everything again, as on a first run.
    #[arg(long)]
    pub full: bool,
}

#[derive(Debug, Clone, Args)]
pub struct GetArgs {
    /// Operation: empresa, estabelecimentos, obras-cno, socios, dividas-pgfn, parcelamentos-rfb,
    /// transacoes-rfb, obra, vinculos, cnaes, areas, imoveis, imovel, creditos-ativos.
    pub operation: String,

    /// The CNPJ, CNO or NIRF the operation takes.
    pub id: Option<String>,

    #[command(flatten)]
    pub service: ServiceArgs,

    /// Records per page (the service's `limite`; its default and maximum apply).
    #[arg(long, value_name = "N")]
    pub limite: Option<i64>,
    /// Records to skip before the page (the service's `offset`).
    #[arg(long, value_name = "N")]
    pub offset: Option<i64>,
    /// dividas-pgfn: the debts' categoria, `nao_previdenciario` (the service's default),
    /// `previdenciario` or `fgts`.
    #[arg(long, value_name = "CATEGORIA")]
    pub categoria: Option<String>,
    /// creditos-ativos and imoveis: the state (`SP`).
    #[arg(long, value_name = "UF")]
    pub uf: Option<String>,
    /// creditos-ativos: the month (`AAAAMM`).
    #[arg(long, value_name = "AAAAMM")]
    pub ano_mes: Option<String>,
    /// imoveis: the municipality, as the service names it.
    #[arg(long, value_name = "CODIGO")]
    pub municipio: Option<String>,

    /// Walk every page and print one envelope with all records.
    #[arg(long)]
    pub all: bool,
}
