//! `run --open-data`: the publishers' files as the source. The embedded registry writes its own
//! dataset as PGFN and RFB release it, and a run over those files must equal a run over the
//! service, row for row; the real published rows go through exactly; a broken file is named.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common_bin::*;
use fiscal_report::api::{Categoria, Cnpj};
use fiscal_report::export::tables::read_exported_table;
use fiscal_report::simulator::dataset::{ListaRecord, Listas};
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;
use rust_decimal::Decimal;

const SCALE: &str = "0.05";

/// Rows of `df` as text in `columns`, sorted: what two runs must agree on.
fn rows(df: &DataFrame, columns: &[&str]) -> Vec<Vec<Option<String>>> {
    let cols: Vec<Column> = columns
        .iter()
        .map(|c| df.column(c).unwrap_or_else(|_| panic!("no {c}")).cast(&DataType::String).unwrap())
        .collect();
    let mut out: Vec<Vec<Option<String>>> = (0..df.height())
        .map(|i| cols.iter().map(|c| c.str().unwrap().get(i).map(String::from)).collect())
        .collect();
    out.sort();
    out
}

fn read(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap()
}

fn run_open_data(dir: &Path, files: &Path, cnpjs: &[String]) -> std::process::Output {
    open_data_command(dir, files, cnpjs).arg("--quiet").output().unwrap()
}

/// `run --open-data FILES` over `cnpjs` into `dir/files-run`, not yet run.
fn open_data_command(dir: &Path, files: &Path, cnpjs: &[String]) -> std::process::Command {
    std::fs::write(dir.join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let mut c = bin();
    c.args(["run", "--open-data"])
        .arg(files)
        .arg("--cnpjs")
        .arg(dir.join("carteira.txt"))
        .arg("--out")
        .arg(dir.join("files-run"));
    c
}

#[test]
fn a_run_from_the_files_equals_a_run_from_the_service_over_the_same_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    let o = bin().args(["serve", "--scale", SCALE, "--write-open-data"]).arg(&files).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
    let cnpjs: Vec<String> = d.demo_portfolio(60).iter().map(ToString::to_string).collect();

    let o = run_open_data(tmp.path(), &files, &cnpjs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_files = tmp.path().join("files-run");
    let service_dir = tmp.path().join("service");
    std::fs::create_dir_all(&service_dir).unwrap();
    let from_service = demo_run_into(&service_dir, &cnpjs, &["--demo-scale", SCALE, "--ano-mes", "202609"]);

    // Every row of the tables the files carry, in the columns their layouts hold.
    for (table, columns) in [
        (
            "dividas_pgfn",
            &[
                "cnpj",
                "categoria",
                "numero_inscricao",
                "cpf_cnpj",
                "nome_devedor",
                "tipo_pessoa",
                "tipo_devedor",
                "data_inscricao",
                "indicador_ajuizado",
                "receita_principal",
                "tipo_credito",
                "situacao_inscricao",
                "tipo_situacao_inscricao",
                "uf_unidade_responsavel",
                "unidade_responsavel",
                "dataset_trimester",
                "valor_consolidado",
            ][..],
        ),
        (
            "empresas",
            &[
                "cnpj",
                "cnpj_basico",
                "razao_social",
                "natureza_juridica",
                "porte_empresa",
                "capital_social",
                "uf",
                "municipio",
                "cnae_fiscal_principal",
                "cnae_secao",
                "situacao_cadastral",
                "data_situacao_cadastral",
                "data_inicio_atividade",
                "opcao_pelo_simples",
                "data_opcao_simples",
                "opcao_pelo_mei",
            ][..],
        ),
        (
            "socios",
            &[
                "cnpj",
                "cnpj_basico",
                "nome_socio_razao_social",
                "cnpj_cpf_socio",
                "qualificacao_socio",
                "data_entrada_sociedade",
            ][..],
        ),
    ] {
        let (a, b) = (
            read_exported_table(&from_files, table).unwrap(),
            read_exported_table(&from_service, table).unwrap(),
        );
        assert!(b.height() > 0, "{table}: the service run has rows");
        assert_eq!(rows(&a, columns), rows(&b, columns), "{table}");
    }
    // Every aggregate both can compute: the debts of each company and its estimated standing.
    let debts = [
        "cnpj",
        "nao_prev_ajuizada",
        "nao_prev_nao_ajuizada",
        "prev_ajuizada",
        "prev_nao_ajuizada",
        "fgts_ajuizada",
        "fgts_nao_ajuizada",
        "divida_principal",
        "divida_corresponsavel",
        "nao_prev_contada",
        "prev_contada",
        "fgts_contada",
        "ajuizada_contada",
        "inscricoes",
        "inscricoes_corresponsavel",
    ];
    for (aggregate, columns) in [
        ("carteira_exposicao", &debts[..]),
        (
            "situacao_fiscal_estimada",
            &["cnpj", "inscricoes_ativas", "inscricoes_em_cobranca", "situacao_fiscal_estimada"][..],
        ),
    ] {
        let path = |run: &Path| run.join("aggregates").join(format!("{aggregate}.parquet"));
        assert_eq!(
            rows(&read(&path(&from_files)), columns),
            rows(&read(&path(&from_service)), columns),
            "{aggregate}"
        );
    }

    // The manifest names every file with its digest and counts, and what the files lack.
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(from_files.join("manifest.json")).unwrap()).unwrap();
    let note = &m["open_data"];
    // PGFN's three systems; RFB's three tables in ten parts each, and Simples.
    assert_eq!(note["files"].as_array().unwrap().len(), 3 + 3 * 10 + 1, "{note}");
    assert_eq!(note["gaps"], serde_json::Value::Null, "a whole release has no gap: {note}");
    for f in note["files"].as_array().unwrap() {
        let bytes = std::fs::read(files.join(f["path"].as_str().unwrap())).unwrap();
        use sha2::Digest;
        assert_eq!(f["sha256"].as_str().unwrap(), hex::encode(sha2::Sha256::digest(&bytes)), "{f}");
        assert_eq!(f["bytes"].as_u64().unwrap(), bytes.len() as u64);
        assert!(f["rows_kept"].as_u64().unwrap() <= f["rows_read"].as_u64().unwrap());
    }
    assert_eq!(note["period"]["quarter"], "2026T3");
    assert_eq!(note["period"]["month"], "2026-09");
    // The files' records are handed over as read: no request of the service's interface, in
    // this process or out, in the fetch or after it.
    assert_eq!(m["fetch"]["requests"]["requests"], 0, "{}", m["fetch"]["requests"]);
    assert_eq!(m["fetch"]["requests"]["by_operation"], serde_json::json!({}), "{}", m["fetch"]);
    assert!(
        m["requests_after_fetch"].as_object().is_none_or(|o| o.values().all(|n| n == 0)),
        "{}",
        m["requests_after_fetch"]
    );
    // The report says which sections the files could not fill.
    let md = std::fs::read_to_string(from_files.join("report.md")).unwrap();
    assert!(
        md.contains("AUSENTE: os arquivos publicados não trazem estes dados"),
        "the report names what is absent"
    );

    // With a service beside the files, what the files lack comes from it: the plans, the
    // settlements and the credits equal the service run's, the debts still the files'.
    let key = "open-data-and-service";
    let serve = ServeProcess::start(key, RegistryConfig::DEFAULT_SEED, 0.05, &[]);
    let both = tmp.path().join("both-run");
    let o = bin()
        .args(["--quiet", "run", "--open-data"])
        .arg(&files)
        .args(["--base-url", &serve.base_url, "--cnpjs"])
        .arg(tmp.path().join("carteira.txt"))
        .arg("--out")
        .arg(&both)
        .env("REGISTRY_API_KEY", key)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for table in ["parcelamentos_rfb", "transacoes_rfb", "creditos_ativos", "dividas_pgfn"] {
        let (from_both, reference) = (
            read_exported_table(&both, table).unwrap(),
            read_exported_table(if table == "dividas_pgfn" { &from_files } else { &from_service }, table)
                .unwrap(),
        );
        let columns: Vec<&str> = reference.get_column_names().iter().map(|c| c.as_str()).collect();
        assert!(reference.height() > 0, "{table}: the reference run has rows");
        assert_eq!(rows(&from_both, &columns), rows(&reference, &columns), "{table}");
    }
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(both.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["periodos"]["fontes"]["rfb"]["status"], "ok", "{}", m["periodos"]);
    // The service was asked only what the files do not carry: never a profile, a partners
    // list or a debt the files hold.
    let asked = m["fetch"]["requests"]["by_operation"].as_object().unwrap();
    for carried in ["empresa", "estabelecimentos", "socios", "dividas-pgfn"] {
        assert!(!asked.contains_key(carried), "{carried} asked of the service beside the files: {asked:?}");
    }
    for lacking in ["parcelamentos-rfb", "transacoes-rfb", "creditos-ativos"] {
        assert!(asked.contains_key(lacking), "{lacking} not asked of the service: {asked:?}");
    }
}

