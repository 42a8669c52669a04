//! Which companies' lists a run fetches again when an earlier snapshot exists. The service has
//! no `since` parameter; its change signals are the profile's `snapshot_fingerprint` and
//! `resumos` (count and total per list). The profile is asked for every company; its five lists
//! only when the company is new, a signal moved, the lists are too old, or `--full` asks.
//!
//! This module decides; it does not know where the earlier snapshot is kept (the store fills
//! `KnownCompany`) nor how carried records get into the new snapshot.

use std::collections::BTreeMap;

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
pub fn resumos_seen(p: &CompanyProfile) -> BTreeMap<String, ResumoSeen> {
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
    pub lists_fetched: AnoMes,
}

/// How a company task treats the lists.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ListsRule {
    /// No store: always fetch, record nothing.
    #[default]
    Always,
    /// `--full`: fetch, say why.
    Full,
    /// Not in the store: fetch.
    New,
    /// In the store: fetch when a signal moved or the lists are `max_age` months old.
    Known { known: Box<KnownCompany>, snapshot: AnoMes, max_age: u32 },
}

/// Why a company's lists were fetched, or that they were carried from the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListsReason {
    /// Unchanged: carried from the store.
    Carried,
    New,
    Fingerprint,
    Resumos,
    Age,
    Full,
}

impl ListsReason {
    pub const ALL: [ListsReason; 6] =
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

impl ListsRule {
    /// `None` without a store; else why the lists are fetched (or `Carried`).
    pub fn decide(&self, profile: &CompanyProfile) -> Option<ListsReason> {
        match self {
            Self::Always => None,
            Self::Full => Some(ListsReason::Full),
            Self::New => Some(ListsReason::New),
            Self::Known { known, snapshot, max_age } => {
                Some(if known.fingerprint.is_none() || known.fingerprint != profile.snapshot_fingerprint {
                    ListsReason::Fingerprint
                } else if known.resumos != resumos_seen(profile) {
                    ListsReason::Resumos
                } else if snapshot.index() - known.lists_fetched.index() >= *max_age as i32 {
                    ListsReason::Age
                } else {
                    ListsReason::Carried
                })
            }
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
            lists_fetched: m("202603"),
        };
        let rule = |snapshot: &str| ListsRule::Known {
            known: Box::new(known.clone()),
            snapshot: m(snapshot),
            max_age: 6,
        };
        assert_eq!(rule("202608").decide(&profile("a", 1)), Some(ListsReason::Carried));
        assert_eq!(rule("202608").decide(&profile("b", 1)), Some(ListsReason::Fingerprint));
        assert_eq!(rule("202608").decide(&profile("a", 2)), Some(ListsReason::Resumos));
        assert_eq!(rule("202609").decide(&profile("a", 1)), Some(ListsReason::Age));
        assert_eq!(ListsRule::Always.decide(&profile("a", 1)), None);
        assert_eq!(ListsRule::New.decide(&profile("a", 1)), Some(ListsReason::New));
    }
}
