//! Record-level tests of the synthetic dataset: string forms, defect rates, works and
//! rural-property lookups, and reconciliation of the portfolio truth with the records.

use std::collections::BTreeSet;

use super::company::Core;
use super::geo::UF_INFO;
use super::tests::{cents_of, small};
use super::text::DateForm;
use super::*;

#[test]
fn portfolio_truth_reconciles_with_the_records() {
    let ds = small();
    let mut cnpjs = ds.demo_portfolio(60);
    let branched = (0..ds.company_count()).map(|i| Core::generate(&ds, i)).find(|c| c.branches > 0).unwrap();
    cnpjs.push(ds.codec.cnpj(branched.index, 2));
    cnpjs.push(ds.codec.cnpj(ds.company_count() + 3, 1));
    let truth = ds.portfolio_truth(&cnpjs);
    assert_eq!((truth.found, truth.not_found), (cnpjs.len() - 1, 1));
    assert!(!truth.companies.last().unwrap().found);
    let (mut unparseable, mut lagging) = (0, 0);
    for (cnpj, t) in cnpjs.iter().zip(&truth.companies).filter(|(_, t)| t.found) {
        let lag = profile::lagging_summary(&ds, &Core::generate(&ds, ds.company_index(cnpj).unwrap()));
        lagging += usize::from(lag.is_some());
        assert_eq!(t.cnpj, cnpj.as_str());
        assert_eq!(t.estabelecimentos, ds.estabelecimentos(cnpj).unwrap().len());
        assert_eq!(t.socios, ds.socios(cnpj).unwrap().len());
        assert_eq!(t.obras, ds.obras(cnpj).unwrap().len());
        let resumos = ds.profile(cnpj).unwrap().resumos.unwrap();
        for cat in Categoria::ALL {
            let d = &t.dividas[cat.as_str()];
            let rows = ds.dividas(cnpj, cat).unwrap();
            assert_eq!(d.records, rows.len());
            let (mut sim, mut nao, mut bad) = (0i64, 0i64, 0usize);
            for r in &rows {
                match (cents_of(r.valor_consolidado.as_deref().unwrap()), r.indicador_ajuizado.as_deref()) {
                    (None, _) => bad += 1,
                    (Some(c), Some("SIM")) => sim += c,
                    (Some(c), _) => nao += c,
                }
            }
            assert_eq!((d.ajuizado_sim_cents, d.ajuizado_nao_cents, d.unparseable), (sim, nao, bad));
            assert_eq!(d.ajuizado_sim + d.ajuizado_nao + d.unparseable, d.records);
            unparseable += bad;
            let r = &resumos[&format!("dividas_pgfn_{}", cat.as_str())];
            // A lagging summary counts one inscription more than the list shows.
            let (more, cents) = lag.filter(|(c, _)| *c == cat).map_or((0, 0), |(_, cents)| (1, cents));
            assert_eq!(r.total, Some(d.records as i64 + more));
            assert_eq!(cents_of(r.valor_total.as_deref().unwrap()), Some(sim + nao + cents));
        }
        let parc = ds.parcelamentos(cnpj).unwrap();
        let sum: i64 = parc.iter().filter_map(|p| cents_of(p.saldo_devedor.as_deref().unwrap())).sum();
        assert_eq!((t.parcelamentos.records, t.parcelamentos.saldo_devedor_cents), (parc.len(), sum));
        let trans = ds.transacoes(cnpj).unwrap();
        let sum: i64 = trans.iter().filter_map(|p| cents_of(p.saldo_devedor.as_deref().unwrap())).sum();
        assert_eq!((t.transacoes.records, t.transacoes.saldo_devedor_cents), (trans.len(), sum));
    }
    println!("unparseable debt values in the demo portfolio: {unparseable}");
    assert!(lagging > 0, "the demo portfolio should hold a company whose summary lags its list");
}

