//! Reading whole release folders as a person downloads them, built from the real fixtures
//! (`tests/fixtures/real/`): what is read, what is refused, and how each is named.

use std::io::Write;

use super::*;
use crate::api::Categoria;
use crate::api::models::DividaPgfn;
use whole::Problem;

/// `read_release` with the amounts read by the parser every source shares.
fn read_release(dir: &Path, portfolio: &[Cnpj], partial: bool) -> Result<Release, OpenDataError> {
    super::read_release(dir, portfolio, partial, crate::transform::parse::published_cents)
}

fn fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
    std::fs::read(dir.join(name)).unwrap()
}

fn zip_of(path: &Path, entries: &[(&str, Vec<u8>)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// The fixtures' rows split by `;` as the publisher wrote them (Latin-1), header first.
fn published_lines(name: &str) -> Vec<Vec<String>> {
    let text: String = fixture(name).iter().map(|&b| char::from(b)).collect();
    text.lines().filter(|l| !l.is_empty()).map(|l| l.split(';').map(String::from).collect()).collect()
}

/// A whole release folder as a person downloads it, from the real fixtures: PGFN's three
/// systems (the FGTS zip holding two files of two header versions), RFB's four tables (the
/// fixtures' rows in part 0, parts 1 to 9 without a portfolio row), a code table.
fn release_folder(dir: &Path) {
    zip_of(
        &dir.join("pgfn/2020_trimestre_04/Dados_abertos_Nao_Previdenciario.zip"),
        &[("arquivo_lai_SIDA_202012.csv", fixture("pgfn_nao_previdenciario.csv"))],
    );
    zip_of(
        &dir.join("pgfn/2020_trimestre_04/Dados_abertos_FGTS.zip"),
        &[
            ("arquivo_lai_FGTS_AC_202012.csv", fixture("pgfn_fgts_ac_202012_original.csv")),
            ("arquivo_lai_FGTS_XX_202012.csv", fixture("pgfn_fgts.csv")),
        ],
    );
    zip_of(
        &dir.join("pgfn/2020_trimestre_04/Dados_abertos_Previdenciario.zip"),
        &[("arquivo_lai_PREV_AC_202012.csv", fixture("pgfn_previdenciario_ac_202012_original.csv"))],
    );
    for (zip, entry, file) in [
        ("Empresas", "EMPRECSV", "cnpj_empresas.csv"),
        ("Estabelecimentos", "ESTABELE", "cnpj_estabelecimentos.csv"),
        ("Socios", "SOCIOCSV", "cnpj_socios.csv"),
    ] {
        for part in 0..10 {
            let rows = if part == 0 { fixture(file) } else { Vec::new() };
            let entry = format!("K3241.K03200Y{part}.D40511.{entry}");
            zip_of(&dir.join("cnpj/2024-05").join(format!("{zip}{part}.zip")), &[(&entry, rows)]);
        }
    }
    zip_of(
        &dir.join("cnpj/2024-05/Simples.zip"),
        &[("F.K03200$W.SIMPLES.CSV.D40511", fixture("cnpj_simples.csv"))],
    );
    zip_of(
        &dir.join("cnpj/2024-05/Cnaes.zip"),
        &[("F.K03200$Z.D40511.CNAECSV", b"\"0111301\";\"x\"\n".to_vec())],
    );
}

#[test]
fn a_release_folder_reads_the_portfolio_rows_exactly_and_no_person() {
    let tmp = tempfile::tempdir().unwrap();
    release_folder(tmp.path());
    // Every company the PGFN fixtures name, and one establishment of the RFB fixtures.
    let mut portfolio: Vec<Cnpj> =
        ["pgfn_nao_previdenciario.csv", "pgfn_fgts.csv", "pgfn_fgts_ac_202012_original.csv"]
            .iter()
            .flat_map(|f| published_lines(f).into_iter().skip(1))
            .filter_map(|row| Cnpj::parse(&row[0]).ok())
            .collect();
    portfolio.push(Cnpj::parse("07396865000168").unwrap());
    let release = read_release(tmp.path(), &portfolio, false).unwrap();

    assert_eq!(release.period.quarter.as_deref(), Some("2020T4"));
    assert_eq!(release.period.month.as_deref(), Some("2024-05"));
    assert_eq!(release.files.len(), 3 + 3 * 10 + 1, "{:?}", release.files);
    assert!(release.gaps.is_empty(), "{:?}", release.gaps);
    assert!(release.ignored.is_empty(), "{:?}", release.ignored);
    // The release's own CNAE table, read as published.
    let (file, cnaes) = &release.codes["cnae"];
    assert_eq!(
        (file.as_str(), cnaes.get("0111301").map(String::as_str)),
        ("cnpj/2024-05/Cnaes.zip", Some("x"))
    );
    assert!(release.missing.is_empty(), "{:?}", release.missing);
    for f in &release.files {
        assert_eq!(f.sha256.len(), 64);
        assert!(f.rows_kept <= f.rows_read && f.rows_malformed == 0, "{f:?}");
    }

    // PGFN: each company row kept with its amount as published; no person's row.
    for (file, categoria) in [
        ("pgfn_nao_previdenciario.csv", Categoria::NaoPrevidenciario),
        ("pgfn_fgts.csv", Categoria::Fgts),
        ("pgfn_fgts_ac_202012_original.csv", Categoria::Fgts),
    ] {
        let lines = published_lines(file);
        let (header, rows) = (&lines[0], &lines[1..]);
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        for row in rows {
            let numero = &row[at("NUMERO_INSCRICAO")];
            let kept: Vec<DividaPgfn> = release
                .published
                .dividas
                .iter()
                .filter(|((_, c), _)| *c == categoria)
                .flat_map(|(_, v)| v)
                .map(|r| r.model::<DividaPgfn>().unwrap())
                .filter(|d| d.numero_inscricao.as_deref() == Some(numero.as_str()))
                .filter(|d| d.cpf_cnpj.as_deref() == Some(row[0].as_str()))
                .collect();
            if row[at("TIPO_PESSOA")].starts_with("Pessoa f") {
                assert!(kept.is_empty(), "a person's row was kept: {row:?}");
                continue;
            }
            assert_eq!(kept.len(), 1, "{file}: {row:?}");
            assert_eq!(kept[0].valor_consolidado.as_deref(), Some(row[at("VALOR_CONSOLIDADO")].as_str()));
            assert_eq!(kept[0].tipo_devedor.as_deref(), Some(row[at("TIPO_DEVEDOR")].as_str()));
            // Served, the record carries the release's quarter, as the service stamps it.
            let served = release.published.dividas_of(&Cnpj::parse(&row[0]).unwrap(), categoria);
            let served = served.unwrap().unwrap();
            let served = served.iter().find(|d| d.numero_inscricao.as_deref() == Some(numero.as_str()));
            assert_eq!(served.and_then(|d| d.dataset_trimester.as_deref()), Some("2020T4"));
        }
    }

    // RFB: the establishment asked for, its company, partners and Simples, as published.
    let cnpj = Cnpj::parse("07396865000168").unwrap();
    let profile = release.published.profile(&cnpj).unwrap().unwrap();
    let e = profile.estabelecimento.unwrap();
    assert_eq!(e.cnpj_completo.as_deref(), Some("07396865000168"));
    assert_eq!((e.uf.as_deref(), e.cep.as_deref()), (Some("SC"), Some("89136000")));
    assert_eq!(e.dataset_month.as_deref(), Some("2024-05"));
    let socios = release.published.socios_of(&cnpj).unwrap().unwrap();
    let want: Vec<String> = published_lines("cnpj_socios.csv")
        .into_iter()
        .filter(|r| r[0] == "\"07396865\"")
        .map(|r| r[2].trim_matches('"').to_string())
        .collect();
    let got: Vec<String> = socios.iter().map(|s| s.nome_socio_razao_social.clone().unwrap()).collect();
    assert_eq!(got, want);
    assert!(!want.is_empty());
}

#[test]
fn a_release_of_2021_with_its_names_and_nul_bytes_reads_like_todays() {
    // A company of each RFB fixture: the roots are in their first field.
    let roots: BTreeSet<String> = ["cnpj_empresas.csv", "cnpj_simples.csv", "cnpj_socios.csv"]
        .iter()
        .flat_map(|f| published_lines(f).into_iter().take(3))
        .map(|row| row[0].trim_matches('"').to_string())
        .collect();
    let mut portfolio: Vec<Cnpj> =
        roots.iter().filter_map(|r| Cnpj::from_base(&format!("{r}0001"))).collect();
    portfolio.push(Cnpj::parse("07396865000168").unwrap());
    let today = tempfile::tempdir().unwrap();
    release_folder(today.path());
    // The same rows as RFB released them before late 2022: each file zipped under its own
    // name, the part after the `Y`, NUL bytes between rows and padding the end.
    let old = tempfile::tempdir().unwrap();
    release_folder(old.path());
    std::fs::remove_dir_all(old.path().join("cnpj/2024-05")).unwrap();
    let with_nuls = |file: &str| {
        let mut bytes = fixture(file);
        let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        bytes.splice(at..at, [0u8; 3]);
        bytes.extend([0u8; 5]);
        bytes
    };
    for (suffix, file) in [
        ("EMPRECSV", "cnpj_empresas.csv"),
        ("ESTABELE", "cnpj_estabelecimentos.csv"),
        ("SOCIOCSV", "cnpj_socios.csv"),
    ] {
        for part in 0..10 {
            let entry = format!("K3241.K03200Y{part}.D10710.{suffix}");
            let rows = if part == 0 { with_nuls(file) } else { Vec::new() };
            zip_of(&old.path().join("cnpj/2021-07").join(format!("{entry}.zip")), &[(&entry, rows)]);
        }
    }
    let simples = "F.K03200$W.SIMPLES.CSV.D10710";
    zip_of(
        &old.path().join(format!("cnpj/2021-07/{simples}.zip")),
        &[(simples, with_nuls("cnpj_simples.csv"))],
    );
    let (now, then) = (
        read_release(today.path(), &portfolio, false).unwrap(),
        read_release(old.path(), &portfolio, false).unwrap(),
    );
    assert!(then.gaps.is_empty(), "{:?}", then.gaps);
    assert_eq!(then.period.month.as_deref(), Some("2021-07"));
    assert_eq!(then.files.len(), now.files.len());
    let nuls: u64 = then.files.iter().map(|f| f.nul_bytes_dropped).sum();
    assert_eq!(nuls, 4 * 8, "{:?}", then.files);
    assert!(then.files.iter().all(|f| f.rows_malformed == 0), "{:?}", then.files);
    let (a, b) = (&now.published, &then.published);
    assert!(!b.empresas.is_empty() && !b.socios.is_empty() && !b.simples.is_empty());
    assert_eq!(
        (&a.empresas, &a.estabelecimentos, &a.socios, &a.simples),
        (&b.empresas, &b.estabelecimentos, &b.socios, &b.simples)
    );
}

#[test]
fn an_archive_of_a_months_zips_reads_like_the_zips() {
    let portfolio = [Cnpj::parse("07396865000168").unwrap()];
    let folder = tempfile::tempdir().unwrap();
    release_folder(folder.path());
    // The month's folder downloaded whole: one archive holding its zips, as they were.
    let archived = tempfile::tempdir().unwrap();
    release_folder(archived.path());
    let month = archived.path().join("cnpj/2024-05");
    let mut zips: Vec<(String, Vec<u8>)> = std::fs::read_dir(&month)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (format!("2024-05/{}", p.file_name().unwrap().to_string_lossy()), std::fs::read(p).unwrap()))
        .collect();
    zips.sort();
    // One of them written as a stream (its sizes after each file's data), as some tools do.
    let socios = zips.iter_mut().find(|(n, _)| n.ends_with("Socios0.zip")).unwrap();
    let mut streamed = zip::ZipWriter::new_stream(Vec::new());
    let mut original = zip::ZipArchive::new(std::io::Cursor::new(socios.1.clone())).unwrap();
    let mut entry = original.by_index(0).unwrap();
    let name = entry.name().unwrap().to_string();
    streamed.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
    std::io::copy(&mut entry, &mut streamed).unwrap();
    drop(entry);
    socios.1 = streamed.finish().unwrap().into_inner();
    let streamed_digest = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(&socios.1))
    };
    std::fs::remove_dir_all(&month).unwrap();
    let entries: Vec<(&str, Vec<u8>)> = zips.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    zip_of(&archived.path().join("cnpj/2024-05.zip"), &entries);

    let (a, b) = (
        read_release(folder.path(), &portfolio, false).unwrap(),
        read_release(archived.path(), &portfolio, false).unwrap(),
    );
    assert!(b.gaps.is_empty(), "{:?}", b.gaps);
    assert_eq!(b.period, a.period);
    // A code table inside an archive is not read: codes/ names its codes.
    assert_eq!(b.ignored, ["cnpj/2024-05.zip/2024-05/Cnaes.zip"]);
    // The same files, by the same digests, under the archive's name.
    let files = |r: &Release| -> Vec<(String, String, u64, u64)> {
        let mut v: Vec<_> = r
            .files
            .iter()
            .map(|f| {
                (f.path.rsplit('/').next().unwrap().to_string(), f.sha256.clone(), f.rows_read, f.rows_kept)
            })
            .collect();
        v.sort();
        v
    };
    // Socios0.zip, written otherwise, by the digest of its own bytes.
    let socios0 =
        |r: &Release| r.files.iter().find(|f| f.path.ends_with("Socios0.zip")).unwrap().sha256.clone();
    assert_eq!(socios0(&b), streamed_digest);
    let others = |r: &Release| {
        let mut v = files(r);
        v.iter_mut().filter(|f| f.0 == "Socios0.zip").for_each(|f| f.1.clear());
        v
    };
    assert_eq!(others(&b), others(&a));
    assert!(b.files.iter().any(|f| f.path == "cnpj/2024-05.zip/2024-05/Socios0.zip"), "{:?}", b.files);
    let (p, q) = (&a.published, &b.published);
    assert_eq!(
        (&p.empresas, &p.estabelecimentos, &p.socios, &p.simples),
        (&q.empresas, &q.estabelecimentos, &q.socios, &q.simples)
    );
    assert!(!q.socios.is_empty());
}

