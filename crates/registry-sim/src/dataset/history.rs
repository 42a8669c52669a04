//! How a company's records stood in an earlier month (the as-of month). The generators build
//! every company as it stands in the latest month; this module decides, for an earlier one,
//! which of those records already existed and in which state, and adds back the records that
//! existed then but are gone by the latest month. It owns the rules; the generators ask.
//!
//! The rules (each decided by streams of their own, so the latest month is exactly the data it
//! was before months moved, and each month is the same on every run):
//! - a dated record exists from its date on: a debt from `data_inscricao`, a plan from
//!   `adesao_deferimento`, a transaction from `data_negociacao`;
//! - about 1 in 10 debts filed in court were filed inside the window: before that month they
//!   read `NAO` / `ATIVA EM COBRANCA`; about 1 in 20 debts were revalued: before that month
//!   their `valor_consolidado` was 3% lower;
//! - about 3 in 10 debtor companies per categoria had one more debt, paid off inside the
//!   window; about 15% (indebted) had a plan and 6% a transaction that ended inside it;
//! - an establishment whose cadastral situation is not ATIVA was ATIVA before the date of
//!   that situation; a Simples or MEI option starts on its date and an exclusion on its own;
//! - about 1 company in 25 raised its share capital inside the window: before that month it was
//!   two thirds of today's; about 1 in 40 changed its main CNAE: before, it had the next one of
//!   the dataset's list; about 1 in 40 moved its head office: before, it was in another
//!   municipality of the same state; about 1 in 25 changed the head office's street address:
//!   before, it had another street, number and CEP; about 1 in 25 with secondary activities
//!   added one: before, the list lacked its last CNAE;
//! - about 1 in 25 small or other-size companies grew: before, they were one size smaller
//!   (`01` then `03`, `03` then `05`); about 1 in 25 limited companies (`2062`) were sole
//!   proprietorships (`2135`) before;
//! - about 1 company in 25 whose first partner is a managing partner (qualification `49`)
//!   promoted it inside the window: before, it was a plain partner (`22`);
//! - a person or foreign partner is a partner from `data_entrada_sociedade` on; about 1 company
//!   in 12 had one more person partner who left inside the window, half of them having entered
//!   inside it too.
//!
//! Credits have their own rule (in `credits`): a month's first publication has about 1 row in
//! 37 lower by 2%, revised in the next month's publication.

use super::Dataset;
use super::company::Core;
use super::rng::{DetRng, between, entity_rng, per_mille};
use super::text::{Date, TODAY};

/// Stream identifiers of the history decisions (apart from the generators' own).
pub(super) mod stream {
    /// `+ categoria position`: filings and revaluations of current debts.
    pub(crate) const DEBT_EVENTS: u64 = 101;
    /// `+ categoria position`: a debt paid off inside the window.
    pub(crate) const DEBT_GONE: u64 = 105;
    pub(crate) const PLAN_GONE: u64 = 108;
    pub(crate) const TRANSACTION_GONE: u64 = 109;
    pub(crate) const PARTNER_GONE: u64 = 110;
    pub(crate) const CAPITAL_RAISED: u64 = 111;
    pub(crate) const CNAE_CHANGED: u64 = 112;
    pub(crate) const HEAD_OFFICE_MOVED: u64 = 113;
    pub(crate) const PORTE_GREW: u64 = 114;
    pub(crate) const NATUREZA_CHANGED: u64 = 115;
    pub(crate) const ACTIVITY_ADDED: u64 = 116;
    pub(crate) const ADDRESS_CHANGED: u64 = 117;
    pub(crate) const PARTNER_PROMOTED: u64 = 118;
}

/// Last day of month `index` of the window.
pub(super) fn month_end(ds: &Dataset, index: usize) -> Date {
    let m = ds.months[index.min(ds.months.len() - 1)];
    let (y, mo) = (i32::from(m.year()), u32::from(m.month()));
    let first_next = if mo == 12 { Date::new(y + 1, 1, 1) } else { Date::new(y, mo + 1, 1) };
    first_next.plus_days(-1)
}

