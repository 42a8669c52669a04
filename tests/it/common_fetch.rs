// Ground-truth comparison of staged records (a module of the one integration-test binary).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use fiscal_report::api::{AnoMes, Categoria, Cnpj};
use fiscal_report::extract::staging::read_segment;
use fiscal_report::simulator::Dataset;
use fiscal_report::tables::Table;

/// Every staged row under `out/.staging`, by table, in a canonical order: each row's non-null
/// columns and their text.
pub(crate) fn staged_rows(out: &Path) -> BTreeMap<Table, Vec<String>> {
    let mut by_table: BTreeMap<Table, Vec<String>> = BTreeMap::new();
    let dir = out.join(".staging");
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !name.ends_with(".parquet") {
            continue;
        }
        let table = Table::ALL.into_iter().find(|t| name.starts_with(&format!("{}-", t.name()))).unwrap();
        let rows = read_segment(&e.path()).unwrap();
        by_table.entry(table).or_default().extend(rows.iter().map(|r| {
            canon(r.iter().filter_map(|(k, v)| v.as_ref().map(|v| (k.clone(), v.clone()))).collect())
        }));
    }
    for v in by_table.values_mut() {
        v.sort();
    }
    by_table
}

type Texts = BTreeMap<String, String>;

fn canon(r: Texts) -> String {
    serde_json::to_string(&r).unwrap()
}

/// A record as the wire carries it (the dataset's own JSON of it, not the client's flattening):
/// each non-null field's text, a nested object's fields under `<field>_`, a map as its JSON.
fn wire_texts(record: &impl serde::Serialize, nested: &[&str]) -> Texts {
    let serde_json::Value::Object(fields) = serde_json::to_value(record).unwrap() else {
        panic!("not an object")
    };
    let mut out = Texts::new();
    for (k, v) in fields {
        match v {
            serde_json::Value::Null => {}
            serde_json::Value::String(s) => {
                out.insert(k, s);
            }
            serde_json::Value::Object(inner) if nested.contains(&k.as_str()) => {
                for (ik, iv) in inner {
                    match iv {
                        serde_json::Value::Null => {}
                        serde_json::Value::String(s) => {
                            out.insert(format!("{k}_{ik}"), s);
                        }
                        other => {
                            out.insert(format!("{k}_{ik}"), other.to_string());
                        }
                    }
                }
            }
            other => {
                out.insert(k, other.to_string());
            }
        }
    }
    out
}

fn with(mut texts: Texts, context: &[(&str, &str)]) -> String {
    texts.extend(context.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    canon(texts)
}

/// What a complete fetch of `ufs` x `months` and `cnpjs` must stage, from the dataset's records
/// as the registry sends them plus the context columns the staging adds (the CNPJ asked for, the
/// categoria).
pub(crate) fn expected_rows(
    d: &Dataset,
    ufs: &[&str],
    months: &[AnoMes],
    cnpjs: &[Cnpj],
) -> BTreeMap<Table, Vec<String>> {
    let mut out: BTreeMap<Table, Vec<String>> = BTreeMap::new();
    let mut put = |t: Table, row: String| out.entry(t).or_default().push(row);
    for m in months {
        for uf in ufs {
            let n = d.creditos_total(Some(uf), Some(*m));
            for r in d.creditos_page(Some(uf), Some(*m), 0, n) {
                put(Table::CreditosAtivos, with(wire_texts(&r, &[]), &[]));
            }
        }
    }
    for c in cnpjs {
        let Some(p) = d.profile(c) else { continue };
        let asked = ("cnpj_consultado", c.as_str());
        put(Table::Empresas, with(wire_texts(&p, &["empresa", "estabelecimento", "simples"]), &[asked]));
        for cat in Categoria::ALL {
            for r in d.dividas(c, cat).unwrap() {
                put(Table::DividasPgfn, with(wire_texts(&r, &[]), &[asked, ("categoria", cat.as_str())]));
            }
        }
        for r in d.parcelamentos(c).unwrap() {
            put(Table::ParcelamentosRfb, with(wire_texts(&r, &[]), &[asked]));
        }
        for r in d.transacoes(c).unwrap() {
            put(Table::TransacoesRfb, with(wire_texts(&r, &[]), &[asked]));
        }
        for r in d.socios(c).unwrap() {
            put(Table::Socios, with(wire_texts(&r, &[]), &[asked]));
        }
    }
    out.retain(|_, v| !v.is_empty());
    for v in out.values_mut() {
        v.sort();
    }
    out
}

/// The minimum requests for that fetch: one per page of every list (one for an empty list)
/// plus one profile per company; unknown companies cost only their profile request.
pub(crate) fn minimum_requests(d: &Dataset, ufs: &[&str], months: &[AnoMes], cnpjs: &[Cnpj]) -> u64 {
    let pages = |n: usize| n.div_ceil(100).max(1) as u64;
    let mut total = 0;
    for m in months {
        for uf in ufs {
            total += pages(d.creditos_total(Some(uf), Some(*m)));
        }
    }
    for c in cnpjs {
        total += 1;
        if d.profile(c).is_none() {
            continue;
        }
        for cat in Categoria::ALL {
            total += pages(d.dividas(c, cat).unwrap().len());
        }
        total += pages(d.parcelamentos(c).unwrap().len()) + pages(d.transacoes(c).unwrap().len());
        total += pages(d.socios(c).unwrap().len());
    }
    total
}

pub(crate) fn assert_same_records(got: &BTreeMap<Table, Vec<String>>, want: &BTreeMap<Table, Vec<String>>) {
    for t in Table::ALL {
        let (g, w) = (got.get(&t).cloned().unwrap_or_default(), want.get(&t).cloned().unwrap_or_default());
        assert_eq!(
            g.len(),
            w.len(),
            "{}: {} records staged, {} in the ground truth",
            t.name(),
            g.len(),
            w.len()
        );
        assert!(g == w, "{}: staged records differ from the ground truth", t.name());
    }
}
