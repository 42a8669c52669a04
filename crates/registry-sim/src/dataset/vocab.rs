//! Word lists and code tables: CNAE sections and a sample of real 7-digit CNAE codes,
//! legal natures, Portuguese names and street words. Static data plus the small helpers
//! that combine them into names and addresses; no record layout lives here.

use super::rng::{DetRng, below, pick, weighted};

pub(super) struct Section {
    pub letter: &'static str,
    /// Share of companies (per mille, roughly).
    pub company_weight: u32,
    /// Share of aggregated tax credits.
    pub credit_weight: u32,
}

impl Section {
    /// Its name, as in `docs/domain.md`, "CNAE 2.x sections" (accented): the interface's table.
    pub(super) fn descr(&self) -> &'static str {
        self.letter.chars().next().and_then(registry_api::cnae::section_by_letter).map_or("", |s| s.name)
    }
}

const fn sec(letter: &'static str, cw: u32, kw: u32) -> Section {
    Section { letter, company_weight: cw, credit_weight: kw }
}

pub(super) const SECTIONS: [Section; 21] = [
    sec("A", 20, 40),
    sec("B", 3, 20),
    sec("C", 90, 180),
    sec("D", 2, 20),
    sec("E", 4, 10),
    sec("F", 60, 70),
    sec("G", 320, 200),
    sec("H", 50, 60),
    sec("I", 70, 30),
    sec("J", 40, 50),
    sec("K", 15, 80),
    sec("L", 20, 30),
    sec("M", 90, 70),
    sec("N", 80, 60),
    sec("O", 1, 10),
    sec("P", 30, 20),
    sec("Q", 40, 30),
    sec("R", 15, 10),
    sec("S", 80, 20),
    sec("T", 1, 2),
    sec("U", 1, 1),
];

/// Section letter of a CNAE two-digit division (`docs/domain.md`, "CNAE 2.x sections"), `None` for unused
/// divisions. The tables above are checked against it.
#[cfg(test)]
pub(super) fn section_of_division(division: u32) -> Option<&'static str> {
    let section = registry_api::cnae::section_of_division(u8::try_from(division).ok()?)?;
    SECTIONS.iter().map(|s| s.letter).find(|l| l.starts_with(section.letter))
}

pub(super) struct Cnae {
    pub code: &'static str,
    pub section: &'static str,
    /// Words for a company name (`COMERCIO DE ALIMENTOS`).
    pub activity: &'static str,
    /// Short word for a trade name (`ALIMENTOS`).
    pub brand: &'static str,
    pub weight: u32,
}

const fn cn(
    code: &'static str,
    section: &'static str,
    activity: &'static str,
    brand: &'static str,
    weight: u32,
) -> Cnae {
    Cnae { code, section, activity, brand, weight }
}

