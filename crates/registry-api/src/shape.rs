//! The shape of a response against the one the models expect: fields the service sent that no
//! model knows (it added one) and fields a model has that the service did not send (it stopped
//! sending one), counted per record. `docs/service-api.md` §2 lists each resource's fields.
//!
//! This module only measures. Recording the drift, or stopping a run under
//! `--schema-contract freeze`, is the caller's decision. A field sent as `null` counts as sent:
//! drift is about the shape, and a null value is the data's business.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::OperationKind;
use super::models::*;

/// How the records of one or more responses differed from the models.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeDrift {
    /// Records looked at.
    pub records: u64,
    /// Field the models do not know -> records that carried it (`parent.child` for nested ones).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unknown_fields: BTreeMap<String, u64>,
    /// Field the models expect -> records that lacked it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub missing_fields: BTreeMap<String, u64>,
}

impl ShapeDrift {
    pub fn drifted(&self) -> bool {
        !self.unknown_fields.is_empty() || !self.missing_fields.is_empty()
    }

    pub fn add(&mut self, other: &ShapeDrift) {
        self.records += other.records;
        for (k, n) in &other.unknown_fields {
            *self.unknown_fields.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &other.missing_fields {
            *self.missing_fields.entry(k.clone()).or_default() += n;
        }
    }
}

/// What one task's responses showed, by operation: filled by the request pool, kept in the
/// task's journal entry so that a resumed run, a merge and the manifest count each staged
/// record once, whatever process fetched it.
#[derive(Debug, Default)]
pub struct ShapeLog(std::sync::Mutex<BTreeMap<String, ShapeDrift>>);

impl ShapeLog {
    pub fn record(&self, operation: &str, drift: &ShapeDrift) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(operation.to_string()).or_default().add(drift);
    }

    pub fn into_inner(self) -> BTreeMap<String, ShapeDrift> {
        self.0.into_inner().unwrap_or_else(|p| p.into_inner())
    }
}

/// The fields a record of `kind` has, as a JSON object whose nested objects (the profile's
/// `empresa`, `estabelecimento`, `simples`) list their own fields; maps keyed by data (the
/// profile's `fontes` and `resumos`) are empty objects, so their keys are never called unknown.
fn expected(kind: OperationKind) -> &'static Value {
    fn full<T: Serialize + Default>() -> Value {
        serde_json::to_value(T::default()).unwrap_or(Value::Null)
    }
    static CACHE: OnceLock<BTreeMap<&'static str, Value>> = OnceLock::new();
    let all = CACHE.get_or_init(|| {
        let profile = CompanyProfile {
            empresa: Some(Empresa::default()),
            estabelecimento: Some(Estabelecimento::default()),
            simples: Some(Simples::default()),
            fontes: Some(BTreeMap::new()),
            resumos: Some(BTreeMap::new()),
            ..CompanyProfile::default()
        };
        OperationKind::ALL
            .iter()
            .map(|k| {
                let v = match k {
                    OperationKind::Empresa => serde_json::to_value(&profile).unwrap_or(Value::Null),
                    OperationKind::Estabelecimentos => full::<Estabelecimento>(),
                    OperationKind::ObrasCno | OperationKind::Obra => full::<Obra>(),
                    OperationKind::Socios => full::<Socio>(),
                    OperationKind::DividasPgfn => full::<DividaPgfn>(),
                    OperationKind::ParcelamentosRfb => full::<ParcelamentoRfb>(),
                    OperationKind::TransacoesRfb => full::<TransacaoRfb>(),
                    OperationKind::Vinculos => full::<Vinculo>(),
                    OperationKind::Cnaes => full::<ObraCnae>(),
                    OperationKind::Areas => full::<ObraArea>(),
                    OperationKind::Imoveis | OperationKind::Imovel => full::<ImovelRural>(),
                    OperationKind::CreditosAtivos => full::<CreditoAtivo>(),
                };
                (k.name(), v)
            })
            .collect()
    });
    static NONE: Value = Value::Null;
    all.get(kind.name()).unwrap_or(&NONE)
}

