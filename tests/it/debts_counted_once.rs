//! Every real of debt counted once: a portfolio where companies share inscriptions (a holding
//! co-responsible for its subsidiaries' debts, a third subsidiary with two owners, a group's
//! subsidiary jointly liable with the next group's holding, and a pair outside any group). Each
//! company's split by role, each total of the portfolio, its states and its groups are checked
//! against the embedded registry's truth, which credits each inscription once from the
//! generator's cents; every published row is still in the Parquet.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common_bin::*;
use fiscal_report::api::Cnpj;
use fiscal_report::api::ids::Categoria;
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

const SCALE: f64 = 0.05;

fn read(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap()
}

fn texts(df: &DataFrame, col: &str) -> Vec<String> {
    df.column(col).unwrap().str().unwrap().iter().map(|v| v.unwrap_or_default().to_string()).collect()
}

fn cents(df: &DataFrame, col: &str) -> Vec<i128> {
    let c = df.column(col).unwrap();
    let d = c.decimal().unwrap();
    assert_eq!(d.scale(), 2, "{col} is money in cents");
    d.physical().iter().map(|v| v.unwrap_or(0)).collect()
}

/// Holdings 72 and 133 with their subsidiaries (73 is jointly liable with 133), the pair 101
/// and 102 outside any group, 162 without 163 (only the co-debtor in the portfolio), and a few
/// companies that share nothing.
fn portfolio(d: &Dataset) -> Vec<Cnpj> {
    [72, 73, 74, 75, 76, 133, 134, 135, 101, 102, 162, 5, 6, 7]
        .into_iter()
        .map(|i| d.company_cnpj(i))
        .collect()
}

