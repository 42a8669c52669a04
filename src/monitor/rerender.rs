//! The alerts of a re-render (`report --from`) of a finished run, whose alerts were that run's to
//! send: what the run wrote of them (`alertas.jsonl`) is read back here. Judged again against
//! the store the run committed to, the alerts the run had are marked carried (not sent again);
//! with no store to read, the run's alerts keep the states it gave them (`rerendered`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::alerts::Alert;
use super::lifecycle::{Estado, TrackedAlert, dedupe, in_order, opened};
use super::rules::{RuleKind, Rules};

/// The alerts of the re-render of a run's snapshot: `fired`, what `rules` match now, against
/// `run`, the alerts the run wrote.
/// - One the run had, unresolved there, is the run's (its state, since when; carried, not sent).
/// - One the run did not have (a rule added or changed since), or had resolved, is new.
/// - One of the run's that does not fire now stays as the run left it (open and not judged, or
///   resolved that run) while a rule of that name and kind is in the file; it goes with its rule.
pub fn rerendered(rules: &Rules, fired: Vec<Alert>, run: Vec<TrackedAlert>) -> Vec<TrackedAlert> {
    let snapshot = fired.iter().find_map(|a| a.snapshot.clone()).unwrap_or_default();
    let mut before: BTreeMap<_, TrackedAlert> = run.into_iter().map(|a| (a.identity(), a)).collect();
    let mut out = Vec::new();
    for alert in dedupe(fired) {
        let fresh = opened(alert, &snapshot);
        match before.remove(&fresh.identity()) {
            Some(was) if was.estado != Estado::Resolvida => out.push(carried(was)),
            _ => out.push(fresh),
        }
    }
    let has_rule = |a: &TrackedAlert| {
        rules.rules.iter().any(|r| r.nome == a.alerta.regra && r.kind.name() == a.alerta.tipo)
    };
    out.extend(before.into_values().filter(|a| has_rule(a)).map(carried));
    in_order(&mut out);
    out
}

/// `judged` (a re-render's own judgment, against the store its run committed to) with the
/// alerts `run` wrote in the same state marked carried: that run sent them, if at all.
pub fn carried_where_run_had(judged: Vec<TrackedAlert>, run: &[TrackedAlert]) -> Vec<TrackedAlert> {
    let had: std::collections::BTreeSet<_> = run.iter().map(|a| (a.identity(), a.estado)).collect();
    judged.into_iter().map(|a| if had.contains(&(a.identity(), a.estado)) { carried(a) } else { a }).collect()
}

fn carried(was: TrackedAlert) -> TrackedAlert {
    TrackedAlert { carried_from_run: true, ..was }
}

/// One line of `alertas.jsonl`, as `TrackedAlert` writes it.
#[derive(Deserialize)]
struct Line {
    regra: String,
    tipo: String,
    cnpj: String,
    razao_social: Option<String>,
    snapshot: Option<String>,
    snapshot_anterior: Option<String>,
    #[serde(default)]
    listas: Vec<String>,
    #[serde(default)]
    valores: BTreeMap<String, serde_json::Value>,
    estado: String,
    assunto: String,
    aberta_em: String,
    resolvida_em: Option<String>,
    motivo: Option<String>,
}

/// The alerts of an `alertas.jsonl`, and how many of its lines could not be read (not JSON, or
/// a rule kind or state this binary does not know).
pub fn from_jsonl(text: &str) -> (Vec<TrackedAlert>, usize) {
    let mut unread = 0;
    let mut alerts = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Line>(line).ok().and_then(tracked) {
            Some(alert) => alerts.push(alert),
            None => unread += 1,
        }
    }
    (alerts, unread)
}

