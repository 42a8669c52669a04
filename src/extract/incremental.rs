//! Which companies' lists a run fetches again when an earlier snapshot exists. The service has
//! no `since` parameter; its change signals are the profile's `snapshot_fingerprint` and
//! `resumos` (count and total per list). The profile is asked for every company; its six lists
//! only when the company is new, a signal moved, the lists are too old, or `--full` asks.
//!
//! This module decides; it does not know where the earlier snapshot is kept (the store fills
//! `KnownCompany`) nor how carried records get into the new snapshot. Without a store there is
//! no policy and every list is fetched.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::api::AnoMes;
use crate::api::models::CompanyProfile;

/// One `resumos` entry as the service sent it (compared as sent: a changed rendering of the
/// same value is a change too, and costs only a refetch).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumoSeen {
    pub total: Option<i64>,
    pub valor_total: Option<String>,
}

/// The `resumos` of a profile, by key.
pub(crate) fn resumos_seen(p: &CompanyProfile) -> BTreeMap<String, ResumoSeen> {
    p.resumos
        .iter()
        .flatten()
        .map(|(k, r)| (k.clone(), ResumoSeen { total: r.total, valor_total: r.valor_total.clone() }))
        .collect()
}

/// What the last snapshot holds about a company.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownCompany {
    pub fingerprint: Option<String>,
    pub resumos: BTreeMap<String, ResumoSeen>,
    /// The month its lists were last fetched.
    pub records_fetched: AnoMes,
}

/// How this run decides each company's lists: one for the whole fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordsPolicy {
    /// What the last snapshot holds, by CNPJ.
    pub known: HashMap<String, KnownCompany>,
    /// The run's reference month, for `max_age`.
    pub snapshot: AnoMes,
    pub max_age: u32,
    /// `--full`: fetch every list.
    pub full: bool,
}

/// Why a company's lists were fetched, or that they were carried from the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordsReason {
    /// Unchanged: carried from the store.
    Carried,
    New,
    Fingerprint,
    Resumos,
    Age,
    Full,
}

impl RecordsReason {
    pub const ALL: [RecordsReason; 6] =
        [Self::Carried, Self::New, Self::Fingerprint, Self::Resumos, Self::Age, Self::Full];

    /// The name in the manifest and the summary.
    pub fn name(self) -> &'static str {
        match self {
            Self::Carried => "inalterada",
            Self::New => "nova",
            Self::Fingerprint => "fingerprint",
            Self::Resumos => "resumos",
            Self::Age => "idade",
            Self::Full => "completa",
        }
    }
}

impl RecordsPolicy {
    /// Why the lists of `cnpj`, whose profile sent `fingerprint` and `resumos`, are fetched, or
    /// `Carried` when nothing says they changed.
    pub fn decide(
        &self,
        cnpj: &str,
        fingerprint: Option<&str>,
        resumos: &BTreeMap<String, ResumoSeen>,
    ) -> RecordsReason {
        if self.full {
            return RecordsReason::Full;
        }
        let Some(known) = self.known.get(cnpj) else { return RecordsReason::New };
        if known.fingerprint.is_none() || known.fingerprint.as_deref() != fingerprint {
            RecordsReason::Fingerprint
        } else if known.resumos != *resumos {
            RecordsReason::Resumos
        } else if self.snapshot.index() - known.records_fetched.index() >= self.max_age as i32 {
            RecordsReason::Age
        } else {
            RecordsReason::Carried
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::Resumo;

    fn profile(fp: &str, total: i64) -> CompanyProfile {
        CompanyProfile {
            snapshot_fingerprint: Some(fp.into()),
            resumos: Some(BTreeMap::from([(
                "transacoes_rfb".to_string(),
                Resumo { href: None, total: Some(total), valor_total: Some("1.00".into()) },
            )])),
            ..CompanyProfile::default()
        }
    }

    #[test]
    fn each_signal_decides_and_the_first_that_moved_is_the_reason() {
        let m = |s: &str| AnoMes::parse(s).unwrap();
        let known = KnownCompany {
            fingerprint: Some("a".into()),
            resumos: resumos_seen(&profile("a", 1)),
            records_fetched: m("202603"),
        };
        let policy = |snapshot: &str, full: bool| RecordsPolicy {
            known: HashMap::from([("c".to_string(), known.clone())]),
            snapshot: m(snapshot),
            max_age: 6,
            full,
        };
        let decide = |p: &RecordsPolicy, cnpj: &str, profile: CompanyProfile| {
            p.decide(cnpj, profile.snapshot_fingerprint.as_deref(), &resumos_seen(&profile))
        };
        assert_eq!(decide(&policy("202608", false), "c", profile("a", 1)), RecordsReason::Carried);
        assert_eq!(decide(&policy("202608", false), "c", profile("b", 1)), RecordsReason::Fingerprint);
        assert_eq!(decide(&policy("202608", false), "c", profile("a", 2)), RecordsReason::Resumos);
        assert_eq!(decide(&policy("202609", false), "c", profile("a", 1)), RecordsReason::Age);
        assert_eq!(decide(&policy("202608", true), "c", profile("a", 1)), RecordsReason::Full);
        assert_eq!(decide(&policy("202608", false), "d", profile("a", 1)), RecordsReason::New);
    }
}