#[test]
fn shared_inscriptions_count_once_in_every_total_and_every_row_is_kept() {
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let cnpjs = portfolio(&d);
    let text: Vec<String> = cnpjs.iter().map(|c| c.to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    let out = demo_run_into(dir.path(), &text, &["--demo-scale", "0.05", "--ano-mes", "202609"]);
    let truth = d.debt_roles_truth(&cnpjs);
    let plans = d.portfolio_truth(&cnpjs);

    // Per company: its own debt as principal and as co-debtor, and its share of the totals.
    let x = read(&out.join("aggregates/carteira_exposicao.parquet"));
    let (ids, principal, co_debtor, counted) = (
        texts(&x, "cnpj"),
        cents(&x, "divida_principal"),
        cents(&x, "divida_corresponsavel"),
        cents(&x, "exposicao_contada"),
    );
    assert_eq!(ids.len(), truth.len());
    for (i, cnpj) in ids.iter().enumerate() {
        let t = &truth[cnpj];
        assert_eq!(principal[i], i128::from(t.principal_cents), "{cnpj} as principal");
        assert_eq!(co_debtor[i], i128::from(t.co_debtor_cents), "{cnpj} as co-debtor");
        assert_eq!(counted[i], i128::from(t.counted_cents()), "{cnpj} counted in totals");
    }
    let co_debtors = truth.values().filter(|t| t.co_debtor_cents > 0).count();
    assert!(co_debtors >= 4, "the portfolio shares inscriptions ({co_debtors} co-debtors)");

    // The portfolio's totals: each inscription once, by categoria and court filing.
    let resumo = read(&out.join("aggregates/carteira_resumo.parquet"));
    let counted_in = |cat: &str| -> i128 {
        truth.values().filter_map(|t| t.counted.get(cat)).map(|(s, n)| i128::from(s + n)).sum()
    };
    for cat in Categoria::ALL {
        let col = match cat {
            Categoria::NaoPrevidenciario => "nao_previdenciario",
            Categoria::Previdenciario => "previdenciario",
            Categoria::Fgts => "fgts",
        };
        assert_eq!(cents(&resumo, col)[0], counted_in(cat.as_str()), "{col}");
    }
    let filed: i128 = truth.values().flat_map(|t| t.counted.values()).map(|(s, _)| i128::from(*s)).sum();
    assert_eq!(cents(&resumo, "divida_ajuizada")[0], filed);
    let total: i128 = truth.values().map(|t| i128::from(t.counted_cents())).sum();
    assert_eq!(cents(&resumo, "exposicao_total")[0], total);
    // What a plain sum of every company's own exposure would have counted again.
    let own: i128 = plans
        .companies
        .iter()
        .map(|c| {
            let t = &truth[&c.cnpj];
            i128::from(t.principal_cents + t.co_debtor_cents)
                + i128::from(c.parcelamentos.saldo_devedor_cents + c.transacoes.saldo_devedor_cents)
        })
        .sum();
    assert!(own > total, "shared inscriptions exist in this portfolio");
    assert_eq!(cents(&resumo, "contagem_dupla_evitada")[0], own - total);

    // The states' rows add up to the same total, and so do the sections'.
    for (table, key) in [("carteira_por_uf", "uf"), ("carteira_por_cnae_secao", "cnae_secao")] {
        let df = read(&out.join(format!("aggregates/{table}.parquet")));
        let keys = texts(&df, key);
        let exposure = cents(&df, "exposicao_total");
        let at = keys.iter().position(|k| k == "TOTAL").unwrap();
        assert_eq!(exposure[at], total, "{table} TOTAL");
        let parts: i128 = exposure.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, v)| v).sum();
        assert_eq!(parts, total, "{table}: rows add up to the total");
    }

    // Each group's portfolio exposure: its members' shares, each inscription once. The groups
    // and their members are the dataset's (`groups_truth`), not the run's `grupos_economicos`.
    let groups = read(&out.join("aggregates/grupos_exposicao.parquet"));
    let linked = d.groups_truth(&cnpjs, 0);
    let in_group = |g: &fiscal_report::simulator::GroupTruth| -> Vec<String> {
        let roots: BTreeSet<&str> = g.members.iter().map(String::as_str).collect();
        cnpjs.iter().filter(|c| roots.contains(c.basico())).map(|c| c.as_str().to_string()).collect()
    };
    let group_exposure = cents(&groups, "exposicao_carteira");
    let ids = texts(&groups, "grupo");
    assert_eq!(ids.len(), linked.len(), "one row per group of the dataset");
    for g in &linked {
        let at = ids.iter().position(|x| *x == g.head).unwrap_or_else(|| panic!("no group {}", g.head));
        let want: i128 = in_group(g).iter().map(|c| i128::from(truth[c].counted_cents())).sum();
        assert_eq!(group_exposure[at], want, "group {}", g.head);
    }
    // Inside a group, a holding and the subsidiary it answers for count their shared
    // inscriptions once: the group's exposure is below what its members owe one by one.
    let own_of = |cnpj: &str| {
        let t = &truth[cnpj];
        t.principal_cents + t.co_debtor_cents + t.counted_parcelamentos_cents + t.counted_transacoes_cents
    };
    let holding = d.company_cnpj(72);
    let g = linked.iter().find(|g| g.members.iter().any(|m| m == holding.basico())).unwrap();
    let members_own: i64 = in_group(g).iter().map(|c| own_of(c)).sum();
    let at = ids.iter().position(|x| *x == g.head).unwrap();
    assert!(
        group_exposure[at] < i128::from(members_own),
        "group {}: shared inscriptions counted once",
        g.head
    );

    // Every published row is kept, once per debtor, with its role.
    let exported = fiscal_report::export::tables::read_exported_table(&out, "dividas_pgfn").unwrap();
    let published: usize =
        cnpjs.iter().flat_map(|c| Categoria::ALL.map(|cat| d.dividas(c, cat).map_or(0, |v| v.len()))).sum();
    assert_eq!(exported.height(), published, "one exported row per published row");
    let roles: BTreeSet<String> = texts(&exported, "tipo_devedor").into_iter().collect();
    assert_eq!(roles, ["CORRESPONSAVEL", "PRINCIPAL", "SOLIDARIO"].map(String::from).into());
    let numbers = texts(&exported, "numero_inscricao");
    let distinct: BTreeSet<&String> = numbers.iter().collect();
    assert!(distinct.len() < numbers.len(), "some inscriptions stand once per debtor");
}
