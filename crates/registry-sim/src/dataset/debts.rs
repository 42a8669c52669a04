//! Money tables of a company: PGFN active-debt registrations (three categorias), RFB
//! instalment plans and negotiated transactions. Each record is returned with the cents
//! it was rendered from (`None` when its money field is a deliberate defect), which is the
//! ground truth; nothing here parses strings back.

use super::Dataset;
use super::company::{Core, uf_name};
use super::groups;
use super::history::{self, ListHistory};
use super::rng::{
    DetRng, below, between, entity_rng, heavy_cents, per_mille, pick, scale_cents, stream, weighted,
};
use super::text::{
    Date, DateForm, TODAY, broken_date, broken_money, defect, money_br, money_brl, money_dot, right_pad,
};
use registry_api::ids::Categoria;
use registry_api::models::{DividaPgfn, ParcelamentoRfb, TransacaoRfb};

/// `dataset_trimester` of the PGFN tables (quarter of the latest month).
pub(super) const DATASET_TRIMESTER: &str = "2026T3";

/// A rendered record and its money in cents (`None`: the field is blank or `null`).
#[derive(Clone)]
pub(super) struct Priced<T> {
    pub item: T,
    pub cents: Option<i64>,
}

#[derive(Clone)]
pub(super) struct DebtRow {
    pub priced: Priced<DividaPgfn>,
    pub ajuizado: bool,
    /// The record's ordinal in its company's list (`history::GONE_ORDINAL` for the ended one):
    /// which of a principal's inscriptions a co-responsible shares is decided by it.
    pub ordinal: u32,
}

/// (situacao_inscricao, tipo_situacao_inscricao, only when ajuizado is this, weight).
const SITUACOES: [(&str, &str, Option<bool>, u32); 12] = [
    ("ATIVA EM COBRANCA", "Em cobrança", Some(false), 300),
    ("ATIVA A SER AJUIZADA", "Em cobrança", Some(false), 120),
    ("PROTESTADA", "Em cobrança", Some(false), 60),
    ("ATIVA AJUIZADA", "Em cobrança", Some(true), 200),
    ("ATIVA AJUIZADA - GARANTIA - PENHORA", "Garantia", Some(true), 60),
    ("ATIVA AJUIZADA - GARANTIA - SEGURO GARANTIA", "Garantia", Some(true), 30),
    ("ATIVA AJUIZADA - EMBARGOS DO DEVEDOR", "Suspenso por decisão judicial", Some(true), 30),
    ("SUSPENSA POR DECISAO JUDICIAL", "Suspenso por decisão judicial", None, 20),
    ("EM NEGOCIACAO NO SISPAR", "Em negociação", None, 60),
    ("ATIVA EM COBRANCA - TRANSACAO", "Em negociação", None, 40),
    ("ATIVA - PARCELAMENTO SIMPLIFICADO", "Benefício Fiscal", None, 50),
    ("ATIVA - AGUARDANDO DEFINICAO", "Outros", None, 10),
];

/// (receita_principal, digit of the inscription number, weight).
const RECEITAS: [(&str, u32, u32); 10] = [
    ("IRPJ", 2, 15),
    ("CSLL", 6, 10),
    ("PIS", 6, 10),
    ("COFINS", 6, 18),
    ("IPI", 6, 6),
    ("IOF", 6, 2),
    ("IRPF", 1, 2),
    ("Imposto de Importação", 6, 2),
    ("SIMPLES", 4, 18),
    ("MEI", 4, 5),
];