/// Real CNAE 2.3 subclasses, grouped by section.
pub(super) const CNAES: &[Cnae] = &[
    cn("0111301", "A", "AGROPECUARIA", "AGRO", 6),
    cn("0115600", "A", "PRODUCAO DE GRAOS", "GRAOS", 10),
    cn("0151201", "A", "AGROPECUARIA E CRIACAO DE BOVINOS", "PECUARIA", 10),
    cn("0210101", "A", "REFLORESTAMENTO", "FLORESTAL", 3),
    cn("0710301", "B", "MINERACAO", "MINERACAO", 2),
    cn("0810001", "B", "EXTRACAO DE PEDRAS", "PEDREIRA", 3),
    cn("0910600", "B", "SERVICOS DE APOIO A EXTRACAO DE PETROLEO", "OFFSHORE", 1),
    cn("1011201", "C", "FRIGORIFICO", "CARNES", 4),
    cn("1091101", "C", "INDUSTRIA DE PANIFICACAO", "PAES", 6),
    cn("1412601", "C", "CONFECCOES", "MODAS", 10),
    cn("1531901", "C", "INDUSTRIA DE CALCADOS", "CALCADOS", 3),
    cn("2222600", "C", "INDUSTRIA DE EMBALAGENS PLASTICAS", "EMBALAGENS", 4),
    cn("2511000", "C", "ESTRUTURAS METALICAS", "METALURGICA", 5),
    cn("3101200", "C", "INDUSTRIA DE MOVEIS", "MOVEIS", 5),
    cn("3511501", "D", "GERACAO DE ENERGIA", "ENERGIA", 2),
    cn("3514000", "D", "DISTRIBUICAO DE ENERGIA", "ENERGIA", 1),
    cn("3600601", "E", "SANEAMENTO", "AGUAS", 1),
    cn("3702900", "E", "SERVICOS DE ESGOTO", "SANEAMENTO", 1),
    cn("3811400", "E", "COLETA DE RESIDUOS", "AMBIENTAL", 3),
    cn("4120400", "F", "CONSTRUCOES E INCORPORACOES", "CONSTRUTORA", 20),
    cn("4211101", "F", "CONSTRUCAO DE RODOVIAS", "PAVIMENTACAO", 3),
    cn("4321500", "F", "INSTALACOES ELETRICAS", "ELETRICA", 10),
    cn("4330404", "F", "SERVICOS DE PINTURA", "PINTURAS", 6),
    cn("4399103", "F", "OBRAS DE ALVENARIA", "CONSTRUCOES", 8),
    cn("4511101", "G", "COMERCIO DE VEICULOS", "VEICULOS", 5),
    cn("4520001", "G", "SERVICOS AUTOMOTIVOS", "AUTO CENTER", 10),
    cn("4530703", "G", "COMERCIO DE PECAS AUTOMOTIVAS", "AUTO PECAS", 8),
    cn("4639701", "G", "COMERCIO ATACADISTA DE ALIMENTOS", "DISTRIBUIDORA", 6),
    cn("4711302", "G", "SUPERMERCADOS", "SUPERMERCADO", 8),
    cn("4712100", "G", "COMERCIO DE ALIMENTOS", "MERCEARIA", 12),
    cn("4721102", "G", "PADARIA E CONFEITARIA", "PADARIA", 8),
    cn("4744005", "G", "COMERCIO DE MATERIAIS DE CONSTRUCAO", "MATERIAIS DE CONSTRUCAO", 8),
    cn("4751201", "G", "COMERCIO DE EQUIPAMENTOS DE INFORMATICA", "INFORMATICA", 5),
    cn("4771701", "G", "FARMACIA", "FARMA", 7),
    cn("4781400", "G", "COMERCIO DE ARTIGOS DO VESTUARIO", "MODAS", 14),
    cn("4921301", "H", "TRANSPORTE COLETIVO", "TURISMO", 2),
    cn("4930202", "H", "TRANSPORTES RODOVIARIOS", "TRANSPORTES", 10),
    cn("5211799", "H", "ARMAZENS GERAIS", "LOGISTICA", 3),
    cn("5320202", "H", "ENTREGAS RAPIDAS", "EXPRESS", 4),
    cn("5510801", "I", "HOTELARIA", "HOTEL", 3),
    cn("5611201", "I", "RESTAURANTE", "RESTAURANTE", 10),
    cn("5611203", "I", "LANCHONETE", "LANCHES", 10),
    cn("5620104", "I", "FORNECIMENTO DE ALIMENTOS PREPARADOS", "REFEICOES", 3),
    cn("5811500", "J", "EDITORA", "EDITORA", 1),
    cn("6110803", "J", "TELECOMUNICACOES", "TELECOM", 2),
    cn("6201501", "J", "DESENVOLVIMENTO DE SISTEMAS", "SOFTWARE", 5),
    cn("6202300", "J", "TECNOLOGIA DA INFORMACAO", "TECH", 4),
    cn("6311900", "J", "PROCESSAMENTO DE DADOS", "DADOS", 2),
    cn("6422100", "K", "BANCO", "BANCO", 1),
    cn("6462000", "K", "PARTICIPACOES", "PARTICIPACOES", 5),
    cn("6613400", "K", "ADMINISTRADORA DE CARTOES", "CARD", 1),
    cn("6622300", "K", "CORRETORA DE SEGUROS", "SEGUROS", 4),
    cn("6810201", "L", "EMPREENDIMENTOS IMOBILIARIOS", "EMPREENDIMENTOS", 5),
    cn("6821801", "L", "IMOBILIARIA", "IMOVEIS", 6),
    cn("6822600", "L", "ADMINISTRACAO DE IMOVEIS", "ADMINISTRADORA", 3),
    cn("6911701", "M", "ADVOCACIA", "ADVOGADOS", 6),
    cn("6920601", "M", "CONTABILIDADE", "CONTABIL", 7),
    cn("7020400", "M", "CONSULTORIA EMPRESARIAL", "CONSULTORIA", 8),
    cn("7111100", "M", "ARQUITETURA", "ARQUITETURA", 3),
    cn("7311400", "M", "PUBLICIDADE E PROPAGANDA", "PUBLICIDADE", 4),
    cn("7711000", "N", "LOCADORA DE VEICULOS", "LOCADORA", 3),
    cn("7810800", "N", "AGENCIA DE EMPREGOS", "RH", 3),
    cn("8011101", "N", "VIGILANCIA E SEGURANCA", "SEGURANCA", 4),
    cn("8121400", "N", "SERVICOS DE LIMPEZA", "LIMPEZA", 6),
    cn("8211300", "N", "SERVICOS ADMINISTRATIVOS", "SERVICOS", 5),
    cn("8411600", "O", "ADMINISTRACAO PUBLICA", "PREFEITURA", 1),
    cn("8513900", "P", "ESCOLA DE ENSINO FUNDAMENTAL", "ESCOLA", 4),
    cn("8520100", "P", "COLEGIO", "COLEGIO", 2),
    cn("8531700", "P", "FACULDADE", "FACULDADE", 1),
    cn("8599604", "P", "TREINAMENTOS", "CURSOS", 4),
    cn("8610101", "Q", "HOSPITAL", "HOSPITAL", 2),
    cn("8630503", "Q", "CLINICA MEDICA", "CLINICA", 6),
    cn("8630504", "Q", "CLINICA ODONTOLOGICA", "ODONTO", 5),
    cn("8800600", "Q", "ASSISTENCIA SOCIAL", "SOCIAL", 1),
    cn("9001901", "R", "PRODUCOES ARTISTICAS", "PRODUCOES", 2),
    cn("9313100", "R", "ACADEMIA", "FITNESS", 4),
    cn("9319101", "R", "EVENTOS ESPORTIVOS", "EVENTOS", 1),
    cn("9430800", "S", "ASSOCIACAO", "ASSOCIACAO", 3),
    cn("9491000", "S", "IGREJA", "IGREJA", 4),
    cn("9511800", "S", "ASSISTENCIA TECNICA EM INFORMATICA", "TECH", 4),
    cn("9602501", "S", "SALAO DE BELEZA", "BELEZA", 12),
    cn("9700500", "T", "SERVICOS DOMESTICOS", "LAR", 1),
    cn("9900800", "U", "ORGANISMO INTERNACIONAL", "INTERNACIONAL", 1),
];

