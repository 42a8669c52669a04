//! Wire models for every resource of `docs/service-api.md` §2, the list envelope (§2.1) and the two
//! error bodies (§7).
//!
//! Every field is optional and unknown fields are ignored: the service states no nullability,
//! and a record with a missing or null field must still be read, never crash the run. Parsing
//! the strings inside (money, dates, codes) is the transform stage's job, not this module's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `fonte` of a list envelope, and each value of a profile's `fontes` map.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(default)]
pub struct Fonte {
    pub status: Option<String>,
    pub versao: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Paginacao {
    pub limite: Option<i64>,
    pub offset: Option<i64>,
    pub total: Option<i64>,
}

/// The list envelope (`docs/service-api.md` §2.1), generic over the item type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, bound(deserialize = "T: Deserialize<'de>"))]
pub struct Envelope<T> {
    pub fonte: Option<Fonte>,
    pub itens: Vec<T>,
    pub paginacao: Option<Paginacao>,
}

impl<T> Default for Envelope<T> {
    fn default() -> Self {
        Self { fonte: None, itens: Vec::new(), paginacao: None }
    }
}

/// Establishment (`docs/service-api.md` §2.2): head office or branch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Estabelecimento {
    pub bairro: Option<String>,
    pub cep: Option<String>,
    pub cnae_fiscal_principal: Option<String>,
    pub cnae_fiscal_secundaria: Option<String>,
    pub cnpj_basico: Option<String>,
    pub cnpj_completo: Option<String>,
    pub cnpj_dv: Option<String>,
    pub cnpj_ordem: Option<String>,
    pub complemento: Option<String>,
    pub correio_eletronico: Option<String>,
    pub data_inicio_atividade: Option<String>,
    pub data_situacao_cadastral: Option<String>,
    pub data_situacao_especial: Option<String>,
    pub dataset_month: Option<String>,
    pub ddd_1: Option<String>,
    pub ddd_2: Option<String>,
    pub ddd_fax: Option<String>,
    pub fax: Option<String>,
    pub identificador_matriz_filial: Option<String>,
    pub logradouro: Option<String>,
    pub motivo_situacao_cadastral: Option<String>,
    pub municipio: Option<String>,
    pub nome_cidade_exterior: Option<String>,
    pub nome_fantasia: Option<String>,
    pub numero: Option<String>,
    pub pais: Option<String>,
    pub situacao_cadastral: Option<String>,
    pub situacao_especial: Option<String>,
    pub telefone_1: Option<String>,
    pub telefone_2: Option<String>,
    pub tipo_logradouro: Option<String>,
    pub uf: Option<String>,
}

/// `empresa` inside the company profile (`docs/service-api.md` §2.3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Empresa {
    pub capital_social_raw: Option<String>,
    pub cnpj_basico: Option<String>,
    pub dataset_month: Option<String>,
    pub ente_federativo_responsavel: Option<String>,
    pub natureza_juridica: Option<String>,
    pub porte_empresa: Option<String>,
    pub qualificacao_responsavel: Option<String>,
    pub razao_social: Option<String>,
}

/// `simples` inside the company profile (`docs/service-api.md` §2.3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Simples {
    pub cnpj_basico: Option<String>,
    pub data_exclusao_mei: Option<String>,
    pub data_exclusao_simples: Option<String>,
    pub data_opcao_mei: Option<String>,
    pub data_opcao_simples: Option<String>,
    pub dataset_month: Option<String>,
    pub opcao_pelo_mei: Option<String>,
    pub opcao_pelo_simples: Option<String>,
}

/// A value of the profile's `resumos` map.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Resumo {
    pub href: Option<String>,
    pub total: Option<i64>,
    pub valor_total: Option<String>,
}

/// Company profile (`docs/service-api.md` §2.3), the response of operation 1.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompanyProfile {
    pub cnpj: Option<String>,
    pub empresa: Option<Empresa>,
    pub estabelecimento: Option<Estabelecimento>,
    pub simples: Option<Simples>,
    pub fontes: Option<BTreeMap<String, Fonte>>,
    pub resumos: Option<BTreeMap<String, Resumo>>,
    pub snapshot_fingerprint: Option<String>,
}

/// Partner (`docs/service-api.md` §2.4).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Socio {
    pub cnpj_basico: Option<String>,
    pub cnpj_cpf_socio: Option<String>,
    pub data_entrada_sociedade: Option<String>,
    pub dataset_month: Option<String>,
    pub faixa_etaria: Option<String>,
    pub identificador_socio: Option<String>,
    pub nome_representante: Option<String>,
    pub nome_socio_razao_social: Option<String>,
    pub pais: Option<String>,
    pub qualificacao_representante_legal: Option<String>,
    pub qualificacao_socio: Option<String>,
    pub representante_legal: Option<String>,
}

/// Construction work (`docs/service-api.md` §2.5).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Obra {
    pub data_inicio: Option<String>,
    pub data_inicio_responsabilidade: Option<String>,
    pub data_registro: Option<String>,
    pub data_situacao: Option<String>,
    pub area_total: Option<String>,
    pub bairro: Option<String>,
    pub caixa_postal: Option<String>,
    pub cep: Option<String>,
    pub cno: Option<String>,
    pub cno_vinculado: Option<String>,
    pub codigo_localizacao: Option<String>,
    pub codigo_municipio: Option<String>,
    pub codigo_pais: Option<String>,
    pub complemento: Option<String>,
    pub estado: Option<String>,
    pub logradouro: Option<String>,
    pub ni_responsavel: Option<String>,
    pub nome: Option<String>,
    pub nome_empresarial: Option<String>,
    pub nome_municipio: Option<String>,
    pub nome_pais: Option<String>,
    pub numero_logradouro: Option<String>,
    pub qualificacao_responsavel: Option<String>,
    pub situacao: Option<String>,
    pub tipo_logradouro: Option<String>,
    pub unidade_medida: Option<String>,
}

