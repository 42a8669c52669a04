//! The records of a portfolio as the publishers' open-data files hold them (PGFN's dívida ativa,
//! RFB's CNPJ files), in the service's own models: the service mirrors those files field for
//! field, so a record read from a file is the record the service would send. Kept by CNPJ root,
//! as the files key them; answering per CNPJ (a head office or a branch) is done here too, the
//! way the service answers.
//!
//! Filling it is the open-data reader's job (`extract::open_data`); serving it, the embedded
//! registry's.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::{Arc, LazyLock, Mutex, RwLock};

use serde::de::DeserializeOwned;

use super::ids::{Categoria, Cnpj};
use super::models::{CompanyProfile, DividaPgfn, Empresa, Estabelecimento, Fonte, Simples, Socio};

/// A row as its publisher wrote it: its fields decoded, joined by U+001F (a control character
/// no published field holds; one that did would read as a space), named by its file's columns.
/// A model is made from it when the row is served: kept as models, the 600,000 rows of a
/// 50,000-company portfolio took 600 MB; as rows, a quarter of that.
///
/// A value its column repeats (a state's name, a situation, a tax, a unit of PGFN) is kept once,
/// in a pool every row shares, and the row holds its number: at 500,000 companies the rows
/// were about 1.7 GB, most of it such values written again on each row. Equal rows are equal
/// whether a value was pooled or written out.
#[derive(Clone)]
pub struct Row {
    columns: Arc<[String]>,
    values: Box<str>,
}

const SEPARATOR: char = '\u{1f}';

/// Opens a pooled value's number in `Row::values`; a published field that held it reads as a
/// space, as one holding `SEPARATOR` does.
const POOLED: char = '\u{1e}';

/// Values shorter than this are written out: their number would take as much room.
const POOLED_MIN_LEN: usize = 6;

/// Distinct values pooled per column name; past it, the column's new values are written out.
/// A column of names or numbers fills it at once and stops; a coded column never does. It
/// bounds the pool at about 4,096 values of some 70 column names: a few MB, held to the end
/// of the process.
const POOLED_PER_COLUMN: usize = 4096;

/// The pool: each value once, numbered in the order it came. Hashed by foldhash: under one
/// lock, with SipHash, it took the reading of a 500,000-company portfolio from 27 to 33 s.
#[derive(Default)]
struct Pool {
    numbers: foldhash::HashMap<&'static str, u32>,
    pooled_per_column: foldhash::HashMap<String, usize>,
}

static POOL: LazyLock<Mutex<Pool>> = LazyLock::new(Mutex::default);

/// The pooled values by number, read by every row that is served.
static POOLED_VALUES: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());

impl Pool {
    /// `value`'s number and the value as pooled, pooling it while its column has room; `None`
    /// to write it out.
    fn number(&mut self, column: &str, value: &str) -> Option<(u32, &'static str)> {
        if let Some((pooled, n)) = self.numbers.get_key_value(value) {
            return Some((*n, *pooled));
        }
        let pooled = match self.pooled_per_column.get_mut(column) {
            Some(pooled) => pooled,
            None => self.pooled_per_column.entry(column.to_string()).or_default(),
        };
        if *pooled >= POOLED_PER_COLUMN {
            return None;
        }
        *pooled += 1;
        let mut values = POOLED_VALUES.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = u32::try_from(values.len()).ok()?;
        // Held to the end of the process, bounded by POOLED_PER_COLUMN.
        let value: &'static str = Box::leak(value.to_string().into_boxed_str());
        values.push(value);
        self.numbers.insert(value, n);
        Some((n, value))
    }
}

fn cleaned(c: char) -> char {
    if c == SEPARATOR || c == POOLED { ' ' } else { c }
}

/// What a reading thread has learnt of the pool: the numbers it has used, and the columns
/// that take no more values. A field the thread has seen before takes no lock: at 500,000
/// companies the rows are kept by three threads at once.
#[derive(Default)]
struct Learnt {
    numbers: foldhash::HashMap<&'static str, u32>,
    full: foldhash::HashSet<String>,
}

