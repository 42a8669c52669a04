//! The public lists of the synthetic registry (CGU's CEIS, CNEP, CEPIM and Leniência, the
//! MTE's Cadastro de Empregadores, IBAMA's embargoes): which of its companies and partners are
//! on which list, when, and whether each record is in force on the lists' date. Every way a
//! company can be touched is there: its own CNPJ, another establishment of its root, a company
//! partner, a partner's whole CPF (MTE), a partner's masked CPF with his name (CGU), a company
//! of its economic group; and records ended and not yet started. They move from month to month
//! at the dataset's latest month (`moving`): a company enters CEIS, one leaves it, one's
//! sanction ends. `open_data::listas` writes them in the published layouts.
//!
//! `truth` says, for a portfolio, which company each record touches and how, from the
//! dataset's own partners and groups: never through the client's reading or SQL.

use std::collections::{BTreeMap, BTreeSet};

use super::{Dataset, groups};
use registry_api::ids::Cnpj;
use registry_api::listas::{Lista, Vigencia};

/// A day (year, month, day).
pub type Day = (i32, u32, u32);

/// One record the dataset puts on a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListaRecord {
    /// `CEIS`, `CNEP`, `CEPIM`, `LENIENCIA`, `TRABALHO_ESCRAVO` or `IBAMA`.
    pub lista: &'static str,
    /// The document as the list writes it: 14 bare digits (CGU), punctuated (MTE, IBAMA),
    /// a masked CPF, or a placeholder.
    pub documento: String,
    pub tipo: &'static str,
    pub nome: String,
    pub inicio: Option<Day>,
    pub fim: Option<Day>,
    pub valor_multa_cents: Option<i64>,
    pub cancelado: bool,
    /// In force on the lists' date, by the rule of its list.
    pub vigente: bool,
    /// The row of its file (the MTE writes a row's periods in one cell).
    pub row: usize,
}

/// The lists of one dataset: their date, their records, and the companies they were made about.
#[derive(Debug, Clone, Default)]
pub struct Listas {
    pub date: Day,
    pub records: Vec<ListaRecord>,
    /// The head offices the records were made about (a portfolio holding them meets every way
    /// of being listed).
    pub targets: Vec<Cnpj>,
}

/// One record touching one portfolio company, as the truth has it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ListaTruth {
    pub cnpj: String,
    pub lista: String,
    pub vinculo: &'static str,
    pub vigente: bool,
    pub sancionado: String,
}

/// The demo run's portfolio size (`demo_portfolio`): its companies are listed first.
const DEMO_PORTFOLIO: usize = 200;

/// A Leniência CNPJ cell that is no CNPJ, as CGU's files hold some.
pub const PLACEHOLDER: &str = "EXEMPLOCORP";

/// Whether a record is in force on `date`, by its list's rule (`api::listas`): while listed;
/// an embargo until lifted or cancelled; a period once started and until it ends (an MTE
/// period too). An unknown list's record never is.
fn in_force(lista: &str, inicio: Option<Day>, fim: Option<Day>, cancelado: bool, date: Day) -> bool {
    match Lista::of_codigo(lista).map(|l| l.definicao().vigencia) {
        Some(Vigencia::EnquantoListado) => true,
        Some(Vigencia::Embargo) => !cancelado && fim.is_none_or(|f| f > date),
        Some(Vigencia::Periodo) => inicio.is_none_or(|i| i <= date) && fim.is_none_or(|f| f >= date),
        None => false,
    }
}

/// Adds a record to `out`, in force or not by its list's rule on the lists' date.
fn put(
    out: &mut Listas,
    lista: &'static str,
    documento: String,
    tipo: &'static str,
    nome: String,
    span: (Option<Day>, Option<Day>),
) {
    let row = out.records.len();
    out.records.push(ListaRecord {
        lista,
        documento,
        tipo,
        nome,
        inicio: span.0,
        fim: span.1,
        valor_multa_cents: None,
        cancelado: false,
        vigente: in_force(lista, span.0, span.1, false, out.date),
        row,
    });
}

