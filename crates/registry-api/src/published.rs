//! The records of a portfolio as the publishers' open-data files hold them (PGFN's dívida ativa,
//! RFB's CNPJ files), in the service's own models: the service mirrors those files field for
//! field, so a record read from a file is the record the service would send. Kept by CNPJ root,
//! as the files key them; answering per CNPJ (a head office or a branch) is done here too, the
//! way the service answers.
//!
//! Filling it is the open-data reader's job (`extract::open_data`); serving it, the embedded
//! registry's.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::ids::{Categoria, Cnpj};
use super::models::{CompanyProfile, DividaPgfn, Empresa, Estabelecimento, Fonte, Simples, Socio};

/// A row as its publisher wrote it: its fields decoded, joined by U+001F (a control character
/// no published field holds; one that did would read as a space), named by its file's columns.
/// A model is made from it when the row is served: kept as models, the 600,000 rows of a
/// 50,000-company portfolio took 600 MB; as rows, a quarter of that.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    columns: Arc<[String]>,
    values: Box<str>,
}

const SEPARATOR: char = '\u{1f}';

impl Row {
    pub fn new(columns: Arc<[String]>, values: impl IntoIterator<Item = String>) -> Self {
        let mut joined = String::new();
        for (i, value) in values.into_iter().enumerate() {
            if i > 0 {
                joined.push(SEPARATOR);
            }
            joined.extend(value.chars().map(|c| if c == SEPARATOR { ' ' } else { c }));
        }
        Self { columns, values: joined.into_boxed_str() }
    }

    /// The value of `column`, if the row's file has that column.
    pub fn get(&self, column: &str) -> Option<&str> {
        let at = self.columns.iter().position(|c| c == column)?;
        self.values.split(SEPARATOR).nth(at)
    }

    /// The row as the service's model, every column under its name. It cannot fail for the
    /// published models, whose fields are all optional text; a column the model lacks is
    /// left out, as the service would.
    pub fn model<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let map: serde_json::Map<String, serde_json::Value> = self
            .columns
            .iter()
            .zip(self.values.split(SEPARATOR))
            .map(|(c, v)| (c.clone(), serde_json::Value::String(v.to_string())))
            .collect();
        serde_json::from_value(serde_json::Value::Object(map))
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