/// Work link (`docs/service-api.md` §2.6).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Vinculo {
    pub data_fim: Option<String>,
    pub data_inicio: Option<String>,
    pub data_registro: Option<String>,
    pub cno: Option<String>,
    pub ni_responsavel: Option<String>,
    pub qualificacao_contribuinte: Option<String>,
}

/// Work CNAE (`docs/service-api.md` §2.7).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ObraCnae {
    pub cnae: Option<String>,
    pub cno: Option<String>,
    pub data_registro: Option<String>,
}

/// Work area (`docs/service-api.md` §2.8).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ObraArea {
    pub categoria_raw: Option<String>,
    pub cno: Option<String>,
    pub destinacao_raw: Option<String>,
    pub metragem: Option<String>,
    pub tipo_area_complementar_raw: Option<String>,
    pub tipo_area_raw: Option<String>,
    pub tipo_obra_raw: Option<String>,
}

/// Rural property (`docs/service-api.md` §2.9).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImovelRural {
    pub data_atualizacao_cadastro: Option<String>,
    pub parte_arquivo: Option<i64>,
    pub area_total_hectares: Option<String>,
    pub cep: Option<String>,
    pub codigo_imovel_incra: Option<String>,
    pub codigo_lote: Option<String>,
    pub codigo_sncr: Option<String>,
    pub data_atualizacao_raw: Option<String>,
    pub distrito: Option<String>,
    pub imune_isento: Option<String>,
    pub logradouro: Option<String>,
    pub municipio: Option<String>,
    pub nirf: Option<String>,
    pub nome_imovel_rural: Option<String>,
    pub situacao_imovel: Option<String>,
    pub uf: Option<String>,
    pub uf_arquivo: Option<String>,
}

/// Active-debt registration (`docs/service-api.md` §2.10).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DividaPgfn {
    pub cpf_cnpj: Option<String>,
    pub data_inscricao: Option<String>,
    pub dataset_trimester: Option<String>,
    pub entidade_responsavel: Option<String>,
    pub indicador_ajuizado: Option<String>,
    pub nome_devedor: Option<String>,
    pub numero_inscricao: Option<String>,
    pub receita_principal: Option<String>,
    pub situacao_inscricao: Option<String>,
    pub tipo_credito: Option<String>,
    pub tipo_devedor: Option<String>,
    pub tipo_pessoa: Option<String>,
    pub tipo_situacao_inscricao: Option<String>,
    /// The debtor's state, which PGFN's files carry from 2022 Q4 (`UF_DEVEDOR`) in place of the
    /// unit's; the service does not send it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uf_devedor: Option<String>,
    pub uf_unidade_responsavel: Option<String>,
    pub unidade_inscricao: Option<String>,
    pub unidade_responsavel: Option<String>,
    pub valor_consolidado: Option<String>,
}

/// Tax instalment plan (`docs/service-api.md` §2.11).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ParcelamentoRfb {
    pub adesao_deferimento: Option<String>,
    pub quantidade_parcelas: Option<i64>,
    pub cnae: Option<String>,
    pub cpf_cnpj: Option<String>,
    pub municipio: Option<String>,
    pub nome: Option<String>,
    pub porte: Option<String>,
    pub saldo_devedor: Option<String>,
    pub tipo_pessoa: Option<String>,
    pub uf: Option<String>,
    pub valor_parcelado: Option<String>,
}

/// Tax transaction (`docs/service-api.md` §2.12).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TransacaoRfb {
    pub data_negociacao: Option<String>,
    pub contribuinte: Option<String>,
    pub cpf_cnpj: Option<String>,
    pub creditos_pf_bcn: Option<String>,
    pub divida_com_reducao: Option<String>,
    pub divida_transacionada: Option<String>,
    pub memorial: Option<String>,
    pub processo: Option<String>,
    pub reducao: Option<String>,
    pub saldo_devedor: Option<String>,
}

/// Aggregated active credit (`docs/service-api.md` §2.13).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CreditoAtivo {
    pub ano_mes: Option<String>,
    pub cnae_secao_cod: Option<String>,
    pub cnae_secao_descr: Option<String>,
    pub grupo_tributo: Option<String>,
    pub natureza_juridica: Option<String>,
    pub situacao: Option<String>,
    pub tipo_contribuinte: Option<String>,
    pub uf: Option<String>,
    pub valor_total: Option<String>,
}

/// `{detail: string}` error body (`docs/service-api.md` §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DetailBody {
    pub detail: String,
}

/// One entry of the validation error body (`docs/service-api.md` §7).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ValidationIssue {
    pub loc: Vec<serde_json::Value>,
    pub msg: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub input: serde_json::Value,
    pub ctx: Option<serde_json::Value>,
}

impl ValidationIssue {
    /// `query.limite`, `path.cnpj`: the dotted location for humans.
    pub fn location(&self) -> String {
        self.loc
            .iter()
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".")
    }
}

/// `{detail: [ValidationIssue]}` error body (`docs/service-api.md` §7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationBody {
    pub detail: Vec<ValidationIssue>,
}