/// Zips `entries` at `path`, as a publisher's download.
fn zip_of(path: &Path, entries: &[(&str, Vec<u8>)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut zip = ::zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options =
        ::zip::write::SimpleFileOptions::default().compression_method(::zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real").join(name)
}

/// A fixture's rows as a person reads the file: Latin-1, `;`, the header naming the columns.
fn published(name: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let text: String = std::fs::read(fixture(name)).unwrap().iter().map(|&b| char::from(b)).collect();
    let mut lines = text.lines().filter(|l| !l.is_empty());
    let header: Vec<String> = lines.next().unwrap().split(';').map(|h| h.to_lowercase()).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(';').map(String::from)).collect()).collect()
}

#[test]
fn the_real_published_rows_go_through_open_data_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    let sources = [
        ("pgfn_nao_previdenciario.csv", "Dados_abertos_Nao_Previdenciario.zip", "nao_previdenciario"),
        ("pgfn_previdenciario_ac_202012_original.csv", "Dados_abertos_Previdenciario.zip", "previdenciario"),
        ("pgfn_fgts_ac_202012_original.csv", "Dados_abertos_FGTS.zip", "fgts"),
    ];
    for (file, zip, _) in sources {
        let entry = format!("arquivo_lai_{file}");
        zip_of(
            &files.join("2020_trimestre_04").join(zip),
            &[(&entry, std::fs::read(fixture(file)).unwrap())],
        );
    }
    let mut want = Vec::new();
    let mut cnpjs = BTreeSet::new();
    for (file, _, categoria) in sources {
        for row in published(file) {
            let Ok(cnpj) = Cnpj::parse(&row["cpf_cnpj"]) else { continue };
            cnpjs.insert(cnpj.to_string());
            let (whole, cents) = row["valor_consolidado"].trim().split_once('.').unwrap();
            let date = row["data_inscricao"].trim().split('/').collect::<Vec<_>>();
            let date = (date[2] != "1000").then(|| format!("{}-{}-{}", date[2], date[1], date[0]));
            let amount = format!("{}.{cents}", whole.parse::<u64>().unwrap_or(0));
            want.push(vec![
                Some(categoria.to_string()),
                Some(row["numero_inscricao"].clone()),
                Some(amount),
                date,
            ]);
        }
    }
    let cnpjs: Vec<String> = cnpjs.into_iter().collect();
    let o = run_open_data(tmp.path(), &files, &cnpjs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = tmp.path().join("files-run");
    let debts = read_exported_table(&out, "dividas_pgfn").unwrap();
    // Each company row once per portfolio CNPJ of its root; the fixtures list each root once.
    want.sort();
    assert_eq!(rows(&debts, &["categoria", "numero_inscricao", "valor_consolidado", "data_inscricao"]), want);
    // No person's row reaches a company table.
    let debtors = rows(&debts, &["cpf_cnpj"]);
    assert!(debtors.iter().all(|r| Cnpj::parse(r[0].as_deref().unwrap()).is_ok()), "{debtors:?}");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["open_data"]["period"]["quarter"], "2020T4");
    assert!(m["open_data"]["missing"].as_array().unwrap().iter().any(|d| d == "rfb_empresas"));
}

#[test]
fn a_truncated_zip_or_an_unknown_header_exits_2_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    let store = tmp.path().join("store");
    let cnpjs = ["04071544000103".to_string()];
    std::fs::write(tmp.path().join("carteira.txt"), cnpjs.join("\n")).unwrap();
    // A run on a store over `dir`: it must stop with exit 2 naming each of `names`, and
    // commit nothing.
    let refused = |dir: &Path, names: &[&str]| {
        let o = bin()
            .args(["--quiet", "run", "--store"])
            .arg(&store)
            .arg("--open-data")
            .arg(dir)
            .arg("--cnpjs")
            .arg(tmp.path().join("carteira.txt"))
            .arg("--out")
            .arg(tmp.path().join("files-run"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        for name in names {
            assert!(stderr.contains(name), "{name} not in: {stderr}");
        }
        assert!(!tmp.path().join("files-run").join("manifest.json").exists(), "nothing written");
        let committed = std::fs::read_dir(&store).map(|d| d.count()).unwrap_or(0);
        assert_eq!(committed, 0, "nothing committed to the store for a broken release");
    };
    let sida = files.join("Dados_abertos_Nao_Previdenciario.zip");
    // PGFN's other two systems, whole: only the one under test is broken.
    for (zip, file) in [
        ("Dados_abertos_Previdenciario.zip", "pgfn_previdenciario_ac_202012_original.csv"),
        ("Dados_abertos_FGTS.zip", "pgfn_fgts_ac_202012_original.csv"),
    ] {
        zip_of(&files.join(zip), &[(&format!("arquivo_lai_{file}"), std::fs::read(fixture(file)).unwrap())]);
    }
    let good = || {
        zip_of(
            &sida,
            &[(
                "arquivo_lai_SIDA_202012.csv",
                std::fs::read(fixture("pgfn_nao_previdenciario.csv")).unwrap(),
            )],
        )
    };
    // Truncated: the download stopped two thirds of the way.
    good();
    let bytes = std::fs::read(&sida).unwrap();
    std::fs::write(&sida, &bytes[..bytes.len() * 2 / 3]).unwrap();
    refused(&files, &["Dados_abertos_Nao_Previdenciario.zip", "download it again"]);
    // Corrupt: whole, but bytes of its compressed data changed.
    let mut corrupt = bytes.clone();
    for b in &mut corrupt[60..bytes.len() / 2] {
        *b ^= 0x5a;
    }
    std::fs::write(&sida, &corrupt).unwrap();
    refused(&files, &["Dados_abertos_Nao_Previdenciario.zip"]);
    // A header that is none of PGFN's.
    zip_of(&sida, &[("arquivo_lai_SIDA_202012.csv", b"CNPJ;NOME;VALOR\n04071544000103;X;1.00\n".to_vec())]);
    refused(&files, &["arquivo_lai_SIDA_202012.csv", "CPF_CNPJ"]);
    // Missing: a folder that is not there, and one with no published file in it.
    refused(&tmp.path().join("not-downloaded"), &["not-downloaded", "--open-data"]);
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("LEIAME.txt"), "notes").unwrap();
    refused(&empty, &["holds no PGFN or RFB open-data file", "Dados_abertos_*.zip"]);
}