/// Compares one record with the expected object, adding to `drift`.
fn compare(prefix: &str, record: &serde_json::Map<String, Value>, expected: &Value, drift: &mut ShapeDrift) {
    let Value::Object(want) = expected else { return };
    let name = |k: &str| if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
    for (k, v) in record {
        match want.get(k) {
            None => *drift.unknown_fields.entry(name(k)).or_default() += 1,
            Some(Value::Object(inner)) if !inner.is_empty() => {
                if let Value::Object(got) = v {
                    compare(&name(k), got, &want[k], drift);
                }
            }
            Some(_) => {}
        }
    }
    let sent: BTreeSet<&str> = record.keys().map(String::as_str).collect();
    for k in want.keys() {
        if !sent.contains(k.as_str()) {
            *drift.missing_fields.entry(name(k)).or_default() += 1;
        }
    }
}

/// The drift of one response body of `kind`: every item of a list envelope, or the one record
/// of a lookup. `None` when the body is not a JSON object (decoding reports that).
/// The field names of one record, borrowed from the body where it has no escapes; values are
/// skipped, not built.
struct RecordKeys<'a>(Vec<std::borrow::Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for RecordKeys<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Key<'de>(std::borrow::Cow<'de, str>);
        impl<'de> Deserialize<'de> for Key<'de> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = Key<'de>;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a field name")
                    }
                    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                        Ok(Key(std::borrow::Cow::Borrowed(v)))
                    }
                    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                        Ok(Key(std::borrow::Cow::Owned(v.to_string())))
                    }
                }
                d.deserialize_str(V)
            }
        }
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = RecordKeys<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a record")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<RecordKeys<'a>, A::Error> {
                let mut keys = Vec::with_capacity(24);
                while let Some(Key(k)) = map.next_key()? {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(RecordKeys(keys))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A list page as the fast probe reads it: each item's field names only.
#[derive(Deserialize)]
struct KeysPage<'a> {
    #[serde(borrow, default)]
    itens: Vec<RecordKeys<'a>>,
}

/// The expected field names of `kind`'s records, sorted, when its shape is flat (no nested
/// object) and small enough for a 64-bit mask: what the fast probe compares against. Worked
/// out once per kind, not per page.
fn flat_field_names(kind: OperationKind) -> Option<&'static [&'static str]> {
    static CACHE: OnceLock<BTreeMap<&'static str, Option<Vec<&'static str>>>> = OnceLock::new();
    let all = CACHE.get_or_init(|| {
        OperationKind::ALL
            .iter()
            .map(|k| {
                let names = match expected(*k) {
                    Value::Object(want)
                        if want.len() <= 64
                            && !want.values().any(|v| matches!(v, Value::Object(o) if !o.is_empty())) =>
                    {
                        // Sorted here: the order of a serde_json map depends on a feature flag.
                        let mut names: Vec<&'static str> = want.keys().map(String::as_str).collect();
                        names.sort_unstable();
                        Some(names)
                    }
                    _ => None,
                };
                (k.name(), names)
            })
            .collect()
    });
    all.get(kind.name()).and_then(|n| n.as_deref())
}

/// The fast probe of a list page whose records are flat (`names`: `flat_field_names`): field
/// names are compared without building the records. None when an item is not an object: the
/// general probe then reads the page.
fn probe_flat_list(names: &[&str], body: &[u8]) -> Option<ShapeDrift> {
    let page: KeysPage = serde_json::from_slice(body).ok()?;
    let all: u64 = if names.len() == 64 { u64::MAX } else { (1u64 << names.len()) - 1 };
    let mut drift = ShapeDrift { records: page.itens.len() as u64, ..ShapeDrift::default() };
    for record in &page.itens {
        let mut seen = 0u64;
        for k in &record.0 {
            match names.binary_search(&k.as_ref()) {
                Ok(i) => seen |= 1 << i,
                Err(_) => *drift.unknown_fields.entry(k.to_string()).or_default() += 1,
            }
        }
        if seen != all {
            for (i, n) in names.iter().enumerate() {
                if seen & (1 << i) == 0 {
                    *drift.missing_fields.entry((*n).to_string()).or_default() += 1;
                }
            }
        }
    }
    Some(drift)
}

