//! The national picture of PGFN's release: every inscription in the files, the portfolio's or
//! not, summed once while the files are read, and dropped. PGFN publishes one row per debtor of
//! an inscription, so an inscription is counted by its principal debtor's row (`TIPO_DEVEDOR`
//! `Principal`), never by its co-debtors' copies.
//!
//! A cell is a state (`UF_DEVEDOR` in the layouts that have it, else `UF_UNIDADE_RESPONSAVEL`),
//! a person type (`J`, `F`), a system, a tax group ([`tax_group`]), a situation
//! (`TIPO_SITUACAO_INSCRICAO`) and whether the inscription is in court (`INDICADOR_AJUIZADO`);
//! it holds the inscriptions and their `VALOR_CONSOLIDADO`, exact. A principal row whose value is in no form PGFN writes is counted
//! apart, never summed as a guess.
//!
//! A company debtor's cell also holds its CNAE section (its head office's main CNAE) and its
//! legal nature's group (the first digit of `natureza_juridica`), both from RFB's files of the
//! same release, which are read first ([`Profiles::learn`]): a company RFB's files do not hold
//! is `?` in both. A person's row holds neither.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use foldhash::HashMap;

use rust_decimal::Decimal;

use super::layouts::decode;
use crate::api::Categoria;
use crate::api::cnae::{CNAE_SECTIONS, section_of_subclass};

/// One cell of the national picture.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NationalKey {
    pub uf: String,
    /// `J` (Pessoa jurídica), `F` (Pessoa física), else the text as published.
    pub tipo_pessoa: String,
    pub categoria: Categoria,
    /// The tax group ([`tax_group`]): the service's groups, and `FGTS`.
    pub grupo_tributo: &'static str,
    pub situacao: String,
    /// `SIM` or `NAO`, as published.
    pub ajuizado: String,
    /// A company's CNAE section letter (`A`-`U`), `?` when RFB's files give none; empty for a
    /// person.
    pub cnae_secao: String,
    /// A company's legal-nature group, the first digit of its `natureza_juridica` (`1`
    /// administração pública ... `5` organizações internacionais), `?` when RFB's files give
    /// none; empty for a person.
    pub natureza_grupo: String,
}

/// What a cell sums: its inscriptions and their value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub inscricoes: u64,
    pub valor: Decimal,
}

/// The release's inscriptions by cell, and the principal rows whose value could not be read.
/// Rows are added while the files are read ([`National::add`]) and the cells are whole once
/// [`National::finish`] has run. Each file read on its own thread sums into its own, and the
/// finished sums are added up ([`National::merge`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct National {
    pub cells: BTreeMap<NationalKey, Tally>,
    /// Principal rows whose `VALOR_CONSOLIDADO` is in no form PGFN writes: in no cell.
    pub unreadable: u64,
    /// The sums as rows arrive, by the ids of their texts: 28 M rows a quarter hold a few dozen
    /// distinct states, situations and revenues, so each row costs a few lookups of borrowed
    /// bytes, no allocation and no decimal parse.
    acc: HashMap<RawKey, (u64, i128)>,
    texts: Texts,
    /// The last debtor looked up in [`Profiles`] and its byte: a debtor's rows tend to follow
    /// one another.
    last: Option<([u8; 8], u8)>,
}

