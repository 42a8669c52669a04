//! The changes between a store's snapshots (`mudancas`): the embedded registry at M (202608)
//! then M+1 (202609) on one store. The table must equal the diff of the two months' ground
//! truth, built here from the dataset's records in cents, independently of the query; a first
//! run has none. The estimated tax standing must be the documented rule applied to the truth.

use std::collections::BTreeMap;
use std::path::Path;

use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::simulator::dataset::RecordsTruth;
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

use super::common_bin::{bin, python_with};

/// One row of `mudancas` as compared: cnpj, kind, table, key (`numero_inscricao` or
/// `processo`; empty for plans, whose key is two published values), old and new value (words
/// folded to upper case without accents; money in cents), change in cents.
pub(super) type Change = (String, String, String, String, Option<String>, Option<String>, Option<i64>);

fn run(out: &Path, store: &Path, extra: &[&str]) {
    let o = bin()
        .args(["run", "--quiet", "--uf", "SP", "--store"])
        .arg(store)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run the binary");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

pub(super) fn fold(s: &str) -> String {
    let plain: String = s
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'Á' | 'À' | 'Â' | 'Ã' => 'A',
            'é' | 'ê' | 'É' | 'Ê' => 'E',
            'í' | 'Í' => 'I',
            'ó' | 'ô' | 'õ' | 'Ó' | 'Ô' | 'Õ' => 'O',
            'ú' | 'Ú' => 'U',
            'ç' | 'Ç' => 'C',
            c => c,
        })
        .collect();
    plain.split_whitespace().collect::<Vec<_>>().join(" ").to_uppercase()
}

/// Cents of a plain decimal text (`-1234.5`, `12.34`), as the table writes amounts.
fn cents(text: &str) -> i64 {
    let (sign, digits) = text.strip_prefix('-').map_or((1, text), |d| (-1, d));
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let frac = format!("{frac:0<2}");
    sign * (whole.parse::<i64>().unwrap() * 100 + frac[..2].parse::<i64>().unwrap())
}

fn money(c: Option<i64>) -> Option<String> {
    c.map(|c| c.to_string())
}

