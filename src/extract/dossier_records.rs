//! Everything the source knows of one company, for its dossier: the profile, its
//! establishments, partners and construction works (each work with its links, CNAEs and
//! areas), its active debts in the three categorias, instalment plans and transactions.
//!
//! It owns walking those lists to the end for a handful of companies, from the same source as
//! the monthly fetch (the service through its pool: retries, rate limit, accounting; or the
//! release's files); a 404 on a list of a company whose profile exists reads as empty. Typing
//! and showing them is for later stages.

use futures::future::try_join_all;

use crate::api::models::{
    CompanyProfile, DividaPgfn, Estabelecimento, Obra, ObraArea, ObraCnae, ParcelamentoRfb, Socio,
    TransacaoRfb, Vinculo,
};
use crate::api::{ApiError, Categoria, Cno, Cnpj, Operation};
use crate::extract::records::{Paged, Records};

/// Pages of one list fetched at once (the dossier's lists are short; its companies run side by side).
const PAGES_IN_FLIGHT: usize = 2;

/// A construction work and its details (operations 8 to 11).
#[derive(Debug, Clone, Default)]
pub(crate) struct WorkRecords {
    pub obra: Obra,
    pub vinculos: Vec<Vinculo>,
    pub cnaes: Vec<ObraCnae>,
    pub areas: Vec<ObraArea>,
}

/// One company's records as the service sent them.
#[derive(Debug, Clone)]
pub(crate) struct DossierRecords {
    pub cnpj: Cnpj,
    pub profile: CompanyProfile,
    pub estabelecimentos: Vec<Estabelecimento>,
    pub socios: Vec<Socio>,
    pub obras: Vec<WorkRecords>,
    /// Each categoria's registrations, in `Categoria::ALL` order.
    pub dividas: Vec<(Categoria, Vec<DividaPgfn>)>,
    pub parcelamentos: Vec<ParcelamentoRfb>,
    pub transacoes: Vec<TransacaoRfb>,
}

async fn list<T: Paged>(f: &Records, op: Operation) -> Result<Vec<T>, ApiError> {
    let walk = match f.list(&op, PAGES_IN_FLIGHT, None).await {
        // The company exists (its profile was read): a list it lacks holds nothing.
        Err(ApiError::NotFound { .. }) => {
            tracing::warn!("{}: 404 for a company whose profile exists; read as empty", op.path());
            return Ok(Vec::new());
        }
        other => other?,
    };
    for w in &walk.warnings {
        tracing::warn!("{w}");
    }
    Ok(walk.items)
}

async fn work(client: &Records, obra: Obra) -> Result<WorkRecords, ApiError> {
    let Some(cno) = obra.cno.as_deref().and_then(|c| Cno::parse(c).ok()) else {
        return Ok(WorkRecords { obra, ..Default::default() });
    };
    let (vinculos, cnaes, areas) = futures::try_join!(
        list(client, Operation::Vinculos(cno.clone())),
        list(client, Operation::Cnaes(cno.clone())),
        list(client, Operation::Areas(cno.clone())),
    )?;
    Ok(WorkRecords { obra, vinculos, cnaes, areas })
}

/// Fetches every record of `cnpj` a dossier shows. A company the service does not know is
/// `ApiError::NotFound` (from its profile).
pub(crate) async fn fetch_dossier(client: &Records, cnpj: &Cnpj) -> Result<DossierRecords, ApiError> {
    let profile: CompanyProfile = client.profile(cnpj, None).await?;
    let dividas = try_join_all(
        Categoria::ALL
            .into_iter()
            .map(|c| list::<DividaPgfn>(client, Operation::DividasPgfn(cnpj.clone(), c))),
    );
    let (estabelecimentos, socios, obras, dividas, parcelamentos, transacoes) = futures::try_join!(
        list(client, Operation::Estabelecimentos(cnpj.clone())),
        list(client, Operation::Socios(cnpj.clone())),
        list::<Obra>(client, Operation::ObrasCno(cnpj.clone())),
        dividas,
        list(client, Operation::ParcelamentosRfb(cnpj.clone())),
        list(client, Operation::TransacoesRfb(cnpj.clone())),
    )?;
    let obras = try_join_all(obras.into_iter().map(|o| work(client, o))).await?;
    Ok(DossierRecords {
        cnpj: cnpj.clone(),
        profile,
        estabelecimentos,
        socios,
        obras,
        dividas: Categoria::ALL.into_iter().zip(dividas).collect(),
        parcelamentos,
        transacoes,
    })
}