/// A cell as the rows name it: the ids of its texts in `Texts`, its system, tax group and the
/// debtor's profile byte ([`Profiles`]).
type RawKey = (u16, u16, Categoria, &'static str, u16, u16, u8);

/// Each company's CNAE section and legal-nature group by its root, one byte a root: the low five
/// bits the section's place in `api::cnae::CNAE_SECTIONS` plus one, the high three the group's
/// digit, 0 when unknown. Numeric roots index pages of 64 Ki roots, made when first written: at
/// the real size (about 60 M companies over 10^8 roots) about 95 MiB, the least a byte a root
/// allows, freed with it once PGFN's files are summed. Alphanumeric roots (from July 2026) go
/// to a map. Written by the threads that read RFB's files at once (each byte in one atomic
/// update: Empresas' rows write its high bits, head offices' its low ones), then read by those
/// that sum PGFN's.
#[derive(Debug)]
pub(super) struct Profiles {
    pages: Box<[OnceLock<Box<[AtomicU8]>>]>,
    alnum: Mutex<HashMap<[u8; 8], u8>>,
}

const PAGE: usize = 1 << 16;
/// Pages enough for every 8-digit root.
const PAGES: usize = 100_000_000_usize.div_ceil(PAGE);
const SECTION_BITS: u8 = 0b0001_1111;
/// The profile byte of a row whose debtor is no company (a person's CPF).
const NO_COMPANY: u8 = u8::MAX;

impl Default for Profiles {
    fn default() -> Self {
        Self { pages: (0..PAGES).map(|_| OnceLock::new()).collect(), alnum: Mutex::default() }
    }
}

impl Profiles {
    /// Sets `root`'s byte to `change` of it.
    fn update(&self, root: &[u8], change: impl Fn(u8) -> u8) {
        let Ok(root) = <[u8; 8]>::try_from(root) else { return };
        let Some(n) = numeric(&root) else {
            let mut alnum = self.alnum.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let byte = alnum.entry(root).or_default();
            *byte = change(*byte);
            return;
        };
        let Some(page) = self.pages.get(n / PAGE) else { return };
        let page = page.get_or_init(|| (0..PAGE).map(|_| AtomicU8::new(0)).collect());
        // `change` always gives a byte, so the update cannot fail.
        let _ = page[n % PAGE].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| Some(change(b)));
    }

    fn get(&self, root: &[u8; 8]) -> u8 {
        match numeric(root) {
            Some(n) => self
                .pages
                .get(n / PAGE)
                .and_then(OnceLock::get)
                .map_or(0, |p| p[n % PAGE].load(Ordering::Relaxed)),
            None => self
                .alnum
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(root)
                .copied()
                .unwrap_or(0),
        }
    }

    /// Keeps what an RFB row whose fields `field` gives says of its company `root`: an Empresas
    /// row its legal nature, a head office's its CNAE section.
    pub(super) fn learn<'a>(&self, at: &ProfileColumns, root: &[u8], fields: impl Iterator<Item = &'a [u8]>) {
        let Some(last) = [at.natureza, at.matriz, at.cnae].into_iter().flatten().max() else { return };
        // One pass over the row's fields, up to the last one needed; a branch's row stops at
        // its marker.
        let (mut nature, mut section) = (None, None);
        for (i, field) in fields.enumerate().take(last + 1) {
            if Some(i) == at.natureza {
                nature = Some(nature_group(field));
            } else if Some(i) == at.matriz && field.trim_ascii() != b"1" && at.natureza.is_none() {
                return;
            } else if Some(i) == at.cnae {
                section = Some(section_number(field));
            }
        }
        if nature.is_none() && section.is_none() {
            return;
        }
        self.update(root, |byte| {
            let byte = nature.map_or(byte, |group| (byte & SECTION_BITS) | (group << 5));
            section.map_or(byte, |section| (byte & !SECTION_BITS) | section)
        });
    }
}

fn numeric(root: &[u8; 8]) -> Option<usize> {
    root.iter().all(u8::is_ascii_digit).then(|| root.iter().fold(0, |n, b| n * 10 + usize::from(b - b'0')))
}

/// Where an RFB file's columns of a company's profile are: `natureza_juridica` in Empresas,
/// `identificador_matriz_filial` and `cnae_fiscal_principal` in Estabelecimentos.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ProfileColumns {
    natureza: Option<usize>,
    matriz: Option<usize>,
    cnae: Option<usize>,
}

impl ProfileColumns {
    /// The positions in a table of `columns`; `None` for a table that says nothing of a
    /// company's profile (Socios, Simples), whose rows then cost nothing here.
    pub(super) fn of(columns: &[String]) -> Option<Self> {
        let at = |name: &str| columns.iter().position(|c| c == name);
        let found = Self {
            natureza: at("natureza_juridica"),
            matriz: at("identificador_matriz_filial"),
            cnae: at("cnae_fiscal_principal"),
        };
        (found.natureza.is_some() || found.cnae.is_some()).then_some(found)
    }
}

