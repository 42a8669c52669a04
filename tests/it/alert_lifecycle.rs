//! Alerts with a lifecycle, one per rule and company: five monthly runs of the embedded registry
//! into one store, with watch rules and a webhook. A company whose rule starts to hold in month 2
//! and holds no more in month 5 (found on the dataset's truth) has an alert that is new in 2,
//! open and not sent again in 3 and 4, and resolved in 5: in the store's `alertas` table, in
//! `alertas.jsonl`, in both reports and in the posts a local receiver counts. Every other alert
//! of the portfolio follows the lifecycle the truth gives, month by month, with exactly the
//! triggers the truth gives (new ones on an open alert are an update, not sent again), for
//! three kinds of rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::simulator::dataset::RecordsTruth;
use fiscal_report::simulator::{Dataset, RegistryConfig};

use super::alerts::{exposure_cents as exposure, receiver};
use super::changes::estimated_standing;
use super::common_bin::bin;

const SCALE: f64 = 1.0;
const MONTHS: [&str; 12] = [
    "202510", "202511", "202512", "202601", "202602", "202603", "202604", "202605", "202606", "202607",
    "202608", "202609",
];
/// Runs in a window: months 1 to 5 of the issue.
const WINDOW: usize = 5;

const DEBT: &str = "nova inscrição";
const STANDING: &str = "regularidade piorou";
const EXPOSURE: &str = "exposição cresceu";
/// R$ 1.000,00: the exposure rule's least growth in R$ (its % is picked on the truth).
const EXPOSURE_MIN_CENTS: i64 = 100_000;
/// The exposure rule's percentages tried, until one gives an alert the test can follow.
const EXPOSURE_PCTS: [i64; 8] = [10, 5, 15, 20, 25, 30, 40, 50];

fn rules(pct: i64) -> String {
    format!(
        r#"
[[regra]]
nome = "{DEBT}"
tipo = "nova_inscricao"
valor_minimo = 0

[[regra]]
nome = "{STANDING}"
tipo = "regularidade_piorou"

[[regra]]
nome = "{EXPOSURE}"
tipo = "aumento_exposicao"
percentual_minimo = {pct}
valor_minimo = 1000
"#
    )
}

/// (rule, CNPJ): an alert's identity.
type Id = (String, String);
/// An alert as the truth gives it in one month: its state and its triggers' subjects.
type State = (&'static str, BTreeSet<String>);

fn dataset_at(m: &str) -> Dataset {
    Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE).as_of(AnoMes::parse(m).unwrap()).unwrap()
}

fn severity(t: &RecordsTruth) -> i64 {
    match estimated_standing(t) {
        "sem inscrições" => 0,
        "positiva com efeitos de negativa" => 1,
        _ => 2,
    }
}

fn grown(base: i64, now: i64, pct: i64) -> bool {
    let grew = now - base;
    grew >= EXPOSURE_MIN_CENTS && (base == 0 || grew * 100 >= pct * base)
}

