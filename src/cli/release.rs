//! `download`'s flags, and which releases and lists to fetch (`ReleaseArgs`), which `run
//! --download` shares.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct DownloadArgs {
    /// The folder the releases go to (`cnpj/YYYY-MM/`, `pgfn/YYYY_trimestre_NN/`, and
    /// `download.json`, the record of what is there).
    #[arg(long, value_name = "DIR")]
    pub to: PathBuf,

    #[command(flatten)]
    pub release: ReleaseArgs,

    /// TOML file with the same keys as the flags (flags beat env beat file).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Which releases to download, from where, and how many to keep: `download`'s, and `run
/// --download`'s.
#[derive(Debug, Clone, Default, Args)]
pub struct ReleaseArgs {
    /// RFB's month: `latest` (default) or YYYY-MM.
    #[arg(long, value_name = "YYYY-MM|latest")]
    pub rfb_month: Option<String>,

    /// PGFN's quarter: `latest` (default) or YYYY_trimestre_NN.
    #[arg(long, value_name = "YYYY_trimestre_NN|latest")]
    pub pgfn_quarter: Option<String>,

    /// RFB's files: a public share link (…/index.php/s/TOKEN) or an Apache listing of month
    /// folders (default: today's share).
    #[arg(long, value_name = "URL")]
    pub rfb_url: Option<String>,

    /// PGFN's Apache listing of quarter folders (default: https://dadosabertos.pgfn.gov.br/).
    #[arg(long, value_name = "URL")]
    pub pgfn_url: Option<String>,

    /// A transfer with no byte for this many seconds is cut and resumed (default 60).
    #[arg(long, value_name = "SECS")]
    pub stall_secs: Option<u64>,

    /// Keep the last N months of RFB and the last N quarters of PGFN in the folder once the
    /// download is whole, removing older ones (default: keep every release).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub keep: Option<u32>,
    /// Also fetch the public lists into listas/: CGU's CEIS, CNEP, CEPIM and Acordos de
    /// Leniência of the latest day and its PEP register of the latest month, the labour
    /// ministry's Cadastro de Empregadores and IBAMA's embargoes.
    #[arg(long, alias = "lists")]
    pub listas: bool,

    /// With --listas: Portal da Transparência's download pages, the fallback when the file host
    /// has no day of a list (default: https://portaldatransparencia.gov.br/download-de-dados/).
    #[arg(long, value_name = "URL")]
    pub cgu_url: Option<String>,

    /// With --listas: CGU's file host, where each list's zips are asked for by day, today's
    /// first (default: https://dadosabertos-download.cgu.gov.br/PortalDaTransparencia/saida/).
    #[arg(long, value_name = "URL")]
    pub cgu_files_url: Option<String>,

    /// With --listas: the Cadastro de Empregadores file (default: its address on gov.br).
    #[arg(long, value_name = "URL")]
    pub mte_url: Option<String>,

    /// With --listas: IBAMA's termo_de_embargo.csv (default: its address in IBAMA's open data).
    #[arg(long, value_name = "URL")]
    pub ibama_url: Option<String>,

    /// Also fetch RFB's tax regime files into regime_tributario/ (entidades-lucro-real.zip,
    /// entidades-lucro-presumido.zip, entidades-lucro-arbitrado.zip,
    /// entidades-imunes-e-isentas.zip), published once a year apart from the monthly files.
    #[arg(long)]
    pub regime: bool,

    /// With --regime: their share link (…/index.php/s/TOKEN) or an Apache listing of the files
    /// (default: RFB's share of the regime files).
    #[arg(long, value_name = "URL")]
    pub regime_url: Option<String>,
}