fn tracked(line: Line) -> Option<TrackedAlert> {
    let alerta = Alert {
        regra: line.regra,
        tipo: RuleKind::parse(&line.tipo)?.name(),
        cnpj: line.cnpj,
        razao_social: line.razao_social,
        snapshot: line.snapshot,
        snapshot_anterior: line.snapshot_anterior,
        listas: line.listas,
        valores: line.valores,
    };
    Some(TrackedAlert {
        assunto: super::lifecycle::read_subject(&alerta, line.assunto),
        alerta,
        estado: Estado::parse(&line.estado)?,
        aberta_em: line.aberta_em,
        resolvida_em: line.resolvida_em,
        motivo: line.motivo,
        carried_from_run: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::alerts::to_jsonl;
    use crate::monitor::lifecycle::all_new;

    fn rules(text: &str) -> Rules {
        Rules::parse(text, std::path::Path::new("r.toml")).unwrap()
    }

    fn debt_alert(regra: &str, numero: &str) -> Alert {
        Alert {
            regra: regra.into(),
            tipo: "nova_inscricao",
            cnpj: "11222333000181".into(),
            razao_social: Some("Empresa".into()),
            snapshot: Some("202603".into()),
            snapshot_anterior: Some("202602".into()),
            listas: vec!["Fornecedores".into()],
            valores: [("chave".to_string(), serde_json::Value::from(numero))].into(),
        }
    }

    fn state(alerts: &[TrackedAlert], numero: &str) -> Option<(Estado, String, bool)> {
        alerts
            .iter()
            .find(|a| a.assunto == numero)
            .map(|a| (a.estado, a.aberta_em.clone(), a.carried_from_run))
    }

    #[test]
    fn a_rerender_keeps_the_states_its_run_gave_and_opens_only_what_the_run_lacked() {
        let r = rules("[[regra]]\nnome = \"nova\"\ntipo = \"nova_inscricao\"\n");
        // What the run wrote: X1 open since 202602, X2 new, X3 resolved, X4 open and not firing
        // (its condition could not be judged), X5 of a rule taken out of the file since.
        let mut run = all_new(vec![debt_alert("nova", "X1"), debt_alert("nova", "X2")], "202603");
        run[0].estado = Estado::Aberta;
        run[0].aberta_em = "202602".into();
        let mut resolved = all_new(vec![debt_alert("nova", "X3")], "202601");
        resolved[0].estado = Estado::Resolvida;
        resolved[0].resolvida_em = Some("202603".into());
        let mut open = all_new(vec![debt_alert("nova", "X4")], "202601");
        open[0].estado = Estado::Aberta;
        run.extend(resolved);
        run.extend(open);
        run.extend(all_new(vec![debt_alert("retirada", "X5")], "202603"));
        let (read, unread) = from_jsonl(&format!("{}not json\n", to_jsonl(&run)));
        assert_eq!(unread, 1);
        assert_eq!(
            read.iter().map(|a| &a.alerta).collect::<Vec<_>>(),
            run.iter().map(|a| &a.alerta).collect::<Vec<_>>()
        );

        let fired = vec![debt_alert("nova", "X1"), debt_alert("nova", "X2"), debt_alert("nova", "X6")];
        let now = rerendered(&r, fired.clone(), read);
        assert_eq!(state(&now, "X1"), Some((Estado::Aberta, "202602".into(), true)));
        assert_eq!(
            state(&now, "X2"),
            Some((Estado::Nova, "202603".into(), true)),
            "new in its run, not sent again"
        );
        assert_eq!(state(&now, "X3"), Some((Estado::Resolvida, "202601".into(), true)));
        assert_eq!(state(&now, "X4"), Some((Estado::Aberta, "202601".into(), true)));
        assert_eq!(state(&now, "X5"), None, "its rule is no longer in the file");
        assert_eq!(state(&now, "X6"), Some((Estado::Nova, "202603".into(), false)), "new to the re-render");
        assert_eq!(now.len(), 5);
        // Rendered again with the same rules, it is what the re-render wrote, all carried.
        let again = rerendered(&r, fired, from_jsonl(&to_jsonl(&now)).0);
        assert_eq!(to_jsonl(&again), to_jsonl(&now));
        assert!(again.iter().all(|a| a.carried_from_run));
    }
}
