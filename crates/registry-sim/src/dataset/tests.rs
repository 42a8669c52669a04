//! Dataset-level tests: determinism, id codecs, credit paging and dynamics, and the shares
//! the brief asks for. Record-level checks live in `tests_records`.

use std::collections::BTreeSet;
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::codec::Codec;
use super::company::{Core, is_whale};
use super::geo::{MUNICIPIOS, UF_INFO};
use super::text::{
    Date, DateForm, broken_date, mangled_name, mojibake, money_br, money_brl, money_comma, money_dot,
};
use super::vocab::{CNAES, OBRA_CNAES, SECTIONS, section_of_division};
use super::*;

pub(super) fn small() -> Dataset {
    Dataset::generate(42, 0.05)
}

/// Reads the money forms back (tests only: the truth never parses strings).
pub(super) fn cents_of(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let s = s.strip_prefix("R$ ").unwrap_or(s);
    let (int, frac) = match s.rsplit_once(',') {
        Some((i, f)) => (i.replace('.', ""), f),
        None => {
            let (i, f) = s.rsplit_once('.')?;
            (i.to_string(), f)
        }
    };
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if frac.len() != 2 || !digits(&int) || !digits(frac) {
        return None;
    }
    let v = int.parse::<i64>().ok()? * 100 + frac.parse::<i64>().ok()?;
    Some(if neg { -v } else { v })
}

fn month(y: u16, m: u8) -> AnoMes {
    AnoMes::new(y, m).unwrap()
}

/// Everything a client could fetch for the given companies, as JSON.
fn dump(ds: &Dataset, cnpjs: &[Cnpj]) -> String {
    let mut out = String::new();
    for c in cnpjs {
        out += &serde_json::to_string(&ds.profile(c)).unwrap();
        out += &serde_json::to_string(&ds.estabelecimentos(c)).unwrap();
        out += &serde_json::to_string(&ds.socios(c)).unwrap();
        let obras = ds.obras(c).unwrap();
        out += &serde_json::to_string(&obras).unwrap();
        for o in &obras {
            let cno = o.cno.as_deref().unwrap();
            out += &serde_json::to_string(&(ds.vinculos(cno), ds.cnaes(cno), ds.areas(cno))).unwrap();
        }
        for cat in Categoria::ALL {
            out += &serde_json::to_string(&ds.dividas(c, cat)).unwrap();
        }
        out += &serde_json::to_string(&ds.parcelamentos(c)).unwrap();
        out += &serde_json::to_string(&ds.transacoes(c)).unwrap();
    }
    out += &serde_json::to_string(&ds.imoveis(None, None)).unwrap();
    let total = ds.creditos_total(None, None);
    out += &serde_json::to_string(&ds.creditos_page(None, None, total / 3, 500)).unwrap();
    out += &serde_json::to_string(&ds.truth()).unwrap();
    out += &serde_json::to_string(&ds.portfolio_truth(cnpjs)).unwrap();
    out
}

#[test]
fn same_seed_gives_identical_bytes() {
    let (a, b) = (small(), small());
    assert_eq!(a.truth(), b.truth());
    let cnpjs = a.demo_portfolio(30);
    assert_eq!(cnpjs, b.demo_portfolio(30));
    assert_eq!(dump(&a, &cnpjs), dump(&b, &cnpjs));
}

/// Pins the bytes of seed 42 at scale 0.05, so a platform or dependency change that alters
/// the data fails here. Update the constant only when the generator is changed on purpose.
#[test]
fn golden_digest_of_seed_42() {
    let ds = small();
    let digest = hex::encode(Sha256::digest(dump(&ds, &ds.demo_portfolio(30)).as_bytes()));
    println!("golden digest: {digest}");
    assert_eq!(digest, GOLDEN);
}

// Changed on purpose: the fingerprint covers the partners too; before that, an open work
// link's `data_fim` is null, not "" (the interface types it a date), inscription numbers made
// unique and co-debtors' copies added.
const GOLDEN: &str = "1bee1ea73fa242e121317f01d94c80bfd41484399236b4b360d77ae447e830e4";

#[test]
fn dataset_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Dataset>();
}

