//! The public lists (`listas`) counterparty checks use, one definition each: the code the
//! tables name it by, its publisher, where and under which names its files are published, the
//! header columns a reader needs, and how a record's being in force is decided. The reader
//! (`extract::open_data::listas`), the download (`extract::download::listas`), the embedded
//! registry's mirror and the queries' in-force rule (`listas.vigencia`) all take it from here,
//! so a new list is one entry here plus its layout and a real sample.

/// One public list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lista {
    Ceis,
    Cnep,
    Cepim,
    Leniencia,
    TrabalhoEscravo,
    Ibama,
    Pep,
}

/// How often CGU publishes a list, which its files' names say: `YYYYMMDD_CEIS.zip` a day,
/// `YYYYMM_PEP.zip` a month.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cadencia {
    Diaria,
    Mensal,
}

impl Cadencia {
    /// The digits of a file's stamp (`YYYYMMDD`, `YYYYMM`).
    pub const fn digitos(self) -> usize {
        match self {
            Self::Diaria => 8,
            Self::Mensal => 6,
        }
    }
}

/// Where a list's files are published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publicacao {
    /// CGU's Portal da Transparência: the page `…/download-de-dados/<pasta>` and the file host's
    /// `…/saida/<pasta>/<stamp>_<arquivo>.zip`, the stamp `YYYYMMDD` or `YYYYMM` by its
    /// `cadencia`. `nomes`: every name its files have gone by after the stamp, lower-case, as
    /// read from a folder.
    Cgu { pasta: &'static str, arquivo: &'static str, nomes: &'static [&'static str], cadencia: Cadencia },
    /// One file at a fixed address, republished whole; `arquivo` is its name's stem, which a
    /// copy in a folder starts with.
    Endereco { url: &'static str, arquivo: &'static str },
}

/// How a record's being in force on its list's date is decided (`listas.vigencia`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vigencia {
    /// From its start to its end, both days included; an empty start or end is open.
    Periodo,
    /// While it is on the list: the list names only what holds now (CEPIM).
    EnquantoListado,
    /// An embargo: until lifted (its end after the list's date) or cancelled.
    Embargo,
}

impl Vigencia {
    /// As `listas.vigencia` holds it, and `queries/27_sancoes.sql` decides by.
    pub const fn codigo(self) -> &'static str {
        match self {
            Self::Periodo => "periodo",
            Self::EnquantoListado => "enquanto_listado",
            Self::Embargo => "embargo",
        }
    }
}

/// Everything known about one list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Definicao {
    pub lista: Lista,
    /// As `listas.lista` and `sancoes.lista` name it.
    pub codigo: &'static str,
    /// Its name in words, as the report says it.
    pub nome: &'static str,
    pub publicador: &'static str,
    pub publicacao: Publicacao,
    /// The header columns the reader takes, spelt as published (CGU's typos included).
    pub colunas: &'static [&'static str],
    pub vigencia: Vigencia,
    /// Whether being on it restricts dealing with the party (a sanction, an impediment, an
    /// embargo), so a `lista_restritiva` rule watches it unless told otherwise. A politically
    /// exposed person is no sanction: PEP is watched only when a rule names it.
    pub restritiva: bool,
}

/// CEIS's columns read; CNEP's are these and the fine.
const CGU_SANCOES: [&str; 7] = [
    "TIPO DE PESSOA",
    "CPF OU CNPJ DO SANCIONADO",
    "NOME DO SANCIONADO",
    "CATEGORIA DA SANÇÃO",
    "DATA INÍCIO SANÇÃO",
    "DATA FINAL SANÇÃO",
    "ÓRGÃO SANCIONADOR",
];

/// CNEP's columns read: CEIS's and the fine.
const CNEP_COLUNAS: [&str; 8] = {
    let mut all = [""; 8];
    let mut i = 0;
    while i < CGU_SANCOES.len() {
        all[i] = CGU_SANCOES[i];
        i += 1;
    }
    all[7] = "VALOR DA MULTA";
    all
};

/// Leniência's status, spelt as CGU publishes it.
pub const LENIENCIA_SITUACAO: &str = "SITUAÇÃO DO ACORDO DE LENIÊNICA";

