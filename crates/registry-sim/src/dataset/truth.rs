//! Ground-truth summaries that tests and the end-to-end check compare a client's output
//! against: per (month, UF) credit totals for the whole dataset, and per-company record
//! counts and exact cent sums for a portfolio. Computed from the generators' cents, never
//! by parsing the rendered strings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Dataset;
use super::company::Core;
use super::debts::{DebtRow, Priced, dividas, parcelamentos, transacoes};
use registry_api::ids::{Categoria, Cnpj, UFS};

/// Whole-dataset summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Truth {
    pub seed: u64,
    pub scale: f64,
    /// The month the data stands at (`serve --as-of`; the latest month by default).
    pub as_of: String,
    /// `AAAAMM`, ascending, up to `as_of`.
    pub months: Vec<String>,
    pub companies: usize,
    pub imoveis: usize,
    /// One entry per (month, UF), months ascending then UFs in `UFS` order.
    pub credits: Vec<CreditCellTruth>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreditCellTruth {
    pub ano_mes: String,
    pub uf: String,
    pub rows: usize,
    pub total_cents: i64,
}

/// Truth for a list of CNPJs, in the order given (duplicates repeated).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortfolioTruth {
    pub found: usize,
    pub not_found: usize,
    pub companies: Vec<CompanyTruth>,
}

/// What operations 2-7 return for one CNPJ (all zero when `found` is false).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompanyTruth {
    pub cnpj: String,
    pub found: bool,
    pub estabelecimentos: usize,
    pub socios: usize,
    pub obras: usize,
    /// Keyed by `Categoria::as_str()`; all three keys always present.
    pub dividas: BTreeMap<String, DebtTruth>,
    pub parcelamentos: MoneyTruth,
    pub transacoes: MoneyTruth,
}

/// Sums of `valor_consolidado` split by `indicador_ajuizado`; records whose value is blank or
/// `null` are counted in `unparseable` only (not in the SIM/NAO counts or sums).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebtTruth {
    pub records: usize,
    pub ajuizado_sim: usize,
    pub ajuizado_nao: usize,
    pub ajuizado_sim_cents: i64,
    pub ajuizado_nao_cents: i64,
    pub unparseable: usize,
}

/// Sum of `saldo_devedor` over the parseable records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoneyTruth {
    pub records: usize,
    pub saldo_devedor_cents: i64,
    pub unparseable: usize,
}

impl MoneyTruth {
    pub(super) fn of<T>(rows: &[Priced<T>]) -> MoneyTruth {
        let mut t = MoneyTruth { records: rows.len(), ..MoneyTruth::default() };
        for r in rows {
            match r.cents {
                Some(c) => t.saldo_devedor_cents += c,
                None => t.unparseable += 1,
            }
        }
        t
    }
}

pub(super) fn debt_truth(ds: &Dataset, core: &Core, categoria: Categoria) -> DebtTruth {
    debt_truth_of(&dividas(ds, core, categoria))
}

pub(super) fn debt_truth_of(rows: &[DebtRow]) -> DebtTruth {
    let mut t = DebtTruth { records: rows.len(), ..DebtTruth::default() };
    for r in rows {
        match (r.priced.cents, r.ajuizado) {
            (None, _) => t.unparseable += 1,
            (Some(c), true) => {
                t.ajuizado_sim += 1;
                t.ajuizado_sim_cents += c;
            }
            (Some(c), false) => {
                t.ajuizado_nao += 1;
                t.ajuizado_nao_cents += c;
            }
        }
    }
    t
}

