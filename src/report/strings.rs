//! The report's words in each language: `templates/strings/<lang>.toml`, one flat table of
//! `key = "text"` that an analyst can edit without Rust. The templates read them as
//! `{{@root.t.key}}`; the view builders read the few labels they compose themselves.
//!
//! Every language file must hold the same keys as the built-in pt-BR one: a missing key would
//! leave a hole in the report, so it is refused when the templates are loaded.

use std::collections::BTreeMap;

use super::ReportError;
use super::format::Locale;

/// The keys the view builders use (the templates' own keys are checked against pt-BR).
pub const BUILDER_KEYS: [&str; 31] = [
    "fonte_nome_pgfn",
    "fonte_nome_cnpj",
    "fonte_nome_creditos",
    "fonte_nome_rfb",
    "fonte_nome_cno",
    "fonte_nome_cafir",
    "fonte_com_falha",
    "fonte_situacao_informada",
    "fonte_ausente",
    "fonte_defasada",
    "fonte_trimestres",
    "fonte_antes_de",
    "fonte_limite",
    "fonte_varios_periodos",
    "fonte_sinalizada",
    "periodo_creditos",
    "periodo_divida_ativa",
    "periodo_cadastro",
    "periodo_rfb",
    "periodo_estimativa",
    "periodo_ate",
    "meses",
    "rotulo_uf",
    "rotulo_secao",
    "rotulo_grupo_tributo",
    "rotulo_situacao",
    "rotulo_tipo_contribuinte",
    "rotulo_natureza_juridica",
    "serie_brasil",
    "fonte_embutida",
    "todas_as_ufs",
];

/// One language's words.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct Strings(BTreeMap<String, String>);

impl Strings {
    /// The file name of a locale's strings, relative to the templates folder.
    pub fn file_of(locale: Locale) -> &'static str {
        match locale {
            Locale::PtBr => "strings/pt-BR.toml",
            Locale::En => "strings/en.toml",
        }
    }

    /// Reads a strings file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ReportError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ReportError::Strings {
            file: origin.to_string(),
            reason: e.message().to_string(),
        })?;
        let mut map = BTreeMap::new();
        for (k, v) in table {
            let toml::Value::String(s) = v else {
                return Err(ReportError::Strings {
                    file: origin.to_string(),
                    reason: format!("`{k}` is not text; write it as {k} = \"...\""),
                });
            };
            map.insert(k, s);
        }
        Ok(Self(map))
    }

    /// The built-in words of `locale` (the copies of `templates/strings/` in the binary).
    pub fn builtin(locale: Locale) -> Self {
        let file = Self::file_of(locale);
        crate::builtin::TEMPLATES
            .iter()
            .find(|(path, _)| *path == file)
            .and_then(|(_, text)| Self::parse(text, file).ok())
            .unwrap_or_default()
    }

    /// Refuses a file that lacks a key the built-in pt-BR words have.
    pub fn check_complete(&self, origin: &str) -> Result<(), ReportError> {
        let reference = Self::builtin(Locale::PtBr);
        let mut wanted: std::collections::BTreeSet<&str> = reference.keys().collect();
        wanted.extend(BUILDER_KEYS);
        let missing: Vec<&str> = wanted.into_iter().filter(|k| !self.0.contains_key(*k)).collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(ReportError::Strings {
                file: origin.to_string(),
                reason: format!(
                    "it lacks {}; copy them from the project's templates/strings/pt-BR.toml and translate them",
                    missing.join(", ")
                ),
            })
        }
    }

    /// The text of `key` (the key itself if absent, which `check_complete` rules out).
    pub fn get(&self, key: &str) -> String {
        self.0.get(key).cloned().unwrap_or_else(|| key.to_string())
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}
