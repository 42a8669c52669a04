//! The one source contract: where a company's records come from. Either the service, through
//! the pool (`PageFetcher`: pages, retries, accounting), or a release's files as they were read
//! for the portfolio (`Published`), handed over as the same models with no request, no page and
//! no JSON. With a service beside the files, the service answers what the files do not carry
//! (instalment plans, settlements, works, credits); without one, those lists are empty and
//! their `fonte` says `ausente`, so the report says which sections the files could not fill.
//!
//! What is done with the records (staging them, a dossier) is the caller's.

use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::accounting::Accounting;
use super::pool::PageFetcher;
use crate::api::models::{
    CompanyProfile, DividaPgfn, Estabelecimento, Fonte, Obra, ObraArea, ObraCnae, ParcelamentoRfb, Socio,
    TransacaoRfb, Vinculo,
};
use crate::api::paginate::{Walk, walk_pages};
use crate::api::published::Published;
use crate::api::shape::ShapeLog;
use crate::api::{ApiError, Cnpj, Operation, Page};

/// A record type a company's list holds, and whether the publishers' files carry it.
pub(crate) trait Paged: DeserializeOwned + Send {
    /// The `fonte` key that dates the list (`pgfn`, `cnpj`, `rfb`, `cno`).
    const FONTE: &'static str;

    /// The records of `op` the files hold for its company (`Ok(None)`: the files do not know
    /// the company); `None` when the files do not carry this list at all.
    fn from_files(
        _files: &Published,
        _op: &Operation,
    ) -> Option<Result<Option<Vec<Self>>, serde_json::Error>> {
        None
    }
}

impl Paged for DividaPgfn {
    const FONTE: &'static str = "pgfn";
    fn from_files(files: &Published, op: &Operation) -> Option<Result<Option<Vec<Self>>, serde_json::Error>> {
        match op {
            Operation::DividasPgfn(cnpj, categoria) => Some(files.dividas_of(cnpj, *categoria)),
            _ => None,
        }
    }
}

impl Paged for Socio {
    const FONTE: &'static str = "cnpj";
    fn from_files(files: &Published, op: &Operation) -> Option<Result<Option<Vec<Self>>, serde_json::Error>> {
        match op {
            Operation::Socios(cnpj) => Some(files.socios_of(cnpj)),
            _ => None,
        }
    }
}

impl Paged for Estabelecimento {
    const FONTE: &'static str = "cnpj";
    fn from_files(files: &Published, op: &Operation) -> Option<Result<Option<Vec<Self>>, serde_json::Error>> {
        match op {
            Operation::Estabelecimentos(cnpj) => Some(files.estabelecimentos_of(cnpj)),
            _ => None,
        }
    }
}

// What no published layout holds: the service's alone.
impl Paged for ParcelamentoRfb {
    const FONTE: &'static str = "rfb";
}
impl Paged for TransacaoRfb {
    const FONTE: &'static str = "rfb";
}
impl Paged for Obra {
    const FONTE: &'static str = "cno";
}
impl Paged for Vinculo {
    const FONTE: &'static str = "cno";
}
impl Paged for ObraCnae {
    const FONTE: &'static str = "cno";
}
impl Paged for ObraArea {
    const FONTE: &'static str = "cno";
}

/// Where a run's company records come from (see the module's doc).
pub struct Records {
    accounting: Arc<Accounting>,
    service: Option<PageFetcher>,
    files: Option<Published>,
}

impl Records {
    /// The service alone, through `pool`.
    pub fn service(pool: PageFetcher) -> Self {
        Self { accounting: pool.accounting.clone(), service: Some(pool), files: None }
    }

    /// A release's files; `beside`, a service that answers what they do not carry (it dates
    /// what it sends, so the files then claim only their own sources).
    pub fn files(mut files: Published, beside: Option<PageFetcher>, accounting: Arc<Accounting>) -> Self {
        if beside.is_some() {
            files.fontes.retain(|key, _| key == "pgfn" || key == "cnpj");
        }
        Self { accounting, service: beside, files: Some(files) }
    }