/// What changed for one company between `b` and `a`, from the truth.
pub(super) fn company_changes(cnpj: &str, b: Option<&RecordsTruth>, a: Option<&RecordsTruth>) -> Vec<Change> {
    let row = |kind: &str, table: &str, key: &str, old: Option<String>, new: Option<String>, delta| {
        (cnpj.to_string(), kind.to_string(), table.to_string(), key.to_string(), old, new, delta)
    };
    let (b, a) = match (b, a) {
        (None, Some(_)) => return vec![row("entrou na carteira", "empresas", cnpj, None, None, None)],
        (Some(_), None) => return vec![row("saiu da carteira", "empresas", cnpj, None, None, None)],
        (Some(b), Some(a)) => (b, a),
        (None, None) => return vec![],
    };
    let mut out = Vec::new();
    let word = |v: &Option<String>| v.as_deref().map(fold).filter(|w| !w.is_empty());
    // The situation is shown with its reason, unless that is 00 (none).
    let situation = |t: &RecordsTruth| {
        let code = word(&t.situacao_cadastral);
        match word(&t.motivo_situacao).filter(|m| m != "00") {
            Some(m) => code.map(|c| format!("{c} (MOTIVO {m})")),
            None => code,
        }
    };
    let reason = |t: &RecordsTruth| word(&t.motivo_situacao).unwrap_or_else(|| "00".into());
    if (word(&b.situacao_cadastral), reason(b)) != (word(&a.situacao_cadastral), reason(a)) {
        out.push(row("situação cadastral alterada", "empresas", cnpj, situation(b), situation(a), None));
    }
    // The street address as the publisher prints it: "RUA X, 123, SALA 4".
    let street = |t: &RecordsTruth| {
        let present =
            |parts: &[String]| parts.iter().filter(|p| !p.trim().is_empty()).cloned().collect::<Vec<_>>();
        let e = &t.endereco;
        if e.len() < 4 {
            return None;
        }
        let named = present(&e[..2]).join(" ");
        let whole = present(&[named, e[2].clone(), e[3].clone()]).join(", ");
        Some(fold(&whole)).filter(|w| !w.is_empty())
    };
    for (kind, before, after) in [
        ("CNAE principal alterado", word(&b.cnae_principal), word(&a.cnae_principal)),
        ("CNAEs secundários alterados", word(&b.cnaes_secundarios), word(&a.cnaes_secundarios)),
        ("sede mudou de município", word(&b.municipio), word(&a.municipio)),
        ("CEP da sede alterado", word(&b.cep), word(&a.cep)),
        ("endereço da sede alterado", street(b), street(a)),
        ("natureza jurídica alterada", word(&b.natureza_juridica), word(&a.natureza_juridica)),
        ("porte alterado", word(&b.porte_empresa), word(&a.porte_empresa)),
    ] {
        if before != after {
            out.push(row(kind, "empresas", cnpj, before, after, None));
        }
    }
    if b.capital_cents != a.capital_cents {
        let amount = |c: Option<i64>| c.map(|c| format!("{}.{:02}", c / 100, c % 100));
        out.push(row(
            "capital social alterado",
            "empresas",
            cnpj,
            amount(b.capital_cents),
            amount(a.capital_cents),
            None,
        ));
    }
    for (name, before, after) in [
        ("Simples", &b.opcao_pelo_simples, &a.opcao_pelo_simples),
        ("MEI", &b.opcao_pelo_mei, &a.opcao_pelo_mei),
    ] {
        if word(before) != word(after) {
            let kind = if word(after).as_deref() == Some("S") {
                format!("entrou no {name}")
            } else {
                format!("saiu do {name}")
            };
            out.push(row(&kind, "empresas", cnpj, word(before), word(after), None));
        }
    }
    let (was, is) = (estimated_standing(b), estimated_standing(a));
    if was != is {
        let severity = |s: &str| {
            ["sem inscrições", "positiva com efeitos de negativa", "irregular"].iter().position(|c| *c == s)
        };
        let kind = if severity(is) > severity(was) {
            "situação fiscal estimada piorou"
        } else {
            "situação fiscal estimada melhorou"
        };
        out.push(row(kind, "situacao_fiscal_estimada", cnpj, Some(fold(was)), Some(fold(is)), None));
    }
    for (numero, d) in &a.dividas {
        let co_debtor = |t: &Option<String>| matches!(t.as_deref(), Some("CORRESPONSAVEL" | "SOLIDARIO"));
        let Some(old) = b.dividas.get(numero) else {
            out.push(row(
                if co_debtor(&d.tipo_devedor) { "nova corresponsabilidade" } else { "nova inscrição" },
                "dividas_pgfn",
                numero,
                None,
                money(d.valor_cents),
                d.valor_cents,
            ));
            continue;
        };
        if let (Some(o), Some(n)) = (old.valor_cents, d.valor_cents)
            && o != n
        {
            out.push(row(
                "valor da inscrição alterado",
                "dividas_pgfn",
                numero,
                money(Some(o)),
                money(Some(n)),
                Some(n - o),
            ));
        }
        if word(&old.situacao_inscricao) != word(&d.situacao_inscricao) {
            let (o, n) = (word(&old.situacao_inscricao), word(&d.situacao_inscricao));
            out.push(row("situação da inscrição alterada", "dividas_pgfn", numero, o, n, None));
        }
        if old.ajuizado != d.ajuizado {
            let yes_no = |v: bool| Some(if v { "SIM" } else { "NAO" }.to_string());
            let kind = if d.ajuizado { "inscrição ajuizada" } else { "ajuizamento retirado" };
            out.push(row(kind, "dividas_pgfn", numero, yes_no(old.ajuizado), yes_no(d.ajuizado), None));
        }
    }
    for (numero, old) in &b.dividas {
        if !a.dividas.contains_key(numero) {
            let gone = old.valor_cents.map(|c| -c);
            let co_debtor = matches!(old.tipo_devedor.as_deref(), Some("CORRESPONSAVEL" | "SOLIDARIO"));
            let kind = if co_debtor { "corresponsabilidade encerrada" } else { "inscrição encerrada" };
            out.push(row(kind, "dividas_pgfn", numero, money(old.valor_cents), None, gone));
        }
    }
    for (key, (nome, _, qualificacao)) in &a.socios {
        match b.socios.get(key) {
            None => out.push(row("sócio entrou", "socios", &fold(key), None, Some(fold(nome)), None)),
            Some((_, _, before)) if before != qualificacao => out.push(row(
                "qualificação do sócio alterada",
                "socios",
                &fold(key),
                Some(fold(before)),
                Some(fold(qualificacao)),
                None,
            )),
            Some(_) => {}
        }
    }
    for (key, (nome, _, _)) in &b.socios {
        if !a.socios.contains_key(key) {
            out.push(row("sócio saiu", "socios", &fold(key), Some(fold(nome)), None, None));
        }
    }
    for (table, kinds, before, after, keyed) in [
        (
            "parcelamentos_rfb",
            ["parcelamento iniciado", "parcelamento encerrado", "saldo do parcelamento alterado"],
            &b.parcelamentos,
            &a.parcelamentos,
            false,
        ),
        (
            "transacoes_rfb",
            ["transação iniciada", "transação encerrada", "saldo da transação alterado"],
            &b.transacoes,
            &a.transacoes,
            true,
        ),
    ] {
        let key = |k: &str| if keyed { k.to_string() } else { String::new() };
        for (k, saldo) in after {
            match before.get(k) {
                None => out.push(row(kinds[0], table, &key(k), None, money(*saldo), *saldo)),
                Some(old) => {
                    if let (Some(o), Some(n)) = (old, saldo)
                        && o != n
                    {
                        out.push(row(
                            kinds[2],
                            table,
                            &key(k),
                            money(Some(*o)),
                            money(Some(*n)),
                            Some(n - o),
                        ));
                    }
                }
            }
        }
        for (k, saldo) in before {
            if !after.contains_key(k) {
                out.push(row(kinds[1], table, &key(k), money(*saldo), None, saldo.map(|c| -c)));
            }
        }
    }
    out
}