/// The tax group each of the dataset's `RECEITA_PRINCIPAL` values belongs to (the service's
/// groups), for the national truth: named here value by value, apart from the reader's rule.
pub(super) fn tax_group_of(categoria: Categoria, receita: &str) -> &'static str {
    match (categoria, receita) {
        (Categoria::Previdenciario, _) => "Contribuições previdenciárias",
        (Categoria::Fgts, _) => "FGTS",
        (_, "IRPJ") => "IRPJ",
        (_, "CSLL") => "CSLL",
        (_, "PIS") => "PIS/PASEP",
        (_, "COFINS") => "COFINS",
        (_, "IPI") => "IPI",
        (_, "IOF") => "IOF",
        (_, "IRPF") => "IRPF",
        (_, "SIMPLES" | "MEI") => "Simples Nacional",
        _ => "Outros",
    }
}

const TIPOS_PREV: [&str; 5] = [
    "CONTRIBUICAO PREVIDENCIARIA - PARTE PATRONAL",
    "CONTRIBUICAO DOS SEGURADOS",
    "CONTRIBUICAO DESTINADA A TERCEIROS",
    "GILRAT",
    "MULTA POR DESCUMPRIMENTO DE OBRIGACAO ACESSORIA",
];

const TIPOS_FGTS: [&str; 3] = ["FGTS MENSAL", "FGTS RESCISORIO", "CONTRIBUICAO SOCIAL - LC 110/2001"];

/// MEI and SIMPLES debts only for companies that can opt in; IRPF only for individual
/// entrepreneurs.
fn receita_weight(core: &Core, r: &(&str, u32, u32)) -> u32 {
    let small = matches!(core.porte, "01" | "03") && !core.is_public();
    let mei = core.natureza == "2135" && core.porte == "01";
    match r.0 {
        "MEI" if !mei => 0,
        "SIMPLES" if !small => 0,
        "IRPF" if core.natureza != "2135" => 0,
        _ => r.2,
    }
}

fn position(c: Categoria) -> usize {
    Categoria::ALL.iter().position(|x| *x == c).unwrap_or(0)
}

/// Federal regions of the PGFN regional offices, by UF code.
fn region(uf: &str) -> u32 {
    match uf {
        "RJ" | "ES" => 2,
        "SP" | "MS" => 3,
        "RS" | "PR" | "SC" => 4,
        "PE" | "AL" | "CE" | "PB" | "RN" | "SE" => 5,
        "MG" => 6,
        _ => 1,
    }
}

/// Operation 5 for one company: its own inscriptions, then the copies of the inscriptions of
/// other companies it answers for as co-responsible or jointly liable (`co_debtor_of`). As in
/// PGFN's files, a copy repeats the inscription's number, value and status under the
/// co-debtor's CNPJ and name.
pub(super) fn dividas(ds: &Dataset, core: &Core, categoria: Categoria) -> Vec<DebtRow> {
    with_co_debtor_copies(ds, core, categoria, own_dividas(ds, core, categoria))
}

/// The rows PGFN's files hold under company `core` and after it: its inscriptions as
/// [`dividas`] gives them, then the people who are principal debtors of its own co-debtor
/// inscriptions ([`people_principals`]), its own inscriptions made once for both.
pub(super) fn published_dividas(ds: &Dataset, core: &Core, categoria: Categoria) -> Vec<DebtRow> {
    let own = own_dividas(ds, core, categoria);
    let people = people_principals(core, &own);
    let mut rows = with_co_debtor_copies(ds, core, categoria, own);
    rows.extend(people);
    rows
}

/// `rows` (a company's own inscriptions) and the copies of the inscriptions it owes as another
/// company's co-debtor.
fn with_co_debtor_copies(
    ds: &Dataset,
    core: &Core,
    categoria: Categoria,
    mut rows: Vec<DebtRow>,
) -> Vec<DebtRow> {
    for (principal, tipo) in co_debtor_of(core.index, ds.companies) {
        let principal = Core::generate(ds, principal);
        let shared = own_dividas(ds, &principal, categoria).into_iter().filter(shared_with_co_debtors);
        rows.extend(shared.map(|r| co_debtor_copy(r, core, tipo)));
    }
    rows
}

