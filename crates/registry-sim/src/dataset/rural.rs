//! Rural properties (CAFIR): their placement (UF, municipality) is kept compactly at
//! generation time so the list operation can filter without building records; every other
//! field is regenerated from (seed, property index) on demand. NIRF coding is `codec`'s.

use super::Dataset;
use super::geo::{MUNICIPIOS, UF_INFO, cep, pick_municipio};
use super::rng::{below, between, entity_rng, heavy_cents, per_mille, pick, stream, weighted};
use super::text::{Date, DateForm, TODAY, broken_date, defect};
use super::vocab::SURNAMES;
use registry_api::ids::UFS;
use registry_api::models::ImovelRural;

/// Placement of each property: (UF position, municipality position), in property order.
pub(super) struct Rural {
    places: Vec<(u8, u16)>,
}

impl Rural {
    pub(super) fn generate(seed: u64, count: usize) -> Rural {
        let mut rng = entity_rng(seed, stream::IMOVEL_PLACE, 0);
        let places = (0..count)
            .map(|_| {
                let uf = weighted(&mut rng, &UF_INFO, |u| u.rural_weight);
                let mun = pick_municipio(&mut rng, uf, true);
                (uf as u8, mun as u16)
            })
            .collect();
        Rural { places }
    }

    pub(super) fn len(&self) -> usize {
        self.places.len()
    }

    pub(super) fn bytes(&self) -> usize {
        self.places.capacity() * std::mem::size_of::<(u8, u16)>()
    }

    /// Indexes of the properties passing both filters, in property order. `uf` is matched
    /// case-insensitively (an unknown UF matches nothing); `municipio` exactly.
    pub(super) fn matching(&self, uf: Option<&str>, municipio: Option<&str>) -> Vec<usize> {
        let uf_pos = match uf {
            Some(u) => match super::geo::uf_index(u) {
                Some(p) => Some(p),
                None => return Vec::new(),
            },
            None => None,
        };
        self.places
            .iter()
            .enumerate()
            .filter(|(_, (u, m))| {
                uf_pos.is_none_or(|p| usize::from(*u) == p)
                    && municipio.is_none_or(|name| MUNICIPIOS[usize::from(*m)].name == name)
            })
            .map(|(i, _)| i)
            .collect()
    }

    pub(super) fn place(&self, index: usize) -> Option<(usize, usize)> {
        self.places.get(index).map(|(u, m)| (usize::from(*u), usize::from(*m)))
    }
}

/// (kind, weight, median area as `heavy_cents` exponent over hundredths of a hectare:
/// 470 = 10^4.7 = 500 ha for a fazenda, 318 = 15 ha for a sitio).
const KINDS: [(&str, u32, i32); 5] =
    [("FAZENDA", 40, 470), ("SITIO", 35, 318), ("CHACARA", 15, 248), ("ESTANCIA", 5, 500), ("GLEBA", 5, 430)];

const SAINTS: [&str; 12] = [
    "SANTA RITA",
    "SAO JOSE",
    "BOA ESPERANCA",
    "TRES IRMAOS",
    "AGUA LIMPA",
    "SANTA MARIA",
    "PRIMAVERA",
    "BELA VISTA",
    "RECANTO FELIZ",
    "SERRA AZUL",
    "NOSSA SENHORA APARECIDA",
    "SANTO ANTONIO",
];

pub(super) fn imovel(ds: &Dataset, index: usize) -> Option<ImovelRural> {
    let (uf, mun) = ds.rural.place(index)?;
    let mut rng = entity_rng(ds.seed, stream::IMOVEL, index as u64);
    let rng = &mut rng;
    let (kind, _, size) = KINDS[weighted(rng, &KINDS, |k| k.1)];
    let nome = match below(rng, 4) {
        0 => format!("{kind} {}", pick(rng, &SURNAMES)),
        _ => format!("{kind} {}", pick(rng, &SAINTS)),
    };
    // Area in tenths of a hectare, heavy-tailed by kind; written `1234,5`.
    let tenths = (heavy_cents(rng, size, 35) / 10).max(1);
    let updated = Date::between(rng, Date::new(2015, 1, 1), TODAY);
    let incra = format!("{:013}", between(rng, 0, 9_999_999_999_999));
    let sncr = if per_mille(rng, 300) {
        format!("{:013}", between(rng, 0, 9_999_999_999_999))
    } else {
        String::new()
    };
    let lote = if per_mille(rng, 200) { format!("LOTE {}", 1 + below(rng, 300)) } else { String::new() };
    let logradouro = match below(rng, 4) {
        0 => format!("ESTRADA MUNICIPAL KM {}", 1 + below(rng, 80)),
        1 => format!(
            "RODOVIA BR-{} KM {}",
            pick(rng, &["163", "364", "070", "153", "101", "116"]),
            below(rng, 900)
        ),
        2 => format!("LINHA {}", 1 + below(rng, 20)),
        _ => format!("COMUNIDADE {}", pick(rng, &SAINTS)),
    };
    let distrito =
        if per_mille(rng, 300) { format!("DISTRITO DE {}", pick(rng, &SAINTS)) } else { String::new() };
    let imune = ["NAO", "ISENTO", "IMUNE"][weighted(rng, &[950u32, 40, 10], |w| *w)];
    let situacao = ["ATIVO", "CANCELADO", "SUSPENSO"][weighted(rng, &[900u32, 70, 30], |w| *w)];
    let uf_arquivo = if per_mille(rng, 20) { weighted(rng, &UF_INFO, |u| u.rural_weight) } else { uf };
    let parte = 1 + below(rng, 4) as i64;
    let mut cadastro = updated.iso();
    let mut raw = updated.br();
    if defect(rng) {
        if below(rng, 2) == 0 {
            cadastro = broken_date(rng, DateForm::Iso);
        } else {
            raw = broken_date(rng, DateForm::Br);
        }
    }
    Some(ImovelRural {
        data_atualizacao_cadastro: Some(cadastro),
        parte_arquivo: Some(parte),
        area_total_hectares: Some(format!("{},{}", tenths / 10, tenths % 10)),
        cep: Some(cep(rng, uf)),
        codigo_imovel_incra: Some(incra),
        codigo_lote: Some(lote),
        codigo_sncr: Some(sncr),
        data_atualizacao_raw: Some(raw),
        distrito: Some(distrito),
        imune_isento: Some(imune.to_string()),
        logradouro: Some(logradouro),
        municipio: Some(MUNICIPIOS[mun].name.to_string()),
        nirf: Some(ds.codec.nirf(index)),
        nome_imovel_rural: Some(nome),
        situacao_imovel: Some(situacao.to_string()),
        uf: Some(UFS[uf].to_string()),
        uf_arquivo: Some(UFS[uf_arquivo].to_string()),
    })
}