/// The `mudancas` rows of a run's output, as compared.
pub(super) fn changes_of(out: &Path) -> (Vec<Change>, DataFrame) {
    let (mut rows, df) = changes_in(&out.join("aggregates/mudancas.parquet"));
    rows.sort();
    (rows, df)
}

/// The rows of a Parquet file of changes (`mudancas`, `historico/linha_do_tempo`), as compared,
/// in the file's order.
pub(super) fn changes_in(file: &Path) -> (Vec<Change>, DataFrame) {
    let df = ParquetReader::new(std::fs::File::open(file).unwrap()).finish().unwrap();
    let text = |name: &str| -> Vec<Option<String>> {
        let c = df.column(name).unwrap().cast(&DataType::String).unwrap();
        c.str().unwrap().iter().map(|v| v.map(str::to_string)).collect()
    };
    let (cnpj, kind, table, key) = (text("cnpj"), text("mudanca"), text("tabela"), text("chave"));
    let (old, new, delta) = (text("valor_anterior"), text("valor_novo"), text("variacao"));
    let mut rows = Vec::new();
    for i in 0..df.height() {
        let t = table[i].clone().unwrap();
        // The public lists' rows and the regimes': `records_truth` knows neither; `listas_monthly`
        // and `regime` compare them with `Dataset::listas_truth` and `Dataset::regime_truth`.
        if t == "sancoes" || t == "regime_carteira" {
            continue;
        }
        let is_money = |k: &str| {
            !k.contains("situação")
                && !k.contains("ajuiza")
                && !k.contains("Simples")
                && !k.contains("MEI")
                && t != "empresas"
                && t != "socios"
        };
        let k = kind[i].clone().unwrap();
        let value = |v: &Option<String>| {
            v.as_deref().map(|v| if is_money(&k) { cents(v).to_string() } else { fold(v) })
        };
        let chave = match t.as_str() {
            "parcelamentos_rfb" => String::new(),
            "socios" => fold(key[i].as_deref().unwrap()),
            _ => key[i].clone().unwrap(),
        };
        rows.push((
            cnpj[i].clone().unwrap(),
            k.clone(),
            t.clone(),
            chave,
            value(&old[i]),
            value(&new[i]),
            delta[i].as_deref().map(cents),
        ));
    }
    (rows, df)
}