/// Every list, in the order the report shows them.
pub const LISTAS: [Definicao; 7] = [
    Definicao {
        lista: Lista::Ceis,
        codigo: "CEIS",
        nome: "Cadastro de Empresas Inidôneas e Suspensas",
        publicador: "CGU",
        publicacao: Publicacao::Cgu {
            pasta: "ceis",
            arquivo: "CEIS",
            nomes: &["ceis"],
            cadencia: Cadencia::Diaria,
        },
        colunas: &CGU_SANCOES,
        vigencia: Vigencia::Periodo,
        restritiva: true,
    },
    Definicao {
        lista: Lista::Cnep,
        codigo: "CNEP",
        nome: "Cadastro Nacional de Empresas Punidas",
        publicador: "CGU",
        publicacao: Publicacao::Cgu {
            pasta: "cnep",
            arquivo: "CNEP",
            nomes: &["cnep"],
            cadencia: Cadencia::Diaria,
        },
        colunas: &CNEP_COLUNAS,
        vigencia: Vigencia::Periodo,
        restritiva: true,
    },
    Definicao {
        lista: Lista::Cepim,
        codigo: "CEPIM",
        nome: "Cadastro de Entidades Privadas sem Fins Lucrativos Impedidas",
        publicador: "CGU",
        publicacao: Publicacao::Cgu {
            pasta: "cepim",
            arquivo: "CEPIM",
            nomes: &["cepim"],
            cadencia: Cadencia::Diaria,
        },
        colunas: &["CNPJ ENTIDADE", "NOME ENTIDADE", "ÓRGÃO CONCEDENTE", "MOTIVO DO IMPEDIMENTO"],
        vigencia: Vigencia::EnquantoListado,
        restritiva: true,
    },
    Definicao {
        lista: Lista::Leniencia,
        codigo: "LENIENCIA",
        nome: "Acordos de Leniência",
        publicador: "CGU",
        // `YYYYMMDD_AcordosLeniencia.zip` as the file host serves it, and the names its pages used.
        publicacao: Publicacao::Cgu {
            pasta: "acordos-leniencia",
            arquivo: "AcordosLeniencia",
            nomes: &["acordosleniencia", "acordos", "leniencia", "acordos_leniencia", "acordos-leniencia"],
            cadencia: Cadencia::Diaria,
        },
        colunas: &[
            "CNPJ DO SANCIONADO",
            "DATA DE INÍCIO DO ACORDO",
            "DATA DE FIM DO ACORDO",
            LENIENCIA_SITUACAO,
            "ÓRGÃO SANCIONADOR",
        ],
        vigencia: Vigencia::Periodo,
        restritiva: true,
    },
    Definicao {
        lista: Lista::TrabalhoEscravo,
        codigo: "TRABALHO_ESCRAVO",
        nome: "Cadastro de Empregadores (trabalho análogo ao de escravo)",
        publicador: "Ministério do Trabalho e Emprego",
        publicacao: Publicacao::Endereco {
            url: "https://www.gov.br/trabalho-e-emprego/pt-br/assuntos/inspecao-do-trabalho/areas-de-atuacao/cadastro_de_empregadores.csv",
            arquivo: "cadastro_de_empregadores",
        },
        colunas: &["ID", "EMPREGADOR", "CNPJ/CPF", "INCLUSÃO NO CADASTRO DE EMPREGADORES"],
        // Each period of a row's inclusion cell is a record: one with an end is over.
        vigencia: Vigencia::Periodo,
        restritiva: true,
    },
    Definicao {
        lista: Lista::Ibama,
        codigo: "IBAMA",
        nome: "Áreas embargadas pelo IBAMA",
        publicador: "IBAMA",
        // The file its open-data catalogue names since May 2026.
        publicacao: Publicacao::Endereco {
            url: "https://stibamadadosabertosprd.blob.core.windows.net/dados-abertos/dados/TERMOS_DE_EMBARGO/TERMO_EMBARGO/termo_de_embargo.csv",
            arquivo: "termo_de_embargo",
        },
        colunas: &["SEQ_TAD", "DAT_EMBARGO", "QTD_AREA_EMBARGADA", "SIT_CANCELADO", "DAT_DESEMBARGO"],
        vigencia: Vigencia::Embargo,
        restritiva: true,
    },
    Definicao {
        lista: Lista::Pep,
        codigo: "PEP",
        nome: "Pessoas Expostas Politicamente",
        publicador: "CGU",
        // `YYYYMM_PEP.zip` holding `YYYYMM_PEP.csv`, a month at a time.
        publicacao: Publicacao::Cgu {
            pasta: "pep",
            arquivo: "PEP",
            nomes: &["pep"],
            cadencia: Cadencia::Mensal,
        },
        colunas: &[
            "CPF",
            "Nome_PEP",
            "Sigla_Função",
            "Descrição_Função",
            "Nome_Órgão",
            "Data_Início_Exercício",
            "Data_Fim_Exercício",
            "Data_Fim_Carência",
        ],
        // Exposed from taking office to the end of the grace period (carência), five years
        // after leaving it: the record's end is `Data_Fim_Carência`.
        vigencia: Vigencia::Periodo,
        restritiva: false,
    },
];

