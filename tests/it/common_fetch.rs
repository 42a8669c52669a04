// Ground-truth comparison of staged records (a module of the one integration-test binary).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use fiscal_report::api::{AnoMes, Categoria, Cnpj};
use fiscal_report::extract::staging::read_segment;
use fiscal_report::simulator::Dataset;
use fiscal_report::tables::{RowMap, Table, flat_row, profile_row, row_map};

/// Every staged row under `out/.staging`, by table, in a canonical order.
pub fn staged_rows(out: &Path) -> BTreeMap<Table, Vec<String>> {
    let mut by_table: BTreeMap<Table, Vec<String>> = BTreeMap::new();
    let dir = out.join(".staging");
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !name.ends_with(".parquet") {
            continue;
        }
        let table = Table::ALL.into_iter().find(|t| name.starts_with(&format!("{}-", t.name()))).unwrap();
        by_table.entry(table).or_default().extend(read_segment(&e.path()).unwrap().iter().map(canon));
    }
    for v in by_table.values_mut() {
        v.sort();
    }
    by_table
}

fn canon(r: &RowMap) -> String {
    serde_json::to_string(r).unwrap()
}

/// What a complete fetch of `ufs` x `months` and `cnpjs` must stage.
pub fn expected_rows(
    d: &Dataset,
    ufs: &[&str],
    months: &[AnoMes],
    cnpjs: &[Cnpj],
) -> BTreeMap<Table, Vec<String>> {
    let mut out: BTreeMap<Table, Vec<String>> = BTreeMap::new();
    for m in months {
        for uf in ufs {
            let n = d.creditos_total(Some(uf), Some(*m));
            out.entry(Table::CreditosAtivos).or_default().extend(
                d.creditos_page(Some(uf), Some(*m), 0, n).iter().map(|r| {
                    canon(&row_map(Table::CreditosAtivos, &flat_row(Table::CreditosAtivos, r, &[])))
                }),
            );
        }
    }
    for c in cnpjs {
        let Some(p) = d.profile(c) else { continue };
        let ctx = [("cnpj_consultado", c.as_str())];
        out.entry(Table::Empresas)
            .or_default()
            .push(canon(&row_map(Table::Empresas, &profile_row(&p, c.as_str()))));
        for cat in Categoria::ALL {
            out.entry(Table::DividasPgfn).or_default().extend(d.dividas(c, cat).unwrap().iter().map(|r| {
                canon(&row_map(
                    Table::DividasPgfn,
                    &flat_row(Table::DividasPgfn, r, &[ctx[0], ("categoria", cat.as_str())]),
                ))
            }));
        }
        out.entry(Table::ParcelamentosRfb).or_default().extend(
            d.parcelamentos(c).unwrap().iter().map(|r| {
                canon(&row_map(Table::ParcelamentosRfb, &flat_row(Table::ParcelamentosRfb, r, &ctx)))
            }),
        );
        out.entry(Table::TransacoesRfb).or_default().extend(
            d.transacoes(c)
                .unwrap()
                .iter()
                .map(|r| canon(&row_map(Table::TransacoesRfb, &flat_row(Table::TransacoesRfb, r, &ctx)))),
        );
        out.entry(Table::Socios).or_default().extend(
            d.socios(c)
                .unwrap()
                .iter()
                .map(|r| canon(&row_map(Table::Socios, &flat_row(Table::Socios, r, &ctx)))),
        );
    }
    out.retain(|_, v| !v.is_empty());
    for v in out.values_mut() {
        v.sort();
    }
    out
}

/// The minimum requests for that fetch: one per page of every list (one for an empty list)
/// plus one profile per company; unknown companies cost only their profile request.
pub fn minimum_requests(d: &Dataset, ufs: &[&str], months: &[AnoMes], cnpjs: &[Cnpj]) -> u64 {
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

pub fn assert_same_records(got: &BTreeMap<Table, Vec<String>>, want: &BTreeMap<Table, Vec<String>>) {
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
