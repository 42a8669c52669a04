//! The per-company core: place, activity, legal nature, names and how many records of each
//! kind the company has. It is regenerated from (seed, company index) on every call, so
//! nothing per company is kept in memory. The records themselves are built by `registry`,
//! `debts` and `obras`.

use super::Dataset;
use super::geo::{MUNICIPIOS, Municipio, UF_INFO, pick_municipio, pick_uf};
use super::rng::{DetRng, below, between, entity_rng, heavy_cents, per_mille, pick, stream, weighted};
use super::text::Date;
use super::vocab::{BAIRROS, CNAES, Cnae, SURNAMES, person_name, pick_cnae, pick_natureza};
use registry_api::ids::{Cnpj, UFS};

/// `dataset_month` of the CNPJ open-data tables.
pub(super) const DATASET_MONTH: &str = "2026-09";

/// Every 97th company (index 7, 104, 201, ...) is a large debtor with 205-400 registrations
/// in one categoria, so list walks need several pages even at small scales.
pub(super) fn is_whale(index: usize) -> bool {
    index % 97 == 7
}

pub(super) struct Core {
    pub index: usize,
    pub cnpj: Cnpj,
    pub uf: usize,
    pub mun: usize,
    pub cnae: usize,
    pub natureza: &'static str,
    pub porte: &'static str,
    pub razao: String,
    pub fantasia: String,
    pub inicio: Date,
    pub situacao: &'static str,
    pub branches: u32,
    pub socios: u32,
    pub obras: u32,
    /// Registrations per categoria, in `Categoria::ALL` order.
    pub debts: [u32; 3],
    pub parcelamentos: u32,
    pub transacoes: u32,
    pub capital_cents: i64,
}

pub(super) fn is_public(natureza: &str) -> bool {
    natureza.starts_with('1') || natureza == "5002"
}

fn ordinary_debts(rng: &mut DetRng, p_any: u32) -> u32 {
    if !per_mille(rng, p_any) {
        return 0;
    }
    match weighted(rng, &[400u32, 200, 120, 80, 60, 120, 20], |w| *w) {
        k @ 0..=4 => k as u32 + 1,
        5 => between(rng, 6, 20) as u32,
        _ => between(rng, 21, 60) as u32,
    }
}

fn count_from(rng: &mut DetRng, weights: &[u32]) -> u32 {
    weighted(rng, weights, |w| *w) as u32 + 1
}

impl Core {
    pub(super) fn generate(ds: &Dataset, index: usize) -> Core {
        let mut rng = entity_rng(ds.seed, stream::CORE, index as u64);
        let rng = &mut rng;
        let uf = pick_uf(rng);
        let mun = pick_municipio(rng, uf, false);
        let cnae = pick_cnae(rng);
        let section = CNAES[cnae].section;
        let natureza = pick_natureza(rng, section);
        // Group members own or are owned by companies: a limited company where the draw gave
        // a form that cannot be (an individual entrepreneur, a public body, an association).
        let member = super::groups::is_member(index, ds.companies);
        let natureza =
            if member && !matches!(natureza, "2062" | "2054" | "2046") { "2062" } else { natureza };
        let porte = match natureza {
            "2135" => pick(rng, &["01", "01", "01", "01", "01", "03"]),
            "2062" | "2305" | "2232" => {
                ["01", "03", "05", "00"][weighted(rng, &[500u32, 250, 200, 50], |w| *w)]
            }
            "2054" | "2046" => "05",
            _ => pick(rng, &["00", "00", "05", "01"]),
        };
        let root = ds.codec.root(index);
        let razao = company_name(rng, natureza, porte, &CNAES[cnae], &MUNICIPIOS[mun], root);
        let fantasia = trade_name(rng, natureza, &CNAES[cnae]);
        let year = if is_public(natureza) {
            1960 + between(rng, 0, 35) as i32
        } else {
            2026 - between(rng, 0, 56).min(between(rng, 0, 56)) as i32
        };
        let inicio =
            Date::between(rng, Date::new(year, 1, 1), Date::new(year, 12, 31).min(Date::new(2026, 8, 31)));
        let situacao = ["02", "08", "04", "03", "01"][weighted(rng, &[800u32, 80, 70, 30, 20], |w| *w)];
        let mei = natureza == "2135" && porte == "01";
        let branches = if mei { 0 } else { weighted(rng, &[700u32, 120, 70, 40, 30, 20, 20], |w| *w) as u32 };
        let socios = match natureza {
            "2062" | "2232" => count_from(rng, &[35, 40, 15, 10]),
            "2305" => 1,
            "2054" | "2046" => 2 + count_from(rng, &[1, 1, 1, 1, 1, 1]),
            "3999" | "3069" | "2143" => count_from(rng, &[50, 30, 20]),
            _ => 0,
        };
        let socios = socios.max(super::groups::owners(index, ds.companies).len() as u32);
        let obras = if section == "F" {
            if per_mille(rng, 600) { count_from(rng, &[30, 25, 15, 12, 10, 8]) } else { 0 }
        } else if per_mille(rng, 40) {
            count_from(rng, &[70, 30])
        } else {
            0
        };
        let mut debts = [ordinary_debts(rng, 400), ordinary_debts(rng, 120), ordinary_debts(rng, 180)];
        if is_whale(index) {
            let primary = weighted(rng, &[600u32, 150, 250], |w| *w);
            debts[primary] = between(rng, 205, 400) as u32;
            if per_mille(rng, 300) {
                debts[(primary + 1) % 3] = between(rng, 120, 250) as u32;
            }
        }
        let indebted = debts.iter().any(|&d| d > 0);
        let parcelamentos = if per_mille(rng, if indebted { 380 } else { 60 }) {
            count_from(rng, &[50, 25, 15, 10])
        } else {
            0
        };
        let transacoes =
            if per_mille(rng, if indebted { 170 } else { 20 }) { count_from(rng, &[60, 30, 10]) } else { 0 };
        let capital_cents = match (natureza, porte) {
            (n, _) if is_public(n) || n == "3999" || n == "3069" => 0,
            (_, "01") => {
                100 * pick(rng, &[1_000i64, 2_000, 5_000, 10_000, 15_000, 20_000, 30_000, 50_000, 80_000])
            }
            (_, "03") => 100 * pick(rng, &[100_000i64, 150_000, 200_000, 300_000, 500_000, 800_000]),
            (_, "05") => (heavy_cents(rng, 850, 50) / 100_000).max(1) * 100_000,
            _ => 100 * pick(rng, &[10_000i64, 50_000, 100_000]),
        };
        Core {
            index,
            cnpj: ds.codec.cnpj(index, 1),
            uf,
            mun,
            cnae,
            natureza,
            porte,
            razao,
            fantasia,
            inicio,
            situacao,
            branches,
            socios,
            obras,
            debts,
            parcelamentos,
            transacoes,
            capital_cents,
        }
    }

