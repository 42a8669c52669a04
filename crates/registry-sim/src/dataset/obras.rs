//! Construction works (CNO) of a company with their links, activity codes and areas. A
//! work is regenerated from (seed, company index, slot), and its CNO encodes both, so a
//! lookup by CNO needs no index. Company data comes from `company::Core`.

use super::Dataset;
use super::codec::OBRA_SLOTS;
use super::company::Core;
use super::geo::{MUNICIPIOS, cep, pick_municipio};
use super::rng::{DetRng, below, between, entity_rng, per_mille, pick, stream, weighted};
use super::text::{Date, DateForm, TODAY, broken_date, defect, money_dot};
use super::vocab::{OBRA_CNAES, SURNAMES, address};
use registry_api::models::{Obra, ObraArea, ObraCnae, Vinculo};

pub(super) struct ObraFull {
    pub obra: Obra,
    pub vinculos: Vec<Vinculo>,
    pub cnaes: Vec<ObraCnae>,
    pub areas: Vec<ObraArea>,
}

const PLACES: [&str; 8] = [
    "JARDIM DAS FLORES",
    "DOS IPES",
    "JACARANDAS",
    "BOA VISTA",
    "PARQUE DAS AGUAS",
    "SOLAR",
    "PRIMAVERA",
    "AURORA",
];

fn work_name(rng: &mut DetRng) -> String {
    let place = pick(rng, &PLACES);
    match below(rng, 6) {
        0 => format!("EDIFICIO RESIDENCIAL {place}"),
        1 => format!("CONDOMINIO {place}"),
        2 => format!("GALPAO INDUSTRIAL {}", pick(rng, &SURNAMES)),
        3 => format!("REFORMA LOJA {place}"),
        4 => "CONSTRUCAO RESIDENCIA UNIFAMILIAR".to_string(),
        _ => format!("AMPLIACAO {place}"),
    }
}

/// (categoria_raw, destinacao_raw, tipo_obra_raw) of an area.
const AREA_KINDS: [(&str, &str, &str); 5] = [
    ("OBRA NOVA", "RESIDENCIAL MULTIFAMILIAR", "CONSTRUCAO"),
    ("OBRA NOVA", "RESIDENCIAL UNIFAMILIAR", "CONSTRUCAO"),
    ("ACRESCIMO", "COMERCIAL", "ACRESCIMO"),
    ("REFORMA", "COMERCIAL", "REFORMA"),
    ("OBRA NOVA", "GALPAO INDUSTRIAL", "CONSTRUCAO"),
];

fn iso_or_defect(rng: &mut DetRng, date: Date, broken: bool) -> String {
    if broken { broken_date(rng, DateForm::Iso) } else { date.iso() }
}

