//! The published layouts: which dataset a file holds, told from its name and then from its
//! header (PGFN) or its shape (RFB, whose files have no header), and how one of its rows
//! becomes the service's model. Both PGFN headers that have been published are read by column
//! name (the 2020 one with `UF_UNIDADE_RESPONSAVEL`, later ones with `UF_DEVEDOR`), so a file
//! with its columns in another order, or one more column, reads the same.

use crate::api::Categoria;
use crate::api::published::rfb;

/// What a published file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A PGFN dívida ativa file of one system (told by its header).
    Pgfn,
    Empresas,
    Estabelecimentos,
    Socios,
    Simples,
}

impl Kind {
    /// The name the manifest gives the dataset.
    pub fn dataset(self) -> &'static str {
        match self {
            Self::Pgfn => "pgfn_dividas",
            Self::Empresas => "rfb_empresas",
            Self::Estabelecimentos => "rfb_estabelecimentos",
            Self::Socios => "rfb_socios",
            Self::Simples => "rfb_simples",
        }
    }

    /// RFB's column names in file order (its files have no header); `None` for PGFN.
    pub fn rfb_columns(self) -> Option<&'static [&'static str]> {
        match self {
            Self::Pgfn => None,
            Self::Empresas => Some(&rfb::EMPRESAS),
            Self::Estabelecimentos => Some(&rfb::ESTABELECIMENTOS),
            Self::Socios => Some(&rfb::SOCIOS),
            Self::Simples => Some(&rfb::SIMPLES),
        }
    }

    /// Every kind, in the order a release is read.
    pub const ALL: [Kind; 5] =
        [Self::Pgfn, Self::Empresas, Self::Estabelecimentos, Self::Socios, Self::Simples];
}

/// The kind a file or zip entry name says, if any: PGFN's `Dados_abertos_*.zip` and
/// `arquivo_lai_*` files; RFB's `Empresas3.zip` (entries `*.EMPRECSV`), `Estabelecimentos*`
/// (`*.ESTABELE`), `Socios*` (`*.SOCIOCSV`) and `Simples.zip` (`*.SIMPLES.CSV.*`). Code tables
/// (`Cnaes.zip`, `Municipios.zip`, ...) and anything else are not a kind: they are left alone.
pub fn kind_of_name(name: &str) -> Option<Kind> {
    let upper = name.to_uppercase();
    let base = upper.rsplit(['/', '\\']).next().unwrap_or(&upper);
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

/// The PGFN columns every published header has (upper case), whatever else it holds.
const PGFN_REQUIRED: [&str; 6] = [
    "CPF_CNPJ",
    "TIPO_DEVEDOR",
    "NUMERO_INSCRICAO",
    "DATA_INSCRICAO",
    "INDICADOR_AJUIZADO",
    "VALOR_CONSOLIDADO",
];

/// A published column under the name the service gives it.
const PGFN_RENAMED: [(&str, &str); 1] = [("uf_devedor", "uf_unidade_responsavel")];

/// A PGFN header read: the system it is a file of, and each column's name on the wire.
#[derive(Debug, Clone)]
pub struct PgfnHeader {
    pub categoria: Categoria,
    pub columns: Vec<String>,
    /// Position of `CPF_CNPJ`, the debtor.
    pub debtor: usize,
}

/// The header of a PGFN file, or what is wrong with it. The system is told by the columns
/// only one system has: `ENTIDADE_RESPONSAVEL` (FGTS, whose entity is the CEF), `TIPO_CREDITO`
/// (previdenciário), else `RECEITA_PRINCIPAL` (não previdenciário).
pub fn pgfn_header(fields: &[String]) -> Result<PgfnHeader, String> {
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
    let columns = upper
        .iter()
        .map(|u| {
            let lower = u.to_lowercase();
            PGFN_RENAMED.iter().find(|(from, _)| *from == lower).map_or(lower, |(_, to)| (*to).to_string())
        })
        .collect();
    let debtor = upper.iter().position(|u| u == "CPF_CNPJ").unwrap_or(0);
    Ok(PgfnHeader { categoria, columns, debtor })
}

/// Whether an RFB row has its layout's shape: its number of fields, and a root of 8 digits.
pub fn rfb_shape_fits(kind: Kind, fields: usize, root: &[u8]) -> bool {
    kind.rfb_columns().is_some_and(|c| c.len() == fields)
        && root.len() == 8
        && root.iter().all(u8::is_ascii_digit)
}

/// A published field's text: UTF-8 when it is, else Latin-1 (every byte one character), as
/// PGFN and RFB publish.
pub fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// The 14 digits of a debtor written as a CNPJ (`04.071.544/0001-03` or bare); `None` for a
/// person (`XXX761.362XX`, `***.123.456-**`) or anything else.
pub fn cnpj_digits(field: &[u8]) -> Option<[u8; 14]> {
    let mut out = [0u8; 14];
    let mut n = 0;
    for &b in field {
        match b {
            b'0'..=b'9' => {
                if n == 14 {
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
        assert!(h.columns.contains(&"uf_unidade_responsavel".to_string()), "{:?}", h.columns);
        let prev = sida.replace("RECEITA_PRINCIPAL", "TIPO_CREDITO");
        assert_eq!(header(&prev).unwrap().categoria, Categoria::Previdenciario);
        let fgts = sida
            .replace("UNIDADE_RESPONSAVEL;", "UNIDADE_RESPONSAVEL;ENTIDADE_RESPONSAVEL;UNIDADE_INSCRICAO;");
        assert_eq!(header(&fgts).unwrap().categoria, Categoria::Fgts);
        let err = header("CNPJ;NOME;VALOR").unwrap_err();
        assert!(err.contains("CPF_CNPJ") && err.contains("VALOR_CONSOLIDADO"), "{err}");
    }

    #[test]
    fn only_company_debtors_have_cnpj_digits() {
        assert_eq!(cnpj_digits(b"04.071.544/0001-03").map(|d| d.to_vec()), Some(b"04071544000103".to_vec()));
        assert_eq!(cnpj_digits(b"04071544000103").map(|d| d.to_vec()), Some(b"04071544000103".to_vec()));
        assert_eq!(cnpj_digits(b"XXX761.362XX"), None);
        assert_eq!(cnpj_digits(b"***.123.456-**"), None);
        assert_eq!(cnpj_digits(b"123.456.789-01"), None);
    }
}