fn company_truth(ds: &Dataset, cnpj: &Cnpj) -> CompanyTruth {
    let mut t = CompanyTruth {
        cnpj: cnpj.as_str().to_string(),
        found: false,
        estabelecimentos: 0,
        socios: 0,
        obras: 0,
        dividas: Categoria::ALL.iter().map(|c| (c.as_str().to_string(), DebtTruth::default())).collect(),
        parcelamentos: MoneyTruth::default(),
        transacoes: MoneyTruth::default(),
    };
    let Some(index) = ds.company_index(cnpj) else {
        return t;
    };
    let core = Core::generate(ds, index);
    t.found = true;
    t.estabelecimentos = core.branches as usize + 1;
    t.socios = core.socios as usize;
    t.obras = core.obras as usize;
    for c in Categoria::ALL {
        t.dividas.insert(c.as_str().to_string(), debt_truth(ds, &core, c));
    }
    t.parcelamentos = MoneyTruth::of(&parcelamentos(ds, &core));
    t.transacoes = MoneyTruth::of(&transacoes(ds, &core));
    t
}

/// One company's records as they stand at the as-of month, in cents: what the changes between
/// two months are checked against. Keys are the records' own identifiers as published
/// (`numero_inscricao`, `processo`; a plan's `adesao_deferimento` and `valor_parcelado`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordsTruth {
    pub razao_social: Option<String>,
    pub situacao_cadastral: Option<String>,
    pub opcao_pelo_simples: Option<String>,
    pub opcao_pelo_mei: Option<String>,
    /// The share capital in cents, `None` when the record's text is not an amount.
    #[serde(default)]
    pub capital_cents: Option<i64>,
    /// The head office's main CNAE, as published.
    #[serde(default)]
    pub cnae_principal: Option<String>,
    /// The head office's municipality, as published.
    #[serde(default)]
    pub municipio: Option<String>,
    /// The reason of the cadastral situation (code), as published.
    #[serde(default)]
    pub motivo_situacao: Option<String>,
    /// Legal nature and size codes, as published.
    #[serde(default)]
    pub natureza_juridica: Option<String>,
    #[serde(default)]
    pub porte_empresa: Option<String>,
    /// The head office's secondary CNAEs, comma-separated as published.
    #[serde(default)]
    pub cnaes_secundarios: Option<String>,
    /// The head office's CEP and street address (`tipo_logradouro`, `logradouro`, `numero`,
    /// `complemento`), as published.
    #[serde(default)]
    pub cep: Option<String>,
    #[serde(default)]
    pub endereco: Vec<String>,
    pub dividas: BTreeMap<String, DebtRecordTruth>,
    /// `adesao_deferimento|valor_parcelado` -> saldo_devedor in cents.
    pub parcelamentos: BTreeMap<String, Option<i64>>,
    /// `processo` -> saldo_devedor in cents.
    pub transacoes: BTreeMap<String, Option<i64>>,
    /// `cnpj_cpf_socio nome_socio_razao_social` -> (name, `data_entrada_sociedade`,
    /// `qualificacao_socio`), as published.
    #[serde(default)]
    pub socios: BTreeMap<String, (String, String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebtRecordTruth {
    pub categoria: String,
    /// As published: `PRINCIPAL`, `CORRESPONSAVEL` or `SOLIDARIO`.
    pub tipo_devedor: Option<String>,
    pub valor_cents: Option<i64>,
    pub situacao_inscricao: Option<String>,
    pub tipo_situacao_inscricao: Option<String>,
    pub ajuizado: bool,
}

pub(super) fn records(ds: &Dataset, cnpj: &Cnpj) -> Option<RecordsTruth> {
    let profile = ds.profile(cnpj)?;
    let core = Core::generate(ds, ds.company_index(cnpj)?);
    let mut dividas_by_numero = BTreeMap::new();
    for c in Categoria::ALL {
        for r in dividas(ds, &core, c) {
            let d = DebtRecordTruth {
                categoria: c.as_str().to_string(),
                tipo_devedor: r.priced.item.tipo_devedor.clone(),
                valor_cents: r.priced.cents,
                situacao_inscricao: r.priced.item.situacao_inscricao.clone(),
                tipo_situacao_inscricao: r.priced.item.tipo_situacao_inscricao.clone(),
                ajuizado: r.ajuizado,
            };
            dividas_by_numero.insert(r.priced.item.numero_inscricao.clone().unwrap_or_default(), d);
        }
    }
    let plan_key = |p: &registry_api::models::ParcelamentoRfb| {
        format!(
            "{}|{}",
            p.adesao_deferimento.as_deref().unwrap_or(""),
            p.valor_parcelado.as_deref().unwrap_or("")
        )
    };
    Some(RecordsTruth {
        razao_social: profile.empresa.as_ref().and_then(|e| e.razao_social.clone()),
        situacao_cadastral: profile.estabelecimento.as_ref().and_then(|e| e.situacao_cadastral.clone()),
        opcao_pelo_simples: profile.simples.as_ref().and_then(|s| s.opcao_pelo_simples.clone()),
        opcao_pelo_mei: profile.simples.as_ref().and_then(|s| s.opcao_pelo_mei.clone()),
        capital_cents: {
            let cents = super::history::capital_cents(ds, &core);
            let raw = profile.empresa.as_ref().and_then(|e| e.capital_social_raw.as_deref());
            (raw == Some(super::text::money_comma(cents).as_str())).then_some(cents)
        },
        cnae_principal: profile.estabelecimento.as_ref().and_then(|e| e.cnae_fiscal_principal.clone()),
        municipio: profile.estabelecimento.as_ref().and_then(|e| e.municipio.clone()),
        motivo_situacao: profile.estabelecimento.as_ref().and_then(|e| e.motivo_situacao_cadastral.clone()),
        natureza_juridica: profile.empresa.as_ref().and_then(|e| e.natureza_juridica.clone()),
        porte_empresa: profile.empresa.as_ref().and_then(|e| e.porte_empresa.clone()),
        cnaes_secundarios: profile.estabelecimento.as_ref().and_then(|e| e.cnae_fiscal_secundaria.clone()),
        cep: profile.estabelecimento.as_ref().and_then(|e| e.cep.clone()),
        endereco: profile
            .estabelecimento
            .as_ref()
            .map(|e| {
                [&e.tipo_logradouro, &e.logradouro, &e.numero, &e.complemento]
                    .map(|v| v.clone().unwrap_or_default())
                    .to_vec()
            })
            .unwrap_or_default(),
        dividas: dividas_by_numero,
        parcelamentos: parcelamentos(ds, &core).iter().map(|p| (plan_key(&p.item), p.cents)).collect(),
        transacoes: transacoes(ds, &core)
            .iter()
            .map(|t| (t.item.processo.clone().unwrap_or_default(), t.cents))
            .collect(),
        socios: super::registry::socios(ds, &core)
            .into_iter()
            .map(|s| {
                let (doc, nome) =
                    (s.cnpj_cpf_socio.unwrap_or_default(), s.nome_socio_razao_social.unwrap_or_default());
                let (entrada, qualificacao) =
                    (s.data_entrada_sociedade.unwrap_or_default(), s.qualificacao_socio.unwrap_or_default());
                (format!("{doc} {nome}"), (nome, entrada, qualificacao))
            })
            .collect(),
    })
}

pub(super) fn portfolio(ds: &Dataset, cnpjs: &[Cnpj]) -> PortfolioTruth {
    let companies: Vec<CompanyTruth> = cnpjs.iter().map(|c| company_truth(ds, c)).collect();
    let found = companies.iter().filter(|c| c.found).count();
    PortfolioTruth { found, not_found: companies.len() - found, companies }
}

pub(super) fn truth(ds: &Dataset) -> Truth {
    let mut credits = Vec::with_capacity(ds.months().len() * UFS.len());
    for (m, month) in ds.months().iter().enumerate() {
        for (u, uf) in UFS.iter().enumerate() {
            let cell = ds.credits.cell(m, u);
            credits.push(CreditCellTruth {
                ano_mes: month.to_string(),
                uf: uf.to_string(),
                rows: ds.credits.cell_rows(cell),
                total_cents: ds.credits.published_total(cell, ds.preliminary_month()),
            });
        }
    }
    Truth {
        seed: ds.seed,
        scale: ds.scale,
        as_of: ds.latest_month().to_string(),
        months: ds.months().iter().map(ToString::to_string).collect(),
        companies: ds.companies,
        imoveis: ds.rural.len(),
        credits,
    }
}
