//! The dataset moving through months: the latest month is the default data, earlier months
//! differ in the ways `history` says, and a profile's fingerprint and summaries change exactly
//! when the company's records changed.

use super::*;

const SEED: u64 = 7;

fn company_records(ds: &Dataset, cnpj: &Cnpj) -> String {
    let mut parts = vec![
        serde_json::to_string(&ds.profile(cnpj).map(|mut p| {
            p.snapshot_fingerprint = None;
            p.resumos = None;
            p
        }))
        .unwrap_or_default(),
    ];
    for c in Categoria::ALL {
        parts.push(serde_json::to_string(&ds.dividas(cnpj, c)).unwrap_or_default());
    }
    parts.push(serde_json::to_string(&ds.parcelamentos(cnpj)).unwrap_or_default());
    parts.push(serde_json::to_string(&ds.transacoes(cnpj)).unwrap_or_default());
    parts.push(serde_json::to_string(&ds.socios(cnpj)).unwrap_or_default());
    parts.join("\n")
}

fn month(s: &str) -> AnoMes {
    AnoMes::parse(s).unwrap()
}

#[test]
fn the_latest_month_is_the_default_data() {
    let default = Dataset::generate(SEED, 0.2);
    let latest = Dataset::generate(SEED, 0.2).as_of(month("202609")).unwrap();
    assert_eq!(default.truth(), latest.truth());
    for cnpj in default.demo_portfolio(60) {
        assert_eq!(company_records(&default, &cnpj), company_records(&latest, &cnpj));
    }
}

#[test]
fn a_month_outside_the_dataset_is_refused_naming_the_range() {
    let err = Dataset::generate(SEED, 0.1).as_of(month("202612")).unwrap_err();
    assert!(err.contains("202310..202609"), "{err}");
}

#[test]
fn earlier_months_publish_fewer_months_and_a_preliminary_newest_month() {
    let m = Dataset::generate(SEED, 0.2).as_of(month("202608")).unwrap();
    let l = Dataset::generate(SEED, 0.2);
    assert_eq!(m.months().last().map(ToString::to_string).as_deref(), Some("202608"));
    assert_eq!(m.creditos_total(None, Some(month("202609"))), 0);
    let (tm, tl) = (m.truth(), l.truth());
    let cell = |t: &Truth, ano_mes: &str| -> i64 {
        t.credits.iter().filter(|c| c.ano_mes == ano_mes).map(|c| c.total_cents).sum()
    };
    // The as-of month is revised down in its first publication, final a month later.
    assert!(cell(&tm, "202608") < cell(&tl, "202608"));
    assert_eq!(cell(&tm, "202607"), cell(&tl, "202607"));
    assert_eq!(m.creditos_cents(None, Some(month("202608"))), i128::from(cell(&tm, "202608")));
}

#[test]
fn fingerprints_and_summaries_change_exactly_when_the_records_do() {
    let before = Dataset::generate(SEED, 1.0).as_of(month("202608")).unwrap();
    let after = Dataset::generate(SEED, 1.0);
    let portfolio: Vec<Cnpj> = (0..after.company_count()).step_by(5).map(|i| after.company_cnpj(i)).collect();
    let mut changed = 0;
    for cnpj in &portfolio {
        let same_records = company_records(&before, cnpj) == company_records(&after, cnpj);
        let (pb, pa) = (before.profile(cnpj).unwrap(), after.profile(cnpj).unwrap());
        assert_eq!(same_records, pb.snapshot_fingerprint == pa.snapshot_fingerprint, "{cnpj}");
        if same_records {
            assert_eq!(pb.resumos, pa.resumos, "{cnpj}");
        } else {
            changed += 1;
        }
    }
    let share = f64::from(changed) / portfolio.len() as f64;
    println!("{changed} of {} companies changed from 202608 to 202609", portfolio.len());
    // The benchmark's premise: a few percent of companies change from one month to the next.
    assert!((0.02..0.12).contains(&share), "{changed} of {} companies changed", portfolio.len());
}

#[test]
fn a_changing_portfolio_has_the_asked_share_of_changed_companies() {
    let before = Dataset::generate(SEED, 0.2).as_of(month("202608")).unwrap();
    let after = Dataset::generate(SEED, 0.2);
    for (n, share, want) in [(200, 0.05, 10), (200, 0.0, 0), (50, 0.2, 10)] {
        let p = after.changing_portfolio(&before, n, share);
        let distinct: std::collections::BTreeSet<_> = p.iter().collect();
        assert_eq!((p.len(), distinct.len()), (n, n));
        let changed = p.iter().filter(|c| after.changed_since(&before, c) == Some(true)).count();
        assert_eq!(changed, want, "{n} companies at {share}");
    }
    // Asking for more churn than the month has gives every changed company, then unchanged ones.
    let all = after.changing_portfolio(&before, 200, 1.0);
    let changed = all.iter().filter(|c| after.changed_since(&before, c) == Some(true)).count();
    assert!(all.len() == 200 && changed < 200, "{changed}");
}
