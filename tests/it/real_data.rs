//! Real published rows (tests/fixtures/real/, sources and licences in SOURCES.md) read as a
//! person reads them. Every row of every fixture goes through the transform stage's parsers:
//! amounts to the cent (`.33` is R$ 0,33), dates, nulls for the publishers' placeholders
//! (`01/01/1000`, `00000000`), codes kept with their leading zeros, the not-a-state `NA`
//! kept, no row lost and no failure. Then three PGFN files go through a whole run on the
//! embedded registry, which serves them as one company's debts.
//!
//! The expected values are computed here from the published text, by rules a person would
//! state, without the code under test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common_bin::*;
use fiscal_report::api::models::{CompanyProfile, Empresa, Estabelecimento, Simples};
use fiscal_report::simulator::Dataset;
use fiscal_report::simulator::real::read_pgfn_csv;
use fiscal_report::tables::{Row, Table, flat_row, profile_row};
use fiscal_report::transform::QualityCount;
use fiscal_report::transform::typing::type_table;
use polars::prelude::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real").join(name)
}

const PGFN: [(&str, &str); 5] = [
    ("pgfn_fgts_ac_202012_original.csv", "fgts"),
    ("pgfn_previdenciario_ac_202012_original.csv", "previdenciario"),
    ("pgfn_fgts.csv", "fgts"),
    ("pgfn_nao_previdenciario.csv", "nao_previdenciario"),
    ("pgfn_previdenciario.csv", "previdenciario"),
];

/// A published PGFN amount as a person reads it: dot decimal, cents after the point, maybe
/// no digit before it (`.33`).
fn pgfn_amount(text: &str) -> String {
    let (whole, cents) = text.trim().split_once('.').expect("PGFN amounts have a decimal point");
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().unwrap() };
    assert_eq!(cents.len(), 2, "{text}");
    format!("{whole}.{cents}")
}

/// The role a published `TIPO_DEVEDOR` names, as the files spell it: SIDA in capitals
/// (`PRINCIPAL`, `CORRESPONSAVEL`), the previdenciário and FGTS files in title case.
fn published_role(text: &str) -> &'static str {
    match text.trim() {
        "PRINCIPAL" | "Principal" => "PRINCIPAL",
        "CORRESPONSAVEL" | "Corresponsável" | "Corresponsavel" => "CORRESPONSAVEL",
        "SOLIDARIO" | "Solidário" | "Solidario" => "SOLIDARIO",
        other => panic!("a TIPO_DEVEDOR the fixtures were not known to hold: {other:?}"),
    }
}

/// `DD/MM/YYYY` as ISO, or `None` for the published "no date" (`01/01/1000`).
fn pgfn_date(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.trim().split('/').collect();
    let [d, m, y] = parts[..] else { panic!("{text}") };
    (y != "1000").then(|| format!("{y}-{m}-{d}"))
}

/// The rows of a published CSV by column name, decoded as the publisher wrote them.
fn published_rows(name: &str) -> Vec<BTreeMap<String, String>> {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let text: String = match std::str::from_utf8(&bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    };
    let mut r = csv::ReaderBuilder::new().delimiter(b';').from_reader(text.as_bytes());
    let headers: Vec<String> = r.headers().unwrap().iter().map(str::to_lowercase).collect();
    r.records()
        .map(|rec| headers.iter().cloned().zip(rec.unwrap().iter().map(String::from)).collect())
        .collect()
}

fn strings(df: &DataFrame, column: &str) -> Vec<Option<String>> {
    let c = df.column(column).unwrap().cast(&DataType::String).unwrap();
    c.str().unwrap().iter().map(|v| v.map(String::from)).collect()
}

fn staged(table: Table, rows: &[Vec<Option<String>>]) -> DataFrame {
    fiscal_report::transform::typing::staged_frame(table, rows).unwrap()
}

fn failures(quality: &[QualityCount]) -> Vec<&QualityCount> {
    quality.iter().filter(|q| q.failures > 0).collect()
}

fn placeholders(quality: &[QualityCount], column: &str) -> u64 {
    quality.iter().filter(|q| q.column == column).map(|q| q.placeholders).sum()
}