/// The dataset's lists, dated the 28th of its latest month.
pub(super) fn lists(ds: &Dataset) -> Listas {
    let month = ds.latest_month().to_string();
    let year: i32 = month.get(0..4).and_then(|y| y.parse().ok()).unwrap_or(2026);
    let date = (year, month.get(4..6).and_then(|m| m.parse().ok()).unwrap_or(9), 28);
    let y = year;
    let mut out = Listas { date, ..Listas::default() };
    let o = &mut out;
    let total = ds.companies;
    let mut targets = Vec::new();
    // A group with three subsidiaries: its holding on CEIS (a partner of the first and third),
    // the third on CNEP (a company of the first one's group).
    if let Some(h) = groups::holdings(total).find(|&h| groups::subsidiaries(h, total).len() == 3) {
        let name =
            |i: usize| ds.profile(&ds.company_cnpj(i)).and_then(|p| p.empresa).and_then(|e| e.razao_social);
        let (holding, third) = (ds.company_cnpj(h), ds.company_cnpj(h + 3));
        put(
            o,
            "CEIS",
            holding.to_string(),
            "J",
            name(h).unwrap_or_default(),
            (Some((y - 1, 3, 10)), Some((y + 2, 3, 10))),
        );
        put(o, "CNEP", third.to_string(), "J", name(h + 3).unwrap_or_default(), (Some((y - 2, 5, 5)), None));
        targets.extend([ds.company_cnpj(h + 1), third]);
    }
    let mut picked: BTreeSet<usize> = BTreeSet::new();
    // The demo's portfolio first, so the demo's report shows companies listed; then the rest.
    let demo: Vec<usize> =
        ds.demo_portfolio(DEMO_PORTFOLIO).iter().filter_map(|c| ds.company_index(c)).collect();
    let mut pick = |k: usize, fits: &dyn Fn(&Cnpj) -> bool| -> Option<Cnpj> {
        let start = (k * total / 10 + total / 20) % total.max(1);
        let in_demo = demo.iter().cycle().skip(k * demo.len() / 10).take(demo.len()).copied();
        in_demo.chain((0..total).map(|d| (start + d) % total)).find_map(|i| {
            let cnpj = ds.company_cnpj(i);
            let free = !groups::is_member(i, total) && !picked.contains(&i) && fits(&cnpj);
            free.then(|| {
                picked.insert(i);
                cnpj
            })
        })
    };
    let branched = |c: &Cnpj| ds.estabelecimentos(c).is_some_and(|e| e.len() >= 2);
    let person = |c: &Cnpj| person_partner(ds, c).is_some();
    let any = |_: &Cnpj| true;
    let name =
        |c: &Cnpj| ds.profile(c).and_then(|p| p.empresa).and_then(|e| e.razao_social).unwrap_or_default();
    // Another establishment of the root, its sanction ended.
    if let Some(c) = pick(0, &branched) {
        let branch = ds
            .estabelecimentos(&c)
            .and_then(|e| e.get(1).and_then(|b| b.cnpj_completo.clone()))
            .unwrap_or_default();
        put(o, "CEIS", branch, "J", name(&c), (Some((y - 3, 1, 15)), Some((y - 1, 1, 15))));
        targets.push(c);
    }
    // Its own CNPJ, the sanction not yet started.
    if let Some(c) = pick(1, &any) {
        put(o, "CEIS", c.to_string(), "J", name(&c), (Some((y + 1, 2, 10)), Some((y + 3, 2, 10))));
        targets.push(c);
    }
    if let Some(c) = pick(2, &any) {
        put(o, "CEPIM", c.to_string(), "J", name(&c), (None, None));
        targets.push(c);
    }
    if let Some(c) = pick(3, &any) {
        put(o, "LENIENCIA", c.to_string(), "J", name(&c), (Some((y - 1, 7, 9)), None));
        targets.push(c);
    }
    put(o, "LENIENCIA", PLACEHOLDER.to_string(), "J", "EXEMPLO CORP SE".into(), (Some((y - 2, 1, 1)), None));
    // The MTE: a company out and back in (two periods, one row), a partner by his whole CPF.
    if let Some(c) = pick(4, &any) {
        let doc = punctuated(c.as_str());
        put(o, "TRABALHO_ESCRAVO", doc.clone(), "J", name(&c), (Some((y - 3, 10, 5)), Some((y - 2, 1, 13))));
        put(o, "TRABALHO_ESCRAVO", doc, "J", name(&c), (Some((y - 1, 11, 11)), None));
        let last = o.records.len() - 1;
        o.records[last].row = last - 1;
        targets.push(c);
    }
    if let Some(c) = pick(5, &person)
        && let Some((masked, nome)) = person_partner(ds, &c)
    {
        put(o, "TRABALHO_ESCRAVO", whole_cpf(&masked), "F", nome, (Some((y - 1, 4, 2)), None));
        targets.push(c);
    }
    // A partner's masked CPF with his name (CGU): possibly him.
    if let Some(c) = pick(6, &person)
        && let Some((masked, nome)) = person_partner(ds, &c)
    {
        put(o, "CEIS", masked, "F", nome, (Some((y - 1, 1, 1)), Some((y + 1, 1, 1))));
        targets.push(c);
    }
    put(o, "CEIS", "***000000**".into(), "F", "NINGUÉM DA SILVA".into(), (Some((y - 1, 1, 1)), None));
    // IBAMA: an embargo in force, one lifted.
    if let Some(c) = pick(7, &any) {
        put(o, "IBAMA", punctuated(c.as_str()), "J", name(&c), (Some((y - 1, 4, 5)), None));
        targets.push(c);
    }
    if let Some(c) = pick(8, &any) {
        put(o, "IBAMA", punctuated(c.as_str()), "J", name(&c), (Some((y - 3, 1, 2)), Some((y - 1, 6, 7))));
        targets.push(c);
    }
    peps(ds, o, &mut targets, &mut pick);
    moving(ds, o, &mut targets, &mut pick, &name);
    for r in o.records.iter_mut().filter(|r| r.lista == "CNEP") {
        r.valor_multa_cents = Some(123_456_789);
    }
    o.targets = targets;
    out
}

