//! Identifier codecs: company index <-> CNPJ root, (company, work) <-> CNO and property
//! index <-> NIRF, all as affine bijections modulo a power of ten, so no lookup table is
//! kept and ids look scattered. It does not know whether an index exists in the dataset;
//! the caller checks bounds and counts.

use super::rng::{splitmix, stream};
use registry_api::ids::Cnpj;

const ROOT_MOD: u128 = 100_000_000;
/// Odd and not a multiple of 5, hence invertible modulo 10^8.
const ROOT_A: u128 = 73_939_133;
const CNO_MOD: u128 = 100_000_000_000;
const CNO_A: u128 = 61_803_398_877;
const NIRF_MOD: u128 = 10_000_000;
const NIRF_A: u128 = 2_718_281;

/// Works per company are encoded in 3 bits of the CNO payload.
pub(super) const OBRA_SLOTS: u64 = 8;

/// Multiplicative inverse of `a` modulo `m` (extended Euclid); `a` and `m` coprime.
fn inverse(a: u128, m: u128) -> u128 {
    let (mut old_r, mut r) = (a as i128, m as i128);
    let (mut old_s, mut s) = (1i128, 0i128);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s - q * s);
    }
    old_s.rem_euclid(m as i128) as u128
}

#[derive(Debug, Clone, Copy)]
struct Affine {
    a: u128,
    b: u128,
    inv: u128,
    modulus: u128,
}

impl Affine {
    fn new(a: u128, modulus: u128, seed: u64, salt: u64) -> Affine {
        let b = u128::from(splitmix(seed ^ splitmix(stream::CODEC ^ salt))) % modulus;
        Affine { a, b, inv: inverse(a, modulus), modulus }
    }
    fn encode(&self, x: u64) -> u128 {
        (u128::from(x) % self.modulus * self.a + self.b) % self.modulus
    }
    fn decode(&self, y: u128) -> u64 {
        ((y % self.modulus + self.modulus - self.b) % self.modulus * self.inv % self.modulus) as u64
    }
}

/// Mod-11 check digit over a digit string (weights 2..9 from the right); 10 and 11 give 0.
fn mod11(digits: &str) -> u8 {
    let sum: u32 =
        digits.bytes().rev().enumerate().map(|(i, b)| u32::from(b - b'0') * (2 + (i as u32 % 8))).sum();
    let r = sum % 11;
    if r < 2 { 0 } else { (11 - r) as u8 }
}

fn all_digits(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit())
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Codec {
    root: Affine,
    cno: Affine,
    nirf: Affine,
}

impl Codec {
    /// The offsets depend on the seed, so two seeds give two different sets of ids.
    pub(super) fn new(seed: u64) -> Codec {
        Codec {
            root: Affine::new(ROOT_A, ROOT_MOD, seed, 1),
            cno: Affine::new(CNO_A, CNO_MOD, seed, 2),
            nirf: Affine::new(NIRF_A, NIRF_MOD, seed, 3),
        }
    }

    /// Companies addressable by the 8-digit root space.
    pub(super) const MAX_COMPANIES: usize = 100_000_000;
    /// Properties addressable by the 7-digit NIRF payload.
    pub(super) const MAX_PROPERTIES: usize = 10_000_000;

    pub(super) fn root(&self, index: usize) -> u64 {
        self.root.encode(index as u64) as u64
    }

    /// CNPJ of establishment `ordem` (1 = head office) of company `index`.
    pub(super) fn cnpj(&self, index: usize, ordem: u32) -> Cnpj {
        let base = format!("{:08}{:04}", self.root(index), ordem % 10_000);
        // Invariant: `base` is exactly 12 ASCII digits, for which check digits always exist.
        Cnpj::from_base(&base).expect("12 ASCII digits always have CNPJ check digits")
    }

    /// (company index, ordem) of a CNPJ's 14 digits (the index may be beyond the dataset), by
    /// this dataset's own encoding: no check digits asked, so the truths find companies with
    /// it, never with the client's CNPJ parser.
    pub(super) fn decode_digits(&self, s: &str) -> Option<(usize, u32)> {
        if !all_digits(s, 14) {
            return None;
        }
        let root: u128 = s[..8].parse().ok()?;
        let ordem: u32 = s[8..12].parse().ok()?;
        Some((self.root.decode(root) as usize, ordem))
    }

    pub(super) fn cno(&self, index: usize, k: u32) -> String {
        let payload = format!("{:011}", self.cno.encode(index as u64 * OBRA_SLOTS + u64::from(k)));
        let dv = mod11(&payload);
        format!("{payload}{dv}")
    }

    /// (company index, work slot) of a CNO whose check digit is right.
    pub(super) fn decode_cno(&self, cno: &str) -> Option<(usize, u32)> {
        if !all_digits(cno, 12) || mod11(&cno[..11]) != cno.as_bytes()[11] - b'0' {
            return None;
        }
        let v = self.cno.decode(cno[..11].parse().ok()?);
        Some(((v / OBRA_SLOTS) as usize, (v % OBRA_SLOTS) as u32))
    }

    pub(super) fn nirf(&self, index: usize) -> String {
        let payload = format!("{:07}", self.nirf.encode(index as u64));
        let dv = mod11(&payload);
        format!("{payload}{dv}")
    }

    pub(super) fn decode_nirf(&self, nirf: &str) -> Option<usize> {
        if !all_digits(nirf, 8) || mod11(&nirf[..7]) != nirf.as_bytes()[7] - b'0' {
            return None;
        }
        Some(self.nirf.decode(nirf[..7].parse().ok()?) as usize)
    }
}
