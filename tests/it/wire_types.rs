//! Every field the embedded registry sends has the type the interface gives it. The types are
//! read from `docs/service-api.md` §2 (its tables, and the sentences that list a sub-object's
//! string fields), never from the shared models: a model that agrees with a wrong registry
//! would hide the fault. All 14 operations are asked over plain HTTP, their JSON read as JSON.

use std::collections::BTreeMap;

use crate::common_registry::*;
use serde_json::Value;

/// A field's type on the wire, as §2 writes it.
#[derive(Debug, Clone, PartialEq)]
enum Wire {
    Text,
    Date,
    Integer,
    Object,
    Array,
}

impl Wire {
    fn of(doc: &str) -> Wire {
        match doc.split_whitespace().next().unwrap_or("string") {
            "date" => Wire::Date,
            "integer" => Wire::Integer,
            "object" => Wire::Object,
            "array" => Wire::Array,
            _ => Wire::Text,
        }
    }

    /// Whether `v` is this type; `null` is allowed for every field (§2: nullability not stated).
    fn admits(&self, v: &Value) -> bool {
        match (self, v) {
            (_, Value::Null) => true,
            (Wire::Text, Value::String(_)) => true,
            (Wire::Date, Value::String(s)) => is_iso_date(s),
            (Wire::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
            (Wire::Object, Value::Object(_)) => true,
            (Wire::Array, Value::Array(_)) => true,
            _ => false,
        }
    }
}

/// `YYYY-MM-DD`, a real calendar day.
fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && s.chars().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// A resource's fields and their types: one block of §2.
type Fields = BTreeMap<String, Wire>;

/// The fields of §2's tables and field lists, by the block they describe: `2.2`, `2.3`,
/// `2.3 empresa`, `2.3 simples`, ... A table whose header has no Type column holds strings; a
/// first cell may name several fields (`` `ddd_fax`, `fax` ``).
fn documented_fields() -> BTreeMap<String, Fields> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/service-api.md")).unwrap();
    let mut out: BTreeMap<String, Fields> = BTreeMap::new();
    let (mut section, mut block, mut typed, mut listing) = (String::new(), String::new(), false, false);
    for line in doc.lines() {
        if line.trim().is_empty() {
            listing = false;
            continue;
        }
        if let Some(title) = line.strip_prefix("### ") {
            section = title.split_whitespace().next().unwrap_or("").to_string();
            block = section.clone();
            continue;
        }
        if line.starts_with("## ") {
            section.clear();
            continue;
        }
        if !section.starts_with("2.") {
            continue;
        }
        // "`empresa` has eight string fields:" opens a sub-object's block; "`simples` has
        // eight string fields: `a`, `b`, ..." lists them in the sentence itself.
        if let Some((name, rest)) = line.strip_prefix('`').and_then(|l| l.split_once("` has ")) {
            block = format!("{section} {name}");
            if let Some((_, list)) = rest.split_once("string fields:") {
                listing = true;
                let names = backticked(list);
                let entry = out.entry(block.clone()).or_default();
                names.into_iter().for_each(|n| {
                    entry.insert(n, Wire::Text);
                });
            }
            continue;
        }
        if listing {
            // The sentence listing a sub-object's fields goes on over the next lines.
            let entry = out.entry(block.clone()).or_default();
            backticked(line.split("The values").next().unwrap_or("")).into_iter().for_each(|n| {
                entry.insert(n, Wire::Text);
            });
            continue;
        }
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        if line.starts_with("| Field") {
            typed = cells.get(1) == Some(&"Type");
            continue;
        }
        if !line.starts_with("| `") {
            continue;
        }
        let wire = if typed { Wire::of(cells[1]) } else { Wire::Text };
        let entry = out.entry(block.clone()).or_default();
        for name in backticked(cells[0]) {
            entry.insert(name, wire.clone());
        }
    }
    out
}

fn backticked(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(String::from).collect()
}

/// Checks `record` against `fields`: every documented field present with its type, nothing
/// undocumented. Returns the faults, each naming the operation and the field.
fn faults_of(op: &str, record: &Value, fields: &Fields) -> Vec<String> {
    let Some(map) = record.as_object() else { return vec![format!("{op}: not an object: {record}")] };
    let mut faults = Vec::new();
    for (name, wire) in fields {
        match map.get(name) {
            None => faults.push(format!("{op}: `{name}` is missing")),
            Some(v) if !wire.admits(v) => faults.push(format!("{op}: `{name}` is {v}, not a {wire:?}")),
            Some(_) => {}
        }
    }
    for name in map.keys().filter(|k| !fields.contains_key(*k)) {
        faults.push(format!("{op}: `{name}` is not in the interface"));
    }
    faults
}

struct Wire14 {
    http: reqwest::Client,
    base: String,
    doc: BTreeMap<String, Fields>,
    faults: Vec<String>,
    /// Records checked per operation: each must be asked and answered at least once.
    seen: BTreeMap<u8, usize>,
}

impl Wire14 {
    async fn get(&self, path: &str) -> Value {
        let r = self.http.get(format!("{}{path}", self.base)).header("x-api-key", KEY).send().await.unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        r.json().await.unwrap()
    }

    fn block(&self, name: &str) -> &Fields {
        self.doc.get(name).unwrap_or_else(|| panic!("§{name} has no fields in docs/service-api.md"))
    }

    fn check(&mut self, op: u8, record: &Value, block: &str) {
        let faults = faults_of(&format!("operation {op} (§{block})"), record, &self.block(block).clone());
        self.faults.extend(faults);
        *self.seen.entry(op).or_default() += 1;
    }

