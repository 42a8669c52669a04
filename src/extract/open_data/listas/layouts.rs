//! Each list's published layout: the columns its header must hold (spelt as published, CGU's
//! typos included), where the header is (the MTE puts text lines before it and after the rows),
//! and how one row becomes `ListaRecord`s (one per period of an MTE inclusion cell).

use std::collections::HashMap;

use super::decode::says_nothing;
use super::{Lista, ListaRecord, Listas};
use crate::extract::open_data::OpenDataError;

/// Leniência's status, spelt as CGU publishes it.
use crate::api::listas::LENIENCIA_SITUACAO as LENIENCIA_STATUS;

/// IBAMA's party, under the names its layouts gave it (the older first).
const IBAMA_DOCUMENT: [&str; 3] = ["CPF_CNPJ_EMBARGADO", "CPF_CNPJ_INFRATOR", "NUM_CPF_CNPJ"];
const IBAMA_NAME: [&str; 3] = ["NOME_PESSOA_EMBARGADA", "NOME_EMBARGADO", "NOME_INFRATOR"];
/// Leniência's company name, under the names CGU's files give it.
const LENIENCIA_NAME: [&str; 3] =
    ["RAZÃO SOCIAL - CADASTRO RECEITA", "RAZÃO SOCIAL  CADASTRO RECEITA", "NOME DO SANCIONADO"];
/// The header of Leniência's second file (the agreements' effects): not a list of parties.
const LENIENCIA_EFFECTS: &str = "EFEITO DO ACORDO DE LENIÊNCIA";

/// A header's columns by name, folded (`folded`), so a publisher's respelling of a column
/// (an en dash for a hyphen, a word without its accent, doubled spaces) still names it.
struct Header(HashMap<String, usize>);

/// A column's name as compared: trimmed, quotes and a BOM dropped, upper-cased, accents
/// dropped (NFD, then no combining marks), every dash a hyphen, spaces collapsed.
fn folded(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let name = name.trim().trim_start_matches('\u{feff}').trim_matches('"');
    let plain: String = name
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .map(|c| if matches!(c, '\u{2010}'..='\u{2015}' | '\u{2212}') { '-' } else { c })
        .collect();
    plain.split_whitespace().collect::<Vec<_>>().join(" ").to_uppercase()
}

impl Header {
    fn of(fields: &csv::StringRecord) -> Header {
        Header(fields.iter().enumerate().map(|(i, f)| (folded(f), i)).collect())
    }

    fn has(&self, column: &str) -> bool {
        self.0.contains_key(&folded(column))
    }

    fn index(&self, column: &str) -> Option<usize> {
        self.0.get(&folded(column)).copied()
    }