#[test]
fn broken_archives_unfinished_old_names_and_a_release_all_broken_are_gaps() {
    let tmp = tempfile::tempdir().unwrap();
    release_folder(tmp.path());
    // A month's archive cut short, and Simples of before late 2022 still downloading.
    std::fs::write(tmp.path().join("cnpj/arquivos.zip"), b"PK\x03\x04 cut").unwrap();
    let unfinished = "cnpj/2024-05/F.K03200$W.SIMPLES.CSV.D40511.zip.crdownload";
    std::fs::write(tmp.path().join(unfinished), b"half").unwrap();
    let release = read_release(tmp.path(), &[], true).unwrap();
    let gaps: Vec<(&str, Problem)> = release.gaps.iter().map(|g| (g.file.as_str(), g.problem)).collect();
    assert_eq!(gaps, [(unfinished, Problem::Unfinished), ("cnpj/arquivos.zip", Problem::Unreadable)]);
    assert!(!release.files.iter().any(|f| f.path.contains("crdownload")), "{:?}", release.files);
    // Every PGFN zip broken: its source is partial, not absent; nothing readable at all: refused.
    for zip in
        ["Dados_abertos_FGTS.zip", "Dados_abertos_Previdenciario.zip", "Dados_abertos_Nao_Previdenciario.zip"]
    {
        std::fs::write(tmp.path().join("pgfn/2020_trimestre_04").join(zip), b"").unwrap();
    }
    let release = read_release(tmp.path(), &[], true).unwrap();
    let status = release.published.fontes["pgfn"].status.clone().unwrap_or_default();
    assert!(status.starts_with("parcial: faltam Dados_abertos_FGTS.zip"), "{status}");
    std::fs::remove_dir_all(tmp.path().join("cnpj")).unwrap();
    let e = read_release(tmp.path(), &[], true).unwrap_err();
    assert!(matches!(e, OpenDataError::Partial { .. }), "{e}");
}

