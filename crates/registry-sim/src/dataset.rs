//! The embedded registry simulator's deterministic synthetic dataset: every record the
//! fourteen operations of `docs/service-api.md` (§4.2) can return, and the ground truth to check a
//! client against. It does not speak HTTP (no envelopes, paging of company lists, status
//! codes or auth): the server module slices the vectors returned here.
//!
//! Same `(seed, scale)` gives the same data byte for byte on every platform: all randomness
//! is ChaCha8 streams keyed by (seed, table, entity), money is integer cents rendered with
//! integer arithmetic, and no hash-map order is ever observed.
//!
//! # Sizes
//! With `s = scale` (non-finite or non-positive counts as 0, clamped to 1000 for sizing):
//! companies `max(20, round(5000 s))`, each with 0-6 branches; rural properties
//! `max(50, round(1000 s))`; aggregated credits about `max(400, round(30000 s))` rows per
//! month (fewer when a UF's combinations saturate, ~19 000 per UF) over 36 months.
//! Companies are never materialised: a company's records are regenerated from
//! (seed, index) on each call. Memory is the credit table (12 bytes a row: about 12 MB at
//! scale 1, 40 MB at scale 4) plus 4 bytes per property.
//!
//! # Who is who
//! About 40% of companies have non-previdenciario debts, 18% previdenciario, 12% FGTS
//! (mostly 1-5 registrations); every 97th company (index 7, 104, ...) has 205-400 in one
//! categoria. ~25% have instalment plans, ~10% transactions, ~24% branches, and ~7% (60% of
//! construction companies) have works. Every 61st company heads an economic group: the 2-4 companies
//! after it name it among their partners (see `groups`). Operations 2-7 answer at company level: a branch CNPJ
//! gives the same lists as its head office; only operation 1's `estabelecimento` differs.
//!
//! # String forms (deliberately varied)
//! | Field | Form |
//! |---|---|
//! | credits `valor_total` | pt-BR `1.234.567,89`; never defective, so totals reconcile |
//! | credits `natureza_juridica` | 4 digits; every PF row `0000` |
//! | dividas `valor_consolidado` | dot decimal `312038.84` |
//! | dividas `data_inscricao` | `DD/MM/YYYY` |
//! | dividas `cpf_cnpj` | masked head office `12.345.678/0001-95` |
//! | dividas `indicador_ajuizado` / `dataset_trimester` | `SIM`/`NAO` / `2026T3` |
//! | dividas `receita_principal` / `tipo_credito` | one set, the other `""`: receita for nao_previdenciario |
//! | parcelamentos `saldo_devedor`, `valor_parcelado` | pt-BR `7.598.208,15` |
//! | parcelamentos `adesao_deferimento` | ISO `2024-03-15` |
//! | parcelamentos `uf` | 2-letter code, ~15% spelled out (`SAO PAULO`) |
//! | parcelamentos `cnae` / `cpf_cnpj` | 7 digits / 14 bare digits |
//! | transacoes money (5 fields) | `R$ 1.234,56`; ~1/3 of `reducao` as `-R$ 1.234,56`; saldo >= 0 |
//! | transacoes `data_negociacao` / `contribuinte` | ISO / name right-padded to 60 chars |
//! | estabelecimento, simples, socios dates | `YYYYMMDD`, `00000000` for none |
//! | estabelecimento `cnae_fiscal_secundaria` | comma-separated 7-digit codes or `""` |
//! | empresa `capital_social_raw` | `1000,00` (decimal comma, no grouping) |
//! | socios `cnpj_cpf_socio` | masked CPF `***220050**`, or a 14-digit CNPJ for company partners |
//! | profile `resumos.*.valor_total` | dot decimal `312038.84` |
//! | obras, vinculos, obra cnaes dates | ISO; open vinculo `data_fim` is null |
//! | obra `area_total` / area `metragem` | dot decimal `1250.50` / decimal comma `1250,50` |
//! | imoveis `area_total_hectares` | decimal comma, one decimal `1234,5` |
//! | imoveis `data_atualizacao_cadastro` / `data_atualizacao_raw` | ISO / `DD/MM/YYYY` |
//! | `dataset_month` | `2026-09` |
//!
//! # Deliberate defects (~0.3% of company-table records, decided per record)
//! Blank or `null` money (`valor_consolidado`, parcelamentos and transacoes `saldo_devedor`,
//! `capital_social_raw`); blank, `null` or impossible dates (`02021231`, `41000101`,
//! `31/12/0202`, `4100-01-01`) in the field's own layout; blank or mojibake `razao_social`
//! (`COMÃ‰RCIO`); mojibake partner names. The truth counts records with defective money
//! as `unparseable` and leaves them out of the sums.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use registry_api::ids::{AnoMes, Categoria, Cnpj, UFS};
use registry_api::models::{
    CompanyProfile, CreditoAtivo, DividaPgfn, Estabelecimento, Fonte, ImovelRural, Obra, ObraArea, ObraCnae,
    ParcelamentoRfb, Socio, TransacaoRfb, Vinculo,
};

