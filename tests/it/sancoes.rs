//! `aggregates/sancoes.parquet` against the embedded dataset's own record of who is on which
//! public list: the dataset writes CEIS, CNEP, CEPIM, Leniência, the MTE's Cadastro de
//! Empregadores and IBAMA's embargoes in their published layouts beside its release, with
//! portfolio companies on them by each way a company is reached; `Dataset::listas_truth` says
//! which record touches which company, how and whether in force, from the dataset's partners and
//! groups (never through the reader or the SQL). A list whose header changed stops the run.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common_bin::*;
use fiscal_report::api::Cnpj;
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

pub(crate) const SCALE: f64 = 0.05;

/// A row of `sancoes` as the truth says it: (cnpj, lista, vinculo, vigente, sancionado).
type Match = (String, String, String, bool, String);

fn text(df: &DataFrame, column: &str, i: usize) -> String {
    let c = df.column(column).unwrap().cast(&DataType::String).unwrap();
    c.str().unwrap().get(i).unwrap_or_default().to_string()
}

fn matches(df: &DataFrame) -> Vec<Match> {
    let vigente = df.column("vigente").unwrap().bool().unwrap().clone();
    let mut out: Vec<Match> = (0..df.height())
        .map(|i| {
            let t = |c: &str| text(df, c, i);
            (t("cnpj"), t("lista"), t("vinculo"), vigente.get(i).unwrap(), t("sancionado"))
        })
        .collect();
    out.sort();
    out
}

