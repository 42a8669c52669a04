//! Real published rows served by the embedded registry: a PGFN dívida ativa file, as the
//! public CSV has it (`;`-separated, Latin-1 or UTF-8, the upper-case header), becomes the
//! debts of one company, so a whole run can be checked against values a person reads in the
//! published file. Everything else stays synthetic.

use std::path::Path;

use registry_api::models::DividaPgfn;

/// The text of a published file: UTF-8 when it is, else Latin-1 (every byte one character),
/// as the PGFN files are.
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// The rows of a PGFN dívida ativa CSV as wire records, in file order. Columns the service
/// does not carry are dropped, as the service drops them.
pub fn read_pgfn_csv(path: &Path) -> std::io::Result<Vec<DividaPgfn>> {
    let text = decode(&std::fs::read(path)?);
    let mut reader = csv::ReaderBuilder::new().delimiter(b';').flexible(false).from_reader(text.as_bytes());
    let headers: Vec<String> =
        reader.headers().map_err(std::io::Error::other)?.iter().map(|h| h.trim().to_lowercase()).collect();
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(std::io::Error::other)?;
        let map: serde_json::Map<String, serde_json::Value> = headers
            .iter()
            .zip(record.iter())
            .map(|(h, v)| (h.clone(), serde_json::Value::String(v.to_string())))
            .collect();
        out.push(serde_json::from_value(serde_json::Value::Object(map)).map_err(std::io::Error::other)?);
    }
    Ok(out)
}