#[path = "dataset/codec.rs"]
mod codec;
#[path = "dataset/company.rs"]
mod company;
#[path = "dataset/counted.rs"]
mod counted;
#[path = "dataset/credits.rs"]
mod credits;
#[path = "dataset/debts.rs"]
mod debts;
#[path = "dataset/geo.rs"]
mod geo;
#[path = "dataset/groups.rs"]
mod groups;
#[path = "dataset/groups_truth.rs"]
mod groups_truth;
#[path = "dataset/history.rs"]
mod history;
#[path = "dataset/listas.rs"]
mod listas;
#[path = "dataset/obras.rs"]
mod obras;
#[path = "dataset/profile.rs"]
mod profile;
#[path = "dataset/regime.rs"]
mod regime;
#[path = "dataset/registry.rs"]
mod registry;
#[path = "dataset/rng.rs"]
mod rng;
#[path = "dataset/rural.rs"]
mod rural;
#[cfg(test)]
#[path = "dataset/tests.rs"]
mod tests;
#[cfg(test)]
#[path = "dataset/tests_history.rs"]
mod tests_history;
#[cfg(test)]
#[path = "dataset/tests_records.rs"]
mod tests_records;
#[path = "dataset/text.rs"]
mod text;
#[path = "dataset/truth.rs"]
mod truth;
#[path = "dataset/vocab.rs"]
mod vocab;

pub use counted::DebtRolesTruth;

/// A cell of the national debt: (state, person type `J`/`F`, system, tax group, situation, in
/// court `SIM`/`NAO`, a company's head office's CNAE section letter and its legal nature's first
/// digit; both `?` for a company the RFB files lack, empty for a person).
pub type NationalCell = (String, &'static str, Categoria, &'static str, String, String, &'static str, String);

/// The release's national debt (`Dataset::national_debt`): each cell's (inscriptions, cents).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NationalTruth {
    pub cells: BTreeMap<NationalCell, (u64, i64)>,
    /// Principal rows whose published value is broken: in no cell.
    pub unreadable: u64,
}
pub use groups_truth::GroupTruth;
pub use listas::{Day, ListaRecord, ListaTruth, Listas, PLACEHOLDER, by_lista};
pub use regime::{RegimeRow, RegimeTruth};
pub use truth::{
    CompanyTruth, CreditCellTruth, DebtRecordTruth, DebtTruth, MoneyTruth, PortfolioTruth, RecordsTruth,
    Truth,
};

use codec::Codec;
use company::Core;

const FIRST_MONTH: (u16, u8) = (2023, 10);
const MONTHS: usize = 36;

/// Source keys of `fontes()` and their `versao`.
const FONTES: [(&str, &str); 5] =
    [("cafir", "2026-08"), ("cno", "2026-09"), ("cnpj", "2026-09"), ("pgfn", "2026T3"), ("rfb", "2026-09")];

pub struct Dataset {
    seed: u64,
    scale: f64,
    /// All 36 months; only those up to `as_of` are published.
    months: Vec<AnoMes>,
    /// Position in `months` of the month the data stands at (`history`).
    as_of: usize,
    companies: usize,
    codec: Codec,
    rural: rural::Rural,
    credits: credits::Credits,
}

impl fmt::Debug for Dataset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dataset")
            .field("seed", &self.seed)
            .field("scale", &self.scale)
            .field("companies", &self.companies)
            .field("imoveis", &self.rural.len())
            .finish_non_exhaustive()
    }
}

fn first_month() -> AnoMes {
    AnoMes::new(FIRST_MONTH.0, FIRST_MONTH.1)
        .expect("invariant: the literal first month 202310 is a valid AnoMes")
}

