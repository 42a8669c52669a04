//! The published layouts: which dataset a file holds, told from its name and then from its
//! header (PGFN) or its shape (RFB, whose files have no header), and how one of its rows
//! becomes the service's model. Both PGFN headers that have been published are read by column
//! name (the 2020 one with `UF_UNIDADE_RESPONSAVEL`, later ones with `UF_DEVEDOR`), so a file
//! with its columns in another order, or one more column, reads the same.
//!
//! `UF_DEVEDOR` is the debtor's state, not the responsible unit's (a debtor in SP may be
//! collected by the unit in AMAZONAS): it keeps its own name, `uf_devedor`. The unit is kept as
//! published (`UNIDADE_RESPONSAVEL` names a PGFN unit or region, `1ª REGIÃO`, a city), and the
//! unit's state is left empty where the header has none.

use crate::api::Categoria;
use crate::api::published::rfb;

/// What a published file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    /// A PGFN dívida ativa file of one system (told by its header).
    Pgfn,
    Empresas,
    Estabelecimentos,
    Socios,
    Simples,
}

impl Kind {
    /// The name the manifest gives the dataset.
    pub(crate) fn dataset(self) -> &'static str {
        match self {
            Self::Pgfn => "pgfn_dividas",
            Self::Empresas => "rfb_empresas",
            Self::Estabelecimentos => "rfb_estabelecimentos",
            Self::Socios => "rfb_socios",
            Self::Simples => "rfb_simples",
        }
    }

    /// RFB's column names in file order (its files have no header); `None` for PGFN.
    pub(crate) fn rfb_columns(self) -> Option<&'static [&'static str]> {
        match self {
            Self::Pgfn => None,
            Self::Empresas => Some(&rfb::EMPRESAS),
            Self::Estabelecimentos => Some(&rfb::ESTABELECIMENTOS),
            Self::Socios => Some(&rfb::SOCIOS),
            Self::Simples => Some(&rfb::SIMPLES),
        }
    }

    /// Every kind, in the order a release is read.
    pub(crate) const ALL: [Kind; 5] =
        [Self::Pgfn, Self::Empresas, Self::Estabelecimentos, Self::Socios, Self::Simples];
}

/// The kind a file or zip entry name says, if any: PGFN's `Dados_abertos_*.zip` and
/// `arquivo_lai_*` files; RFB's `Empresas3.zip` (entries `*.EMPRECSV`), `Estabelecimentos*`
/// (`*.ESTABELE`), `Socios*` (`*.SOCIOCSV`) and `Simples.zip` (`*.SIMPLES.CSV.*`); before late
/// 2022 RFB zipped each file under its own name (`K3241.K03200Y3.D10710.EMPRECSV.zip`). Code
/// tables (`Cnaes.zip`, `Municipios.zip`, ...) and anything else are not a kind: they are left
/// alone.
pub(crate) fn kind_of_name(name: &str) -> Option<Kind> {
    let base = stem(name);
    let base = base.as_str();
    if base.starts_with("DADOS_ABERTOS") || base.starts_with("ARQUIVO_LAI") {
        Some(Kind::Pgfn)
    } else if base.starts_with("EMPRESAS") || base.ends_with(".EMPRECSV") {
        Some(Kind::Empresas)
    } else if base.starts_with("ESTABELECIMENTOS") || base.ends_with(".ESTABELE") {
        Some(Kind::Estabelecimentos)
    } else if base.starts_with("SOCIOS") || base.ends_with(".SOCIOCSV") {
        Some(Kind::Socios)
    } else if base.starts_with("SIMPLES") || base.contains(".SIMPLES.CSV") {
        Some(Kind::Simples)
    } else {
        None
    }
}

/// A file's name as the publishers' names are told apart: its last part, upper-cased, without
/// a `.zip` (`cnpj/2024-05/Cnaes.zip` -> `CNAES`, `K3241.K03200Y3.D10710.EMPRECSV.zip` ->
/// `K3241.K03200Y3.D10710.EMPRECSV`).
pub(super) fn stem(name: &str) -> String {
    let upper = name.to_uppercase();
    let base = upper.rsplit(['/', '\\']).next().unwrap_or(&upper);
    base.strip_suffix(".ZIP").unwrap_or(base).to_string()
}

/// The PGFN columns every published header has (upper case), whatever else it holds.
const PGFN_REQUIRED: [&str; 6] = [
    "CPF_CNPJ",
    "TIPO_DEVEDOR",
    "NUMERO_INSCRICAO",
    "DATA_INSCRICAO",
    "INDICADOR_AJUIZADO",
    "VALOR_CONSOLIDADO",
];

