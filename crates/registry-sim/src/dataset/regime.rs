//! Each company's tax regime year by year, as RFB's regime files publish it
//! (`registry_api::regime`): one row per company (or SCP), year and form of taxation. It owns
//! the rules; the writer (`open_data::regime`) and the truths ask.
//!
//! The rules:
//! - a year's rows are published in the January two years later (the files of 2026-01 hold the
//!   years up to 2024), so the as-of month decides the years there are;
//! - public bodies file none; associations, foundations and cooperatives are immune (6 in 10) or
//!   exempt; the others start in Lucro Presumido or Lucro Real (large companies mostly Real),
//!   1 in 100 in Lucro Arbitrado, and about 1 year in 8 switch between Real and Presumido;
//! - a year the company spent in the Simples (from its option to its exclusion) has no row, and
//!   about 1 year in 20 none either (no ECF filed); about 1 company in 12 files none at all;
//! - about 6 companies in 100 have some years arbitrated beside their own form (two rows that
//!   year, half their years); 3 in 100 have an SCP, filing its own row each year with the SCP's
//!   CNPJ; 1 in 30 files some year twice (`quantidade_de_escrituracoes` 2); 3 in 10 with a branch
//!   file from the branch. (More than in RFB's files, so a small dataset has each kind.)

use registry_api::ids::Cnpj;
use registry_api::regime::Forma;

use super::Dataset;
use super::company::Core;
use super::rng::{DetRng, entity_rng, per_mille};

/// The stream of the regime's decisions.
const STREAM: u64 = 16;
/// The first year the files hold.
const FIRST_YEAR: i32 = 2016;

/// One row of a regime file, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegimeRow {
    pub ano: i32,
    /// The CNPJ the ECF was filed under (head office or branch).
    pub cnpj: Cnpj,
    /// The SCP's CNPJ when the row is an SCP's.
    pub cnpj_scp: Option<Cnpj>,
    pub forma: Forma,
    pub escrituracoes: u32,
}

/// A portfolio company's regime as the dataset holds it: its own rows' years with their forms
/// (SCPs' apart), and its Simples and MEI options as its Simples row publishes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegimeTruth {
    pub cnpj: Cnpj,
    /// Year -> forms of that year (the company's own rows), ascending.
    pub anos: std::collections::BTreeMap<i32, std::collections::BTreeSet<Forma>>,
    /// Rows of its SCPs.
    pub scp_rows: usize,
    pub opcao_pelo_simples: bool,
    pub opcao_pelo_mei: bool,
}

/// The newest year the files hold at the as-of month.
pub(super) fn last_year(ds: &Dataset) -> i32 {
    i32::from(ds.latest_month().year()) - 2
}

/// Company `core`'s rows, oldest year first.
pub(super) fn rows(ds: &Dataset, core: &Core) -> Vec<RegimeRow> {
    let mut rng = entity_rng(ds.seed, STREAM, core.index as u64);
    let rng = &mut rng;
    if core.is_public() || per_mille(rng, 80) {
        return Vec::new();
    }
    let (_, simples) = super::registry::empresa_simples(ds, core);
    let in_simples = simples_years(&simples);
    let filer = if core.branches > 0 && per_mille(rng, 300) {
        ds.codec.cnpj(core.index, 2)
    } else {
        core.cnpj.clone()
    };
    let scp = per_mille(rng, 30).then(|| ds.codec.cnpj((core.index + 1) % ds.company_count(), 1));
    let arbitrated_year = per_mille(rng, 60);
    let twice = per_mille(rng, 33);
    let mut forma = first_form(rng, core);
    let mut out = Vec::new();
    for ano in FIRST_YEAR.max(core.inicio.y)..=last_year(ds) {
        let (switch, skip, extra, double) =
            (per_mille(rng, 125), per_mille(rng, 50), per_mille(rng, 500), per_mille(rng, 200));
        forma = match forma {
            Forma::LucroReal if switch => Forma::LucroPresumido,
            Forma::LucroPresumido if switch => Forma::LucroReal,
            f => f,
        };
        if skip || in_simples(ano) {
            continue;
        }
        let escrituracoes = if twice && double { 2 } else { 1 };
        out.push(RegimeRow { ano, cnpj: filer.clone(), cnpj_scp: None, forma, escrituracoes });
        if arbitrated_year
            && extra
            && forma != Forma::LucroArbitrado
            && !matches!(forma, Forma::Imune | Forma::Isenta)
        {
            out.push(RegimeRow {
                ano,
                cnpj: filer.clone(),
                cnpj_scp: None,
                forma: Forma::LucroArbitrado,
                escrituracoes: 1,
            });
        }
        if let Some(scp) = &scp {
            out.push(RegimeRow {
                ano,
                cnpj: filer.clone(),
                cnpj_scp: Some(scp.clone()),
                forma,
                escrituracoes: 1,
            });
        }
    }
    out
}

/// The form a company starts with.
fn first_form(rng: &mut DetRng, core: &Core) -> Forma {
    if matches!(core.natureza, "3999" | "3069" | "2143") {
        return if per_mille(rng, 600) { Forma::Imune } else { Forma::Isenta };
    }
    if per_mille(rng, 10) {
        return Forma::LucroArbitrado;
    }
    let real = if core.porte == "05" { 550 } else { 100 };
    if per_mille(rng, real) { Forma::LucroReal } else { Forma::LucroPresumido }
}

/// Whether the company was in the Simples at some time of a year: from its option's year to its
/// exclusion's (or on), as its Simples row dates them.
fn simples_years(s: &registry_api::models::Simples) -> impl Fn(i32) -> bool + use<> {
    let year =
        |d: &Option<String>| d.as_deref().and_then(|d| d.get(..4)?.parse::<i32>().ok()).filter(|y| *y > 0);
    let from = year(&s.data_opcao_simples);
    let to = year(&s.data_exclusao_simples);
    move |ano| from.is_some_and(|f| f <= ano && to.is_none_or(|t| ano <= t))
}

/// The truth of each portfolio CNPJ (head office or branch) the dataset holds, in order.
pub(super) fn truth(ds: &Dataset, portfolio: &[Cnpj]) -> Vec<RegimeTruth> {
    portfolio
        .iter()
        .filter_map(|cnpj| {
            let core = ds.core(cnpj)?;
            let mut t = RegimeTruth {
                cnpj: core.cnpj.clone(),
                anos: Default::default(),
                scp_rows: 0,
                opcao_pelo_simples: false,
                opcao_pelo_mei: false,
            };
            for r in rows(ds, &core) {
                match r.cnpj_scp {
                    Some(_) => t.scp_rows += 1,
                    None => {
                        t.anos.entry(r.ano).or_default().insert(r.forma);
                    }
                }
            }
            let (_, simples) = super::registry::empresa_simples(ds, &core);
            t.opcao_pelo_simples = simples.opcao_pelo_simples.as_deref() == Some("S");
            t.opcao_pelo_mei = simples.opcao_pelo_mei.as_deref() == Some("S");
            Some(t)
        })
        .collect()
}
