//! `fiscal-report dossie`: every section of a company's dossier checked against the embedded
//! registry's ground truth, for a company with branches, partners, works and debts, and for
//! one with none of them (its empty sections say so instead of vanishing).

use std::collections::BTreeMap;

use crate::common_bin::*;
use fiscal_report::api::{Categoria, Cnpj};
use fiscal_report::report::Locale;
use fiscal_report::report::format::{mask_cnpj, money};
use fiscal_report::simulator::{Dataset, RegistryConfig};
use rust_decimal::Decimal;

fn reais(cents: i64) -> String {
    money(Decimal::new(cents, 2), Locale::PtBr)
}

/// The Markdown between `## {title}` and the next `## ` heading.
fn section<'a>(md: &'a str, title: &str) -> &'a str {
    let start = md.find(&format!("\n## {title}\n")).unwrap_or_else(|| panic!("no section {title}:\n{md}"));
    let rest = &md[start + 4..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    &rest[..end]
}

/// Table rows of a Markdown section (header and separator lines left out).
fn table_rows(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("| ")).collect();
    lines.into_iter().skip(1).filter(|l| !l.starts_with("|---")).collect()
}

fn strings() -> toml::Table {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join("templates/strings/pt-BR.toml")).unwrap().parse().unwrap()
}

