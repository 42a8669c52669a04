//! CNPJ open-data records of a company, built on its `Core`: establishments (head office
//! and branches), `empresa`, `simples` and partners. Debts, works and the assembled profile
//! live in their own modules.

use super::Dataset;
use super::company::{Core, DATASET_MONTH, is_public};
use super::geo::{MUNICIPIOS, cep, pick_municipio, pick_uf};
use super::groups;
use super::history;
use super::rng::{DetRng, below, between, entity_rng, per_mille, pick, stream, weighted};
use super::text::{Date, DateForm, TODAY, broken_date, broken_money, defect, mangled_name, money_comma};
use super::vocab::{FOREIGN_NAMES, address, person_name, secondary_cnaes};
use registry_api::ids::UFS;
use registry_api::models::{Empresa, Estabelecimento, Simples, Socio};

fn slug(name: &str) -> String {
    name.split(' ')
        .take(2)
        .flat_map(str::chars)
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_lowercase()
}

fn phone(rng: &mut DetRng) -> String {
    if below(rng, 2) == 0 {
        format!("9{:08}", between(rng, 60_000_000, 99_999_999))
    } else {
        format!("{}{:07}", between(rng, 2, 4), between(rng, 0, 9_999_999))
    }
}

/// Establishment `ordem` (1 = head office) of the company.
pub(super) fn estabelecimento(ds: &Dataset, core: &Core, ordem: u32) -> Estabelecimento {
    let mut rng = entity_rng(ds.seed, stream::ESTAB, core.index as u64 * 8 + u64::from(ordem));
    let rng = &mut rng;
    let head = ordem == 1;
    let (uf, mun, inicio, situacao) = if head {
        (core.uf, history::head_office_municipio(ds, core), core.inicio, core.situacao)
    } else {
        let uf = if per_mille(rng, 700) { core.uf } else { pick_uf(rng) };
        let mun = pick_municipio(rng, uf, false);
        let inicio = Date::between(rng, core.inicio, TODAY.plus_days(-30));
        let situacao = ["02", "08", "04"][weighted(rng, &[800u32, 150, 50], |w| *w)];
        (uf, mun, inicio, situacao)
    };
    let data_situacao = if situacao == "02" { inicio } else { Date::between(rng, inicio, TODAY) };
    // Before the date of its situation, the establishment was ATIVA since it opened.
    let (situacao, data_situacao) =
        if history::exists(ds, data_situacao) { (situacao, data_situacao) } else { ("02", inicio) };
    let motivo = match situacao {
        "02" => "00",
        "08" => "01",
        "04" => "63",
        _ => "71",
    };
    let [tipo, logradouro, numero, complemento, bairro] = address(rng);
    let municipio = &MUNICIPIOS[mun];
    let mut secundarias = secondary_cnaes(rng, core.cnae);
    if head {
        secundarias = history::secondary_cnaes(ds, core, secundarias);
    }
    let email = match below(rng, 5) {
        0 | 1 => String::new(),
        2 => format!(
            "contato@{}.com.br",
            slug(if core.fantasia.is_empty() { &core.razao } else { &core.fantasia })
        ),
        _ => format!(
            "{}{}@{}",
            slug(&core.razao),
            below(rng, 100),
            pick(rng, &["gmail.com", "hotmail.com", "uol.com.br", "yahoo.com.br", "terra.com.br"])
        ),
    };
    let telefone_1 = phone(rng);
    let second = below(rng, 10) < 3;
    let telefone_2 = if second { phone(rng) } else { String::new() };
    let mut data_inicio = inicio.compact();
    let mut data_sit = data_situacao.compact();
    if defect(rng) {
        if below(rng, 2) == 0 {
            data_inicio = broken_date(rng, DateForm::Compact);
        } else {
            data_sit = broken_date(rng, DateForm::Compact);
        }
    }
    let cnpj = ds.codec.cnpj(core.index, ordem);
    let s = cnpj.as_str();
    let mut record = Estabelecimento {
        bairro: Some(bairro),
        cep: Some(cep(rng, uf)),
        // The head office's main CNAE as it stood at the as-of month (a branch keeps today's).
        cnae_fiscal_principal: Some(
            if head { super::vocab::CNAES[history::cnae_index(ds, core)].code } else { core.cnae().code }
                .to_string(),
        ),
        cnae_fiscal_secundaria: Some(secundarias.join(",")),
        cnpj_basico: Some(s[..8].to_string()),
        cnpj_completo: Some(s.to_string()),
        cnpj_dv: Some(s[12..].to_string()),
        cnpj_ordem: Some(s[8..12].to_string()),
        complemento: Some(complemento),
        correio_eletronico: Some(email),
        data_inicio_atividade: Some(data_inicio),
        data_situacao_cadastral: Some(data_sit),
        data_situacao_especial: Some("00000000".to_string()),
        dataset_month: Some(DATASET_MONTH.to_string()),
        ddd_1: Some(municipio.ddd.to_string()),
        ddd_2: Some(if second { municipio.ddd.to_string() } else { String::new() }),
        ddd_fax: Some(String::new()),
        fax: Some(String::new()),
        identificador_matriz_filial: Some(if head { "1" } else { "2" }.to_string()),
        logradouro: Some(logradouro),
        motivo_situacao_cadastral: Some(motivo.to_string()),
        municipio: Some(municipio.name.to_string()),
        nome_cidade_exterior: Some(String::new()),
        nome_fantasia: Some(if head || below(rng, 2) == 0 { core.fantasia.clone() } else { String::new() }),
        numero: Some(numero),
        pais: Some(String::new()),
        situacao_cadastral: Some(situacao.to_string()),
        situacao_especial: Some(String::new()),
        telefone_1: Some(telefone_1),
        telefone_2: Some(telefone_2),
        tipo_logradouro: Some(tipo),
        uf: Some(UFS[uf].to_string()),
    };
    // Before the head office changed its street address, it had another one.
    if let Some(mut earlier) = head.then(|| history::earlier_address(ds, core)).flatten() {
        let [tipo, logradouro, numero, complemento, bairro] = address(&mut earlier);
        record.cep = Some(cep(&mut earlier, uf));
        (record.tipo_logradouro, record.logradouro, record.numero) =
            (Some(tipo), Some(logradouro), Some(numero));
        (record.complemento, record.bairro) = (Some(complemento), Some(bairro));
    }
    record
}

