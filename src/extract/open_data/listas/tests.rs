//! Each list in its published layout, quirks included, read from a folder as a run reads it.

use std::io::Write;
use std::path::Path;

use chrono::NaiveDate;

use super::{Lista, ListaRecord, Listas, read_listas};
use crate::extract::open_data::OpenDataError;
use crate::extract::open_data::folder::find_files;
use crate::transform::listas::list_date;

const CEIS_HEADER: &str = "\"CADASTRO\";\"CÓDIGO DA SANÇÃO\";\"TIPO DE PESSOA\";\"CPF OU CNPJ DO SANCIONADO\";\
\"NOME DO SANCIONADO\";\"NOME INFORMADO PELO ÓRGÃO SANCIONADOR\";\"RAZÃO SOCIAL - CADASTRO RECEITA\";\
\"NOME FANTASIA - CADASTRO RECEITA\";\"NÚMERO DO PROCESSO\";\"CATEGORIA DA SANÇÃO\";\"DATA INÍCIO SANÇÃO\";\
\"DATA FINAL SANÇÃO\";\"DATA PUBLICAÇÃO\";\"PUBLICAÇÃO\";\"DETALHAMENTO DO MEIO DE PUBLICAÇÃO\";\
\"DATA DO TRÂNSITO EM JULGADO\";\"ABRAGÊNCIA DA SANÇÃO\";\"ÓRGÃO SANCIONADOR\";\"UF ÓRGÃO SANCIONADOR\";\
\"ESFERA ÓRGÃO SANCIONADOR\";\"FUNDAMENTAÇÃO LEGAL\";\"DATA ORIGEM INFORMAÇÃO\";\"ORIGEM INFORMAÇÕES\";\"OBSERVAÇÕES\"";

/// A CGU row: `cadastro`, then the fields after the sanction's code, every one quoted.
fn cgu_row(
    cadastro: &str,
    tipo: &str,
    doc: &str,
    nome: &str,
    inicio: &str,
    fim: &str,
    multa: Option<&str>,
) -> String {
    let mut fields = vec![
        cadastro,
        "77",
        tipo,
        doc,
        nome,
        nome,
        nome,
        "",
        "0001/2024",
        "Impedimento/proibição de contratar",
        inicio,
        fim,
        "01/02/2024",
        "DOU",
        "Seção 3",
        "Sem informação",
        "Todas as Esferas em todos os Poderes",
        "Prefeitura de São Paulo",
        "SP",
        "MUNICIPAL",
        "Lei 14.133",
        "02/02/2024",
        "Prefeitura",
        "",
    ];
    if let Some(m) = multa {
        fields.insert(10, m);
    }
    fields.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(";")
}