fn sized(scale: f64, per_unit: f64, floor: usize, ceiling: usize) -> usize {
    ((scale.min(1000.0) * per_unit).round() as usize).clamp(floor, ceiling)
}

impl Dataset {
    /// Builds the dataset; `scale > 0` (see the module doc for sizes). Takes well under a
    /// second at scale 1 in release builds.
    pub fn generate(seed: u64, scale: f64) -> Dataset {
        let scale = if scale.is_finite() && scale > 0.0 { scale } else { 0.0 };
        let first = first_month();
        let months: Vec<AnoMes> = (0..MONTHS as i32).filter_map(|i| first.plus_months(i)).collect();
        let companies = sized(scale, 5000.0, 20, Codec::MAX_COMPANIES);
        let imoveis = sized(scale, 1000.0, 50, Codec::MAX_PROPERTIES);
        let credit_rows = sized(scale, 30_000.0, 400, usize::MAX);
        Dataset {
            seed,
            scale,
            companies,
            codec: Codec::new(seed),
            rural: rural::Rural::generate(seed, imoveis),
            credits: credits::Credits::generate(seed, &months, credit_rows),
            as_of: months.len() - 1,
            months,
        }
    }

    /// The newest of the dataset's months (where it stands unless `as_of` moves it back), known
    /// without generating it.
    pub fn newest_month() -> AnoMes {
        first_month()
            .plus_months(MONTHS as i32 - 1)
            .expect("invariant: 202310 plus 35 months is a valid AnoMes")
    }

    /// The same dataset as it stood in `month` (one of the 36 months): credits up to it, each
    /// company's records and situations as they were then (see `history`).
    pub fn as_of(mut self, month: AnoMes) -> Result<Dataset, String> {
        let index = self.months.iter().position(|m| *m == month).ok_or_else(|| {
            format!(
                "{month} is not a month of the dataset (it has {}..{})",
                self.months[0],
                self.months[self.months.len() - 1]
            )
        })?;
        self.as_of = index;
        Ok(self)
    }

    /// Last day of the as-of month; nothing later exists in the data.
    fn as_of_end(&self) -> text::Date {
        if self.as_of + 1 == self.months.len() { text::TODAY } else { history::month_end(self, self.as_of) }
    }