    fn first_of(&self, columns: &[&'static str]) -> Option<&'static str> {
        columns.iter().copied().find(|c| self.has(c))
    }

    fn missing(&self, list: Lista) -> Vec<&'static str> {
        let mut missing: Vec<&'static str> =
            list.definicao().colunas.iter().copied().filter(|c| !self.has(c)).collect();
        if list == Lista::Ibama && self.first_of(&IBAMA_DOCUMENT).is_none() {
            missing.push(IBAMA_DOCUMENT[0]);
        }
        missing
    }
}

/// Reads one list's text (`entry`: its file, relative to the folder) into `lists`; `date`: the
/// dates its name and notes write, after which the MTE's text lines come first.
pub(super) fn read_text(
    list: Lista,
    entry: &str,
    text: &str,
    mut date: super::DataLista,
    listas: &mut Listas,
) -> Result<(), OpenDataError> {
    let (skipped, body) = header_at(list, text);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .flexible(true)
        .from_reader(body.as_bytes());
    let mut records = reader.records();
    let header = match records.next() {
        Some(Ok(fields)) => Header::of(&fields),
        _ => Header(HashMap::new()),
    };
    if list == Lista::Leniencia && header.has(LENIENCIA_EFFECTS) && !header.has(LENIENCIA_STATUS) {
        return Ok(());
    }
    let missing = header.missing(list);
    if !missing.is_empty() {
        return Err(OpenDataError::ListaHeader {
            file: entry.to_string(),
            list: list.codigo(),
            missing: missing.join(", "),
        });
    }
    if list == Lista::TrabalhoEscravo {
        date.escritas.splice(0..0, text_dates(text));
    }
    let date = std::sync::Arc::new(date);
    let notes = if list == Lista::TrabalhoEscravo { footnotes(text) } else { HashMap::new() };
    let width = header.0.len();
    let mut rows = 0;
    let mut lines = Lines { text: body.as_bytes(), byte: 0, line: skipped + 1 };
    for record in records {
        let byte = match &record {
            Ok(r) => r.position().map(csv::Position::byte),
            Err(e) => e.position().map(csv::Position::byte),
        };
        let line = lines.at(byte.unwrap_or(0));
        let at = format!("{entry}:{line}");
        let Ok(fields) = record else {
            listas.malformed.push(at);
            continue;
        };
        if fields.iter().all(|f| f.trim().is_empty()) || (list == Lista::TrabalhoEscravo && fields.len() == 1)
        {
            // A blank line, or one of the MTE's text lines after its rows.
            continue;
        }
        if fields.len() != width {
            listas.malformed.push(at);
            continue;
        }
        rows += 1;
        let row = Row { header: &header, fields: &fields };
        let base = ListaRecord {
            lista: list,
            sancionado: String::new(),
            documento: None,
            tipo_pessoa: None,
            nome: None,
            categoria: None,
            orgao: None,
            inicio: None,
            fim: None,
            valor_multa: None,
            area: None,
            cancelado: false,
            arquivo: entry.to_string(),
            data_lista: date.clone(),
            linha: line,
        };
        let mut records = records_of(list, &row, base);
        if list == Lista::TrabalhoEscravo {
            records.iter_mut().for_each(|r| marks_apart(r, &notes));
        }
        listas.records.extend(records);
        if list == Lista::Leniencia
            && let Some(last) =
                listas.records.last().filter(|r| r.documento.is_none() && !r.sancionado.is_empty())
        {
            listas.placeholders.push(last.sancionado.clone());
        }
    }
    listas.files.push(super::ListaFile { path: entry.to_string(), lista: list, data_lista: date, rows });
    Ok(())
}

/// The MTE's footnote marks at the end of an employer's name (`FAZENDA X (*1)`,
/// `Y (*2), (*3)`): the name without them, and the marks in their order.
fn without_marks(name: &str) -> (String, Vec<String>) {
    let mut rest = name.trim_end();
    let mut marks = Vec::new();
    loop {
        let r = rest.trim_end().trim_end_matches(',').trim_end();
        let Some(open) = r.rfind("(*") else { break };
        let number = r[open + 2..].strip_suffix(')').unwrap_or("");
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        marks.insert(0, r[open..].to_string());
        rest = &r[..open];
    }
    (rest.trim_end().to_string(), marks)
}

/// The MTE's footnotes, in the text lines after its rows: `(*1) Incluído no Cadastro em
/// cumprimento à sentença …`, a line explaining one mark or several (`(*2), (*3) …`).
pub(super) fn footnotes(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in text.lines().map(|l| l.trim().trim_end_matches([';', '\t', ' '])) {
        let (mut rest, mut marks) = (line, Vec::new());
        while let Some(after) = rest.strip_prefix("(*") {
            let Some((number, tail)) = after.split_once(')') else { break };
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
            marks.push(format!("(*{number})"));
            rest = tail.trim_start().trim_start_matches(',').trim_start();
        }
        let note = rest.trim_start_matches(['-', ':', ' ']).trim();
        for mark in marks.into_iter().filter(|_| !note.is_empty()) {
            out.insert(mark, note.to_string());
        }
    }
    out
}

/// An MTE record's footnote marks kept apart from its name, which is what names are matched
/// by: each goes to `categoria` after the list's category, with its footnote when the file
/// has one (`Trabalho análogo ao de escravo; (*1) Incluído no Cadastro em cumprimento à
/// sentença …`).
fn marks_apart(record: &mut ListaRecord, notes: &HashMap<String, String>) {
    let Some((name, marks)) = record.nome.as_deref().map(without_marks) else { return };
    if marks.is_empty() {
        return;
    }
    record.nome = Some(name).filter(|n| !n.is_empty());
    let said: Vec<String> =
        marks.iter().map(|m| notes.get(m).map_or_else(|| m.clone(), |note| format!("{m} {note}"))).collect();
    let category = record.categoria.take().unwrap_or_default();
    record.categoria = Some(format!("{category}; {}", said.join("; ")));
}

/// The physical line a record starts at, counted as the reader moves on: the CSV reader's own
/// count is off after a CRLF, and a record's position may be the line end before it.
struct Lines<'a> {
    text: &'a [u8],
    byte: usize,
    line: u64,
}

