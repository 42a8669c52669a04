//! The dataset's public lists (`Dataset::listas`) written as their publishers release
//! them, quirks included, under `listas/` of a release folder: CGU's CEIS, CNEP, CEPIM and
//! Acordos de Leniência as `YYYYMMDD_<LIST>.zip` holding `YYYYMMDD_<LIST>.csv` (ISO-8859-1,
//! Leniência's named `YYYYMMDD_AcordosLeniencia.zip` as CGU's file host names it,
//! `;`, every field quoted, CRLF, CEIS's `ABRAGÊNCIA` and Leniência's `LENIÊNICA` as spelt,
//! `Sem informação` for an open end, masked CPFs, a placeholder in Leniência's CNPJ column, the
//! agreements' effects in a second CSV); the MTE's `cadastro_de_empregadores.csv` (cp1252,
//! CRLF, text lines before its header and after its rows, a row's periods in one cell);
//! IBAMA's `termo_de_embargo.csv` (UTF-8 with a BOM, decimal-comma areas, date-times), its
//! modification time the lists' date.

use std::path::{Path, PathBuf};

use registry_api::listas::{Lista, Publicacao};

use super::latin1;
use crate::dataset::{Day, ListaRecord, Listas, by_lista};

const CEIS_HEADER: [&str; 24] = [
    "CADASTRO",
    "CÓDIGO DA SANÇÃO",
    "TIPO DE PESSOA",
    "CPF OU CNPJ DO SANCIONADO",
    "NOME DO SANCIONADO",
    "NOME INFORMADO PELO ÓRGÃO SANCIONADOR",
    "RAZÃO SOCIAL - CADASTRO RECEITA",
    "NOME FANTASIA - CADASTRO RECEITA",
    "NÚMERO DO PROCESSO",
    "CATEGORIA DA SANÇÃO",
    "DATA INÍCIO SANÇÃO",
    "DATA FINAL SANÇÃO",
    "DATA PUBLICAÇÃO",
    "PUBLICAÇÃO",
    "DETALHAMENTO DO MEIO DE PUBLICAÇÃO",
    "DATA DO TRÂNSITO EM JULGADO",
    "ABRAGÊNCIA DA SANÇÃO",
    "ÓRGÃO SANCIONADOR",
    "UF ÓRGÃO SANCIONADOR",
    "ESFERA ÓRGÃO SANCIONADOR",
    "FUNDAMENTAÇÃO LEGAL",
    "DATA ORIGEM INFORMAÇÃO",
    "ORIGEM INFORMAÇÕES",
    "OBSERVAÇÕES",
];

const CEPIM_HEADER: [&str; 5] =
    ["CNPJ ENTIDADE", "NOME ENTIDADE", "NÚMERO CONVÊNIO", "ÓRGÃO CONCEDENTE", "MOTIVO DO IMPEDIMENTO"];

const ACORDOS_HEADER: [&str; 9] = [
    "ID DO ACORDO",
    "CNPJ DO SANCIONADO",
    "RAZÃO SOCIAL - CADASTRO RECEITA",
    "NOME FANTASIA - CADASTRO RECEITA",
    "DATA DE INÍCIO DO ACORDO",
    "DATA DE FIM DO ACORDO",
    "SITUAÇÃO DO ACORDO DE LENIÊNICA",
    "NÚMERO DO PROCESSO",
    "ÓRGÃO SANCIONADOR",
];

const MTE_HEADER: &str = "ID;Ano da ação fiscal;UF;Empregador;CNPJ/CPF;Estabelecimento;Trabalhadores envolvidos;CNAE;\
Decisão administrativa de procedência;Inclusão no Cadastro de Empregadores";

const IBAMA_HEADER: [&str; 11] = [
    "SEQ_TAD",
    "NUM_TAD",
    "SER_TAD",
    "DAT_EMBARGO",
    "UF",
    "NOME_PESSOA_EMBARGADA",
    "CPF_CNPJ_EMBARGADO",
    "QTD_AREA_EMBARGADA",
    "SIT_CANCELADO",
    "DAT_DESEMBARGO",
    "GEOM_AREA_EMBARGADA",
];