/// CGU's PEP register: a partner of a portfolio company in office (possibly him: a masked CPF
/// and his name), a namesake of his with other middle digits (no one's partner), and another
/// partner whose grace period ended before the lists' date (on the file, not in force). CGU
/// writes the masked CPF punctuated, `***.456.789-**`.
fn peps(ds: &Dataset, o: &mut Listas, targets: &mut Vec<Cnpj>, pick: &mut Pick<'_>) {
    let y = o.date.0;
    let person = |c: &Cnpj| person_partner(ds, c).is_some();
    if let Some(c) = pick(12, &person)
        && let Some((masked, nome)) = person_partner(ds, &c)
    {
        put(o, "PEP", cgu_masked(&masked), "F", nome.clone(), (Some((y - 1, 1, 1)), Some((y + 7, 12, 31))));
        let other = format!("***{}**", masked.trim_matches('*').chars().rev().collect::<String>());
        let other = if other == masked { "***000001**".to_string() } else { other };
        put(o, "PEP", cgu_masked(&other), "F", nome, (Some((y - 1, 1, 1)), Some((y + 7, 12, 31))));
        targets.push(c);
    }
    if let Some(c) = pick(13, &person)
        && let Some((masked, nome)) = person_partner(ds, &c)
    {
        put(o, "PEP", cgu_masked(&masked), "F", nome, (Some((y - 9, 1, 1)), Some((y - 1, 12, 31))));
        targets.push(c);
    }
}

/// RFB's masked CPF (`***456789**`) as CGU's PEP file writes one: `***.456.789-**`.
fn cgu_masked(masked: &str) -> String {
    let middle = masked.trim_matches('*');
    format!("***.{}.{}-**", middle.get(..3).unwrap_or(""), middle.get(3..).unwrap_or(""))
}

/// Picks the `k`-th company not yet picked that fits (see `lists`).
type Pick<'a> = dyn FnMut(usize, &dyn Fn(&Cnpj) -> bool) -> Option<Cnpj> + 'a;

/// The records that move at the dataset's latest month (the turn): a company on CEIS from the
/// turn's first day, one on CEIS until the month before it, one whose CEIS sanction ends on the
/// turn's 15th (in force on the 28th of the month before, ended on the turn's). As of the turn
/// the first is listed and the second is not; as of any month before, the other way round.
fn moving(
    ds: &Dataset,
    o: &mut Listas,
    targets: &mut Vec<Cnpj>,
    pick: &mut Pick<'_>,
    name: &dyn Fn(&Cnpj) -> String,
) {
    let any = |_: &Cnpj| true;
    let turn = ds.months[ds.months.len() - 1];
    let (ty, tm) = (i32::from(turn.year()), u32::from(turn.month()));
    let at_turn = ds.as_of + 1 == ds.months.len();
    if let Some(c) = pick(9, &any) {
        if at_turn {
            put(o, "CEIS", c.to_string(), "J", name(&c), (Some((ty, tm, 1)), None));
        }
        targets.push(c);
    }
    if let Some(c) = pick(10, &any) {
        if !at_turn {
            put(o, "CEIS", c.to_string(), "J", name(&c), (Some((ty - 2, 6, 1)), None));
        }
        targets.push(c);
    }
    if let Some(c) = pick(11, &any) {
        put(o, "CEIS", c.to_string(), "J", name(&c), (Some((ty - 1, 1, 1)), Some((ty, tm, 15))));
        targets.push(c);
    }
}