#[test]
fn different_seeds_differ() {
    let (a, b) = (small(), Dataset::generate(43, 0.05));
    assert_ne!(a.company_cnpj(0), b.company_cnpj(0));
    assert_ne!(a.truth().credits, b.truth().credits);
}

#[test]
fn months_are_36_consecutive() {
    let ds = small();
    let m = ds.months();
    assert_eq!(m.len(), 36);
    assert_eq!(m[0], month(2023, 10));
    assert_eq!(ds.latest_month(), month(2026, 9));
    assert!(m.windows(2).all(|w| w[0].plus_months(1) == Some(w[1])));
}

#[test]
fn fontes_are_stable() {
    let ds = small();
    let f = ds.fontes();
    assert_eq!(f.keys().cloned().collect::<Vec<_>>(), ["cafir", "cno", "cnpj", "pgfn", "rfb"]);
    assert!(f.values().all(|v| v.status.as_deref() == Some("ok")));
    assert_eq!(ds.fonte_for("dividas-pgfn").versao.as_deref(), Some("2026T3"));
    assert_eq!(ds.fonte_for("creditos-ativos"), f["rfb"]);
    assert_eq!(ds.fonte_for("anything"), f["cnpj"]);
}

#[test]
fn cnpj_round_trip_with_branches() {
    let ds = small();
    let mut branches_seen = 0;
    for i in (0..ds.company_count()).step_by(3).chain([ds.company_count() - 1]) {
        let head = ds.company_cnpj(i);
        assert_eq!(Cnpj::parse(head.as_str()).as_ref(), Ok(&head), "check digits of {head}");
        assert_eq!(&head.as_str()[8..12], "0001");
        assert_eq!(ds.company_index(&head), Some(i));
        let estabs = ds.estabelecimentos(&head).unwrap();
        for (k, e) in estabs.iter().enumerate() {
            let c = Cnpj::parse(e.cnpj_completo.as_deref().unwrap()).unwrap();
            assert_eq!(c.basico(), head.basico());
            assert_eq!(e.cnpj_ordem.as_deref(), Some(format!("{:04}", k + 1).as_str()));
            assert_eq!(e.identificador_matriz_filial.as_deref(), Some(if k == 0 { "1" } else { "2" }));
            assert_eq!(ds.company_index(&c), Some(i));
            branches_seen += usize::from(k > 0);
        }
        let beyond = ds.codec.cnpj(i, estabs.len() as u32 + 1);
        assert_eq!(ds.company_index(&beyond), None, "ordem past the last branch");
        assert_eq!(ds.company_index(&ds.codec.cnpj(i, 0)), None);
    }
    assert!(branches_seen > 10);
    for i in ds.company_count()..ds.company_count() + 50 {
        assert_eq!(ds.company_index(&ds.codec.cnpj(i, 1)), None);
    }
}

#[test]
fn unknown_ids_answer_none() {
    let ds = small();
    let outside = ds.codec.cnpj(ds.company_count() + 5, 1);
    assert!(ds.profile(&outside).is_none());
    assert!(ds.estabelecimentos(&outside).is_none());
    assert!(ds.obras(&outside).is_none());
    assert!(ds.socios(&outside).is_none());
    assert!(ds.dividas(&outside, Categoria::Fgts).is_none());
    assert!(ds.parcelamentos(&outside).is_none());
    assert!(ds.transacoes(&outside).is_none());
    let alien = Cnpj::parse("11.222.333/0001-81").unwrap();
    assert!(ds.profile(&alien).is_none());
    for cno in ["000000000000", "123456789012", &ds.codec.cno(ds.company_count() + 1, 0)] {
        assert!(ds.obra(cno).is_none() && ds.vinculos(cno).is_none(), "{cno}");
        assert!(ds.cnaes(cno).is_none() && ds.areas(cno).is_none(), "{cno}");
    }
    assert!(ds.obra("12345").is_none());
    assert!(ds.imovel(&ds.codec.nirf(ds.truth().imoveis)).is_none());
    assert!(ds.imovel("1234567").is_none());
    // A known company without records of a kind answers an empty list, not None.
    let quiet = (0..ds.company_count()).map(|i| Core::generate(&ds, i)).find(|c| c.transacoes == 0).unwrap();
    assert_eq!(ds.transacoes(&quiet.cnpj), Some(vec![]));
}

