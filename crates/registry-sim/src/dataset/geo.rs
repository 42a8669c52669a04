//! Geography of the dataset: the 27 UFs with their weights, spelled-out names and CEP
//! ranges, and a small table of real municipalities (IBGE code, DDD) for addresses and
//! rural properties. Static data only; no sampling policy beyond the weights.

use super::rng::{DetRng, weighted};
use registry_api::ids::UFS;

pub(super) struct UfInfo {
    pub code: &'static str,
    /// Spelled out, upper case, no accents (`SAO PAULO`), as negotiation exports write it.
    pub name: &'static str,
    /// Share of companies, per 10 000: SP about a third, RR/AP/AC tiny.
    pub company_weight: u32,
    /// Share of rural properties, per 1 000.
    pub rural_weight: u32,
    /// First five CEP digits, inclusive range.
    pub cep: (u32, u32),
}

const fn uf(code: &'static str, name: &'static str, cw: u32, rw: u32, lo: u32, hi: u32) -> UfInfo {
    UfInfo { code, name, company_weight: cw, rural_weight: rw, cep: (lo, hi) }
}

/// In the order of `UFS` (checked by a test).
pub(super) const UF_INFO: [UfInfo; 27] = [
    uf("AC", "ACRE", 25, 10, 69900, 69999),
    uf("AL", "ALAGOAS", 110, 10, 57000, 57999),
    uf("AP", "AMAPA", 25, 3, 68900, 68999),
    uf("AM", "AMAZONAS", 140, 15, 69000, 69299),
    uf("BA", "BAHIA", 480, 90, 40000, 48999),
    uf("CE", "CEARA", 310, 40, 60000, 63999),
    uf("DF", "DISTRITO FEDERAL", 230, 5, 70000, 72799),
    uf("ES", "ESPIRITO SANTO", 230, 30, 29000, 29999),
    uf("GO", "GOIAS", 380, 90, 72800, 76799),
    uf("MA", "MARANHAO", 150, 50, 65000, 65999),
    uf("MT", "MATO GROSSO", 220, 130, 78000, 78899),
    uf("MS", "MATO GROSSO DO SUL", 150, 80, 79000, 79999),
    uf("MG", "MINAS GERAIS", 1080, 140, 30000, 39999),
    uf("PA", "PARA", 220, 60, 66000, 68899),
    uf("PB", "PARAIBA", 120, 20, 58000, 58999),
    uf("PR", "PARANA", 720, 100, 80000, 87999),
    uf("PE", "PERNAMBUCO", 310, 30, 50000, 56999),
    uf("PI", "PIAUI", 100, 30, 64000, 64999),
    uf("RJ", "RIO DE JANEIRO", 800, 15, 20000, 28999),
    uf("RN", "RIO GRANDE DO NORTE", 110, 15, 59000, 59999),
    uf("RS", "RIO GRANDE DO SUL", 720, 120, 90000, 99999),
    uf("RO", "RONDONIA", 90, 40, 76800, 76999),
    uf("RR", "RORAIMA", 20, 5, 69300, 69399),
    uf("SC", "SANTA CATARINA", 580, 60, 88000, 89999),
    uf("SP", "SAO PAULO", 3310, 90, 1000, 19999),
    uf("SE", "SERGIPE", 70, 10, 49000, 49999),
    uf("TO", "TOCANTINS", 70, 45, 77000, 77999),
];

/// Position in `UFS` of a state code, case-insensitive.
pub(super) fn uf_index(code: &str) -> Option<usize> {
    UFS.iter().position(|u| u.eq_ignore_ascii_case(code.trim()))
}

pub(super) struct Municipio {
    pub uf: &'static str,
    /// Upper case without accents, as the RFB files write it.
    pub name: &'static str,
    pub ibge: &'static str,
    pub ddd: &'static str,
    pub urban: u32,
    pub rural: u32,
}

const fn mun(
    uf: &'static str,
    name: &'static str,
    ibge: &'static str,
    ddd: &'static str,
    urban: u32,
    rural: u32,
) -> Municipio {
    Municipio { uf, name, ibge, ddd, urban, rural }
}