#[test]
fn every_real_pgfn_row_reads_as_a_person_reads_it() {
    let mut below_one_real = 0;
    let mut no_date = 0;
    for (file, categoria) in PGFN {
        let published = published_rows(file);
        let records = read_pgfn_csv(&fixture(file)).unwrap();
        assert_eq!(records.len(), published.len(), "{file}: rows lost reading it");
        let rows: Vec<_> = records
            .iter()
            .map(|r| {
                flat_row(
                    Table::DividasPgfn,
                    r,
                    &[("cnpj_consultado", "00000000000000"), ("categoria", categoria)],
                )
            })
            .collect();
        assert_eq!(rows.len(), published.len(), "{file}: every published row staged");
        let (df, quality) = typed(Table::DividasPgfn, &rows, file);
        let valores = strings(&df, "valor_consolidado");
        let datas = strings(&df, "data_inscricao");
        let ufs = strings(&df, "uf_unidade_responsavel");
        let inscricoes = strings(&df, "numero_inscricao");
        for (i, row) in published.iter().enumerate() {
            let want = pgfn_amount(&row["valor_consolidado"]);
            assert_eq!(
                valores[i].as_deref(),
                Some(want.as_str()),
                "{file} row {}: {:?}",
                i + 2,
                row["valor_consolidado"]
            );
            below_one_real += usize::from(row["valor_consolidado"].starts_with('.'));
            let date = pgfn_date(&row["data_inscricao"]);
            no_date += usize::from(date.is_none());
            assert_eq!(datas[i], date, "{file} row {}: {:?}", i + 2, row["data_inscricao"]);
            assert_eq!(
                ufs[i].as_deref(),
                Some(row["uf_unidade_responsavel"].as_str()),
                "{file} row {}",
                i + 2
            );
            assert_eq!(inscricoes[i].as_deref(), Some(row["numero_inscricao"].as_str()));
        }
        assert_eq!(
            placeholders(&quality, "data_inscricao") as usize,
            published.iter().filter(|r| r["data_inscricao"] == "01/01/1000").count(),
            "{file}: every 01/01/1000 counted as a placeholder"
        );
    }
    assert!(below_one_real >= 4, "the fixtures hold amounts below one real (.33): {below_one_real}");
    assert!(no_date >= 2, "the fixtures hold 01/01/1000: {no_date}");
}

/// A header-less RFB CNPJ file: its rows as fields, in the published layout's order.
fn cnpj_rows(file: &str) -> Vec<Vec<String>> {
    let mut r =
        csv::ReaderBuilder::new().delimiter(b';').has_headers(false).from_path(fixture(file)).unwrap();
    r.records().map(|rec| rec.unwrap().iter().map(String::from).collect()).collect()
}

/// An RFB date (`YYYYMMDD`) as ISO; `None` for blank or the all-zero placeholder.
fn rfb_date(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty() && t != "00000000").then(|| format!("{}-{}-{}", &t[..4], &t[4..6], &t[6..]))
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

/// Staged rows of `table` through the transform stage: the typed frame and its data-quality
/// counts, asserting no row lost and no failure (`what` names the input in a failure).
fn typed(table: Table, rows: &[Row], what: &str) -> (DataFrame, Vec<QualityCount>) {
    let (df, quality) = type_table(table, &staged(table, rows)).unwrap();
    assert_eq!(df.height(), rows.len(), "{what}: no row lost");
    assert!(failures(&quality).is_empty(), "{what}: {:?}", failures(&quality));
    (df, quality)
}

/// Published CNPJ rows as company profiles (with the CNPJ asked for), typed as `empresas`.
fn typed_profiles(
    profiles: impl Iterator<Item = (CompanyProfile, String)>,
) -> (DataFrame, Vec<QualityCount>) {
    let rows: Vec<_> = profiles.map(|(p, cnpj)| profile_row(&p, &cnpj)).collect();
    typed(Table::Empresas, &rows, "empresas")
}

