//! Aggregated active tax credits (operation 14), materialised at generation time as small
//! integer codes plus `i64` cents per row, grouped in (month, UF) cells with prefix offsets
//! so a page is found in O(cells + limit). It owns the dimension tables and the amount
//! model; formatting a row is the only string work done here.
//!
//! Each UF holds a sparse, stable set of dimension combinations (drawn in proportion to
//! their weight, at most all of them); about 8% of combos appear late and 7% vanish early,
//! so row counts churn slightly between months. Amounts: heavy-tailed base (a UF's expected
//! stock is its company-weight share of R$ 2.5 trillion, at every scale) x growth
//! (-0.2%..1.2% a month per combo) x seasonality (December; March-May for IRPF) x 3% noise,
//! plus the fixed jumps in `JUMPS` so that "top movers" have a clear answer.

use rand::RngCore;

use super::geo::UF_INFO;
use super::rng::{between, entity_rng, heavy_cents, stream, unit, unit_from_hash};
use super::text::money_br;
use super::vocab::SECTIONS;
use registry_api::ids::{AnoMes, UFS};
use registry_api::models::CreditoAtivo;

pub(super) const GRUPOS: [&str; 12] = [
    "IRPJ",
    "CSLL",
    "PIS/PASEP",
    "COFINS",
    "IPI",
    "IOF",
    "IRRF",
    "IRPF",
    "ITR",
    "Contribuições previdenciárias",
    "Simples Nacional",
    "Outros",
];
const GRUPO_W_PJ: [u64; 12] = [12, 8, 5, 14, 5, 2, 6, 0, 1, 20, 12, 7];
const GRUPO_W_PF: [u64; 12] = [0, 0, 0, 0, 0, 3, 0, 40, 10, 25, 0, 15];
const IRPF: usize = 7;
const SIMPLES: usize = 10;

pub(super) const SITUACOES: [&str; 5] = [
    "Em cobrança",
    "Parcelado",
    "Suspenso por decisão judicial",
    "Suspenso - processo administrativo",
    "Em negociação",
];
const SITUACAO_W: [u64; 5] = [45, 20, 15, 12, 8];

pub(super) const TIPOS: [&str; 2] = ["PF", "PJ"];
const TIPO_W: [u64; 2] = [25, 75];

/// Legal natures; index 0 (`0000`, not applicable) is used by every PF row and only there.
pub(super) const NATUREZAS: [(&str, u64); 16] = [
    ("0000", 0),
    ("2062", 450),
    ("2135", 120),
    ("2054", 60),
    ("2046", 40),
    ("2305", 50),
    ("2143", 20),
    ("2232", 30),
    ("2240", 5),
    ("3999", 40),
    ("3069", 10),
    ("3220", 10),
    ("1031", 15),
    ("1244", 15),
    ("2011", 10),
    ("2038", 10),
];

/// Fixed level shifts: (UF, section, grupo, first month index (0 = 202310), factor).
/// SP/C/IPI triples in the latest month, RJ/K/IOF drops to 35% in 202608, MG/G/COFINS
/// more than doubles from 202606.
pub(super) const JUMPS: [(&str, &str, usize, usize, f64); 3] =
    [("SP", "C", 4, 35, 3.0), ("RJ", "K", 5, 34, 0.35), ("MG", "G", 3, 32, 2.2)];

const GROWTH: [f64; 9] = [-0.002, 0.003, 0.005, 0.006, 0.007, 0.008, 0.009, 0.010, 0.012];

/// Expected total stock of the first month, in cents (R$ 2.5 trillion), at every scale.
const STOCK_CENTS: f64 = 2.5e14;
/// Mean of `heavy_cents(rng, 300, 40)` (log-normal factor 1.79, tail kicks 1.92, jitter
/// 1.01), so the noise factor averages 1.
const HEAVY_MEAN: f64 = 3470.0;

/// Upper bound of one row, so a cell total always fits `i64`.
const MAX_ROW_CENTS: i64 = 10_000_000_000_000;