/// Writes the embedded registry's dataset as it stood in `month` as one release under `dir`.
pub(crate) fn release_of(month: &str, dir: &Path) {
    let o = bin()
        .args(["serve", "--scale", SCALE, "--as-of", month, "--write-open-data"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The embedded registry's dataset at the tests' scale, as it stood in `month`.
pub(crate) fn dataset_at(month: &str) -> Dataset {
    Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05)
        .as_of(fiscal_report::api::AnoMes::parse(month).unwrap())
        .unwrap()
}

/// The demo portfolio of September 2026, written to `dir/carteira.txt`.
fn portfolio_in(dir: &Path) -> Vec<Cnpj> {
    let portfolio = dataset_at("202609").demo_portfolio(60);
    let cnpjs: Vec<String> = portfolio.iter().map(ToString::to_string).collect();
    std::fs::write(dir.join("carteira.txt"), cnpjs.join("\n")).unwrap();
    portfolio
}

/// `run --store` over the release of `month` in `dir/releases/`, for the portfolio in
/// `dir/carteira.txt`, into `dir/out/<month>`.
fn load_release(dir: &Path, store: &Path, month: &str, extra: &[&str]) -> std::process::Output {
    bin()
        .args(["--quiet", "run", "--store"])
        .arg(store)
        .args(extra)
        .arg("--open-data")
        .arg(dir.join("releases").join(month))
        .arg("--cnpjs")
        .arg(dir.join("carteira.txt"))
        .arg("--out")
        .arg(dir.join("out").join(month))
        .output()
        .unwrap()
}

#[test]
fn releases_loaded_in_order_make_one_snapshot_each_with_the_datasets_own_changes() {
    use super::changes::{Change, changes_of, company_changes};
    let tmp = tempfile::tempdir().unwrap();
    let months = ["202606", "202607", "202608", "202609"];
    let at = dataset_at;
    let portfolio = portfolio_in(tmp.path());
    let store = tmp.path().join("store");
    let load = |month: &str| {
        let files = tmp.path().join("releases").join(month);
        if !files.exists() {
            release_of(month, &files);
        }
        load_release(tmp.path(), &store, month, &[])
    };
    for (i, month) in months.iter().enumerate() {
        let o = load(month);
        assert!(o.status.success(), "{month}: {}", String::from_utf8_lossy(&o.stderr));
        let out = tmp.path().join("out").join(month);
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["store"]["snapshot"], *month, "one snapshot per release, dated by the release");
        let (got, _) = changes_of(&out);
        if i == 0 {
            assert!(got.is_empty(), "a first release has nothing to compare with");
            continue;
        }
        // The dataset's own changes between the two months, in what the files carry.
        let (before, after) = (at(months[i - 1]), at(month));
        let mut want: Vec<Change> = portfolio
            .iter()
            .flat_map(|c| {
                company_changes(c.as_str(), before.records_truth(c).as_ref(), after.records_truth(c).as_ref())
            })
            .filter(|c| c.2 != "parcelamentos_rfb" && c.2 != "transacoes_rfb")
            .collect();
        want.sort();
        assert!(!want.is_empty(), "{month}: the dataset moved");
        assert_eq!(got, want, "mudancas between {} and {month}", months[i - 1]);
    }
    national_history_equals_the_truth(&tmp.path().join("out").join(months[3]).join("historico"), &months);
    let versions =
        |store: &Path| std::fs::read_dir(store.join("empresas").join("_delta_log")).unwrap().count();
    let before = versions(&store);
    // The latest release again: skipped, nothing committed.
    let o = load("202609");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already in the store"));
    assert_eq!(versions(&store), before, "a release already stored commits nothing");
    // An older release: refused, naming both.
    let o = load("202607");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("202607") && stderr.contains("202609"), "{stderr}");
    assert_eq!(versions(&store), before, "a refused release commits nothing");
}

/// The national debt over the store's snapshots, as the last run's series write it: each
/// month's total, companies' and people's shares and change, and the last month's moves by state
/// and by CNAE section, against `Dataset::national_debt` at each month.
fn national_history_equals_the_truth(historico: &Path, months: &[&str]) {
    let truths: Vec<_> = months.iter().map(|m| dataset_at(m).national_debt()).collect();
    let cents = |c: i64| Decimal::new(c, 2);
    let sum = |t: &registry_sim::dataset::NationalTruth, keep: &dyn Fn(&str) -> bool| {
        t.cells.iter().filter(|(k, _)| keep(k.1)).fold((0u64, 0i64), |(n, c), (_, v)| (n + v.0, c + v.1))
    };
    type Row = (String, u64, Decimal, Decimal, Decimal, Option<Decimal>);
    let want: Vec<Row> = months
        .iter()
        .zip(&truths)
        .enumerate()
        .map(|(i, (month, t))| {
            let (n, all) = sum(t, &|_| true);
            let change = (i > 0).then(|| cents(all - sum(&truths[i - 1], &|_| true).1));
            (
                month.to_string(),
                n,
                cents(all),
                cents(sum(t, &|p| p == "J").1),
                cents(sum(t, &|p| p == "F").1),
                change,
            )
        })
        .collect();
    let df = read(&historico.join("divida_nacional_por_trimestre.parquet"));
    let columns = ["snapshot", "inscricoes", "valor_total", "valor_pj", "valor_pf", "variacao"];
    let got: Vec<Row> = rows(&df, &columns)
        .into_iter()
        .map(|r| {
            let d = |i: usize| r[i].as_deref().unwrap().parse::<Decimal>().unwrap();
            let change = r[5].as_deref().map(|v| v.parse::<Decimal>().unwrap());
            (r[0].clone().unwrap(), r[1].as_deref().unwrap().parse().unwrap(), d(2), d(3), d(4), change)
        })
        .collect();
    assert_eq!(got, want, "divida_nacional_por_trimestre");
    // The report's history shows it, the latest total as an analyst reads it.
    let html = std::fs::read_to_string(historico.parent().unwrap().join("report.html")).unwrap();
    let section = html.split("id=\"historico\"").nth(1).expect("the history section");
    assert!(section.contains("Dívida ativa da União em cada retrato"), "{section}");
    let latest = sum(&truths[truths.len() - 1], &|_| true).1;
    assert!(section.contains(&brl(latest)), "{} in {section}", brl(latest));
    // The last month's moves by state and CNAE section (people as PF), the truth's own sums.
    let by = |t: &registry_sim::dataset::NationalTruth| {
        let mut sums: BTreeMap<(String, String), i64> = BTreeMap::new();
        for (k, (_, c)) in &t.cells {
            let section = if k.6.is_empty() { "PF".to_string() } else { k.6.to_string() };
            *sums.entry(("uf".into(), k.0.clone())).or_default() += c;
            *sums.entry(("cnae_secao".into(), section)).or_default() += c;
        }
        sums
    };
    let (before, after) = (by(&truths[truths.len() - 2]), by(&truths[truths.len() - 1]));
    let keys: BTreeSet<&(String, String)> = before.keys().chain(after.keys()).collect();
    let want: BTreeMap<(String, String), (Decimal, Decimal, Decimal)> = keys
        .into_iter()
        .map(|k| {
            let (b, a) = (before.get(k).copied().unwrap_or(0), after.get(k).copied().unwrap_or(0));
            (k.clone(), (cents(b), cents(a), cents(a - b)))
        })
        .collect();
    let df = read(&historico.join("divida_nacional_maiores_variacoes.parquet"));
    let columns = ["dimensao", "chave", "valor_anterior", "valor_atual", "variacao"];
    let got: BTreeMap<(String, String), (Decimal, Decimal, Decimal)> = rows(&df, &columns)
        .into_iter()
        .map(|r| {
            let d = |i: usize| r[i].as_deref().unwrap().parse::<Decimal>().unwrap();
            ((r[0].clone().unwrap(), r[1].clone().unwrap()), (d(2), d(3), d(4)))
        })
        .collect();
    assert_eq!(got, want, "divida_nacional_maiores_variacoes");
    assert!(want.values().any(|v| v.2 != Decimal::ZERO), "the dataset's debt moved: {want:?}");
}

