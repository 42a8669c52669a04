//! The report's words in each language: `templates/strings/<lang>.toml`, one flat table of
//! `key = "text"` that an analyst can edit without Rust. The templates read them as
//! `{{@root.t.key}}`; the view builders read the few labels they compose themselves.
//!
//! Every language file holds the same keys as the built-in pt-BR one. A folder's file that
//! lacks some (copied before they were added) has them from the built-in words of its language,
//! and the run says which: an upgrade must not stop a scheduled report, nor leave a hole in it.

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

    /// The keys of the built-in pt-BR words and of the view builders that this file lacks.
    pub fn missing_keys(&self) -> Vec<String> {
        let reference = Self::builtin(Locale::PtBr);
        let mut wanted: std::collections::BTreeSet<&str> = reference.keys().collect();
        wanted.extend(BUILDER_KEYS);
        wanted.into_iter().filter(|k| !self.0.contains_key(*k)).map(String::from).collect()
    }

    /// This file's words, with the keys it lacks taken from the built-in words of `locale` and
    /// named in a warning (`origin` is the file).
    pub fn completed(mut self, locale: Locale, origin: &str) -> Self {
        let missing = self.missing_keys();
        if missing.is_empty() {
            return self;
        }
        let builtin = Self::builtin(locale);
        for key in &missing {
            self.0.insert(key.clone(), builtin.get(key));
        }
        if first_word_on(origin) {
            tracing::warn!(
                "{origin} lacks {} (added since it was copied): the built-in words are used for them; copy \
                 them from the project's templates/{} to choose your own",
                missing.join(", "),
                Self::file_of(locale)
            );
        }
        self
    }

    /// The text of `key` (the key itself if absent, which `completed` rules out).
    pub fn get(&self, key: &str) -> String {
        self.0.get(key).cloned().unwrap_or_else(|| key.to_string())
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

/// Whether this run has not yet warned about `origin`'s missing keys: the report and the
/// dossiers each read the strings, and the same warning twice read as two problems.
fn first_word_on(origin: &str) -> bool {
    static WARNED: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    WARNED.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(origin.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_missing_keys_are_said_once_a_run() {
        assert!(first_word_on("a/strings/pt-BR.toml"));
        assert!(!first_word_on("a/strings/pt-BR.toml"), "the second reader says nothing");
        assert!(first_word_on("b/strings/pt-BR.toml"), "another file is its own word");
    }
}