    /// The month published for the first time (preliminary), as an index: the as-of month,
    /// unless it is the dataset's latest, which is published final.
    fn preliminary_month(&self) -> Option<usize> {
        (self.as_of + 1 < self.months.len()).then_some(self.as_of)
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The scale given to `generate` (0 when it was not a positive number).
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The published months, ascending: 202310 up to the as-of month (202609 by default).
    pub fn months(&self) -> &[AnoMes] {
        &self.months[..=self.as_of]
    }

    /// The as-of month: the newest month published.
    pub fn latest_month(&self) -> AnoMes {
        self.months[self.as_of]
    }

    /// `cafir`, `cno`, `cnpj`, `pgfn`, `rfb`, all with status `ok`.
    pub fn fontes(&self) -> BTreeMap<String, Fonte> {
        FONTES
            .iter()
            .map(|(k, v)| {
                (k.to_string(), Fonte { status: Some("ok".to_string()), versao: Some(v.to_string()) })
            })
            .collect()
    }

    /// The `fonte` of a list envelope. Accepts a source key or an operation path segment
    /// (`dividas-pgfn`, `parcelamentos-rfb`, `creditos-ativos`, `obras-cno`, `imoveis`,
    /// `socios`, ...); anything else gets `ok` with the latest month.
    pub fn fonte_for(&self, source: &str) -> Fonte {
        let key = match source {
            "dividas-pgfn" | "pgfn" => "pgfn",
            "parcelamentos-rfb" | "transacoes-rfb" | "creditos-ativos" | "rfb" => "rfb",
            "obras-cno" | "cnos" | "vinculos" | "cnaes" | "areas" | "cno" => "cno",
            "imoveis" | "cafir" => "cafir",
            _ => "cnpj",
        };
        let versao = FONTES.iter().find(|(k, _)| *k == key).map_or("2026-09", |(_, v)| *v);
        Fonte { status: Some("ok".to_string()), versao: Some(versao.to_string()) }
    }

    pub fn company_count(&self) -> usize {
        self.companies
    }

    /// Head office (ordem 0001) of company `index` (< `company_count()`).
    pub fn company_cnpj(&self, index: usize) -> Cnpj {
        self.codec.cnpj(index, 1)
    }

    /// The company of a head-office or branch CNPJ; `None` when not in the dataset.
    pub fn company_index(&self, cnpj: &Cnpj) -> Option<usize> {
        self.locate(cnpj).map(|(core, _)| core.index)
    }

    /// The company of a CNPJ as the dataset writes one (its 14 digits, punctuation ignored),
    /// found by the dataset's own encoding: what the truths use, sharing nothing with the
    /// client's CNPJ parsing.
    pub fn company_of_digits(&self, text: &str) -> Option<usize> {
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        self.locate_digits(&digits).map(|(core, _)| core.index)
    }

    fn locate(&self, cnpj: &Cnpj) -> Option<(Core, u32)> {
        self.locate_digits(cnpj.as_str())
    }

    fn locate_digits(&self, digits: &str) -> Option<(Core, u32)> {
        let (index, ordem) = self.codec.decode_digits(digits)?;
        if index >= self.companies || ordem == 0 {
            return None;
        }
        let core = Core::generate(self, index);
        (ordem <= core.branches + 1).then_some((core, ordem))
    }

    fn core(&self, cnpj: &Cnpj) -> Option<Core> {
        self.locate(cnpj).map(|(core, _)| core)
    }

    /// `n` distinct head offices (at most `company_count()`), ascending by index: about a
    /// tenth are the large debtors, about a tenth members of economic groups (whole groups,
    /// but every other group without its holding, which only `--expand-groups` finds), the
    /// rest evenly spread over the index range.
    pub fn demo_portfolio(&self, n: usize) -> Vec<Cnpj> {
        let total = self.companies;
        let n = n.min(total);
        let whales: Vec<usize> = (0..total).filter(|&i| company::is_whale(i)).collect();
        let mut chosen = BTreeSet::new();
        if n > 0 && !whales.is_empty() {
            let wn = (n / 10).clamp(1, whales.len());
            for j in 0..wn {
                chosen.insert(whales[j * whales.len() / wn]);
            }
        }
        let holdings: Vec<usize> = groups::holdings(total).collect();
        let group_slots = n / 10;
        if group_slots >= 2 && !holdings.is_empty() {
            let wanted = group_slots.div_ceil(3).min(holdings.len());
            let budget = chosen.len() + group_slots;
            'groups: for j in 0..wanted {
                let h = holdings[j * holdings.len() / wanted];
                let with_holding = j % 2 == 0;
                for m in with_holding.then_some(h).into_iter().chain(groups::subsidiaries(h, total)) {
                    if chosen.len() >= budget {
                        break 'groups;
                    }
                    chosen.insert(m);
                }
            }
        }
        let rest = (n - chosen.len()) as u64;
        for k in 0..rest {
            let t = total as u64;
            let mut p = ((k * t / rest + t / (2 * rest)) % t) as usize;
            while chosen.contains(&p) {
                p = (p + 1) % total;
            }
            chosen.insert(p);
        }
        chosen.into_iter().map(|i| self.company_cnpj(i)).collect()
    }

    /// Whether `cnpj` changed between `previous` (this dataset at an earlier month) and this
    /// one as a client can see it: it is new, or its profile's `snapshot_fingerprint` or a
    /// `resumos` entry (total, valor_total) moved. `None` when it does not exist now.
    pub fn changed_since(&self, previous: &Dataset, cnpj: &Cnpj) -> Option<bool> {
        let signals = |p: CompanyProfile| {
            let resumos: Vec<_> =
                p.resumos.unwrap_or_default().into_iter().map(|(k, r)| (k, r.total, r.valor_total)).collect();
            (p.snapshot_fingerprint, resumos)
        };
        let now = signals(self.profile(cnpj)?);
        Some(previous.profile(cnpj).map(signals) != Some(now))
    }