#[test]
fn a_broken_zip_or_an_unknown_header_names_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    release_folder(tmp.path());
    let sida = tmp.path().join("pgfn/2020_trimestre_04/Dados_abertos_Nao_Previdenciario.zip");
    let bytes = std::fs::read(&sida).unwrap();
    std::fs::write(&sida, &bytes[..bytes.len() / 2]).unwrap();
    let e = read_release(tmp.path(), &[], false).unwrap_err();
    assert!(matches!(e, OpenDataError::Partial { .. }), "{e}");
    let said = e.to_string();
    assert!(said.contains("Dados_abertos_Nao_Previdenciario.zip is not a readable zip"), "{said}");
    assert!(said.contains("--partial"), "{said}");
    // With --partial the rest is read, and the broken zip is named among the gaps.
    let release = read_release(tmp.path(), &[], true).unwrap();
    let gaps: Vec<&str> = release.gaps.iter().map(|g| g.file.as_str()).collect();
    assert_eq!(gaps, ["pgfn/2020_trimestre_04/Dados_abertos_Nao_Previdenciario.zip"]);
    assert!(!release.files.iter().any(|f| f.path.contains("Nao_Previdenciario")), "{:?}", release.files);
    let status = release.published.fontes["pgfn"].status.clone().unwrap_or_default();
    assert_eq!(status, "parcial: faltam Dados_abertos_Nao_Previdenciario.zip");

    std::fs::write(&sida, bytes).unwrap();
    let fgts = tmp.path().join("pgfn/2020_trimestre_04/Dados_abertos_FGTS.zip");
    zip_of(&fgts, &[("arquivo_lai_FGTS_202012.csv", b"CNPJ;NOME;VALOR\n1;x;2\n".to_vec())]);
    let e = read_release(tmp.path(), &[], false).unwrap_err();
    assert!(matches!(e, OpenDataError::Layout { .. }), "{e}");
    assert!(
        e.to_string().contains("arquivo_lai_FGTS_202012.csv") && e.to_string().contains("CPF_CNPJ"),
        "{e}"
    );

    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(read_release(empty.path(), &[], true), Err(OpenDataError::Empty { .. })));

    // Two quarters side by side are two releases, never read as one.
    let two = tempfile::tempdir().unwrap();
    release_folder(two.path());
    let next = two.path().join("pgfn/2021_trimestre_01/Dados_abertos_Nao_Previdenciario.zip");
    zip_of(&next, &[("arquivo_lai_SIDA_202103.csv", fixture("pgfn_nao_previdenciario.csv"))]);
    let e = read_release(two.path(), &[], false).unwrap_err();
    assert!(matches!(e, OpenDataError::Mixed { .. }), "{e}");
    let e = e.to_string();
    assert!(
        e.contains("2020T4 by pgfn/2020_trimestre_04/") && e.contains(", 2021T1 by pgfn/2021_trimestre_01/"),
        "{e}"
    );
}

