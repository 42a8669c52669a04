//! The records of a portfolio as the publishers' open-data files hold them (PGFN's dívida ativa,
//! RFB's CNPJ files), in the service's own models: the service mirrors those files field for
//! field, so a record read from a file is the record the service would send. Kept by CNPJ root,
//! as the files key them; answering per CNPJ (a head office or a branch) is done here too, the
//! way the service answers.
//!
//! Filling it is the open-data reader's job (`extract::open_data`); serving it, the embedded
//! registry's.

use std::collections::{BTreeMap, HashMap};

use super::ids::{Categoria, Cnpj};
use super::models::{CompanyProfile, DividaPgfn, Empresa, Estabelecimento, Fonte, Simples, Socio};

/// One release's records for a set of companies.
#[derive(Debug, Clone, Default)]
pub struct Published {
    pub empresas: HashMap<String, Empresa>,
    /// Every establishment of a root, in file order.
    pub estabelecimentos: HashMap<String, Vec<Estabelecimento>>,
    pub simples: HashMap<String, Simples>,
    pub socios: HashMap<String, Vec<Socio>>,
    /// (root, categoria) -> the inscriptions whose debtor has that root, one row per debtor.
    pub dividas: HashMap<(String, Categoria), Vec<DividaPgfn>>,
    /// The datasets the files held (`pgfn`, `cnpj`) and those they could not (`rfb`: plans,
    /// settlements and credits have no published layout), as the service's `fontes`.
    pub fontes: BTreeMap<String, Fonte>,
}

impl Published {
    /// Whether the files know the company: its company record, one of its establishments, or
    /// (a release of PGFN's files alone) an inscription of its root.
    pub fn knows(&self, cnpj: &Cnpj) -> bool {
        let root = cnpj.basico();
        self.empresas.contains_key(root)
            || self.establishment(cnpj).is_some()
            || Categoria::ALL.iter().any(|c| self.dividas.contains_key(&(root.to_string(), *c)))
    }

    fn establishment(&self, cnpj: &Cnpj) -> Option<&Estabelecimento> {
        let list = self.estabelecimentos.get(cnpj.basico())?;
        list.iter().find(|e| e.cnpj_completo.as_deref() == Some(cnpj.as_str()))
    }

    /// Operation 1's answer for `cnpj`, `None` when the files do not know it.
    pub fn profile(&self, cnpj: &Cnpj) -> Option<CompanyProfile> {
        if !self.knows(cnpj) {
            return None;
        }
        let root = cnpj.basico();
        Some(CompanyProfile {
            cnpj: Some(cnpj.as_str().to_string()),
            empresa: self.empresas.get(root).cloned(),
            estabelecimento: self.establishment(cnpj).cloned(),
            simples: self.simples.get(root).cloned(),
            fontes: Some(self.fontes.clone()),
            resumos: None,
            snapshot_fingerprint: None,
        })
    }

    /// The company's establishments (operation 2), `None` when the files do not know it.
    pub fn estabelecimentos_of(&self, cnpj: &Cnpj) -> Option<Vec<Estabelecimento>> {
        self.knows(cnpj).then(|| self.estabelecimentos.get(cnpj.basico()).cloned().unwrap_or_default())
    }

    /// Its partners (operation 4).
    pub fn socios_of(&self, cnpj: &Cnpj) -> Option<Vec<Socio>> {
        self.knows(cnpj).then(|| self.socios.get(cnpj.basico()).cloned().unwrap_or_default())
    }

    /// Its inscriptions of one categoria (operation 5): those of every debtor with its root.
    pub fn dividas_of(&self, cnpj: &Cnpj, categoria: Categoria) -> Option<Vec<DividaPgfn>> {
        let key = (cnpj.basico().to_string(), categoria);
        self.knows(cnpj).then(|| self.dividas.get(&key).cloned().unwrap_or_default())
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
