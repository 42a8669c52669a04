//! Alerts with a lifecycle. An alert's identity is its rule and its company; it is new the run
//! its rule first holds for the company, stays open (not sent again) while the rule holds, and
//! is resolved the run nothing holds any more. While open it may take new triggers: an update
//! ("+3 inscrições"), sent again only when its rule asks (`reenviar_atualizacoes`). The store
//! keeps the alerts of each snapshot (`alertas`), so the next run knows which are open.
//!
//! This module owns what an alert is across runs: its state, how alerts are ranked, and how
//! the store keeps them, including the per-row alerts of a store written before alerts were
//! grouped (read and folded into one alert per rule and company). Judging a run's alerts
//! against the new snapshot is `judge`'s.

use std::collections::BTreeMap;

use polars::prelude::*;
use serde::Serialize;

use super::alerts::{Alert, Gatilho, Severidade};
use super::rules::RuleKind;

/// Where an alert stands in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Estado {
    /// Its rule holds for the company for the first time (or again after it was resolved): sent.
    Nova,
    /// Open since an earlier run and its rule still holds: not sent again (but an update its
    /// rule re-sends).
    Aberta,
    /// Open until the run before, and nothing holds any more: sent.
    Resolvida,
}

impl Estado {
    pub fn name(self) -> &'static str {
        match self {
            Self::Nova => "nova",
            Self::Aberta => "aberta",
            Self::Resolvida => "resolvida",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        [Self::Nova, Self::Aberta, Self::Resolvida].into_iter().find(|e| e.name() == s)
    }
}

/// An alert in a run: what sets it off now, and where it stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackedAlert {
    #[serde(flatten)]
    pub alerta: Alert,
    pub estado: Estado,
    /// The snapshot (AAAAMM) the alert opened.
    pub aberta_em: String,
    /// The snapshot it was resolved, when it was.
    pub resolvida_em: Option<String>,
    /// Why it was resolved, in words an analyst reads.
    pub motivo: Option<String>,
    /// An open alert that took new triggers this snapshot: how many, in words ("+3 inscrições").
    pub atualizacao: Option<String>,
    /// The update is sent again, as its rule asks.
    pub reenviada: bool,
    /// Judged by the run that wrote it, and sent then if at all: a re-render (`report --from`)
    /// carries it as that run left it and does not send it again (`rerender`).
    #[serde(skip)]
    pub carried_from_run: bool,
}

impl TrackedAlert {
    pub(super) fn identity(&self) -> (String, String) {
        self.alerta.identity()
    }

    /// Whether this run sends it: new, resolved, or an update its rule re-sends; never one a
    /// re-render carries from its run.
    pub fn is_sent(&self) -> bool {
        !self.carried_from_run
            && match self.estado {
                Estado::Nova | Estado::Resolvida => true,
                Estado::Aberta => self.reenviada,
            }
    }
}

/// Every fired alert as new: a run with no alerts of the last snapshot to compare with (no store,
/// or one whose run failed tasks and commits nothing).
pub(crate) fn all_new(fired: Vec<Alert>, snapshot: &str) -> Vec<TrackedAlert> {
    let mut out: Vec<TrackedAlert> = fired.into_iter().map(|a| opened(a, snapshot)).collect();
    in_order(&mut out);
    out
}

pub(super) fn opened(alerta: Alert, snapshot: &str) -> TrackedAlert {
    TrackedAlert {
        alerta,
        estado: Estado::Nova,
        aberta_em: snapshot.to_string(),
        resolvida_em: None,
        motivo: None,
        atualizacao: None,
        reenviada: false,
        carried_from_run: false,
    }
}

/// The order alerts are listed in: by state (new, open, resolved), then ranked: the most severe
/// first, then the most money at stake; then company and rule.
pub(super) fn in_order(alerts: &mut [TrackedAlert]) {
    alerts.sort_by(|a, b| {
        (a.estado, a.alerta.severidade)
            .cmp(&(b.estado, b.alerta.severidade))
            .then_with(|| b.alerta.at_stake().cmp(&a.alerta.at_stake()))
            .then_with(|| (&a.alerta.cnpj, &a.alerta.regra).cmp(&(&b.alerta.cnpj, &b.alerta.regra)))
    });
}

