//! RFB's rows as published: every field in quotes, `";"` between them, and no escaping, so a
//! name with quotes of its own is written as it is (`"BAR "O PONTO" LTDA"`). A CSV reader takes
//! such a name's first inner quote for the field's end and garbles the rest
//! (`BAR O PONTO" LTDA"`); here the fields are cut at `";"` alone, which keeps inner quotes and a
//! lone `;` (`"A; B LTDA"`) whole. A row written without quotes (a file saved again from a
//! spreadsheet) is cut at `;`.
//!
//! A quoted field holding a line break goes on over the next lines, up to `MOST_LINES`, unless
//! the next line begins as a row does or the row has every field already: so a stray quote
//! never swallows the rows after it. (A break in a row's last field therefore ends the row
//! early and it is counted as malformed; RFB's last columns are codes and dates, not names.)

use std::io::BufRead;

use memchr::memmem;

const QUOTED: &[u8] = b"\";\"";
const BOM: &[u8] = b"\xEF\xBB\xBF";
/// The most physical lines one row may take.
const MOST_LINES: usize = 8;

/// The rows of one RFB table, read line by line.
pub(super) struct RfbRows<R> {
    source: R,
    /// The fields a row of this table has.
    fields: usize,
    row: Vec<u8>,
    /// The line after the row, read to see whether it goes on the row (when `has_ahead`).
    ahead: Vec<u8>,
    has_ahead: bool,
    physical: u64,
    quoted: memmem::Finder<'static>,
    plain: memmem::Finder<'static>,
}

/// One row: its text (between the outer quotes, when quoted), where it starts (1-based), and
/// how its fields are separated.
pub(super) struct RfbRow<'a> {
    text: &'a [u8],
    pub line: u64,
    fields: usize,
    separator: &'a memmem::Finder<'static>,
}

impl<R: BufRead> RfbRows<R> {
    pub(super) fn new(source: R, fields: usize) -> Self {
        Self {
            source,
            fields,
            row: Vec::new(),
            ahead: Vec::new(),
            has_ahead: false,
            physical: 0,
            quoted: memmem::Finder::new(QUOTED),
            plain: memmem::Finder::new(b";"),
        }
    }

    /// The next row, `None` at the end; blank lines between rows are passed over.
    pub(super) fn next_row(&mut self) -> std::io::Result<Option<RfbRow<'_>>> {
        loop {
            if self.has_ahead {
                std::mem::swap(&mut self.row, &mut self.ahead);
                self.has_ahead = false;
            } else if !read_line(&mut self.source, &mut self.row, &mut self.physical)? {
                return Ok(None);
            }
            if !self.row.is_empty() {
                break;
            }
        }
        let start = self.physical;
        let quoted = self.row.first() == Some(&b'"');
        let mut separators = self.quoted.find_iter(&self.row).count();
        let mut lines = 1;
        while quoted && !closed(&self.row, separators, self.fields) && lines < MOST_LINES {
            if !read_line(&mut self.source, &mut self.ahead, &mut self.physical)? {
                break;
            }
            self.has_ahead = true;
            if starts_a_row(&self.ahead) {
                break;
            }
            separators += self.quoted.find_iter(&self.ahead).count();
            self.row.push(b'\n');
            self.row.extend_from_slice(&self.ahead);
            self.has_ahead = false;
            lines += 1;
        }
        let row = &self.row[..];
        let (text, separator, fields) = match quoted {
            // A separator whose quote is the row's own first or last is not one between fields.
            true => {
                let ends = usize::from(row.starts_with(QUOTED))
                    + usize::from(row.len() > QUOTED.len() && row.ends_with(QUOTED));
                (unquoted(row), &self.quoted, (separators + 1).saturating_sub(ends).max(1))
            }
            false => (row, &self.plain, self.plain.find_iter(row).count() + 1),
        };
        Ok(Some(RfbRow { text, line: start, fields, separator }))
    }
}

/// Reads the next physical line into `line` without its line end (and without a byte-order
/// mark on the first line); false at the end.
fn read_line(source: &mut impl BufRead, line: &mut Vec<u8>, physical: &mut u64) -> std::io::Result<bool> {
    line.clear();
    if source.read_until(b'\n', line)? == 0 {
        return Ok(false);
    }
    *physical += 1;
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if *physical == 1 && line.starts_with(BOM) {
        line.drain(..BOM.len());
    }
    Ok(true)
}

/// Whether a quoted row read so far is whole: it ends with a field's closing quote, or it has
/// every field already.
fn closed(row: &[u8], separators: usize, fields: usize) -> bool {
    (row.len() >= 2 && row.last() == Some(&b'"')) || separators + 1 >= fields
}