#[test]
fn every_real_cnpj_company_row_reads_as_a_person_reads_it() {
    // Empresas: cnpj_basico; razao_social; natureza_juridica; qualificacao; capital; porte; ente.
    let empresas = cnpj_rows("cnpj_empresas.csv");
    let (df, _) = typed_profiles(empresas.iter().map(|f| {
        let empresa = Empresa {
            cnpj_basico: some(&f[0]),
            razao_social: some(&f[1]),
            natureza_juridica: some(&f[2]),
            qualificacao_responsavel: some(&f[3]),
            capital_social_raw: some(&f[4]),
            porte_empresa: some(&f[5]),
            ente_federativo_responsavel: some(&f[6]),
            ..Empresa::default()
        };
        (CompanyProfile { empresa: Some(empresa), ..CompanyProfile::default() }, format!("{}000100", f[0]))
    }));
    let capital = strings(&df, "capital_social");
    let natureza = strings(&df, "natureza_juridica");
    let porte = strings(&df, "porte_empresa");
    for (i, f) in empresas.iter().enumerate() {
        // Decimal comma, no thousands: 1061004829,23 is R$ 1.061.004.829,23.
        assert_eq!(capital[i], Some(f[4].replace(',', ".")), "row {}: {:?}", i + 1, f[4]);
        assert_eq!(natureza[i].as_deref(), Some(f[2].as_str()), "codes keep their leading zeros");
        assert_eq!(porte[i].as_deref(), Some(f[5].as_str()));
    }
}

#[test]
fn every_real_cnpj_establishment_row_reads_as_a_person_reads_it() {
    // Estabelecimentos: the 30 columns of the published layout.
    let estabelecimentos = cnpj_rows("cnpj_estabelecimentos.csv");
    let (df, _) = typed_profiles(estabelecimentos.iter().map(|f| {
        let e = Estabelecimento {
            cnpj_basico: some(&f[0]),
            cnpj_ordem: some(&f[1]),
            cnpj_dv: some(&f[2]),
            identificador_matriz_filial: some(&f[3]),
            nome_fantasia: some(&f[4]),
            situacao_cadastral: some(&f[5]),
            data_situacao_cadastral: some(&f[6]),
            motivo_situacao_cadastral: some(&f[7]),
            data_inicio_atividade: some(&f[10]),
            cnae_fiscal_principal: some(&f[11]),
            uf: some(&f[19]),
            municipio: some(&f[20]),
            ..Estabelecimento::default()
        };
        let cnpj = format!("{}{}{}", f[0], f[1], f[2]);
        (CompanyProfile { estabelecimento: Some(e), ..CompanyProfile::default() }, cnpj)
    }));
    let (situacao, desde, inicio, uf) = (
        strings(&df, "situacao_cadastral"),
        strings(&df, "data_situacao_cadastral"),
        strings(&df, "data_inicio_atividade"),
        strings(&df, "uf"),
    );
    let secao = strings(&df, "cnae_secao");
    assert!(
        estabelecimentos.iter().any(|f| f[11] == "8888888"),
        "the fixture holds an activity not informed"
    );
    for (i, f) in estabelecimentos.iter().enumerate() {
        assert_eq!(situacao[i].as_deref(), Some(f[5].as_str()), "row {}", i + 1);
        assert_eq!(desde[i], rfb_date(&f[6]), "row {}: {:?}", i + 1, f[6]);
        assert_eq!(inicio[i], rfb_date(&f[10]), "row {}: {:?}", i + 1, f[10]);
        assert_eq!(uf[i].as_deref(), Some(f[19].as_str()), "row {}", i + 1);
        if f[11] == "8888888" {
            // "Atividade não informada": no section, not section Q of division 88.
            assert_eq!(secao[i], None, "row {}", i + 1);
        } else {
            assert!(secao[i].is_some(), "row {}: {:?}", i + 1, f[11]);
        }
    }
}

#[test]
fn every_real_cnpj_simples_and_partner_row_reads_as_a_person_reads_it() {
    // Simples: cnpj_basico; opcao; data_opcao; data_exclusao; opcao_mei; data_opcao_mei; ...
    let simples = cnpj_rows("cnpj_simples.csv");
    let (df, quality) = typed_profiles(simples.iter().map(|f| {
        let s = Simples {
            cnpj_basico: some(&f[0]),
            opcao_pelo_simples: some(&f[1]),
            data_opcao_simples: some(&f[2]),
            data_exclusao_simples: some(&f[3]),
            opcao_pelo_mei: some(&f[4]),
            data_opcao_mei: some(&f[5]),
            data_exclusao_mei: some(&f[6]),
            ..Simples::default()
        };
        (CompanyProfile { simples: Some(s), ..CompanyProfile::default() }, format!("{}000100", f[0]))
    }));
    let opcao = strings(&df, "data_opcao_simples");
    for (i, f) in simples.iter().enumerate() {
        assert_eq!(opcao[i], rfb_date(&f[2]), "row {}: {:?}", i + 1, f[2]);
    }
    // Socios: no typed table reads them yet (the dossiers will); their dates parse as published.
    for f in cnpj_rows("cnpj_socios.csv") {
        let got = fiscal_report::transform::parse::parse_registry_date(&f[5]).unwrap();
        assert_eq!(got.map(|d| d.to_string()), rfb_date(&f[5]), "{:?}", f[5]);
    }
    assert_eq!(
        placeholders(&quality, "data_opcao_simples") as usize,
        simples.iter().filter(|f| f[2] == "00000000").count(),
        "every 00000000 counted as a placeholder"
    );
}