pub(super) const MUNICIPIOS: &[Municipio] = &[
    mun("AC", "RIO BRANCO", "1200401", "68", 8, 2),
    mun("AC", "CRUZEIRO DO SUL", "1200203", "68", 2, 3),
    mun("AC", "SENA MADUREIRA", "1200500", "68", 1, 2),
    mun("AL", "MACEIO", "2704302", "82", 8, 1),
    mun("AL", "ARAPIRACA", "2700300", "82", 3, 3),
    mun("AL", "PALMEIRA DOS INDIOS", "2706307", "82", 1, 2),
    mun("AP", "MACAPA", "1600303", "96", 8, 2),
    mun("AP", "SANTANA", "1600600", "96", 2, 1),
    mun("AM", "MANAUS", "1302603", "92", 10, 2),
    mun("AM", "PARINTINS", "1303403", "92", 1, 2),
    mun("AM", "ITACOATIARA", "1301902", "92", 1, 2),
    mun("BA", "SALVADOR", "2927408", "71", 8, 0),
    mun("BA", "FEIRA DE SANTANA", "2910800", "75", 3, 2),
    mun("BA", "VITORIA DA CONQUISTA", "2933307", "77", 2, 2),
    mun("BA", "LUIS EDUARDO MAGALHAES", "2919553", "77", 1, 5),
    mun("BA", "BARREIRAS", "2903201", "77", 1, 4),
    mun("CE", "FORTALEZA", "2304400", "85", 10, 1),
    mun("CE", "CAUCAIA", "2303709", "85", 2, 1),
    mun("CE", "JUAZEIRO DO NORTE", "2307304", "88", 2, 2),
    mun("CE", "SOBRAL", "2312908", "88", 1, 2),
    mun("DF", "BRASILIA", "5300108", "61", 10, 1),
    mun("ES", "VITORIA", "3205309", "27", 4, 0),
    mun("ES", "VILA VELHA", "3205200", "27", 3, 0),
    mun("ES", "SERRA", "3205002", "27", 3, 1),
    mun("ES", "LINHARES", "3203205", "27", 1, 3),
    mun("ES", "COLATINA", "3201506", "27", 1, 2),
    mun("GO", "GOIANIA", "5208707", "62", 8, 1),
    mun("GO", "APARECIDA DE GOIANIA", "5201405", "62", 3, 0),
    mun("GO", "ANAPOLIS", "5201108", "62", 2, 1),
    mun("GO", "RIO VERDE", "5218805", "64", 1, 5),
    mun("GO", "JATAI", "5211909", "64", 1, 4),
    mun("GO", "CRISTALINA", "5206206", "61", 1, 3),
    mun("MA", "SAO LUIS", "2111300", "98", 8, 1),
    mun("MA", "IMPERATRIZ", "2105302", "99", 2, 2),
    mun("MA", "BALSAS", "2101400", "99", 1, 4),
    mun("MT", "CUIABA", "5103403", "65", 6, 1),
    mun("MT", "VARZEA GRANDE", "5108402", "65", 2, 1),
    mun("MT", "RONDONOPOLIS", "5107602", "66", 2, 3),
    mun("MT", "SINOP", "5107909", "66", 2, 4),
    mun("MT", "SORRISO", "5107925", "66", 1, 5),
    mun("MT", "LUCAS DO RIO VERDE", "5105259", "65", 1, 4),
    mun("MS", "CAMPO GRANDE", "5002704", "67", 8, 2),
    mun("MS", "DOURADOS", "5003702", "67", 2, 4),
    mun("MS", "TRES LAGOAS", "5008305", "67", 1, 3),
    mun("MG", "BELO HORIZONTE", "3106200", "31", 8, 0),
    mun("MG", "UBERLANDIA", "3170206", "34", 3, 3),
    mun("MG", "CONTAGEM", "3118601", "31", 2, 0),
    mun("MG", "JUIZ DE FORA", "3136702", "32", 2, 1),
    mun("MG", "UBERABA", "3170107", "34", 1, 4),
    mun("MG", "UNAI", "3170404", "38", 1, 4),
    mun("MG", "MONTES CLAROS", "3143302", "38", 1, 3),
    mun("PA", "BELEM", "1501402", "91", 8, 1),
    mun("PA", "ANANINDEUA", "1500800", "91", 2, 0),
    mun("PA", "SANTAREM", "1506807", "93", 1, 3),
    mun("PA", "MARABA", "1504208", "94", 1, 4),
    mun("PA", "PARAGOMINAS", "1505502", "91", 1, 3),
    mun("PB", "JOAO PESSOA", "2507507", "83", 8, 1),
    mun("PB", "CAMPINA GRANDE", "2504009", "83", 3, 2),
    mun("PB", "PATOS", "2510808", "83", 1, 2),
    mun("PR", "CURITIBA", "4106902", "41", 8, 0),
    mun("PR", "LONDRINA", "4113700", "43", 3, 2),
    mun("PR", "MARINGA", "4115200", "44", 3, 2),
    mun("PR", "CASCAVEL", "4104808", "45", 2, 4),
    mun("PR", "PONTA GROSSA", "4119905", "42", 2, 3),
    mun("PR", "TOLEDO", "4127700", "45", 1, 3),
    mun("PE", "RECIFE", "2611606", "81", 8, 0),
    mun("PE", "JABOATAO DOS GUARARAPES", "2607901", "81", 3, 0),
    mun("PE", "CARUARU", "2604106", "81", 2, 2),
    mun("PE", "PETROLINA", "2611101", "87", 2, 4),
    mun("PI", "TERESINA", "2211001", "86", 8, 1),
    mun("PI", "PARNAIBA", "2207702", "86", 1, 2),
    mun("PI", "URUCUI", "2211209", "89", 1, 4),
    mun("RJ", "RIO DE JANEIRO", "3304557", "21", 10, 0),
    mun("RJ", "NITEROI", "3303302", "21", 2, 0),
    mun("RJ", "DUQUE DE CAXIAS", "3301702", "21", 2, 0),
    mun("RJ", "CAMPOS DOS GOYTACAZES", "3301009", "22", 1, 4),
    mun("RJ", "NOVA FRIBURGO", "3303401", "22", 1, 2),
    mun("RN", "NATAL", "2408102", "84", 8, 1),
    mun("RN", "MOSSORO", "2408003", "84", 2, 3),
    mun("RS", "PORTO ALEGRE", "4314902", "51", 8, 0),
    mun("RS", "CAXIAS DO SUL", "4305108", "54", 3, 1),
    mun("RS", "PELOTAS", "4314407", "53", 2, 2),
    mun("RS", "PASSO FUNDO", "4314100", "54", 2, 3),
    mun("RS", "CRUZ ALTA", "4306106", "55", 1, 4),
    mun("RS", "SANTA MARIA", "4316907", "55", 2, 2),
    mun("RO", "PORTO VELHO", "1100205", "69", 6, 2),
    mun("RO", "JI-PARANA", "1100122", "69", 2, 3),
    mun("RO", "VILHENA", "1100304", "69", 1, 3),
    mun("RR", "BOA VISTA", "1400100", "95", 10, 3),
    mun("SC", "FLORIANOPOLIS", "4205407", "48", 5, 0),
    mun("SC", "JOINVILLE", "4209102", "47", 4, 1),
    mun("SC", "BLUMENAU", "4202404", "47", 3, 1),
    mun("SC", "CHAPECO", "4204202", "49", 2, 4),
    mun("SC", "CRICIUMA", "4204608", "48", 2, 1),
    mun("SP", "SAO PAULO", "3550308", "11", 20, 0),
    mun("SP", "CAMPINAS", "3509502", "19", 4, 1),
    mun("SP", "GUARULHOS", "3518800", "11", 3, 0),
    mun("SP", "SANTOS", "3548500", "13", 2, 0),
    mun("SP", "RIBEIRAO PRETO", "3543402", "16", 2, 4),
    mun("SP", "SAO JOSE DOS CAMPOS", "3549904", "12", 2, 1),
    mun("SP", "SOROCABA", "3552205", "15", 2, 2),
    mun("SP", "PRESIDENTE PRUDENTE", "3541406", "18", 1, 4),
    mun("SE", "ARACAJU", "2800308", "79", 8, 1),
    mun("SE", "ITABAIANA", "2802908", "79", 1, 3),
    mun("TO", "PALMAS", "1721000", "63", 6, 2),
    mun("TO", "ARAGUAINA", "1702109", "63", 3, 4),
    mun("TO", "GURUPI", "1709500", "63", 1, 3),
];

/// A municipality of UF `uf` (position in `UFS`), by urban or rural weight.
pub(super) fn pick_municipio(rng: &mut DetRng, uf: usize, rural: bool) -> usize {
    let code = UFS[uf];
    let first = MUNICIPIOS.iter().position(|m| m.uf == code).unwrap_or(0);
    let count = MUNICIPIOS[first..].iter().take_while(|m| m.uf == code).count().max(1);
    let slice = &MUNICIPIOS[first..first + count];
    first + weighted(rng, slice, |m| if rural { m.rural } else { m.urban })
}

/// A UF drawn by company weight.
pub(super) fn pick_uf(rng: &mut DetRng) -> usize {
    weighted(rng, &UF_INFO, |u| u.company_weight)
}

/// An 8-digit CEP inside the UF's range.
pub(super) fn cep(rng: &mut DetRng, uf: usize) -> String {
    let (lo, hi) = UF_INFO[uf].cep;
    let prefix = super::rng::between(rng, u64::from(lo), u64::from(hi));
    format!("{:05}{:03}", prefix, super::rng::between(rng, 0, 999))
}