/// Head office first, then branches in ordem order.
pub(super) fn estabelecimentos(ds: &Dataset, core: &Core) -> Vec<Estabelecimento> {
    (1..=core.branches + 1).map(|ordem| estabelecimento(ds, core, ordem)).collect()
}

/// The `empresa` and `simples` records (one stream: slot 0 of the establishment keys).
pub(super) fn empresa_simples(ds: &Dataset, core: &Core) -> (Empresa, Simples) {
    let mut rng = entity_rng(ds.seed, stream::ESTAB, core.index as u64 * 8);
    let rng = &mut rng;
    let mut razao = core.razao.clone();
    let mut capital = money_comma(history::capital_cents(ds, core));
    if defect(rng) {
        match below(rng, 3) {
            0 => razao = String::new(),
            1 => razao = mangled_name(&razao),
            _ => capital = broken_money(rng),
        }
    }
    let qualificacao = match core.natureza {
        "2135" => "50",
        "2054" | "2046" => "10",
        "3999" | "3069" | "2143" => "16",
        n if is_public(n) => "05",
        _ => "49",
    };
    let ente = if core.natureza.starts_with('1') {
        format!("{} - {}", core.municipio().name, core.uf_code())
    } else {
        String::new()
    };
    let basico = core.cnpj.basico().to_string();
    let empresa = Empresa {
        capital_social_raw: Some(capital),
        cnpj_basico: Some(basico.clone()),
        dataset_month: Some(DATASET_MONTH.to_string()),
        ente_federativo_responsavel: Some(ente),
        natureza_juridica: Some(history::natureza(ds, core).to_string()),
        porte_empresa: Some(history::porte(ds, core).to_string()),
        qualificacao_responsavel: Some(qualificacao.to_string()),
        razao_social: Some(razao),
    };
    let none = || "00000000".to_string();
    let eligible = matches!(core.porte, "01" | "03") && !core.is_public();
    let mei = core.natureza == "2135" && core.porte == "01" && per_mille(rng, 600);
    let simples_from = core.inicio.max(Date::new(2007, 7, 1));
    // An option counts from its date, an exclusion from its own (see `history`).
    let opted_in = |date: Date| history::exists(ds, date);
    let (opcao_simples, opcao_data, exclusao_data) = if eligible && (mei || per_mille(rng, 700)) {
        let opted = Date::between(rng, simples_from, TODAY);
        if opted_in(opted) { ("S", opted.compact(), none()) } else { ("N", none(), none()) }
    } else if eligible && per_mille(rng, 300) {
        let opted = Date::between(rng, simples_from, TODAY);
        let excluded = Date::between(rng, opted, TODAY);
        match (opted_in(opted), opted_in(excluded)) {
            (true, true) => ("N", opted.compact(), excluded.compact()),
            (true, false) => ("S", opted.compact(), none()),
            _ => ("N", none(), none()),
        }
    } else {
        ("N", none(), none())
    };
    let mei_from = core.inicio.max(Date::new(2009, 7, 1));
    let (opcao_mei, mei_data) = if mei {
        let opted = Date::between(rng, mei_from, TODAY);
        if opted_in(opted) { ("S", opted.compact()) } else { ("N", none()) }
    } else {
        ("N", none())
    };
    let simples = Simples {
        cnpj_basico: Some(basico),
        data_exclusao_mei: Some(none()),
        data_exclusao_simples: Some(exclusao_data),
        data_opcao_mei: Some(mei_data),
        data_opcao_simples: Some(opcao_data),
        dataset_month: Some(DATASET_MONTH.to_string()),
        opcao_pelo_mei: Some(opcao_mei.to_string()),
        opcao_pelo_simples: Some(opcao_simples.to_string()),
    };
    (empresa, simples)
}