fn pack(section: usize, grupo: usize, situacao: usize, tipo: usize, natureza: usize) -> u32 {
    (section | grupo << 5 | situacao << 9 | tipo << 12 | natureza << 13) as u32
}

fn unpack(code: u32) -> (usize, usize, usize, usize, usize) {
    let c = code as usize;
    (c & 31, (c >> 5) & 15, (c >> 9) & 7, (c >> 12) & 1, (c >> 13) & 31)
}

/// Every combination with a positive weight, in output order (section, grupo, situacao,
/// tipo, natureza) and with weights normalised to sum 1.
fn combos() -> Vec<(u32, f64)> {
    let pj_nature_total: u64 = NATUREZAS.iter().map(|n| n.1).sum();
    let mut out = Vec::new();
    for (s, section) in SECTIONS.iter().enumerate() {
        for g in 0..GRUPOS.len() {
            for (si, sw) in SITUACAO_W.iter().enumerate() {
                for (t, tw) in TIPO_W.iter().enumerate() {
                    let (gw, natures) =
                        if t == 0 { (GRUPO_W_PF[g], 0..1) } else { (GRUPO_W_PJ[g], 1..NATUREZAS.len()) };
                    // Rural producers make section A the main PF section.
                    let secw =
                        section.credit_weight as u64 * if t == 0 && section.letter == "A" { 5 } else { 1 };
                    for n in natures {
                        let nw = if t == 0 { pj_nature_total } else { NATUREZAS[n].1 };
                        let w = secw * gw * sw * tw * nw;
                        if w > 0 {
                            out.push((pack(s, g, si, t, n), w as f64));
                        }
                    }
                }
            }
        }
    }
    let total: f64 = out.iter().map(|c| c.1).sum();
    for c in &mut out {
        c.1 /= total;
    }
    out
}

/// The multiplier `l` with sum(min(1, l * w)) = k over weights sorted descending
/// (`suffix[c]` = sum of the weights from position c on); infinite when k covers all.
fn solve_lambda(sorted: &[f64], suffix: &[f64], k: f64) -> f64 {
    if k >= sorted.len() as f64 {
        return f64::INFINITY;
    }
    for (c, w) in sorted.iter().enumerate() {
        if suffix[c] <= 0.0 {
            break;
        }
        let lambda = (k - c as f64) / suffix[c];
        if lambda * w <= 1.0 {
            return lambda;
        }
    }
    f64::INFINITY
}

fn season(grupo: usize, month: u8) -> f64 {
    let mut permille = 1000u32;
    match month {
        12 => permille += 60,
        1 => permille += 20,
        _ => {}
    }
    if grupo == IRPF {
        permille += match month {
            3 => 100,
            4 => 250,
            5 => 80,
            _ => 0,
        };
    }
    if grupo == SIMPLES && month == 1 {
        permille += 40;
    }
    f64::from(permille) / 1000.0
}

/// One combination kept in one UF, with its amount parameters.
struct Kept {
    code: u32,
    start: usize,
    end: usize,
    base: f64,
    growth: usize,
    noise: u64,
    jump: Option<(usize, f64)>,
}

pub(super) struct Credits {
    months: Vec<AnoMes>,
    /// Row offset of cell `month * 27 + uf`; one extra final entry.
    cell_start: Vec<usize>,
    cell_total: Vec<i64>,
    codes: Vec<u32>,
    cents: Vec<i64>,
}

/// The combination universe and what the inclusion draw needs, shared by all UFs.
struct Universe {
    all: Vec<(u32, f64)>,
    sorted: Vec<f64>,
    suffix: Vec<f64>,
    uf_total: u32,
}

impl Universe {
    fn new() -> Universe {
        let all = combos();
        let mut sorted: Vec<f64> = all.iter().map(|c| c.1).collect();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let mut suffix = vec![0.0; sorted.len() + 1];
        for i in (0..sorted.len()).rev() {
            suffix[i] = suffix[i + 1] + sorted[i];
        }
        Universe { all, sorted, suffix, uf_total: UF_INFO.iter().map(|u| u.company_weight).sum() }
    }

