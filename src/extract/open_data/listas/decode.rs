//! A list file's bytes as text, whatever the publisher wrote them in: CGU's ISO-8859-1, the
//! labour ministry's cp1252, IBAMA's UTF-8 with a byte-order mark. A text that is UTF-8 is read
//! as such (a BOM dropped); any other is cp1252, which holds every printable character of
//! ISO-8859-1 at the same byte. Line ends (CRLF or LF) are the CSV reader's to take.

/// `bytes` decoded (see the module). A UTF-8 text keeps its buffer: IBAMA's file is about
/// 200 MB, and a copy of it would double what reading it holds.
pub(super) fn decode(mut bytes: Vec<u8>) -> String {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => encoding_rs::WINDOWS_1252.decode_without_bom_handling(e.as_bytes()).0.into_owned(),
    }
}

/// Whether a cell says the list has no value: empty, CGU's `Sem informação` (its sanctions'
/// open ends) or `Não informada` (PEP's open ends), in any case, with or without accents.
pub(super) fn says_nothing(cell: &str) -> bool {
    let t = cell.trim().to_lowercase();
    t.is_empty()
        || matches!(
            t.as_str(),
            "sem informação"
                | "sem informacao"
                | "não informada"
                | "nao informada"
                | "não informado"
                | "nao informado"
        )
}
