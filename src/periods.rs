//! Sources and dates (#33): the reference period each source of a run stands at (the debts'
//! quarter, the registry's month, the credits' months, the other `fontes` versions) as the
//! service sent them, and whether a source is stale or failing. The manifest keeps it as
//! `periodos`; the report and the dossiers show it beside their figures.
//!
//! The rule, also in `docs/data-dictionary.md` ("Sources and dates"): every period is measured
//! against the run's reference month, the latest of the registry's month and the last credit
//! month. A quarterly source is stale when its quarter is more than `MAX_QUARTERS_BEHIND`
//! quarters before the reference's quarter; a monthly one when its month is more than
//! `MAX_MONTHS_BEHIND` months before the reference. A source whose status is not `ok` is
//! flagged whatever its date.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::api::models::Fonte;

/// PGFN publishes its roll once a quarter, weeks after the quarter closes: one quarter behind
/// the registry is its normal lag; two means a release was missed and a settled debt may still
/// be listed (or a new one missing).
pub(crate) const MAX_QUARTERS_BEHIND: i32 = 1;

/// Monthly sources (registry, RFB, CNO, CAFIR) publish every month, some a month late; more
/// than two months behind means the figures describe another month than the report's.
pub(crate) const MAX_MONTHS_BEHIND: i32 = 2;

/// Period fields of the fetched records: staged table -> every distinct value seen.
pub(crate) type PeriodsSeen = BTreeMap<String, BTreeSet<String>>;

/// How a source dates its releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tipo {
    /// A quarter, `2026T3`.
    Trimestre,
    /// One month, `2026-09`.
    Mes,
    /// A span of months (the credits): `primeiro` to `ultimo`.
    Meses,
}

/// The `periodos` section of the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Periodos {
    /// The month (`AAAA-MM`) each period is measured against; `None` when nothing was dated.
    pub referencia: Option<String>,
    /// The thresholds this run judged with (`MAX_QUARTERS_BEHIND`, `MAX_MONTHS_BEHIND`).
    pub limite_trimestres: i32,
    pub limite_meses: i32,
    /// By source: `pgfn`, `cnpj`, `creditos`, `rfb`, `cno`, `cafir`, and any other key the
    /// service's `fontes` held.
    pub fontes: BTreeMap<String, PeriodoFonte>,
}

/// One source's period and verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeriodoFonte {
    pub tipo: Tipo,
    /// The period the figures rest on: the latest the records carried, else the `fontes`
    /// version. For `meses`, `primeiro..ultimo`.
    pub periodo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primeiro: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ultimo: Option<String>,
    /// Every value the fetched records carried, sorted. More than one: the records came from
    /// several releases, and `periodo` is the latest of them.
    #[serde(default)]
    pub nos_registros: Vec<String>,
    /// `registros` when `periodo` comes from the records, `fontes` when from the version only.
    pub origem: String,
    pub versao: Option<String>,
    pub status: Option<String>,
    /// Quarters (`trimestre`) or months behind `referencia`.
    pub atraso: Option<i32>,
    pub defasada: bool,
    /// Why it is flagged, in words.
    pub motivo: Option<String>,
}

/// A source the report knows by name: its `fontes` keys (the profile's and the lists'
/// envelopes') and the staged tables whose records carry its period.
struct Known {
    key: &'static str,
    tipo: Tipo,
    fontes: &'static [&'static str],
    tables: &'static [&'static str],
}

const KNOWN: [Known; 6] = [
    Known {
        key: "pgfn",
        tipo: Tipo::Trimestre,
        fontes: &["pgfn", "dividas-pgfn"],
        tables: &["dividas_pgfn"],
    },
    Known {
        key: "cnpj",
        tipo: Tipo::Mes,
        fontes: &["cnpj", "estabelecimentos", "socios"],
        tables: &["empresas", "socios"],
    },
    Known { key: "creditos", tipo: Tipo::Meses, fontes: &["creditos-ativos"], tables: &["creditos_ativos"] },
    Known {
        key: "rfb",
        tipo: Tipo::Mes,
        fontes: &["rfb", "parcelamentos-rfb", "transacoes-rfb"],
        tables: &[],
    },
    Known {
        key: "cno",
        tipo: Tipo::Mes,
        fontes: &["cno", "obras-cno", "obra", "vinculos", "cnaes", "areas"],
        tables: &[],
    },
    Known { key: "cafir", tipo: Tipo::Mes, fontes: &["cafir", "imoveis", "imovel"], tables: &[] },
];