/// Whether a line begins as a row does: a quoted 8-character root.
fn starts_a_row(line: &[u8]) -> bool {
    line.len() >= 11
        && line[0] == b'"'
        && line[1..9].iter().all(u8::is_ascii_alphanumeric)
        && line[9..11] == *b"\";"
}

impl<'a> RfbRow<'a> {
    /// Its fields, without their quotes.
    pub(super) fn fields(&self) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        let (text, width) = (self.text, self.separator.needle().len());
        let mut at = 0;
        let mut cuts = self.separator.find_iter(text).chain(std::iter::once(text.len()));
        std::iter::from_fn(move || {
            let end = cuts.next()?;
            let field = &text[at..end];
            at = end + width;
            Some(field)
        })
    }

    /// How many fields it has.
    pub(super) fn len(&self) -> usize {
        self.fields
    }

    /// Its first field (the CNPJ's root in every RFB table).
    pub(super) fn first(&self) -> &'a [u8] {
        let end = self.separator.find(self.text).unwrap_or(self.text.len());
        &self.text[..end]
    }
}

/// The text between a row's first and last quotes.
fn unquoted(line: &[u8]) -> &[u8] {
    let line = line.strip_prefix(b"\"").unwrap_or(line);
    line.strip_suffix(b"\"").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str, fields: usize) -> Vec<(u64, Vec<String>)> {
        let mut reader = RfbRows::new(text.as_bytes(), fields);
        let mut out = Vec::new();
        while let Some(row) = reader.next_row().unwrap() {
            let fields: Vec<String> = row.fields().map(|f| String::from_utf8_lossy(f).to_string()).collect();
            assert_eq!(fields.len(), row.len());
            assert_eq!(row.first(), fields[0].as_bytes());
            out.push((row.line, fields));
        }
        out
    }

    fn strings(fields: &[&str]) -> Vec<String> {
        fields.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn inner_quotes_and_semicolons_stay_in_their_field() {
        let got = rows(
            "\"11\";\"CONFECCOES ÁGUA \"BOA\" LTDA\";\"\"\r\n\"22\";\"A; B LTDA\";\"x\"\n\"33\";\"\"O\" BAR\";\"Z \"Q\"\"\n",
            3,
        );
        assert_eq!(
            got,
            vec![
                (1, strings(&["11", "CONFECCOES ÁGUA \"BOA\" LTDA", ""])),
                (2, strings(&["22", "A; B LTDA", "x"])),
                (3, strings(&["33", "\"O\" BAR", "Z \"Q\""])),
            ]
        );
    }

    #[test]
    fn a_line_break_inside_a_field_joins_the_next_lines_blank_ones_too() {
        let got = rows("\u{feff}\"1\";\"RUA A\n\nFUNDOS\";\"9\"\n\n\"00000002\";\"B\";\"8\"", 3);
        assert_eq!(
            got,
            vec![(1, strings(&["1", "RUA A\n\nFUNDOS", "9"])), (5, strings(&["00000002", "B", "8"]))]
        );
    }

    #[test]
    fn a_row_cut_short_or_with_a_stray_quote_does_not_take_the_next() {
        let got = rows(
            "\"00000001\";\"A\n\n\"00000002\";\"B\";\"8\"\n\"00000003\";\"C\";\"9\n\"00000004\";\"D\";\"7\"\n",
            3,
        );
        assert_eq!(
            got,
            vec![
                (1, strings(&["00000001", "A\n"])),
                (3, strings(&["00000002", "B", "8"])),
                (4, strings(&["00000003", "C", "9"])),
                (5, strings(&["00000004", "D", "7"])),
            ]
        );
    }

    #[test]
    fn an_unquoted_file_is_read_by_its_semicolons_a_line_at_a_time() {
        let text: String = (0..10_000).map(|i| format!("{i:08};NOME {i};2062\n")).collect();
        let got = rows(&text, 3);
        assert_eq!(got.len(), 10_000);
        assert_eq!(got[9_999], (10_000, strings(&["00009999", "NOME 9999", "2062"])));
    }

    #[test]
    fn an_open_quote_takes_at_most_a_few_lines() {
        let text = format!("\"00000001\";\"A{}", "\nx".repeat(20));
        let got = rows(&text, 3);
        assert_eq!(got.len(), 1 + 20 - (MOST_LINES - 1), "{got:?}");
        assert_eq!(got[0].1[1].lines().count(), MOST_LINES);
    }
}
