//! What a fetch will ask for: one `CreditTask` per (uf, ano_mes) and one `CompanyTask` per
//! company, filtered to this process's shard and interleaved so neither kind starves.
//!
//! A task has a stable key: the journal records finished keys, `--resume` skips them, and
//! `--shard` splits by them. Running the tasks is `runner`'s job.

use serde::{Deserialize, Serialize};

use crate::api::{AnoMes, Categoria, Cnpj, Uf};

/// Which months to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MonthSelection {
    /// The latest N months the service has, found by probing.
    Latest(u32),
    Range(AnoMes, AnoMes),
}

/// `K/N`: this process fetches shard K of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub fn parse(s: &str) -> Result<Self, String> {
        let (k, n) = s.split_once('/').ok_or("write it as K/N, e.g. 0/3")?;
        let k: u32 = k.trim().parse().map_err(|_| "K must be a whole number")?;
        let n: u32 = n.trim().parse().map_err(|_| "N must be a whole number")?;
        if n == 0 {
            return Err("N must be at least 1".into());
        }
        if k >= n {
            return Err(format!("K counts from 0, so for N={n} it must be 0 to {}", n - 1));
        }
        Ok(Self { index: k, count: n })
    }

    /// Deterministic membership by a stable hash of the task's key.
    pub fn owns(&self, key: &str) -> bool {
        if self.count == 1 {
            return true;
        }
        use sha2::Digest;
        let h = sha2::Sha256::digest(key.as_bytes());
        let v = u64::from_be_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]);
        v % u64::from(self.count) == u64::from(self.index)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditTask {
    pub uf: Uf,
    pub ano_mes: AnoMes,
}

impl CreditTask {
    pub fn key(&self) -> String {
        format!("creditos/{}/{}", self.uf, self.ano_mes)
    }

    /// Whether a task's key (`Task::key`) is a credit task's.
    pub fn is_key(key: &str) -> bool {
        key.starts_with("creditos/")
    }
}

/// One company: its profile, then (when the service knows it) its six lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompanyTask {
    pub cnpj: Cnpj,
}

impl CompanyTask {
    pub fn key(&self) -> String {
        format!("empresa/{}", self.cnpj)
    }

    /// The list operations fetched for every known company.
    pub const RECORDS: [CompanyRecords; 6] = [
        CompanyRecords::Dividas(Categoria::NaoPrevidenciario),
        CompanyRecords::Dividas(Categoria::Fgts),
        CompanyRecords::Dividas(Categoria::Previdenciario),
        CompanyRecords::Parcelamentos,
        CompanyRecords::Transacoes,
        CompanyRecords::Socios,
    ];
}

/// The names of the lists every known company's task fetches, as plans and run records keep
/// them: a run or a snapshot made with other lists (before partners were fetched) is told apart.
pub(crate) fn company_record_names() -> Vec<String> {
    CompanyTask::RECORDS.iter().map(|l| l.name()).collect()
}

/// The lists of plans written before they said which (the partners came later).
fn records_before_partners() -> Vec<String> {
    CompanyTask::RECORDS.iter().filter(|l| **l != CompanyRecords::Socios).map(|l| l.name()).collect()
}