#[test]
fn real_pgfn_files_served_by_the_embedded_registry_come_out_of_a_whole_run_exactly() {
    const KEY: &str = "real-key";
    let files = [
        ("fgts", "pgfn_fgts.csv"),
        ("previdenciario", "pgfn_previdenciario.csv"),
        ("nao_previdenciario", "pgfn_nao_previdenciario.csv"),
    ];
    let args: Vec<String> = files
        .iter()
        .flat_map(|(cat, file)| ["--real-debts".to_string(), format!("{cat}={}", fixture(file).display())])
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let srv = ServeProcess::start(KEY, 5, 0.05, &args);
    let company = Dataset::generate(5, 0.05).demo_portfolio(1)[0].to_string();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("carteira.txt"), &company).unwrap();
    let out = dir.path().join("out");
    let o = bin()
        .args(["--quiet", "run", "--base-url", &srv.base_url, "--uf", "AC", "--ano-mes", "202609", "--cnpjs"])
        .arg(dir.path().join("carteira.txt"))
        .arg("--out")
        .arg(&out)
        .env("REGISTRY_API_KEY", KEY)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let df = fiscal_report::export::tables::read_exported_table(&out, "dividas_pgfn").unwrap();
    // One exported row per published row: the same inscription may stand once per co-debtor.
    type Debt = (Option<String>, Option<String>, Option<String>, Option<String>, Option<String>);
    let mut got: Vec<Debt> = (0..df.height())
        .map(|i| {
            let col = |c: &str| strings(&df, c)[i].clone();
            (
                col("categoria"),
                col("numero_inscricao"),
                col("tipo_devedor"),
                col("valor_consolidado"),
                col("data_inscricao"),
            )
        })
        .collect();
    let mut want: Vec<Debt> = Vec::new();
    for (cat, file) in files {
        for row in published_rows(file) {
            want.push((
                Some(cat.to_string()),
                Some(row["numero_inscricao"].clone()),
                Some(published_role(&row["tipo_devedor"]).to_string()),
                Some(pgfn_amount(&row["valor_consolidado"])),
                pgfn_date(&row["data_inscricao"]),
            ));
        }
    }
    got.sort();
    want.sort();
    assert_eq!(got, want);
    // All three spellings of the files are there, and read into one vocabulary.
    let spellings: BTreeSet<String> = files
        .iter()
        .flat_map(|(_, file)| published_rows(file))
        .map(|row| row["tipo_devedor"].clone())
        .collect();
    assert!(
        ["PRINCIPAL", "CORRESPONSAVEL", "Principal"].iter().all(|s| spellings.contains(*s)),
        "{spellings:?}"
    );
    // The company's exposure splits its rows by role, to the cent.
    let exposure =
        ParquetReader::new(std::fs::File::open(out.join("aggregates/carteira_exposicao.parquet")).unwrap())
            .finish()
            .unwrap();
    // One company owes each inscription once: as principal when any of its rows says so (the
    // files hold one inscription whose principal and co-responsible rows both came here).
    let mut inscriptions: BTreeMap<(String, String), (bool, rust_decimal::Decimal)> = BTreeMap::new();
    for (cat, file) in files {
        for row in published_rows(file) {
            let v: rust_decimal::Decimal = pgfn_amount(&row["valor_consolidado"]).parse().unwrap();
            let principal = published_role(&row["tipo_devedor"]) == "PRINCIPAL";
            let e =
                inscriptions.entry((cat.to_string(), row["numero_inscricao"].clone())).or_insert((false, v));
            e.0 |= principal;
            e.1 = e.1.max(v);
        }
    }
    let owed = |as_principal: bool| -> rust_decimal::Decimal {
        inscriptions.values().filter(|(p, _)| *p == as_principal).map(|(_, v)| *v).sum()
    };
    let co_debtor = owed(false);
    assert!(co_debtor > rust_decimal::Decimal::ZERO, "the fixtures hold co-responsible rows");
    for (column, want) in [("divida_principal", owed(true)), ("divida_corresponsavel", co_debtor)] {
        let got = exposure.column(column).unwrap().cast(&DataType::String).unwrap();
        let got: rust_decimal::Decimal = got.str().unwrap().get(0).unwrap().parse().unwrap();
        assert_eq!(got, want, "{column}");
    }

    // Nothing the published files say was counted as unreadable.
    let dq = ParquetReader::new(std::fs::File::open(out.join("aggregates/data_quality.parquet")).unwrap())
        .finish()
        .unwrap();
    let tables = strings(&dq, "tabela");
    let falhas = strings(&dq, "falhas");
    for (t, f) in tables.iter().zip(&falhas) {
        assert!(
            !(t.as_deref() == Some("dividas_pgfn") && f.as_deref() != Some("0")),
            "dividas_pgfn failures: {f:?}"
        );
    }
}