const SIDA_HEADER: &str = "CPF_CNPJ;TIPO_PESSOA;TIPO_DEVEDOR;NOME_DEVEDOR;UF_DEVEDOR;UNIDADE_RESPONSAVEL;\
    NUMERO_INSCRICAO;TIPO_SITUACAO_INSCRICAO;SITUACAO_INSCRICAO;RECEITA_PRINCIPAL;DATA_INSCRICAO;\
    INDICADOR_AJUIZADO;VALOR_CONSOLIDADO";

fn sida_row(cnpj: &Cnpj, nome: &str, numero: &str, valor: &str) -> String {
    format!(
        "{};Pessoa jurídica;PRINCIPAL;{nome};SP;SAO PAULO;{numero};Em cobrança;ATIVA EM COBRANCA;IRPJ;\
         15/03/2019;SIM;{valor}",
        cnpj.masked()
    )
}

/// A PGFN zip of one SIDA file with `lines` (Latin-1), in a quarter's folder.
fn sida_zip(dir: &Path, lines: &[String]) {
    let text = lines.join("\n") + "\n";
    let bytes: Vec<u8> = text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect();
    zip_of(
        &dir.join("2024_trimestre_01/Dados_abertos_Nao_Previdenciario.zip"),
        &[("arquivo_lai_SIDA_1_202403.csv", bytes)],
    );
}