/// The PGFN columns of free text, where a `;` of the text splits the field in two (the files
/// are unquoted): a row one field too long is mended by joining one of them again.
const PGFN_FREE_TEXT: [&str; 7] = [
    "NOME_DEVEDOR",
    "UNIDADE_RESPONSAVEL",
    "ENTIDADE_RESPONSAVEL",
    "UNIDADE_INSCRICAO",
    "SITUACAO_INSCRICAO",
    "RECEITA_PRINCIPAL",
    "TIPO_CREDITO",
];

/// What a PGFN column of fixed form holds, to tell which join of a too-long row is the one
/// the publisher wrote.
#[derive(Debug, Clone, Copy)]
enum Form {
    /// `DD/MM/YYYY` or `YYYYMMDD`.
    Date,
    /// `SIM` / `NAO`.
    YesNo,
    /// Digits with `.`, `,`, a sign or `R$`.
    Money,
    /// `Pessoa física` / `Pessoa jurídica`.
    PersonType,
    /// `PRINCIPAL`, `CORRESPONSAVEL`, `SOLIDARIO` in any case.
    DebtorRole,
    /// Two letters.
    Uf,
    /// Letters and digits, no space (`FGAC201900092`, `8020600012345`).
    Number,
}

const PGFN_FORMS: [(&str, Form); 8] = [
    ("DATA_INSCRICAO", Form::Date),
    ("INDICADOR_AJUIZADO", Form::YesNo),
    ("VALOR_CONSOLIDADO", Form::Money),
    ("TIPO_PESSOA", Form::PersonType),
    ("TIPO_DEVEDOR", Form::DebtorRole),
    ("UF_UNIDADE_RESPONSAVEL", Form::Uf),
    ("UF_DEVEDOR", Form::Uf),
    ("NUMERO_INSCRICAO", Form::Number),
];

impl Form {
    /// Whether `text` has this form (a blank field has every form).
    fn fits(self, text: &str) -> bool {
        let t = text.trim();
        if t.is_empty() {
            return true;
        }
        let upper = t.to_uppercase();
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        match self {
            Self::Date => {
                let parts: Vec<&str> = t.split('/').collect();
                (parts.len() == 3 && parts.iter().all(|p| digits(p)) && parts[2].len() == 4)
                    || (t.len() == 8 && digits(t))
            }
            Self::YesNo => matches!(upper.as_str(), "SIM" | "NAO" | "NÃO"),
            Self::Money => {
                let bare = t.trim_start_matches("R$").trim();
                bare.bytes().any(|b| b.is_ascii_digit())
                    && bare.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b',' | b'-'))
            }
            Self::PersonType => upper.starts_with("PESSOA"),
            Self::DebtorRole => {
                let folded: String = upper.chars().filter(char::is_ascii_alphabetic).collect();
                matches!(folded.as_str(), "PRINCIPAL" | "CORRESPONSAVEL" | "SOLIDARIO")
            }
            Self::Uf => t.len() == 2 && t.bytes().all(|b| b.is_ascii_alphabetic()),
            Self::Number => t.bytes().all(|b| b.is_ascii_alphanumeric()),
        }
    }
}

/// A PGFN header read: the system it is a file of, and each column's name on the wire.
#[derive(Debug, Clone)]
pub(crate) struct PgfnHeader {
    pub categoria: Categoria,
    /// The file's columns, each under its name on the wire.
    pub columns: Vec<String>,
    /// Position of `CPF_CNPJ`, the debtor.
    pub debtor: usize,
    /// Positions of the free-text columns, and of the columns of a fixed form.
    free_text: Vec<usize>,
    forms: Vec<(usize, Form)>,
}

