//! RFB's rows as published: every field in quotes, `";"` between them, and no escaping, so a
//! name with quotes of its own is written as it is (`"BAR "O PONTO" LTDA"`). A CSV reader takes
//! such a name's first inner quote for the field's end and garbles the rest
//! (`BAR O PONTO" LTDA"`); here the fields are cut at `";"` alone, which keeps inner quotes and a
//! lone `;` (`"A; B LTDA"`) whole. A field holding a line break goes on over the next line.

use std::io::BufRead;

use memchr::memmem;

const SEPARATOR: &[u8] = b"\";\"";

/// The rows of one RFB table, read line by line.
pub struct RfbRows<R> {
    source: R,
    /// The fields a row of this table has: a row that has fewer and whose last field is still
    /// open takes the next line.
    fields: usize,
    line: Vec<u8>,
    physical: u64,
    separator: memmem::Finder<'static>,
}

/// One row: its text between the outer quotes, and the line it starts on (1-based).
pub struct RfbRow<'a> {
    text: &'a [u8],
    pub line: u64,
}

impl<R: BufRead> RfbRows<R> {
    pub fn new(source: R, fields: usize) -> Self {
        Self { source, fields, line: Vec::new(), physical: 0, separator: memmem::Finder::new(SEPARATOR) }
    }

    /// The next row, `None` at the end; blank lines are passed over.
    pub fn next_row(&mut self) -> std::io::Result<Option<RfbRow<'_>>> {
        self.line.clear();
        let mut start = self.physical + 1;
        loop {
            let before = self.line.len();
            if self.source.read_until(b'\n', &mut self.line)? == 0 {
                break;
            }
            self.physical += 1;
            trim_line_end(&mut self.line);
            if self.line.is_empty() {
                start = self.physical + 1;
                continue;
            }
            if before > 0 && self.line.len() == before {
                // An empty line inside an open field is part of it.
                continue;
            }
            if self.closed() || self.next_starts_a_row() {
                break;
            }
            self.line.push(b'\n');
        }
        if self.line.last() == Some(&b'\n') {
            self.line.pop();
        }
        if self.line.is_empty() {
            return Ok(None);
        }
        Ok(Some(RfbRow { text: unquoted(&self.line), line: start }))
    }

    /// Whether the row read so far is whole: it ends with a field's closing quote, or it has
    /// every field already (a stray last quote does not swallow the lines after it).
    fn closed(&self) -> bool {
        let ends_quoted = self.line.len() >= 2 && self.line.last() == Some(&b'"');
        ends_quoted || self.separator.find_iter(&self.line).count() + 1 >= self.fields
    }

    /// Whether the next line begins as a row does (a quoted 8-character root): a row cut short
    /// is not joined to it.
    fn next_starts_a_row(&mut self) -> bool {
        let Ok(next) = self.source.fill_buf() else { return false };
        next.len() >= 11
            && next[0] == b'"'
            && next[1..9].iter().all(u8::is_ascii_alphanumeric)
            && next[9..11] == *b"\";"
    }
}

impl<'a> RfbRow<'a> {
    /// Its fields, without their quotes.
    pub fn fields(&self) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        let text = self.text;
        let mut at = 0;
        let mut cuts = memmem::find_iter(text, SEPARATOR).chain(std::iter::once(text.len()));
        std::iter::from_fn(move || {
            let end = cuts.next()?;
            let field = &text[at..end];
            at = end + SEPARATOR.len();
            Some(field)
        })
    }

    /// How many fields it has.
    pub fn len(&self) -> usize {
        memmem::find_iter(self.text, SEPARATOR).count() + 1
    }

    /// Its first field (the CNPJ's root in every RFB table).
    pub fn first(&self) -> &'a [u8] {
        self.fields().next().unwrap_or_default()
    }
}

fn trim_line_end(line: &mut Vec<u8>) {
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    if line.last() == Some(&b'\r') {
        line.pop();
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
            let fields = row.fields().map(|f| String::from_utf8_lossy(f).to_string()).collect();
            out.push((row.line, fields));
        }
        out
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
                (1, vec!["11".into(), "CONFECCOES ÁGUA \"BOA\" LTDA".into(), "".into()]),
                (2, vec!["22".into(), "A; B LTDA".into(), "x".into()]),
                (3, vec!["33".into(), "\"O\" BAR".into(), "Z \"Q\"".into()]),
            ]
        );
    }

    #[test]
    fn a_line_break_inside_a_field_joins_the_next_line() {
        let got = rows("\"1\";\"RUA A\nFUNDOS\";\"9\"\n\n\"2\";\"B\";\"8\"\n", 3);
        assert_eq!(
            got,
            vec![
                (1, vec!["1".into(), "RUA A\nFUNDOS".into(), "9".into()]),
                (4, vec!["2".into(), "B".into(), "8".into()]),
            ]
        );
    }

    #[test]
    fn a_whole_row_with_a_stray_quote_does_not_take_the_next() {
        let got = rows("\"1\";\"A\";\"9\n\"2\";\"B\";\"8\"\n", 3);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[1], (2, vec!["2".into(), "B".into(), "8".into()]));
    }

    #[test]
    fn a_row_cut_short_does_not_take_the_next() {
        let got = rows("\"00000001\";\"A\n\"00000002\";\"B\";\"8\"\n", 3);
        assert_eq!(
            got,
            vec![
                (1, vec!["00000001".into(), "A".into()]),
                (2, vec!["00000002".into(), "B".into(), "8".into()]),
            ]
        );
    }

    #[test]
    fn a_short_row_is_as_long_as_it_is() {
        let mut reader = RfbRows::new("\"1\";\"A\"\n".as_bytes(), 3);
        let row = reader.next_row().unwrap().unwrap();
        assert_eq!(row.len(), 2);
        assert_eq!(row.first(), b"1");
        assert!(reader.next_row().unwrap().is_none());
    }
}