/// CNAE codes of construction works (op 10).
pub(super) const OBRA_CNAES: [&str; 6] = ["4120400", "4399103", "4321500", "4330404", "4292801", "4311801"];

/// A company's main CNAE: section by company weight, then a code of that section.
pub(super) fn pick_cnae(rng: &mut DetRng) -> usize {
    let section = SECTIONS[weighted(rng, &SECTIONS, |s| s.company_weight)].letter;
    let first = CNAES.iter().position(|c| c.section == section).unwrap_or(0);
    let count = CNAES[first..].iter().take_while(|c| c.section == section).count().max(1);
    first + weighted(rng, &CNAES[first..first + count], |c| c.weight)
}

/// Up to three distinct secondary CNAEs, mostly of the main code's section.
pub(super) fn secondary_cnaes(rng: &mut DetRng, main: usize) -> Vec<&'static str> {
    let section = CNAES[main].section;
    let mut out: Vec<&'static str> = Vec::new();
    for _ in 0..below(rng, 4) {
        let candidate = if below(rng, 10) < 7 {
            let same: Vec<usize> = (0..CNAES.len()).filter(|&i| CNAES[i].section == section).collect();
            same[below(rng, same.len())]
        } else {
            below(rng, CNAES.len())
        };
        if candidate != main && !out.contains(&CNAES[candidate].code) {
            out.push(CNAES[candidate].code);
        }
    }
    out
}

