//! The 14 operations of `docs/service-api.md` §4.2: their names, paths and query parameters.
//!
//! An `Operation` is already validated (it holds typed ids), so building its URL cannot fail.
//! Sending it is the client's job.

use std::fmt;

use super::ids::{AnoMes, Categoria, Cno, Cnpj, InvalidInput, Nirf, Page, Uf};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Operation {
    Empresa(Cnpj),
    Estabelecimentos(Cnpj),
    ObrasCno(Cnpj),
    Socios(Cnpj),
    DividasPgfn(Cnpj, Categoria),
    ParcelamentosRfb(Cnpj),
    TransacoesRfb(Cnpj),
    Obra(Cno),
    Vinculos(Cno),
    Cnaes(Cno),
    Areas(Cno),
    Imoveis { uf: Option<Uf>, municipio: Option<String> },
    Imovel(Nirf),
    CreditosAtivos { uf: Option<Uf>, ano_mes: Option<AnoMes> },
}

/// The name of an operation, without its arguments: the key of request accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperationKind {
    Empresa,
    Estabelecimentos,
    ObrasCno,
    Socios,
    DividasPgfn,
    ParcelamentosRfb,
    TransacoesRfb,
    Obra,
    Vinculos,
    Cnaes,
    Areas,
    Imoveis,
    Imovel,
    CreditosAtivos,
}

impl OperationKind {
    pub const ALL: [OperationKind; 14] = [
        Self::Empresa,
        Self::Estabelecimentos,
        Self::ObrasCno,
        Self::Socios,
        Self::DividasPgfn,
        Self::ParcelamentosRfb,
        Self::TransacoesRfb,
        Self::Obra,
        Self::Vinculos,
        Self::Cnaes,
        Self::Areas,
        Self::Imoveis,
        Self::Imovel,
        Self::CreditosAtivos,
    ];

    /// The name used on the command line (`fiscal-report get <name>`) and in manifests.
    pub fn name(self) -> &'static str {
        match self {
            Self::Empresa => "empresa",
            Self::Estabelecimentos => "estabelecimentos",
            Self::ObrasCno => "obras-cno",
            Self::Socios => "socios",
            Self::DividasPgfn => "dividas-pgfn",
            Self::ParcelamentosRfb => "parcelamentos-rfb",
            Self::TransacoesRfb => "transacoes-rfb",
            Self::Obra => "obra",
            Self::Vinculos => "vinculos",
            Self::Cnaes => "cnaes",
            Self::Areas => "areas",
            Self::Imoveis => "imoveis",
            Self::Imovel => "imovel",
            Self::CreditosAtivos => "creditos-ativos",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn is_list(self) -> bool {
        !matches!(self, Self::Empresa | Self::Obra | Self::Imovel)
    }

    /// What the operation's id argument is, for help and error texts.
    pub fn id_kind(self) -> Option<&'static str> {
        match self {
            Self::Empresa
            | Self::Estabelecimentos
            | Self::ObrasCno
            | Self::Socios
            | Self::DividasPgfn
            | Self::ParcelamentosRfb
            | Self::TransacoesRfb => Some("cnpj"),
            Self::Obra | Self::Vinculos | Self::Cnaes | Self::Areas => Some("cno"),
            Self::Imovel => Some("nirf"),
            Self::Imoveis | Self::CreditosAtivos => None,
        }
    }
}

impl fmt::Display for OperationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Loose arguments as a person types them, validated into an `Operation` by `Operation::build`.
#[derive(Debug, Clone, Default)]
pub struct OperationArgs {
    pub id: Option<String>,
    pub categoria: Option<String>,
    pub uf: Option<String>,
    pub municipio: Option<String>,
    pub ano_mes: Option<String>,
}

impl Operation {
    pub fn kind(&self) -> OperationKind {
        match self {
            Self::Empresa(_) => OperationKind::Empresa,
            Self::Estabelecimentos(_) => OperationKind::Estabelecimentos,
            Self::ObrasCno(_) => OperationKind::ObrasCno,
            Self::Socios(_) => OperationKind::Socios,
            Self::DividasPgfn(..) => OperationKind::DividasPgfn,
            Self::ParcelamentosRfb(_) => OperationKind::ParcelamentosRfb,
            Self::TransacoesRfb(_) => OperationKind::TransacoesRfb,
            Self::Obra(_) => OperationKind::Obra,
            Self::Vinculos(_) => OperationKind::Vinculos,
            Self::Cnaes(_) => OperationKind::Cnaes,
            Self::Areas(_) => OperationKind::Areas,
            Self::Imoveis { .. } => OperationKind::Imoveis,
            Self::Imovel(_) => OperationKind::Imovel,
            Self::CreditosAtivos { .. } => OperationKind::CreditosAtivos,
        }
    }