fn is_date(s: &str, form: DateForm) -> bool {
    let d = |r: std::ops::Range<usize>| s.get(r).is_some_and(|x| x.bytes().all(|b| b.is_ascii_digit()));
    match form {
        DateForm::Compact => s.len() == 8 && d(0..8),
        DateForm::Iso => {
            s.len() == 10 && d(0..4) && &s[4..5] == "-" && d(5..7) && &s[7..8] == "-" && d(8..10)
        }
        DateForm::Br => s.len() == 10 && d(0..2) && &s[2..3] == "/" && d(3..5) && &s[5..6] == "/" && d(6..10),
    }
}

fn is_defect(s: &str) -> bool {
    s.is_empty() || s == "null"
}

#[test]
fn string_forms_and_defect_rates() {
    let ds = Dataset::generate(9, 0.3);
    let (mut records, mut defects, mut mojibake_seen, mut impossible_seen) = (0usize, 0usize, false, false);
    for i in 0..ds.company_count() {
        let c = ds.company_cnpj(i);
        let p = ds.profile(&c).unwrap();
        let empresa = p.empresa.unwrap();
        let capital = empresa.capital_social_raw.unwrap();
        records += 1;
        let razao = empresa.razao_social.unwrap();
        mojibake_seen |= razao.contains('Ã');
        if is_defect(&capital) || razao.is_empty() || razao.contains('Ã') {
            defects += 1;
        } else {
            assert!(
                !capital.contains('.') && capital.split_once(',').is_some_and(|(_, f)| f.len() == 2),
                "{capital}"
            );
        }
        for e in ds.estabelecimentos(&c).unwrap() {
            records += 1;
            let dates = [e.data_inicio_atividade.unwrap(), e.data_situacao_cadastral.unwrap()];
            impossible_seen |= dates.iter().any(|d| d == "02021231" || d == "41000101");
            if dates
                .iter()
                .all(|d| is_date(d, DateForm::Compact) && !d.starts_with("0202") && !d.starts_with("4100"))
            {
                assert_eq!(e.data_situacao_especial.as_deref(), Some("00000000"));
            } else {
                defects += 1;
            }
        }
        for s in ds.socios(&c).unwrap() {
            records += 1;
            let nome = s.nome_socio_razao_social.unwrap();
            mojibake_seen |= nome.contains('Ã');
            let doc = s.cnpj_cpf_socio.unwrap();
            assert!(
                doc.len() == 14 || (doc.starts_with("***") && doc.ends_with("**") && doc.len() == 11),
                "{doc}"
            );
            if nome.contains('Ã') || !is_date(s.data_entrada_sociedade.as_deref().unwrap(), DateForm::Compact)
            {
                defects += 1;
            }
        }
        for cat in Categoria::ALL {
            for d in ds.dividas(&c, cat).unwrap() {
                records += 1;
                let (v, date) = (d.valor_consolidado.unwrap(), d.data_inscricao.unwrap());
                if is_defect(&v)
                    || !is_date(&date, DateForm::Br)
                    || date.ends_with("0202")
                    || date.ends_with("4100")
                {
                    defects += 1;
                    continue;
                }
                assert!(!v.contains(',') && v.split_once('.').is_some_and(|(_, f)| f.len() == 2), "{v}");
                assert!(matches!(d.indicador_ajuizado.as_deref(), Some("SIM" | "NAO")));
                assert_eq!(d.dataset_trimester.as_deref(), Some("2026T3"));
                assert_eq!(d.cpf_cnpj.as_deref(), Some(c.masked().as_str()));
            }
        }
        for p in ds.parcelamentos(&c).unwrap() {
            records += 1;
            let saldo = p.saldo_devedor.unwrap();
            assert!(p.valor_parcelado.unwrap().contains(','));
            if is_defect(&saldo) || !is_date(p.adesao_deferimento.as_deref().unwrap(), DateForm::Iso) {
                defects += 1;
            } else {
                assert!(cents_of(&saldo).is_some_and(|v| v >= 0) && saldo.contains(','), "{saldo}");
            }
            let uf = p.uf.unwrap();
            assert!(uf.len() == 2 || UF_INFO.iter().any(|u| u.name == uf), "{uf}");
        }
        for t in ds.transacoes(&c).unwrap() {
            records += 1;
            let saldo = t.saldo_devedor.unwrap();
            assert!(t.reducao.unwrap().contains("R$ "));
            assert!(t.contribuinte.unwrap().chars().count() >= 60, "right-padded to 60");
            if is_defect(&saldo) || !is_date(t.data_negociacao.as_deref().unwrap(), DateForm::Iso) {
                defects += 1;
            } else {
                assert!(saldo.starts_with("R$ ") && cents_of(&saldo).is_some_and(|v| v >= 0), "{saldo}");
            }
        }
    }
    let rate = defects as f64 / records as f64;
    println!("{records} company-table records, {defects} defective ({:.3}%)", rate * 100.0);
    assert!((0.0005..0.01).contains(&rate), "defect rate {rate}");
    assert!(mojibake_seen && impossible_seen);
    for c in ds.creditos_page(None, None, 0, 5000) {
        let v = c.valor_total.unwrap();
        assert!(v.contains(',') && cents_of(&v).is_some_and(|x| x > 0), "{v}");
    }
}

