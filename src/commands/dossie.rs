//! `fiscal-report dossie CNPJ...`: one dossier per company, fetched whole and rendered into
//! DIR/dossies/ (`pipeline::dossie`).

use anyhow::Result;

use crate::cli::DossieArgs;
use crate::config::DossieSettings;
use crate::exit::ExitStatus;

pub(super) async fn dossie(args: DossieArgs) -> Result<ExitStatus> {
    crate::pipeline::dossie::dossie(DossieSettings::resolve(&args)?).await
}