    /// `n` head offices of which about `share` changed since `previous` (`changed_since`),
    /// each group spread evenly over the index range: a portfolio with a chosen monthly churn,
    /// for benchmarks of incremental runs.
    pub fn changing_portfolio(&self, previous: &Dataset, n: usize, share: f64) -> Vec<Cnpj> {
        let (mut changed, mut unchanged) = (Vec::new(), Vec::new());
        for c in (0..self.companies).map(|i| self.company_cnpj(i)) {
            match self.changed_since(previous, &c) {
                Some(true) => changed.push(c),
                Some(false) => unchanged.push(c),
                None => {}
            }
        }
        let spread = |from: Vec<Cnpj>, k: usize| -> Vec<Cnpj> {
            let k = k.min(from.len());
            (0..k).map(|j| from[j * from.len() / k].clone()).collect()
        };
        let n = n.min(changed.len() + unchanged.len());
        let wanted = (n as f64 * share.clamp(0.0, 1.0)).round() as usize;
        let k = wanted.min(changed.len()).max(n - unchanged.len().min(n));
        let mut out = spread(changed, k);
        out.extend(spread(unchanged, n - k));
        out.sort();
        out
    }

    /// Operation 1. For a branch CNPJ, `estabelecimento` is that branch.
    pub fn profile(&self, cnpj: &Cnpj) -> Option<CompanyProfile> {
        let (core, ordem) = self.locate(cnpj)?;
        Some(profile::profile(self, &core, cnpj, ordem))
    }

    /// Operation 2: head office, then branches by ordem.
    pub fn estabelecimentos(&self, cnpj: &Cnpj) -> Option<Vec<Estabelecimento>> {
        self.core(cnpj).map(|core| registry::estabelecimentos(self, &core))
    }

    /// Operation 3, by work slot.
    pub fn obras(&self, cnpj: &Cnpj) -> Option<Vec<Obra>> {
        let core = self.core(cnpj)?;
        Some((0..core.obras).map(|k| obras::obra_full(self, &core, k).obra).collect())
    }

    /// Operation 4.
    pub fn socios(&self, cnpj: &Cnpj) -> Option<Vec<Socio>> {
        self.core(cnpj).map(|core| registry::socios(self, &core))
    }

    /// Operation 5, in generation order.
    pub fn dividas(&self, cnpj: &Cnpj, categoria: Categoria) -> Option<Vec<DividaPgfn>> {
        let core = self.core(cnpj)?;
        Some(debts::dividas(self, &core, categoria).into_iter().map(|r| r.priced.item).collect())
    }

    /// The rows PGFN's files hold under `cnpj` and after it (`debts::published_dividas`): its
    /// inscriptions as operation 5 gives them, then the people who are principal debtors of
    /// its own co-debtor inscriptions.
    pub fn published_dividas(&self, cnpj: &Cnpj, categoria: Categoria) -> Option<Vec<DividaPgfn>> {
        let core = self.core(cnpj)?;
        Some(debts::published_dividas(self, &core, categoria).into_iter().map(|r| r.priced.item).collect())
    }

    /// The release's national debt, computed from the dataset's own records (their cents, not
    /// their published text): every inscription counted once, by its principal debtor's row
    /// (a company's, or a person's behind a company's co-debtor inscription), summed by state,
    /// person type, system, tax group, situation and whether it is in court, and a company's by
    /// the CNAE section of its head office's record (the generator's own section of the code) and
    /// the first digit of its record's legal nature. Rows whose published value is broken are
    /// counted apart (`NationalTruth::unreadable`).
    pub fn national_debt(&self) -> NationalTruth {
        let mut truth = NationalTruth::default();
        for index in 0..self.companies {
            let core = company::Core::generate(self, index);
            let profile = self.company_profile(&core);
            for categoria in Categoria::ALL {
                let principals = debts::published_dividas(self, &core, categoria)
                    .into_iter()
                    .filter(|r| r.priced.item.tipo_devedor.as_deref() == Some("PRINCIPAL"));
                for row in principals {
                    let person = row.priced.item.tipo_pessoa.as_deref() == Some("Pessoa física");
                    let tipo = if person { "F" } else { "J" };
                    let Some(cents) = row.priced.cents else {
                        truth.unreadable += 1;
                        continue;
                    };
                    let item = &row.priced.item;
                    let text = |v: &Option<String>| v.clone().unwrap_or_default();
                    let (secao, natureza) = if person { ("", String::new()) } else { profile.clone() };
                    let key = (
                        text(&item.uf_unidade_responsavel),
                        tipo,
                        categoria,
                        debts::tax_group_of(categoria, item.receita_principal.as_deref().unwrap_or("")),
                        text(&item.tipo_situacao_inscricao),
                        text(&item.indicador_ajuizado),
                        secao,
                        natureza,
                    );
                    let cell = truth.cells.entry(key).or_default();
                    cell.0 += 1;
                    cell.1 += cents;
                }
            }
        }
        truth
    }