#[test]
fn changes_between_two_months_equal_the_diff_of_their_ground_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    run(&tmp.path().join("m"), &store, &["--as-of", "202608"]);
    run(&tmp.path().join("m1"), &store, &[]);

    // The first run on the store has nothing to compare with.
    let (first, first_df) = changes_of(&tmp.path().join("m"));
    assert!(first.is_empty(), "{first:?}");
    assert!(first_df.get_column_names().iter().any(|c| c.as_str() == "snapshot_anterior"));

    let at = |m: &str| {
        Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0).as_of(AnoMes::parse(m).unwrap()).unwrap()
    };
    let (before, after) = (at("202608"), at("202609"));
    let portfolio: Vec<Cnpj> = after.demo_portfolio(200);
    let mut want: Vec<Change> = portfolio
        .iter()
        .flat_map(|c| {
            company_changes(c.as_str(), before.records_truth(c).as_ref(), after.records_truth(c).as_ref())
        })
        .collect();
    want.sort();

    let (got, df) = changes_of(&tmp.path().join("m1"));
    assert_eq!(got.len(), want.len(), "rows of mudancas");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    let snapshots: Vec<_> = ["snapshot", "snapshot_anterior"]
        .iter()
        .map(|c| df.column(c).unwrap().str().unwrap().iter().collect::<std::collections::BTreeSet<_>>())
        .collect();
    assert_eq!(snapshots, [[Some("202609")].into(), [Some("202608")].into()]);

    // The month moved in several ways at once: a test that sees one kind only proves little.
    let kinds: BTreeMap<&str, usize> = want.iter().fold(BTreeMap::new(), |mut m, c| {
        *m.entry(c.1.as_str()).or_default() += 1;
        m
    });
    for kind in [
        "nova inscrição",
        "nova corresponsabilidade",
        "inscrição encerrada",
        "valor da inscrição alterado",
        "parcelamento iniciado",
        "situação fiscal estimada piorou",
        "sócio entrou",
    ] {
        assert!(kinds.contains_key(kind), "no {kind:?} between the two months: {kinds:?}");
    }
    // A partner's entry is dated as the files date it (`data_entrada_sociedade`).
    let column = |name: &str| -> Vec<Option<String>> {
        let c = df.column(name).unwrap().cast(&DataType::String).unwrap();
        c.str().unwrap().iter().map(|v| v.map(str::to_string)).collect()
    };
    let (cnpjs, kinds_of, keys, dates) =
        (column("cnpj"), column("mudanca"), column("chave"), column("data_evento"));
    let mut dated = 0;
    for i in (0..df.height()).filter(|i| kinds_of[*i].as_deref() == Some("sócio entrou")) {
        let cnpj = Cnpj::parse(cnpjs[i].as_deref().unwrap()).unwrap();
        let truth = after.records_truth(&cnpj).unwrap();
        let key = fold(keys[i].as_deref().unwrap());
        let (_, published, _) = truth.socios.iter().find(|(k, _)| fold(k) == key).map(|(_, v)| v).unwrap();
        let iso = (published.len() == 8 && published.bytes().all(|b| b.is_ascii_digit()))
            .then(|| format!("{}-{}-{}", &published[..4], &published[4..6], &published[6..]));
        assert_eq!(dates[i], iso, "{cnpj} {key}: entered {published}");
        dated += usize::from(iso.is_some());
    }
    assert!(dated > 0, "no partner's entry dated");
    // Entering or leaving the Simples or the MEI is dated by the option or exclusion date the
    // profile publishes (all zeros: no date).
    let iso = |d: Option<String>| {
        d.filter(|d| d.len() == 8 && d != "00000000" && d.bytes().all(|b| b.is_ascii_digit()))
            .map(|d| format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..]))
    };
    let mut simples_dated = 0;
    for i in 0..df.height() {
        let kind = kinds_of[i].as_deref().unwrap_or_default();
        let Some((regime, entered)) =
            [("Simples", kind == "entrou no Simples"), ("MEI", kind == "entrou no MEI")]
                .into_iter()
                .find(|(r, _)| kind.ends_with(r))
        else {
            continue;
        };
        let cnpj = Cnpj::parse(cnpjs[i].as_deref().unwrap()).unwrap();
        let s = after.profile(&cnpj).unwrap().simples.unwrap();
        let published = match (regime, entered) {
            ("Simples", true) => s.data_opcao_simples,
            ("Simples", false) => s.data_exclusao_simples,
            (_, true) => s.data_opcao_mei,
            _ => s.data_exclusao_mei,
        };
        assert_eq!(dates[i], iso(published), "{cnpj} {kind}");
        simples_dated += 1;
    }
    assert!(simples_dated > 0, "no Simples or MEI change between the two months");

    // The report's section, in both formats: with changes at M+1, one line at M (first run).
    let md = |run: &str| {
        let text = std::fs::read_to_string(tmp.path().join(run).join("report.md")).unwrap();
        let start = text.find("## O que mudou na carteira").expect("the Markdown section");
        let end = text[start + 3..].find("\n## ").map_or(text.len(), |e| start + 3 + e);
        text[start..end].to_string()
    };
    let html = |run: &str| {
        let text = std::fs::read_to_string(tmp.path().join(run).join("report.html")).unwrap();
        let start = text.find("<section id=\"mudancas\">").expect("the HTML section");
        let end = start + text[start..].find("</section>").unwrap() + "</section>".len();
        text[start..end].to_string()
    };
    insta::assert_snapshot!("changes_section_first_run_md", md("m"));
    insta::assert_snapshot!("changes_section_first_run_html", html("m"));
    insta::assert_snapshot!("changes_section_md", md("m1"));
    insta::assert_snapshot!("changes_section_html", html("m1"));
    // Each company row links to its changes near the end of the report.
    let full = std::fs::read_to_string(tmp.path().join("m1/report.html")).unwrap();
    for link in html("m1").split("href=\"#").skip(1) {
        let anchor = &link[..link.find('"').unwrap()];
        assert!(full.contains(&format!("id=\"{anchor}\"")), "#{anchor} leads nowhere");
    }

    // The store's `mudancas` table holds the same rows under the snapshot, for Spark, DuckDB,
    // Polars and pandas to read as the other tables.
    if !python_with("deltalake, polars") {
        return;
    }
    let script = r#"