/// The first person partner of `cnpj` (masked CPF, name).
fn person_partner(ds: &Dataset, cnpj: &Cnpj) -> Option<(String, String)> {
    ds.socios(cnpj)?.into_iter().find_map(|s| {
        let doc = s.cnpj_cpf_socio?;
        let person =
            s.identificador_socio.as_deref() == Some("2") && doc.starts_with("***") && doc != "***999999**";
        person.then_some((doc, s.nome_socio_razao_social?))
    })
}

/// A whole CPF, punctuated, whose middle six digits are those a masked one shows.
fn whole_cpf(masked: &str) -> String {
    let middle = masked.trim_matches('*');
    format!("987.{}.{}-65", &middle[..3.min(middle.len())], middle.get(3..).unwrap_or(""))
}

/// A CNPJ as the MTE and IBAMA write it: `12.345.678/0001-95`.
fn punctuated(cnpj: &str) -> String {
    let part = |a: usize, b: usize| cnpj.get(a..b).unwrap_or("");
    format!("{}.{}.{}/{}-{}", part(0, 2), part(2, 5), part(5, 8), part(8, 12), part(12, 14))
}

/// Which records of `lists` touch each company of `portfolio`, and how: its own CNPJ, another
/// establishment of its root, a partner (a whole CNPJ, or a whole CPF whose middle digits and
/// name are a person partner's), a masked CPF with a partner's name, a company of its group
/// (the groups the portfolio's own partners lists make). The closest way when several hold.
pub(super) fn truth(ds: &Dataset, lists: &Listas, portfolio: &[Cnpj]) -> Vec<ListaTruth> {
    let groups = ds.groups_truth(portfolio, 0);
    let mut out = Vec::new();
    let companies: BTreeSet<&Cnpj> = portfolio.iter().collect();
    for c in companies {
        let (cnpj, root) = (c.as_str(), c.basico());
        let partners: Vec<(String, String)> = ds
            .socios(c)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|s| {
                Some((s.cnpj_cpf_socio?, s.nome_socio_razao_social.unwrap_or_default().to_uppercase()))
            })
            .collect();
        let group: BTreeSet<&str> = groups
            .iter()
            .find(|g| g.members.iter().any(|m| m == root))
            .map(|g| g.members.iter().map(String::as_str).collect())
            .unwrap_or_default();
        for r in &lists.records {
            let digits: String = r.documento.chars().filter(char::is_ascii_digit).collect();
            let whole = !r.documento.contains('*') && matches!(digits.len(), 11 | 14);
            let nome = r.nome.to_uppercase();
            let partner = |doc: &str| partners.iter().any(|(d, n)| d == doc && *n == nome);
            let vinculo = if whole && digits == cnpj {
                Some("cnpj")
            } else if whole && digits.len() == 14 && digits[..8] == *root {
                Some("raiz")
            } else if (whole && digits.len() == 14 && partners.iter().any(|(d, _)| *d == digits))
                || (whole && digits.len() == 11 && partner(&format!("***{}**", &digits[3..9])))
            {
                Some("socio")
            } else if r.documento.starts_with("***") && partner(&r.documento.replace(['.', '-'], "")) {
                Some("socio_possivel")
            } else if whole && digits.len() == 14 && group.contains(&digits[..8]) {
                Some("grupo")
            } else {
                None
            };
            if let Some(vinculo) = vinculo {
                out.push(ListaTruth {
                    cnpj: cnpj.to_string(),
                    lista: r.lista.to_string(),
                    vinculo,
                    vigente: r.vigente,
                    sancionado: r.documento.clone(),
                });
            }
        }
    }
    out.sort();
    out
}

/// The records of `lists` by list, in row order (what each file holds).
pub fn by_lista(lists: &Listas) -> BTreeMap<&'static str, Vec<&ListaRecord>> {
    let mut out: BTreeMap<&'static str, Vec<&ListaRecord>> = BTreeMap::new();
    for r in &lists.records {
        out.entry(r.lista).or_default().push(r);
    }
    out
}