fn latin1(text: &str) -> Vec<u8> {
    text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn zip_with(dir: &Path, name: &str, entries: &[(&str, Vec<u8>)]) {
    let file = std::fs::File::create(dir.join(name)).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    for (entry, bytes) in entries {
        zip.start_file(*entry, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

fn read(dir: &Path) -> Result<Listas, OpenDataError> {
    let (files, _) = find_files(dir).unwrap();
    read_listas(dir, &files)
}

fn day(d: u32, m: u32, y: i32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

fn of(listas: &Listas, list: Lista) -> Vec<&ListaRecord> {
    listas.records.iter().filter(|r| r.lista == list).collect()
}

#[test]
fn ceis_in_its_zip_latin1_crlf_typos_masked_cpfs_and_sem_informacao() {
    let tmp = tempfile::tempdir().unwrap();
    let text = [
        CEIS_HEADER.to_string(),
        cgu_row("CEIS", "J", "12345678000195", "CONSTRUTORA AÇAÍ LTDA", "10/01/2024", "Sem informação", None),
        cgu_row("CEIS", "F", "***921012**", "JOSÉ DA SILVA", "01/03/2023", "01/03/2025", None),
        cgu_row("CEIS", "", "98765432000110", "SEM TIPO SA", "Sem informação", "", None),
    ]
    .join("\r\n")
        + "\r\n";
    zip_with(tmp.path(), "20261130_CEIS.zip", &[("20261130_CEIS.csv", latin1(&text))]);
    let listas = read(tmp.path()).unwrap();
    let ceis = of(&listas, Lista::Ceis);
    assert_eq!(ceis.len(), 3, "{listas:?}");
    let company = ceis[0];
    assert_eq!(company.documento.as_deref(), Some("12345678000195"));
    assert_eq!(company.nome.as_deref(), Some("CONSTRUTORA AÇAÍ LTDA"), "Latin-1 decoded");
    assert_eq!(company.categoria.as_deref(), Some("Impedimento/proibição de contratar"));
    assert_eq!(company.orgao.as_deref(), Some("Prefeitura de São Paulo"));
    assert_eq!(
        (company.inicio.as_deref(), company.fim.as_deref()),
        (Some("10/01/2024"), None),
        "Sem informação is no end"
    );
    assert_eq!(list_date(&company.data_lista), day(30, 11, 2026), "dated by CGU's name");
    assert_eq!(company.arquivo, "20261130_CEIS.zip/20261130_CEIS.csv");
    assert_eq!(company.linha, 2);
    let person = ceis[1];
    assert_eq!((person.sancionado.as_str(), person.documento.as_deref()), ("***921012**", None));
    assert_eq!(person.tipo_pessoa.as_deref(), Some("F"));
    assert_eq!(ceis[2].tipo_pessoa.as_deref(), Some("J"), "an empty type is the document's");
    assert_eq!(ceis[2].inicio, None);
    assert!(listas.malformed.is_empty(), "{listas:?}");
    assert_eq!(listas.files[0].rows, 3);
}

#[test]
fn cnep_fines_are_exact_decimals_and_a_row_out_of_layout_is_counted_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let header = CEIS_HEADER.replace("\"DATA INÍCIO SANÇÃO\"", "\"VALOR DA MULTA\";\"DATA INÍCIO SANÇÃO\"");
    let text = [
        header,
        cgu_row("CNEP", "J", "12345678000195", "ALFA SA", "05/05/2019", "05/05/2024", Some("1.234.567,89")),
        "\"CNEP\";\"78\";\"J\"".to_string(),
        cgu_row("CNEP", "J", "11222333000181", "BETA SA", "31/02/2020", "", Some("0,10")),
    ]
    .join("\n");
    write(tmp.path(), "cgu/20261130_CNEP.csv", &latin1(&text));
    let listas = read(tmp.path()).unwrap();
    let cnep = of(&listas, Lista::Cnep);
    assert_eq!(cnep.len(), 2);
    assert_eq!(cnep[0].valor_multa.as_deref(), Some("1.234.567,89"), "as written: typed in transform");
    assert_eq!(cnep[1].valor_multa.as_deref(), Some("0,10"));
    assert_eq!(listas.malformed, vec!["cgu/20261130_CNEP.csv:3".to_string()]);
    assert_eq!(cnep[1].inicio.as_deref(), Some("31/02/2020"), "as written: transform counts it");
}

#[test]
fn cepim_has_no_dates_and_leniencia_keeps_its_placeholders_out_of_matching() {
    let tmp = tempfile::tempdir().unwrap();
    let cepim = "\"CNPJ ENTIDADE\";\"NOME ENTIDADE\";\"NÚMERO CONVÊNIO\";\"ÓRGÃO CONCEDENTE\";\"MOTIVO DO IMPEDIMENTO\"\r\n\
                 \"11222333000181\";\"ASSOCIAÇÃO BENEFICENTE\";\"555\";\"MINISTÉRIO DA SAÚDE\";\"Omissão no dever de prestar contas\"\r\n";
    write(tmp.path(), "20261130_CEPIM.csv", &latin1(cepim));
    let acordos = "\"ID DO ACORDO\";\"CNPJ DO SANCIONADO\";\"RAZÃO SOCIAL - CADASTRO RECEITA\";\"DATA DE INÍCIO DO ACORDO\";\
                   \"DATA DE FIM DO ACORDO\";\"SITUAÇÃO DO ACORDO DE LENIÊNICA\";\"NÚMERO DO PROCESSO\";\"ÓRGÃO SANCIONADOR\"\r\n\
                   \"1\";\"15144306000199\";\"ODE SA\";\"09/07/2018\";\"Sem informação\";\"Em cumprimento\";\"P-1\";\"CGU\"\r\n\
                   \"2\";\"EXBILFINGER\";\"BILFINGER SE\";\"01/01/2019\";\"01/01/2031\";\"Em cumprimento\";\"P-2\";\"CGU\"\r\n";
    let efeitos =
        "\"ID DO ACORDO\";\"EFEITO DO ACORDO DE LENIÊNCIA\";\"COMPLEMENTO\"\r\n\"1\";\"Multa\";\"x\"\r\n";
    zip_with(
        tmp.path(),
        "20261130_Acordos.zip",
        &[("20261130_Acordos.csv", latin1(acordos)), ("20261130_Efeitos.csv", latin1(efeitos))],
    );
    let listas = read(tmp.path()).unwrap();
    let cepim = of(&listas, Lista::Cepim);
    assert_eq!(cepim.len(), 1);
    assert!(cepim[0].inicio.is_none() && cepim[0].fim.is_none());
    assert_eq!(cepim[0].categoria.as_deref(), Some("Omissão no dever de prestar contas"));
    assert_eq!(cepim[0].orgao.as_deref(), Some("MINISTÉRIO DA SAÚDE"));
    let acordos = of(&listas, Lista::Leniencia);
    assert_eq!(acordos.len(), 2, "the effects file holds no party");
    assert_eq!(acordos[0].documento.as_deref(), Some("15144306000199"));
    assert_eq!(acordos[0].categoria.as_deref(), Some("Em cumprimento"));
    assert_eq!((acordos[1].sancionado.as_str(), acordos[1].documento.as_deref()), ("EXBILFINGER", None));
    assert_eq!(listas.placeholders, vec!["EXBILFINGER".to_string()]);
}

#[test]
fn mte_cp1252_text_lines_around_the_header_and_several_periods_in_one_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "CADASTRO DE EMPREGADORES que tenham submetido trabalhadores a condições análogas à de escravo\r\n\
                Atualização: 08/10/2025 \u{201c}Portaria Interministerial\u{201d}\r\n\
                ID;Ano da ação fiscal;UF;Empregador;CNPJ/CPF;Estabelecimento;Trabalhadores envolvidos;CNAE;\
                Decisão administrativa de procedência;Inclusão no Cadastro de Empregadores\r\n\
                1;2021;MG;Fazenda Boa Vista;123.456.789-09;Fazenda;12;0151-2/01;10/05/2022;05/10/2022 a 13/01/2023, 11/11/2024\r\n\
                2;2022;PA;Carvoaria Ltda (*1);12.345.678/0001-95;Carvoaria;3;0210-1/08;01/02/2023;05/04/2024\r\n\
                3;2023;RO;Sítio Novo(*2), (*3);98.765.432/0001-98;Sítio;4;0151-2/01;01/02/2024;06/10/2025\r\n\
                \r\n\
                (*1) Incluído por decisão judicial\r\n\
                (*2), (*3) Incluído em cumprimento à sentença do TRT 14ª Região\r\n";
    let (bytes, _, lossy) = encoding_rs::WINDOWS_1252.encode(text);
    assert!(!lossy);
    write(tmp.path(), "mte/cadastro_de_empregadores.csv", &bytes);
    let listas = read(tmp.path()).unwrap();
    let mte = of(&listas, Lista::TrabalhoEscravo);
    assert_eq!(mte.len(), 4, "two periods of row 1, one of rows 2 and 3: {listas:?}");
    assert_eq!(mte[0].documento.as_deref(), Some("12345678909"));
    assert_eq!(mte[0].sancionado, "123.456.789-09");
    assert_eq!(mte[0].tipo_pessoa.as_deref(), Some("F"));
    assert_eq!((mte[0].inicio.as_deref(), mte[0].fim.as_deref()), (Some("05/10/2022"), Some("13/01/2023")));
    assert_eq!((mte[1].inicio.as_deref(), mte[1].fim.as_deref()), (Some("11/11/2024"), None));
    assert_eq!(mte[0].linha, 4);
    assert_eq!(mte[2].documento.as_deref(), Some("12345678000195"));
    // A footnote mark is kept apart from the name names are matched by, with its footnote.
    assert_eq!(mte[2].nome.as_deref(), Some("Carvoaria Ltda"));
    assert_eq!(
        mte[2].categoria.as_deref(),
        Some("Trabalho análogo ao de escravo; (*1) Incluído por decisão judicial")
    );
    assert_eq!(mte[3].nome.as_deref(), Some("Sítio Novo"));
    let note = "Incluído em cumprimento à sentença do TRT 14ª Região";
    assert_eq!(
        mte[3].categoria.as_deref(),
        Some(format!("Trabalho análogo ao de escravo; (*2) {note}; (*3) {note}").as_str())
    );
    assert_eq!(mte[0].categoria.as_deref(), Some("Trabalho análogo ao de escravo"), "no mark, no note");
    assert_eq!(list_date(&mte[0].data_lista), day(8, 10, 2025), "the date its text lines say");
    assert!(listas.malformed.is_empty(), "{:?}", listas.malformed);
}

#[test]
fn ibama_utf8_with_bom_decimal_comma_areas_and_date_times() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "\u{feff}\"SEQ_TAD\";\"NUM_TAD\";\"DAT_EMBARGO\";\"UF\";\"NOME_PESSOA_EMBARGADA\";\"CPF_CNPJ_EMBARGADO\";\
                \"QTD_AREA_EMBARGADA\";\"SIT_CANCELADO\";\"DAT_DESEMBARGO\";\"GEOM_AREA_EMBARGADA\"\n\
                \"1\";\"A1\";\"2023-04-05 10:20:30\";\"MT\";\"AGROPECUÁRIA SÃO JOÃO\";\"12.345.678/0001-95\";\"1.234,5678\";\"N\";\"\";\"POLYGON((1 2, 3 4))\"\n\
                \"2\";\"A2\";\"2020-01-02 00:00:00\";\"PA\";\"FULANO\";\"123.456.789-09\";\"12,5\";\"N\";\"2022-06-07 00:00:00\";\"\"\n\
                \"3\";\"A3\";\"2021-01-02 00:00:00\";\"AM\";\"CICLANO\";\"11.222.333/0001-81\";\"3\";\"S\";\"\";\"\"\n";
    write(tmp.path(), "ibama/termo_de_embargo.csv", text.as_bytes());
    let listas = read(tmp.path()).unwrap();
    let ibama = of(&listas, Lista::Ibama);
    assert_eq!(ibama.len(), 3);
    assert_eq!(ibama[0].nome.as_deref(), Some("AGROPECUÁRIA SÃO JOÃO"));
    assert_eq!(ibama[0].documento.as_deref(), Some("12345678000195"));
    assert_eq!(ibama[0].area.as_deref(), Some("1.234,5678"));
    assert_eq!((ibama[0].inicio.as_deref(), ibama[0].fim.as_deref()), (Some("2023-04-05 10:20:30"), None));
    assert_eq!(ibama[1].fim.as_deref(), Some("2022-06-07 00:00:00"));
    assert_eq!(ibama[1].area.as_deref(), Some("12,5"));
    assert!(!ibama[0].cancelado && ibama[2].cancelado);
}

#[test]
fn a_lists_date_is_the_first_its_names_write_that_is_a_date_else_the_day_it_was_written() {
    let tmp = tempfile::tempdir().unwrap();
    let header = "\"SEQ_TAD\";\"NUM_TAD\";\"DAT_EMBARGO\";\"UF\";\"NOME_PESSOA_EMBARGADA\";\"CPF_CNPJ_EMBARGADO\";\
                  \"QTD_AREA_EMBARGADA\";\"SIT_CANCELADO\";\"DAT_DESEMBARGO\"\n\
                  \"1\";\"A1\";\"2023-04-05\";\"MT\";\"F\";\"12.345.678/0001-95\";\"1\";\"N\";\"\"\n";
    // Eight digits that are no day come before the one that is.
    write(tmp.path(), "ibama/termo_de_embargo_99999999_20260915.csv", header.as_bytes());
    let ceis = [CEIS_HEADER.to_string(), cgu_row("CEIS", "J", "12345678000195", "A", "10/01/2024", "", None)];
    // A stamp of CGU's shape that no calendar has: the day the file was written instead.
    write(tmp.path(), "20261131_CEIS.csv", &latin1(&(ceis.join("\r\n") + "\r\n")));
    let listas = read(tmp.path()).unwrap();
    let date_of = |list| list_date(&of(&listas, list)[0].data_lista);
    assert_eq!(date_of(Lista::Ibama), day(15, 9, 2026));
    assert_eq!(date_of(Lista::Ceis), chrono::Utc::now().date_naive(), "{:?}", listas.files);
}

#[test]
fn a_header_that_changed_is_refused_naming_the_file_and_the_columns_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let header = CEIS_HEADER
        .replace("\"CPF OU CNPJ DO SANCIONADO\"", "\"DOCUMENTO\"")
        .replace("\"DATA FINAL SANÇÃO\"", "\"FIM\"");
    write(tmp.path(), "20261130_CEIS.csv", &latin1(&header));
    let err = read(tmp.path()).unwrap_err();
    let OpenDataError::ListaHeader { file, list, missing } = &err else { panic!("{err}") };
    assert_eq!((file.as_str(), *list), ("20261130_CEIS.csv", "CEIS"));
    assert_eq!(missing, "CPF OU CNPJ DO SANCIONADO, DATA FINAL SANÇÃO");
    use crate::exit::HasExitStatus;
    assert_eq!(err.exit_status(), crate::exit::ExitStatus::BadInput);
    assert!(err.to_string().contains("20261130_CEIS.csv") && err.to_string().contains("DATA FINAL SANÇÃO"));
}

#[test]
fn each_list_is_told_by_its_name() {
    assert_eq!(Lista::of_name("dl/20261130_CEIS.zip"), Some(Lista::Ceis));
    assert_eq!(Lista::of_name("20261130_cnep.csv"), Some(Lista::Cnep));
    assert_eq!(Lista::of_name("x/20261130_CEPIM.zip"), Some(Lista::Cepim));
    assert_eq!(Lista::of_name("20261130_Acordos.zip"), Some(Lista::Leniencia));
    assert_eq!(Lista::of_name("cadastro_de_empregadores.csv"), Some(Lista::TrabalhoEscravo));
    assert_eq!(Lista::of_name("termo_de_embargo.zip"), Some(Lista::Ibama));
    assert_eq!(Lista::of_name("Dados_abertos_FGTS.zip"), None);
    assert_eq!(Lista::of_name("Socios0.zip"), None);
    assert_eq!(Lista::of_name("20261130_CEIS.pdf"), None);
}

/// A fixture of tests/fixtures/real/ (provenance in its SOURCES.md), as published.
fn real(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real").join(name)).unwrap()
}

/// The raw cells of line `n` (1-based) of a `;`-separated text whose cells hold no `;`.
fn cells_of(text: &str, n: usize) -> Vec<String> {
    let line = text.lines().nth(n - 1).unwrap();
    line.split(';').map(|c| c.trim_start_matches('\u{feff}').trim_matches('"').to_string()).collect()
}

#[test]
fn ibamas_real_file_reads_whole_each_cell_as_written() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = real("ibama_embargos.csv");
    write(tmp.path(), "termo_de_embargo.csv", &bytes);
    let listas = read(tmp.path()).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let header = cells_of(&text, 1);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows = text.lines().count() - 1;
    let ibama = of(&listas, Lista::Ibama);
    assert_eq!(ibama.len(), rows, "every row of the real file is a record");
    assert!(listas.malformed.is_empty(), "{:?}", listas.malformed);
    let cell = |raw: &[String], name: &str| Some(raw[col(name)].clone()).filter(|c| !c.is_empty());
    for r in &ibama {
        let raw = cells_of(&text, r.linha as usize);
        assert_eq!(r.cancelado, raw[col("SIT_CANCELADO")] == "S", "line {}", r.linha);
        assert_eq!(r.inicio, cell(&raw, "DAT_EMBARGO"), "line {}", r.linha);
        assert_eq!(r.fim, cell(&raw, "DAT_DESEMBARGO"), "line {}", r.linha);
        assert_eq!(r.area, cell(&raw, "QTD_AREA_EMBARGADA"), "line {}", r.linha);
    }
}