    /// The combinations UF `u` keeps, in output order, with their amount parameters.
    fn keep(&self, seed: u64, u: usize, target_rows: usize, months: usize) -> Vec<Kept> {
        let info = &UF_INFO[u];
        let uf_share = f64::from(info.company_weight) / f64::from(self.uf_total);
        let lambda = solve_lambda(&self.sorted, &self.suffix, target_rows as f64 * uf_share);
        let mut rng = entity_rng(seed, stream::CREDIT, u as u64);
        let rng = &mut rng;
        let mut list = Vec::new();
        for &(code, w) in &self.all {
            let (s, g, si, t, n) = unpack(code);
            let jump = JUMPS
                .iter()
                .find(|j| j.0 == info.code && j.1 == SECTIONS[s].letter && j.2 == g)
                .map(|j| (j.3, j.4));
            // The jump cells always hold their main combination, so the jump shows at any scale.
            let forced = jump.is_some() && si == 0 && t == 1 && n == 1;
            let p = (lambda * w).min(1.0);
            let sampled = unit(rng) < p;
            if !sampled && !forced {
                continue;
            }
            let churn = between(rng, 0, 999);
            let last = months as u64 - 1;
            let (start, end) = if forced {
                (0, months)
            } else if churn < 80 {
                (between(rng, 1, last) as usize, months)
            } else if churn < 150 {
                (0, between(rng, 1, last) as usize)
            } else {
                (0, months)
            };
            // Inverse-probability weighting: a UF's expected stock is its share of
            // `STOCK_CENTS` whatever the scale or how many combinations it keeps.
            let inclusion = if sampled { p } else { 1.0 };
            let spread = heavy_cents(rng, 300, 40) as f64 / HEAVY_MEAN;
            let base = STOCK_CENTS * uf_share * w / inclusion * spread;
            let growth = between(rng, 0, GROWTH.len() as u64 - 1) as usize;
            list.push(Kept { code, start, end, base, growth, noise: rng.next_u64(), jump });
        }
        list
    }
}

/// `growth[g][m]`: compound growth at rate `GROWTH[g]` after `m` months, by multiplication.
fn growth_table(months: usize) -> Vec<Vec<f64>> {
    GROWTH
        .iter()
        .map(|g| {
            let mut level = 1.0;
            (0..months)
                .map(|_| {
                    let v = level;
                    level *= 1.0 + g;
                    v
                })
                .collect()
        })
        .collect()
}

impl Credits {
    /// `target_rows` per month over all UFs (before saturation and churn).
    pub(super) fn generate(seed: u64, months: &[AnoMes], target_rows: usize) -> Credits {
        let nm = months.len();
        let universe = Universe::new();
        let kept: Vec<Vec<Kept>> = (0..UFS.len()).map(|u| universe.keep(seed, u, target_rows, nm)).collect();
        let growth = growth_table(nm);

        let cells = nm * UFS.len();
        let mut counts = vec![0usize; cells];
        for (u, list) in kept.iter().enumerate() {
            for k in list {
                for m in k.start..k.end {
                    counts[m * UFS.len() + u] += 1;
                }
            }
        }
        let mut cell_start = Vec::with_capacity(cells + 1);
        let mut acc = 0;
        for c in &counts {
            cell_start.push(acc);
            acc += c;
        }
        cell_start.push(acc);
        let mut codes = vec![0u32; acc];
        let mut cents = vec![0i64; acc];
        let mut cell_total = vec![0i64; cells];
        let mut cursor: Vec<usize> = cell_start[..cells].to_vec();
        for (u, list) in kept.iter().enumerate() {
            for k in list {
                let (_, g, ..) = unpack(k.code);
                for m in k.start..k.end {
                    let noise =
                        1.0 + (unit_from_hash(k.noise ^ (m as u64).wrapping_mul(0x9E37)) - 0.5) * 0.06;
                    let jump = match k.jump {
                        Some((from, f)) if m >= from => f,
                        _ => 1.0,
                    };
                    let v = k.base * growth[k.growth][m] * season(g, months[m].month()) * noise * jump;
                    let row_cents = (v.round() as i64).clamp(100, MAX_ROW_CENTS);
                    let cell = m * UFS.len() + u;
                    let pos = cursor[cell];
                    codes[pos] = k.code;
                    cents[pos] = row_cents;
                    cell_total[cell] += row_cents;
                    cursor[cell] += 1;
                }
            }
        }
        Credits { months: months.to_vec(), cell_start, cell_total, codes, cents }
    }