    /// A list operation's envelope (§2.1) and each of its items against `block`.
    async fn list(&mut self, op: u8, path: &str, block: &str) -> Vec<Value> {
        let page = self.get(path).await;
        self.faults.extend(faults_of(
            &format!("operation {op} envelope (§2.1)"),
            &page,
            &self.block("2.1").clone(),
        ));
        let paginacao = &page["paginacao"];
        for key in ["limite", "offset", "total"] {
            if !Wire::Integer.admits(&paginacao[key]) || paginacao[key].is_null() {
                self.faults.push(format!("operation {op}: paginacao.{key} is {}", paginacao[key]));
            }
        }
        for key in ["status", "versao"] {
            if !page["fonte"][key].is_string() {
                self.faults.push(format!("operation {op}: fonte.{key} is {}", page["fonte"][key]));
            }
        }
        let items = page["itens"].as_array().cloned().unwrap_or_default();
        for item in &items {
            self.check(op, item, block);
        }
        items
    }

    /// Operation 1: the profile, its `empresa`, `estabelecimento` (§2.2), `simples`, and the
    /// shapes of its `fontes` and `resumos` maps.
    async fn profile(&mut self, cnpj: &str) {
        let p = self.get(&format!("/v1/cnpjs/{cnpj}")).await;
        self.check(1, &p, "2.3");
        for (field, block) in
            [("empresa", "2.3 empresa"), ("estabelecimento", "2.2"), ("simples", "2.3 simples")]
        {
            if !p[field].is_null() {
                self.faults.extend(faults_of(
                    &format!("operation 1 {field}"),
                    &p[field],
                    &self.block(block).clone(),
                ));
            }
        }
        for (_, f) in p["fontes"].as_object().into_iter().flatten() {
            if !(f["status"].is_string() && f["versao"].is_string()) {
                self.faults.push(format!("operation 1: a fontes entry is {f}"));
            }
        }
        for (_, r) in p["resumos"].as_object().into_iter().flatten() {
            if !(r["href"].is_string() && Wire::Integer.admits(&r["total"]) && r["valor_total"].is_string()) {
                self.faults.push(format!("operation 1: a resumos entry is {r}"));
            }
        }
    }
}

#[tokio::test]
async fn every_field_of_the_14_operations_has_the_interfaces_type() {
    let reg = registry().await;
    let d = reg.dataset();
    let mut w = Wire14 {
        http: plain_http(),
        base: reg.base_url(),
        doc: documented_fields(),
        faults: Vec::new(),
        seen: BTreeMap::new(),
    };
    // The parser found what the document types (so a broken parse cannot pass as no fault).
    assert_eq!(w.block("2.6").get("data_fim"), Some(&Wire::Date), "{:?}", w.doc.keys());
    assert_eq!(w.block("2.9").get("parte_arquivo"), Some(&Wire::Integer));
    assert_eq!(w.block("2.10").len(), 17, "§2.10 has 17 fields");
    assert_eq!(w.block("2.13").len(), 9, "§2.13 has 9 fields");
    assert_eq!(w.block("2.3 simples").len(), 8, "simples has 8 fields: {:?}", w.block("2.3 simples"));
    assert_eq!(w.block("2.3 empresa").len(), 8);

    let mut cnos = Vec::new();
    for i in 0..d.company_count() {
        let cnpj = d.company_cnpj(i).as_str().to_string();
        w.profile(&cnpj).await;
        let base = format!("/v1/cnpjs/{cnpj}");
        w.list(2, &format!("{base}/estabelecimentos?limite=100"), "2.2").await;
        for obra in w.list(3, &format!("{base}/obras-cno?limite=100"), "2.5").await {
            cnos.extend(obra["cno"].as_str().map(String::from));
        }
        w.list(4, &format!("{base}/socios?limite=100"), "2.4").await;
        for categoria in ["nao_previdenciario", "previdenciario", "fgts"] {
            w.list(5, &format!("{base}/dividas-pgfn?categoria={categoria}&limite=100"), "2.10").await;
        }
        w.list(6, &format!("{base}/parcelamentos-rfb?limite=100"), "2.11").await;
        w.list(7, &format!("{base}/transacoes-rfb?limite=100"), "2.12").await;
    }
    for cno in &cnos {
        let obra = w.get(&format!("/v1/cnos/{cno}")).await;
        w.check(8, &obra, "2.5");
        w.list(9, &format!("/v1/cnos/{cno}/vinculos?limite=100"), "2.6").await;
        w.list(10, &format!("/v1/cnos/{cno}/cnaes?limite=100"), "2.7").await;
        w.list(11, &format!("/v1/cnos/{cno}/areas?limite=100"), "2.8").await;
    }
    let imoveis = w.list(12, "/v1/cafir/imoveis?limite=100", "2.9").await;
    for nirf in imoveis.iter().filter_map(|i| i["nirf"].as_str()).take(20) {
        let imovel = w.get(&format!("/v1/cafir/imoveis/{nirf}")).await;
        w.check(13, &imovel, "2.9");
    }
    w.list(14, "/v1/rfb/creditos-ativos?limite=100", "2.13").await;

    let unseen: Vec<u8> = (1..=14).filter(|op| !w.seen.contains_key(op)).collect();
    assert!(unseen.is_empty(), "operations with no record checked: {unseen:?}");
    let mut faults = w.faults;
    faults.sort();
    faults.dedup();
    assert!(
        faults.is_empty(),
        "{} faults, e.g.:\n{}",
        faults.len(),
        faults[..faults.len().min(20)].join("\n")
    );
}