#[test]
fn every_section_equals_the_truth_for_a_busy_company_and_a_quiet_one() {
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0);
    let candidates: Vec<Cnpj> = (0..d.company_count().min(5_000)).map(|i| d.company_cnpj(i)).collect();
    let truth = d.portfolio_truth(&candidates);
    let has_debts =
        |c: &fiscal_report::simulator::dataset::CompanyTruth| c.dividas.values().any(|x| x.records > 0);
    let busy = truth
        .companies
        .iter()
        .find(|c| {
            c.estabelecimentos > 1
                && c.socios > 0
                && c.obras > 0
                && has_debts(c)
                && (c.parcelamentos.records > 0 || c.transacoes.records > 0)
        })
        .expect("a company with branches, partners, works, debts and a plan or a deal");
    let quiet = truth
        .companies
        .iter()
        .find(|c| {
            c.found
                && c.socios == 0
                && c.obras == 0
                && !has_debts(c)
                && c.parcelamentos.records == 0
                && c.transacoes.records == 0
        })
        .expect("a company with none of them");

    let dir = tempfile::tempdir().unwrap();
    let o =
        bin().args(["--quiet", "dossie", &busy.cnpj, &quiet.cnpj, "--out"]).arg(dir.path()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |cnpj: &str, ext: &str| {
        std::fs::read_to_string(dir.path().join(format!("dossies/{cnpj}.{ext}"))).unwrap()
    };

    // --- the busy company ---
    let md = read(&busy.cnpj, "md");
    let cnpj = Cnpj::parse(&busy.cnpj).unwrap();
    let records = d.records_truth(&cnpj).unwrap();
    assert!(md.starts_with(&format!("# {}", records.razao_social.clone().unwrap().replace('&', "&amp;"))));

    let estab = section(&md, "Estabelecimentos (matriz e filiais)");
    assert_eq!(table_rows(estab).len(), busy.estabelecimentos, "{estab}");
    for e in d.estabelecimentos(&cnpj).unwrap() {
        assert!(estab.contains(&mask_cnpj(e.cnpj_completo.as_deref().unwrap())), "{estab}");
    }
    let socios = section(&md, "Sócios");
    assert_eq!(table_rows(socios).len(), busy.socios, "{socios}");
    for s in d.socios(&cnpj).unwrap() {
        assert!(socios.contains(s.nome_socio_razao_social.as_deref().unwrap()), "{socios}");
    }
    let obras = section(&md, "Obras de construção civil (CNO)");
    let works = d.obras(&cnpj).unwrap();
    assert_eq!(obras.matches("\n### CNO ").count() + usize::from(obras.starts_with("### CNO")), works.len());
    for w in &works {
        let cno = w.cno.as_deref().unwrap();
        let block_start = obras.find(&format!("### CNO {cno}")).unwrap_or_else(|| panic!("no work {cno}"));
        let block = &obras[block_start..];
        let block = &block[..block[4..].find("### CNO").map_or(block.len(), |i| i + 4)];
        for c in d.cnaes(cno).unwrap() {
            assert!(block.contains(c.cnae.as_deref().unwrap()), "{cno}: {block}");
        }
        for a in d.areas(cno).unwrap() {
            assert!(block.contains(a.metragem.as_deref().unwrap()), "{cno}: {block}");
        }
        for v in d.vinculos(cno).unwrap() {
            assert!(block.contains(v.ni_responsavel.as_deref().unwrap()), "{cno}: {block}");
        }
    }

    let dividas = section(&md, "Dívida ativa por categoria");
    let labels = strings();
    let mut total_cents = 0;
    for c in Categoria::ALL {
        let t = &busy.dividas[c.as_str()];
        let label = labels[&format!("dossie_categoria_{}", c.as_str())].as_str().unwrap();
        let start = dividas.find(&format!("### {label}\n")).unwrap();
        let part = &dividas[start..];
        let part = &part[..part[4..].find("### ").map_or(part.len(), |i| i + 4)];
        let rows = table_rows(part);
        // The rows, then the total line.
        assert_eq!(rows.len().saturating_sub(1), t.records, "{label}: {part}");
        for (numero, r) in records.dividas.iter().filter(|(_, r)| r.categoria == c.as_str()) {
            let row = rows.iter().find(|l| l.contains(numero.as_str())).unwrap_or_else(|| panic!("{numero}"));
            if let Some(cents) = r.valor_cents {
                assert!(row.contains(&reais(cents)), "{row}");
            }
            assert!(row.contains(if r.ajuizado { "| sim |" } else { "| não |" }), "{row}");
        }
        let cents = t.ajuizado_sim_cents + t.ajuizado_nao_cents;
        total_cents += cents;
        if t.records > 0 {
            let total = rows.last().unwrap();
            assert!(total.contains(&format!("**{}**", reais(cents))), "{total}");
            assert!(total.contains(&reais(t.ajuizado_sim_cents)), "{total}");
        }
    }
    // The standing the queries estimate equals the rule applied to the truth's registrations.
    let standing = crate::changes::estimated_standing(&records);
    assert!(dividas.contains(&format!("**Situação fiscal estimada: {standing}**")), "{standing}: {dividas}");
    let plans = section(&md, "Parcelamentos (saldo devedor)");
    assert_eq!(table_rows(plans).len().saturating_sub(1), busy.parcelamentos.records);
    if busy.parcelamentos.records > 0 {
        assert!(plans.contains(&format!("**{}**", reais(busy.parcelamentos.saldo_devedor_cents))), "{plans}");
    }
    let deals = section(&md, "Transações (saldo devedor)");
    assert_eq!(table_rows(deals).len().saturating_sub(1), busy.transacoes.records);
    for processo in records.transacoes.keys() {
        assert!(deals.contains(processo.as_str()), "{processo}: {deals}");
    }
    total_cents += busy.parcelamentos.saldo_devedor_cents + busy.transacoes.saldo_devedor_cents;
    let cadastro = section(&md, "Cadastro");
    assert!(cadastro.contains(&format!("| Exposição total | {} |", reais(total_cents))), "{cadastro}");
    assert!(cadastro.contains(&format!("| {} |", busy.dividas.values().map(|x| x.records).sum::<usize>())));

    // The HTML has the same sections, each with its anchor.
    let html = read(&busy.cnpj, "html");
    for id in ["cadastro", "estabelecimentos", "socios", "obras", "dividas", "parcelamentos", "transacoes"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }

    // The same records as typed tables: one row per record, dates as dates, codes as text.
    let table = |name: &str| {
        use polars::prelude::*;
        ParquetReader::new(std::fs::File::open(dir.path().join(format!("dossies/{name}.parquet"))).unwrap())
            .finish()
            .unwrap()
    };
    let estab = table("estabelecimentos");
    assert_eq!(estab.height(), busy.estabelecimentos + quiet.estabelecimentos);
    assert_eq!(estab.column("data_inicio_atividade").unwrap().dtype(), &polars::prelude::DataType::Date);
    assert!(estab.column("cnpj").unwrap().str().unwrap().iter().all(|c| c.is_some_and(|c| c.len() == 14)));
    assert_eq!(table("socios").height(), busy.socios + quiet.socios);
    assert_eq!(table("obras").height(), works.len());
    let cnaes: usize = works.iter().map(|w| d.cnaes(w.cno.as_deref().unwrap()).unwrap().len()).sum();
    assert_eq!(table("obra_cnaes").height(), cnaes);
    let areas: usize = works.iter().map(|w| d.areas(w.cno.as_deref().unwrap()).unwrap().len()).sum();
    assert_eq!(table("obra_areas").height(), areas);
    let links: usize = works.iter().map(|w| d.vinculos(w.cno.as_deref().unwrap()).unwrap().len()).sum();
    assert_eq!(table("obra_vinculos").height(), links);
    assert_eq!(
        table("obra_vinculos").column("data_inicio").unwrap().dtype(),
        &polars::prelude::DataType::Date
    );

    // --- the quiet company: every empty section is there and says so ---
    let md = read(&quiet.cnpj, "md");
    let said = |key: &str| labels[key].as_str().unwrap().to_string();
    let expect: BTreeMap<&str, String> = [
        ("Sócios", said("dossie_sem_socios")),
        ("Obras de construção civil (CNO)", said("dossie_sem_obras")),
        ("Parcelamentos (saldo devedor)", said("dossie_sem_parcelamentos")),
        ("Transações (saldo devedor)", said("dossie_sem_transacoes")),
    ]
    .into();
    for (title, sentence) in expect {
        assert!(section(&md, title).contains(&sentence), "{title}: {md}");
    }
    let dividas = section(&md, "Dívida ativa por categoria");
    assert_eq!(dividas.matches(&said("dossie_sem_dividas")).count(), 3);
    assert!(dividas.contains("**Situação fiscal estimada: sem inscrições**"), "{dividas}");
    assert_eq!(table_rows(section(&md, "Estabelecimentos (matriz e filiais)")).len(), quiet.estabelecimentos);
    assert!(section(&md, "Cadastro").contains(&format!("| Exposição total | {} |", reais(0))));
}