#[test]
fn profile_of_branch_shows_that_branch() {
    let ds = small();
    let core = (0..ds.company_count()).map(|i| Core::generate(&ds, i)).find(|c| c.branches >= 2).unwrap();
    let branch = ds.codec.cnpj(core.index, 3);
    let p = ds.profile(&branch).unwrap();
    assert_eq!(p.cnpj.as_deref(), Some(branch.as_str()));
    let e = p.estabelecimento.unwrap();
    assert_eq!(e.cnpj_completo.as_deref(), Some(branch.as_str()));
    assert_eq!(e.identificador_matriz_filial.as_deref(), Some("2"));
    assert_eq!(p.empresa.unwrap().cnpj_basico.as_deref(), Some(core.cnpj.basico()));
    assert_eq!(p.snapshot_fingerprint.unwrap().len(), 64);
    assert_eq!(
        ds.dividas(&branch, Categoria::NaoPrevidenciario),
        ds.dividas(&core.cnpj, Categoria::NaoPrevidenciario)
    );
}

fn check_paging(ds: &Dataset, uf: Option<&str>, ano_mes: Option<AnoMes>) {
    let total = ds.creditos_total(uf, ano_mes);
    let full = ds.creditos_page(uf, ano_mes, 0, total + 10);
    assert_eq!(full.len(), total);
    let mut paged = Vec::new();
    for offset in (0..total).step_by(997) {
        paged.extend(ds.creditos_page(uf, ano_mes, offset, 997));
    }
    assert_eq!(paged, full);
    assert!(ds.creditos_page(uf, ano_mes, total, 100).is_empty());
    let sum: i128 =
        full.iter().map(|c| i128::from(cents_of(c.valor_total.as_deref().unwrap()).unwrap())).sum();
    assert_eq!(sum, ds.creditos_cents(uf, ano_mes));
    let key = |c: &CreditoAtivo| {
        let uf = UFS.iter().position(|u| Some(*u) == c.uf.as_deref()).unwrap();
        (c.ano_mes.clone().unwrap(), uf)
    };
    assert!(full.windows(2).all(|w| key(&w[0]) <= key(&w[1])), "ordered by month then UF");
    let combos: BTreeSet<_> = full
        .iter()
        .map(|c| {
            (
                c.ano_mes.clone(),
                c.uf.clone(),
                c.cnae_secao_cod.clone(),
                c.grupo_tributo.clone(),
                c.situacao.clone(),
                c.tipo_contribuinte.clone(),
                c.natureza_juridica.clone(),
            )
        })
        .collect();
    assert_eq!(combos.len(), total, "no duplicate dimension rows");
}

#[test]
fn credit_pages_concatenate_to_the_filtered_list() {
    let ds = small();
    check_paging(&ds, None, None);
    check_paging(&ds, Some("sp"), None);
    check_paging(&ds, None, Some(month(2025, 4)));
    check_paging(&ds, Some("RR"), Some(month(2026, 9)));
    assert_eq!(ds.creditos_total(Some("XX"), None), 0);
    assert_eq!(ds.creditos_total(None, Some(month(2023, 9))), 0);
    assert_eq!(ds.creditos_cents(Some("XX"), None), 0);
    let t = ds.truth();
    assert_eq!(t.credits.len(), 36 * 27);
    assert_eq!(t.credits.iter().map(|c| c.rows).sum::<usize>(), ds.creditos_total(None, None));
    for c in t.credits.iter().step_by(37) {
        let m = AnoMes::parse(&c.ano_mes).unwrap();
        assert_eq!(i128::from(c.total_cents), ds.creditos_cents(Some(&c.uf), Some(m)));
        assert_eq!(c.rows, ds.creditos_total(Some(&c.uf), Some(m)));
    }
}