impl PgfnHeader {
    /// A row with other than the header's number of fields, as the publisher meant it, or
    /// `None` when that cannot be told. Empty fields past the header's are dropped (a `;`
    /// closing each line); then a row still longer is mended when joining the extra fields
    /// into exactly one free-text column (a `;` in a name) leaves every column of fixed form
    /// in its form.
    pub(crate) fn mend(&self, fields: &[String]) -> Option<Vec<String>> {
        let n = self.columns.len();
        let mut fields = fields;
        while fields.len() > n && fields.last().is_some_and(|f| f.trim().is_empty()) {
            fields = &fields[..fields.len() - 1];
        }
        let extra = fields.len().checked_sub(n)?;
        if extra == 0 {
            return Some(fields.to_vec());
        }
        let fitting: Vec<Vec<String>> = self
            .free_text
            .iter()
            .filter(|&&at| at + extra < fields.len())
            .map(|&at| {
                let mut joined = fields[..at].to_vec();
                joined.push(fields[at..=at + extra].join(";"));
                joined.extend_from_slice(&fields[at + extra + 1..]);
                joined
            })
            .filter(|joined| self.forms.iter().all(|&(i, form)| form.fits(&joined[i])))
            .collect();
        // Joins that fit and give the same debtor, dates, amounts and codes differ only in
        // which of two neighbouring texts (situation, revenue) holds the `;`: the first is
        // taken. Joins that disagree on those cannot be told apart.
        let fixed = |row: &Vec<String>| {
            let mut at: Vec<usize> = self.forms.iter().map(|(i, _)| *i).collect();
            at.push(self.debtor);
            at.into_iter().map(|i| row[i].clone()).collect::<Vec<_>>()
        };
        let first = fitting.first()?;
        fitting.iter().all(|row| fixed(row) == fixed(first)).then(|| first.clone())
    }
}

/// The header of a PGFN file, or what is wrong with it. The system is told by the columns
/// only one system has: `ENTIDADE_RESPONSAVEL` (FGTS, whose entity is the CEF), `TIPO_CREDITO`
/// (previdenciário), else `RECEITA_PRINCIPAL` (não previdenciário).
pub(crate) fn pgfn_header(fields: &[String]) -> Result<PgfnHeader, String> {
    let upper: Vec<String> =
        fields.iter().map(|f| f.trim().trim_start_matches('\u{feff}').to_uppercase()).collect();
    let has = |c: &str| upper.iter().any(|u| u == c);
    let missing: Vec<&str> = PGFN_REQUIRED.iter().copied().filter(|c| !has(c)).collect();
    if !missing.is_empty() {
        return Err(format!(
            "its header lacks {} (it has {}): not a PGFN dívida ativa layout this version reads",
            missing.join(", "),
            upper.join(";")
        ));
    }
    let categoria = if has("ENTIDADE_RESPONSAVEL") {
        Categoria::Fgts
    } else if has("TIPO_CREDITO") {
        Categoria::Previdenciario
    } else if has("RECEITA_PRINCIPAL") {
        Categoria::NaoPrevidenciario
    } else {
        return Err("its header has none of ENTIDADE_RESPONSAVEL, TIPO_CREDITO, RECEITA_PRINCIPAL: \
                    which system it holds cannot be told"
            .to_string());
    };
    let columns = upper.iter().map(|u| u.to_lowercase()).collect();
    let debtor = upper.iter().position(|u| u == "CPF_CNPJ").unwrap_or(0);
    let at = |name: &str| upper.iter().position(|u| u == name);
    let free_text = PGFN_FREE_TEXT.iter().filter_map(|c| at(c)).collect();
    let forms = PGFN_FORMS.iter().filter_map(|(c, form)| Some((at(c)?, *form))).collect();
    Ok(PgfnHeader { categoria, columns, debtor, free_text, forms })
}

/// Whether a PGFN data row is the header again (files joined with their headers).
pub(crate) fn is_pgfn_header_row(debtor_field: &[u8]) -> bool {
    debtor_field.trim_ascii().eq_ignore_ascii_case(b"CPF_CNPJ")
}

/// Whether an RFB row has its layout's shape: its number of fields, and a root of 8 digits or
/// (alphanumeric CNPJs, issued from July 2026) upper-case letters and digits.
pub(crate) fn rfb_shape_fits(kind: Kind, fields: usize, root: &[u8]) -> bool {
    kind.rfb_columns().is_some_and(|c| c.len() == fields)
        && root.len() == 8
        && root.iter().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
}

/// Whether a file's name is one a release's data comes in: a zip, a CSV, or an RFB table
/// unpacked from its zip (`K3241.K03200Y0.D40511.EMPRECSV`).
pub(crate) fn is_data_file(name: &str) -> bool {
    let upper = name.to_uppercase();
    upper.ends_with(".ZIP")
        || upper.ends_with(".CSV")
        || [".EMPRECSV", ".ESTABELE", ".SOCIOCSV"].iter().any(|e| upper.ends_with(e))
        || upper.contains(".SIMPLES.CSV")
}