/// Work `k` (< `core.obras`) of the company.
pub(super) fn obra_full(ds: &Dataset, core: &Core, k: u32) -> ObraFull {
    let mut rng = entity_rng(ds.seed, stream::OBRA, core.index as u64 * OBRA_SLOTS + u64::from(k));
    let rng = &mut rng;
    let cno = ds.codec.cno(core.index, k);
    let ni = core.cnpj.as_str().to_string();
    let mun = if per_mille(rng, 800) { core.mun } else { pick_municipio(rng, core.uf, false) };
    let municipio = &MUNICIPIOS[mun];
    let inicio = Date::between(rng, core.inicio.max(Date::new(2012, 1, 1)), TODAY.plus_days(-10));
    let registro = inicio.plus_days(below(rng, 60) as i64).min(TODAY);
    let situacao = ["02", "15", "14", "03"][weighted(rng, &[600u32, 300, 70, 30], |w| *w)];
    let data_situacao = if situacao == "02" { registro } else { Date::between(rng, registro, TODAY) };
    let [tipo, logradouro, numero, complemento, bairro] = address(rng);
    let kind = AREA_KINDS[below(rng, AREA_KINDS.len())];
    let mut areas = Vec::new();
    let mut total_hundredths = 0i64;
    for a in 0..1 + below(rng, 3) {
        let hundredths = between(rng, 5_000, 2_000_000) as i64;
        total_hundredths += hundredths;
        let (tipo_area, complementar) = if a == 0 {
            ("PRINCIPAL", String::new())
        } else {
            ("COMPLEMENTAR", pick(rng, &["GARAGEM", "AREA DE LAZER", "AREA TECNICA"]).to_string())
        };
        areas.push(ObraArea {
            categoria_raw: Some(kind.0.to_string()),
            cno: Some(cno.clone()),
            destinacao_raw: Some(kind.1.to_string()),
            // Decimal comma, no grouping: `1250,50`.
            metragem: Some(format!("{},{:02}", hundredths / 100, hundredths % 100)),
            tipo_area_complementar_raw: Some(complementar),
            tipo_area_raw: Some(tipo_area.to_string()),
            tipo_obra_raw: Some(kind.2.to_string()),
        });
    }
    let first_cnae = below(rng, OBRA_CNAES.len());
    let cnaes = (0..1 + below(rng, 2))
        .map(|i| ObraCnae {
            cnae: Some(OBRA_CNAES[(first_cnae + i) % OBRA_CNAES.len()].to_string()),
            cno: Some(cno.clone()),
            data_registro: Some(registro.iso()),
        })
        .collect();
    let qualificacao = pick(rng, &["0070", "0057", "0064"]);
    let mut vinculos = vec![Vinculo {
        // A link that has not ended has no end date: null, as the interface types `data_fim` a
        // date (an ISO date or null), never an empty text.
        data_fim: (situacao == "15").then(|| data_situacao.iso()),
        data_inicio: Some(inicio.iso()),
        data_registro: Some(registro.iso()),
        cno: Some(cno.clone()),
        ni_responsavel: Some(ni.clone()),
        qualificacao_contribuinte: Some(qualificacao.to_string()),
    }];
    for _ in 0..below(rng, 3) {
        // A contractor: another company of the dataset, for part of the period.
        let other = below(rng, ds.companies);
        let start = Date::between(rng, inicio, TODAY);
        let end = per_mille(rng, 500).then(|| Date::between(rng, start, TODAY).iso());
        vinculos.push(Vinculo {
            data_fim: end,
            data_inicio: Some(start.iso()),
            data_registro: Some(start.iso()),
            cno: Some(cno.clone()),
            ni_responsavel: Some(ds.codec.cnpj(other, 1).as_str().to_string()),
            qualificacao_contribuinte: Some("0053".to_string()),
        });
    }
    let vinculado = if k > 0 && per_mille(rng, 200) { ds.codec.cno(core.index, 0) } else { String::new() };
    let broken = defect(rng);
    let obra = Obra {
        data_inicio: Some(inicio.iso()),
        data_inicio_responsabilidade: Some(inicio.iso()),
        data_registro: Some(registro.iso()),
        data_situacao: Some(iso_or_defect(rng, data_situacao, broken)),
        area_total: Some(money_dot(total_hundredths)),
        bairro: Some(bairro),
        caixa_postal: Some(String::new()),
        cep: Some(cep(rng, core.uf)),
        cno: Some(cno),
        cno_vinculado: Some(vinculado),
        codigo_localizacao: Some("1".to_string()),
        codigo_municipio: Some(municipio.ibge.to_string()),
        codigo_pais: Some("105".to_string()),
        complemento: Some(complemento),
        estado: Some(core.uf_code().to_string()),
        logradouro: Some(logradouro),
        ni_responsavel: Some(ni),
        nome: Some(work_name(rng)),
        nome_empresarial: Some(core.razao.clone()),
        nome_municipio: Some(municipio.name.to_string()),
        nome_pais: Some("BRASIL".to_string()),
        numero_logradouro: Some(numero),
        qualificacao_responsavel: Some(qualificacao.to_string()),
        situacao: Some(situacao.to_string()),
        tipo_logradouro: Some(tipo),
        unidade_medida: Some("M2".to_string()),
    };
    ObraFull { obra, vinculos, cnaes, areas }
}