/// The companies whose shared inscriptions company `index` also owes, with its role in them:
/// inside an economic group, each owner answers as co-responsible for what the companies it
/// owns inscribed (a group's third subsidiary has two owners, so its inscriptions have three
/// debtors); across groups, a group's first subsidiary is jointly liable with the next
/// group's holding; and outside any group, the company at offset 40 of every 61 is
/// co-responsible for the one after it.
pub(super) fn co_debtor_of(index: usize, companies: usize) -> Vec<(usize, &'static str)> {
    let mut of: Vec<(usize, &'static str)> = (index + 1..(index + 5).min(companies))
        .filter(|&k| groups::owners(k, companies).contains(&index))
        .map(|k| (k, "CORRESPONSAVEL"))
        .collect();
    let offset = index % groups::PERIOD;
    let next_holding = index + groups::PERIOD - 1;
    if offset == groups::HOLDING_AT + 1 && groups::is_holding(next_holding, companies) {
        of.push((next_holding, "SOLIDARIO"));
    }
    if offset == 40 && index + 1 < companies {
        of.push((index + 1, "CORRESPONSAVEL"));
    }
    of
}

/// Whether a principal's inscription is one its co-debtors also owe: every third one the
/// company is principal of.
fn shared_with_co_debtors(row: &DebtRow) -> bool {
    row.ordinal.is_multiple_of(3) && row.priced.item.tipo_devedor.as_deref() == Some("PRINCIPAL")
}

/// `row` as published for `co_debtor`: the inscription as it is, under the co-debtor's CNPJ,
/// name and role.
fn co_debtor_copy(mut row: DebtRow, co_debtor: &Core, tipo: &str) -> DebtRow {
    let item = &mut row.priced.item;
    item.cpf_cnpj = Some(co_debtor.cnpj.masked());
    item.nome_devedor = Some(co_debtor.razao.clone());
    item.tipo_devedor = Some(tipo.to_string());
    row
}

/// The principal debtors of the inscriptions in `own` (company `core`'s own) that it owes as
/// co-responsible or jointly liable: people, as PGFN publishes them (the
/// CPF masked `XXX123.456XX`, `Pessoa física`), each under its inscription's number, value and
/// status. With them every inscription of the release has one principal row, as in PGFN's
/// files, and the release holds people's debts beside the companies'.
fn people_principals(core: &Core, own: &[DebtRow]) -> Vec<DebtRow> {
    own.iter()
        .filter(|r| r.priced.item.tipo_devedor.as_deref() != Some("PRINCIPAL"))
        .cloned()
        .map(|mut row| {
            let seq = core.index as u64 * 512 + u64::from(row.ordinal);
            let middle = (seq * 7_919 + 123_457) % 1_000_000;
            let item = &mut row.priced.item;
            item.cpf_cnpj = Some(format!("XXX{:03}.{:03}XX", middle / 1000, middle % 1000));
            item.nome_devedor = Some(format!("PESSOA FISICA {seq:07}"));
            item.tipo_pessoa = Some("Pessoa física".to_string());
            item.tipo_devedor = Some("PRINCIPAL".to_string());
            row
        })
        .collect()
}

/// A company's own inscriptions, without the ones it shares as a co-debtor.
pub(super) fn own_dividas(ds: &Dataset, core: &Core, categoria: Categoria) -> Vec<DebtRow> {
    let cat = position(categoria);
    let mut events = entity_rng(ds.seed, history::stream::DEBT_EVENTS + cat as u64, core.index as u64);
    let list = ListHistory {
        count: core.debts[cat],
        rng: entity_rng(ds.seed, stream::DIVIDA + cat as u64, core.index as u64),
        lo: core.inicio.plus_days(180).max(Date::new(2004, 1, 1)).min(TODAY),
        gone_stream: history::stream::DEBT_GONE + cat as u64,
        gone_chance: if core.debts[cat] > 0 { 150 } else { 0 },
    };
    history::records_as_of(ds, core, list, |rng, range, j| {
        let (inscricao, mut row) = debt_row(core, categoria, rng, j, range);
        if j == history::GONE_ORDINAL {
            return (inscricao, row);
        }
        let past = history::debt_past(ds, &mut events, inscricao, row.ajuizado);
        if past.before_filing {
            let item = &mut row.priced.item;
            item.indicador_ajuizado = Some("NAO".to_string());
            item.situacao_inscricao = Some("ATIVA EM COBRANCA".to_string());
            item.tipo_situacao_inscricao = Some("Em cobrança".to_string());
            row.ajuizado = false;
        }
        if past.before_revaluation
            && let Some(cents) = row.priced.cents
        {
            let earlier = history::before_revaluation(cents);
            row.priced.cents = Some(earlier);
            row.priced.item.valor_consolidado = Some(money_dot(earlier));
        }
        (inscricao, row)
    })
}

/// Registration `j` of a company, inscribed inside `range`: its date and the record.
fn debt_row(
    core: &Core,
    categoria: Categoria,
    rng: &mut DetRng,
    j: u32,
    range: (Date, Date),
) -> (Date, DebtRow) {
    let uf = core.uf_code();
    let entidade = match categoria {
        Categoria::Fgts => "CAIXA ECONOMICA FEDERAL",
        Categoria::NaoPrevidenciario | Categoria::Previdenciario => "PGFN",
    };
    let median = match categoria {
        Categoria::NaoPrevidenciario => 640,
        Categoria::Fgts => 600,
        Categoria::Previdenciario => 660,
    };
    let inscricao = Date::between(rng, range.0, range.1);
    let cents = heavy_cents(rng, median, 45);
    let ajuizado = per_mille(rng, if cents > 10_000_000 { 550 } else { 250 });
    let fits = |s: &(&str, &str, Option<bool>, u32)| s.2.is_none_or(|a| a == ajuizado);
    let sit = SITUACOES[weighted(rng, &SITUACOES, |s| if fits(s) { s.3 } else { 0 })];
    let tipo_devedor = ["PRINCIPAL", "CORRESPONSAVEL", "SOLIDARIO"][weighted(rng, &[85u32, 11, 4], |w| *w)];
    // Unique in the dataset, as a real inscription number is: a company's ordinals stay below
    // 512 (`history::GONE_ORDINAL` is 500), so no two companies share one by accident.
    let seq = core.index as u64 * 512 + u64::from(j);
    let yy = inscricao.y % 100;
    let (receita, tipo_credito, numero) = match categoria {
        Categoria::NaoPrevidenciario => {
            let (receita, digit, _) = RECEITAS[weighted(rng, &RECEITAS, |r| receita_weight(core, r))];
            let dv = (seq * 7 + yy as u64 * 3) % 97;
            (receita.to_string(), String::new(), format!("80 {digit} {yy:02} {seq:06}-{dv:02}"))
        }
        Categoria::Fgts => {
            let numero = format!("FG{uf}{:04}{seq:05}", inscricao.y);
            (String::new(), pick(rng, &TIPOS_FGTS).to_string(), numero)
        }
        Categoria::Previdenciario => {
            let v = seq;
            let numero =
                format!("{:02}.{:03}.{:03}-{}", v / 1_000_000, v / 1000 % 1000, v % 1000, v % 11 % 10);
            (String::new(), pick(rng, &TIPOS_PREV).to_string(), numero)
        }
    };
    let mut valor = Some(cents);
    let mut valor_str = money_dot(cents);
    let mut data = inscricao.br();
    if defect(rng) {
        if below(rng, 2) == 0 {
            valor = None;
            valor_str = broken_money(rng);
        } else {
            data = broken_date(rng, DateForm::Br);
        }
    }
    let item = DividaPgfn {
        cpf_cnpj: Some(core.cnpj.masked()),
        data_inscricao: Some(data),
        dataset_trimester: Some(DATASET_TRIMESTER.to_string()),
        entidade_responsavel: Some(entidade.to_string()),
        indicador_ajuizado: Some(if ajuizado { "SIM" } else { "NAO" }.to_string()),
        nome_devedor: Some(core.razao.clone()),
        numero_inscricao: Some(numero),
        receita_principal: Some(receita),
        situacao_inscricao: Some(sit.0.to_string()),
        tipo_credito: Some(tipo_credito),
        tipo_devedor: Some(tipo_devedor.to_string()),
        tipo_pessoa: Some("Pessoa jurídica".to_string()),
        tipo_situacao_inscricao: Some(sit.1.to_string()),
        // The service does not send the debtor's state.
        uf_devedor: None,
        uf_unidade_responsavel: Some(uf.to_string()),
        unidade_inscricao: Some(format!("PROCURADORIA DA FAZENDA NACIONAL EM {}", core.municipio().name)),
        unidade_responsavel: Some(format!(
            "PROCURADORIA-REGIONAL DA FAZENDA NACIONAL DA {}A REGIAO",
            region(uf)
        )),
        valor_consolidado: Some(valor_str),
    };
    (inscricao, DebtRow { priced: Priced { item, cents: valor }, ajuizado, ordinal: j })
}

fn months_between(a: Date, b: Date) -> i64 {
    (i64::from(b.y) * 12 + i64::from(b.m)) - (i64::from(a.y) * 12 + i64::from(a.m))
}

/// Outstanding balance of a plan: what the instalments not yet due would still pay, or a
/// rescinded remainder for plans past their term.
fn saldo_after(rng: &mut DetRng, total: i64, parcelas: u32, elapsed: i64) -> i64 {
    let remaining = (i64::from(parcelas) - elapsed).max(0) as u64;
    if remaining == 0 {
        return if below(rng, 2) == 0 { 0 } else { scale_cents(total, between(rng, 300, 900), 1000) };
    }
    let share = remaining * 1000 / u64::from(parcelas);
    scale_cents(total, share * between(rng, 900, 1000), 1_000_000)
}

pub(super) fn parcelamentos(ds: &Dataset, core: &Core) -> Vec<Priced<ParcelamentoRfb>> {
    let list = ListHistory {
        count: core.parcelamentos,
        rng: entity_rng(ds.seed, stream::PARCEL, core.index as u64),
        lo: core.inicio.max(Date::new(2017, 1, 1)),
        gone_stream: history::stream::PLAN_GONE,
        gone_chance: if core.debts.iter().any(|&d| d > 0) { 100 } else { 0 },
    };
    history::records_as_of(ds, core, list, |rng, range, _| plan_row(core, rng, range))
}

/// One instalment plan granted inside `range`: its date and the record.
fn plan_row(core: &Core, rng: &mut DetRng, range: (Date, Date)) -> (Date, Priced<ParcelamentoRfb>) {
    let porte = match core.porte {
        "01" => "ME",
        "03" => "EPP",
        "05" => "DEMAIS",
        _ => "NAO INFORMADO",
    };
    let adesao = Date::between(rng, range.0, range.1);
    let parcelas = pick(rng, &[12u32, 24, 36, 60, 84, 120, 145, 175]);
    let valor = heavy_cents(rng, 650, 45);
    let saldo = saldo_after(rng, valor, parcelas, months_between(adesao, TODAY));
    // Some exports spell the state out (`SAO PAULO`) instead of the code.
    let uf = if per_mille(rng, 150) { uf_name(core.uf).to_string() } else { core.uf_code().to_string() };
    let mut cents = Some(saldo);
    let mut saldo_str = money_br(saldo);
    let mut adesao_str = adesao.iso();
    if defect(rng) {
        if below(rng, 2) == 0 {
            cents = None;
            saldo_str = broken_money(rng);
        } else {
            adesao_str = broken_date(rng, DateForm::Iso);
        }
    }
    let item = ParcelamentoRfb {
        adesao_deferimento: Some(adesao_str),
        quantidade_parcelas: Some(i64::from(parcelas)),
        cnae: Some(core.cnae().code.to_string()),
        cpf_cnpj: Some(core.cnpj.as_str().to_string()),
        municipio: Some(core.municipio().name.to_string()),
        nome: Some(core.razao.clone()),
        porte: Some(porte.to_string()),
        saldo_devedor: Some(saldo_str),
        tipo_pessoa: Some("JURIDICA".to_string()),
        uf: Some(uf),
        valor_parcelado: Some(money_br(valor)),
    };
    (adesao, Priced { item, cents })
}

const MEMORIAIS: [&str; 5] = [
    "TRANSACAO POR ADESAO - EDITAL PGDAU 6/2024",
    "TRANSACAO INDIVIDUAL",
    "TRANSACAO EXCEPCIONAL - PORTARIA PGFN 14.402/2020",
    "TRANSACAO DO CONTENCIOSO TRIBUTARIO - EDITAL RFB 2/2024",
    "TRANSACAO DE PEQUENO VALOR",
];

pub(super) fn transacoes(ds: &Dataset, core: &Core) -> Vec<Priced<TransacaoRfb>> {
    let list = ListHistory {
        count: core.transacoes,
        rng: entity_rng(ds.seed, stream::TRANSACAO, core.index as u64),
        lo: core.inicio.max(Date::new(2020, 6, 1)),
        gone_stream: history::stream::TRANSACTION_GONE,
        gone_chance: if core.debts.iter().any(|&d| d > 0) { 60 } else { 0 },
    };
    history::records_as_of(ds, core, list, |rng, range, _| transaction_row(core, rng, range))
}

/// One transaction negotiated inside `range`: its date and the record.
fn transaction_row(core: &Core, rng: &mut DetRng, range: (Date, Date)) -> (Date, Priced<TransacaoRfb>) {
    let negociacao = Date::between(rng, range.0, range.1);
    let transacionada = heavy_cents(rng, 680, 45);
    let reducao = scale_cents(transacionada, between(rng, 0, 650), 1000);
    let com_reducao = transacionada - reducao;
    let saldo = scale_cents(com_reducao, between(rng, 100, 1000), 1000);
    let pf_bcn = if per_mille(rng, 800) { 0 } else { scale_cents(com_reducao, between(rng, 0, 300), 1000) };
    // A third of the rows write the discount as a deduction (negative).
    let reducao_str = if below(rng, 3) == 0 { money_brl(-reducao) } else { money_brl(reducao) };
    let processo = format!(
        "{:05}.{:06}/{}-{:02}",
        between(rng, 10_000, 19_999),
        between(rng, 0, 999_999),
        negociacao.y,
        between(rng, 0, 99)
    );
    let memorial = pick(rng, &MEMORIAIS).to_string();
    let mut cents = Some(saldo);
    let mut saldo_str = money_brl(saldo);
    let mut data = negociacao.iso();
    if defect(rng) {
        if below(rng, 2) == 0 {
            cents = None;
            saldo_str = broken_money(rng);
        } else {
            data = broken_date(rng, DateForm::Iso);
        }
    }
    let item = TransacaoRfb {
        data_negociacao: Some(data),
        contribuinte: Some(right_pad(&core.razao, 60)),
        cpf_cnpj: Some(core.cnpj.as_str().to_string()),
        creditos_pf_bcn: Some(money_brl(pf_bcn)),
        divida_com_reducao: Some(money_brl(com_reducao)),
        divida_transacionada: Some(money_brl(transacionada)),
        memorial: Some(memorial),
        processo: Some(processo),
        reducao: Some(reducao_str),
        saldo_devedor: Some(saldo_str),
    };
    (negociacao, Priced { item, cents })
}