impl CompanyRecords {
    /// `dividas_pgfn/fgts`, `parcelamentos_rfb`, `socios`, ...
    pub fn name(self) -> String {
        match self {
            Self::Dividas(c) => format!("dividas_pgfn/{}", c.as_str()),
            Self::Parcelamentos => "parcelamentos_rfb".into(),
            Self::Transacoes => "transacoes_rfb".into(),
            Self::Socios => "socios".into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompanyRecords {
    Dividas(Categoria),
    Parcelamentos,
    Transacoes,
    /// The partners: the links between companies that make economic groups.
    Socios,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Task {
    Credit(CreditTask),
    Company(CompanyTask),
}

impl Task {
    pub fn key(&self) -> String {
        match self {
            Self::Credit(t) => t.key(),
            Self::Company(t) => t.key(),
        }
    }
}

/// The service's URL in one spelling: `https://host/api/` and `https://host/api` name one
/// service (the client joins its paths below either), so a `--resume` given the other goes on,
/// and a staging written before the URL had one spelling still matches.
pub(crate) fn one_spelling(url: &str) -> &str {
    url.trim_end_matches('/')
}

/// The parameters that define a run; `--resume` refuses a directory whose plan differs, and
/// `merge` refuses shards whose plans differ beyond their shard index.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanSpec {
    pub base_url: String,
    pub months: Vec<String>,
    /// As typed (the report lists them so), but a set for the plan's identity: `--uf SP,RJ`
    /// and `--uf RJ,SP` fetch the same tasks, so they are the same run.
    pub ufs: Vec<String>,
    /// sha256 of the sorted portfolio, so a changed file is noticed.
    pub portfolio_sha256: String,
    pub portfolio_size: usize,
    pub shard: Shard,
    pub demo: bool,
    /// With a store: the store version the run builds on and the months whose credits it
    /// fetches (the others come from the store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incremental: Option<IncrementalSpec>,
    /// The lists fetched for each company (`company_record_names`): a staging of another list
    /// set is not resumed, and shards of another list set are not merged.
    #[serde(default = "records_before_partners", rename = "lists")]
    pub records: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncrementalSpec {
    /// The store version whose data the run builds on (see `Store::data_version`).
    pub store_version: u64,
    pub credit_months: Vec<String>,
}

/// States as a set: sorted, each once (`SP,RJ` and `RJ,SP` are the same states).
pub(crate) fn uf_set(ufs: &[String]) -> Vec<&str> {
    let mut set: Vec<&str> = ufs.iter().map(String::as_str).collect();
    set.sort_unstable();
    set.dedup();
    set
}

impl PlanSpec {
    /// The states as the plan's identity sees them: sorted, each once.
    pub fn uf_set(&self) -> Vec<&str> {
        uf_set(&self.ufs)
    }
}

impl PartialEq for PlanSpec {
    fn eq(&self, other: &Self) -> bool {
        // Destructured in full so that a field added later cannot silently drop out of the
        // identity `--resume` and `merge` check.
        let Self {
            base_url,
            months,
            ufs: _,
            portfolio_sha256,
            portfolio_size,
            shard,
            demo,
            incremental,
            records,
        } = self;
        one_spelling(base_url) == one_spelling(&other.base_url)
            && *months == other.months
            && self.uf_set() == other.uf_set()
            && *portfolio_sha256 == other.portfolio_sha256
            && *portfolio_size == other.portfolio_size
            && *shard == other.shard
            && *demo == other.demo
            && *incremental == other.incremental
            && *records == other.records
    }
}

impl Eq for PlanSpec {}

pub(crate) fn portfolio_hash(cnpjs: &[Cnpj]) -> String {
    use sha2::Digest;
    let mut sorted: Vec<&str> = cnpjs.iter().map(Cnpj::as_str).collect();
    sorted.sort_unstable();
    hex::encode(sha2::Sha256::digest(sorted.join("\n").as_bytes()))
}

/// States roughly by how many credit rows they have, largest first (domain facts: SP alone is
/// about a third). Only the order of work depends on it, never what is fetched.
const LARGEST_FIRST: [&str; 27] = [
    "SP", "MG", "RJ", "RS", "PR", "SC", "BA", "GO", "PE", "CE", "DF", "ES", "PA", "MT", "MA", "MS", "AM",
    "PB", "RN", "AL", "PI", "SE", "RO", "TO", "AC", "AP", "RR",
];

fn size_rank(uf: &Uf) -> usize {
    LARGEST_FIRST.iter().position(|u| *u == uf.as_str()).unwrap_or(LARGEST_FIRST.len())
}

/// Credit tasks for every (uf, month), then company tasks for every CNPJ, those `shard` owns.
/// The credits first: once they are all staged the later stages begin on them while the
/// companies are fetched (a company task is a handful of short lists, so the fetch also ends on
/// short tasks). The largest states go first: the longest lists start early instead of
/// running alone at the end.
pub fn plan_tasks(ufs: &[Uf], months: &[AnoMes], cnpjs: &[Cnpj], shard: Shard) -> Vec<Task> {
    let mut by_size: Vec<&Uf> = ufs.iter().collect();
    by_size.sort_by_key(|u| size_rank(u));
    let credits = by_size
        .iter()
        .flat_map(|u| months.iter().map(move |m| CreditTask { uf: (*u).clone(), ano_mes: *m }))
        .map(Task::Credit);
    let companies = cnpjs.iter().map(|c| Task::Company(CompanyTask { cnpj: c.clone() }));
    credits.chain(companies).filter(|t| shard.owns(&t.key())).collect()
}

/// `from..=to`, ascending.
pub(crate) fn month_range(from: AnoMes, to: AnoMes) -> Vec<AnoMes> {
    (from.index()..=to.index()).filter_map(AnoMes::from_index).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credits_first_and_shards_disjointly() {
        let ufs = vec![Uf::parse("SP").unwrap(), Uf::parse("RJ").unwrap()];
        let months = month_range(AnoMes::parse("202401").unwrap(), AnoMes::parse("202403").unwrap());
        let cnpjs = vec![Cnpj::parse("33683111000280").unwrap(), Cnpj::parse("11222333000181").unwrap()];
        let all = plan_tasks(&ufs, &months, &cnpjs, Shard { index: 0, count: 1 });
        assert_eq!(all.len(), 8);
        assert!(all[..6].iter().all(|t| matches!(t, Task::Credit(_))), "the credits first: {all:?}");
        assert_eq!(all[0].key(), "creditos/SP/202401", "the largest state first");
        let mut keys: Vec<String> = (0..3)
            .flat_map(|k| plan_tasks(&ufs, &months, &cnpjs, Shard { index: k, count: 3 }))
            .map(|t| t.key())
            .collect();
        keys.sort();
        let mut expected: Vec<String> = all.iter().map(Task::key).collect();
        expected.sort();
        assert_eq!(keys, expected);
    }

    fn spec(ufs: &[&str]) -> PlanSpec {
        PlanSpec {
            base_url: "embedded".into(),
            months: vec!["202401".into(), "202402".into()],
            ufs: ufs.iter().map(|u| (*u).to_string()).collect(),
            portfolio_sha256: portfolio_hash(&[]),
            portfolio_size: 0,
            shard: Shard { index: 0, count: 1 },
            incremental: None,
            demo: true,
            records: company_record_names(),
        }
    }

    /// A plan written before it named its lists (before partners were fetched) is another
    /// run: its staging is not resumed, nor its shards merged, with this binary's.
    #[test]
    fn a_plan_without_lists_is_one_without_partners() {
        let mut text = serde_json::to_value(spec(&["SP"])).unwrap();
        text.as_object_mut().unwrap().remove("lists");
        let old: PlanSpec = serde_json::from_value(text).unwrap();
        assert!(!old.records.contains(&"socios".to_string()) && old.records.len() == 5, "{:?}", old.records);
        assert_ne!(old, spec(&["SP"]));
    }

    #[test]
    fn a_service_with_or_without_its_last_slash_is_one_plan() {
        // A run interrupted under `http://h/` and resumed as `http://h` (or a staging written
        // before the URL had one spelling) goes on.
        let slash = PlanSpec { base_url: "https://registry.example/api/".into(), ..spec(&["SP"]) };
        let bare = PlanSpec { base_url: "https://registry.example/api".into(), ..spec(&["SP"]) };
        assert_eq!(slash, bare);
        let other = PlanSpec { base_url: "https://registry.example/other".into(), ..spec(&["SP"]) };
        assert_ne!(other, bare);
    }

    #[test]
    fn the_order_of_the_states_is_not_part_of_a_plan() {
        assert_eq!(spec(&["SP", "RJ"]), spec(&["RJ", "SP"]));
        assert_eq!(spec(&["SP", "RJ"]), spec(&["RJ", "SP", "RJ"]), "a repeated state is the same set");
        assert_ne!(spec(&["SP", "RJ"]), spec(&["SP"]));
        assert_ne!(spec(&["SP", "RJ"]), spec(&["SP", "MG"]));
        let mut other_shard = spec(&["RJ", "SP"]);
        other_shard.shard.index = 1;
        other_shard.shard.count = 2;
        assert_ne!(spec(&["SP", "RJ"]), other_shard, "the other fields still count");

        // `--resume` with the states reordered continues the run instead of refusing it.
        let tmp = tempfile::tempdir().unwrap();
        drop(crate::extract::staging::Staging::open(tmp.path(), &spec(&["SP", "RJ"]), false).unwrap());
        assert!(crate::extract::staging::Staging::open(tmp.path(), &spec(&["RJ", "SP"]), true).is_ok());
        assert!(crate::extract::staging::Staging::open(tmp.path(), &spec(&["RJ", "MG"]), true).is_err());

        // The fetch order still puts the largest state first, whatever order was typed.
        let months = month_range(AnoMes::parse("202401").unwrap(), AnoMes::parse("202401").unwrap());
        for typed in [["SP", "RJ"], ["RJ", "SP"]] {
            let ufs: Vec<Uf> = typed.iter().map(|u| Uf::parse(u).unwrap()).collect();
            let keys: Vec<String> =
                plan_tasks(&ufs, &months, &[], Shard { index: 0, count: 1 }).iter().map(Task::key).collect();
            assert_eq!(keys, ["creditos/SP/202401", "creditos/RJ/202401"]);
        }
    }
}
