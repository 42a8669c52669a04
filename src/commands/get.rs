//! `fiscal-report get`: one operation's JSON, for ad-hoc lookups.

use anyhow::Result;
use std::io::Write;

use crate::api::paginate::walk_pages;
use crate::api::{Operation, OperationArgs, OperationKind, Page};
use crate::cli::GetArgs;
use crate::config::SourceSettings;
use crate::exit::{Classified, ExitStatus};

pub(super) async fn get(args: GetArgs) -> Result<ExitStatus> {
    let kind = OperationKind::from_name(&args.operation).ok_or_else(|| {
        let names: Vec<&str> = OperationKind::ALL.iter().map(|k| k.name()).collect();
        Classified::new(
            ExitStatus::BadInput,
            format!("unknown operation {:?}; choose one of: {}", args.operation, names.join(", ")),
        )
    })?;
    let op = Operation::build(
        kind,
        &OperationArgs {
            id: args.id.clone(),
            categoria: args.categoria.clone(),
            uf: args.uf.clone(),
            municipio: args.municipio.clone(),
            ano_mes: args.ano_mes.clone(),
        },
    )?;
    let page = if kind.is_list() {
        Some(Page::new(args.limite.unwrap_or(20), args.offset.unwrap_or(0))?)
    } else {
        None
    };
    let source = crate::pipeline::source::open(&SourceSettings::from_service_args(&args.service)).await?;
    let client = &source.client;
    let value: serde_json::Value = if args.all && kind.is_list() {
        let walk = walk_pages(kind.name(), 8, |p| {
            let (client, op) = (&client, &op);
            async move { client.get_page::<serde_json::Value>(op, p).await }
        })
        .await?;
        for w in &walk.warnings {
            tracing::warn!("{w}");
        }
        serde_json::json!({
            "fonte": walk.fonte,
            "itens": walk.items,
            "paginacao": { "limite": Page::MAX_LIMITE, "offset": 0, "total": walk.total },
        })
    } else {
        let body = client.get_raw(&op, page).await?;
        crate::api::client::decode(&body.bytes, &op.path())?
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &value)?;
    writeln!(out)?;
    Ok(ExitStatus::Ok)
}