fn dmy(d: Option<Day>) -> String {
    d.map_or_else(|| "Sem informação".to_string(), |(y, m, d)| format!("{d:02}/{m:02}/{y:04}"))
}

fn iso(d: Option<Day>) -> String {
    d.map_or_else(String::new, |(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

/// Writes every list of `lists` under `dir/listas/`; the files written.
pub fn write_listas(lists: &Listas, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let dir = dir.join("listas");
    std::fs::create_dir_all(&dir)?;
    let (y, m, d) = lists.date;
    let stamp = format!("{y:04}{m:02}{d:02}");
    let by = by_lista(lists);
    let rows = |list: &str| by.get(list).cloned().unwrap_or_default();
    let mut files = Vec::new();
    for list in [Lista::Ceis, Lista::Cnep, Lista::Cepim] {
        let (name, csv) = (file_name(list), cgu_csv(list.codigo(), &rows(list.codigo())));
        files.push(zip(&dir, &format!("{stamp}_{name}"), &[(format!("{stamp}_{name}.csv"), csv)])?);
    }
    let (acordos, efeitos) = leniencia_csvs(&rows(Lista::Leniencia.codigo()));
    let name = file_name(Lista::Leniencia);
    files.push(zip(
        &dir,
        &format!("{stamp}_{name}"),
        &[(format!("{stamp}_{name}.csv"), acordos), (format!("{stamp}_Efeitos.csv"), efeitos)],
    )?);
    let mte = dir.join(format!("{}.csv", file_name(Lista::TrabalhoEscravo)));
    std::fs::write(&mte, mte_csv(&rows(Lista::TrabalhoEscravo.codigo()), lists.date))?;
    files.push(mte);
    let (month, name) = (&stamp[..6], file_name(Lista::Pep));
    let pep = pep_csv(&rows(Lista::Pep.codigo()));
    files.push(zip(&dir, &format!("{month}_{name}"), &[(format!("{month}_{name}.csv"), pep)])?);
    let ibama = dir.join(format!("{}.csv", file_name(Lista::Ibama)));
    std::fs::write(&ibama, ibama_csv(&rows(Lista::Ibama.codigo())))?;
    // IBAMA's file says no date: the day it was written is the list's.
    let noon = u64::try_from(days_from_epoch(lists.date)).unwrap_or(0) * 86_400 + 43_200;
    std::fs::File::options()
        .write(true)
        .open(&ibama)?
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(noon))?;
    files.push(ibama);
    Ok(files)
}

/// PEP's header, as CGU publishes it (`;`, no quotes).
const PEP_HEADER: &str = "CPF;Nome_PEP;Sigla_Função;Descrição_Função;Nível_Função;Nome_Órgão;\
Data_Início_Exercício;Data_Fim_Exercício;Data_Fim_Carência";

/// PEP's offices as the real file has them (tests/fixtures/real/cgu_pep.csv): sigla,
/// description, level.
const PEP_OFFICES: [(&str, &str, &str); 3] =
    [("VEREAD", "VEREADOR", ""), ("DEP ES", "DEPUTADO ESTADUAL", ""), ("DAS", "PRESIDENTE", "1016")];

/// The PEP register as CGU writes it: Latin-1, `;` with no quoting, CRLF, dates `DD/MM/YYYY`,
/// an open end `Não informada`; the office ends five years before the grace period does.
fn pep_csv(rows: &[&ListaRecord]) -> Vec<u8> {
    let mut text = format!("{PEP_HEADER}\r\n");
    for (i, r) in rows.iter().enumerate() {
        let (sigla, office, level) = PEP_OFFICES[i % PEP_OFFICES.len()];
        let grace = r.fim;
        let office_end = grace.map(|(y, m, d)| (y - 5, m, d));
        let open = |d: Option<Day>| d.map_or_else(|| "Não informada".to_string(), |d| dmy(Some(d)));
        text.push_str(&format!(
            "{};{};{sigla};{office};{level};CÂMARA MUNICIPAL DE GOIÂNIA-GO;{};{};{}\r\n",
            r.documento,
            r.nome,
            dmy(r.inicio),
            open(office_end),
            open(grace)
        ));
    }
    latin1(&text)
}

/// The name a list's file is published under (after CGU's day), as `api::listas` defines it.
fn file_name(list: Lista) -> &'static str {
    match list.definicao().publicacao {
        Publicacao::Cgu { arquivo, .. } | Publicacao::Endereco { arquivo, .. } => arquivo,
    }
}

/// Days from 1970-01-01 to `(y, m, d)` (proleptic Gregorian).
fn days_from_epoch((y, m, d): Day) -> i64 {
    let (y, m) = if m <= 2 { (i64::from(y) - 1, i64::from(m) + 9) } else { (i64::from(y), i64::from(m) - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + i64::from(d) - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// Quoted `;` lines, CRLF, Latin-1.
fn quoted(lines: &[Vec<String>]) -> Vec<u8> {
    let text: String = lines
        .iter()
        .map(|l| {
            l.iter().map(|f| format!("\"{}\"", f.replace('"', "\"\""))).collect::<Vec<_>>().join(";") + "\r\n"
        })
        .collect();
    latin1(&text)
}

fn cgu_csv(list: &str, rows: &[&ListaRecord]) -> Vec<u8> {
    if list == "CEPIM" {
        let mut lines = vec![CEPIM_HEADER.map(String::from).to_vec()];
        for r in rows {
            let fields = [
                &r.documento,
                &r.nome,
                "774411",
                "MINISTÉRIO DA CIDADANIA",
                "Omissão no dever de prestar contas",
            ];
            lines.push(fields.iter().map(|f| f.to_string()).collect());
        }
        return quoted(&lines);
    }
    let mut header: Vec<&str> = CEIS_HEADER.to_vec();
    if list == "CNEP" {
        header.insert(10, "VALOR DA MULTA");
    }
    let mut lines = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    for (i, r) in rows.iter().enumerate() {
        let multa = r.valor_multa_cents.map(|c| format!("{},{:02}", c / 100, c % 100)).unwrap_or_default();
        let value = |column: &str| -> String {
            match column {
                "CADASTRO" => list.to_string(),
                "CÓDIGO DA SANÇÃO" => format!("{}", 90_000 + i),
                "TIPO DE PESSOA" => r.tipo.to_string(),
                "CPF OU CNPJ DO SANCIONADO" => r.documento.clone(),
                "NOME DO SANCIONADO" | "NOME INFORMADO PELO ÓRGÃO SANCIONADOR" => r.nome.clone(),
                "RAZÃO SOCIAL - CADASTRO RECEITA" if r.tipo == "J" => r.nome.clone(),
                "NÚMERO DO PROCESSO" => format!("00190.{:06}/2024-11", i),
                "CATEGORIA DA SANÇÃO" if list == "CNEP" => "Multa - Lei Anticorrupção".into(),
                "CATEGORIA DA SANÇÃO" => "Impedimento/proibição de contratar com prazo determinado".into(),
                "VALOR DA MULTA" => multa.clone(),
                "DATA INÍCIO SANÇÃO" => dmy(r.inicio),
                "DATA FINAL SANÇÃO" => dmy(r.fim),
                "DATA DO TRÂNSITO EM JULGADO" => "Sem informação".into(),
                "ABRAGÊNCIA DA SANÇÃO" => "Todas as Esferas em todos os Poderes".into(),
                "ÓRGÃO SANCIONADOR" => "Controladoria-Geral da União".into(),
                "UF ÓRGÃO SANCIONADOR" => "DF".into(),
                "ESFERA ÓRGÃO SANCIONADOR" => "FEDERAL".into(),
                _ => String::new(),
            }
        };
        lines.push(header.iter().map(|h| value(h)).collect());
    }
    quoted(&lines)
}

/// The agreements, and their effects (a file of no parties).
fn leniencia_csvs(rows: &[&ListaRecord]) -> (Vec<u8>, Vec<u8>) {
    let mut acordos = vec![ACORDOS_HEADER.map(String::from).to_vec()];
    let mut efeitos =
        vec![vec!["ID DO ACORDO".into(), "EFEITO DO ACORDO DE LENIÊNCIA".into(), "COMPLEMENTO".into()]];
    for (i, r) in rows.iter().enumerate() {
        let id = format!("{}", 1_000_000 + i);
        acordos.push(vec![
            id.clone(),
            r.documento.clone(),
            r.nome.clone(),
            String::new(),
            dmy(r.inicio),
            dmy(r.fim),
            "Em cumprimento".into(),
            format!("00190.{:06}/2019-00", i),
            "Controladoria-Geral da União".into(),
        ]);
        efeitos.push(vec![id, "Redução da multa".into(), "Art. 16, § 2º".into()]);
    }
    (quoted(&acordos), quoted(&efeitos))
}

fn mte_csv(rows: &[&ListaRecord], date: Day) -> Vec<u8> {
    // cp1252: Latin-1 but for the curly quotes of the ministry's text lines (0x93, 0x94).
    let mut out = latin1(&format!(
        "CADASTRO DE EMPREGADORES que tenham submetido trabalhadores a condições análogas à de escravo\r\n\
         Atualização: {} ",
        dmy(Some(date))
    ));
    out.push(0x93);
    out.extend(latin1("Portaria Interministerial MTE/MDHC/MIR nº 18/2024"));
    out.push(0x94);
    let mut text = format!("\r\n{MTE_HEADER}\r\n");
    let mut by_row: Vec<(usize, Vec<&ListaRecord>)> = Vec::new();
    for r in rows {
        match by_row.iter_mut().find(|(row, _)| *row == r.row) {
            Some((_, periods)) => periods.push(r),
            None => by_row.push((r.row, vec![r])),
        }
    }
    for (id, (_, periods)) in by_row.iter().enumerate() {
        let first = periods[0];
        let cell: Vec<String> = periods
            .iter()
            .map(|p| match p.fim {
                Some(_) => format!("{} a {}", dmy(p.inicio), dmy(p.fim)),
                None => dmy(p.inicio),
            })
            .collect();
        text.push_str(&format!(
            "{};{};PA;{};{};Fazenda Santa Rita;{};0151-2/01;{};{}\r\n",
            id + 1,
            first.inicio.map_or(2020, |d| d.0 - 1),
            first.nome,
            first.documento,
            3 + id,
            dmy(first.inicio),
            cell.join(", ")
        ));
    }
    text.push_str("\r\n(*1) Inclusão por força de decisão judicial\r\n");
    out.extend(latin1(&text));
    out
}

fn ibama_csv(rows: &[&ListaRecord]) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(b';')
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(Vec::new());
    let mut out = b"\xEF\xBB\xBF".to_vec();
    let _ = w.write_record(IBAMA_HEADER);
    for (i, r) in rows.iter().enumerate() {
        let at = |d: Option<Day>| if d.is_some() { format!("{} 10:20:30", iso(d)) } else { String::new() };
        let _ = w.write_record([
            format!("{}", 700_000 + i),
            format!("{}", 9_000 + i),
            "E".into(),
            at(r.inicio),
            "MT".into(),
            r.nome.clone(),
            r.documento.clone(),
            format!("{},{}", 12 + i, 5),
            if r.cancelado { "S" } else { "N" }.into(),
            at(r.fim),
            "POLYGON((-55.1 -12.2, -55.2 -12.3, -55.1 -12.3, -55.1 -12.2))".into(),
        ]);
    }
    out.extend(w.into_inner().unwrap_or_default());
    out
}

/// A zip `dir/<stem>.zip` holding `entries`.
fn zip(dir: &Path, stem: &str, entries: &[(String, Vec<u8>)]) -> std::io::Result<PathBuf> {
    let path = dir.join(format!("{stem}.zip"));
    super::zip_of(&path, entries.iter().map(|(name, bytes)| (name.as_str(), bytes.as_slice())))?;
    Ok(path)
}
