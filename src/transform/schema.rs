//! The typed tables: every output column, the staged column it comes from, its kind and its
//! meaning. This list is the single source of the frames' schemas (and of the data dictionary).
//!
//! Converting values is `frames`'s job; this module only declares.

use crate::tables::Table;

/// How a column is derived from its staged text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Text as sent (trimmed; blank becomes null).
    Text,
    /// Codes compared across tables: trimmed and upper-cased.
    Code,
    /// A value of a vocabulary (a situation, a tax group): spellings that differ only in case,
    /// accents or spacing (`Em cobrança`, `EM COBRANCA`) become one, shown as a person writes it,
    /// so aggregates group them; `<column>_original` keeps the published text. Only for closed
    /// vocabularies: folding accents would also merge words that differ by one (`país`/`pais`).
    Vocab,
    /// A debtor's role in an inscription: `PRINCIPAL`, `CORRESPONSAVEL` or `SOLIDARIO` from any
    /// published spelling (`Principal`, `Co-responsável`); another role is kept folded to
    /// upper case without accents and counted as a data-quality failure.
    DebtorRole,
    /// A state: two-letter code, also from spelled-out names (`SAO PAULO`).
    Uf,
    /// Money: Decimal(18,2) from any form in `docs/domain.md`, "Number and date forms a client must expect".
    Money,
    /// A calendar date from `YYYY-MM-DD`, `DD/MM/YYYY` or `YYYYMMDD`.
    Date,
    /// A whole number.
    Int,
    /// `AAAAMM` as Date (first day of the month).
    AnoMesDate,
    /// The `AAAAMM` before this one: lets month-over-month be a plain equi-join in any engine.
    AnoMesPrevious,
    /// The same month a year before: year-over-year as a plain equi-join.
    AnoMesYearAgo,
    /// The CNAE section letter of a 7-digit CNAE.
    CnaeSection,
    /// The CNAE section's name.
    CnaeSectionName,
}

impl Kind {
    /// Kinds whose failures keep the text in a `<column>_raw` column and count as data quality.
    pub(crate) fn keeps_raw(self) -> bool {
        matches!(self, Self::Money | Self::Date | Self::Int | Self::Uf)
    }