impl Lines<'_> {
    fn at(&mut self, byte: u64) -> u64 {
        let mut to = usize::try_from(byte).unwrap_or(usize::MAX).min(self.text.len());
        while self.text.get(to).is_some_and(|b| matches!(b, b'\r' | b'\n')) {
            to += 1;
        }
        if to > self.byte {
            self.line += memchr::memchr_iter(b'\n', &self.text[self.byte..to]).count() as u64;
            self.byte = to;
        }
        self.line
    }
}

/// How many lines come before the header, and the text from it on: the MTE's header is the
/// first line whose first field is `ID`; every other list's is its first line.
fn header_at(list: Lista, text: &str) -> (u64, &str) {
    if list != Lista::TrabalhoEscravo {
        return (0, text);
    }
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let first = line.split(';').next().unwrap_or("");
        if line.contains(';')
            && first.trim().trim_start_matches('\u{feff}').trim_matches('"').eq_ignore_ascii_case("ID")
        {
            return (i as u64, &text[offset..]);
        }
        offset += line.len();
    }
    (0, "")
}

/// The dates the MTE's text writes for its list, the most believed first: those after
/// "atualizado em" (the current `.txt` beside the CSV also names its ordinance's date first),
/// then every `DD/MM/YYYY` of its text lines (lines without a `;`, as the older CSV put them
/// around its header). Which of them is a date is `transform`'s to read.
pub(super) fn text_dates(text: &str) -> Vec<String> {
    let lines = || text.lines().filter(|l| !l.contains(';'));
    let updated = lines().flat_map(|l| {
        let at = l.to_lowercase().find("atualizado em");
        at.and_then(|at| l.get(at..)).map(day_shaped).unwrap_or_default()
    });
    updated.chain(lines().flat_map(day_shaped)).collect()
}

/// Each `DD/MM/YYYY`-shaped word of `line`, in order.
fn day_shaped(line: &str) -> Vec<String> {
    let shaped = |w: &str| {
        w.len() == 10
            && w.bytes()
                .enumerate()
                .all(|(k, b)| if k == 2 || k == 5 { b == b'/' } else { b.is_ascii_digit() })
    };
    line.char_indices()
        .filter_map(|(i, _)| line.get(i..i + 10).filter(|w| shaped(w)))
        .map(str::to_string)
        .collect()
}

/// A row's cells by column name.
struct Row<'a> {
    header: &'a Header,
    fields: &'a csv::StringRecord,
}

impl Row<'_> {
    /// The cell's text, trimmed; `None` when empty or `Sem informação`.
    fn cell(&self, column: &str) -> Option<String> {
        let i = self.header.index(column)?;
        self.fields.get(i).filter(|t| !says_nothing(t)).map(|t| t.trim().to_string())
    }

    fn any(&self, columns: &[&'static str]) -> Option<String> {
        columns.iter().find_map(|c| self.cell(c))
    }
}