#[test]
fn credits_have_trend_season_churn_and_jumps() {
    let ds = Dataset::generate(42, 0.2);
    let total = |uf: Option<&str>, y, m| ds.creditos_cents(uf, Some(month(y, m)));
    assert!(total(None, 2026, 9) > total(None, 2023, 10), "growth trend");
    let rows: BTreeSet<usize> = ds.months().iter().map(|m| ds.creditos_total(None, Some(*m))).collect();
    assert!(rows.len() > 5, "row counts churn between months");
    let cell = |uf: &str, sec: &str, grupo: &str, y, m| -> i64 {
        ds.creditos_page(Some(uf), Some(month(y, m)), 0, usize::MAX)
            .iter()
            .filter(|c| c.cnae_secao_cod.as_deref() == Some(sec) && c.grupo_tributo.as_deref() == Some(grupo))
            .map(|c| cents_of(c.valor_total.as_deref().unwrap()).unwrap())
            .sum()
    };
    let (before, after) = (cell("SP", "C", "IPI", 2026, 8), cell("SP", "C", "IPI", 2026, 9));
    assert!(after > before * 2, "SP/C/IPI jump: {before} -> {after}");
    let (before, after) = (cell("RJ", "K", "IOF", 2026, 7), cell("RJ", "K", "IOF", 2026, 8));
    assert!(after * 2 < before, "RJ/K/IOF drop: {before} -> {after}");
    let irpf = |m| cell("SP", "A", "IRPF", 2025, m) + cell("MG", "A", "IRPF", 2025, m);
    assert!(irpf(4) > irpf(2), "IRPF April peak");
}

#[test]
fn sp_is_the_largest_uf() {
    let ds = small();
    let mut per_uf = [0usize; 27];
    for i in 0..ds.company_count() {
        per_uf[Core::generate(&ds, i).uf] += 1;
    }
    let sp = UFS.iter().position(|u| *u == "SP").unwrap();
    assert_eq!(per_uf.iter().enumerate().max_by_key(|(_, n)| **n).map(|(i, _)| i), Some(sp));
    let share = per_uf[sp] as f64 / ds.company_count() as f64;
    assert!((0.22..0.45).contains(&share), "SP share {share}");
    let latest = ds.latest_month();
    let credit = |uf: &str| ds.creditos_cents(Some(uf), Some(latest));
    assert!(UFS.iter().all(|u| *u == "SP" || credit(u) < credit("SP")));
    assert!(credit("RR") * 20 < credit("SP") && ds.creditos_total(Some("AC"), Some(latest)) > 0);
}

#[test]
fn large_debtors_exist_at_small_scale() {
    let ds = small();
    let whales: Vec<Core> = (0..ds.company_count())
        .map(|i| Core::generate(&ds, i))
        .filter(|c| c.debts.iter().any(|&d| d > 200))
        .collect();
    assert!(whales.len() >= 3, "{} companies with >200 registrations", whales.len());
    for w in &whales {
        assert!(is_whale(w.index));
        let cat = Categoria::ALL[w.debts.iter().position(|&d| d > 200).unwrap()];
        assert_eq!(
            super::debts::own_dividas(&ds, w, cat).len(),
            w.debts[Categoria::ALL.iter().position(|c| *c == cat).unwrap()] as usize
        );
    }
}

#[test]
fn shares_follow_the_brief() {
    let ds = Dataset::generate(5, 0.4);
    let n = ds.company_count() as f64;
    let cores: Vec<Core> = (0..ds.company_count()).map(|i| Core::generate(&ds, i)).collect();
    let share = |f: &dyn Fn(&Core) -> bool| cores.iter().filter(|c| f(c)).count() as f64 / n;
    let nao_prev = share(&|c| c.debts[0] > 0);
    assert!((0.34..0.46).contains(&nao_prev), "non-previdenciario {nao_prev}");
    assert!(share(&|c| c.debts[1] > 0) < nao_prev && share(&|c| c.debts[2] > 0) < nao_prev);
    let parc = share(&|c| c.parcelamentos > 0);
    assert!((0.18..0.32).contains(&parc), "parcelamentos {parc}");
    let trans = share(&|c| c.transacoes > 0);
    assert!((0.06..0.14).contains(&trans), "transacoes {trans}");
    let debtors: Vec<u32> = cores.iter().flat_map(|c| c.debts).filter(|&d| d > 0).collect();
    let small_counts = debtors.iter().filter(|&&d| d <= 5).count() as f64 / debtors.len() as f64;
    assert!(small_counts > 0.7, "most debtors have 1-5 registrations: {small_counts}");
    let big = share(&|c| c.debts.iter().any(|&d| (120..=400).contains(&d)));
    assert!((0.005..0.02).contains(&big), "large debtors {big}");
    let obras = share(&|c| c.obras > 0);
    assert!((0.03..0.15).contains(&obras), "obras {obras}");
    let with_branches = share(&|c| c.branches > 0);
    assert!((0.15..0.45).contains(&with_branches), "branches {with_branches}");
}