#[test]
fn a_bad_cnpj_is_refused_before_anything_is_fetched() {
    let dir = tempfile::tempdir().unwrap();
    let o = bin().args(["dossie", "12.345.678/0001-00", "--out"]).arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a valid CNPJ"));
    assert!(!dir.path().join("dossies").exists());
}

/// A CNPJ the service does not know costs its own dossier: the others are written, the command
/// names it and exits 5; when none is known, nothing is written.
#[test]
fn an_unknown_cnpj_costs_only_its_own_dossier() {
    let known = fiscal_report::simulator::Dataset::generate(
        fiscal_report::simulator::RegistryConfig::DEFAULT_SEED,
        1.0,
    )
    .demo_portfolio(1)
    .remove(0);
    let unknown = "99.999.999/0001-91";
    let dir = tempfile::tempdir().unwrap();
    let o = bin().args(["dossie", known.as_str(), unknown, "--out"]).arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(5), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains(unknown));
    assert!(dir.path().join(format!("dossies/{}.html", known.as_str())).is_file());
    assert!(!dir.path().join("dossies/99999999000191.html").exists());

    let dir = tempfile::tempdir().unwrap();
    let o = bin().args(["dossie", unknown, "--out"]).arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(5));
    assert!(!dir.path().join("dossies").exists());
}