/// The records of one row of `list`.
fn records_of(list: Lista, row: &Row, mut r: ListaRecord) -> Vec<ListaRecord> {
    match list {
        Lista::Ceis | Lista::Cnep => {
            r.sancionado = row.cell("CPF OU CNPJ DO SANCIONADO").unwrap_or_default();
            r.tipo_pessoa = row.cell("TIPO DE PESSOA");
            r.nome = row.any(&["NOME DO SANCIONADO", "RAZÃO SOCIAL - CADASTRO RECEITA"]);
            r.categoria = row.cell("CATEGORIA DA SANÇÃO");
            r.orgao = row.cell("ÓRGÃO SANCIONADOR");
            r.inicio = row.cell("DATA INÍCIO SANÇÃO");
            r.fim = row.cell("DATA FINAL SANÇÃO");
            if list == Lista::Cnep {
                r.valor_multa = row.cell("VALOR DA MULTA");
            }
        }
        Lista::Cepim => {
            r.sancionado = row.cell("CNPJ ENTIDADE").unwrap_or_default();
            r.tipo_pessoa = Some("J".into());
            r.nome = row.cell("NOME ENTIDADE");
            r.categoria = row.cell("MOTIVO DO IMPEDIMENTO");
            r.orgao = row.cell("ÓRGÃO CONCEDENTE");
        }
        Lista::Leniencia => {
            r.sancionado = row.cell("CNPJ DO SANCIONADO").unwrap_or_default();
            r.tipo_pessoa = Some("J".into());
            r.nome = row.any(&LENIENCIA_NAME);
            r.categoria = row.cell(LENIENCIA_STATUS);
            r.orgao = row.cell("ÓRGÃO SANCIONADOR");
            r.inicio = row.cell("DATA DE INÍCIO DO ACORDO");
            r.fim = row.cell("DATA DE FIM DO ACORDO");
        }
        Lista::TrabalhoEscravo => {
            r.sancionado = row.cell("CNPJ/CPF").unwrap_or_default();
            r.nome = row.cell("EMPREGADOR");
            r.categoria = Some("Trabalho análogo ao de escravo".into());
            r.orgao = Some("Ministério do Trabalho e Emprego".into());
            r.documento = document_digits(&r.sancionado);
            r.tipo_pessoa = person_type(r.documento.as_deref());
            let cell = row.cell("INCLUSÃO NO CADASTRO DE EMPREGADORES").unwrap_or_default();
            return periods(&cell)
                .into_iter()
                .map(|(inicio, fim)| ListaRecord { inicio, fim, ..r.clone() })
                .collect();
        }
        Lista::Ibama => {
            r.sancionado = row.any(&IBAMA_DOCUMENT).unwrap_or_default();
            r.nome = row.any(&IBAMA_NAME);
            r.categoria = Some("Embargo".into());
            r.orgao = Some("IBAMA".into());
            r.inicio = row.cell("DAT_EMBARGO");
            r.fim = row.cell("DAT_DESEMBARGO");
            r.area = row.cell("QTD_AREA_EMBARGADA");
            r.cancelado = row.cell("SIT_CANCELADO").is_some_and(|s| s.eq_ignore_ascii_case("S"));
        }
        Lista::Pep => {
            // A person in office, or within the grace period after it: exposed until its end.
            r.sancionado = row.cell("CPF").unwrap_or_default();
            r.tipo_pessoa = Some("F".into());
            r.nome = row.cell("Nome_PEP");
            r.categoria = pep_office(row);
            r.orgao = row.cell("Nome_Órgão");
            r.inicio = row.cell("Data_Início_Exercício");
            r.fim = row.cell("Data_Fim_Carência");
        }
    }
    r.documento = document_digits(&r.sancionado);
    if r.tipo_pessoa.is_none() {
        r.tipo_pessoa = person_type(r.documento.as_deref());
    }
    vec![r]
}

/// A PEP's office as the report says it: `VEREADOR (VEREAD)`, its level when the file gives
/// one (`PRESIDENTE (DAS, nível 1016)`), and the day the office ends or ended
/// (`; exercício até 31/12/2028`).
fn pep_office(row: &Row) -> Option<String> {
    let office = row.cell("Descrição_Função")?;
    let code = [row.cell("Sigla_Função"), row.cell("Nível_Função").map(|n| format!("nível {n}"))];
    let code: Vec<String> = code.into_iter().flatten().collect();
    let mut said = if code.is_empty() { office } else { format!("{office} ({})", code.join(", ")) };
    if let Some(end) = row.cell("Data_Fim_Exercício") {
        said.push_str(&format!("; exercício até {end}"));
    }
    Some(said)
}

/// The periods of an MTE inclusion cell (`05/10/2022 a 13/01/2023, 11/11/2024`), as written:
/// each a start and, when the employer left the list, an end. An empty cell is one period with
/// no dates.
fn periods(cell: &str) -> Vec<(Option<String>, Option<String>)> {
    let parts: Vec<&str> = cell.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return vec![(None, None)];
    }
    parts
        .into_iter()
        .map(|p| match p.split_once(" a ") {
            Some((from, to)) => (Some(from.trim().to_string()), Some(to.trim().to_string())),
            None => (Some(p.to_string()), None),
        })
        .collect()
}

/// The digits of a whole CNPJ (14) or CPF (11), punctuated or not, or the 14 characters of a
/// CNPJ with letters; `None` for a masked CPF (`***921012**`), a placeholder or anything else
/// no document can equal.
pub(super) fn document_digits(text: &str) -> Option<String> {
    let t = text.trim();
    // A CNPJ with letters in its root or order (IN RFB 2.229/2024, issued since July 2026), as
    // the portfolio holds it: its 14 characters upper-cased, when its check digits hold.
    if t.chars().any(|c| c.is_ascii_alphabetic()) {
        return crate::api::Cnpj::parse_published(t).ok().map(|c| c.as_str().to_string());
    }
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '/' | ' ')) {
        return None;
    }
    let digits: String = t.chars().filter(char::is_ascii_digit).collect();
    matches!(digits.len(), 11 | 14).then_some(digits)
}

/// `J` for a CNPJ, `F` for a CPF.
fn person_type(documento: Option<&str>) -> Option<String> {
    match documento.map(str::len) {
        Some(14) => Some("J".into()),
        Some(11) => Some("F".into()),
        _ => None,
    }
}