/// The alerts of each run over `months` (records of `cnpjs` at each), by the lifecycle's rule
/// applied to the truth. A rule fires a trigger on a change between two months. An alert (rule
/// and company) keeps each trigger that fires again or whose condition still holds, takes the
/// new ones, and is new when it was not open, open while it keeps a trigger, resolved when it
/// keeps none (showing the triggers it held last). Each trigger keeps what it was measured from
/// (the standing fallen from, the exposure).
fn lifecycle_truth(
    months: &[Vec<Option<RecordsTruth>>],
    cnpjs: &[Cnpj],
    pct: i64,
) -> Vec<BTreeMap<Id, State>> {
    let id = |r: &str, c: &Cnpj| (r.to_string(), c.as_str().to_string());
    let mut open: BTreeMap<Id, BTreeMap<String, i64>> = BTreeMap::new();
    let mut out = vec![BTreeMap::new()];
    for k in 1..months.len() {
        let mut fired: BTreeMap<Id, BTreeMap<String, i64>> = BTreeMap::new();
        for (i, c) in cnpjs.iter().enumerate() {
            let (Some(b), Some(a)) = (&months[k - 1][i], &months[k][i]) else { continue };
            for (numero, d) in &a.dividas {
                if !b.dividas.contains_key(numero) && d.valor_cents.is_some() {
                    fired.entry(id(DEBT, c)).or_default().insert(numero.clone(), 0);
                }
            }
            if severity(a) > severity(b) {
                fired.entry(id(STANDING, c)).or_default().insert(c.as_str().to_string(), severity(b));
            }
            if grown(exposure(b), exposure(a), pct) {
                fired.entry(id(EXPOSURE, c)).or_default().insert("exposicao".into(), exposure(b));
            }
        }
        let holds = |(rule, cnpj): &Id, subject: &str, basis: i64| {
            let i = cnpjs.iter().position(|c| c.as_str() == cnpj).unwrap();
            let Some(a) = &months[k][i] else { return false };
            match rule.as_str() {
                DEBT => a.dividas.contains_key(subject),
                STANDING => severity(a) > basis,
                _ => grown(basis, exposure(a), pct),
            }
        };
        let was_open = std::mem::take(&mut open);
        let ids: BTreeSet<Id> = fired.keys().chain(was_open.keys()).cloned().collect();
        let mut now = BTreeMap::new();
        for alert in ids {
            let fresh = fired.get(&alert).cloned().unwrap_or_default();
            let Some(was) = was_open.get(&alert) else {
                now.insert(alert.clone(), ("nova", fresh.keys().cloned().collect()));
                open.insert(alert, fresh);
                continue;
            };
            let mut kept: BTreeMap<String, i64> = BTreeMap::new();
            for (subject, basis) in &fresh {
                kept.insert(subject.clone(), *was.get(subject).unwrap_or(basis));
            }
            for (subject, basis) in was {
                if !fresh.contains_key(subject) && holds(&alert, subject, *basis) {
                    kept.insert(subject.clone(), *basis);
                }
            }
            if kept.is_empty() {
                now.insert(alert, ("resolvida", was.keys().cloned().collect()));
            } else {
                now.insert(alert.clone(), ("aberta", kept.keys().cloned().collect()));
                open.insert(alert, kept);
            }
        }
        out.push(now);
    }
    out
}

/// The states of alert `id` month by month.
fn states_of(truth: &[BTreeMap<Id, State>], id: &Id) -> Vec<Option<&'static str>> {
    truth.iter().map(|t| t.get(id).map(|s| s.0)).collect()
}

/// The first window of five months and portfolio company with an alert, by the truth's
/// lifecycle, that is new in the window's second month, open in its third and fourth and
/// resolved in its fifth, the company known all five months; and the exposure rule's % that
/// gives it (the synthetic debts rarely end, exposures move more).
fn find_case(datasets: &[Dataset], candidates: &[Cnpj]) -> (usize, Id, i64) {
    let wanted = [None, Some("nova"), Some("aberta"), Some("aberta"), Some("resolvida")];
    // Company first: each company's twelve months are read once, and only until a case is found.
    for c in candidates {
        let months: Vec<Option<RecordsTruth>> = datasets.iter().map(|d| d.records_truth(c)).collect();
        for (pct, start) in
            EXPOSURE_PCTS.iter().flat_map(|p| (0..=MONTHS.len() - WINDOW).map(move |s| (*p, s)))
        {
            let seen: Vec<Vec<Option<RecordsTruth>>> =
                months[start..start + WINDOW].iter().map(|r| vec![r.clone()]).collect();
            if seen.iter().any(|m| m[0].is_none()) {
                continue;
            }
            let truth = lifecycle_truth(&seen, std::slice::from_ref(c), pct);
            let ids: BTreeSet<&Id> = truth.iter().flat_map(|t| t.keys()).collect();
            if let Some(id) = ids.into_iter().find(|id| states_of(&truth, id) == wanted) {
                return (start, id.clone(), pct);
            }
        }
    }
    panic!(
        "the dataset has no alert that opens in a month and ends three later: the test would prove nothing"
    );
}

fn run_month(dir: &Path, m: &str, hook: &str) -> PathBuf {
    let out = dir.join(format!("out-{m}"));
    let o = bin()
        .args(["--quiet", "run", "--uf", "SP", "--as-of", m, "--ano-mes", m])
        .arg("--cnpjs")
        .arg(dir.join("carteira.txt"))
        .arg("--store")
        .arg(dir.join("store"))
        .arg("--rules")
        .arg(dir.join("regras.toml"))
        .args(["--notify-webhook", hook])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{m}: {}", String::from_utf8_lossy(&o.stderr));
    out
}