/// Months since year 0 of `2026-09` or `202609`.
pub(crate) fn month_index(text: &str) -> Option<i32> {
    let t = text.trim();
    let (y, m) = match t.len() {
        6 => (&t[..4], &t[4..]),
        7 if t.as_bytes()[4] == b'-' => (&t[..4], &t[5..]),
        _ => return None,
    };
    let (y, m): (i32, i32) = (y.parse().ok()?, m.parse().ok()?);
    (y > 0 && (1..=12).contains(&m)).then_some(y * 12 + m - 1)
}

/// Quarters since year 0 of `2026T3` (also `2026Q3`, `2026-T3`).
pub(crate) fn quarter_index(text: &str) -> Option<i32> {
    let t = text.trim().to_ascii_uppercase().replace('-', "");
    let (y, q) = t.split_once(['T', 'Q'])?;
    let (y, q): (i32, i32) = (y.parse().ok()?, q.parse().ok()?);
    (y > 0 && (1..=4).contains(&q)).then_some(y * 4 + q - 1)
}

/// `AAAA-MM` of a month index.
fn month_text(index: i32) -> String {
    format!("{:04}-{:02}", index.div_euclid(12), index.rem_euclid(12) + 1)
}

/// A period as an index in its own unit (quarters or months), for ordering and lags.
fn index_of(tipo: Tipo, text: &str) -> Option<i32> {
    match tipo {
        Tipo::Trimestre => quarter_index(text).or_else(|| month_index(text).map(|m| m.div_euclid(3))),
        Tipo::Mes | Tipo::Meses => month_index(text),
    }
}

/// The latest of `values` (by date where they read as one, else by text).
fn latest(tipo: Tipo, values: &BTreeSet<String>) -> Option<String> {
    values.iter().max_by_key(|v| (index_of(tipo, v), (*v).clone())).cloned()
}

fn is_ok(status: &str) -> bool {
    status.trim().eq_ignore_ascii_case("ok")
}

/// Version and status of a source over its `fontes` keys: the first version sent, and the
/// first status that is not `ok` (a failing list must not hide behind a healthy profile).
fn fonte_of(fontes: &BTreeMap<String, Fonte>, keys: &[&str]) -> (Option<String>, Option<String>) {
    let sent: Vec<&Fonte> = keys.iter().filter_map(|k| fontes.get(*k)).collect();
    let versao = sent.iter().find_map(|f| f.versao.clone().filter(|v| !v.trim().is_empty()));
    let statuses = || sent.iter().filter_map(|f| f.status.clone());
    let status = statuses().find(|s| !is_ok(s)).or_else(|| statuses().next());
    (versao, status)
}

fn seen_in(seen: &PeriodsSeen, tables: &[&str]) -> BTreeSet<String> {
    tables.iter().filter_map(|t| seen.get(*t)).flatten().filter(|v| !v.trim().is_empty()).cloned().collect()
}

/// One source before it is judged against the reference.
fn source(
    tipo: Tipo,
    versao: Option<String>,
    status: Option<String>,
    values: BTreeSet<String>,
) -> PeriodoFonte {
    let (primeiro, ultimo) = match tipo {
        Tipo::Meses => (
            values.iter().filter_map(|v| month_index(v)).min().map(month_text),
            values.iter().filter_map(|v| month_index(v)).max().map(month_text),
        ),
        _ => (None, None),
    };
    let from_records = match tipo {
        Tipo::Meses => primeiro.as_ref().zip(ultimo.as_ref()).map(|(a, b)| format!("{a}..{b}")),
        _ => latest(tipo, &values),
    };
    let origem = if from_records.is_some() { "registros" } else { "fontes" };
    PeriodoFonte {
        tipo,
        periodo: from_records.or_else(|| versao.clone()),
        primeiro,
        ultimo,
        nos_registros: values.into_iter().collect(),
        origem: origem.to_string(),
        versao,
        status,
        atraso: None,
        defasada: false,
        motivo: None,
    }
}