    /// A company's CNAE section (its head office record's main code, by the generator's table)
    /// and its legal nature's first digit (its Empresas record), `?` for what it lacks.
    fn company_profile(&self, core: &Core) -> (&'static str, String) {
        let head = registry::estabelecimentos(self, core)
            .into_iter()
            .find(|e| e.identificador_matriz_filial.as_deref() == Some("1"));
        let code = head.and_then(|e| e.cnae_fiscal_principal);
        let secao = vocab::CNAES.iter().find(|c| Some(c.code) == code.as_deref()).map_or("?", |c| c.section);
        let empresa = profile::profile(self, core, &core.cnpj, 1).empresa;
        let digit = empresa.and_then(|e| e.natureza_juridica).and_then(|n| n.chars().next());
        (secao, digit.filter(|d| ('1'..='7').contains(d)).map_or_else(|| "?".into(), String::from))
    }

    /// Operation 6.
    pub fn parcelamentos(&self, cnpj: &Cnpj) -> Option<Vec<ParcelamentoRfb>> {
        let core = self.core(cnpj)?;
        Some(debts::parcelamentos(self, &core).into_iter().map(|r| r.item).collect())
    }

    /// Operation 7.
    pub fn transacoes(&self, cnpj: &Cnpj) -> Option<Vec<TransacaoRfb>> {
        let core = self.core(cnpj)?;
        Some(debts::transacoes(self, &core).into_iter().map(|r| r.item).collect())
    }

    fn obra_full(&self, cno: &str) -> Option<obras::ObraFull> {
        let (index, k) = self.codec.decode_cno(cno)?;
        if index >= self.companies {
            return None;
        }
        let core = Core::generate(self, index);
        (k < core.obras).then(|| obras::obra_full(self, &core, k))
    }

    /// Operation 8.
    pub fn obra(&self, cno: &str) -> Option<Obra> {
        self.obra_full(cno).map(|o| o.obra)
    }

    /// Operation 9.
    pub fn vinculos(&self, cno: &str) -> Option<Vec<Vinculo>> {
        self.obra_full(cno).map(|o| o.vinculos)
    }

    /// Operation 10.
    pub fn cnaes(&self, cno: &str) -> Option<Vec<ObraCnae>> {
        self.obra_full(cno).map(|o| o.cnaes)
    }

    /// Operation 11.
    pub fn areas(&self, cno: &str) -> Option<Vec<ObraArea>> {
        self.obra_full(cno).map(|o| o.areas)
    }

    /// Operation 12: every property passing the filters (`uf` case-insensitive, `municipio`
    /// exact), in property order. `imoveis_page` avoids building the whole list.
    pub fn imoveis(&self, uf: Option<&str>, municipio: Option<&str>) -> Vec<ImovelRural> {
        self.imoveis_page(uf, municipio, 0, usize::MAX)
    }

    /// Count of operation 12 after the filters.
    pub fn imoveis_total(&self, uf: Option<&str>, municipio: Option<&str>) -> usize {
        self.rural.matching(uf, municipio).len()
    }