    /// Validates loose arguments against the rules of `docs/service-api.md` §4.1 and §4.3 for `kind`.
    pub fn build(kind: OperationKind, args: &OperationArgs) -> Result<Self, InvalidInput> {
        let id = || {
            args.id.clone().ok_or_else(|| InvalidInput {
                what: "argument",
                input: String::new(),
                rule: format!("operation {kind} needs a {} argument", kind.id_kind().unwrap_or("id")),
            })
        };
        let cnpj = || id().and_then(|s| Cnpj::parse(&s));
        let cno = || id().and_then(|s| Cno::parse(&s));
        let uf = || args.uf.as_deref().map(Uf::parse).transpose();
        Ok(match kind {
            OperationKind::Empresa => Self::Empresa(cnpj()?),
            OperationKind::Estabelecimentos => Self::Estabelecimentos(cnpj()?),
            OperationKind::ObrasCno => Self::ObrasCno(cnpj()?),
            OperationKind::Socios => Self::Socios(cnpj()?),
            OperationKind::DividasPgfn => {
                let cat = args.categoria.as_deref().map(Categoria::parse).transpose()?;
                Self::DividasPgfn(cnpj()?, cat.unwrap_or(Categoria::NaoPrevidenciario))
            }
            OperationKind::ParcelamentosRfb => Self::ParcelamentosRfb(cnpj()?),
            OperationKind::TransacoesRfb => Self::TransacoesRfb(cnpj()?),
            OperationKind::Obra => Self::Obra(cno()?),
            OperationKind::Vinculos => Self::Vinculos(cno()?),
            OperationKind::Cnaes => Self::Cnaes(cno()?),
            OperationKind::Areas => Self::Areas(cno()?),
            OperationKind::Imoveis => Self::Imoveis { uf: uf()?, municipio: args.municipio.clone() },
            OperationKind::Imovel => Self::Imovel(id().and_then(|s| Nirf::parse(&s))?),
            OperationKind::CreditosAtivos => Self::CreditosAtivos {
                uf: uf()?,
                ano_mes: args.ano_mes.as_deref().map(AnoMes::parse).transpose()?,
            },
        })
    }

    /// Path below the base URL, starting with `/v1`.
    pub fn path(&self) -> String {
        match self {
            Self::Empresa(c) => format!("/v1/cnpjs/{c}"),
            Self::Estabelecimentos(c) => format!("/v1/cnpjs/{c}/estabelecimentos"),
            Self::ObrasCno(c) => format!("/v1/cnpjs/{c}/obras-cno"),
            Self::Socios(c) => format!("/v1/cnpjs/{c}/socios"),
            Self::DividasPgfn(c, _) => format!("/v1/cnpjs/{c}/dividas-pgfn"),
            Self::ParcelamentosRfb(c) => format!("/v1/cnpjs/{c}/parcelamentos-rfb"),
            Self::TransacoesRfb(c) => format!("/v1/cnpjs/{c}/transacoes-rfb"),
            Self::Obra(c) => format!("/v1/cnos/{}", c.as_str()),
            Self::Vinculos(c) => format!("/v1/cnos/{}/vinculos", c.as_str()),
            Self::Cnaes(c) => format!("/v1/cnos/{}/cnaes", c.as_str()),
            Self::Areas(c) => format!("/v1/cnos/{}/areas", c.as_str()),
            Self::Imoveis { .. } => "/v1/cafir/imoveis".to_string(),
            Self::Imovel(n) => format!("/v1/cafir/imoveis/{}", n.as_str()),
            Self::CreditosAtivos { .. } => "/v1/rfb/creditos-ativos".to_string(),
        }
    }

    /// Query parameters, page bounds included for list operations.
    pub fn query(&self, page: Option<Page>) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        match self {
            Self::DividasPgfn(_, cat) => q.push(("categoria", cat.as_str().to_string())),
            Self::Imoveis { uf, municipio } => {
                if let Some(uf) = uf {
                    q.push(("uf", uf.to_string()));
                }
                if let Some(m) = municipio {
                    q.push(("municipio", m.clone()));
                }
            }
            Self::CreditosAtivos { uf, ano_mes } => {
                if let Some(uf) = uf {
                    q.push(("uf", uf.to_string()));
                }
                if let Some(a) = ano_mes {
                    q.push(("ano_mes", a.to_string()));
                }
            }
            _ => {}
        }
        if let Some(p) = page.filter(|_| self.kind().is_list()) {
            q.push(("limite", p.limite.to_string()));
            q.push(("offset", p.offset.to_string()));
        }
        q
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path())?;
        let q = self.query(None);
        if !q.is_empty() {
            let parts: Vec<String> = q.iter().map(|(k, v)| format!("{k}={v}")).collect();
            write!(f, "?{}", parts.join("&"))?;
        }
        Ok(())
    }
}