/// One alert as a run wrote it: its identity, state, when it opened and was resolved, its
/// update, and its triggers' subjects.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Written {
    id: Id,
    estado: String,
    aberta_em: String,
    resolvida_em: Option<String>,
    atualizacao: Option<String>,
    subjects: BTreeSet<String>,
}

fn written_of(v: &serde_json::Value, gatilhos: &serde_json::Value) -> Written {
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    let triggers = gatilhos.as_array().expect("an alert lists its triggers");
    Written {
        id: (s("regra"), s("cnpj")),
        estado: s("estado"),
        aberta_em: s("aberta_em"),
        resolvida_em: v["resolvida_em"].as_str().map(str::to_string),
        atualizacao: v["atualizacao"].as_str().map(str::to_string),
        subjects: triggers.iter().map(|g| g["assunto"].as_str().unwrap().to_string()).collect(),
    }
}

fn written_of_json(v: &serde_json::Value) -> Written {
    written_of(v, &v["gatilhos"])
}

fn jsonl(out: &Path) -> BTreeSet<Written> {
    let text = std::fs::read_to_string(out.join("alertas.jsonl")).unwrap();
    text.lines().map(|l| written_of_json(&serde_json::from_str(l).unwrap())).collect()
}

/// The store's `alertas` rows of snapshot `m`, read from its committed Delta version.
fn store_alerts(store: &Path, m: &str) -> BTreeSet<Written> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let df = rt.block_on(async {
        let (reader, snapshots) = fiscal_report::store::StoreReader::committed(store).await.unwrap();
        assert!(snapshots.contains(m), "the store has snapshot {m}");
        reader.read("alertas", &BTreeSet::from([m.to_string()])).await.unwrap()
    });
    let Some(df) = df else { return BTreeSet::new() };
    let col = |n: &str| -> Vec<Option<String>> {
        df.column(n).unwrap().str().unwrap().iter().map(|v| v.map(str::to_string)).collect()
    };
    let names =
        ["regra", "cnpj", "estado", "aberta_em", "resolvida_em", "atualizacao", "gatilhos", "snapshot"];
    let cols: Vec<Vec<Option<String>>> = names.iter().map(|n| col(n)).collect();
    (0..df.height())
        .map(|i| {
            assert_eq!(cols[7][i].as_deref(), Some(m));
            let row: serde_json::Map<String, serde_json::Value> =
                names.iter().zip(&cols).map(|(n, c)| (n.to_string(), c[i].clone().into())).collect();
            let gatilhos: serde_json::Value = serde_json::from_str(cols[6][i].as_deref().unwrap()).unwrap();
            written_of(&serde_json::Value::Object(row), &gatilhos)
        })
        .collect()
}

/// The part of `text` from `start` to the next of `ends` (or its end); empty when `start` is absent.
fn section<'a>(text: &'a str, start: &str, ends: &[&str]) -> &'a str {
    let Some(at) = text.find(start) else { return "" };
    let rest = &text[at + start.len()..];
    let end = ends.iter().filter_map(|e| rest.find(e)).min().unwrap_or(rest.len());
    &rest[..end]
}

/// The case followed, as `find_case` found it on the truth (the dataset is deterministic): this
/// company's alert of this rule, new in 202603, open in 202604 and 202605, resolved in 202606,
/// with the exposure rule at 10%. Pinned, so the test does not search thousands of companies on
/// every run; the test checks it still has that shape and, if the dataset moved, names a new one.
const CASE_START: usize = 4;
const CASE_RULE: &str = DEBT;
const CASE_CNPJ: &str = "22282759000147";
const CASE_PCT: i64 = 10;

/// The pinned case, after checking on the truth that it still opens in the window's second
/// month and ends in its fifth; a search for another when it no longer does.
fn pinned_case(in_window: &[Dataset]) -> (usize, Id, i64) {
    let id: Id = (CASE_RULE.to_string(), CASE_CNPJ.to_string());
    let chosen = Cnpj::parse(CASE_CNPJ).unwrap();
    let seen: Vec<Vec<Option<RecordsTruth>>> =
        in_window.iter().map(|d| vec![d.records_truth(&chosen)]).collect();
    let truth = lifecycle_truth(&seen, std::slice::from_ref(&chosen), CASE_PCT);
    let states = states_of(&truth, &id);
    if states == [None, Some("nova"), Some("aberta"), Some("aberta"), Some("resolvida")] {
        return (CASE_START, id, CASE_PCT);
    }
    let datasets: Vec<Dataset> = MONTHS.iter().map(|m| dataset_at(m)).collect();
    let candidates = datasets[MONTHS.len() - 1].demo_portfolio(4000);
    let (start, found, pct) = find_case(&datasets, &candidates);
    panic!(
        "the pinned case no longer has its shape ({states:?}): the dataset changed. Pin this one: \
         CASE_START = {start} ({}), {found:?}, CASE_PCT = {pct}",
        MONTHS[start]
    );
}