/// A source's own latest period, as an index in its unit.
fn period_index(p: &PeriodoFonte) -> Option<i32> {
    match p.tipo {
        Tipo::Meses => p.ultimo.as_deref().and_then(month_index),
        tipo => p.periodo.as_deref().and_then(|v| index_of(tipo, v)),
    }
}

/// The reference month: the latest of the registry's month and the last credit month, else
/// the last month the run asked for.
fn reference(fontes: &BTreeMap<String, PeriodoFonte>, plan_months: &[String]) -> Option<i32> {
    let dated = ["cnpj", "creditos"].iter().filter_map(|k| fontes.get(*k)).filter_map(period_index).max();
    dated.or_else(|| plan_months.iter().filter_map(|m| month_index(m)).max())
}

/// Flags `p` when its status is not `ok` or it lags `reference` beyond the threshold.
fn judge(p: &mut PeriodoFonte, reference: Option<i32>) {
    let (unit, limit, reference) = match p.tipo {
        Tipo::Trimestre => ("trimestres", MAX_QUARTERS_BEHIND, reference.map(|m| m.div_euclid(3))),
        Tipo::Mes | Tipo::Meses => ("meses", MAX_MONTHS_BEHIND, reference),
    };
    p.atraso = reference.zip(period_index(p)).map(|(r, i)| r - i);
    let mut why = Vec::new();
    if let Some(s) = p.status.as_deref().filter(|s| !is_ok(s)) {
        why.push(format!("situação {s:?}, não ok"));
    }
    if let Some(lag) = p.atraso.filter(|lag| *lag > limit) {
        why.push(format!("{lag} {unit} antes da referência (limite: {limit})"));
    }
    p.defasada = !why.is_empty();
    p.motivo = p.defasada.then(|| why.join("; "));
}

impl Periodos {
    /// The periods of a run from what its fetch saw: the records' period fields and the
    /// `fontes` maps. `plan_months` (`AAAAMM`) dates a run that received no dated record.
    pub fn of(seen: &PeriodsSeen, fontes: &BTreeMap<String, Fonte>, plan_months: &[String]) -> Self {
        let mut out = BTreeMap::new();
        let mut claimed: BTreeSet<&str> = BTreeSet::new();
        for k in &KNOWN {
            claimed.extend(k.fontes);
            let (versao, status) = fonte_of(fontes, k.fontes);
            let values = seen_in(seen, k.tables);
            if versao.is_some() || status.is_some() || !values.is_empty() {
                out.insert(k.key.to_string(), source(k.tipo, versao, status, values));
            }
        }
        for (key, f) in fontes.iter().filter(|(k, _)| !claimed.contains(k.as_str())) {
            let tipo = if f.versao.as_deref().and_then(quarter_index).is_some() {
                Tipo::Trimestre
            } else {
                Tipo::Mes
            };
            out.insert(key.clone(), source(tipo, f.versao.clone(), f.status.clone(), BTreeSet::new()));
        }
        let referencia = reference(&out, plan_months);
        out.values_mut().for_each(|p| judge(p, referencia));
        Self {
            referencia: referencia.map(month_text),
            limite_trimestres: MAX_QUARTERS_BEHIND,
            limite_meses: MAX_MONTHS_BEHIND,
            fontes: out,
        }
    }

    pub fn get(&self, key: &str) -> Option<&PeriodoFonte> {
        self.fontes.get(key)
    }

    /// Whether any source is stale or failing.
    pub fn any_flagged(&self) -> bool {
        self.fontes.values().any(|p| p.defasada)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fonte(status: &str, versao: &str) -> Fonte {
        Fonte { status: Some(status.into()), versao: Some(versao.into()) }
    }

    fn simulator_fontes() -> BTreeMap<String, Fonte> {
        [
            ("cafir", "2026-08"),
            ("cno", "2026-09"),
            ("cnpj", "2026-09"),
            ("pgfn", "2026T3"),
            ("rfb", "2026-09"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), fonte("ok", v)))
        .collect()
    }