/// Each distinct field text seen, by its bytes as published: its id is its place.
#[derive(Debug, Clone, Default)]
struct Texts {
    ids: HashMap<Vec<u8>, u16>,
    bytes: Vec<Vec<u8>>,
    groups: HashMap<Vec<u8>, &'static str>,
}

impl Texts {
    fn id(&mut self, bytes: &[u8]) -> u16 {
        if let Some(id) = self.ids.get(bytes) {
            return *id;
        }
        let id = u16::try_from(self.bytes.len()).unwrap_or(u16::MAX);
        self.ids.insert(bytes.to_vec(), id);
        self.bytes.push(bytes.to_vec());
        id
    }

    fn text(&self, id: u16) -> &[u8] {
        self.bytes.get(usize::from(id)).map_or(&[][..], Vec::as_slice)
    }

    /// `receita`'s tax group, worked out once per distinct text.
    fn group(&mut self, categoria: Categoria, receita: &[u8]) -> &'static str {
        if categoria != Categoria::NaoPrevidenciario {
            return tax_group(categoria, receita);
        }
        if let Some(group) = self.groups.get(receita) {
            return group;
        }
        let group = tax_group(categoria, receita);
        self.groups.insert(receita.to_vec(), group);
        group
    }
}

/// How a value is read in cents, exact (`transform::parse::published_cents`, handed in by
/// whoever reads the release: extract parses no amount of its own).
pub(crate) type Cents = fn(&[u8]) -> Option<i128>;

/// Where a file's columns of the national picture are (its header's positions), and how its
/// values are read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Columns {
    categoria: Categoria,
    cents: Cents,
    uf: Option<usize>,
    tipo_pessoa: Option<usize>,
    tipo_devedor: Option<usize>,
    receita: Option<usize>,
    situacao: Option<usize>,
    ajuizado: Option<usize>,
    valor: Option<usize>,
}

impl Columns {
    /// The positions in a header of `columns` (lower-case names) for a file of `categoria`.
    pub(super) fn of(categoria: Categoria, columns: &[String], cents: Cents) -> Self {
        let at = |name: &str| columns.iter().position(|c| c == name);
        Self {
            categoria,
            cents,
            uf: at("uf_devedor").or_else(|| at("uf_unidade_responsavel")),
            tipo_pessoa: at("tipo_pessoa"),
            tipo_devedor: at("tipo_devedor"),
            receita: at("receita_principal"),
            situacao: at("tipo_situacao_inscricao"),
            ajuizado: at("indicador_ajuizado"),
            valor: at("valor_consolidado"),
        }
    }
}