import sys, polars as pl
from deltalake import DeltaTable
store, parquet = sys.argv[1:]
d = pl.from_arrow(DeltaTable(store + "/mudancas").to_pyarrow_table()).filter(pl.col("snapshot") == "202609")
p = pl.read_parquet(parquet)
cols = sorted(p.columns)
d, p = d.select(cols).sort(cols, nulls_last=True), p.select(cols).sort(cols, nulls_last=True)
assert d.equals(p.cast(d.schema)), (d, p)
print(d.height)
"#;
    let o = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&store)
        .arg(tmp.path().join("m1/aggregates/mudancas.parquet"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout.trim(), want.len().to_string());

    // DuckDB runs every query, the change queries included, over the tables the run wrote (the
    // previous snapshot's among them) and gets what Polars got.
    if !python_with("duckdb, pyarrow") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = std::process::Command::new("python3")
        .arg(root.join("tests/interop/check_engines.py"))
        .arg(tmp.path().join("m1"))
        .arg(root.join("queries"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.lines().last().is_some_and(|l| l.ends_with(" 0 failed")), "{stdout}");
    let mudancas = stdout.lines().find(|l| l.starts_with("ok   mudancas:")).unwrap_or_default();
    assert!(mudancas.contains(&format!("{} rows", want.len())), "DuckDB's mudancas: {mudancas}");
}

/// A store an older version wrote, its `empresas` without the street address, the CEP, the
/// secondary CNAEs and the situation's reason (rewritten here by deltalake as that version left
/// it): the next month shows no change of those fields, and every other change as the truth has
/// it.
#[test]
fn a_store_written_before_the_address_fields_shows_no_change_of_them() {
    if !python_with("deltalake") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    run(&tmp.path().join("m"), &store, &["--as-of", "202608"]);
    let script = r#"
import json, sys
from deltalake import DeltaTable, write_deltalake
store = sys.argv[1]
table = store + "/empresas"
t = DeltaTable(table).to_pyarrow_table()
t = t.drop_columns(["tipo_logradouro", "logradouro", "numero", "complemento", "bairro", "cep",
                    "cnae_fiscal_secundaria", "motivo_situacao_cadastral"])
write_deltalake(table, t, mode="overwrite", schema_mode="overwrite", partition_by=["snapshot"])
run = store + "/runs/000001.json"
r = json.load(open(run))
r["tables"]["empresas"] = DeltaTable(table).version()
json.dump(r, open(run, "w"))
"#;
    let o = std::process::Command::new("python3").args(["-c", script]).arg(&store).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    run(&tmp.path().join("m1"), &store, &[]);

    let at = |m: &str| {
        Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0).as_of(AnoMes::parse(m).unwrap()).unwrap()
    };
    let (before, after) = (at("202608"), at("202609"));
    let unknown = ["CEP da sede alterado", "endereço da sede alterado", "CNAEs secundários alterados"];
    let mut want: Vec<Change> = Vec::new();
    for c in after.demo_portfolio(200) {
        let (b, a) = (before.records_truth(&c), after.records_truth(&c));
        let old = b.clone().map(|mut b| {
            (b.motivo_situacao, b.cep, b.cnaes_secundarios, b.endereco) = (None, None, None, Vec::new());
            b
        });
        let same_situation =
            b.as_ref().map(|b| &b.situacao_cadastral) == a.as_ref().map(|a| &a.situacao_cadastral);
        want.extend(
            company_changes(c.as_str(), old.as_ref(), a.as_ref())
                .into_iter()
                .filter(|ch| !unknown.contains(&ch.1.as_str()))
                .filter(|ch| !(ch.1 == "situação cadastral alterada" && same_situation)),
        );
    }
    want.sort();
    let (got, _) = changes_of(&tmp.path().join("m1"));
    assert_eq!(got, want);
    assert!(got.iter().any(|ch| ch.1 == "situação cadastral alterada"), "no situation changed: {got:?}");
}