impl Definicao {
    /// The address of a list published as one file; `None` for CGU's.
    pub const fn endereco(&self) -> Option<&'static str> {
        match self.publicacao {
            Publicacao::Endereco { url, .. } => Some(url),
            Publicacao::Cgu { .. } => None,
        }
    }
}

impl Lista {
    /// Every list, in [`LISTAS`]' order.
    pub const ALL: [Lista; 7] =
        [Self::Ceis, Self::Cnep, Self::Cepim, Self::Leniencia, Self::TrabalhoEscravo, Self::Ibama, Self::Pep];

    /// Its definition in [`LISTAS`].
    pub const fn definicao(self) -> &'static Definicao {
        &LISTAS[self as usize]
    }

    pub const fn codigo(self) -> &'static str {
        self.definicao().codigo
    }

    /// The list a code names (`CEIS`, `TRABALHO_ESCRAVO`), in any case.
    pub fn of_codigo(code: &str) -> Option<Lista> {
        Self::ALL.into_iter().find(|l| l.codigo().eq_ignore_ascii_case(code.trim()))
    }

    /// The list a file's name says, with or without its folder: `20261130_CEIS.zip`,
    /// `20261130_CEIS.csv`, `cadastro_de_empregadores.csv`, `termo_de_embargo.csv`; or `None`.
    pub fn of_name(name: &str) -> Option<Lista> {
        let lower = name.to_lowercase();
        let base = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
        let stem = base.strip_suffix(".zip").or_else(|| base.strip_suffix(".csv"))?;
        let undated = cgu_stamp(stem).map_or(stem, |day| &stem[day.len() + 1..]);
        Self::ALL.into_iter().find(|l| match l.definicao().publicacao {
            Publicacao::Endereco { arquivo, .. } => stem.starts_with(arquivo),
            Publicacao::Cgu { nomes, .. } => nomes.contains(&undated),
        })
    }

    /// The list a CGU page or file-host folder (`ceis`, `acordos-leniencia`) belongs to.
    pub fn of_cgu_folder(folder: &str) -> Option<Lista> {
        Self::ALL
            .into_iter()
            .find(|l| matches!(l.definicao().publicacao, Publicacao::Cgu { pasta, .. } if pasta == folder))
    }
}

/// The stamp CGU puts before a file's name, as text: the day of a daily list
/// (`20261130_CEIS`), the month of a monthly one (`202610_PEP`); `None` unless the characters
/// before the first `_` are eight or six digits.
pub fn cgu_stamp(stem: &str) -> Option<&str> {
    let (stamp, _) = stem.split_once('_')?;
    let digits = [Cadencia::Diaria, Cadencia::Mensal].map(Cadencia::digitos);
    (digits.contains(&stamp.len()) && stamp.bytes().all(|b| b.is_ascii_digit())).then_some(stamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_list_is_its_own_entry_in_order() {
        for (i, list) in Lista::ALL.into_iter().enumerate() {
            assert_eq!(LISTAS[i].lista, list, "LISTAS[{i}]");
            assert_eq!(Lista::of_codigo(list.codigo()), Some(list));
        }
    }

    #[test]
    fn a_file_is_told_by_its_name_as_each_publisher_writes_it() {
        let cases = [
            ("listas/20261130_CEIS.zip", Some(Lista::Ceis)),
            ("20261130_CNEP.csv", Some(Lista::Cnep)),
            ("20261130_AcordosLeniencia.zip", Some(Lista::Leniencia)),
            ("20240101_Acordos.zip", Some(Lista::Leniencia)),
            ("CEPIM.csv", Some(Lista::Cepim)),
            ("cadastro_de_empregadores.csv", Some(Lista::TrabalhoEscravo)),
            ("cadastro_de_empregadores_2026.csv", Some(Lista::TrabalhoEscravo)),
            ("x/termo_de_embargo.csv", Some(Lista::Ibama)),
            ("202610_PEP.zip", Some(Lista::Pep)),
            ("listas/202610_PEP.csv", Some(Lista::Pep)),
            ("20261130_Efeitos.zip", None),
            ("cadastro_de_empregadores.txt", None),
            ("Empresas0.zip", None),
        ];
        for (name, list) in cases {
            assert_eq!(Lista::of_name(name), list, "{name}");
        }
    }

    #[test]
    fn every_cgu_folder_names_its_list() {
        assert_eq!(Lista::of_cgu_folder("acordos-leniencia"), Some(Lista::Leniencia));
        assert_eq!(Lista::of_cgu_folder("termo_de_embargo"), None);
    }
}