#[test]
fn an_alert_is_new_once_open_without_being_resent_and_resolved_when_its_condition_ends() {
    let dir = tempfile::tempdir().unwrap();
    let window = &MONTHS[CASE_START..CASE_START + WINDOW];
    let in_window: Vec<Dataset> = window.iter().map(|m| dataset_at(m)).collect();
    let (_, the_alert, pct) = pinned_case(&in_window);
    let candidates = dataset_at(MONTHS[MONTHS.len() - 1]).demo_portfolio(4000);
    let chosen = Cnpj::parse(&the_alert.1).unwrap();
    // The chosen company and seven others the window knows throughout.
    let mut cnpjs = vec![chosen.clone()];
    cnpjs.extend(
        candidates
            .iter()
            // Known all five months, with few enough inscriptions that every post lists all
            // its alerts (a post lists 50 and counts the rest).
            .filter(|c| {
                **c != chosen
                    && in_window.iter().all(|d| d.records_truth(c).is_some_and(|t| t.dividas.len() <= 20))
            })
            .take(7)
            .cloned(),
    );
    let text: Vec<String> = cnpjs.iter().map(|c| c.to_string()).collect();
    std::fs::write(dir.path().join("carteira.txt"), text.join("\n")).unwrap();
    std::fs::write(dir.path().join("regras.toml"), rules(pct)).unwrap();

    let hook = receiver();
    let outs: Vec<PathBuf> = window.iter().map(|m| run_month(dir.path(), m, &hook.url)).collect();

    let records: Vec<Vec<Option<RecordsTruth>>> =
        in_window.iter().map(|d| cnpjs.iter().map(|c| d.records_truth(c)).collect()).collect();
    let truth = lifecycle_truth(&records, &cnpjs, pct);
    let states = states_of(&truth, &the_alert);
    assert_eq!(states, [None, Some("nova"), Some("aberta"), Some("aberta"), Some("resolvida")]);

    // Store and alertas.jsonl: every alert of every month as the truth's lifecycle gives it.
    let store = dir.path().join("store");
    let mut opened_at: BTreeMap<Id, String> = BTreeMap::new();
    for (k, m) in window.iter().enumerate() {
        let kept = store_alerts(&store, m);
        let got: BTreeMap<Id, (String, BTreeSet<String>)> =
            kept.iter().map(|w| (w.id.clone(), (w.estado.clone(), w.subjects.clone()))).collect();
        let want: BTreeMap<Id, (String, BTreeSet<String>)> =
            truth[k].iter().map(|(i, s)| (i.clone(), (s.0.to_string(), s.1.clone()))).collect();
        assert_eq!(got, want, "{m}: the store's alerts and their triggers against the truth's");
        // An open alert that took triggers it did not have says so (an update).
        for w in &kept {
            let had = k.checked_sub(1).and_then(|p| truth[p].get(&w.id)).filter(|s| s.0 != "resolvida");
            let new = had.map(|s| w.subjects.difference(&s.1).count()).unwrap_or(0);
            let update = (w.estado == "aberta" && new > 0).then_some(new);
            let said = w.atualizacao.as_deref().map(|u| u.split(' ').next().unwrap().to_string());
            assert_eq!(said, update.map(|n| format!("+{n}")), "{m}: {w:?}");
        }
        assert_eq!(jsonl(&outs[k]), kept, "{m}: alertas.jsonl holds the store's alerts");
        for w in &kept {
            if w.estado == "nova" {
                opened_at.insert(w.id.clone(), m.to_string());
            }
            assert_eq!(Some(&w.aberta_em), opened_at.get(&w.id), "{m}: {w:?} opened when it was new");
            let resolved = (w.estado == "resolvida").then(|| m.to_string());
            assert_eq!(w.resolvida_em, resolved, "{m}: {w:?}");
        }
    }
    let kinds: BTreeSet<&str> = truth.iter().flat_map(|t| t.keys().map(|i| i.0.as_str())).collect();
    assert!(kinds.len() >= 2, "the window's alerts come from one rule only: {kinds:?}");

    // The webhook: one post for each month with new or resolved alerts, carrying exactly those;
    // the chosen alert is sent in month 2 (new) and month 5 (resolved), not in 3 or 4.
    let sending: Vec<usize> =
        (0..WINDOW).filter(|k| truth[*k].values().any(|s| s.0 == "nova" || s.0 == "resolvida")).collect();
    let posts = hook.got.lock().unwrap().clone();
    assert_eq!(posts.len(), sending.len(), "posts: one per month with new or resolved alerts");
    let mut sent_chosen = Vec::new();
    for ((_, body), k) in posts.iter().zip(&sending) {
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        let listed: BTreeMap<Id, String> = body["alertas"]
            .as_array()
            .unwrap()
            .iter()
            .map(written_of_json)
            .map(|w| (w.id, w.estado))
            .collect();
        let want: BTreeMap<Id, String> = truth[*k]
            .iter()
            .filter(|(_, s)| s.0 != "aberta")
            .map(|(i, s)| (i.clone(), s.0.to_string()))
            .collect();
        assert_eq!(body["alertas_omitidos"], 0, "{}", window[*k]);
        assert_eq!(body["total_alertas"], want.len(), "{}", window[*k]);
        assert_eq!(listed, want, "{}: the post carries the new and resolved alerts only", window[*k]);
        let open = truth[*k].values().filter(|s| s.0 == "aberta").count();
        assert_eq!(body["ainda_abertos"], open, "{}", window[*k]);
        if let Some(s) = listed.get(&the_alert) {
            sent_chosen.push((window[*k], s.clone()));
        }
    }
    assert_eq!(sent_chosen, [(window[1], "nova".into()), (window[4], "resolvida".into())]);

    // Both reports list it under new in 2, still open in 3 and 4, resolved in 5: its rule in
    // its company's block of that state's section.
    let d = &the_alert.1;
    let shown = format!("{}.{}.{}/{}-{}", &d[..2], &d[2..5], &d[5..8], &d[8..12], &d[12..]);
    // Whether a state's section lists the alert: the block of its company (a block opens with
    // `open`) names its rule (`rule`).
    let lists = |section: &str, open: &str, rule: &str| {
        section.split(open).any(|block| block.contains(&shown) && block.contains(rule))
    };
    let headings = [
        ("#### Alertas novos neste retrato", "<h4 id=\"alertas-novos\">"),
        ("#### Alertas ainda abertos (não reenviados)", "<h4 id=\"alertas-abertos\">"),
        ("#### Alertas resolvidos neste retrato", "<h4 id=\"alertas-resolvidos\">"),
    ];
    let want_section = [None, Some(0), Some(1), Some(1), Some(2)];
    let sections_hold = |how: &str| {
        for (k, want) in want_section.iter().enumerate() {
            let md = std::fs::read_to_string(outs[k].join("report.md")).unwrap();
            let html = std::fs::read_to_string(outs[k].join("report.html")).unwrap();
            for (h, (md_heading, html_heading)) in headings.iter().enumerate() {
                let md_rule = format!("- **{}**", the_alert.0);
                let in_md = lists(section(&md, md_heading, &["\n#### ", "\n### "]), "\n**[", &md_rule);
                let html_rule = format!("<td>{}", the_alert.0);
                let in_html =
                    lists(section(&html, html_heading, &["</table>"]), "<tr class=\"group\">", &html_rule);
                assert_eq!(in_md, *want == Some(h), "{} report.md {how}, {md_heading}", window[k]);
                assert_eq!(in_html, *want == Some(h), "{} report.html {how}, {html_heading}", window[k]);
            }
        }
    };
    sections_hold("as run");
    // The report but for the run's id and when it was made (a re-render is a run of its own).
    let report_of = |k: usize| {
        let md = std::fs::read_to_string(outs[k].join("report.md")).unwrap();
        let lines = md.lines().filter(|l| !l.starts_with("| Execução |"));
        lines.map(|l| l.split(" · gerado em ").next().unwrap_or(l)).collect::<Vec<_>>().join("\n")
    };
    let as_run: Vec<String> = (0..WINDOW).map(report_of).collect();

    // Each month re-rendered (`report --from`, the same rules, webhook and --fail-on-alert),
    // against the store as its run left it (a later month's run has committed since): the same
    // report (changes, alerts' states, series) as the run, nothing sent again, nobody paged again.
    let posts = hook.got.lock().unwrap().len();
    for (k, m) in window.iter().enumerate() {
        let o = bin()
            .args(["--quiet", "report", "--from"])
            .arg(&outs[k])
            .arg("--rules")
            .arg(dir.path().join("regras.toml"))
            .args(["--notify-webhook", &hook.url, "--fail-on-alert"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{m}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(jsonl(&outs[k]), store_alerts(&store, m), "{m}: alertas.jsonl re-rendered");
        // The manifest names each file once, as it is now (the series written again included).
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(outs[k].join("manifest.json")).unwrap()).unwrap();
        let files = manifest["files"].as_array().unwrap();
        let paths: BTreeSet<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
        assert_eq!(paths.len(), files.len(), "{m}: a file listed twice");
        assert!(k == 0 || paths.iter().any(|p| p.starts_with("historico/")), "{m}: the series: {paths:?}");
        for f in files {
            let on_disk = std::fs::metadata(outs[k].join(f["path"].as_str().unwrap())).unwrap().len();
            assert_eq!(Some(on_disk), f["bytes"].as_u64(), "{m}: {f}");
        }
    }
    assert_eq!(hook.got.lock().unwrap().len(), posts, "a re-render posts nothing its run posted");
    sections_hold("re-rendered");
    for (k, m) in window.iter().enumerate() {
        // The store's first snapshot has nothing to compare with.
        let changes = section(&as_run[k], "## O que mudou na carteira", &["\n## "]);
        assert_eq!(changes.contains("| "), k > 0, "{m}: the run's report has its changes");
        let again = report_of(k);
        let differ: Vec<(&str, &str)> =
            as_run[k].lines().zip(again.lines()).filter(|(a, b)| a != b).take(3).collect();
        assert!(
            differ.is_empty() && again.lines().count() == as_run[k].lines().count(),
            "{m}: the re-render's report is the run's: {differ:?}"
        );
    }

    // With the store moved away, a re-render says so, and the run's alerts keep their states.
    let moved = dir.path().join("store-moved");
    std::fs::rename(&store, &moved).unwrap();
    let o = bin()
        .args(["report", "--from"])
        .arg(&outs[2])
        .arg("--rules")
        .arg(dir.path().join("regras.toml"))
        .args(["--notify-webhook", &hook.url])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("cannot be read") && err.contains("without the previous snapshot"), "{err}");
    assert_eq!(jsonl(&outs[2]), store_alerts(&moved, window[2]), "the run's alerts kept without the store");
    assert_eq!(hook.got.lock().unwrap().len(), posts, "and not sent again");
}