    /// Kinds that keep the published text in `<column>_original` beside the value they group.
    pub(crate) fn keeps_original(self) -> bool {
        self == Self::Vocab
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct ColumnSpec {
    pub name: &'static str,
    pub source: &'static str,
    pub kind: Kind,
    pub meaning: &'static str,
}

const fn col(name: &'static str, source: &'static str, kind: Kind, meaning: &'static str) -> ColumnSpec {
    ColumnSpec { name, source, kind, meaning }
}

use Kind::*;

const CREDITOS: &[ColumnSpec] = &[
    col("ano_mes", "ano_mes", Text, "Reference month (competência), AAAAMM"),
    col("ano_mes_data", "ano_mes", AnoMesDate, "Reference month as the date of its first day"),
    col(
        "ano_mes_anterior",
        "ano_mes",
        AnoMesPrevious,
        "The month before ano_mes, AAAAMM (for month-over-month joins)",
    ),
    col(
        "ano_mes_ano_anterior",
        "ano_mes",
        AnoMesYearAgo,
        "The same month a year before, AAAAMM (for year-over-year joins)",
    ),
    col("uf", "uf", Uf, "State (UF) of the taxpayers"),
    col("cnae_secao_cod", "cnae_secao_cod", Code, "CNAE 2.x section letter"),
    col("cnae_secao_descr", "cnae_secao_descr", Vocab, "CNAE section name"),
    col("grupo_tributo", "grupo_tributo", Vocab, "Tax group (IRPJ, CSLL, COFINS, ...)"),
    col("natureza_juridica", "natureza_juridica", Code, "Legal nature code"),
    col("situacao", "situacao", Vocab, "Collection status of the credits"),
    col("tipo_contribuinte", "tipo_contribuinte", Code, "PF (person) or PJ (company)"),
    col("valor_total", "valor_total", Money, "Active credits in BRL"),
];

const EMPRESAS: &[ColumnSpec] = &[
    col("cnpj", "cnpj_consultado", Text, "CNPJ asked for (14 digits)"),
    col("cnpj_basico", "empresa_cnpj_basico", Text, "8-digit root shared by head office and branches"),
    col("razao_social", "empresa_razao_social", Text, "Company name"),
    col("nome_fantasia", "estabelecimento_nome_fantasia", Text, "Trade name"),
    col("natureza_juridica", "empresa_natureza_juridica", Code, "Legal nature code"),
    col("porte_empresa", "empresa_porte_empresa", Code, "Size: 00 unknown, 01 micro, 03 small, 05 other"),
    col("capital_social", "empresa_capital_social_raw", Money, "Share capital in BRL"),
    col("uf", "estabelecimento_uf", Uf, "State of the establishment asked for"),
    col("municipio", "estabelecimento_municipio", Text, "Municipality code of the establishment"),
    col(
        "tipo_logradouro",
        "estabelecimento_tipo_logradouro",
        Text,
        "Street type of the establishment (RUA, AVENIDA, ...)",
    ),
    col("logradouro", "estabelecimento_logradouro", Text, "Street name of the establishment"),
    col("numero", "estabelecimento_numero", Text, "Street number (S/N: none)"),
    col("complemento", "estabelecimento_complemento", Text, "Address complement (room, floor, ...)"),
    col("bairro", "estabelecimento_bairro", Text, "Neighbourhood"),
    col("cep", "estabelecimento_cep", Code, "Postal code (8 digits)"),
    col("cnae_fiscal_principal", "estabelecimento_cnae_fiscal_principal", Text, "Main CNAE, 7 digits"),
    col(
        "cnae_secao",
        "estabelecimento_cnae_fiscal_principal",
        CnaeSection,
        "CNAE section letter of the main CNAE",
    ),
    col("cnae_secao_descr", "estabelecimento_cnae_fiscal_principal", CnaeSectionName, "CNAE section name"),
    col(
        "cnae_fiscal_secundaria",
        "estabelecimento_cnae_fiscal_secundaria",
        Text,
        "Secondary CNAEs, comma-separated (7 digits each)",
    ),
    col(
        "identificador_matriz_filial",
        "estabelecimento_identificador_matriz_filial",
        Code,
        "1 head office, 2 branch",
    ),
    col(
        "situacao_cadastral",
        "estabelecimento_situacao_cadastral",
        Code,
        "01 NULA, 02 ATIVA, 03 SUSPENSA, 04 INAPTA, 08 BAIXADA",
    ),
    col(
        "data_situacao_cadastral",
        "estabelecimento_data_situacao_cadastral",
        Date,
        "Date of the registration status",
    ),
    col(
        "motivo_situacao_cadastral",
        "estabelecimento_motivo_situacao_cadastral",
        Code,
        "Reason for the registration status (code: 00 none, 01 voluntary closure, 63 no filings, ...)",
    ),
    col("data_inicio_atividade", "estabelecimento_data_inicio_atividade", Date, "Start of activity"),
    col("opcao_pelo_simples", "simples_opcao_pelo_simples", Code, "Opted into Simples Nacional (S/N)"),
    col("data_opcao_simples", "simples_data_opcao_simples", Date, "Date of the Simples option"),
    col("data_exclusao_simples", "simples_data_exclusao_simples", Date, "Date the company left the Simples"),
    col("opcao_pelo_mei", "simples_opcao_pelo_mei", Code, "Registered as MEI (S/N)"),
    col("data_opcao_mei", "simples_data_opcao_mei", Date, "Date of the MEI registration"),
    col("data_exclusao_mei", "simples_data_exclusao_mei", Date, "Date the company left the MEI"),
    col(
        "snapshot_fingerprint",
        "snapshot_fingerprint",
        Text,
        "Service's fingerprint of the profile snapshot",
    ),
];

const DIVIDAS: &[ColumnSpec] = &[
    col("cnpj", "cnpj_consultado", Text, "CNPJ asked for"),
    col("categoria", "categoria", Text, "Debt system: nao_previdenciario, fgts, previdenciario"),
    col("numero_inscricao", "numero_inscricao", Text, "Registration number"),
    col("cpf_cnpj", "cpf_cnpj", Text, "Debtor id as published"),
    col("nome_devedor", "nome_devedor", Text, "Debtor name"),
    col("tipo_pessoa", "tipo_pessoa", Vocab, "Pessoa física / jurídica"),
    col(
        "tipo_devedor",
        "tipo_devedor",
        DebtorRole,
        "Debtor's role: PRINCIPAL, CORRESPONSAVEL (co-responsible) or SOLIDARIO (jointly liable), whatever the published case or accents",
    ),
    col("data_inscricao", "data_inscricao", Date, "Registration date"),
    col("indicador_ajuizado", "indicador_ajuizado", Code, "SIM when filed in court"),
    col("receita_principal", "receita_principal", Vocab, "Main revenue (tax)"),
    col("tipo_credito", "tipo_credito", Vocab, "Credit type (previdenciário)"),
    col("situacao_inscricao", "situacao_inscricao", Vocab, "Registration status"),
    col("tipo_situacao_inscricao", "tipo_situacao_inscricao", Vocab, "Status group"),
    col("uf_unidade_responsavel", "uf_unidade_responsavel", Uf, "State of the responsible unit"),
    col(
        "uf_devedor",
        "uf_devedor",
        Uf,
        "Debtor's state (PGFN's files from 2022 Q4; the service does not send it)",
    ),
    col("unidade_responsavel", "unidade_responsavel", Text, "Responsible unit"),
    col("dataset_trimester", "dataset_trimester", Text, "Quarter of the published file"),
    col("valor_consolidado", "valor_consolidado", Money, "Consolidated debt in BRL"),
];

const PARCELAMENTOS: &[ColumnSpec] = &[
    col("cnpj", "cnpj_consultado", Text, "CNPJ asked for"),
    col("cpf_cnpj", "cpf_cnpj", Text, "Taxpayer id as published"),
    col("nome", "nome", Text, "Taxpayer name"),
    col("uf", "uf", Uf, "State"),
    col("municipio", "municipio", Text, "Municipality"),
    col("cnae", "cnae", Text, "CNAE, 7 digits"),
    col("porte", "porte", Vocab, "Size"),
    col("tipo_pessoa", "tipo_pessoa", Vocab, "Person type"),
    col("adesao_deferimento", "adesao_deferimento", Date, "Date the plan was granted"),
    col("quantidade_parcelas", "quantidade_parcelas", Int, "Number of instalments"),
    col("valor_parcelado", "valor_parcelado", Money, "Amount put into instalments, BRL"),
    col("saldo_devedor", "saldo_devedor", Money, "Outstanding balance, BRL"),
];

const TRANSACOES: &[ColumnSpec] = &[
    col("cnpj", "cnpj_consultado", Text, "CNPJ asked for"),
    col("cpf_cnpj", "cpf_cnpj", Text, "Taxpayer id as published"),
    col("contribuinte", "contribuinte", Text, "Taxpayer name"),
    col("processo", "processo", Text, "Process number"),
    col("memorial", "memorial", Text, "Memorial"),
    col("data_negociacao", "data_negociacao", Date, "Date negotiated"),
    col("divida_transacionada", "divida_transacionada", Money, "Debt negotiated, BRL"),
    col("divida_com_reducao", "divida_com_reducao", Money, "Debt after reduction, BRL"),
    col("reducao", "reducao", Money, "Reduction granted, BRL"),
    col("creditos_pf_bcn", "creditos_pf_bcn", Money, "Credits used (tax losses), BRL"),
    col("saldo_devedor", "saldo_devedor", Money, "Outstanding balance, BRL"),
];

/// `resumos`: the profile's summaries, one row per company and summary (derived from the
/// staged `empresas` rows, not a list of its own).
pub(crate) const RESUMOS: &[ColumnSpec] = &[
    col("cnpj", "cnpj", Text, "CNPJ asked for"),
    col("chave", "chave", Text, "The summary's key as the service sent it"),
    col(
        "tabela",
        "tabela",
        Text,
        "The list it summarises, read from its link: dividas_pgfn, parcelamentos_rfb or transacoes_rfb \
         (null when the link names none of them)",
    ),
    col("categoria", "categoria", Text, "For dividas_pgfn: the categoria of the link"),
    col("total", "total", Int, "Records the service says the list holds"),
    col("valor_total", "valor_total", Money, "Their total in BRL, as the service says"),
    col("href", "href", Text, "The summary's link to the list"),
];

/// The dossiers' tables (`dossies/<table>.parquet`): the lists of operations 2, 3, 4 and 8 to
/// 11 for the companies a run or `dossie` wrote a dossier of. Typed like the raw tables.
pub(crate) const ESTABELECIMENTOS: &[ColumnSpec] = &[
    col("cnpj_consultado", "cnpj_consultado", Text, "CNPJ whose dossier this row belongs to"),
    col("cnpj", "cnpj_completo", Text, "The establishment's CNPJ (14 digits)"),
    col("cnpj_basico", "cnpj_basico", Code, "First 8 digits: the company (and its economic group's key)"),
    col("identificador_matriz_filial", "identificador_matriz_filial", Code, "1 head office, 2 branch"),
    col("nome_fantasia", "nome_fantasia", Text, "Trade name"),
    col("situacao_cadastral", "situacao_cadastral", Code, "Registration status code"),
    col("data_situacao_cadastral", "data_situacao_cadastral", Date, "Date of the registration status"),
    col("motivo_situacao_cadastral", "motivo_situacao_cadastral", Code, "Reason for the status (code)"),
    col("data_inicio_atividade", "data_inicio_atividade", Date, "Date the establishment started"),
    col("cnae_fiscal_principal", "cnae_fiscal_principal", Code, "Main CNAE (7 digits)"),
    col("cnae_fiscal_secundaria", "cnae_fiscal_secundaria", Text, "Secondary CNAEs, comma-separated"),
    col("uf", "uf", Uf, "State"),
    col("municipio", "municipio", Code, "Municipality (RFB code)"),
    col("cep", "cep", Text, "Postal code"),
];

pub(crate) const SOCIOS: &[ColumnSpec] = &[
    col("cnpj", "cnpj_consultado", Text, "CNPJ asked for (a portfolio company, or a dossier's)"),
    col("cnpj_basico", "cnpj_basico", Code, "The company's first 8 digits"),
    col("identificador_socio", "identificador_socio", Code, "1 company, 2 person, 3 foreigner"),
    col("nome_socio_razao_social", "nome_socio_razao_social", Text, "Partner's name"),
    col(
        "cnpj_cpf_socio",
        "cnpj_cpf_socio",
        Text,
        "Partner's CNPJ (a company: links economic groups) or masked CPF",
    ),
    col("qualificacao_socio", "qualificacao_socio", Code, "Partner's role (code)"),
    col("data_entrada_sociedade", "data_entrada_sociedade", Date, "Date the partner joined"),
    col("pais", "pais", Code, "Country, for a foreign partner"),
    col("faixa_etaria", "faixa_etaria", Code, "Age band (code)"),
];

pub(crate) const OBRAS: &[ColumnSpec] = &[
    col("cnpj_consultado", "cnpj_consultado", Text, "CNPJ whose dossier this row belongs to"),
    col("cno", "cno", Text, "The work's CNO number"),
    col("nome", "nome", Text, "The work's name"),
    col("situacao", "situacao", Text, "The work's status"),
    col("data_inicio", "data_inicio", Date, "Start date"),
    col("data_registro", "data_registro", Date, "Registration date"),
    col("data_situacao", "data_situacao", Date, "Date of the status"),
    col("area_total", "area_total", Text, "Total area as published (in unidade_medida)"),
    col("unidade_medida", "unidade_medida", Text, "Unit of the area"),
    col("estado", "estado", Uf, "State"),
    col("codigo_municipio", "codigo_municipio", Code, "Municipality code"),
    col("nome_municipio", "nome_municipio", Text, "Municipality"),
    col("ni_responsavel", "ni_responsavel", Text, "Who answers for the work (CNPJ or CPF)"),
    col("cno_vinculado", "cno_vinculado", Text, "A work this one is linked to"),
];

pub(crate) const OBRA_VINCULOS: &[ColumnSpec] = &[
    col("cno", "cno", Text, "The work's CNO number"),
    col("ni_responsavel", "ni_responsavel", Text, "Linked taxpayer (CNPJ or CPF)"),
    col("qualificacao_contribuinte", "qualificacao_contribuinte", Code, "The taxpayer's role in the work"),
    col("data_inicio", "data_inicio", Date, "Start of the link"),
    col("data_fim", "data_fim", Date, "End of the link (null: still linked)"),
    col("data_registro", "data_registro", Date, "Registration date"),
];

pub(crate) const OBRA_CNAES: &[ColumnSpec] = &[
    col("cno", "cno", Text, "The work's CNO number"),
    col("cnae", "cnae", Code, "A CNAE of the work (7 digits)"),
    col("data_registro", "data_registro", Date, "Registration date"),
];

pub(crate) const OBRA_AREAS: &[ColumnSpec] = &[
    col("cno", "cno", Text, "The work's CNO number"),
    col("tipo_obra", "tipo_obra_raw", Text, "Type of work, as published"),
    col("tipo_area", "tipo_area_raw", Text, "Type of area, as published"),
    col(
        "tipo_area_complementar",
        "tipo_area_complementar_raw",
        Text,
        "Complementary area type, as published",
    ),
    col("categoria", "categoria_raw", Text, "Category, as published"),
    col("destinacao", "destinacao_raw", Text, "Use, as published"),
    col("metragem", "metragem", Text, "Area as published"),
];

/// The dossiers' tables by name, in the order they are written and documented.
pub(crate) const DOSSIER_TABLES: [(&str, &[ColumnSpec]); 6] = [
    ("estabelecimentos", ESTABELECIMENTOS),
    ("socios", SOCIOS),
    ("obras", OBRAS),
    ("obra_vinculos", OBRA_VINCULOS),
    ("obra_cnaes", OBRA_CNAES),
    ("obra_areas", OBRA_AREAS),
];

pub(crate) fn columns(table: Table) -> &'static [ColumnSpec] {
    match table {
        Table::CreditosAtivos => CREDITOS,
        Table::Empresas => EMPRESAS,
        Table::DividasPgfn => DIVIDAS,
        Table::ParcelamentosRfb => PARCELAMENTOS,
        Table::TransacoesRfb => TRANSACOES,
        Table::Socios => SOCIOS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_column_is_staged() {
        for t in Table::ALL {
            let staged = t.columns();
            for c in columns(t) {
                assert!(
                    staged.iter().any(|s| s == c.source),
                    "{}.{} reads {}, which is not staged",
                    t.name(),
                    c.name,
                    c.source
                );
            }
        }
    }
}