/// The MTE's real note ends with its footnotes, one of them for two marks: each mark gets its
/// text, as read by hand from the file.
#[test]
fn the_mtes_real_footnotes_give_each_mark_its_text() {
    let text = super::decode::decode(real("mte_empregadores.txt"));
    let notes = super::layouts::footnotes(&text);
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(
        notes["(*1)"].starts_with("Incluído no Cadastro em cumprimento à sentença proferida"),
        "{notes:?}"
    );
    assert!(notes["(*1)"].contains("APC 0000820-69.2024.5.08.0118"), "{notes:?}");
    assert_eq!(notes["(*2)"], notes["(*3)"]);
    assert!(notes["(*2)"].contains("ACPCiv 0000250-28.2025.5.14.0071"), "{notes:?}");
}

#[test]
fn the_mtes_real_csv_is_dated_by_the_note_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "cadastro_de_empregadores.csv", &real("mte_empregadores.csv"));
    let undated = read(tmp.path()).unwrap();
    // The note says "Cadastro atualizado em 04/09/2026" after its ordinance's 13/09/2024.
    write(tmp.path(), "cadastro_de_empregadores.txt", &real("mte_empregadores.txt"));
    let listas = read(tmp.path()).unwrap();
    let mte = of(&listas, Lista::TrabalhoEscravo);
    assert!(!mte.is_empty());
    assert!(mte.iter().all(|r| list_date(&r.data_lista) == day(4, 9, 2026)), "{:?}", listas.files);
    assert!(of(&undated, Lista::TrabalhoEscravo).iter().all(|r| list_date(&r.data_lista) != day(4, 9, 2026)));
    // Line 17, by hand: two periods in one cell, "06/10/2025 a 05/02/2026, 19/08/2026".
    let ys: Vec<&&ListaRecord> = mte.iter().filter(|r| r.linha == 17).collect();
    assert_eq!(ys.len(), 2);
    assert_eq!(ys[0].documento.as_deref(), Some("32264221000163"));
    assert_eq!((ys[0].inicio.as_deref(), ys[0].fim.as_deref()), (Some("06/10/2025"), Some("05/02/2026")));
    assert_eq!((ys[1].inicio.as_deref(), ys[1].fim.as_deref()), (Some("19/08/2026"), None));
    assert!(listas.malformed.is_empty(), "{listas:?}");
}