pub(super) const MALE_NAMES: [&str; 24] = [
    "JOSE",
    "JOAO",
    "ANTONIO",
    "FRANCISCO",
    "CARLOS",
    "PAULO",
    "PEDRO",
    "LUCAS",
    "LUIZ",
    "MARCOS",
    "GABRIEL",
    "RAFAEL",
    "DANIEL",
    "MARCELO",
    "BRUNO",
    "EDUARDO",
    "FELIPE",
    "RODRIGO",
    "SEBASTIAO",
    "RAIMUNDO",
    "RICARDO",
    "ANDRE",
    "TIAGO",
    "LEONARDO",
];

pub(super) const FEMALE_NAMES: [&str; 20] = [
    "MARIA",
    "ANA",
    "FRANCISCA",
    "ANTONIA",
    "ADRIANA",
    "JULIANA",
    "MARCIA",
    "FERNANDA",
    "PATRICIA",
    "ALINE",
    "SANDRA",
    "CAMILA",
    "LUCIANA",
    "VANESSA",
    "BEATRIZ",
    "LARISSA",
    "APARECIDA",
    "PAULA",
    "CRISTINA",
    "HELENA",
];

pub(super) const SURNAMES: [&str; 40] = [
    "SILVA",
    "SANTOS",
    "OLIVEIRA",
    "SOUZA",
    "RODRIGUES",
    "FERREIRA",
    "ALVES",
    "PEREIRA",
    "LIMA",
    "GOMES",
    "COSTA",
    "RIBEIRO",
    "MARTINS",
    "CARVALHO",
    "ALMEIDA",
    "LOPES",
    "SOARES",
    "FERNANDES",
    "VIEIRA",
    "BARBOSA",
    "ROCHA",
    "DIAS",
    "NASCIMENTO",
    "ANDRADE",
    "MOREIRA",
    "NUNES",
    "MARQUES",
    "MACHADO",
    "MENDES",
    "FREITAS",
    "CARDOSO",
    "RAMOS",
    "GONCALVES",
    "SANTANA",
    "TEIXEIRA",
    "ARAUJO",
    "CONCEICAO",
    "MOURA",
    "CAVALCANTI",
    "BATISTA",
];

/// The particle a surname customarily takes (`DA SILVA`, `DOS SANTOS`), if any.
fn particle(surname: &str) -> Option<&'static str> {
    match surname {
        "SILVA" | "COSTA" | "CONCEICAO" | "ROCHA" => Some("DA"),
        "SANTOS" => Some("DOS"),
        "NASCIMENTO" => Some("DO"),
        "OLIVEIRA" | "SOUZA" | "LIMA" | "ALMEIDA" | "ARAUJO" | "MOURA" | "FREITAS" | "ANDRADE" => Some("DE"),
        _ => None,
    }
}

pub(super) const FOREIGN_NAMES: [&str; 6] = [
    "JOHN MICHAEL SMITH",
    "MARIO ROSSI",
    "JEAN PIERRE DUBOIS",
    "HANS MUELLER",
    "MANUEL PEREIRA DA COSTA",
    "LI WEI",
];

fn push_surname(rng: &mut DetRng, name: &mut String) {
    let surname = pick(rng, &SURNAMES);
    if let Some(p) = particle(surname).filter(|_| below(rng, 5) < 2) {
        name.push(' ');
        name.push_str(p);
    }
    name.push(' ');
    name.push_str(surname);
}

/// A person's full name: `MARIA APARECIDA DA SILVA SANTOS`, `JOSE CARLOS DE OLIVEIRA`.
pub(super) fn person_name(rng: &mut DetRng) -> String {
    let firsts: &[&str] = if below(rng, 2) == 0 { &MALE_NAMES } else { &FEMALE_NAMES };
    let mut name = pick(rng, firsts).to_string();
    if below(rng, 4) == 0 {
        let second = pick(rng, firsts);
        if !name.ends_with(second) {
            name.push(' ');
            name.push_str(second);
        }
    }
    push_surname(rng, &mut name);
    if below(rng, 2) == 0 {
        push_surname(rng, &mut name);
    }
    name
}