/// A PGFN negotiation panel export (instalment plans and transactions): UTF-16 with a byte
/// order mark, quoted, comma-separated, as the panel writes it.
fn negotiation_rows(file: &str) -> Vec<Vec<String>> {
    let bytes = std::fs::read(fixture(file)).unwrap();
    assert_eq!(&bytes[..2], b"\xff\xfe", "the panel writes UTF-16LE with a BOM");
    let units: Vec<u16> = bytes[2..].chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let text = String::from_utf16(&units).unwrap();
    let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    r.records().map(|rec| rec.unwrap().iter().map(String::from).collect()).collect()
}

/// pt-BR money as a person reads it: `.` groups thousands, `,` starts the cents.
fn pt_br_amount(text: &str) -> String {
    text.replace('.', "").replace(',', ".")
}

#[test]
fn every_real_negotiation_row_reads_as_a_person_reads_it() {
    use fiscal_report::transform::parse::{normalise_uf, parse_brl_amount, parse_month_year};
    // Mes/Ano; UF; CPF/CNPJ; Nome; Conta; Tipo; Modalidade; Situacao; Parcelas; Em atraso;
    // Valor Consolidado; Principal; Multa; Juros; Encargo Legal.
    let rows = negotiation_rows("pgfn_negociacoes_se_2024.csv");
    assert_eq!(rows.len(), 12);
    for (i, f) in rows.iter().enumerate() {
        let (month, year) = f[0].split_once('/').unwrap();
        let first_day = chrono::NaiveDate::from_ymd_opt(year.parse().unwrap(), month.parse().unwrap(), 1);
        assert_eq!(parse_month_year(&f[0]).unwrap(), first_day, "row {}: {:?}", i + 2, f[0]);
        assert_eq!(normalise_uf(&f[1]), Some("SE"), "a spelled-out state: {:?}", f[1]);
        for money in &f[10..15] {
            let got = parse_brl_amount(money).unwrap().unwrap();
            assert_eq!(got.to_string(), pt_br_amount(money), "row {}: {money:?}", i + 2);
        }
    }
    // Through the transform stage as the service's instalment records.
    let staged_rows: Vec<_> = rows
        .iter()
        .map(|f| {
            let p = fiscal_report::api::models::ParcelamentoRfb {
                cpf_cnpj: some(&f[2]),
                nome: some(&f[3]),
                uf: some(&f[1]),
                quantidade_parcelas: f[8].trim().parse().ok(),
                valor_parcelado: some(&f[10]),
                saldo_devedor: some(&f[11]),
                ..Default::default()
            };
            flat_row(Table::ParcelamentosRfb, &p, &[("cnpj_consultado", "00000000000000")])
        })
        .collect();
    assert_eq!(staged_rows.len(), rows.len());
    let (df, _) = typed(Table::ParcelamentosRfb, &staged_rows, "negotiation panel");
    let (valor, nome, uf) = (strings(&df, "valor_parcelado"), strings(&df, "nome"), strings(&df, "uf"));
    for (i, f) in rows.iter().enumerate() {
        assert_eq!(valor[i], Some(pt_br_amount(&f[10])), "row {}", i + 2);
        assert_eq!(nome[i].as_deref(), Some(f[3].trim()), "right-padded names are trimmed");
        assert_eq!(uf[i].as_deref(), Some("SE"));
    }
}