    /// Lets go of the files' rows once nothing later in the run reads them: they are the
    /// largest thing a run over the files holds (about 1.7 GB at 500,000 companies), and the
    /// analysis would otherwise hold them beside its own tables. The service, when there is
    /// one, still answers.
    pub fn forget_files(&mut self) {
        if let Some(files) = &mut self.files {
            files.forget_rows();
        }
    }

    /// Every request sent and record handed over, this run.
    pub fn accounting(&self) -> &Arc<Accounting> {
        &self.accounting
    }

    /// The service's pool, where there is a service: the credits and the month probe need it.
    pub fn pool(&self) -> Option<&PageFetcher> {
        self.service.as_ref()
    }

    /// How many companies' records to ask for at once: the pool's most requests in flight,
    /// or 1 over the files alone (reading them back costs no wait).
    pub fn in_flight_ceiling(&self) -> usize {
        self.service.as_ref().map_or(1, PageFetcher::in_flight_ceiling)
    }

    /// Operation 1: the company's profile; `ApiError::NotFound` when the source does not know it.
    pub(crate) async fn profile(
        &self,
        cnpj: &Cnpj,
        shapes: Option<&ShapeLog>,
    ) -> Result<CompanyProfile, ApiError> {
        let op = Operation::Empresa(cnpj.clone());
        if let Some(files) = &self.files {
            return from_files(files.profile(cnpj), &op);
        }
        let pool = self.service_for(&op)?;
        match shapes {
            Some(shapes) => pool.one_checked(&op, shapes).await,
            None => pool.one(&op).await,
        }
    }

    /// A company's list `op`, walked to its end (`fan_out` pages at once): from the files
    /// where they carry it, else from the service, else empty and `ausente`.
    pub(crate) async fn list<T: Paged>(
        &self,
        op: &Operation,
        fan_out: usize,
        shapes: Option<&ShapeLog>,
    ) -> Result<Walk<T>, ApiError> {
        if let Some(files) = &self.files {
            if let Some(answer) = T::from_files(files, op) {
                let items = from_files(answer, op)?;
                return Ok(handed_over(items, fonte(files, T::FONTE)));
            }
            if self.service.is_none() {
                return Ok(handed_over(Vec::new(), fonte(files, T::FONTE)));
            }
        }
        let pool = self.service_for(op)?;
        walk_pages(op.kind().name(), fan_out, |p: Page| async move {
            match shapes {
                Some(shapes) => pool.page_checked::<T>(op, p, shapes).await,
                None => pool.page::<T>(op, p).await,
            }
        })
        .await
    }

    fn service_for(&self, op: &Operation) -> Result<&PageFetcher, ApiError> {
        self.service.as_ref().ok_or_else(|| ApiError::NotFound {
            path: op.path(),
            detail: "no service to ask: the run reads the publishers' files alone".to_string(),
        })
    }
}

/// What the files hold for `op`'s company, or the service's 404 when they do not know it.
fn from_files<T>(answer: Result<Option<T>, serde_json::Error>, op: &Operation) -> Result<T, ApiError> {
    match answer {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(ApiError::NotFound {
            path: op.path(),
            detail: "the release's files hold no such company".to_string(),
        }),
        // Cannot happen: the published models' fields are all optional text.
        Err(e) => Err(ApiError::InvalidBody {
            path: op.path(),
            reason: format!("a published row does not fit its model: {e}"),
            excerpt: String::new(),
        }),
    }
}

/// Records handed over whole, with no page asked.
fn handed_over<T>(items: Vec<T>, fonte: Fonte) -> Walk<T> {
    Walk { total: items.len() as u64, items, fonte: Some(fonte), pages: 0, warnings: Vec::new() }
}

/// The files' `fonte` for `key`, `ausente` where the release has no such dataset.
fn fonte(files: &Published, key: &str) -> Fonte {
    files.fontes.get(key).cloned().unwrap_or_else(|| Fonte { status: Some("ausente".into()), versao: None })
}