/// `run --open-data dir/downloads` for the CNPJs `cnpjs` into `dir/run`.
pub(crate) fn run_files(dir: &Path, cnpjs: &[String]) -> std::process::Output {
    std::fs::write(dir.join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let args = ["--quiet", "run", "--open-data", "downloads", "--cnpjs", "carteira.txt", "--out", "run"];
    bin().current_dir(dir).args(args).output().unwrap()
}

/// The dataset's release and its public lists written under `dir/downloads`.
pub(crate) fn write_release(dir: &Path) {
    let o = bin()
        .args(["serve", "--scale", "0.05", "--write-open-data"])
        .arg(dir.join("downloads"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Some of the demo's companies and every company the lists were made about.
pub(crate) fn listed_portfolio(d: &Dataset) -> Vec<Cnpj> {
    let mut portfolio: Vec<Cnpj> = d.demo_portfolio(40);
    portfolio.extend(d.listas().targets.iter().cloned());
    portfolio.sort();
    portfolio.dedup();
    portfolio
}

/// The dataset's release and lists written under `dir/downloads`, and a run over them for
/// `portfolio` into `dir/run`: its `sancoes`.
pub(crate) fn run_over_the_release(dir: &Path, portfolio: &[Cnpj]) -> DataFrame {
    write_release(dir);
    let cnpjs: Vec<String> = portfolio.iter().map(ToString::to_string).collect();
    let o = run_files(dir, &cnpjs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let path = dir.join("run/aggregates/sancoes.parquet");
    ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap()
}

#[test]
fn sancoes_equals_the_datasets_truth_for_each_way_a_company_is_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let lists = d.listas();
    let portfolio = listed_portfolio(&d);
    let sancoes = run_over_the_release(tmp.path(), &portfolio);

    let truth: Vec<Match> = d
        .listas_truth(&portfolio)
        .into_iter()
        .map(|t| (t.cnpj, t.lista, t.vinculo.to_string(), t.vigente, t.sancionado))
        .collect();
    // The truth meets every way of being listed, in force and not, so the comparison means it.
    let ways: BTreeSet<&str> = truth.iter().map(|t| t.2.as_str()).collect();
    assert_eq!(ways, BTreeSet::from(["cnpj", "grupo", "raiz", "socio", "socio_possivel"]), "{truth:?}");
    let lists_met: BTreeSet<&str> = truth.iter().map(|t| t.1.as_str()).collect();
    assert_eq!(
        lists_met.len(),
        fiscal_report::api::listas::LISTAS.len(),
        "every list touches the portfolio: {lists_met:?}"
    );
    // PEP: a partner in office is possibly him (in force), his namesake with other middle
    // digits reaches no one, and a partner whose grace period ended shows, not in force.
    let peps: Vec<&Match> = truth.iter().filter(|t| t.1 == "PEP").collect();
    assert!(peps.iter().all(|t| t.2 == "socio_possivel"), "{peps:?}");
    assert!(peps.iter().any(|t| t.3) && peps.iter().any(|t| !t.3), "{peps:?}");
    let on_pep = lists.records.iter().filter(|r| r.lista == "PEP").count();
    assert_eq!((peps.len(), on_pep), (2, 3), "the namesake is on the file and reaches no one");
    // Ended (another establishment's CEIS) and not yet started (a CEIS of its own).
    assert!(truth.iter().any(|t| t.2 == "raiz" && !t.3), "an ended sanction: {truth:?}");
    assert!(truth.iter().any(|t| t.1 == "CEIS" && t.2 == "cnpj" && !t.3), "one not yet started: {truth:?}");
    assert!(truth.iter().any(|t| t.1 == "IBAMA" && !t.3), "an embargo lifted: {truth:?}");
    assert!(
        truth.iter().any(|t| t.1 == "TRABALHO_ESCRAVO" && t.3)
            && truth.iter().any(|t| t.1 == "TRABALHO_ESCRAVO" && !t.3)
    );

    assert_eq!(matches(&sancoes), truth, "sancoes against the dataset's truth");
    // Each PEP row says the office and the organ, as the file gives them.
    for i in (0..sancoes.height()).filter(|&i| text(&sancoes, "lista", i) == "PEP") {
        assert!(!text(&sancoes, "categoria", i).is_empty() && !text(&sancoes, "orgao", i).is_empty());
    }
    // The partners' own table (the workbook's "Sócios PEP"): the PEP rows, exposed while in force.
    let pep = ParquetReader::new(
        std::fs::File::open(tmp.path().join("run/aggregates/socios_pep.parquet")).unwrap(),
    )
    .finish()
    .unwrap();
    let exposto = pep.column("exposto").unwrap().bool().unwrap().clone();
    let mut got: Vec<(String, bool, String)> = (0..pep.height())
        .map(|i| (text(&pep, "cnpj", i), exposto.get(i).unwrap(), text(&pep, "cpf_mascarado", i)))
        .collect();
    got.sort();
    let want: Vec<(String, bool, String)> = peps.iter().map(|t| (t.0.clone(), t.3, t.4.clone())).collect();
    assert_eq!(got, want, "socios_pep against the PEP truth");
    for i in 0..pep.height() {
        assert!(!text(&pep, "funcao", i).is_empty() && !text(&pep, "razao_social", i).is_empty());
    }

    // A company on no list never shows by its own CNPJ or root: no list document has its root.
    let listed_roots: BTreeSet<String> = lists
        .records
        .iter()
        .map(|r| r.documento.chars().filter(char::is_ascii_digit).collect::<String>())
        .filter(|digits| digits.len() == 14)
        .map(|digits| digits[..8].to_string())
        .collect();
    for i in 0..sancoes.height() {
        let (cnpj, vinculo) = (text(&sancoes, "cnpj", i), text(&sancoes, "vinculo", i));
        if vinculo == "cnpj" || vinculo == "raiz" {
            assert!(listed_roots.contains(&cnpj[..8]), "{cnpj} shown by {vinculo} but on no list");
        }
    }
    let unlisted = portfolio.iter().filter(|c| !listed_roots.contains(c.basico())).count();
    assert!(unlisted > 20, "most of the portfolio is on no list ({unlisted})");

    // The fine as the dataset priced it, to the cent; the placeholder reaches no one.
    let cnep = (0..sancoes.height()).find(|&i| text(&sancoes, "lista", i) == "CNEP").expect("a CNEP row");
    let cents = lists.records.iter().find(|r| r.lista == "CNEP").and_then(|r| r.valor_multa_cents).unwrap();
    assert_eq!(text(&sancoes, "valor_multa", cnep), format!("{}.{:02}", cents / 100, cents % 100));
    assert_eq!(sancoes.column("valor_multa").unwrap().dtype(), &DataType::Decimal(18, 2));
    let placeholder = fiscal_report::simulator::dataset::PLACEHOLDER;
    assert!((0..sancoes.height()).all(|i| text(&sancoes, "sancionado", i) != placeholder));
    let listas =
        fiscal_report::export::tables::read_exported_table(&tmp.path().join("run"), "listas").unwrap();
    let in_listas = (0..listas.height()).filter(|&i| text(&listas, "sancionado", i) == placeholder).count();
    assert_eq!(in_listas, 1, "the placeholder is kept in listas, out of the matching");
}

#[test]
fn a_list_whose_header_changed_stops_the_run_with_exit_2_naming_the_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("downloads");
    std::fs::create_dir_all(files.join("cgu")).unwrap();
    let header = "\"CADASTRO\";\"TIPO DE PESSOA\";\"CPF OU CNPJ\";\"NOME DO SANCIONADO\";\"CATEGORIA DA SANÇÃO\";\
                  \"DATA INÍCIO SANÇÃO\";\"DATA FIM SANÇÃO\";\"ÓRGÃO SANCIONADOR\"\r\n";
    let latin1: Vec<u8> = header.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect();
    std::fs::write(files.join("cgu/20260928_CEIS.csv"), latin1).unwrap();
    let o = run_files(tmp.path(), &["04071544000103".to_string()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    for said in ["cgu/20260928_CEIS.csv", "CEIS", "CPF OU CNPJ DO SANCIONADO", "DATA FINAL SANÇÃO"] {
        assert!(stderr.contains(said), "{said} not in: {stderr}");
    }
    assert!(!tmp.path().join("run/manifest.json").exists(), "nothing written");
}