impl National {
    /// Counts the row whose fields `field` gives, if it is its inscription's principal debtor's;
    /// `company` is the debtor's root when the document is a CNPJ.
    pub(super) fn add<'a>(
        &mut self,
        profiles: &Profiles,
        at: &Columns,
        company: Option<&[u8]>,
        field: impl Fn(usize) -> Option<&'a [u8]>,
    ) {
        let cell = |i: Option<usize>| i.and_then(&field).map(<[u8]>::trim_ascii).unwrap_or_default();
        if !cell(at.tipo_devedor).get(..9).is_some_and(|t| t.eq_ignore_ascii_case(b"principal")) {
            return;
        }
        let Some(cents) = (at.cents)(cell(at.valor)) else {
            self.unreadable += 1;
            return;
        };
        let key = (
            self.texts.id(cell(at.uf)),
            self.texts.id(cell(at.tipo_pessoa)),
            at.categoria,
            self.texts.group(at.categoria, cell(at.receita)),
            self.texts.id(cell(at.situacao)),
            self.texts.id(cell(at.ajuizado)),
            company.map_or(NO_COMPANY, |root| self.profile(profiles, root)),
        );
        let sum = self.acc.entry(key).or_default();
        sum.0 += 1;
        sum.1 += cents;
    }

    /// `root`'s profile byte, the last one's again without a lookup.
    fn profile(&mut self, profiles: &Profiles, root: &[u8]) -> u8 {
        let Ok(root) = <[u8; 8]>::try_from(root) else { return 0 };
        if let Some((last, byte)) = self.last
            && last == root
        {
            return byte;
        }
        let byte = profiles.get(&root);
        self.last = Some((root, byte));
        byte
    }

    /// Adds the finished sums of `other` (another file's) to these.
    pub(super) fn merge(&mut self, other: National) {
        for (key, tally) in other.cells {
            let sum = self.cells.entry(key).or_default();
            sum.inscricoes += tally.inscricoes;
            sum.valor += tally.valor;
        }
        self.unreadable += other.unreadable;
    }

    /// The sums of the rows added, into `cells` (texts decoded and normalized: `ac` and `AC`
    /// are one state).
    pub(super) fn finish(&mut self) {
        let text = |texts: &Texts, id: u16| decode(texts.text(id));
        for ((uf, tipo, categoria, grupo_tributo, situacao, ajuizado, profile), (n, cents)) in
            std::mem::take(&mut self.acc)
        {
            let tipo_pessoa = person_type(self.texts.text(tipo));
            let (cnae_secao, natureza_grupo) = match tipo_pessoa.as_str() {
                "J" => profile_texts(profile),
                _ => (String::new(), String::new()),
            };
            let key = NationalKey {
                uf: text(&self.texts, uf).to_uppercase(),
                tipo_pessoa,
                categoria,
                grupo_tributo,
                situacao: text(&self.texts, situacao),
                ajuizado: text(&self.texts, ajuizado).to_uppercase(),
                cnae_secao,
                natureza_grupo,
            };
            let tally = self.cells.entry(key).or_default();
            tally.inscricoes += n;
            tally.valor += Decimal::from_i128_with_scale(cents, 2);
        }
    }

    /// The inscriptions and their value, in all.
    pub(crate) fn total(&self) -> Tally {
        self.sum(|_| true)
    }

    /// The inscriptions and their value of one person type (`J`, `F`).
    pub(crate) fn of_person_type(&self, tipo: &str) -> Tally {
        self.sum(|k| k.tipo_pessoa == tipo)
    }

    /// The inscriptions and their value of the cells `keep` takes.
    pub(crate) fn sum(&self, keep: impl Fn(&NationalKey) -> bool) -> Tally {
        self.cells.iter().filter(|(k, _)| keep(k)).fold(Tally::default(), |a, (_, t)| Tally {
            inscricoes: a.inscricoes + t.inscricoes,
            valor: a.valor + t.valor,
        })
    }
}

/// The tax groups of the não previdenciário system, each with the words of `RECEITA_PRINCIPAL`
/// that name it, in the order they are tried: the first group one of whose words is a whole
/// word of the text (`Receita da dívida ativa - IRPJ`, `DIV ATIVA-SIMPLES NACIONAL`) is the
/// inscription's; none is `Outros` (fines, SPU, import duty). The groups are the service's
/// (`grupo_tributo`), so the two sources read alike.
pub(crate) const TAX_GROUPS: [(&str, &[&str]); 10] = [
    ("Simples Nacional", &["SIMPLES", "MEI", "SIMEI"]),
    ("IRPJ", &["IRPJ"]),
    ("CSLL", &["CSLL"]),
    ("PIS/PASEP", &["PIS", "PASEP"]),
    ("COFINS", &["COFINS"]),
    ("IPI", &["IPI"]),
    ("IOF", &["IOF"]),
    ("IRRF", &["IRRF"]),
    ("IRPF", &["IRPF"]),
    ("ITR", &["ITR"]),
];

/// An inscription's tax group: previdenciário's are `Contribuições previdenciárias`, FGTS's
/// `FGTS`; a não previdenciário one's by its `RECEITA_PRINCIPAL` ([`TAX_GROUPS`]).
pub(crate) fn tax_group(categoria: Categoria, receita: &[u8]) -> &'static str {
    match categoria {
        Categoria::Previdenciario => "Contribuições previdenciárias",
        Categoria::Fgts => "FGTS",
        Categoria::NaoPrevidenciario => {
            let upper = receita.to_ascii_uppercase();
            let words: Vec<&[u8]> =
                upper.split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
            TAX_GROUPS
                .iter()
                .find(|(_, names)| names.iter().any(|n| words.contains(&n.as_bytes())))
                .map_or("Outros", |(group, _)| group)
        }
    }
}

