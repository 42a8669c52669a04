//! Deterministic randomness for the synthetic dataset: one ChaCha8 stream per (seed, table,
//! entity) and the few sampling helpers the generators share. It owns no data and knows
//! nothing about the wire models.
//!
//! Every draw goes through fixed-width integers (`u64`/`i32` ranges, never `usize`, whose
//! sampling differs between 32- and 64-bit targets) or plain IEEE arithmetic (no `exp`/`ln`,
//! whose last bits differ between libm builds), so a seed gives the same bytes everywhere.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(super) type DetRng = ChaCha8Rng;

/// Stream identifiers: one per generated table, so adding a draw to one table never shifts
/// the values of another.
pub(super) mod stream {
    pub(crate) const CORE: u64 = 1;
    pub(crate) const ESTAB: u64 = 2;
    pub(crate) const SOCIO: u64 = 3;
    pub(crate) const OBRA: u64 = 4;
    /// `DIVIDA + categoria position` (three streams).
    pub(crate) const DIVIDA: u64 = 5;
    pub(crate) const PARCEL: u64 = 9;
    pub(crate) const TRANSACAO: u64 = 10;
    pub(crate) const IMOVEL: u64 = 11;
    pub(crate) const IMOVEL_PLACE: u64 = 12;
    pub(crate) const CREDIT: u64 = 13;
    pub(crate) const CODEC: u64 = 14;
    /// Which profiles carry a summary that disagrees with their list.
    pub(crate) const SUMMARY: u64 = 15;
}

/// SplitMix64 finaliser: a cheap, well-mixed hash of one word.
pub(super) fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream of one entity of one table. Built from explicit little-endian words, so it
/// never depends on `rand`'s own seed expansion.
pub(super) fn entity_rng(seed: u64, table: u64, key: u64) -> DetRng {
    let mut state = splitmix(seed) ^ splitmix(table.wrapping_mul(0xA076_1D64_78BD_642F)).rotate_left(17);
    state ^= splitmix(key ^ 0x5851_F42D_4C95_7F2D).rotate_left(41);
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_exact_mut(8) {
        state = splitmix(state);
        chunk.copy_from_slice(&state.to_le_bytes());
    }
    DetRng::from_seed(bytes)
}

/// Uniform in `0..n`; `n` must be positive (all callers pass static, non-empty tables).
pub(super) fn below(rng: &mut DetRng, n: usize) -> usize {
    rng.random_range(0..n.max(1) as u64) as usize
}

/// Uniform in `lo..=hi`.
pub(super) fn between(rng: &mut DetRng, lo: u64, hi: u64) -> u64 {
    if hi <= lo { lo } else { rng.random_range(lo..=hi) }
}

/// True with probability `p / 1000`.
pub(super) fn per_mille(rng: &mut DetRng, p: u32) -> bool {
    rng.random_range(0..1000u32) < p
}

pub(super) fn pick<T: Copy>(rng: &mut DetRng, items: &[T]) -> T {
    items[below(rng, items.len())]
}

/// Index drawn in proportion to `weight`; falls back to 0 when every weight is zero.
pub(super) fn weighted<T>(rng: &mut DetRng, items: &[T], weight: impl Fn(&T) -> u32) -> usize {
    let total: u64 = items.iter().map(|i| u64::from(weight(i))).sum();
    if total == 0 {
        return 0;
    }
    let mut r = rng.random_range(0..total);
    for (i, item) in items.iter().enumerate() {
        let w = u64::from(weight(item));
        if r < w {
            return i;
        }
        r -= w;
    }
    items.len() - 1
}

pub(super) fn unit(rng: &mut DetRng) -> f64 {
    rng.random::<f64>()
}

/// A uniform in [0, 1) from a hash word: for per-cell noise where a whole ChaCha stream per
/// cell would be wasteful.
pub(super) fn unit_from_hash(x: u64) -> f64 {
    (splitmix(x) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// 10^(1/100), so that `POW_FRAC[k]` = 10^(k/100) is built by multiplication alone.
const STEP: f64 = 1.023_292_992_280_754;
const POW_FRAC: [f64; 100] = {
    let mut t = [1.0f64; 100];
    let mut i = 1;
    while i < 100 {
        t[i] = t[i - 1] * STEP;
        i += 1;
    }
    t
};

/// 10^(e/100) for `e` in 0..=1600, by table and multiplication (no `powf`).
pub(super) fn pow10_centi(e: i32) -> f64 {
    let e = e.clamp(0, 1600);
    let mut v = POW_FRAC[(e % 100) as usize];
    for _ in 0..e / 100 {
        v *= 10.0;
    }
    v
}

/// A heavy-tailed (log-normal-ish) amount in cents. `median` is log10 of the median in
/// hundredths of a decade (R$ 25.000,00 = 2.5e6 cents -> 640); `spread` widens the bell
/// (sum of four uniforms), and 3% of draws get a 30x tail kick.
pub(super) fn heavy_cents(rng: &mut DetRng, median: i32, spread: i32) -> i64 {
    let mut e = median;
    for _ in 0..4 {
        e += rng.random_range(-spread..=spread);
    }
    if per_mille(rng, 30) {
        e += 150;
    }
    let v = pow10_centi(e) * (1.0 + unit(rng) * 0.0233);
    (v.round() as i64).max(1)
}

/// `x * num / den` for money, in exact integer arithmetic.
pub(super) fn scale_cents(x: i64, num: u64, den: u64) -> i64 {
    if den == 0 {
        return 0;
    }
    (i128::from(x) * i128::from(num) / i128::from(den)) as i64
}