pub(super) const STREET_TYPES: [(&str, u32); 7] = [
    ("RUA", 60),
    ("AVENIDA", 20),
    ("TRAVESSA", 5),
    ("ALAMEDA", 4),
    ("RODOVIA", 3),
    ("PRACA", 3),
    ("ESTRADA", 3),
];

pub(super) const STREET_NAMES: [&str; 25] = [
    "DAS FLORES",
    "SETE DE SETEMBRO",
    "QUINZE DE NOVEMBRO",
    "TIRADENTES",
    "SAO JOAO",
    "DOM PEDRO II",
    "GETULIO VARGAS",
    "SANTOS DUMONT",
    "BRASIL",
    "PRINCIPAL",
    "DOS ANDRADAS",
    "MARECHAL DEODORO",
    "RIO BRANCO",
    "JOSE BONIFACIO",
    "DUQUE DE CAXIAS",
    "DAS PALMEIRAS",
    "DOS IPES",
    "PRESIDENTE VARGAS",
    "BARAO DO RIO BRANCO",
    "CASTRO ALVES",
    "MONTEIRO LOBATO",
    "PAULISTA",
    "INDEPENDENCIA",
    "DOS BANDEIRANTES",
    "VINTE E UM DE ABRIL",
];

pub(super) const BAIRROS: [&str; 18] = [
    "CENTRO",
    "JARDIM AMERICA",
    "VILA NOVA",
    "SANTA CRUZ",
    "BOA VISTA",
    "SAO JOSE",
    "JARDIM PAULISTA",
    "CIDADE NOVA",
    "DISTRITO INDUSTRIAL",
    "VILA MARIANA",
    "PARQUE INDUSTRIAL",
    "JARDIM EUROPA",
    "LIBERDADE",
    "BELA VISTA",
    "SANTO ANTONIO",
    "NOVA ESPERANCA",
    "ALTO DA BOA VISTA",
    "PLANALTO",
];

/// A street address: (tipo_logradouro, logradouro, numero, complemento, bairro).
pub(super) fn address(rng: &mut DetRng) -> [String; 5] {
    let tipo = STREET_TYPES[weighted(rng, &STREET_TYPES, |t| t.1)].0;
    let name = pick(rng, &STREET_NAMES).to_string();
    let numero = if below(rng, 15) == 0 { "S/N".to_string() } else { (1 + below(rng, 3000)).to_string() };
    let n = 1 + below(rng, 40);
    let complemento = match below(rng, 12) {
        0 | 1 => format!("SALA {}", 100 + n),
        2 => format!("LOJA {n:02}"),
        3 => format!("ANDAR {n}"),
        4 => format!("GALPAO {n}"),
        5 => format!("QUADRA {n} LOTE {}", 1 + below(rng, 30)),
        _ => String::new(),
    };
    let bairro = pick(rng, &BAIRROS).to_string();
    [tipo.to_string(), name, numero, complemento, bairro]
}

/// Legal natures of companies (code, weight); public and international ones are chosen by
/// section instead.
pub(super) const NATUREZAS: [(&str, u32); 9] = [
    ("2062", 560),
    ("2135", 230),
    ("2305", 40),
    ("2054", 25),
    ("2046", 5),
    ("2143", 10),
    ("2232", 30),
    ("3999", 5),
    ("3069", 3),
];

pub(super) fn pick_natureza(rng: &mut DetRng, section: &str) -> &'static str {
    match section {
        "O" => pick(rng, &["1244", "1244", "1031", "1120"]),
        "U" => "5002",
        _ => {
            let boost = matches!(section, "S" | "P" | "Q" | "R");
            NATUREZAS[weighted(rng, &NATUREZAS, |(code, w)| if boost && *code == "3999" { 120 } else { *w })]
                .0
        }
    }
}