/// Position in the window of the month holding `date` (0 for dates before the window).
fn month_index(ds: &Dataset, date: Date) -> usize {
    let first = ds.months[0];
    let months = (date.y - i32::from(first.year())) * 12 + date.m as i32 - i32::from(first.month());
    months.clamp(0, ds.months.len() as i32 - 1) as usize
}

/// True when a record dated `date` exists at the as-of month.
pub(super) fn exists(ds: &Dataset, date: Date) -> bool {
    date <= ds.as_of_end()
}

/// A month in the window after the one holding `date`, where a change happened; `None` when
/// the date is in the last month.
fn month_after(ds: &Dataset, rng: &mut DetRng, date: Date) -> Option<usize> {
    let lo = month_index(ds, date) + 1;
    let hi = ds.months.len() - 1;
    (lo <= hi).then(|| between(rng, lo as u64, hi as u64) as usize)
}

/// What had not happened yet to a current debt at the as-of month.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct DebtPast {
    /// It was not yet filed in court.
    pub before_filing: bool,
    /// Its value was 3% lower.
    pub before_revaluation: bool,
}

/// Draws the events of one current debt (always the same draws, whatever the month).
pub(super) fn debt_past(ds: &Dataset, rng: &mut DetRng, inscricao: Date, ajuizado: bool) -> DebtPast {
    let filed = per_mille(rng, 50);
    let filed_at = month_after(ds, rng, inscricao);
    let revalued = per_mille(rng, 15);
    let revalued_at = month_after(ds, rng, inscricao);
    let t = ds.as_of;
    DebtPast {
        before_filing: ajuizado && filed && filed_at.is_some_and(|c| t < c),
        before_revaluation: revalued && revalued_at.is_some_and(|c| t < c),
    }
}

/// The value of a debt before its revaluation.
pub(super) fn before_revaluation(cents: i64) -> i64 {
    cents - cents * 3 / 100
}

/// The ordinal `records_as_of` gives the record gone inside the window: past every current
/// record of a list (at most 400), so its number is unique.
pub(super) const GONE_ORDINAL: u32 = 500;

/// How one of a company's lists stood at the as-of month.
pub(super) struct ListHistory {
    /// Current records (the latest month's).
    pub count: u32,
    /// Their stream; record `j` is the `j`-th drawn from it.
    pub rng: DetRng,
    /// Earliest start date.
    pub lo: Date,
    /// Stream and chance (per mille) of one more record that ended inside the window.
    pub gone_stream: u64,
    pub gone_chance: u32,
}

/// The list at the as-of month: the current records that had started by then, then the record
/// that ended inside the window if it still existed. `row(rng, start_range, j)` draws record
/// `j` (`GONE_ORDINAL` for the ended one) and returns its start date with it.
pub(super) fn records_as_of<T>(
    ds: &Dataset,
    core: &Core,
    mut list: ListHistory,
    mut row: impl FnMut(&mut DetRng, (Date, Date), u32) -> (Date, T),
) -> Vec<T> {
    let mut rows = Vec::with_capacity(list.count as usize);
    for j in 0..list.count {
        // Drawn whether or not it exists yet, so later records keep their values.
        let (start, r) = row(&mut list.rng, (list.lo, TODAY), j);
        if exists(ds, start) {
            rows.push(r);
        }
    }
    if let Some((ended, mut rng)) = changed_month(ds, list.gone_stream, core, list.gone_chance) {
        let hi = month_end(ds, ended - 1);
        let (start, r) = row(&mut rng, (list.lo.min(hi), hi), GONE_ORDINAL);
        if ds.as_of < ended && exists(ds, start) {
            rows.push(r);
        }
    }
    rows
}

/// The month inside the window in which `core` had the change of `stream`, when it is one of the
/// `chance` per mille of companies that had one; with the stream, for the change's own draws.
fn changed_month(ds: &Dataset, stream: u64, core: &Core, chance: u32) -> Option<(usize, DetRng)> {
    let mut rng = entity_rng(ds.seed, stream, core.index as u64);
    if !per_mille(&mut rng, chance) || ds.months.len() < 2 {
        return None;
    }
    Some((between(&mut rng, 1, ds.months.len() as u64 - 1) as usize, rng))
}