thread_local! {
    static LEARNT: std::cell::RefCell<Learnt> = std::cell::RefCell::default();
}

impl Learnt {
    fn number(&mut self, column: &str, value: &str) -> Option<u32> {
        // A full column's values are written out, even one pooled before it filled: they are
        // names and numbers, which rows seldom repeat, and the check is one lookup less.
        if value.len() < POOLED_MIN_LEN || self.full.contains(column) {
            return None;
        }
        if let Some(n) = self.numbers.get(value) {
            return Some(*n);
        }
        let mut pool = POOL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match pool.number(column, value) {
            Some((n, pooled)) => {
                self.numbers.insert(pooled, n);
                Some(n)
            }
            None => {
                self.full.insert(column.to_string());
                None
            }
        }
    }
}

impl Row {
    pub fn new(columns: Arc<[String]>, values: impl IntoIterator<Item = String>) -> Self {
        let mut joined = String::new();
        LEARNT.with_borrow_mut(|learnt| {
            for (i, value) in values.into_iter().enumerate() {
                if i > 0 {
                    joined.push(SEPARATOR);
                }
                let value = match value.contains([SEPARATOR, POOLED]) {
                    true => value.chars().map(cleaned).collect(),
                    false => value,
                };
                match columns.get(i).and_then(|column| learnt.number(column, &value)) {
                    Some(n) => {
                        joined.push(POOLED);
                        // Writing to a String cannot fail.
                        let _ = write!(joined, "{n}");
                    }
                    None => joined.push_str(&value),
                }
            }
        });
        Self { columns, values: joined.into_boxed_str() }
    }

    /// The value of `column`, if the row's file has that column.
    pub fn get(&self, column: &str) -> Option<&str> {
        let at = self.columns.iter().position(|c| c == column)?;
        let pooled = POOLED_VALUES.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.values.split(SEPARATOR).nth(at).map(|field| value_of(field, &pooled))
    }

    /// Every field's value, in the file's column order.
    fn fields(&self) -> Vec<&str> {
        let pooled = POOLED_VALUES.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.values.split(SEPARATOR).map(|field| value_of(field, &pooled)).collect()
    }

    /// The row as the service's model, every column under its name. It cannot fail for the
    /// published models, whose fields are all optional text; a column the model lacks is
    /// left out, as the service would.
    pub fn model<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let map: serde_json::Map<String, serde_json::Value> = self
            .columns
            .iter()
            .zip(self.fields())
            .map(|(c, v)| (c.clone(), serde_json::Value::String(v.to_string())))
            .collect();
        serde_json::from_value(serde_json::Value::Object(map))
    }
}