/// The standing the rule of `queries/19_situacao_fiscal_por_retrato.sql` gives a company's
/// inscriptions, applied to the truth: none; only suspended ones (guarantee, court decision,
/// negotiation, tax benefit); or some in collection.
pub(crate) fn estimated_standing(t: &RecordsTruth) -> &'static str {
    const SUSPENDED: [&str; 4] =
        ["GARANTIA", "SUSPENSO POR DECISAO JUDICIAL", "EM NEGOCIACAO", "BENEFICIO FISCAL"];
    let in_collection = t
        .dividas
        .values()
        .filter(|d| {
            !d.tipo_situacao_inscricao.as_deref().is_some_and(|s| SUSPENDED.contains(&fold(s).as_str()))
        })
        .count();
    match (t.dividas.len(), in_collection) {
        (0, _) => "sem inscrições",
        (_, 0) => "positiva com efeitos de negativa",
        _ => "irregular",
    }
}

#[test]
fn the_estimated_standing_follows_the_rule_on_the_truth_in_each_class() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    run(&tmp.path().join("m1"), &store, &[]);
    let ds = Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0);
    let want: BTreeMap<String, &str> = ds
        .demo_portfolio(200)
        .iter()
        .filter_map(|c| ds.records_truth(c).map(|t| (c.as_str().to_string(), estimated_standing(&t))))
        .collect();

    let out = tmp.path().join("m1/aggregates/situacao_fiscal_estimada.parquet");
    let df = ParquetReader::new(std::fs::File::open(out).unwrap()).finish().unwrap();
    let col = |n: &str| df.column(n).unwrap().str().unwrap().clone();
    let (cnpj, standing) = (col("cnpj"), col("situacao_fiscal_estimada"));
    let got: BTreeMap<String, String> = cnpj
        .iter()
        .zip(standing.iter())
        .map(|(c, s)| (c.unwrap().to_string(), s.unwrap().to_string()))
        .collect();
    let want_owned: BTreeMap<String, String> = want.iter().map(|(c, s)| (c.clone(), s.to_string())).collect();
    assert_eq!(got, want_owned);
    let mut classes: Vec<&str> = want.values().copied().collect();
    classes.sort();
    classes.dedup();
    assert_eq!(
        classes,
        ["irregular", "positiva com efeitos de negativa", "sem inscrições"],
        "each class is met"
    );
}
