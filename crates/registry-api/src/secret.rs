//! The API key, wrapped so that it cannot leak through `Debug`, `Display` or serde.
//!
//! Only `expose` gives the text, and only the client calls it to build the request header.

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The raw key, for the `X-API-Key` header and the simulator's comparison only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_the_key() {
        let k = ApiKey::new("s3cr3t-key");
        assert!(!format!("{k:?} {k} {k:#?}").contains("s3cr3t"));
        assert_eq!(k.expose(), "s3cr3t-key");
    }
}