#[test]
fn the_leniency_zip_as_cgu_serves_it_is_read_with_its_respelt_columns() {
    // CGU's download: `YYYYMMDD_AcordosLeniencia.zip`, two CSVs, the name column with an en
    // dash, the effects file's header without its accent (cp1252: the en dash is byte 0x96).
    let tmp = tempfile::tempdir().unwrap();
    let acordos = "\"ID DO ACORDO\";\"CNPJ DO SANCIONADO\";\"RAZÃO SOCIAL – CADASTRO RECEITA\";\"DATA DE INÍCIO DO ACORDO\";\
                   \"DATA DE FIM DO ACORDO\";\"SITUAÇÃO DO ACORDO DE LENIÊNICA\";\"NÚMERO DO PROCESSO\";\"ÓRGÃO SANCIONADOR\"\r\n\
                   \"7\";\"15.144.306/0001-99\";\"ODE SA\";\"09/07/2018\";\"09/07/2028\";\"Em cumprimento\";\"P-7\";\"CGU\"\r\n";
    let efeitos =
        "\"ID DO ACORDO\";\"EFEITO DO ACORDO DE LENIENCIA\";\"COMPLEMENTO\"\r\n\"7\";\"Multa\";\"x\"\r\n";
    let cp1252 = |t: &str| encoding_rs::WINDOWS_1252.encode(t).0.into_owned();
    zip_with(
        tmp.path(),
        "20261130_AcordosLeniencia.zip",
        &[("20261130_AcordosLeniencia.csv", cp1252(acordos)), ("20261130_Efeitos.csv", cp1252(efeitos))],
    );
    let listas = read(tmp.path()).unwrap();
    let acordos = of(&listas, Lista::Leniencia);
    assert_eq!(acordos.len(), 1, "{listas:?}");
    assert_eq!(acordos[0].nome.as_deref(), Some("ODE SA"), "the en-dash column is the name");
    assert_eq!(acordos[0].documento.as_deref(), Some("15144306000199"));
    assert_eq!(
        (acordos[0].inicio.as_deref(), acordos[0].fim.as_deref()),
        (Some("09/07/2018"), Some("09/07/2028"))
    );
    assert_eq!(list_date(&acordos[0].data_lista), day(30, 11, 2026));
}

