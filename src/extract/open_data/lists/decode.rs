//! A list file's bytes as text, whatever the publisher wrote them in: CGU's ISO-8859-1, the
//! labour ministry's cp1252, IBAMA's UTF-8 with a byte-order mark. A text that is UTF-8 is read
//! as such (a BOM dropped); any other is cp1252, which holds every printable character of
//! ISO-8859-1 at the same byte. Line ends (CRLF or LF) are the CSV reader's to take.

/// `bytes` decoded (see the module).
pub(super) fn decode(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return String::from_utf8_lossy(rest).into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0.into_owned(),
    }
}

/// Whether a cell says the list has no value: empty, or CGU's `Sem informação` (in any case,
/// with or without its accents).
pub(super) fn says_nothing(cell: &str) -> bool {
    let t = cell.trim().to_lowercase();
    t.is_empty() || t == "sem informação" || t == "sem informacao"
}