/// A partner who enters in one month and leaves some months later, found on the dataset, at a
/// company none of whose other partners enters, leaves or changes qualification meanwhile (so
/// the company's partner alert is this partner's): the company, the partner's key (document
/// and name, as the changes write it), and the months of `MONTHS` it entered and left.
fn partner_case(datasets: &[Dataset]) -> (Cnpj, String, usize, usize) {
    let latest = &datasets[datasets.len() - 1];
    for index in 0..latest.company_count() {
        let cnpj = latest.company_cnpj(index);
        // Each month's partners: key, and key with qualification.
        let partners: Vec<BTreeMap<String, String>> = datasets
            .iter()
            .map(|d| {
                let text = |v: &Option<String>| v.clone().unwrap_or_default();
                d.socios(&cnpj)
                    .unwrap_or_default()
                    .iter()
                    .map(|p| {
                        let key = format!("{} {}", text(&p.cnpj_cpf_socio), text(&p.nome_socio_razao_social));
                        (key, text(&p.qualificacao_socio))
                    })
                    .collect()
            })
            .collect();
        for (entered, now) in partners.iter().enumerate().skip(1) {
            for key in now.keys().filter(|k| !partners[entered - 1].contains_key(*k)) {
                let left = (entered + 1..partners.len()).find(|m| !partners[*m].contains_key(key));
                let Some(left) = left.filter(|l| *l >= entered + 2) else { continue };
                let others = |m: usize| {
                    let mut p = partners[m].clone();
                    p.remove(key);
                    p
                };
                let quiet = (entered - 1..=left).all(|m| others(m) == others(entered - 1))
                    && (entered..left).all(|m| partners[m].get(key) == now.get(key));
                if quiet {
                    return (cnpj, key.clone(), entered, left);
                }
            }
        }
    }
    panic!("the dataset has no partner who enters and leaves two months later: the test would prove nothing");
}