/// The subject of a trigger read back: as stored, but for the register rules, whose subject
/// names the change's kind since the CEP and the street were followed (a store written before
/// named only the company).
pub(super) fn read_subject(
    kind: RuleKind,
    valores: &BTreeMap<String, serde_json::Value>,
    stored: String,
) -> String {
    if kind.is_register() { kind.subject(valores) } else { stored }
}

/// One alert of a store or `alertas.jsonl` written before alerts were grouped: one row per
/// rule, company and subject, its `valores` what matched.
pub(super) struct RowAlert {
    pub alerta: Alert,
    pub assunto: String,
    pub valores: BTreeMap<String, serde_json::Value>,
    pub estado: Estado,
    pub aberta_em: String,
    pub resolvida_em: Option<String>,
    pub motivo: Option<String>,
}

/// Per-row alerts folded into one per rule and company, as if they had always been grouped:
/// the rows still open make one open alert (open since the earliest of them; `aberta` if any
/// was already open before that run, else `nova`) whose triggers they are; a rule and company
/// whose rows were all resolved make one resolved alert. So an alert open in an older store is
/// still open, and not sent again, when the next run reads it.
pub(super) fn fold_rows(rows: Vec<RowAlert>) -> Vec<TrackedAlert> {
    let mut groups: BTreeMap<(String, String), Vec<RowAlert>> = BTreeMap::new();
    for r in rows {
        groups.entry(r.alerta.identity()).or_default().push(r);
    }
    let mut out = Vec::new();
    for (_, rows) in groups {
        let open: Vec<&RowAlert> = rows.iter().filter(|r| r.estado != Estado::Resolvida).collect();
        let kept: Vec<&RowAlert> = if open.is_empty() { rows.iter().collect() } else { open };
        let Some(first) = kept.first() else { continue };
        let estado =
            if kept.iter().any(|r| r.estado == Estado::Aberta) { Estado::Aberta } else { first.estado };
        let aberta_em = kept.iter().map(|r| r.aberta_em.clone()).min().unwrap_or_default();
        let mut gatilhos: Vec<Gatilho> = kept
            .iter()
            .map(|r| {
                let mut valores = r.valores.clone();
                let valor = valores.remove("variacao").and_then(|v| v.as_str().map(str::to_string));
                Gatilho { assunto: r.assunto.clone(), valor, data: None, desde: r.aberta_em.clone(), valores }
            })
            .collect();
        gatilhos.sort_by(|a, b| a.assunto.cmp(&b.assunto));
        gatilhos.dedup_by(|a, b| a.assunto == b.assunto);
        let last = kept.iter().filter_map(|r| r.resolvida_em.clone()).max();
        out.push(TrackedAlert {
            alerta: Alert { gatilhos, ..first.alerta.clone() },
            estado,
            aberta_em,
            resolvida_em: (estado == Estado::Resolvida).then_some(last).flatten(),
            motivo: if estado == Estado::Resolvida { first.motivo.clone() } else { None },
            atualizacao: None,
            reenviada: false,
            carried_from_run: false,
        });
    }
    out
}

/// A column as optional strings (whatever its type); all empty when the frame lacks it (a
/// store written before the column was).
pub(super) fn strings(df: &DataFrame, name: &str) -> PolarsResult<Vec<Option<String>>> {
    let Ok(c) = df.column(name) else { return Ok(vec![None; df.height()]) };
    let c = c.cast(&DataType::String)?;
    Ok(c.str()?.iter().map(|v| v.map(str::to_string)).collect())
}

/// The store table's columns, besides `snapshot` (the store sets it). `assunto` and `valores`
/// are those of the per-row alerts written before alerts were grouped: empty in a grouped row,
/// kept so the table's older files and newer ones share one schema.
const COLUMNS: [&str; 15] = [
    "regra",
    "tipo",
    "cnpj",
    "razao_social",
    "assunto",
    "estado",
    "aberta_em",
    "resolvida_em",
    "motivo",
    "listas",
    "valores",
    "severidade",
    "atualizacao",
    "reenviada",
    "gatilhos",
];