    pub(super) fn cell(&self, month: usize, uf: usize) -> usize {
        month * UFS.len() + uf
    }

    pub(super) fn cell_rows(&self, cell: usize) -> usize {
        self.cell_start[cell + 1] - self.cell_start[cell]
    }

    pub(super) fn bytes(&self) -> usize {
        self.codes.capacity() * 4
            + self.cents.capacity() * 8
            + self.cell_start.capacity() * 8
            + self.cell_total.capacity() * 8
    }

    /// True for the rows a month's first publication states lower (about 1 in 37).
    fn revised(pos: usize) -> bool {
        pos % 37 == 5
    }

    /// A row's cents as published: the first publication of `preliminary` (a month index) has
    /// the revised rows 2% lower; every other month is final.
    fn published_cents(&self, cell: usize, pos: usize, preliminary: Option<usize>) -> i64 {
        let cents = self.cents[pos];
        if preliminary == Some(cell / UFS.len()) && Self::revised(pos) {
            (cents - cents / 50).max(100)
        } else {
            cents
        }
    }

    /// Exact total of a cell as published (see `published_cents`).
    pub(super) fn published_total(&self, cell: usize, preliminary: Option<usize>) -> i64 {
        if preliminary != Some(cell / UFS.len()) {
            return self.cell_total[cell];
        }
        (self.cell_start[cell]..self.cell_start[cell + 1])
            .map(|pos| self.published_cents(cell, pos, preliminary))
            .sum()
    }

    /// Rows `offset..offset + limit` of the concatenation of `cells` (in the given order), as
    /// published (see `published_cents`).
    pub(super) fn page(
        &self,
        cells: &[usize],
        mut offset: usize,
        limit: usize,
        preliminary: Option<usize>,
    ) -> Vec<CreditoAtivo> {
        let mut out = Vec::with_capacity(limit.min(1000));
        for &cell in cells {
            if out.len() >= limit {
                break;
            }
            let rows = self.cell_rows(cell);
            if offset >= rows {
                offset -= rows;
                continue;
            }
            let start = self.cell_start[cell] + offset;
            let take = (rows - offset).min(limit - out.len());
            offset = 0;
            for pos in start..start + take {
                out.push(self.render(cell, pos, preliminary));
            }
        }
        out
    }

    fn render(&self, cell: usize, pos: usize, preliminary: Option<usize>) -> CreditoAtivo {
        let (month, uf) = (cell / UFS.len(), cell % UFS.len());
        let (s, g, si, t, n) = unpack(self.codes[pos]);
        CreditoAtivo {
            ano_mes: Some(self.months[month].to_string()),
            cnae_secao_cod: Some(SECTIONS[s].letter.to_string()),
            cnae_secao_descr: Some(SECTIONS[s].descr().to_string()),
            grupo_tributo: Some(GRUPOS[g].to_string()),
            natureza_juridica: Some(NATUREZAS[n].0.to_string()),
            situacao: Some(SITUACOES[si].to_string()),
            tipo_contribuinte: Some(TIPOS[t].to_string()),
            uf: Some(UFS[uf].to_string()),
            valor_total: Some(money_br(self.published_cents(cell, pos, preliminary))),
        }
    }
}