/// A stored field's value: written out, or the pooled value its number names.
fn value_of<'a>(field: &'a str, pooled: &[&'static str]) -> &'a str {
    let number = field.strip_prefix(POOLED).and_then(|n| n.parse::<usize>().ok());
    match number.and_then(|n| pooled.get(n)) {
        Some(value) => value,
        None => field,
    }
}

/// Field by field, a pooled field against a written-out one by its value. The RFB reader
/// compares each row with the rows its root already holds (a root may have thousands of
/// establishments): a pair that differs in a written-out field is told apart without
/// decoding the rest of either row.
impl PartialEq for Row {
    fn eq(&self, other: &Self) -> bool {
        if !Arc::ptr_eq(&self.columns, &other.columns) && self.columns != other.columns {
            return false;
        }
        let (mut ours, mut theirs) = (self.values.split(SEPARATOR), other.values.split(SEPARATOR));
        let mut pooled = None;
        loop {
            match (ours.next(), theirs.next()) {
                (None, None) => return true,
                (Some(a), Some(b)) if a == b => {}
                (Some(a), Some(b)) if a.starts_with(POOLED) || b.starts_with(POOLED) => {
                    let pooled = pooled.get_or_insert_with(|| {
                        POOLED_VALUES.read().unwrap_or_else(std::sync::PoisonError::into_inner)
                    });
                    if value_of(a, pooled) != value_of(b, pooled) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.columns.iter().zip(self.fields())).finish()
    }
}

/// One release's rows for a set of companies, by CNPJ root as the files key them.
#[derive(Debug, Clone, Default)]
pub struct Published {
    pub empresas: HashMap<String, Row>,
    /// Every establishment of a root, in file order.
    pub estabelecimentos: HashMap<String, Vec<Row>>,
    pub simples: HashMap<String, Row>,
    pub socios: HashMap<String, Vec<Row>>,
    /// (root, categoria) -> the inscriptions whose debtor has that root, one row per debtor.
    pub dividas: HashMap<(String, Categoria), Vec<Row>>,
    /// The datasets the files held (`pgfn`, `cnpj`) and those they could not (`rfb`: plans,
    /// settlements and credits have no published layout), as the service's `fontes`.
    pub fontes: BTreeMap<String, Fonte>,
}

type Answer<T> = Result<Option<T>, serde_json::Error>;

impl Published {
    /// The release's RFB month (`2024-05`) and PGFN quarter (`2024T1`), as its `fontes` give
    /// them: stamped on its records as the service stamps `dataset_month` and
    /// `dataset_trimester`.
    fn version(&self, source: &str) -> Option<String> {
        self.fontes.get(source).and_then(|f| f.versao.clone())
    }

    /// Lets go of every row, keeping the datasets' `fontes`: for a reader done with the rows
    /// (at 500,000 companies they are about 1.7 GB).
    pub fn forget_rows(&mut self) {
        *self = Self { fontes: std::mem::take(&mut self.fontes), ..Self::default() };
    }

    /// Whether the files know the company: its company record, one of its establishments, or
    /// (a release of PGFN's files alone) an inscription of its root.
    pub fn knows(&self, cnpj: &Cnpj) -> bool {
        let root = cnpj.basico();
        self.empresas.contains_key(root)
            || self.establishment(cnpj).is_some()
            || Categoria::ALL.iter().any(|c| self.dividas.contains_key(&(root.to_string(), *c)))
    }

    fn establishment(&self, cnpj: &Cnpj) -> Option<&Row> {
        let list = self.estabelecimentos.get(cnpj.basico())?;
        let tail = cnpj.as_str().get(8..)?;
        list.iter().find(|e| {
            let (ordem, dv) = (e.get("cnpj_ordem").unwrap_or(""), e.get("cnpj_dv").unwrap_or(""));
            tail.len() == ordem.len() + dv.len() && tail.starts_with(ordem) && tail.ends_with(dv)
        })
    }

    fn rfb_model<T: DeserializeOwned>(
        &self,
        row: &Row,
        stamp: impl FnOnce(&mut T, Option<String>),
    ) -> Result<T, serde_json::Error> {
        let mut model = row.model::<T>()?;
        stamp(&mut model, self.version("cnpj"));
        Ok(model)
    }

    fn estabelecimento(&self, row: &Row) -> Result<Estabelecimento, serde_json::Error> {
        self.rfb_model(row, |e: &mut Estabelecimento, month| {
            e.cnpj_completo = Some(format!(
                "{}{}{}",
                e.cnpj_basico.as_deref().unwrap_or(""),
                e.cnpj_ordem.as_deref().unwrap_or(""),
                e.cnpj_dv.as_deref().unwrap_or("")
            ));
            e.dataset_month = month;
        })
    }

    /// Operation 1's answer for `cnpj`, `None` when the files do not know it.
    pub fn profile(&self, cnpj: &Cnpj) -> Answer<CompanyProfile> {
        if !self.knows(cnpj) {
            return Ok(None);
        }
        let root = cnpj.basico();
        let empresa =
            self.empresas.get(root).map(|r| self.rfb_model(r, |e: &mut Empresa, m| e.dataset_month = m));
        let simples =
            self.simples.get(root).map(|r| self.rfb_model(r, |s: &mut Simples, m| s.dataset_month = m));
        Ok(Some(CompanyProfile {
            cnpj: Some(cnpj.as_str().to_string()),
            empresa: empresa.transpose()?,
            estabelecimento: self.establishment(cnpj).map(|r| self.estabelecimento(r)).transpose()?,
            simples: simples.transpose()?,
            fontes: Some(self.fontes.clone()),
            resumos: None,
            snapshot_fingerprint: None,
        }))
    }

    /// The company's establishments (operation 2), `None` when the files do not know it.
    pub fn estabelecimentos_of(&self, cnpj: &Cnpj) -> Answer<Vec<Estabelecimento>> {
        self.list_of(cnpj, self.estabelecimentos.get(cnpj.basico()), |r| self.estabelecimento(r))
    }

    /// Its partners (operation 4).
    pub fn socios_of(&self, cnpj: &Cnpj) -> Answer<Vec<Socio>> {
        self.list_of(cnpj, self.socios.get(cnpj.basico()), |r| {
            self.rfb_model(r, |s: &mut Socio, m| s.dataset_month = m)
        })
    }

    /// Its inscriptions of one categoria (operation 5): those of every debtor with its root,
    /// dated by the release's quarter where the file does not say it.
    pub fn dividas_of(&self, cnpj: &Cnpj, categoria: Categoria) -> Answer<Vec<DividaPgfn>> {
        let rows = self.dividas.get(&(cnpj.basico().to_string(), categoria));
        self.list_of(cnpj, rows, |r| {
            let mut debt: DividaPgfn = r.model()?;
            if debt.dataset_trimester.is_none() {
                debt.dataset_trimester = self.version("pgfn");
            }
            Ok(debt)
        })
    }

    fn list_of<T>(
        &self,
        cnpj: &Cnpj,
        rows: Option<&Vec<Row>>,
        model: impl Fn(&Row) -> Result<T, serde_json::Error>,
    ) -> Answer<Vec<T>> {
        if !self.knows(cnpj) {
            return Ok(None);
        }
        rows.map_or(Ok(Vec::new()), |rows| rows.iter().map(model).collect()).map(Some)
    }
}

/// RFB's CNPJ files have no header: their columns by position, named as the service's models
/// name them (RFB's layout notes; `capital_social` is the model's `capital_social_raw`).
pub mod rfb {
    pub const EMPRESAS: [&str; 7] = [
        "cnpj_basico",
        "razao_social",
        "natureza_juridica",
        "qualificacao_responsavel",
        "capital_social_raw",
        "porte_empresa",
        "ente_federativo_responsavel",
    ];

    pub const ESTABELECIMENTOS: [&str; 30] = [
        "cnpj_basico",
        "cnpj_ordem",
        "cnpj_dv",
        "identificador_matriz_filial",
        "nome_fantasia",
        "situacao_cadastral",
        "data_situacao_cadastral",
        "motivo_situacao_cadastral",
        "nome_cidade_exterior",
        "pais",
        "data_inicio_atividade",
        "cnae_fiscal_principal",
        "cnae_fiscal_secundaria",
        "tipo_logradouro",
        "logradouro",
        "numero",
        "complemento",
        "bairro",
        "cep",
        "uf",
        "municipio",
        "ddd_1",
        "telefone_1",
        "ddd_2",
        "telefone_2",
        "ddd_fax",
        "fax",
        "correio_eletronico",
        "situacao_especial",
        "data_situacao_especial",
    ];

    pub const SOCIOS: [&str; 11] = [
        "cnpj_basico",
        "identificador_socio",
        "nome_socio_razao_social",
        "cnpj_cpf_socio",
        "qualificacao_socio",
        "data_entrada_sociedade",
        "pais",
        "representante_legal",
        "nome_representante",
        "qualificacao_representante_legal",
        "faixa_etaria",
    ];

    pub const SIMPLES: [&str; 7] = [
        "cnpj_basico",
        "opcao_pelo_simples",
        "data_opcao_simples",
        "data_exclusao_simples",
        "opcao_pelo_mei",
        "data_opcao_mei",
        "data_exclusao_mei",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(names: &[&str]) -> Arc<[String]> {
        names.iter().map(|c| c.to_string()).collect()
    }

    fn row(columns: &Arc<[String]>, values: &[&str]) -> Row {
        Row::new(columns.clone(), values.iter().map(|v| v.to_string()))
    }

    /// Pooled or written out, a row gives back what it was given, but for the two control
    /// characters the storage uses, which read as spaces.
    #[test]
    fn a_row_gives_back_its_values_pooled_or_not() {
        let cols = columns(&["uf", "situacao_inscricao", "numero_inscricao", "nome"]);
        let values = ["SP", "ATIVA EM COBRANCA", "80 6 26 000000-78", "A\u{1f}B\u{1e}C"];
        let first = row(&cols, &values);
        let second = row(&cols, &values);
        assert_eq!(first.get("uf"), Some("SP"));
        assert_eq!(first.get("situacao_inscricao"), Some("ATIVA EM COBRANCA"));
        assert_eq!(second.get("numero_inscricao"), Some("80 6 26 000000-78"));
        assert_eq!(second.get("nome"), Some("A B C"));
        assert_eq!(first.get("absent"), None);
        assert_eq!(first, second);
        let pooled = first.values.matches(POOLED).count();
        assert!(pooled >= 2, "the long values are pooled: {:?}", first.values);
        assert!(first.values.len() < values.iter().map(|v| v.len()).sum::<usize>(), "{:?}", first.values);
        let model: serde_json::Map<String, serde_json::Value> = first.model().unwrap();
        assert_eq!(model["situacao_inscricao"], "ATIVA EM COBRANCA");
        assert_eq!(model["uf"], "SP");
    }

    /// A value written out in one row and pooled in another leaves the rows equal: the RFB
    /// files repeat rows whole, and one of them is kept by this comparison.
    #[test]
    fn rows_are_equal_by_their_values_not_their_storage() {
        let cols = columns(&["situacao_cadastral_texto", "cnpj_ordem"]);
        let pooled = row(&cols, &["SUSPENSA POR DECISAO", "0001"]);
        let written = Row { columns: cols.clone(), values: "SUSPENSA POR DECISAO\u{1f}0001".into() };
        assert_ne!(pooled.values, written.values);
        assert_eq!(pooled, written);
        assert_ne!(pooled, row(&cols, &["SUSPENSA POR DECISAO", "0002"]));
        assert_ne!(pooled, row(&cols, &["BAIXADA POR DECISAO", "0001"]), "two pooled values that differ");
        let other = Row { columns: cols.clone(), values: "INAPTA POR DECISAO\u{1f}0001".into() };
        assert_ne!(pooled, other, "a pooled value against another written out");
    }

    /// A column of distinct values stops being pooled once it holds its share, and its later
    /// values are written out whole.
    #[test]
    fn a_column_of_distinct_values_stops_being_pooled() {
        let cols = columns(&["a_column_only_this_test_names"]);
        let rows: Vec<Row> =
            (0..POOLED_PER_COLUMN + 10).map(|i| row(&cols, &[&format!("value number {i}")])).collect();
        let last = rows.last().unwrap();
        assert!(!last.values.starts_with(POOLED), "{:?}", last.values);
        assert!(rows[0].values.starts_with(POOLED), "{:?}", rows[0].values);
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r.get("a_column_only_this_test_names"), Some(format!("value number {i}").as_str()));
        }
    }
}