/// A CNAE subclass's section as its place in `CNAE_SECTIONS` plus one; 0 when it has none.
fn section_number(cnae: &[u8]) -> u8 {
    let Some(section) = section_of_subclass(cnae) else { return 0 };
    CNAE_SECTIONS.iter().position(|s| s.letter == section.letter).map_or(0, |i| i as u8 + 1)
}

/// A `natureza_juridica`'s group, its first digit (1-7); 0 when it has none.
fn nature_group(natureza: &[u8]) -> u8 {
    match natureza.trim_ascii().first() {
        Some(d @ b'1'..=b'7') => d - b'0',
        _ => 0,
    }
}

/// A company's profile byte as its section letter and legal-nature digit, `?` for each unknown.
fn profile_texts(profile: u8) -> (String, String) {
    let known = profile != NO_COMPANY;
    let section = CNAE_SECTIONS.get(usize::from(profile & SECTION_BITS).wrapping_sub(1)).filter(|_| known);
    let group = Some(profile >> 5).filter(|g| known && *g > 0);
    (
        section.map_or_else(|| "?".to_string(), |s| s.letter.to_string()),
        group.map_or_else(|| "?".to_string(), |g| g.to_string()),
    )
}

/// `Pessoa jurídica` -> `J`, `Pessoa física` -> `F` (Latin-1 or not); anything else as written.
fn person_type(text: &[u8]) -> String {
    let lower = text.to_ascii_lowercase();
    if lower.windows(3).any(|w| w == b"jur") {
        "J".into()
    } else if lower.windows(4).any(|w| w == b"sica") {
        "F".into()
    } else {
        decode(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// RECEITA_PRINCIPAL as the real files write it (tests/fixtures/real/pgfn_nao_previdenciario.csv)
    /// and as the service's groups name them.
    #[test]
    fn each_receita_goes_to_its_tax_group_by_whole_words() {
        let group = |text: &str| tax_group(Categoria::NaoPrevidenciario, text.as_bytes());
        assert_eq!(group("Receita da dívida ativa - IRPJ"), "IRPJ");
        assert_eq!(group("Receita da dívida ativa - COFINS"), "COFINS");
        assert_eq!(group("DIV ATIVA-SIMPLES NACIONAL"), "Simples Nacional");
        assert_eq!(group("Receita da dívida ativa - SIMPLES"), "Simples Nacional");
        assert_eq!(group("Receita da dívida ativa - ITR - Exercício 1997 e posteriores"), "ITR");
        assert_eq!(group("Receita da dívida ativa - IRRF"), "IRRF");
        assert_eq!(group("Receita da dívida ativa - Multa - CLT"), "Outros");
        assert_eq!(group("Receita da dívida ativa - SPU"), "Outros");
        assert_eq!(group("R D Ativa - Multa Isolada"), "Outros");
        assert_eq!(group("TAXA DO MUNICIPIO"), "Outros", "IPI inside a word is no IPI");
        assert_eq!(tax_group(Categoria::Fgts, b"IRPJ"), "FGTS");
        assert_eq!(tax_group(Categoria::Previdenciario, b""), "Contribuições previdenciárias");
    }

    /// Every RECEITA_PRINCIPAL of the real sample gets a group, and the taxes it names go to
    /// theirs.
    #[test]
    fn the_real_samples_receitas_each_get_a_group() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/real/pgfn_nao_previdenciario.csv");
        let bytes = std::fs::read(path).unwrap();
        let text = decode(&bytes);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(';').collect();
        let at = header.iter().position(|h| *h == "RECEITA_PRINCIPAL").unwrap();
        let groups: Vec<&str> = lines
            .map(|l| tax_group(Categoria::NaoPrevidenciario, l.split(';').nth(at).unwrap().as_bytes()))
            .collect();
        assert_eq!(groups.len(), 16);
        assert_eq!(groups.iter().filter(|g| **g == "Outros").count(), 8, "{groups:?}");
        assert_eq!(groups.iter().filter(|g| **g == "Simples Nacional").count(), 2, "{groups:?}");
    }

    #[test]
    fn only_the_principal_row_counts_and_a_broken_value_is_counted_apart() {
        let columns: Vec<String> = [
            "cpf_cnpj",
            "tipo_pessoa",
            "tipo_devedor",
            "uf_devedor",
            "tipo_situacao_inscricao",
            "indicador_ajuizado",
            "valor_consolidado",
        ]
        .map(String::from)
        .into();
        let at = Columns::of(Categoria::Previdenciario, &columns, crate::transform::parse::published_cents);
        let (mut national, profiles) = (National::default(), Profiles::default());
        let rows: [[&[u8]; 7]; 4] = [
            [b"x", b"Pessoa jur\xeddica", b"Principal", b"ac", b"Em cobran\xe7a", b"SIM", b"10.50"],
            [b"y", b"Pessoa jur\xeddica", b"Corresponsavel", b"AC", b"Em cobran\xe7a", b"SIM", b"10.50"],
            [b"z", b"Pessoa f\xedsica", b"PRINCIPAL", b"AC", b"Em cobran\xe7a", b"SIM", b"0.25"],
            [b"w", b"Pessoa f\xedsica", b"PRINCIPAL", b"AC", b"Em cobran\xe7a", b"SIM", b"dez reais"],
        ];
        for row in &rows {
            national.add(&profiles, &at, None, |i| row.get(i).copied());
        }
        national.finish();
        assert_eq!(national.total(), Tally { inscricoes: 2, valor: Decimal::new(1075, 2) });
        assert_eq!(national.of_person_type("F"), Tally { inscricoes: 1, valor: Decimal::new(25, 2) });
        assert_eq!(national.unreadable, 1);
        let key = national.cells.keys().next().unwrap();
        assert_eq!(
            (key.uf.as_str(), key.situacao.as_str(), key.ajuizado.as_str()),
            ("AC", "Em cobrança", "SIM")
        );
    }

    /// A company debtor takes its head office's section and its Empresas row's nature, whatever
    /// order RFB's rows come in; a branch's CNAE is not its company's; a company no RFB row
    /// names is `?`, numeric root or alphanumeric; a person has neither.
    #[test]
    fn a_company_debtor_takes_its_head_offices_section_and_its_nature() {
        let empresas = ProfileColumns::of(&["cnpj_basico", "natureza_juridica"].map(String::from)).unwrap();
        let estab = ProfileColumns::of(
            &["cnpj_basico", "identificador_matriz_filial", "cnae_fiscal_principal"].map(String::from),
        )
        .unwrap();
        let (mut national, profiles) = (National::default(), Profiles::default());
        let rfb: [(&ProfileColumns, [&[u8]; 3]); 5] = [
            (&estab, [b"12345678", b"2", b"0111301"]),
            (&estab, [b"12345678", b"1", b"6201-5/01"]),
            (&empresas, [b"12345678", b"2062", b""]),
            (&estab, [b"AB1CD2EF", b"1", b"4781400"]),
            (&empresas, [b"AB1CD2EF", b"3999", b""]),
        ];
        for (at, row) in &rfb {
            profiles.learn(at, row[0], row.iter().copied());
        }
        let columns: Vec<String> =
            ["tipo_pessoa", "tipo_devedor", "uf_devedor", "valor_consolidado"].map(String::from).into();
        let at =
            Columns::of(Categoria::NaoPrevidenciario, &columns, crate::transform::parse::published_cents);
        let debts: [(Option<&[u8]>, &[u8]); 4] = [
            (Some(b"12345678"), b"Pessoa jur\xeddica"),
            (Some(b"AB1CD2EF"), b"Pessoa jur\xeddica"),
            (Some(b"87654321"), b"Pessoa jur\xeddica"),
            (None, b"Pessoa f\xedsica"),
        ];
        for (root, tipo) in debts {
            let row: [&[u8]; 4] = [tipo, b"PRINCIPAL", b"SP", b"1.00"];
            national.add(&profiles, &at, root, |i| row.get(i).copied());
        }
        national.finish();
        let profiles: BTreeSet<(&str, &str, &str)> = national
            .cells
            .keys()
            .map(|k| (k.tipo_pessoa.as_str(), k.cnae_secao.as_str(), k.natureza_grupo.as_str()))
            .collect();
        let want = BTreeSet::from([("J", "J", "2"), ("J", "G", "3"), ("J", "?", "?"), ("F", "", "")]);
        assert_eq!(profiles, want);
    }
}