fn amounts(release: &Release) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = release
        .published
        .dividas
        .values()
        .flatten()
        .map(|r| r.model::<DividaPgfn>().unwrap())
        .map(|d| (d.numero_inscricao.unwrap_or_default(), d.valor_consolidado.unwrap_or_default()))
        .collect();
    out.sort();
    out
}

#[test]
fn rows_split_by_a_semicolon_are_mended_and_the_portfolios_unreadable_ones_flag_the_source() {
    let (a, b) = (Cnpj::from_base("336831110001").unwrap(), Cnpj::from_base("112223330001").unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let lines = vec![
        SIDA_HEADER.to_string(),
        sida_row(&a, "EMPRESA A; FILIAL LTDA", "8020600012345", "1000.50"),
        sida_row(&a, "EMPRESA A", "8020600012346", "7.25") + ";",
        // Joined into the name or the unit, the state reads RJ or SP: not told apart.
        sida_row(&b, "AB;RJ", "8020600000001", "20.00"),
        SIDA_HEADER.to_string(),
        sida_row(&b, "EMPRESA B", "8020600000002", "30.00"),
    ];
    sida_zip(tmp.path(), &lines);
    let release = read_release(tmp.path(), &[a.clone(), b.clone()], true).unwrap();
    assert_eq!(
        amounts(&release),
        [("8020600000002", "30.00"), ("8020600012345", "1000.50"), ("8020600012346", "7.25")]
            .map(|(n, v)| (n.to_string(), v.to_string()))
    );
    // UF_DEVEDOR is the debtor's state, in its own field; the unit is kept as published.
    let debt = release.published.dividas.values().flatten().next().unwrap().model::<DividaPgfn>().unwrap();
    assert_eq!(debt.uf_devedor.as_deref(), Some("SP"));
    assert_eq!(debt.unidade_responsavel.as_deref(), Some("SAO PAULO"));
    assert_eq!(debt.uf_unidade_responsavel, None);
    let f = &release.files[0];
    // The header repeated is not a row.
    assert_eq!((f.rows_read, f.rows_kept, f.rows_mended), (4, 3, 2), "{f:?}");
    assert_eq!((f.rows_malformed, f.rows_malformed_portfolio), (1, 1), "{f:?}");
    let pgfn = &release.published.fontes["pgfn"];
    // Read with --partial: the two systems the folder lacks are named too.
    let want =
        "parcial: faltam Dados_abertos_FGTS.zip, Dados_abertos_Previdenciario.zip; 1 linhas da carteira";
    assert!(pgfn.status.as_deref().is_some_and(|s| s.starts_with(want)), "{pgfn:?}");
    assert_eq!(release.published.fontes["cnpj"].status.as_deref(), Some("ausente"));

    // A file none of whose rows fits its header is refused, naming it.
    let bad = tempfile::tempdir().unwrap();
    sida_zip(bad.path(), &[SIDA_HEADER.to_string(), "1;2;3".to_string(), "4;5".to_string()]);
    let e = read_release(bad.path(), &[a], true).unwrap_err().to_string();
    assert!(e.contains("arquivo_lai_SIDA_1_202403.csv") && e.contains("none of its 2 rows"), "{e}");
}

#[test]
fn a_table_found_twice_is_refused_and_a_flat_zip_is_dated_by_its_files() {
    let a = Cnpj::from_base("336831110001").unwrap();
    let lines = vec![SIDA_HEADER.to_string(), sida_row(&a, "EMPRESA A", "1", "1000.50")];
    // The zip and the file unpacked from it.
    let tmp = tempfile::tempdir().unwrap();
    sida_zip(tmp.path(), &lines);
    let csv = tmp.path().join("2024_trimestre_01/arquivo_lai_SIDA_1_202403.csv");
    std::fs::write(&csv, lines.join("\n")).unwrap();
    let e = read_release(tmp.path(), std::slice::from_ref(&a), true).unwrap_err();
    assert!(matches!(e, OpenDataError::Twice { .. }), "{e}");
    assert!(e.to_string().contains("arquivo_lai_sida_1_202403.csv twice"), "{e}");
    // A download saved twice.
    std::fs::remove_file(&csv).unwrap();
    let zip = tmp.path().join("2024_trimestre_01/Dados_abertos_Nao_Previdenciario.zip");
    std::fs::copy(&zip, tmp.path().join("2024_trimestre_01/Dados_abertos_Nao_Previdenciario (1).zip"))
        .unwrap();
    assert!(matches!(
        read_release(tmp.path(), std::slice::from_ref(&a), true),
        Err(OpenDataError::Twice { .. })
    ));

    // Saved without its quarter's folder, the zip is dated by the file inside.
    let flat = tempfile::tempdir().unwrap();
    zip_of(
        &flat.path().join("Dados_abertos_Nao_Previdenciario.zip"),
        &[("arquivo_lai_SIDA_1_202306.csv", lines.join("\n").into_bytes())],
    );
    let release = read_release(flat.path(), &[a], true).unwrap();
    assert_eq!(release.period.quarter.as_deref(), Some("2023T2"));
}

#[test]
fn rfb_rows_repeated_whole_are_kept_once_and_unpacked_tables_and_new_cnpjs_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let socio = "\"07396865\";\"2\";\"FULANO DE TAL\";\"***123456**\";\"49\";\"20200101\";\"\";\"***000000**\";\"\";\"00\";\"5\"";
    // An alphanumeric root first (issued from July 2026): the file's shape still fits.
    let alnum = socio.replace("07396865", "12ABC345");
    let text = [alnum.as_str(), socio, socio].join("\n");
    let dir = tmp.path().join("2024-05");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("K3241.K03200Y0.D40511.SOCIOCSV"), text).unwrap();
    let release = read_release(tmp.path(), &[Cnpj::parse("07396865000168").unwrap()], true).unwrap();
    assert_eq!(release.files.len(), 1, "{:?}", release.ignored);
    assert_eq!((release.files[0].rows_read, release.files[0].rows_malformed), (3, 0));
    let socios = &release.published.socios["07396865"];
    assert_eq!(socios.len(), 1, "{socios:?}");
    assert_eq!(release.period.month.as_deref(), Some("2024-05"));
}