/// Moves `file` out of the release (into `aside`) while `f` runs, then back.
fn without<T>(file: &Path, aside: &Path, f: impl FnOnce() -> T) -> T {
    std::fs::create_dir_all(aside).unwrap();
    let kept = aside.join(file.file_name().unwrap());
    std::fs::rename(file, &kept).unwrap();
    let out = f();
    std::fs::rename(&kept, file).unwrap();
    out
}

/// The CNPJ roots of the establishments in an RFB zip, read from the zip itself.
fn roots_in(zip: &Path) -> BTreeSet<String> {
    let mut archive = ::zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_index(0).unwrap(), &mut text).unwrap();
    text.lines().map(|l| l.trim_start_matches('"')[..8].to_string()).collect()
}

#[test]
fn a_release_not_whole_stops_the_run_naming_each_file_and_partial_reads_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    release_of("202609", &files);
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
    let cnpjs: Vec<String> = d.demo_portfolio(60).iter().map(ToString::to_string).collect();
    let (cnpj_dir, pgfn_dir) = (files.join("cnpj/2026-09"), files.join("pgfn/2026_trimestre_03"));
    let aside = tmp.path().join("aside");
    let stopped = |names: &[&str]| {
        let o = run_open_data(tmp.path(), &files, &cnpjs);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        for name in names {
            assert!(stderr.contains(name), "{name} not in: {stderr}");
        }
        assert!(stderr.contains("--partial"), "{stderr}");
        assert!(
            !tmp.path().join("files-run/manifest.json").exists(),
            "nothing written for a partial release"
        );
    };
    // A part missing, a system missing.
    without(&cnpj_dir.join("Estabelecimentos3.zip"), &aside, || {
        stopped(&["Estabelecimentos3.zip is missing"])
    });
    without(&pgfn_dir.join("Dados_abertos_FGTS.zip"), &aside, || {
        stopped(&["Dados_abertos_FGTS.zip is missing"])
    });
    // An empty zip, and a download a browser has not finished.
    let socios = cnpj_dir.join("Socios5.zip");
    let bytes = std::fs::read(&socios).unwrap();
    std::fs::write(&socios, b"").unwrap();
    stopped(&["Socios5.zip is empty"]);
    std::fs::write(&socios, &bytes).unwrap();
    let empresas = cnpj_dir.join("Empresas7.zip");
    let unfinished = cnpj_dir.join("Empresas7.zip.crdownload");
    std::fs::rename(&empresas, &unfinished).unwrap();
    stopped(&["Empresas7.zip.crdownload is a download not finished"]);
    std::fs::rename(&unfinished, &empresas).unwrap();

    // With --partial the rest is read, and the run says what is missing.
    let part = cnpj_dir.join("Estabelecimentos3.zip");
    let in_part = roots_in(&part);
    let o = without(&part, &aside, || {
        std::fs::write(tmp.path().join("carteira.txt"), cnpjs.join("\n")).unwrap();
        bin()
            .args(["--quiet", "run", "--partial", "--open-data"])
            .arg(&files)
            .arg("--cnpjs")
            .arg(tmp.path().join("carteira.txt"))
            .arg("--out")
            .arg(tmp.path().join("files-run"))
            .output()
            .unwrap()
    });
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = tmp.path().join("files-run");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["open_data"]["gaps"][0]["file"], "cnpj/2026-09/Estabelecimentos3.zip", "{}", m["open_data"]);
    assert_eq!(m["open_data"]["gaps"][0]["problem"], "missing");
    // Exactly the portfolio's companies of that part have no establishment.
    let empresas = read_exported_table(&out, "empresas").unwrap();
    let no_state: BTreeSet<String> = rows(&empresas, &["cnpj", "uf"])
        .into_iter()
        .filter(|r| r[1].is_none())
        .map(|r| r[0].clone().unwrap())
        .collect();
    let want: BTreeSet<String> = cnpjs.iter().filter(|c| in_part.contains(&c[..8])).cloned().collect();
    assert!(!want.is_empty(), "the part holds some of the portfolio");
    assert_eq!(no_state, want);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("PUBLICAÇÃO INCOMPLETA") && report.contains("`Estabelecimentos3.zip`"),
        "{report}"
    );
    assert!(report.contains("parcial: faltam Estabelecimentos3.zip"), "Fontes e períodos: {report}");
}