#[test]
fn works_round_trip_by_cno() {
    let ds = small();
    let mut works = 0;
    for i in 0..ds.company_count() {
        let c = ds.company_cnpj(i);
        let obras = ds.obras(&c).unwrap();
        for o in &obras {
            works += 1;
            let cno = o.cno.clone().unwrap();
            assert_eq!(cno.len(), 12);
            assert_eq!(ds.obra(&cno).as_ref(), Some(o));
            assert_eq!(o.ni_responsavel.as_deref(), Some(c.as_str()));
            let areas = ds.areas(&cno).unwrap();
            let total: i64 = areas.iter().map(|a| cents_of(a.metragem.as_deref().unwrap()).unwrap()).sum();
            assert_eq!(cents_of(o.area_total.as_deref().unwrap()), Some(total));
            assert!(!ds.vinculos(&cno).unwrap().is_empty() && !ds.cnaes(&cno).unwrap().is_empty());
            assert!(is_date(o.data_inicio.as_deref().unwrap(), DateForm::Iso));
        }
        assert!(ds.obra(&ds.codec.cno(i, obras.len() as u32)).is_none());
    }
    assert!(works >= 10, "{works} works");
}

#[test]
fn rural_properties_filter_and_look_up() {
    let ds = small();
    let all = ds.imoveis(None, None);
    assert_eq!(all.len(), ds.truth().imoveis);
    assert_eq!(all.len(), ds.imoveis_total(None, None));
    let mt = ds.imoveis(Some("mt"), None);
    assert_eq!(mt, ds.imoveis(Some("MT"), None));
    assert!(!mt.is_empty() && mt.iter().all(|p| p.uf.as_deref() == Some("MT")));
    let sorriso = ds.imoveis(Some("MT"), Some("SORRISO"));
    assert!(sorriso.iter().all(|p| p.municipio.as_deref() == Some("SORRISO")));
    assert_eq!(sorriso, ds.imoveis(None, Some("SORRISO")));
    assert!(ds.imoveis(None, Some("sorriso")).is_empty(), "municipio matches exactly");
    assert!(ds.imoveis(Some("XX"), None).is_empty());
    assert_eq!(ds.imoveis_page(None, None, 10, 5), all[10..15].to_vec());
    for p in &all {
        assert_eq!(ds.imovel(p.nirf.as_deref().unwrap()).as_ref(), Some(p));
    }
    let nirfs: BTreeSet<_> = all.iter().map(|p| p.nirf.clone()).collect();
    assert_eq!(nirfs.len(), all.len());
}
