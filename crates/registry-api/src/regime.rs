//! RFB's tax regime files ("Regime Tributário" of the CNPJ open data), defined once: their
//! files and the names they have gone by, their columns, and the forms of taxation they hold.
//! The reader, the embedded registry's writer and the queries' vocabulary take them from here.
//!
//! One row per company (or SCP), year and form of taxation, from the company's ECF (Escrituração
//! Contábil Fiscal): `ano,cnpj,cnpj_da_scp,forma_de_tributacao,quantidade_de_escrituracoes`,
//! comma-separated with a header, the CNPJ punctuated, `cnpj_da_scp` `0` when there is no SCP
//! (tests/fixtures/real/SOURCES.md, section 6). Older files of Lucro Presumido and Imunes e
//! Isentas were `;`-separated without a header.

/// The columns, in the files' order.
pub const COLUMNS: [&str; 5] =
    ["ano", "cnpj", "cnpj_da_scp", "forma_de_tributacao", "quantidade_de_escrituracoes"];

/// The four files RFB publishes, one per family of forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arquivo {
    LucroReal,
    LucroPresumido,
    LucroArbitrado,
    ImunesIsentas,
}

/// What is known of one file.
#[derive(Debug, Clone, Copy)]
pub struct Definicao {
    pub arquivo: Arquivo,
    /// The CSV's name inside the zip without `.csv`: `Lucro Presumido` has one member per year
    /// (`Lucro Presumido 2018.csv`), the others one.
    pub membro: &'static str,
    /// The zip as the 2026 share names it (`entidades-lucro-real.zip`).
    pub zip: &'static str,
    /// The zip as the 2024-25 folder `dados/cnpj/regime_tributario/` named it.
    pub zip_2025: &'static str,
    /// Whether its members hold one year each.
    pub por_ano: bool,
}

pub const ARQUIVOS: [Definicao; 4] = [
    Definicao {
        arquivo: Arquivo::LucroReal,
        membro: "Lucro Real",
        zip: "entidades-lucro-real.zip",
        zip_2025: "Lucro Real.zip",
        por_ano: false,
    },
    Definicao {
        arquivo: Arquivo::LucroPresumido,
        membro: "Lucro Presumido",
        zip: "entidades-lucro-presumido.zip",
        zip_2025: "Lucro Presumido.zip",
        por_ano: true,
    },
    Definicao {
        arquivo: Arquivo::LucroArbitrado,
        membro: "Lucro Arbitrado",
        zip: "entidades-lucro-arbitrado.zip",
        zip_2025: "Lucro Arbitrado.zip",
        por_ano: false,
    },
    Definicao {
        arquivo: Arquivo::ImunesIsentas,
        membro: "Imunes e Isentas",
        zip: "entidades-imunes-e-isentas.zip",
        zip_2025: "Imunes e Isentas.zip",
        por_ano: false,
    },
];

impl Arquivo {
    pub fn definicao(self) -> &'static Definicao {
        &ARQUIVOS[self as usize]
    }

    /// The file a name (a zip, or a CSV unpacked from one, with any folder) is, in any of the
    /// names RFB has given it: `Lucro Real.zip`, `entidades-lucro-real.zip`,
    /// `Lucro Presumido 2018.csv`, `entidades-imunes-e-isentas.csv`.
    pub fn of_name(name: &str) -> Option<Self> {
        let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
        let words = simple(stem);
        let words = words.strip_prefix("entidades ").unwrap_or(&words);
        // A year's member of Lucro Presumido: `Lucro Presumido 2018`.
        let words = match words.rsplit_once(' ') {
            Some((head, year)) if year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit()) => head,
            _ => words,
        };
        ARQUIVOS.iter().find(|d| simple(d.membro) == words).map(|d| d.arquivo)
    }
}