#[test]
fn a_partner_alert_is_new_once_stays_open_unsent_and_takes_the_exit_as_an_update() {
    let datasets: Vec<Dataset> = MONTHS.iter().map(|m| dataset_at(m)).collect();
    let (cnpj, key, entered, left) = partner_case(&datasets);
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("carteira.txt"), cnpj.as_str()).unwrap();
    std::fs::write(
        tmp.path().join("regras.toml"),
        "[[regra]]\nnome = \"socios\"\ntipo = \"mudanca_socios\"\n",
    )
    .unwrap();
    let hook = super::alerts::receiver();
    let (entry, exit) = (format!("sócio entrou|{key}"), format!("sócio saiu|{key}"));
    let mut posted_before = 0;
    for (m, month) in MONTHS.iter().enumerate().take(left + 1).skip(entered - 1) {
        let out = run_month(tmp.path(), month, &hook.url);
        let theirs: Vec<Written> = jsonl(&out).into_iter().filter(|w| w.id.0 == "socios").collect();
        let posts = hook.got.lock().unwrap().iter().filter(|(_, body)| body.contains(&key)).count();
        // New with the entry; open while the partner stays; when it leaves, the entry no longer
        // holds and the exit is a new trigger: still open, an update not sent again.
        let want = match m {
            m if m < entered => None,
            m if m == entered => Some(("nova", [entry.clone()].into(), None)),
            m if m < left => Some(("aberta", [entry.clone()].into(), None)),
            _ => Some(("aberta", [exit.clone()].into(), Some("+1 mudança de sócio".to_string()))),
        };
        let got: Option<(&str, BTreeSet<String>, Option<String>)> =
            theirs.first().map(|w| (w.estado.as_str(), w.subjects.clone(), w.atualizacao.clone()));
        assert_eq!(got, want, "{month}: the alert of {key} at {cnpj}");
        assert!(
            theirs.len() <= 1 && theirs.iter().all(|w| w.aberta_em == MONTHS[entered]),
            "{month}: {theirs:?}"
        );
        // Posted when new, not while it stays open nor for the update.
        assert_eq!(posts > posted_before, m == entered, "{month}: posts naming {key}");
        posted_before = posts;
        assert_eq!(
            store_alerts(&tmp.path().join("store"), month)
                .into_iter()
                .filter(|w| w.id.0 == "socios")
                .collect::<Vec<_>>(),
            theirs
        );
    }
}