/// A published field's text: UTF-8 when it is, else Latin-1 (every byte one character), as
/// PGFN and RFB publish.
pub(crate) fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// The 14 characters of a debtor written as a CNPJ (`04.071.544/0001-03` or bare; an
/// alphanumeric one, issued from July 2026, `12.ABC.345/01DE-35`: letters in its first 12);
/// `None` for a person (`XXX761.362XX`, `***.123.456-**`) or anything else.
pub(crate) fn cnpj_chars(field: &[u8]) -> Option<[u8; 14]> {
    let mut out = [0u8; 14];
    let mut n = 0;
    for &b in field {
        match b {
            b'0'..=b'9' | b'A'..=b'Z' => {
                if n == 14 || (b.is_ascii_uppercase() && n >= 12) {
                    return None;
                }
                out[n] = b;
                n += 1;
            }
            b'.' | b'/' | b'-' | b' ' | b'"' => {}
            _ => return None,
        }
    }
    (n == 14).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_kind_and_code_tables_are_none() {
        for (name, kind) in [
            ("Dados_abertos_Nao_Previdenciario.zip", Some(Kind::Pgfn)),
            ("2024_trimestre_01/Dados_abertos_FGTS.zip", Some(Kind::Pgfn)),
            ("arquivo_lai_SIDA_SP_202403.csv", Some(Kind::Pgfn)),
            ("Empresas3.zip", Some(Kind::Empresas)),
            ("K3241.K03200Y3.D40511.EMPRECSV", Some(Kind::Empresas)),
            ("Estabelecimentos0.zip", Some(Kind::Estabelecimentos)),
            ("K3241.K03200Y0.D40511.ESTABELE", Some(Kind::Estabelecimentos)),
            ("Socios9.zip", Some(Kind::Socios)),
            ("Simples.zip", Some(Kind::Simples)),
            ("F.K03200$W.SIMPLES.CSV.D40511", Some(Kind::Simples)),
            ("K3241.K03200Y3.D10710.EMPRECSV.zip", Some(Kind::Empresas)),
            ("K3241.K03200Y0.D10710.ESTABELE.zip", Some(Kind::Estabelecimentos)),
            ("K3241.K03200Y9.D10710.SOCIOCSV.zip", Some(Kind::Socios)),
            ("F.K03200$W.SIMPLES.CSV.D10710.zip", Some(Kind::Simples)),
            ("Cnaes.zip", None),
            ("Municipios.zip", None),
            ("LEIAME.pdf", None),
        ] {
            assert_eq!(kind_of_name(name), kind, "{name}");
        }
    }

    #[test]
    fn both_pgfn_headers_tell_their_system() {
        let header = |h: &str| pgfn_header(&h.split(';').map(String::from).collect::<Vec<_>>());
        let sida = "CPF_CNPJ;TIPO_PESSOA;TIPO_DEVEDOR;NOME_DEVEDOR;UF_UNIDADE_RESPONSAVEL;UNIDADE_RESPONSAVEL;\
                    NUMERO_INSCRICAO;TIPO_SITUACAO_INSCRICAO;SITUACAO_INSCRICAO;RECEITA_PRINCIPAL;DATA_INSCRICAO;\
                    INDICADOR_AJUIZADO;VALOR_CONSOLIDADO";
        assert_eq!(header(sida).unwrap().categoria, Categoria::NaoPrevidenciario);
        let later = sida.replace("UF_UNIDADE_RESPONSAVEL", "UF_DEVEDOR");
        let h = header(&later).unwrap();
        // The debtor's state keeps its own name: it is not the unit's.
        assert!(h.columns.contains(&"uf_devedor".to_string()), "{:?}", h.columns);
        assert!(!h.columns.contains(&"uf_unidade_responsavel".to_string()), "{:?}", h.columns);
        let prev = sida.replace("RECEITA_PRINCIPAL", "TIPO_CREDITO");
        assert_eq!(header(&prev).unwrap().categoria, Categoria::Previdenciario);
        let fgts = sida
            .replace("UNIDADE_RESPONSAVEL;", "UNIDADE_RESPONSAVEL;ENTIDADE_RESPONSAVEL;UNIDADE_INSCRICAO;");
        assert_eq!(header(&fgts).unwrap().categoria, Categoria::Fgts);
        let err = header("CNPJ;NOME;VALOR").unwrap_err();
        assert!(err.contains("CPF_CNPJ") && err.contains("VALOR_CONSOLIDADO"), "{err}");
    }

    fn sida_header() -> PgfnHeader {
        let sida = "CPF_CNPJ;TIPO_PESSOA;TIPO_DEVEDOR;NOME_DEVEDOR;UF_DEVEDOR;UNIDADE_RESPONSAVEL;\
                    NUMERO_INSCRICAO;TIPO_SITUACAO_INSCRICAO;SITUACAO_INSCRICAO;RECEITA_PRINCIPAL;DATA_INSCRICAO;\
                    INDICADOR_AJUIZADO;VALOR_CONSOLIDADO";
        pgfn_header(&sida.split(';').map(String::from).collect::<Vec<_>>()).unwrap()
    }

    fn split(row: &str) -> Vec<String> {
        row.split(';').map(String::from).collect()
    }

    #[test]
    fn a_pgfn_row_split_by_a_semicolon_in_its_text_is_mended_only_when_one_join_fits() {
        let h = sida_header();
        let row = "33.683.111/0001-07;Pessoa jurídica;PRINCIPAL;EMPRESA A; FILIAL LTDA;SP;SAO PAULO;\
                   8020600012345;Em cobrança;ATIVA EM COBRANCA;IRPJ;15/03/2019;SIM;1000.50";
        let mended = h.mend(&split(row)).unwrap();
        assert_eq!(mended.len(), 13);
        assert_eq!(mended[3], "EMPRESA A; FILIAL LTDA");
        assert_eq!(mended[12], "1000.50");
        // A `;` closing the line: the empty field past the header's goes.
        let closed = "33.683.111/0001-07;Pessoa jurídica;PRINCIPAL;EMPRESA A;SP;SAO PAULO;8020600012345;\
                      Em cobrança;ATIVA EM COBRANCA;IRPJ;15/03/2019;SIM;1000.50;";
        assert_eq!(h.mend(&split(closed)).unwrap()[12], "1000.50");
        // The split in the situation's text: only joining there leaves the date a date.
        let late = "33.683.111/0001-07;Pessoa jurídica;PRINCIPAL;EMPRESA A;SP;SAO PAULO;8020600012345;\
                    Em cobrança;ATIVA; EM COBRANCA;IRPJ;15/03/2019;SIM;1000.50";
        let mended = h.mend(&split(late)).unwrap();
        assert_eq!((mended[3].as_str(), mended[8].as_str()), ("EMPRESA A", "ATIVA; EM COBRANCA"));
        // Joined into the name or into the unit, the state reads RJ or SP: neither is taken.
        let ambiguous = "33.683.111/0001-07;Pessoa jurídica;PRINCIPAL;AB;SP;RJ;UNIT;8020600012345;\
                         Em cobrança;ATIVA EM COBRANCA;IRPJ;15/03/2019;SIM;1000.50";
        assert_eq!(h.mend(&split(ambiguous)), None);
        // A row short of fields, or whose extra field breaks the forms, is not mended.
        assert_eq!(h.mend(&split("33.683.111/0001-07;Pessoa jurídica;PRINCIPAL")), None);
        let shifted = "33.683.111/0001-07;Pessoa jurídica;PRINCIPAL;EMPRESA A;SP;SAO PAULO;8020600012345;\
                       Em cobrança;ATIVA EM COBRANCA;IRPJ;15/03/2019;SIM;1000.50;99";
        assert_eq!(h.mend(&split(shifted)), None);
    }

    #[test]
    fn unpacked_rfb_tables_and_alphanumeric_roots_are_data() {
        assert!(is_data_file("K3241.K03200Y0.D40511.EMPRECSV"));
        assert!(is_data_file("F.K03200$W.SIMPLES.CSV.D40511"));
        assert!(is_data_file("Dados_abertos_FGTS.zip") && is_data_file("arquivo_lai_SIDA_1_202403.csv"));
        assert!(!is_data_file("LEIAME.pdf"));
        assert!(rfb_shape_fits(Kind::Empresas, 7, b"12ABC345"));
        assert!(!rfb_shape_fits(Kind::Empresas, 7, b"12abc345"));
        assert!(!rfb_shape_fits(Kind::Empresas, 7, b"1234567"));
    }

    #[test]
    fn only_company_debtors_have_cnpj_characters() {
        assert_eq!(cnpj_chars(b"04.071.544/0001-03").map(|d| d.to_vec()), Some(b"04071544000103".to_vec()));
        assert_eq!(cnpj_chars(b"04071544000103").map(|d| d.to_vec()), Some(b"04071544000103".to_vec()));
        assert_eq!(cnpj_chars(b"XXX761.362XX"), None);
        assert_eq!(cnpj_chars(b"***.123.456-**"), None);
        assert_eq!(cnpj_chars(b"123.456.789-01"), None);
        assert_eq!(cnpj_chars(b"12.ABC.345/01DE-35").map(|d| d.to_vec()), Some(b"12ABC34501DE35".to_vec()));
        assert_eq!(cnpj_chars(b"12.ABC.345/01DE-3X"), None);
    }
}
