//! The public lists month by month on a store, against the embedded dataset's own record of who
//! was on which list each month (`Dataset::listas_truth` at each month, `Dataset::as_of`): the
//! dataset's lists move at its latest month (a company enters CEIS, one leaves it, one's
//! sanction ends). Three monthly runs over `--open-data` releases, the middle one without its
//! lists: that month carries the lists before it; the last one's `mudancas` says who entered
//! and left each list, the `lista_restritiva` rule opens its alerts on the first and resolves
//! them when the company leaves, and `store timeline` shows it.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common_bin::bin;
use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

const SCALE: &str = "0.05";
const MONTHS: [&str; 3] = ["202607", "202608", "202609"];

fn dataset_at(month: &str) -> Dataset {
    Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05).as_of(AnoMes::parse(month).unwrap()).unwrap()
}

/// (cnpj, lista) of each company the truth has on a list, by any link.
fn listed(d: &Dataset, portfolio: &[Cnpj]) -> BTreeSet<(String, String)> {
    d.listas_truth(portfolio).into_iter().map(|t| (t.cnpj, t.lista)).collect()
}

/// The companies the truth has with a sanction in force by their CNPJ or root (what the rule
/// watches by default).
fn in_force(d: &Dataset, portfolio: &[Cnpj]) -> BTreeSet<String> {
    let near = |v: &str| v == "cnpj" || v == "raiz";
    d.listas_truth(portfolio).into_iter().filter(|t| t.vigente && near(t.vinculo)).map(|t| t.cnpj).collect()
}

fn texts(df: &DataFrame, column: &str) -> Vec<String> {
    let c = df.column(column).unwrap().cast(&DataType::String).unwrap();
    c.str().unwrap().iter().map(|v| v.unwrap_or_default().to_string()).collect()
}

/// The words of a company's entering (`true`) or leaving a list in `mudancas`: being politically
/// exposed is no sanction, so PEP's are the partner's.
fn wording(entering: bool, lista: &str) -> String {
    match (entering, lista) {
        (true, "PEP") => "sócio passou a ser PEP".to_string(),
        (false, "PEP") => "sócio deixou de ser PEP".to_string(),
        (true, l) => format!("entrou na lista {l}"),
        (false, l) => format!("saiu da lista {l}"),
    }
}

/// The list rows of a run's `mudancas`: (cnpj, mudanca, chave, data_evento).
fn list_changes(out: &Path) -> Vec<(String, String, String, String)> {
    let df = ParquetReader::new(std::fs::File::open(out.join("aggregates/mudancas.parquet")).unwrap())
        .finish()
        .unwrap();
    let [cnpj, mudanca, tabela, chave, data] =
        ["cnpj", "mudanca", "tabela", "chave", "data_evento"].map(|c| texts(&df, c));
    let mut rows: Vec<_> = (0..df.height())
        .filter(|&i| tabela[i] == "sancoes")
        .map(|i| (cnpj[i].clone(), mudanca[i].clone(), chave[i].clone(), data[i].clone()))
        .collect();
    rows.sort();
    rows
}

/// The `lista_restritiva` alerts of a run by state: (estado, cnpj).
fn alerts(out: &Path) -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(out.join("alertas.jsonl")).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|a| a["tipo"] == "lista_restritiva")
        .map(|a| (a["estado"].as_str().unwrap().to_string(), a["cnpj"].as_str().unwrap().to_string()))
        .collect()
}

fn with_state(alerts: &BTreeSet<(String, String)>, estado: &str) -> BTreeSet<String> {
    alerts.iter().filter(|(e, _)| e == estado).map(|(_, c)| c.clone()).collect()
}

