//! A wire record's scalar fields as text, in declaration order, without building an
//! intermediate JSON value or allocating field names: staging runs this for every record, so
//! it should cost little more than copying the values.
//!
//! Nested values (the profile's maps) become their JSON text.

use serde::Serialize;
use serde::ser::{self, Impossible, SerializeStruct};

#[derive(Debug)]
pub(crate) struct NotScalar;

impl std::fmt::Display for NotScalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a scalar")
    }
}

impl std::error::Error for NotScalar {}

impl ser::Error for NotScalar {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotScalar
    }
}

/// The compound shapes (sequences, maps, tuples, enum variants) neither serializer accepts.
macro_rules! unsupported_compounds {
    () => {
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, NotScalar> {
            Err(NotScalar)
        }
    };
}

/// A scalar field value as text; `Err(NotScalar)` for anything nested.
struct Text;

macro_rules! to_text {
    ($($f:ident: $t:ty),*) => { $(fn $f(self, v: $t) -> Result<Option<String>, NotScalar> { Ok(Some(v.to_string())) })* };
}

impl ser::Serializer for Text {
    type Ok = Option<String>;
    type Error = NotScalar;
    type SerializeSeq = Impossible<Option<String>, NotScalar>;
    type SerializeTuple = Impossible<Option<String>, NotScalar>;
    type SerializeTupleStruct = Impossible<Option<String>, NotScalar>;
    type SerializeTupleVariant = Impossible<Option<String>, NotScalar>;
    type SerializeMap = Impossible<Option<String>, NotScalar>;
    type SerializeStruct = Impossible<Option<String>, NotScalar>;
    type SerializeStructVariant = Impossible<Option<String>, NotScalar>;

    to_text!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
             serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_f32: f32,
             serialize_f64: f64, serialize_char: char, serialize_str: &str);

    fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, NotScalar> {
        Err(NotScalar)
    }
    fn serialize_none(self) -> Result<Self::Ok, NotScalar> {
        Ok(None)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Self::Ok, NotScalar> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok, NotScalar> {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, NotScalar> {
        Ok(None)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, v: &'static str) -> Result<Self::Ok, NotScalar> {
        Ok(Some(v.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Self::Ok, NotScalar> {
        v.serialize(self)
    }
    unsupported_compounds!();
}

/// Collects `(field, text)` for each field of one struct.
struct Fields<'a>(&'a mut dyn FnMut(&'static str, Option<String>));

impl SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = NotScalar;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> Result<(), NotScalar> {
        let text = match v.serialize(Text) {
            Ok(t) => t,
            // Nested (a map or a struct): its JSON text, or null if even that fails.
            Err(NotScalar) => serde_json::to_string(v).ok().filter(|s| s != "null"),
        };
        (self.0)(key, text);
        Ok(())
    }
    /// A field left out of the wire form when empty (`skip_serializing_if`) is still a field:
    /// an empty one, so every record lists its struct's fields in the same places.
    fn skip_field(&mut self, key: &'static str) -> Result<(), NotScalar> {
        (self.0)(key, None);
        Ok(())
    }
    fn end(self) -> Result<(), NotScalar> {
        Ok(())
    }
}

struct Record<'a>(&'a mut dyn FnMut(&'static str, Option<String>));

macro_rules! not_a_struct {
    ($($f:ident: $t:ty),*) => { $(fn $f(self, _: $t) -> Result<(), NotScalar> { Err(NotScalar) })* };
}

impl<'a> ser::Serializer for Record<'a> {
    type Ok = ();
    type Error = NotScalar;
    type SerializeSeq = Impossible<(), NotScalar>;
    type SerializeTuple = Impossible<(), NotScalar>;
    type SerializeTupleStruct = Impossible<(), NotScalar>;
    type SerializeTupleVariant = Impossible<(), NotScalar>;
    type SerializeMap = Impossible<(), NotScalar>;
    type SerializeStruct = Fields<'a>;
    type SerializeStructVariant = Impossible<(), NotScalar>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'a>, NotScalar> {
        Ok(Fields(self.0))
    }

    not_a_struct!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
                  serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
                  serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
                  serialize_str: &str, serialize_bytes: &[u8], serialize_unit_struct: &'static str);

    fn serialize_none(self) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_unit(self) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    unsupported_compounds!();
}

/// Calls `each(field, text)` for every field of the struct `rec`, in declaration order.
pub(crate) fn for_each_field<T: Serialize>(rec: &T, each: &mut dyn FnMut(&'static str, Option<String>)) {
    let _ = rec.serialize(Record(each));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::{CreditoAtivo, ParcelamentoRfb};

    #[test]
    fn fields_in_order_as_text() {
        let mut got = Vec::new();
        let rec =
            CreditoAtivo { uf: Some("SP".into()), valor_total: Some("1,00".into()), ..Default::default() };
        for_each_field(&rec, &mut |k, v| got.push((k, v)));
        assert_eq!(got.len(), 9);
        assert_eq!(got[0], ("ano_mes", None));
        assert!(got.contains(&("uf", Some("SP".to_string()))));
        let mut got = Vec::new();
        let p = ParcelamentoRfb { quantidade_parcelas: Some(12), ..Default::default() };
        for_each_field(&p, &mut |k, v| got.push((k, v)));
        assert!(got.contains(&("quantidade_parcelas", Some("12".to_string()))));
    }
}