    pub(super) fn cnae(&self) -> &'static Cnae {
        &CNAES[self.cnae]
    }

    pub(super) fn municipio(&self) -> &'static Municipio {
        &MUNICIPIOS[self.mun]
    }

    pub(super) fn uf_code(&self) -> &'static str {
        UFS[self.uf]
    }

    pub(super) fn is_public(&self) -> bool {
        is_public(self.natureza)
    }
}

fn company_name(
    rng: &mut DetRng,
    natureza: &str,
    porte: &str,
    cnae: &Cnae,
    mun: &Municipio,
    root: u64,
) -> String {
    let s1 = pick(rng, &SURNAMES);
    let s2 = pick(rng, &SURNAMES);
    match natureza {
        "2135" if porte == "01" && below(rng, 2) == 0 => {
            // MEI names carry the CNPJ root: `54.321.987 MARIA SOUZA`.
            let r = format!("{root:08}");
            format!("{}.{}.{} {}", &r[0..2], &r[2..5], &r[5..8], person_name(rng))
        }
        "2135" => person_name(rng),
        "2305" => format!("{} {s1} EIRELI", cnae.activity),
        "2054" | "2046" => {
            format!("{s1} {} {}", cnae.activity, pick(rng, &["S.A.", "S/A", "SA"]))
        }
        "2143" => format!("COOPERATIVA DE {} DE {} LTDA", cnae.brand, mun.name),
        "2232" => format!("{s1} & {s2} {} SOCIEDADE SIMPLES", cnae.activity),
        "3999" => match below(rng, 2) {
            0 => format!("ASSOCIACAO DOS MORADORES DO BAIRRO {}", pick(rng, &BAIRROS)),
            _ => format!("ASSOCIACAO {} DE {}", cnae.brand, mun.name),
        },
        "3069" => format!("FUNDACAO {}", person_name(rng)),
        "5002" => "REPRESENTACAO DA ORGANIZACAO PAN-AMERICANA DA SAUDE".to_string(),
        n if n.starts_with('1') => {
            format!(
                "{} {}",
                pick(rng, &["MUNICIPIO DE", "PREFEITURA MUNICIPAL DE", "CAMARA MUNICIPAL DE"]),
                mun.name
            )
        }
        _ => match below(rng, 4) {
            0 => format!("{} {s1} LTDA", cnae.activity),
            1 => format!("{s1} & {s2} {} LTDA", cnae.activity),
            2 => format!("{} {s1} {s2} LTDA", cnae.brand),
            _ => format!("{} {} LTDA", cnae.activity, mun.name),
        },
    }
}

fn trade_name(rng: &mut DetRng, natureza: &str, cnae: &Cnae) -> String {
    if is_public(natureza) || below(rng, 5) < 2 {
        return String::new();
    }
    let s = pick(rng, &SURNAMES);
    match below(rng, 3) {
        0 => format!("{s} {}", cnae.brand),
        1 => format!("{} {s}", cnae.brand),
        _ => format!("{} {}", cnae.brand, pick(rng, &BAIRROS)),
    }
}

/// UF spelled out (`SAO PAULO`).
pub(super) fn uf_name(uf: usize) -> &'static str {
    UF_INFO[uf].name
}