/// The alerts as the store keeps them (lists and triggers as JSON text).
pub(crate) fn to_frame(alerts: &[TrackedAlert]) -> PolarsResult<DataFrame> {
    let none = || alerts.iter().map(|_| None).collect::<Vec<Option<String>>>();
    let texts: [Vec<Option<String>>; 15] = [
        alerts.iter().map(|a| Some(a.alerta.regra.clone())).collect(),
        alerts.iter().map(|a| Some(a.alerta.tipo.to_string())).collect(),
        alerts.iter().map(|a| Some(a.alerta.cnpj.clone())).collect(),
        alerts.iter().map(|a| a.alerta.razao_social.clone()).collect(),
        none(),
        alerts.iter().map(|a| Some(a.estado.name().to_string())).collect(),
        alerts.iter().map(|a| Some(a.aberta_em.clone())).collect(),
        alerts.iter().map(|a| a.resolvida_em.clone()).collect(),
        alerts.iter().map(|a| a.motivo.clone()).collect(),
        alerts.iter().map(|a| serde_json::to_string(&a.alerta.watchlists).ok()).collect(),
        none(),
        alerts.iter().map(|a| Some(a.alerta.severidade.name().to_string())).collect(),
        alerts.iter().map(|a| a.atualizacao.clone()).collect(),
        alerts.iter().map(|a| Some(a.reenviada.to_string())).collect(),
        alerts.iter().map(|a| serde_json::to_string(&a.alerta.gatilhos).ok()).collect(),
    ];
    let columns =
        COLUMNS.iter().zip(texts).map(|(name, values)| Column::new((*name).into(), values)).collect();
    DataFrame::new(alerts.len(), columns)
}

/// The alerts of a snapshot as the store kept them; rows of a rule kind this binary does not
/// know are left out. Per-row alerts of a store written before alerts were grouped are folded
/// into one per rule and company (`fold_rows`).
pub(crate) fn from_frame(df: &DataFrame) -> PolarsResult<Vec<TrackedAlert>> {
    let cols: Vec<Vec<Option<String>>> =
        COLUMNS.iter().map(|c| strings(df, c)).collect::<PolarsResult<_>>()?;
    let snapshot = strings(df, "snapshot")?;
    let (mut out, mut rows) = (Vec::new(), Vec::new());
    for i in 0..df.height() {
        let at = |k: usize| cols[k][i].clone();
        let (Some(regra), Some(kind), Some(cnpj), Some(estado), Some(aberta_em)) = (
            at(0),
            at(1).and_then(|t| RuleKind::parse(&t)),
            at(2),
            at(5).and_then(|e| Estado::parse(&e)),
            at(6),
        ) else {
            continue;
        };
        let json = |k: usize| at(k).and_then(|v| serde_json::from_str::<serde_json::Value>(&v).ok());
        let mut alerta = Alert {
            regra,
            tipo: kind.name(),
            severidade: at(11).and_then(|s| Severidade::parse(&s)).unwrap_or_default(),
            cnpj,
            razao_social: at(3),
            snapshot: snapshot[i].clone(),
            snapshot_anterior: None,
            watchlists: json(9).and_then(|l| serde_json::from_value(l).ok()).unwrap_or_default(),
            gatilhos: Vec::new(),
        };
        let (resolvida_em, motivo) = (at(7), at(8));
        match json(14).and_then(|g| serde_json::from_value::<Vec<Gatilho>>(g).ok()) {
            Some(gatilhos) => {
                alerta.gatilhos = gatilhos;
                out.push(TrackedAlert {
                    alerta,
                    estado,
                    aberta_em,
                    resolvida_em,
                    motivo,
                    atualizacao: at(12),
                    reenviada: at(13).as_deref() == Some("true"),
                    carried_from_run: false,
                });
            }
            None => {
                let Some(assunto) = at(4) else { continue };
                let valores: BTreeMap<String, serde_json::Value> =
                    json(10).and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
                let assunto = read_subject(kind, &valores, assunto);
                rows.push(RowAlert { alerta, assunto, valores, estado, aberta_em, resolvida_em, motivo });
            }
        }
    }
    out.extend(fold_rows(rows));
    in_order(&mut out);
    Ok(out)
}