#[test]
fn cnae_codes_map_to_their_sections() {
    let letters: Vec<&str> = SECTIONS.iter().map(|s| s.letter).collect();
    assert_eq!(letters.concat(), "ABCDEFGHIJKLMNOPQRSTU");
    for c in CNAES {
        assert_eq!(c.code.len(), 7);
        let div: u32 = c.code[..2].parse().unwrap();
        assert_eq!(section_of_division(div), Some(c.section), "{}", c.code);
    }
    for c in OBRA_CNAES {
        assert_eq!(section_of_division(c[..2].parse().unwrap()), Some("F"));
    }
    let ds = small();
    for i in 0..ds.company_count() {
        let head = ds.company_cnpj(i);
        for e in ds.estabelecimentos(&head).unwrap() {
            let main = e.cnae_fiscal_principal.unwrap();
            assert!(CNAES.iter().any(|c| c.code == main));
            for sec in e.cnae_fiscal_secundaria.unwrap().split(',').filter(|s| !s.is_empty()) {
                assert!(section_of_division(sec[..2].parse().unwrap()).is_some());
            }
        }
        for p in ds.parcelamentos(&head).unwrap() {
            assert_eq!(p.cnae.unwrap().len(), 7);
        }
    }
    for c in ds.creditos_page(None, Some(ds.latest_month()), 0, usize::MAX) {
        let s = SECTIONS.iter().find(|s| Some(s.letter) == c.cnae_secao_cod.as_deref()).unwrap();
        assert_eq!(c.cnae_secao_descr.as_deref(), Some(s.descr()));
        assert_eq!(
            c.tipo_contribuinte.as_deref() == Some("PF"),
            c.natureza_juridica.as_deref() == Some("0000")
        );
    }
}

#[test]
fn geography_tables_are_consistent() {
    assert!(UF_INFO.iter().zip(UFS).all(|(info, code)| info.code == code));
    let total: u32 = UF_INFO.iter().map(|u| u.company_weight).sum();
    let sp = UF_INFO.iter().find(|u| u.code == "SP").unwrap().company_weight;
    assert!((0.3..0.36).contains(&(f64::from(sp) / f64::from(total))));
    for uf in UFS {
        let muns: Vec<usize> = (0..MUNICIPIOS.len()).filter(|&i| MUNICIPIOS[i].uf == uf).collect();
        assert!(!muns.is_empty(), "{uf}");
        assert!(muns.windows(2).all(|w| w[1] == w[0] + 1), "{uf} municipalities contiguous");
        assert!(
            muns.iter().any(|&i| MUNICIPIOS[i].urban > 0) && muns.iter().any(|&i| MUNICIPIOS[i].rural > 0)
        );
    }
    assert!(MUNICIPIOS.iter().all(|m| m.ibge.len() == 7 && m.ddd.len() == 2));
}

#[test]
fn demo_portfolio_spreads_and_mixes() {
    let ds = small();
    let p = ds.demo_portfolio(20);
    assert_eq!(p.len(), 20);
    assert_eq!(p.iter().collect::<BTreeSet<_>>().len(), 20);
    let cores: Vec<Core> = p.iter().map(|c| Core::generate(&ds, ds.company_index(c).unwrap())).collect();
    assert!(cores.iter().any(|c| is_whale(c.index)));
    assert!(cores.iter().any(|c| c.debts == [0, 0, 0]) && cores.iter().any(|c| c.debts[0] > 0));
    assert_eq!(ds.demo_portfolio(10_000).len(), ds.company_count());
    assert!(ds.demo_portfolio(0).is_empty());
}