pub fn probe(kind: OperationKind, body: &[u8]) -> Option<ShapeDrift> {
    if kind.is_list()
        && let Some(drift) = flat_field_names(kind).and_then(|names| probe_flat_list(names, body))
    {
        return Some(drift);
    }
    let value: Value = serde_json::from_slice(body).ok()?;
    let expected = expected(kind);
    let mut drift = ShapeDrift::default();
    let records: Vec<&serde_json::Map<String, Value>> = if kind.is_list() {
        match value.get("itens") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
            _ => Vec::new(),
        }
    } else {
        value.as_object().into_iter().collect()
    };
    for record in records {
        drift.records += 1;
        compare("", record, expected, &mut drift);
    }
    Some(drift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_probe_of_flat_lists_agrees_with_the_general_one() {
        let bodies: [&[u8]; 4] = [
            br#"{"itens": [{"ano_mes": "202601", "uf": "SP", "campo_novo": {"a": [1, 2]}}, {"uf": "RJ"}], "paginacao": {"total": 2}}"#,
            br#"{"itens": [{"ano_mes": "2026\u0030", "u\u0066": "SP", "uf": "SP"}]}"#,
            br#"{"itens": []}"#,
            br#"{"paginacao": {"total": 0}}"#,
        ];
        for body in bodies {
            let fast =
                probe_flat_list(flat_field_names(OperationKind::CreditosAtivos).unwrap(), body).unwrap();
            // The general probe, as it reads a page the fast one does not apply to.
            let value: Value = serde_json::from_slice(body).unwrap();
            let mut slow = ShapeDrift::default();
            for r in value.get("itens").and_then(Value::as_array).into_iter().flatten() {
                slow.records += 1;
                compare("", r.as_object().unwrap(), expected(OperationKind::CreditosAtivos), &mut slow);
            }
            assert_eq!(fast, slow, "{}", String::from_utf8_lossy(body));
        }
        // An item that is not an object leaves the page to the general probe.
        assert!(
            probe_flat_list(flat_field_names(OperationKind::CreditosAtivos).unwrap(), br#"{"itens": [1]}"#)
                .is_none()
        );
    }

    #[test]
    fn a_record_with_every_field_has_no_drift() {
        let full =
            serde_json::to_vec(&Envelope { itens: vec![CreditoAtivo::default()], ..Envelope::default() })
                .unwrap();
        let d = probe(OperationKind::CreditosAtivos, &full).unwrap();
        assert_eq!(d.records, 1);
        assert!(!d.drifted(), "{d:?}");
    }

    #[test]
    fn added_and_dropped_fields_are_counted_per_record() {
        let body = br#"{"itens": [
            {"ano_mes": "202601", "uf": "SP", "campo_novo": 1},
            {"ano_mes": "202601", "uf": "RJ", "campo_novo": null}
        ], "paginacao": {"total": 2}}"#;
        let d = probe(OperationKind::CreditosAtivos, body).unwrap();
        assert_eq!(d.records, 2);
        assert_eq!(d.unknown_fields, BTreeMap::from([("campo_novo".to_string(), 2)]));
        assert_eq!(d.missing_fields.get("valor_total"), Some(&2));
        assert!(!d.missing_fields.contains_key("uf"));
    }

    #[test]
    fn the_profile_is_compared_inside_its_parts_but_not_inside_its_maps() {
        let body = br#"{"cnpj": "11222333000181",
            "empresa": {"razao_social": "X", "novo_campo": "y"},
            "fontes": {"rfb_cnpj": {"status": "ok"}},
            "resumos": {"dividas": {"total": 1}}}"#;
        let d = probe(OperationKind::Empresa, body).unwrap();
        assert_eq!(d.unknown_fields, BTreeMap::from([("empresa.novo_campo".to_string(), 1)]));
        assert_eq!(d.missing_fields.get("empresa.natureza_juridica"), Some(&1));
        assert_eq!(d.missing_fields.get("estabelecimento"), Some(&1));
        assert!(!d.missing_fields.keys().any(|k| k.starts_with("fontes.")), "{d:?}");
    }
}

/// What a change in the service's data shape does to a run (`--schema-contract`); the
/// manifest keeps it so the commands after the fetch honour it too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaContract {
    /// Record the fields added or missing (manifest, report) and go on.
    #[default]
    Evolve,
    /// Stop before anything is exported, with its own exit code.
    Freeze,
}

impl SchemaContract {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "evolve" => Ok(Self::Evolve),
            "freeze" => Ok(Self::Freeze),
            _ => Err("write evolve (record a changed data shape and go on) or freeze (stop on it)".into()),
        }
    }
}