/// Partners at the as-of month: people (CPF masked `***220050**`), other companies of the
/// dataset (full CNPJ) and a few foreigners. A group member's first partners are the companies
/// that own it (`groups::owners`). A person or foreigner is a partner from its entry date on,
/// and a few companies had one more partner who left inside the window (`history`).
pub(super) fn socios(ds: &Dataset, core: &Core) -> Vec<Socio> {
    let mut rng = entity_rng(ds.seed, stream::SOCIO, core.index as u64);
    let rng = &mut rng;
    let corporate = matches!(core.natureza, "2062" | "2054" | "2046" | "2232");
    let owners = groups::owners(core.index, ds.companies);
    (0..core.socios)
        .filter_map(|j| {
            let owner = owners.get(j as usize).copied();
            let kind = if owner.is_some() || (corporate && per_mille(rng, 100)) {
                1
            } else if per_mille(rng, 20) {
                3
            } else {
                2
            };
            let (mut nome, doc, faixa, pais) = match kind {
                1 => {
                    let other = owner.unwrap_or(
                        ((core.index as u64 * 7919 + u64::from(j) * 104_729 + 1) % ds.companies as u64)
                            as usize,
                    );
                    let partner = Core::generate(ds, other);
                    (partner.razao, partner.cnpj.as_str().to_string(), "0".to_string(), String::new())
                }
                3 => (
                    pick(rng, &FOREIGN_NAMES).to_string(),
                    "***999999**".to_string(),
                    between(rng, 4, 8).to_string(),
                    pick(rng, &["249", "607", "386", "023"]).to_string(),
                ),
                _ => (
                    person_name(rng),
                    format!("***{:06}**", between(rng, 0, 999_999)),
                    between(rng, 3, 8).to_string(),
                    String::new(),
                ),
            };
            let qualificacao = match (core.natureza, j) {
                ("2054" | "2046", 0) => "16",
                ("2054" | "2046", _) => "10",
                ("3999" | "3069" | "2143", _) => "16",
                (_, 0) => "49",
                _ => pick(rng, &["22", "49"]),
            };
            let qualificacao = if j == 0 {
                history::first_partner_qualification(ds, core, qualificacao)
            } else {
                qualificacao
            };
            let entered = Date::between(rng, core.inicio, TODAY);
            let mut entrada = entered.compact();
            // The companies that link groups are partners all along; a broken date says no when.
            let mut since = (kind != 1).then_some(entered);
            if defect(rng) {
                if below(rng, 2) == 0 {
                    nome = mangled_name(&nome);
                } else {
                    entrada = broken_date(rng, DateForm::Compact);
                    since = None;
                }
            }
            let partner = Socio {
                cnpj_basico: Some(core.cnpj.basico().to_string()),
                cnpj_cpf_socio: Some(doc),
                data_entrada_sociedade: Some(entrada),
                dataset_month: Some(DATASET_MONTH.to_string()),
                faixa_etaria: Some(faixa),
                identificador_socio: Some(kind.to_string()),
                nome_representante: Some(String::new()),
                nome_socio_razao_social: Some(nome),
                pais: Some(pais),
                qualificacao_representante_legal: Some("00".to_string()),
                qualificacao_socio: Some(qualificacao.to_string()),
                representante_legal: Some("***000000**".to_string()),
            };
            since.is_none_or(|d| history::exists(ds, d)).then_some(partner)
        })
        .chain(history::partner_gone(ds, core, |rng, (lo, hi)| person_partner(rng, core, (lo, hi))))
        .collect()
}

/// A person partner of `core` who entered between `lo` and `hi`, and that date.
fn person_partner(rng: &mut DetRng, core: &Core, (lo, hi): (Date, Date)) -> (Date, Socio) {
    let entered = Date::between(rng, lo, hi);
    let partner = Socio {
        cnpj_basico: Some(core.cnpj.basico().to_string()),
        cnpj_cpf_socio: Some(format!("***{:06}**", between(rng, 0, 999_999))),
        data_entrada_sociedade: Some(entered.compact()),
        dataset_month: Some(DATASET_MONTH.to_string()),
        faixa_etaria: Some(between(rng, 3, 8).to_string()),
        identificador_socio: Some("2".to_string()),
        nome_representante: Some(String::new()),
        nome_socio_razao_social: Some(person_name(rng)),
        pais: Some(String::new()),
        qualificacao_representante_legal: Some("00".to_string()),
        qualificacao_socio: Some("22".to_string()),
        representante_legal: Some("***000000**".to_string()),
    };
    (entered, partner)
}