/// Lower case, `-` and `_` as spaces, runs of spaces as one.
fn simple(text: &str) -> String {
    let spaced: String =
        text.chars().map(|c| if c == '-' || c == '_' { ' ' } else { c.to_ascii_lowercase() }).collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A form of taxation as the files write it (`forma_de_tributacao`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Forma {
    LucroReal,
    LucroPresumido,
    LucroArbitrado,
    Imune,
    Isenta,
}

impl Forma {
    pub const ALL: [Forma; 5] =
        [Self::LucroReal, Self::LucroPresumido, Self::LucroArbitrado, Self::Imune, Self::Isenta];

    /// As the files write it.
    pub fn publicada(self) -> &'static str {
        match self {
            Self::LucroReal => "LUCRO REAL",
            Self::LucroPresumido => "LUCRO PRESUMIDO",
            Self::LucroArbitrado => "LUCRO ARBITRADO",
            Self::Imune => "IMUNE DO IRPJ",
            Self::Isenta => "ISENTA DO IRPJ",
        }
    }

    /// The code the tables hold (`regime_tributario.regime`).
    pub fn codigo(self) -> &'static str {
        match self {
            Self::LucroReal => "lucro_real",
            Self::LucroPresumido => "lucro_presumido",
            Self::LucroArbitrado => "lucro_arbitrado",
            Self::Imune => "imune",
            Self::Isenta => "isenta",
        }
    }

    /// As an analyst reads it (pt-BR).
    pub fn nome(self) -> &'static str {
        match self {
            Self::LucroReal => "Lucro Real",
            Self::LucroPresumido => "Lucro Presumido",
            Self::LucroArbitrado => "Lucro Arbitrado",
            Self::Imune => "Imune do IRPJ",
            Self::Isenta => "Isenta do IRPJ",
        }
    }

    /// The file that holds it.
    pub fn arquivo(self) -> Arquivo {
        match self {
            Self::LucroReal => Arquivo::LucroReal,
            Self::LucroPresumido => Arquivo::LucroPresumido,
            Self::LucroArbitrado => Arquivo::LucroArbitrado,
            Self::Imune | Self::Isenta => Arquivo::ImunesIsentas,
        }
    }

    /// The form a file's text names, in any case and spacing; `None` for a text the files were
    /// not seen to write.
    pub fn of_published(text: &str) -> Option<Self> {
        let words = simple(text);
        Self::ALL.into_iter().find(|f| simple(f.publicada()) == words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_rfb_gave_a_file_is_known() {
        for d in ARQUIVOS {
            assert_eq!(Arquivo::of_name(d.zip), Some(d.arquivo), "{}", d.zip);
            assert_eq!(Arquivo::of_name(d.zip_2025), Some(d.arquivo), "{}", d.zip_2025);
            assert_eq!(Arquivo::of_name(&format!("x/{}.csv", d.membro)), Some(d.arquivo));
        }
        assert_eq!(
            Arquivo::of_name("Lucro Presumido/Lucro Presumido 2018.csv"),
            Some(Arquivo::LucroPresumido)
        );
        assert_eq!(Arquivo::of_name("entidades-imunes-e-isentas.csv"), Some(Arquivo::ImunesIsentas));
        assert_eq!(Arquivo::of_name("Lucro%20Real.zip"), None, "decoded before it is asked");
        assert_eq!(Arquivo::of_name("Empresas0.zip"), None);
        assert_eq!(Arquivo::of_name("Dicionário de Dados dos Regimes Tributários.zip"), None);
    }

    #[test]
    fn the_forms_read_back_from_their_published_text() {
        for f in Forma::ALL {
            assert_eq!(Forma::of_published(f.publicada()), Some(f));
            assert_eq!(Forma::of_published(&f.publicada().to_lowercase()), Some(f));
        }
        assert_eq!(Forma::of_published("LUCRO  REAL "), Some(Forma::LucroReal));
        assert_eq!(Forma::of_published("SIMPLES NACIONAL"), None);
    }
}