#[test]
fn on_a_store_a_release_without_a_system_carries_it_and_ends_none_of_its_inscriptions() {
    use super::changes::{Change, changes_of, company_changes};
    let tmp = tempfile::tempdir().unwrap();
    let at = dataset_at;
    let portfolio = portfolio_in(tmp.path());
    let store = tmp.path().join("store");
    let load = |month: &str, extra: &[&str]| load_release(tmp.path(), &store, month, extra);
    for month in ["202606", "202609"] {
        release_of(month, &tmp.path().join("releases").join(month));
    }
    let o = load("202606", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fgts = tmp.path().join("releases/202609/pgfn/2026_trimestre_03/Dados_abertos_FGTS.zip");
    std::fs::remove_file(&fgts).unwrap();
    // And a part of RFB's establishments: its companies' registry fields are carried too.
    let part = tmp.path().join("releases/202609/cnpj/2026-09/Estabelecimentos3.zip");
    let in_part = roots_in(&part);
    std::fs::remove_file(&part).unwrap();
    // And a part of the partners: its companies keep month 1's.
    let socios_part = tmp.path().join("releases/202609/cnpj/2026-09/Socios4.zip");
    let in_socios_part = roots_in(&socios_part);
    std::fs::remove_file(&socios_part).unwrap();
    let o = load("202609", &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("Dados_abertos_FGTS.zip is missing"), "{stderr}");
    let o = load("202609", &["--partial"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // The truth: month 2 as the whole release has it, its FGTS inscriptions those of month 1.
    let (before, after) = (at("202606"), at("202609"));
    let carried = |c: &Cnpj| {
        let (b, mut a) = (before.records_truth(c)?, after.records_truth(c)?);
        a.dividas.retain(|_, d| d.categoria != "fgts");
        a.dividas.extend(b.dividas.into_iter().filter(|(_, d)| d.categoria == "fgts"));
        if in_part.contains(c.basico()) {
            // Every field the establishments file gives is carried.
            a.situacao_cadastral = b.situacao_cadastral;
            a.motivo_situacao = b.motivo_situacao;
            a.cnae_principal = b.cnae_principal;
            a.cnaes_secundarios = b.cnaes_secundarios;
            a.municipio = b.municipio;
            a.cep = b.cep;
            a.endereco = b.endereco;
        }
        if in_socios_part.contains(c.basico()) {
            a.socios = b.socios;
        }
        Some(a)
    };
    let mut want: Vec<Change> = portfolio
        .iter()
        .flat_map(|c| company_changes(c.as_str(), before.records_truth(c).as_ref(), carried(c).as_ref()))
        .filter(|c| c.2 != "parcelamentos_rfb" && c.2 != "transacoes_rfb")
        .collect();
    want.sort();
    let (got, _) = changes_of(&tmp.path().join("out/202609"));
    assert_eq!(got, want);
    // Read as a whole release, every FGTS inscription of month 1 would have ended.
    let fgts_before: usize = portfolio
        .iter()
        .filter_map(|c| before.records_truth(c))
        .map(|t| t.dividas.values().filter(|d| d.categoria == "fgts").count())
        .sum();
    assert!(fgts_before > 0, "the portfolio owes FGTS in month 1");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("out/202609/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["open_data"]["carried"]["pgfn_fgts"], "202606", "{}", m["open_data"]);
    assert_eq!(m["open_data"]["carried"]["rfb_estabelecimentos"], "202606", "{}", m["open_data"]);
    // Read as whole, the part's companies would have lost their cadastral situation.
    let moved = portfolio.iter().filter(|c| in_part.contains(c.basico())).count();
    assert!(moved > 0, "the part holds some of the portfolio");
    // The carried inscriptions keep the quarter they were published in.
    let debts = read_exported_table(&tmp.path().join("out/202609"), "dividas_pgfn").unwrap();
    let quarters: BTreeSet<Vec<Option<String>>> =
        rows(&debts, &["categoria", "dataset_trimester"]).into_iter().collect();
    assert!(quarters.contains(&vec![Some("fgts".into()), Some("2026T2".into())]), "{quarters:?}");
    assert!(!quarters.contains(&vec![Some("fgts".into()), Some("2026T3".into())]), "{quarters:?}");
    assert!(
        quarters.contains(&vec![Some("nao_previdenciario".into()), Some("2026T3".into())]),
        "{quarters:?}"
    );
    // Each company's partners: month 1's for the companies of the missing part, month 2's else.
    let socios = read_exported_table(&tmp.path().join("out/202609"), "socios").unwrap();
    let got: BTreeSet<Vec<Option<String>>> =
        rows(&socios, &["cnpj", "nome_socio_razao_social"]).into_iter().collect();
    let mut want = BTreeSet::new();
    for c in &portfolio {
        let ds = if in_socios_part.contains(c.basico()) { &before } else { &after };
        for s in ds.socios(c).unwrap_or_default() {
            want.insert(vec![Some(c.to_string()), s.nome_socio_razao_social.clone()]);
        }
    }
    assert!(
        portfolio.iter().any(|c| in_socios_part.contains(c.basico())),
        "the part holds some of the portfolio"
    );
    assert_eq!(got, want);
}

/// PGFN's three zips of December 2022 in `dir`: `prev` and `sida` as given, FGTS's the fixture's.
fn pgfn_release(dir: &Path, prev: Vec<u8>, sida: Vec<u8>) {
    let fgts = std::fs::read(fixture("pgfn_fgts.csv")).unwrap();
    for (zip, entry, bytes) in [
        ("Dados_abertos_Previdenciario.zip", "arquivo_lai_PREV_1_202212.csv", prev),
        ("Dados_abertos_Nao_Previdenciario.zip", "arquivo_lai_SIDA_1_202212.csv", sida),
        ("Dados_abertos_FGTS.zip", "arquivo_lai_FGTS_1_202212.csv", fgts),
    ] {
        zip_of(&dir.join(zip), &[(entry, bytes)]);
    }
}

#[test]
fn an_alphanumeric_cnpjs_pgfn_rows_reach_its_company() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads/2022_trimestre_04");
    // The fixture's first company row, owed by an alphanumeric CNPJ (issued from July 2026).
    let mut sida = std::fs::read(fixture("pgfn_nao_previdenciario.csv")).unwrap();
    let text: String = sida.iter().map(|&b| char::from(b)).collect();
    let row = text.lines().skip(1).find(|l| l.contains("Pessoa jur")).unwrap();
    let fields: Vec<&str> = row.split(';').collect();
    let alnum = format!("12.ABC.345/01DE-35;{}", fields[1..].join(";"));
    sida.extend(alnum.chars().map(|c| u8::try_from(u32::from(c)).unwrap()));
    sida.push(b'\n');
    pgfn_release(&files, std::fs::read(fixture("pgfn_previdenciario_ac_202012_original.csv")).unwrap(), sida);
    let o = run_open_data(tmp.path(), &tmp.path().join("downloads"), &["12ABC34501DE35".to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let debts = read_exported_table(&tmp.path().join("files-run"), "dividas_pgfn").unwrap();
    let header: Vec<String> = text.lines().next().unwrap().split(';').map(|h| h.to_lowercase()).collect();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (numero, valor) = (fields[at("numero_inscricao")], fields[at("valor_consolidado")]);
    let got = rows(&debts, &["cnpj", "categoria", "numero_inscricao", "valor_consolidado"]);
    let want = vec![vec![
        Some("12ABC34501DE35".to_string()),
        Some("nao_previdenciario".to_string()),
        Some(numero.to_string()),
        Some(valor.trim().to_string()),
    ]];
    assert_eq!(got, want);
}

/// The two check digits of an alphanumeric CNPJ's first 12 characters, by RFB's rule (Nota
/// Técnica COCAD/SUARA/RFB nº 49/2024): each character's ASCII code minus 48, weights 2..9 from
/// the right, a remainder under 2 giving 0. Worked here apart from the code under test.
fn alnum_check_digits(base: &str) -> String {
    let digit = |chars: &[u8]| {
        let sum: u32 =
            chars.iter().rev().enumerate().map(|(i, c)| u32::from(c - 48) * (2 + (i as u32 % 8))).sum();
        match sum % 11 {
            r if r < 2 => b'0',
            r => b'0' + u8::try_from(11 - r).unwrap(),
        }
    };
    let mut chars = base.as_bytes().to_vec();
    chars.push(digit(&chars));
    chars.push(digit(&chars));
    String::from_utf8(chars[12..].to_vec()).unwrap()
}

#[test]
fn a_ceis_row_for_a_cnpj_with_letters_reaches_the_company_by_its_cnpj_and_by_its_root() {
    assert_eq!(alnum_check_digits("12ABC34501DE"), "35", "the Nota Técnica's own example");
    let tmp = tempfile::tempdir().unwrap();
    let downloads = tmp.path().join("downloads");
    // A PGFN release, so the folder is a release; the portfolio company is not in it.
    pgfn_release(
        &downloads.join("2022_trimestre_04"),
        std::fs::read(fixture("pgfn_previdenciario_ac_202012_original.csv")).unwrap(),
        std::fs::read(fixture("pgfn_nao_previdenciario.csv")).unwrap(),
    );
    let branch = format!("12ABC3450002{}", alnum_check_digits("12ABC3450002"));
    // CEIS in the layout CGU publishes (its CNPJs bare), as the embedded registry writes it, with two rows.
    let listed = |documento: String, row: usize| ListaRecord {
        lista: "CEIS",
        documento,
        tipo: "J",
        nome: "ALFA NOVA SA".into(),
        inicio: Some((2026, 8, 10)),
        fim: None,
        valor_multa_cents: None,
        cancelado: false,
        vigente: true,
        row,
    };
    let lists = Listas {
        date: (2026, 11, 30),
        records: vec![listed("12ABC34501DE35".into(), 1), listed(branch.clone(), 2)],
        targets: Vec::new(),
    };
    fiscal_report::simulator::open_data::listas::write_listas(&lists, &downloads).unwrap();
    let o = run_open_data(tmp.path(), &downloads, &["12ABC34501DE35".to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let path = tmp.path().join("files-run/aggregates/sancoes.parquet");
    let sancoes = ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap();
    let got = rows(&sancoes, &["cnpj", "lista", "vinculo", "sancionado"]);
    let want = vec![
        vec![
            Some("12ABC34501DE35".into()),
            Some("CEIS".into()),
            Some("cnpj".into()),
            Some("12ABC34501DE35".into()),
        ],
        vec![Some("12ABC34501DE35".into()), Some("CEIS".into()), Some("raiz".into()), Some(branch.clone())],
    ];
    assert_eq!(got, want);
}

#[test]
fn the_current_pgfn_header_gives_each_debtor_its_state_and_keeps_the_unit_as_published() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads/2022_trimestre_04");
    let current = "pgfn_previdenciario_uf_devedor.csv";
    // The fixture's first company row again, as a debtor of the 28th state value `Si`.
    let mut prev = std::fs::read(fixture(current)).unwrap();
    let text: String = prev.iter().map(|&b| char::from(b)).collect();
    let first = text.lines().nth(1).unwrap();
    let si: Vec<&str> = first
        .split(';')
        .enumerate()
        .map(|(i, f)| match i {
            4 => "Si",
            6 => "999999999",
            _ => f,
        })
        .collect();
    prev.extend(si.join(";").chars().map(|c| u8::try_from(u32::from(c)).unwrap()));
    prev.push(b'\n');
    pgfn_release(&files, prev, std::fs::read(fixture("pgfn_nao_previdenciario.csv")).unwrap());
    let rows_of = published(current);
    let cnpjs: BTreeSet<String> =
        rows_of.iter().filter_map(|r| Cnpj::parse(&r["cpf_cnpj"]).ok()).map(|c| c.to_string()).collect();
    let o = run_open_data(tmp.path(), &tmp.path().join("downloads"), &cnpjs.into_iter().collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let debts = read_exported_table(&tmp.path().join("files-run"), "dividas_pgfn").unwrap();
    let got =
        rows(&debts, &["numero_inscricao", "uf_devedor", "uf_unidade_responsavel", "unidade_responsavel"]);
    let mut want: Vec<Vec<Option<String>>> = rows_of
        .iter()
        .filter(|r| Cnpj::parse(&r["cpf_cnpj"]).is_ok())
        .map(|r| {
            vec![
                Some(r["numero_inscricao"].clone()),
                Some(r["uf_devedor"].clone()),
                None,
                Some(r["unidade_responsavel"].clone()),
            ]
        })
        .collect();
    assert!(!want.is_empty());
    // `Si` is no state: kept as published in the raw column, the state left empty.
    want.push(vec![Some("999999999".into()), None, None, Some(si[5].to_string())]);
    want.sort();
    let prev_rows: Vec<Vec<Option<String>>> =
        got.into_iter().filter(|r| want.iter().any(|w| w[0] == r[0])).collect();
    assert_eq!(prev_rows, want);
    let raw = rows(&debts, &["numero_inscricao", "uf_devedor_raw"]);
    assert!(raw.contains(&vec![Some("999999999".into()), Some("Si".into())]), "{raw:?}");
    // No register in the release: the portfolio's states are its debtors' (AC in the fixture).
    let exposure = read(&tmp.path().join("files-run/aggregates/carteira_exposicao.parquet"));
    let states: BTreeSet<Option<String>> =
        rows(&exposure, &["uf"]).into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(states, BTreeSet::from([Some("AC".to_string())]), "{exposure}");
}

#[test]
fn a_releases_code_tables_name_its_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    release_of("202609", &files);
    // RFB's CNAE table of this release, as RFB writes it: one code named otherwise than codes/.
    let table =
        b"\"0111301\";\"CULTIVO DE ARROZ (NOME DESTA PUBLICACAO)\"\n\"4712100\";\"COM\xc9RCIO VAREJISTA\"\n";
    zip_of(&files.join("cnpj/2026-09/Cnaes.zip"), &[("F.K03200$Z.D60901.CNAECSV", table.to_vec())]);
    let cnpjs: Vec<String> = dataset_at("202609").demo_portfolio(5).iter().map(ToString::to_string).collect();
    let o = run_open_data(tmp.path(), &files, &cnpjs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = tmp.path().join("files-run");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["open_data"]["codes"]["cnae"], "cnpj/2026-09/Cnaes.zip", "{}", m["open_data"]);
    assert!(!m["open_data"]["ignored"].as_array().unwrap().iter().any(|f| f == "cnpj/2026-09/Cnaes.zip"));
    // The dimension table is the release's; the tables it lacks are codes/'s.
    let cnae = rows(&read(&out.join("dimensoes/cnae.parquet")), &["codigo", "nome"]);
    let want = [("0111301", "CULTIVO DE ARROZ (NOME DESTA PUBLICACAO)"), ("4712100", "COMÉRCIO VAREJISTA")];
    assert_eq!(cnae, want.map(|(c, n)| vec![Some(c.to_string()), Some(n.to_string())]));
    let natureza = rows(&read(&out.join("dimensoes/natureza_juridica.parquet")), &["codigo", "nome"]);
    assert!(natureza.contains(&vec![Some("2062".into()), Some("Sociedade Empresária Limitada".into())]));
}

#[test]
fn a_file_no_reader_takes_and_a_downloaded_list_gone_are_named_everywhere_and_strict_stops() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    release_of("202609", &files);
    std::fs::write(files.join("cnpj/2026-09/LEIAME.pdf"), b"%PDF-1.4 not data").unwrap();
    // The download record names CNEP's zip, which is no longer in the folder.
    let cnep: Vec<PathBuf> = std::fs::read_dir(files.join("listas"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("_CNEP.zip"))
        .collect();
    assert_eq!(cnep.len(), 1, "the release's CNEP: {cnep:?}");
    let cnep_name = cnep[0].file_name().unwrap().to_string_lossy().into_owned();
    std::fs::remove_file(&cnep[0]).unwrap();
    let record = serde_json::json!({"files": {format!("listas/{cnep_name}"): {
        "url": "https://dadosabertos-download.cgu.gov.br/x.zip", "size": 1, "sha256": "00", "release": "20261130",
        "fetched_at": "2026-12-01T00:00:00Z"}}});
    std::fs::write(files.join("download.json"), record.to_string()).unwrap();
    let cnpjs: Vec<String> = dataset_at("202609").demo_portfolio(5).iter().map(ToString::to_string).collect();
    // Not --quiet, which keeps stderr to errors: the warning is what a scheduler's log shows.
    let o = open_data_command(tmp.path(), &files, &cnpjs).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("no reader takes cnpj/2026-09/LEIAME.pdf"), "{stderr}");
    assert!(stderr.contains("the list CNEP was expected, downloaded into it"), "{stderr}");
    let out = tmp.path().join("files-run");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let ignored = m["open_data"]["ignored"].as_array().unwrap();
    assert!(ignored.iter().any(|f| f == "cnpj/2026-09/LEIAME.pdf"), "{ignored:?}");
    assert_eq!(
        m["open_data"]["unread"],
        serde_json::json!(["cnpj/2026-09/LEIAME.pdf"]),
        "the bookkeeping is not named"
    );
    assert_eq!(
        m["open_data"]["listas_ausentes"],
        serde_json::json!([{"lista": "CNEP", "motivo": "baixada"}])
    );
    // Every file the warning names is one the manifest lists, and no other file is named.
    for line in stderr.lines().filter(|l| l.contains("no reader takes ")) {
        let named = line.split("no reader takes ").nth(1).unwrap().split(", so").next().unwrap();
        assert!(ignored.iter().any(|f| f == named), "{named} warned but not in the manifest");
    }
    // The report's sources section names both, in the HTML and the Markdown.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let unread = html.split("id=\"fontes-nao-lidos\"").nth(1).expect("the unread files' note");
    assert!(unread.contains("<code>cnpj/2026-09/LEIAME.pdf</code>"), "{unread}");
    let missing = html.split("id=\"listas-ausentes\"").nth(1).expect("the missing lists' note");
    assert!(missing.contains("<li>CNEP (baixada para a pasta"), "{missing}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Arquivos não lidos") && md.contains("`cnpj/2026-09/LEIAME.pdf`"), "{md}");
    assert!(md.contains("Listas esperadas e ausentes:** CNEP"), "{md}");

    // --strict stops before anything is read further: exit 2, naming the file and the list.
    let o = open_data_command(tmp.path(), &files, &cnpjs).arg("--strict").output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let error = stderr.lines().find(|l| l.contains("--strict:")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(error.contains("cnpj/2026-09/LEIAME.pdf") && error.contains("the list CNEP"), "{error}");
    assert!(error.contains("run without --strict"), "{error}");
    // With the file moved out and the list back, --strict runs.
    std::fs::remove_file(files.join("cnpj/2026-09/LEIAME.pdf")).unwrap();
    std::fs::remove_file(files.join("download.json")).unwrap();
    let o = open_data_command(tmp.path(), &files, &cnpjs).arg("--strict").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_publisher_absent_after_a_store_of_older_records_is_refused_then_carried() {
    let tmp = tempfile::tempdir().unwrap();
    portfolio_in(tmp.path());
    let store = tmp.path().join("store");
    for month in ["202606", "202609"] {
        release_of(month, &tmp.path().join("releases").join(month));
    }
    let o = load_release(tmp.path(), &store, "202606", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The store's record as a release before this one wrote it: it lists no dataset.
    let runs = std::fs::read_dir(store.join("runs")).unwrap().count();
    let record = store.join("runs").join(format!("{runs:06}.json"));
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert!(json.as_object_mut().unwrap().remove("open_data").is_some(), "{json}");
    std::fs::write(&record, serde_json::to_vec(&json).unwrap()).unwrap();
    // PGFN's files alone: RFB's tables are absent as a whole, which is no gap of the release.
    std::fs::remove_dir_all(tmp.path().join("releases/202609/cnpj")).unwrap();
    let o = load_release(tmp.path(), &store, "202609", &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("rfb_empresas") && stderr.contains("--partial"), "{stderr}");
    let o = load_release(tmp.path(), &store, "202609", &["--partial"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("out/202609/manifest.json")).unwrap()).unwrap();
    let carried: BTreeSet<String> = m["open_data"]["carried"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        carried,
        ["rfb_empresas", "rfb_estabelecimentos", "rfb_simples", "rfb_socios"].map(String::from).into()
    );
    // The companies keep their register: none left the portfolio, none lost its situation.
    let (got, _) = super::changes::changes_of(&tmp.path().join("out/202609"));
    assert!(
        !got.iter().any(|c| c.1 == "saiu da carteira" || c.1 == "situação cadastral alterada"),
        "{got:?}"
    );
}

/// A run over the files has no national credit figures (the service gives them): the report
/// says so in a sentence where the credit sections were, and draws no empty chart. The same
/// report over the service draws them.
#[test]
fn a_files_run_says_in_words_that_it_has_no_national_credits_and_draws_no_empty_chart() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    release_of("202609", &files);
    let cnpjs: Vec<String> = dataset_at("202609").demo_portfolio(5).iter().map(ToString::to_string).collect();
    let o = open_data_command(tmp.path(), &files, &cnpjs).arg("--quiet").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(tmp.path().join("files-run/report.html")).unwrap();
    for gone in [
        "id=\"tendencia\"",
        "id=\"uf\"",
        "id=\"cnae-tributo\"",
        "id=\"outras-dimensoes\"",
        "id=\"movimentos\"",
    ] {
        assert!(!html.contains(gone), "{gone} is drawn with no figure");
    }
    let said = html.split("id=\"creditos-nacionais\"").nth(1).expect("the sentence's section");
    assert!(said.contains("não tem valores de créditos ativos"), "{said}");
    assert!(html.contains("id=\"carteira\""), "the portfolio's sections stay");
    let md = std::fs::read_to_string(tmp.path().join("files-run/report.md")).unwrap();
    assert!(
        md.contains("## Créditos ativos no país") && md.contains("não tem valores de créditos ativos"),
        "{md}"
    );

    // Over the service the same sections carry figures, and the sentence is not there.
    let o = bin()
        .args(["--quiet", "run", "--demo-scale", "0.05", "--uf", "SP", "--out"])
        .arg(tmp.path().join("service-run"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(tmp.path().join("service-run/report.html")).unwrap();
    assert!(html.contains("id=\"tendencia\"") && !html.contains("id=\"creditos-nacionais\""));
}

/// `cents` as the report writes money in pt-BR: `R$ 1.234.567,89`.
fn brl(cents: i64) -> String {
    let units = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, ch) in units.chars().enumerate() {
        if i > 0 && (units.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(ch);
    }
    format!("R$ {grouped},{:02}", cents % 100)
}

/// The release's national debt, read from the files while the portfolio's rows are picked,
/// equals the dataset's own sum of its records (their cents, not the files' text): every
/// inscription once by its principal debtor's row, companies' and people's, cell by cell, in
/// all, and split by person type; every state of the release is there.
#[test]
fn a_files_run_sums_every_inscription_of_the_release_once_as_the_dataset_does() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    release_of("202609", &files);
    let dataset = dataset_at("202609");
    let truth = dataset.national_debt();
    let cnpjs: Vec<String> = dataset.demo_portfolio(5).iter().map(ToString::to_string).collect();
    let o = open_data_command(tmp.path(), &files, &cnpjs).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("files-run/manifest.json")).unwrap()).unwrap();
    let national = &m["open_data"]["nacional"];
    let value = |v: &serde_json::Value| v.as_str().unwrap().parse::<Decimal>().unwrap();
    let sistema = |c: Categoria| c.as_str().to_string();
    type Cell = (String, String, String, String, String, String, String, String, u64, Decimal);
    let want: BTreeSet<Cell> = truth
        .cells
        .iter()
        .map(|((uf, tipo, cat, grupo, sit, aj, secao, natureza), (n, c))| {
            (
                uf.clone(),
                tipo.to_string(),
                sistema(*cat),
                grupo.to_string(),
                sit.clone(),
                aj.clone(),
                // People's cells are keyed PF in the table's company columns.
                if secao.is_empty() { "PF".to_string() } else { secao.to_string() },
                if natureza.is_empty() { "PF".to_string() } else { natureza.clone() },
                *n,
                Decimal::new(*c, 2),
            )
        })
        .collect();
    // The table a data scientist loads holds every cell.
    let table = read(&tmp.path().join("files-run/divida_ativa_nacional/part-0.parquet"));
    let columns = [
        "uf",
        "tipo_pessoa",
        "sistema",
        "grupo_tributo",
        "situacao",
        "ajuizado",
        "cnae_secao",
        "natureza_grupo",
        "inscricoes",
        "valor",
    ];
    let in_table: BTreeSet<Cell> = rows(&table, &columns)
        .into_iter()
        .map(|r| {
            let t = |i: usize| r[i].clone().unwrap();
            (t(0), t(1), t(2), t(3), t(4), t(5), t(6), t(7), t(8).parse().unwrap(), t(9).parse().unwrap())
        })
        .collect();
    assert_eq!(in_table, want, "divida_ativa_nacional");
    // The query by state: each state's inscriptions and value, companies' and people's, and the
    // TOTAL row, against the truth summed by state here.
    let mut by_uf: BTreeMap<String, (u64, i64, i64, i64)> = BTreeMap::new();
    for ((uf, tipo, ..), (n, c)) in &truth.cells {
        for key in [uf.clone(), "TOTAL".to_string()] {
            let e = by_uf.entry(key).or_default();
            e.0 += n;
            e.1 += c;
            if *tipo == "J" { e.2 += c } else { e.3 += c }
        }
    }
    let query = read(&tmp.path().join("files-run/aggregates/divida_nacional_por_uf.parquet"));
    let columns = ["uf", "inscricoes", "valor_total", "valor_pj", "valor_pf"];
    let got: BTreeMap<String, (u64, Decimal, Decimal, Decimal)> = rows(&query, &columns)
        .into_iter()
        .map(|r| {
            let d = |i: usize| r[i].as_deref().unwrap().parse::<Decimal>().unwrap();
            (r[0].clone().unwrap(), (r[1].as_deref().unwrap().parse().unwrap(), d(2), d(3), d(4)))
        })
        .collect();
    let want: BTreeMap<String, (u64, Decimal, Decimal, Decimal)> = by_uf
        .iter()
        .map(|(uf, (n, c, j, f))| {
            (uf.clone(), (*n, Decimal::new(*c, 2), Decimal::new(*j, 2), Decimal::new(*f, 2)))
        })
        .collect();
    assert_eq!(got, want, "divida_nacional_por_uf");
    // The queries by tax group, CNAE section and legal nature against the truth summed by each:
    // people in a row of their own (PF) in the last two, every company under its head office's
    // section and its nature.
    type Code = fn(&registry_sim::dataset::NationalCell) -> String;
    let tables: [(&str, &str, Code, usize); 3] = [
        ("divida_nacional_por_grupo_tributo", "grupo_tributo", |c| c.3.to_string(), 8),
        ("divida_nacional_por_cnae_secao", "cnae_secao", |c| c.6.to_string(), 8),
        ("divida_nacional_por_natureza_juridica", "natureza_grupo", |c| c.7.clone(), 3),
    ];
    for (table, key, code, least) in tables {
        let mut by_key: BTreeMap<String, (u64, i64)> = BTreeMap::new();
        for (cell, (n, c)) in &truth.cells {
            let code = Some(code(cell)).filter(|c| !c.is_empty()).unwrap_or_else(|| "PF".into());
            for k in [code, "TOTAL".to_string()] {
                let e = by_key.entry(k).or_default();
                e.0 += n;
                e.1 += c;
            }
        }
        let query = read(&tmp.path().join(format!("files-run/aggregates/{table}.parquet")));
        let got: BTreeMap<String, (u64, Decimal)> = rows(&query, &[key, "inscricoes", "valor_total"])
            .into_iter()
            .map(|r| {
                let n = r[1].as_deref().unwrap().parse().unwrap();
                (r[0].clone().unwrap(), (n, r[2].as_deref().unwrap().parse::<Decimal>().unwrap()))
            })
            .collect();
        let want: BTreeMap<String, (u64, Decimal)> =
            by_key.iter().map(|(g, (n, c))| (g.clone(), (*n, Decimal::new(*c, 2)))).collect();
        assert_eq!(got, want, "{table}");
        assert!(!want.contains_key("?"), "every company of the dataset is in RFB's files: {want:?}");
        assert!(want.len() >= least, "{table}: {want:?}");
    }
    // The cross of state by tax group, with both margins and the grand total.
    let mut cross: BTreeMap<(String, String), Decimal> = BTreeMap::new();
    for ((uf, _, _, grupo, ..), (_, c)) in &truth.cells {
        for key in [(uf.clone(), grupo.to_string()), (uf.clone(), "TOTAL".into())] {
            for key in [key.clone(), ("TOTAL".into(), key.1.clone())] {
                *cross.entry(key).or_default() += Decimal::new(*c, 2);
            }
        }
    }
    let query = read(&tmp.path().join("files-run/aggregates/divida_nacional_uf_grupo.parquet"));
    let got: BTreeMap<(String, String), Decimal> = rows(&query, &["uf", "grupo_tributo", "valor_total"])
        .into_iter()
        .map(|r| ((r[0].clone().unwrap(), r[1].clone().unwrap()), r[2].as_deref().unwrap().parse().unwrap()))
        .collect();
    assert_eq!(got, cross, "divida_nacional_uf_grupo");
    // The report's section names its source and shows the total, as an analyst reads it.
    let html = std::fs::read_to_string(tmp.path().join("files-run/report.html")).unwrap();
    let section = html.split("id=\"divida-nacional\"").nth(1).expect("the national section");
    let section = section.split("</section>").next().unwrap();
    assert!(section.contains("Dívida ativa da União inscrita (PGFN)"), "{section}");
    assert!(section.contains(&brl(by_uf["TOTAL"].1)), "{} in {section}", brl(by_uf["TOTAL"].1));
    for label in ["Entidades empresariais", "Pessoa física (sem CNAE nem natureza jurídica)"] {
        assert!(section.contains(label), "{label} in {section}");
    }
    // A release has no month before: no empty change columns.
    assert!(!section.contains("Variação no mês"), "{section}");
    let (n, c) = truth.cells.values().fold((0, 0), |(n, c), (k, v)| (n + k, c + v));
    assert_eq!(
        (national["inscricoes"].as_u64().unwrap(), value(&national["valor"])),
        (n, Decimal::new(c, 2))
    );
    assert_eq!(national["valores_ilegiveis"].as_u64(), Some(truth.unreadable));
    assert_eq!(national["inscricoes_empresas_sem_rfb"].as_u64(), Some(0));
    let quarter = m["open_data"]["period"]["quarter"].as_str().expect("the release's quarter");
    assert_eq!(national["fonte"], format!("dívida ativa da União inscrita (PGFN), trimestre {quarter}"));
    // Both kinds of debtor are there, and every state the dataset's companies are in.
    for tipo in ["J", "F"] {
        assert!(truth.cells.keys().any(|k| k.1 == tipo), "the dataset holds {tipo} debtors");
    }
    let states: BTreeSet<&str> = truth.cells.keys().map(|k| k.0.as_str()).collect();
    assert!(states.len() >= 20, "the release covers the country: {states:?}");
    assert!(stderr.contains("the release's dívida ativa:"), "{stderr}");
}