/// Whether the as-of month is before `core`'s change of `stream` (`changed_month`).
fn before_change(ds: &Dataset, stream: u64, core: &Core, chance: u32) -> bool {
    changed_month(ds, stream, core, chance).is_some_and(|(month, _)| ds.as_of < month)
}

/// The partner of `core` who left inside the window, while still a partner at the as-of month:
/// `partner(rng, entry_range)` draws it with its entry date.
pub(super) fn partner_gone<T>(
    ds: &Dataset,
    core: &Core,
    partner: impl FnOnce(&mut DetRng, (Date, Date)) -> (Date, T),
) -> Option<T> {
    let (left, mut rng) = changed_month(ds, stream::PARTNER_GONE, core, 80)?;
    let hi = month_end(ds, left - 1);
    let first = ds.months[0];
    let window = Date::new(i32::from(first.year()), u32::from(first.month()), 1);
    let lo = if per_mille(&mut rng, 500) { window.max(core.inicio) } else { core.inicio };
    let (entered, p) = partner(&mut rng, (lo.min(hi), hi));
    (ds.as_of < left && exists(ds, entered)).then_some(p)
}

/// The company's share capital at the as-of month, in cents.
pub(super) fn capital_cents(ds: &Dataset, core: &Core) -> i64 {
    if before_change(ds, stream::CAPITAL_RAISED, core, 40) {
        core.capital_cents / 3 * 2
    } else {
        core.capital_cents
    }
}

/// The company's main CNAE at the as-of month (its index in `vocab::CNAES`).
pub(super) fn cnae_index(ds: &Dataset, core: &Core) -> usize {
    if before_change(ds, stream::CNAE_CHANGED, core, 25) {
        (core.cnae + 1) % super::vocab::CNAES.len()
    } else {
        core.cnae
    }
}

/// The head office's municipality at the as-of month (its index in `geo::MUNICIPIOS`).
pub(super) fn head_office_municipio(ds: &Dataset, core: &Core) -> usize {
    use super::geo::MUNICIPIOS;
    if !before_change(ds, stream::HEAD_OFFICE_MOVED, core, 25) {
        return core.mun;
    }
    let uf = MUNICIPIOS[core.mun].uf;
    (1..MUNICIPIOS.len())
        .map(|k| (core.mun + k) % MUNICIPIOS.len())
        .find(|j| MUNICIPIOS[*j].uf == uf)
        .unwrap_or(core.mun)
}

/// The company's size at the as-of month.
pub(super) fn porte(ds: &Dataset, core: &Core) -> &'static str {
    match core.porte {
        "03" if before_change(ds, stream::PORTE_GREW, core, 40) => "01",
        "05" if before_change(ds, stream::PORTE_GREW, core, 40) => "03",
        porte => porte,
    }
}

/// The company's legal nature at the as-of month.
pub(super) fn natureza(ds: &Dataset, core: &Core) -> &'static str {
    if core.natureza == "2062" && before_change(ds, stream::NATUREZA_CHANGED, core, 40) {
        "2135"
    } else {
        core.natureza
    }
}

/// The head office's secondary CNAEs at the as-of month, from today's list.
pub(super) fn secondary_cnaes<'a>(ds: &Dataset, core: &Core, mut today: Vec<&'a str>) -> Vec<&'a str> {
    if !today.is_empty() && before_change(ds, stream::ACTIVITY_ADDED, core, 40) {
        today.pop();
    }
    today
}

/// The stream of the head office's earlier street address when the as-of month is before the
/// company changed it; the caller draws the address and CEP from it.
pub(super) fn earlier_address(ds: &Dataset, core: &Core) -> Option<DetRng> {
    changed_month(ds, stream::ADDRESS_CHANGED, core, 40)
        .and_then(|(month, rng)| (ds.as_of < month).then_some(rng))
}

/// The first partner's qualification at the as-of month, from today's.
pub(super) fn first_partner_qualification(ds: &Dataset, core: &Core, today: &'static str) -> &'static str {
    if today == "49" && before_change(ds, stream::PARTNER_PROMOTED, core, 40) { "22" } else { today }
}