    /// A page of operation 12 (same order as `imoveis`).
    pub fn imoveis_page(
        &self,
        uf: Option<&str>,
        municipio: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Vec<ImovelRural> {
        let matching = self.rural.matching(uf, municipio);
        matching.into_iter().skip(offset).take(limit).filter_map(|i| rural::imovel(self, i)).collect()
    }

    /// Operation 13.
    pub fn imovel(&self, nirf: &str) -> Option<ImovelRural> {
        let index = self.codec.decode_nirf(nirf)?;
        rural::imovel(self, index)
    }

    /// The (month, UF) cells selected by the filters, in output order. An unknown UF or a
    /// month outside `months()` selects nothing.
    fn credit_cells(&self, uf: Option<&str>, ano_mes: Option<AnoMes>) -> Vec<usize> {
        let ufs: Vec<usize> = match uf {
            Some(u) => match geo::uf_index(u) {
                Some(i) => vec![i],
                None => return Vec::new(),
            },
            None => (0..UFS.len()).collect(),
        };
        let months: Vec<usize> = match ano_mes {
            Some(a) => match self.months().iter().position(|m| *m == a) {
                Some(i) => vec![i],
                None => return Vec::new(),
            },
            None => (0..self.months().len()).collect(),
        };
        months.iter().flat_map(|&m| ufs.iter().map(move |&u| self.credits.cell(m, u))).collect()
    }

    /// Operation 14: rows after the filters (`uf` case-insensitive).
    pub fn creditos_total(&self, uf: Option<&str>, ano_mes: Option<AnoMes>) -> usize {
        self.credit_cells(uf, ano_mes).into_iter().map(|c| self.credits.cell_rows(c)).sum()
    }

    /// A page of operation 14, ordered by ano_mes, then UF in `UFS` order, then section,
    /// grupo_tributo, situacao, tipo_contribuinte and natureza_juridica in table order.
    /// Costs O(36 x 27 + limit), whatever the offset.
    pub fn creditos_page(
        &self,
        uf: Option<&str>,
        ano_mes: Option<AnoMes>,
        offset: usize,
        limit: usize,
    ) -> Vec<CreditoAtivo> {
        self.credits.page(&self.credit_cells(uf, ano_mes), offset, limit, self.preliminary_month())
    }

    /// Exact sum of `valor_total` in cents after the filters.
    pub fn creditos_cents(&self, uf: Option<&str>, ano_mes: Option<AnoMes>) -> i128 {
        let preliminary = self.preliminary_month();
        self.credit_cells(uf, ano_mes)
            .into_iter()
            .map(|c| i128::from(self.credits.published_total(c, preliminary)))
            .sum()
    }

    pub fn truth(&self) -> Truth {
        truth::truth(self)
    }

    /// Per-company truth for the CNPJs given (head offices or branches), in order.
    pub fn portfolio_truth(&self, cnpjs: &[Cnpj]) -> PortfolioTruth {
        truth::portfolio(self, cnpjs)
    }

    /// Each portfolio CNPJ's debts as principal and as co-debtor, and what of them counts for
    /// it in the portfolio's totals, each inscription once (see `DebtRolesTruth`); keyed by
    /// bare CNPJ, CNPJs not in the data left out.
    pub fn debt_roles_truth(&self, cnpjs: &[Cnpj]) -> BTreeMap<String, DebtRolesTruth> {
        counted::debt_roles(self, cnpjs, &Default::default())
    }

    /// The economic groups of a portfolio (see `GroupTruth`): `depth` 0 links the portfolio's
    /// companies through their partners; each further step also fetches the partner companies
    /// found at the step before.
    pub fn groups_truth(&self, cnpjs: &[Cnpj], depth: usize) -> Vec<GroupTruth> {
        groups_truth::groups(self, cnpjs, depth)
    }

    /// The public lists (CEIS, CNEP, CEPIM, Leniência, MTE, IBAMA) as of the latest month.
    pub fn listas(&self) -> Listas {
        listas::lists(self)
    }

    /// Which list records touch each company of `portfolio`, how, and whether in force, from
    /// the dataset's own partners and groups (see `listas::truth`).
    pub fn listas_truth(&self, portfolio: &[Cnpj]) -> Vec<ListaTruth> {
        listas::truth(self, &listas::lists(self), portfolio)
    }

    /// Company `index`'s rows of RFB's tax regime files at the as-of month (see `regime`),
    /// oldest year first.
    pub fn regime_rows(&self, index: usize) -> Vec<RegimeRow> {
        if index >= self.companies {
            return Vec::new();
        }
        regime::rows(self, &Core::generate(self, index))
    }

    /// The newest year RFB's tax regime files hold at the as-of month.
    pub fn regime_last_year(&self) -> i32 {
        regime::last_year(self)
    }

    /// Each portfolio CNPJ's tax regime by year and its Simples and MEI options, from the
    /// dataset's own rows (see `regime`); CNPJs not in the data left out.
    pub fn regime_truth(&self, portfolio: &[Cnpj]) -> Vec<RegimeTruth> {
        regime::truth(self, portfolio)
    }

    /// One company's records in cents at the as-of month (`None` when it is not in the data).
    pub fn records_truth(&self, cnpj: &Cnpj) -> Option<truth::RecordsTruth> {
        truth::records(self, cnpj)
    }

    /// Heap held by the dataset (credit table and property placements), for sizing checks.
    pub fn approx_heap_bytes(&self) -> usize {
        self.credits.bytes() + self.rural.bytes() + self.months.capacity() * std::mem::size_of::<AnoMes>()
    }
}