#[test]
fn a_cnpj_with_letters_is_a_document_every_list_can_match() {
    // RFB's own example of an alphanumeric CNPJ (IN RFB 2.229/2024): 12.ABC.345/01DE-35.
    let tmp = tempfile::tempdir().unwrap();
    let text = [
        CEIS_HEADER.to_string(),
        cgu_row("CEIS", "J", "12.ABC.345/01DE-35", "EMPRESA NOVA LTDA", "10/01/2026", "", None),
        cgu_row("CEIS", "J", "12.ABC.345/01DE-36", "DÍGITO ERRADO LTDA", "10/01/2026", "", None),
    ]
    .join("\r\n");
    write(tmp.path(), "20261130_CEIS.csv", &latin1(&text));
    let listas = read(tmp.path()).unwrap();
    let ceis = of(&listas, Lista::Ceis);
    assert_eq!(ceis[0].documento.as_deref(), Some("12ABC34501DE35"));
    assert_eq!(ceis[0].tipo_pessoa.as_deref(), Some("J"));
    assert_eq!(ceis[1].documento, None, "a check digit that fails is no document");
}

/// CGU's real PEP rows (tests/fixtures/real/cgu_pep.csv): every row is a record of a person,
/// its masked CPF, name, organ and dates as the file writes them; `Não informada` is no end;
/// the office says its description, code and level. Compared with the file's cells, split
/// here by hand.
#[test]
fn pep_s_real_file_reads_each_row_as_the_file_writes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = real("cgu_pep.csv");
    write(tmp.path(), "202509_PEP.csv", &bytes);
    let listas = read(tmp.path()).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let pep = of(&listas, Lista::Pep);
    assert_eq!(pep.len(), text.lines().count() - 1, "every row is a record");
    assert!(listas.malformed.is_empty(), "{:?}", listas.malformed);
    assert_eq!(list_date(&pep[0].data_lista), day(30, 9, 2025), "a month's register stands at its last day");
    for r in &pep {
        let raw = cells_of(&text, r.linha as usize);
        let given = |i: usize| Some(raw[i].clone()).filter(|c| !c.is_empty() && c != "Não informada");
        assert_eq!(r.sancionado, raw[0], "line {}", r.linha);
        assert!(
            r.sancionado.starts_with("***.") && r.documento.is_none(),
            "a masked CPF matches no document"
        );
        assert_eq!(r.tipo_pessoa.as_deref(), Some("F"));
        assert_eq!(r.nome, given(1), "line {}", r.linha);
        assert_eq!(r.orgao, given(5), "line {}", r.linha);
        assert_eq!((r.inicio.clone(), r.fim.clone()), (given(6), given(8)), "line {}", r.linha);
        let office = r.categoria.as_deref().unwrap_or_default();
        assert!(office.starts_with(&format!("{} ({}", raw[3], raw[2])), "line {}: {office}", r.linha);
    }
    // Line 2, by hand: in office with no end given, so exposed with no end.
    let open = pep.iter().find(|r| r.linha == 2).unwrap();
    assert_eq!((open.inicio.as_deref(), open.fim.as_deref()), (Some("21/12/2019"), None));
    assert_eq!(open.categoria.as_deref(), Some("DIR. SUPERINTENDENTE (CAS-1)"));
    // A DAS row carries its level, and the office's end beside the grace period's.
    let das = pep.iter().find(|r| r.nome.as_deref() == Some("ABILIO AFONSO BAETA NEVES")).unwrap();
    assert_eq!(das.categoria.as_deref(), Some("PRESIDENTE (DAS, nível 1016); exercício até 31/08/2024"));
    assert_eq!(das.fim.as_deref(), Some("31/08/2029"), "exposed until the grace period ends");
}