/// How many alerts are in each state.
pub(crate) fn count_by_state(alerts: &[TrackedAlert]) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for a in alerts {
        *counts.entry(a.estado.name()).or_default() += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::monitor::judge::{Holding, track};
    use crate::monitor::rules::Rules;
    use crate::store::StoreRoot;
    use crate::store::delta::TableRef;

    /// `alertas` of `snapshot` as a store kept them before alerts were grouped: the eleven
    /// columns of then, one row per rule, company and inscription (`regra`, `cnpj`, `numero`,
    /// `estado`, `aberta_em`).
    type Row<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

    fn per_row(snapshot: &str, rows: &[Row<'_>]) -> DataFrame {
        let col =
            |f: &dyn Fn(&Row<'_>) -> Option<String>| -> Vec<Option<String>> { rows.iter().map(f).collect() };
        let valores = |n: &str| {
            format!(
                r#"{{"chave":"{n}","mudanca":"nova inscrição","tabela":"dividas_pgfn","valor_anterior":null,"valor_novo":"1500.00","variacao":"1500.00"}}"#
            )
        };
        let columns = vec![
            Column::new("regra".into(), col(&|r| Some(r.0.to_string()))),
            Column::new("tipo".into(), col(&|_| Some("nova_inscricao".into()))),
            Column::new("cnpj".into(), col(&|r| Some(r.1.to_string()))),
            Column::new("razao_social".into(), col(&|_| Some("EMPRESA".into()))),
            Column::new("assunto".into(), col(&|r| Some(r.2.to_string()))),
            Column::new("estado".into(), col(&|r| Some(r.3.to_string()))),
            Column::new("aberta_em".into(), col(&|r| Some(r.4.to_string()))),
            Column::new("resolvida_em".into(), col(&|r| (r.3 == "resolvida").then(|| snapshot.to_string()))),
            Column::new(
                "motivo".into(),
                col(&|r| (r.3 == "resolvida").then(|| "a condição deixou de valer".into())),
            ),
            Column::new("listas".into(), col(&|_| Some("[]".into()))),
            Column::new("valores".into(), col(&|r| Some(valores(r.2)))),
            Column::new("snapshot".into(), col(&|_| Some(snapshot.to_string()))),
        ];
        DataFrame::new(rows.len(), columns).unwrap()
    }

    fn fired(regra: &str, cnpj: &str, numeros: &[&str]) -> Alert {
        let trigger = |n: &str| {
            let valores = [("chave".to_string(), serde_json::Value::from(n))].into();
            Gatilho::new(
                RuleKind::NovaInscricao.subject(&valores),
                valores,
                Some("1500.00".into()),
                None,
                "202609",
            )
        };
        Alert {
            regra: regra.into(),
            tipo: "nova_inscricao",
            severidade: Severidade::Alta,
            cnpj: cnpj.into(),
            razao_social: Some("EMPRESA".into()),
            snapshot: Some("202609".into()),
            snapshot_anterior: Some("202608".into()),
            watchlists: vec![],
            gatilhos: numeros.iter().map(|n| trigger(n)).collect(),
        }
    }

    /// A store whose `alertas` were written per row (before alerts were grouped) is read folded:
    /// its open alerts stay open and are not sent again by the next run, which writes grouped
    /// alerts into the same table; both snapshots read back.
    #[tokio::test]
    async fn a_store_of_per_row_alerts_is_read_folded_and_its_open_alerts_are_not_sent_again() {
        let dir = tempfile::tempdir().unwrap();
        let table = TableRef {
            name: "alertas",
            root: StoreRoot::Local(dir.path().to_path_buf()),
            partition: "snapshot",
        };
        let (a, b, c) = ("11222333000181", "19492317000110", "33000167000101");
        let old = per_row(
            "202608",
            &[
                ("nova", a, "X1", "aberta", "202607"),
                ("nova", a, "X2", "nova", "202608"),
                ("nova", a, "X0", "resolvida", "202606"),
                ("nova", b, "Y1", "resolvida", "202607"),
                ("nova", c, "Z1", "nova", "202608"),
            ],
        );
        let v1 = table.replace(&old, &BTreeSet::from(["202608".into()])).await.unwrap();
        let read = |v: u64, s: &'static str| {
            let table = table.clone();
            async move { table.read(v, &BTreeSet::from([s.to_string()])).await.unwrap().unwrap() }
        };
        let before = from_frame(&read(v1, "202608").await).unwrap();
        let of = |alerts: &[TrackedAlert], cnpj: &str| {
            alerts.iter().find(|x| x.alerta.cnpj == cnpj).cloned().unwrap()
        };
        assert_eq!(before.len(), 3, "one alert per rule and company: {before:?}");
        let folded = of(&before, a);
        assert_eq!((folded.estado, folded.aberta_em.as_str()), (Estado::Aberta, "202607"));
        let subjects: Vec<&str> = folded.alerta.gatilhos.iter().map(|g| g.assunto.as_str()).collect();
        assert_eq!(subjects, ["X1", "X2"], "the open rows are its triggers, the resolved one is not");
        assert_eq!(folded.alerta.gatilhos[0].valor.as_deref(), Some("1500.00"));
        assert_eq!(of(&before, b).estado, Estado::Resolvida);
        assert_eq!((of(&before, c).estado, of(&before, c).aberta_em.as_str()), (Estado::Nova, "202608"));

        // The next run: a's inscriptions fire again, with one more; c's still holds unfired;
        // b's inscription is new again.
        let rules = Rules::parse(
            "[[regra]]\nnome = \"nova\"\ntipo = \"nova_inscricao\"\nseveridade = \"alta\"\n",
            std::path::Path::new("r.toml"),
        )
        .unwrap();
        let now = Holding {
            present: Some([a, b, c].map(str::to_string).into()),
            inscriptions: Some(
                [(a, "X1"), (a, "X2"), (a, "X3"), (b, "Y1"), (c, "Z1")]
                    .map(|(c, n)| ((c.to_string(), n.to_string()), false))
                    .into(),
            ),
            ..Holding::default()
        };
        let fired = vec![fired("nova", a, &["X1", "X2", "X3"]), fired("nova", b, &["Y1"])];
        let judged = track(Some(&rules), fired, before, &now, "202609");
        let (ja, jb, jc) = (of(&judged, a), of(&judged, b), of(&judged, c));
        assert_eq!(
            (ja.estado, ja.aberta_em.as_str(), ja.atualizacao.as_deref()),
            (Estado::Aberta, "202607", Some("+1 inscrição"))
        );
        assert!(!ja.is_sent(), "open in the older store: not sent again");
        assert_eq!((jc.estado, jc.aberta_em.as_str()), (Estado::Aberta, "202608"));
        assert!(!jc.is_sent());
        assert_eq!(jb.estado, Estado::Nova, "resolved in the older store, fired again: new");
        assert!(judged.iter().all(|x| x.alerta.severidade == Severidade::Alta), "the rule's severity");

        // The grouped alerts go into the same table, which takes their columns; both read back.
        let mut grouped = to_frame(&judged).unwrap();
        grouped.with_column(Column::new("snapshot".into(), vec!["202609"; judged.len()])).unwrap();
        let v2 = table.replace(&grouped, &BTreeSet::from(["202609".into()])).await.unwrap();
        let again = from_frame(&read(v2, "202609").await).unwrap();
        let strip = |xs: Vec<TrackedAlert>| {
            xs.into_iter()
                .map(|x| TrackedAlert { alerta: Alert { snapshot_anterior: None, ..x.alerta }, ..x })
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(again), strip(judged));
        assert_eq!(from_frame(&read(v2, "202608").await).unwrap().len(), 3, "the older snapshot still folds");
    }
}