/// `run --dossies N`: the N largest exposures get a dossier, the report links to each, and
/// each dossier's exposure is the one the portfolio aggregate gives that company.
#[test]
fn a_run_writes_the_largest_exposures_dossiers_and_links_them() {
    use polars::prelude::*;
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
    let cnpjs: Vec<String> = d.demo_portfolio(12).iter().map(|c| c.to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    // An analyst's templates folder copied before the dossiers existed: they use the built-in pages.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let templates = dir.path().join("my-templates");
    copy_dir(&root.join("templates"), &templates);
    std::fs::remove_file(templates.join("dossie.html.hbs")).unwrap();
    std::fs::remove_file(templates.join("dossie.md.hbs")).unwrap();
    let out = demo_run_into(
        dir.path(),
        &cnpjs,
        &[
            "--demo-scale",
            "0.05",
            "--ano-mes",
            "202609",
            "--uf",
            "SP",
            "--dossies",
            "3",
            "--templates",
            templates.to_str().unwrap(),
        ],
    );
    let exposure =
        ParquetReader::new(std::fs::File::open(out.join("aggregates/carteira_exposicao.parquet")).unwrap())
            .finish()
            .unwrap()
            .sort(["exposicao_total"], SortMultipleOptions::default().with_order_descending(true))
            .unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let totals = exposure.column("exposicao_total").unwrap().cast(&DataType::String).unwrap();
    for i in 0..3 {
        let cnpj = exposure.column("cnpj").unwrap().str().unwrap().get(i).unwrap().to_string();
        assert!(html.contains(&format!("href=\"dossies/{cnpj}.html\"")), "no link to {cnpj}");
        assert!(md.contains(&format!("(dossies/{cnpj}.md)")), "no link to {cnpj}");
        let dossier = std::fs::read_to_string(out.join(format!("dossies/{cnpj}.md"))).unwrap();
        let total: Decimal = totals.str().unwrap().get(i).unwrap().parse().unwrap();
        assert!(dossier.contains(&format!("| Exposição total | {} |", money(total, Locale::PtBr))), "{cnpj}");
    }
    // The table of every company links the same three dossiers, each to a page that exists,
    // and holds one row per company of the portfolio aggregate.
    let table = &html[html.find("id=\"tabela-empresas\"").expect("the table of every company")..];
    let table = &table[..table.find("</table>").unwrap()];
    let linked: Vec<&str> = table.split("href=\"").skip(1).map(|s| s.split('"').next().unwrap()).collect();
    assert_eq!(linked.len(), 3, "{linked:?}");
    for href in linked {
        assert!(out.join(href).is_file(), "{href} links to no page");
    }
    assert_eq!(table.matches("<tr>").count() - 1, exposure.height(), "one row per company");
    let pages = std::fs::read_dir(out.join("dossies"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "html" || x == "md"))
        .count();
    assert_eq!(pages, 6);
    // The pages and the six typed tables, each listed in the manifest.
    let manifest = fiscal_report::export::manifest::Manifest::read(&out).unwrap();
    assert_eq!(manifest.files.iter().filter(|f| f.path.starts_with("dossies/")).count(), 12);
    // Re-rendered from the run, the report keeps its links and the manifest its dossiers.
    let o = bin().args(["--quiet", "report", "--from"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for i in 0..3 {
        let cnpj = exposure.column("cnpj").unwrap().str().unwrap().get(i).unwrap().to_string();
        assert!(md.contains(&format!("(dossies/{cnpj}.md)")), "no link to {cnpj} after report --from");
    }
    let manifest = fiscal_report::export::manifest::Manifest::read(&out).unwrap();
    assert_eq!(manifest.files.iter().filter(|f| f.path.starts_with("dossies/")).count(), 12);
}

/// With a store, each dossier shows the company's exposure at every snapshot: the values the
/// monthly report's exposure query gave for it in each month's run.
#[test]
fn with_a_store_each_dossier_shows_the_exposure_at_every_snapshot() {
    use polars::prelude::*;
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
    let cnpjs: Vec<String> = d.demo_portfolio(12).iter().map(|c| c.to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let mut exposure_by_month = Vec::new();
    for month in ["202608", "202609"] {
        let out = dir.path().join(month);
        let o = bin()
            .args([
                "--quiet",
                "run",
                "--demo-scale",
                "0.05",
                "--uf",
                "SP",
                "--as-of",
                month,
                "--dossies",
                "2",
            ])
            .arg("--cnpjs")
            .arg(dir.path().join("carteira.txt"))
            .arg("--store")
            .arg(dir.path().join("store"))
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let df = ParquetReader::new(
            std::fs::File::open(out.join("aggregates/carteira_exposicao.parquet")).unwrap(),
        )
        .finish()
        .unwrap();
        let totals = df.column("exposicao_total").unwrap().cast(&DataType::String).unwrap();
        let by_cnpj: BTreeMap<String, Decimal> = df
            .column("cnpj")
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .zip(totals.str().unwrap().iter())
            .map(|(c, t)| (c.unwrap().to_string(), t.unwrap().parse().unwrap()))
            .collect();
        exposure_by_month.push(by_cnpj);
    }
    let last = dir.path().join("202609/dossies");
    let pages: Vec<_> = std::fs::read_dir(&last)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    assert_eq!(pages.len(), 2);
    for page in pages {
        let cnpj = page.file_stem().unwrap().to_str().unwrap().to_string();
        let md = std::fs::read_to_string(&page).unwrap();
        let history = section(&md, "Histórico da exposição");
        let rows = table_rows(history);
        assert_eq!(rows.len(), 2, "{history}");
        for (row, (label, month)) in rows.iter().zip([("ago/2026", 0), ("set/2026", 1)]) {
            let want = money(exposure_by_month[month][&cnpj], Locale::PtBr);
            assert_eq!(*row, format!("| {label} | {want} |"), "{cnpj}");
        }
        let html = std::fs::read_to_string(last.join(format!("{cnpj}.html"))).unwrap();
        let start = html.find("id=\"historico\"").unwrap();
        assert!(html[start..].split("</section>").next().unwrap().contains("<polyline"), "a chart");
    }
    // Without a store the section says where a history comes from.
    let o =
        bin().args(["--quiet", "dossie", &cnpjs[0], "--out"]).arg(dir.path().join("solo")).output().unwrap();
    assert!(o.status.success());
    let digits: String = cnpjs[0].chars().filter(char::is_ascii_digit).collect();
    let md = std::fs::read_to_string(dir.path().join(format!("solo/dossies/{digits}.md"))).unwrap();
    let said = strings()["dossie_sem_armazenamento"].as_str().unwrap().to_string();
    assert!(section(&md, "Histórico da exposição").contains(&said));
}