    fn seen(pairs: &[(&str, &[&str])]) -> PeriodsSeen {
        pairs.iter().map(|(t, v)| (t.to_string(), v.iter().map(|s| s.to_string()).collect())).collect()
    }

    #[test]
    fn reads_quarters_and_months_in_their_published_forms() {
        assert_eq!(quarter_index("2026T3"), Some(2026 * 4 + 2));
        assert_eq!(quarter_index("2026q1"), quarter_index("2026-T1"));
        assert_eq!(quarter_index("2026T5"), None);
        assert_eq!(month_index("2026-09"), month_index("202609"));
        assert_eq!(month_index("2026-13"), None);
        assert_eq!(month_text(2026 * 12 + 8), "2026-09");
    }

    #[test]
    fn a_current_run_flags_nothing() {
        let s = seen(&[
            ("dividas_pgfn", &["2026T3"]),
            ("empresas", &["2026-09"]),
            ("creditos_ativos", &["202510", "202609"]),
        ]);
        let p = Periodos::of(&s, &simulator_fontes(), &[]);
        assert_eq!(p.referencia.as_deref(), Some("2026-09"));
        assert!(!p.any_flagged(), "{p:#?}");
        assert_eq!(p.get("pgfn").and_then(|f| f.periodo.as_deref()), Some("2026T3"));
        assert_eq!(p.get("creditos").and_then(|f| f.periodo.as_deref()), Some("2025-10..2026-09"));
        assert_eq!(p.get("cafir").and_then(|f| f.atraso), Some(1));
    }

    #[test]
    fn debts_two_quarters_behind_are_stale_one_is_not() {
        let run = |q: &str| {
            let s = seen(&[("dividas_pgfn", &[q]), ("empresas", &["2026-09"])]);
            Periodos::of(&s, &simulator_fontes(), &[]).fontes["pgfn"].clone()
        };
        assert!(!run("2026T2").defasada);
        let old = run("2026T1");
        assert!(old.defasada && old.atraso == Some(2), "{old:?}");
        assert!(old.motivo.unwrap_or_default().contains("2 trimestres"));
    }

    #[test]
    fn several_quarters_in_the_records_keep_all_and_take_the_latest() {
        let s = seen(&[("dividas_pgfn", &["2026T2", "2025T4", "2026T3"])]);
        let p = Periodos::of(&s, &BTreeMap::new(), &["202609".into()]);
        let pgfn = &p.fontes["pgfn"];
        assert_eq!(pgfn.periodo.as_deref(), Some("2026T3"));
        assert_eq!(pgfn.nos_registros.len(), 3);
        assert_eq!(pgfn.origem, "registros");
    }

    #[test]
    fn a_status_other_than_ok_is_flagged_even_on_a_list_envelope() {
        let mut fontes = simulator_fontes();
        fontes.insert("socios".into(), fonte("indisponivel", "2026-09"));
        let p = Periodos::of(&PeriodsSeen::new(), &fontes, &[]);
        let cnpj = &p.fontes["cnpj"];
        assert!(cnpj.defasada && cnpj.status.as_deref() == Some("indisponivel"), "{cnpj:?}");
        assert_eq!(cnpj.origem, "fontes");
        assert!(p.fontes.iter().filter(|(k, _)| *k != "cnpj").all(|(_, f)| !f.defasada));
    }

    #[test]
    fn an_unknown_source_is_listed_with_its_version() {
        let mut fontes = simulator_fontes();
        fontes.insert("siafi".into(), fonte("ok", "2025T1"));
        let p = Periodos::of(&PeriodsSeen::new(), &fontes, &[]);
        assert_eq!(p.fontes["siafi"].tipo, Tipo::Trimestre);
        assert!(p.fontes["siafi"].defasada);
    }
}
