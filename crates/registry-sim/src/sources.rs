//! Sources that lag or fail, on demand: `serve --fonte-versao pgfn=2025T4` serves the debts as
//! an old quarter's release (the `fontes` map, the list envelopes' `fonte` and every debt's
//! `dataset_trimester`), `--fonte-status cnpj=indisponivel` reports a source as not `ok`.
//! A client must notice both (`docs/service-api.md` §2.1, §2.3); the dataset itself stays
//! the same, only what the answers say about its release changes.

use std::collections::BTreeMap;

use registry_api::models::{CompanyProfile, DividaPgfn, Estabelecimento, Fonte, Socio};

/// The source keys of the embedded registry's `fontes` (`Dataset::fontes`).
pub const KEYS: [&str; 5] = ["cafir", "cno", "cnpj", "pgfn", "rfb"];

/// What the answers say about each source's release, where it differs from the dataset's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceOverrides {
    /// Source key -> the `versao` to send. For `pgfn` also the debts' `dataset_trimester`; for
    /// `cnpj` also the registry records' `dataset_month`.
    pub versao: BTreeMap<String, String>,
    /// Source key -> the `status` to send.
    pub status: BTreeMap<String, String>,
}

/// `KEY=VALUE` with a known source key and a value to send.
fn pair(flag: &str, text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("{flag} {text:?}: it has no '='"))?;
    let (key, value) = (key.trim(), value.trim());
    if !KEYS.contains(&key) {
        return Err(format!("{flag} {text:?}: the source {key:?} is not one of {}", KEYS.join(", ")));
    }
    if value.is_empty() {
        return Err(format!("{flag} {text:?}: the value after '=' is empty"));
    }
    Ok((key.to_string(), value.to_string()))
}

impl SourceOverrides {
    /// From the `--fonte-versao` and `--fonte-status` values (`pgfn=2025T4`).
    pub fn parse(versao: &[String], status: &[String]) -> Result<Self, String> {
        Ok(Self {
            versao: versao.iter().map(|v| pair("--fonte-versao", v)).collect::<Result<_, _>>()?,
            status: status.iter().map(|v| pair("--fonte-status", v)).collect::<Result<_, _>>()?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.versao.is_empty() && self.status.is_empty()
    }

    /// `fonte` of source `key` as this registry reports it.
    pub fn fonte(&self, key: &str, mut fonte: Fonte) -> Fonte {
        if let Some(v) = self.versao.get(key) {
            fonte.versao = Some(v.clone());
        }
        if let Some(s) = self.status.get(key) {
            fonte.status = Some(s.clone());
        }
        fonte
    }

    /// The registry month sent in the records' `dataset_month`, when `cnpj` is overridden.
    fn registry_month(&self) -> Option<&String> {
        self.versao.get("cnpj")
    }

    /// A profile's `fontes` and its records' `dataset_month`.
    pub fn profile(&self, p: &mut CompanyProfile) {
        if let Some(fontes) = p.fontes.as_mut() {
            for (k, f) in fontes.iter_mut() {
                *f = self.fonte(k, std::mem::take(f));
            }
        }
        if let Some(month) = self.registry_month() {
            let set = |m: &mut Option<String>| *m = Some(month.clone());
            p.empresa.iter_mut().for_each(|e| set(&mut e.dataset_month));
            p.estabelecimento.iter_mut().for_each(|e| set(&mut e.dataset_month));
            p.simples.iter_mut().for_each(|s| set(&mut s.dataset_month));
        }
    }

    /// Debts as the release of the overridden `pgfn` quarter.
    pub fn dividas(&self, items: &mut [DividaPgfn]) {
        if let Some(q) = self.versao.get("pgfn") {
            items.iter_mut().for_each(|d| d.dataset_trimester = Some(q.clone()));
        }
    }

    pub fn estabelecimentos(&self, items: &mut [Estabelecimento]) {
        if let Some(month) = self.registry_month() {
            items.iter_mut().for_each(|e| e.dataset_month = Some(month.clone()));
        }
    }

    pub fn socios(&self, items: &mut [Socio]) {
        if let Some(month) = self.registry_month() {
            items.iter_mut().for_each(|s| s.dataset_month = Some(month.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_sources_and_refuses_others() {
        let o = SourceOverrides::parse(&["pgfn=2025T4".into()], &["cnpj=indisponivel".into()]).unwrap();
        assert_eq!(o.versao["pgfn"], "2025T4");
        assert_eq!(o.status["cnpj"], "indisponivel");
        assert!(SourceOverrides::parse(&["siafi=2025T4".into()], &[]).unwrap_err().contains("cafir"));
        assert!(SourceOverrides::parse(&[], &["pgfn".into()]).unwrap_err().contains("'='"));
        assert!(SourceOverrides::parse(&["pgfn=".into()], &[]).is_err());
    }

    #[test]
    fn the_keys_are_the_datasets_sources() {
        let d = crate::Dataset::generate(1, 0.0);
        assert_eq!(d.fontes().keys().map(String::as_str).collect::<Vec<_>>(), KEYS);
    }

    #[test]
    fn an_old_quarter_reaches_the_fontes_and_every_debt() {
        let o = SourceOverrides::parse(&["pgfn=2025T4".into()], &[]).unwrap();
        let ok = Fonte { status: Some("ok".into()), versao: Some("2026T3".into()) };
        assert_eq!(o.fonte("pgfn", ok.clone()).versao.as_deref(), Some("2025T4"));
        assert_eq!(o.fonte("cnpj", ok.clone()), ok);
        let mut debts = vec![DividaPgfn::default(); 2];
        o.dividas(&mut debts);
        assert!(debts.iter().all(|d| d.dataset_trimester.as_deref() == Some("2025T4")));
    }
}
