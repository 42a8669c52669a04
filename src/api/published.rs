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
    /// Whether the files know the company (its company record or one of its establishments).
    pub fn knows(&self, cnpj: &Cnpj) -> bool {
        self.empresas.contains_key(cnpj.basico()) || self.establishment(cnpj).is_some()
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