#[test]
fn a_head_office_move_alert_is_new_then_stays_open_while_the_company_stays() {
    let datasets: Vec<Dataset> = MONTHS.iter().map(|m| dataset_at(m)).collect();
    let latest = &datasets[datasets.len() - 1];
    let moved = |c: &Cnpj, m: usize| {
        let at = |k: usize| datasets[k].records_truth(c).and_then(|t| t.municipio);
        at(m) != at(m - 1)
    };
    let (cnpj, month) = (0..latest.company_count())
        .map(|i| latest.company_cnpj(i))
        .find_map(|c| (1..MONTHS.len() - 1).find(|m| moved(&c, *m)).map(|m| (c, m)))
        .expect("a head office that moved before the last month");
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("carteira.txt"), cnpj.as_str()).unwrap();
    std::fs::write(
        tmp.path().join("regras.toml"),
        "[[regra]]\nnome = \"endereco\"\ntipo = \"mudanca_endereco\"\n",
    )
    .unwrap();
    let hook = super::alerts::receiver();
    for (m, state) in [(month - 1, None), (month, Some("nova")), (month + 1, Some("aberta"))] {
        let out = run_month(tmp.path(), MONTHS[m], &hook.url);
        let alerts: Vec<Written> = jsonl(&out).into_iter().filter(|w| w.id.0 == "endereco").collect();
        assert!(alerts.len() <= 1, "one alert for the company: {alerts:?}");
        assert_eq!(
            alerts.iter().map(|w| w.estado.as_str()).collect::<Vec<_>>(),
            state.into_iter().collect::<Vec<_>>(),
            "{}",
            MONTHS[m]
        );
        assert!(alerts.iter().all(|w| w.aberta_em == MONTHS[month]), "{alerts:?}");
    }
}