#[test]
fn two_months_of_lists_give_their_entries_exits_alerts_and_timeline_as_the_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (first, last) = (dataset_at(MONTHS[0]), dataset_at(MONTHS[2]));
    let mut portfolio: Vec<Cnpj> = first.demo_portfolio(10);
    portfolio.extend(first.listas().targets);
    portfolio.extend(last.listas().targets);
    portfolio.sort();
    portfolio.dedup();
    let cnpjs: Vec<String> = portfolio.iter().map(ToString::to_string).collect();
    std::fs::write(dir.join("carteira.txt"), cnpjs.join("\n")).unwrap();
    std::fs::write(
        dir.join("regras.toml"),
        "[[regra]]\nnome = \"Em lista restritiva\"\ntipo = \"lista_restritiva\"\nseveridade = \"alta\"\n",
    )
    .unwrap();
    let store = dir.join("store");
    let run = |month: &str| {
        let files = dir.join("releases").join(month);
        let o = bin()
            .args(["serve", "--scale", SCALE, "--as-of", month, "--write-open-data"])
            .arg(&files)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if month == MONTHS[1] {
            // A month whose folder holds no list.
            std::fs::remove_dir_all(files.join("listas")).unwrap();
        }
        let out = dir.join("out").join(month);
        let o = bin()
            .args(["--quiet", "run", "--store"])
            .arg(&store)
            .arg("--open-data")
            .arg(&files)
            .arg("--cnpjs")
            .arg(dir.join("carteira.txt"))
            .arg("--rules")
            .arg(dir.join("regras.toml"))
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{month}: {}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let outs: Vec<_> = MONTHS.iter().map(|m| run(m)).collect();

    // The dataset moved between the first and the last month, each way.
    let (before, after) = (listed(&first, &portfolio), listed(&last, &portfolio));
    let entered: BTreeSet<_> = after.difference(&before).cloned().collect();
    let left: BTreeSet<_> = before.difference(&after).cloned().collect();
    assert!(!entered.is_empty() && !left.is_empty(), "the lists moved: {entered:?} {left:?}");

    // The month without lists carries the ones before it: no list change, and it says so.
    assert_eq!(list_changes(&outs[1]), vec![], "a month without lists is not everyone leaving them");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(outs[1].join("manifest.json")).unwrap()).unwrap();
    let warnings = manifest["fetch"]["warnings"].to_string();
    assert!(warnings.contains("no public list was read"), "{warnings}");

    // The last month against the first (carried through the second), as the truth has them.
    let date = {
        let (y, m, d) = last.listas().date;
        format!("{y}-{m:02}-{d:02}")
    };
    let got = list_changes(&outs[2]);
    let kinds = |entering: bool| -> BTreeSet<(String, String)> {
        got.iter().filter(|r| r.1 == wording(entering, &r.2)).map(|r| (r.0.clone(), r.2.clone())).collect()
    };
    assert_eq!(kinds(true), entered, "entries: {got:?}");
    assert_eq!(kinds(false), left, "exits: {got:?}");
    // Each entry and exit in its words (the list's key has no space; an ended record's has).
    for r in got.iter().filter(|r| !r.2.contains(' ')) {
        assert!(r.1 == wording(true, &r.2) || r.1 == wording(false, &r.2), "{r:?}");
        assert_eq!(r.3, date, "dated by the list: {r:?}");
    }
    // A sanction still listed whose end passed: in force by its own CNPJ in the first month's
    // truth, listed and no longer in force in the last's.
    let ended: BTreeSet<(String, String)> = first
        .listas_truth(&portfolio)
        .into_iter()
        .filter(|t| t.vigente)
        .filter(|t| {
            let now = last.listas_truth(&portfolio);
            now.iter().any(|n| (&n.cnpj, &n.lista, &n.sancionado) == (&t.cnpj, &t.lista, &t.sancionado))
                && !now.iter().any(|n| {
                    (&n.cnpj, &n.lista, &n.sancionado, n.vigente) == (&t.cnpj, &t.lista, &t.sancionado, true)
                })
        })
        .map(|t| (t.cnpj, t.lista))
        .collect();
    assert!(!ended.is_empty(), "a sanction ended between the months");
    // A PEP record whose grace period ended is no sanction: its partner left the register's force.
    let vencidas: BTreeSet<(String, String)> = got
        .iter()
        .filter(|r| r.2.contains(' ') && (r.1 == "sanção vencida" || r.1 == wording(false, "PEP")))
        .map(|r| (r.0.clone(), r.2.split(' ').next().unwrap_or_default().to_string()))
        .collect();
    assert_eq!(vencidas, ended, "sanções vencidas: {got:?}");

    // The rule: open from the first month while in force; resolved when it no longer is.
    let (open_first, open_last) = (in_force(&first, &portfolio), in_force(&last, &portfolio));
    let a: Vec<_> = outs.iter().map(|o| alerts(o.as_path())).collect();
    assert!(!open_first.is_empty());
    assert_eq!(with_state(&a[0], "nova"), open_first, "the first month opens them");
    assert_eq!(with_state(&a[1], "aberta"), open_first, "kept open over the carried month");
    assert_eq!(with_state(&a[2], "nova"), open_last.difference(&open_first).cloned().collect());
    assert_eq!(with_state(&a[2], "aberta"), open_first.intersection(&open_last).cloned().collect());
    let resolved: BTreeSet<String> = open_first.difference(&open_last).cloned().collect();
    assert!(!resolved.is_empty());
    assert_eq!(with_state(&a[2], "resolvida"), resolved, "resolved when it leaves");

    // The timeline of a company that left, and of one that entered.
    for (cnpj, lista) in left.iter().chain(&entered) {
        let o = bin()
            .args(["store", "timeline"])
            .arg(&store)
            .args(["--cnpj", cnpj, "--format", "json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let printed: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
        let shown: Vec<(&str, &str)> = printed
            .iter()
            .filter(|p| p["tabela"] == "sancoes" && p["chave"] == lista.as_str())
            .map(|p| (p["mudanca"].as_str().unwrap_or_default(), p["data"].as_str().unwrap_or_default()))
            .collect();
        let kind = wording(after.contains(&(cnpj.clone(), lista.clone())), lista);
        assert_eq!(shown, vec![(kind.as_str(), date.as_str())], "{cnpj}: {printed:?}");
    }

    // `dossie --store` shows the lists of the store's latest snapshot: the company that entered
    // has its list in its dossier; the one that left no longer has it.
    let serve = crate::common_bin::ServeProcess::start("k", RegistryConfig::DEFAULT_SEED, 0.05, &[]);
    let (came, went) = (entered.iter().next().unwrap(), left.iter().next().unwrap());
    let o = bin()
        .args(["dossie", &came.0, &went.0, "--base-url", &serve.base_url, "--api-key", "k", "--store"])
        .arg(&store)
        .arg("--out")
        .arg(dir.join("dossie"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = |c: &str| std::fs::read_to_string(dir.join(format!("dossie/dossies/{c}.md"))).unwrap();
    let lists = |md: &str| {
        md.split("## Sanções e listas").nth(1).unwrap_or("").split("\n## ").next().unwrap_or("").to_string()
    };
    let row = |lista: &str| format!("| {} | ", crate::sancoes_report::list_name(lista));
    assert!(lists(&page(&came.0)).contains(&row(&came.1)), "{}", lists(&page(&came.0)));
    assert!(!lists(&page(&went.0)).contains(&row(&went.1)), "{}", lists(&page(&went.0)));
}