#[test]
fn an_rfb_name_with_quotes_or_a_semicolon_of_its_own_is_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    // As RFB writes them: every field quoted, inner quotes not doubled, CRLF line ends.
    let lines = [
        r#""07396865";"CONFECCOES AGUA "BOA" LTDA";"2062";"49";"1000,00";"01";"""#,
        r#""52302726";"BAR; RESTAURANTE "O PONTO"";"2135";"50";"0,00";"05";"""#,
    ];
    let dir = tmp.path().join("2024-05");
    zip_of(
        &dir.join("Empresas0.zip"),
        &[("K3241.K03200Y0.D40511.EMPRECSV", lines.join("\r\n").into_bytes())],
    );
    let portfolio = ["07396865000168", "52302726000182"].map(|c| Cnpj::parse(c).unwrap());
    let release = read_release(tmp.path(), &portfolio, true).unwrap();
    assert_eq!((release.files[0].rows_read, release.files[0].rows_malformed), (2, 0));
    let name = |root: &str| release.published.empresas[root].get("razao_social").map(str::to_string);
    assert_eq!(name("07396865").as_deref(), Some(r#"CONFECCOES AGUA "BOA" LTDA"#));
    assert_eq!(name("52302726").as_deref(), Some(r#"BAR; RESTAURANTE "O PONTO""#));
    assert_eq!(release.published.empresas["52302726"].get("porte_empresa"), Some("05"));
}