#[test]
fn text_forms() {
    assert_eq!(money_br(123_456_789), "1.234.567,89");
    assert_eq!(money_br(5), "0,05");
    assert_eq!(money_dot(31_203_884), "312038.84");
    assert_eq!(money_brl(-123_456), "-R$ 1.234,56");
    assert_eq!(money_brl(100), "R$ 1,00");
    assert_eq!(money_comma(100_000), "1000,00");
    assert_eq!(mojibake("Sócio"), "SÃ³cio");
    assert_eq!(mangled_name("JOAO SILVA"), "JOÃƒO SILVA");
    for days in [-800_000i64, -1, 0, 59, 20_000, 2_000_000] {
        assert_eq!(Date::from_days(days).days(), days);
    }
    assert_eq!(Date::new(2024, 2, 29).plus_days(1), Date::new(2024, 3, 1));
    assert_eq!(Date::new(202, 12, 31).compact(), "02021231");
    assert_eq!(Date::new(4100, 1, 1).br(), "01/01/4100");
    let mut rng = super::rng::entity_rng(1, 1, 1);
    for _ in 0..20 {
        let b = broken_date(&mut rng, DateForm::Iso);
        assert!(["", "null", "0202-12-31", "4100-01-01"].contains(&b.as_str()));
    }
}

#[test]
fn codecs_are_bijective() {
    let codec = Codec::new(99);
    for i in (0..Codec::MAX_COMPANIES).step_by(9_999_991).chain([0, 1, Codec::MAX_COMPANIES - 1]) {
        for ordem in [1, 2, 7] {
            assert_eq!(codec.decode_digits(codec.cnpj(i, ordem).as_str()), Some((i, ordem)));
        }
        for k in [0, 5, 7] {
            assert_eq!(codec.decode_cno(&codec.cno(i, k)), Some((i, k)));
        }
    }
    for i in (0..Codec::MAX_PROPERTIES).step_by(999_983).chain([Codec::MAX_PROPERTIES - 1]) {
        assert_eq!(codec.decode_nirf(&codec.nirf(i)), Some(i));
    }
    let cno = codec.cno(12, 3);
    let flipped = format!("{}{}", &cno[..11], (cno.as_bytes()[11] - b'0' + 1) % 10);
    assert_eq!(codec.decode_cno(&flipped), None);
}

#[test]
fn scale_one_is_fast_and_small() {
    let start = Instant::now();
    let ds = Dataset::generate(2024, 1.0);
    let elapsed = start.elapsed();
    let rows = ds.creditos_total(None, None);
    let mb = ds.approx_heap_bytes() as f64 / 1e6;
    println!(
        "scale 1.0: generated in {elapsed:?}; {} companies, {} properties, {rows} credit rows ({} in 202609), {mb:.1} MB",
        ds.company_count(),
        ds.truth().imoveis,
        ds.creditos_total(None, Some(ds.latest_month()))
    );
    assert_eq!(ds.company_count(), 5000);
    assert!(mb < 100.0);
    let start = Instant::now();
    let whale = ds.company_cnpj(7);
    let p = ds.profile(&whale).unwrap();
    println!("profile of a large debtor in {:?} ({:?})", start.elapsed(), p.resumos.map(|r| r.len()));
}

#[test]
fn the_demo_portfolio_holds_economic_groups_linked_by_partner_companies() {
    let ds = Dataset::generate(42, 1.0);
    let portfolio = ds.demo_portfolio(150);
    let linked = ds.groups_truth(&portfolio, 0);
    let with_two_in_portfolio = linked.iter().filter(|g| g.portfolio_cnpjs >= 2).count();
    assert!(with_two_in_portfolio >= 4, "{linked:#?}");
    // Some groups miss their holding, which only the expansion fetches.
    let expanded = ds.groups_truth(&portfolio, 3);
    let counted = |gs: &[GroupTruth]| gs.iter().map(|g| g.counted.len()).sum::<usize>();
    assert!(counted(&expanded) > counted(&linked));
    for g in &expanded {
        let members: BTreeSet<&String> = g.members.iter().collect();
        assert!(g.counted.iter().all(|c| members.contains(c)));
    }
    // A head office and its branch share a root: one group of one company, counted once.
    let core = (0..ds.company_count()).map(|i| Core::generate(&ds, i)).find(|c| c.branches > 0).unwrap();
    let branch = ds.codec.cnpj(core.index, 2);
    let only = ds.groups_truth(&[core.cnpj.clone(), branch], 0);
    let own = only.iter().find(|g| g.members.contains(&core.cnpj.basico().to_string())).unwrap();
    assert_eq!(own.portfolio_cnpjs, 2);
    assert_eq!(own.counted, vec![core.cnpj.basico().to_string()]);
}
