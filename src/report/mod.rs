//! The report stage: a view model built from the aggregates, rendered with handlebars
//! templates into one self-contained HTML file and its Markdown twin, and the same view as an
//! Excel workbook.
//!
//! Templates come from `--templates DIR`, else `./templates`, else the copies built into the
//! binary. A user's templates can only use partials from their own folder: the engine gets
//! template text, never file access.

pub use crate::analyze::cells;
pub(crate) mod charts;
pub(crate) mod digest;
pub(crate) mod dossier_page;
pub mod format;
pub(crate) mod helpers;
pub(crate) mod pdf;
pub mod strings;
pub mod view;
pub(crate) mod workbook;

pub use format::Locale;

/// What shapes a report beyond its data: where its templates are and its language.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Folder with report.html.hbs, report.md.hbs and partials/; `None`: ./templates if
    /// present, else the copies built into the binary.
    pub templates: Option<PathBuf>,
    pub locale: Locale,
}

use std::path::{Path, PathBuf};

use handlebars::Handlebars;

use crate::analyze::Aggregates;
use crate::codes::CodeTables;
use crate::export::manifest::{FileEntry, Manifest};
use crate::transform::Frames;
use strings::Strings;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(
        "cannot read templates from {dir}: {message}; point --templates at a folder with report.html.hbs and report.md.hbs"
    )]
    Dir { dir: PathBuf, message: String },
    #[error("template {file} is missing from {dir}; copy it from the project's templates/ folder")]
    Missing { dir: String, file: String },
    #[error("template {file}{pos} does not compile: {reason}")]
    Compile { file: String, pos: String, reason: String },
    #[error("strings file {file} cannot be used: {reason}")]
    Strings { file: String, reason: String },
    #[error("rendering {file} failed: {reason}")]
    Render { file: String, reason: String },
    #[error(transparent)]
    Workbook(#[from] crate::export::workbook::WorkbookError),
    #[error(
        "cannot write {path}: {source}; free space on that disk (or fix its permissions), then render again \
         with `report --from` on that directory: the exported tables are kept"
    )]
    Write { path: PathBuf, source: std::io::Error },
}

impl crate::exit::HasExitStatus for ReportError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        use crate::exit::ExitStatus;
        match self {
            // The templates a person chose or edited.
            Self::Dir { .. }
            | Self::Missing { .. }
            | Self::Compile { .. }
            | Self::Strings { .. }
            | Self::Render { .. } => ExitStatus::BadInput,
            // A report that cannot be written (a full disk, permissions) is theirs to fix too.
            Self::Write { .. } => ExitStatus::BadInput,
            Self::Workbook(e) => crate::exit::HasExitStatus::exit_status(e),
        }
    }
}

/// Template files by path relative to the templates folder (`partials/x.hbs`).
pub struct TemplateSet {
    pub origin: String,
    pub files: Vec<(String, String)>,
}

fn collect(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) -> Result<(), ReportError> {
    let err = |m: String| ReportError::Dir { dir: base.to_path_buf(), message: m };
    let entries = std::fs::read_dir(dir).map_err(|e| err(e.to_string()))?;
    for e in entries.flatten() {
        let p = e.path();
        let meta = std::fs::symlink_metadata(&p).map_err(|e| err(e.to_string()))?;
        // A link could point anywhere on the machine: templates stay inside their folder.
        if meta.file_type().is_symlink() {
            return Err(err(format!(
                "{} is a symbolic link; copy the file into the folder instead",
                p.display()
            )));
        }
        if meta.is_dir() {
            collect(&p, base, out)?;
        } else if p.extension().is_some_and(|x| x == "hbs" || x == "toml" || x == "js") {
            let rel = p.strip_prefix(base).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).map_err(|e| err(format!("{}: {e}", p.display())))?;
            out.push((rel, text));
        }
    }
    Ok(())
}

impl TemplateSet {
    /// The copies built into the binary.
    pub fn builtin() -> Self {
        Self {
            origin: "built-in".into(),
            files: crate::builtin::TEMPLATES
                .iter()
                .map(|(p, t)| ((*p).to_string(), (*t).to_string()))
                .collect(),
        }
    }

    /// Whether the set holds the template file `main` (e.g. `dossie.html.hbs`).
    pub fn has(&self, main: &str) -> bool {
        self.files.iter().any(|(path, _)| path == main)
    }

    pub fn load(explicit: Option<&Path>) -> Result<Self, ReportError> {
        let dir = crate::fsutil::explicit_or_local(explicit, "templates");
        match dir {
            None => Ok(Self::builtin()),
            Some(dir) => {
                let mut files = Vec::new();
                collect(&dir, &dir, &mut files)?;
                files.sort();
                Ok(Self { origin: dir.display().to_string(), files })
            }
        }
    }

    /// The words of `locale`: the folder's `strings/<lang>.toml`, completed from the built-in
    /// ones where it lacks a key; a folder copied before the strings existed uses the built-in
    /// ones.
    pub fn strings(&self, locale: Locale) -> Result<Strings, ReportError> {
        let file = Strings::file_of(locale);
        match self.files.iter().find(|(path, _)| path == file) {
            None => Ok(Strings::builtin(locale)),
            Some((_, text)) => {
                let origin = format!("{}/{file}", self.origin);
                Ok(Strings::parse(text, &origin)?.completed(locale, &origin))
            }
        }
    }

    /// A handlebars engine for one output format, with every partial and the helpers.
    /// The HTML report's script (`explore.js`): the folder's own, else the built-in one, as for
    /// the strings; the page's Content-Security-Policy names its hash.
    pub fn script(&self) -> view::Script {
        let own = self.files.iter().find(|(path, _)| path == view::Script::FILE).map(|(_, t)| t.as_str());
        let builtin = || {
            crate::builtin::TEMPLATES.iter().find(|(p, _)| *p == view::Script::FILE).map_or("", |(_, t)| *t)
        };
        view::Script::new(own.unwrap_or_else(builtin))
    }

    /// The engine for `main`: the one `compile_ahead` made of these same files, else compiled now.
    fn engine(&self, main: &str, locale: Locale, markdown: bool) -> Result<Handlebars<'static>, ReportError> {
        let mut ahead = AHEAD.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let compiled_from = |k: &EngineKey| {
            k.main == main && k.locale == locale && k.markdown == markdown && k.files == self.files
        };
        match ahead.iter().position(|(k, _)| compiled_from(k)) {
            Some(i) => Ok(ahead.swap_remove(i).1),
            None => {
                drop(ahead);
                self.compile_engine(main, locale, markdown)
            }
        }
    }

    fn compile_engine(
        &self,
        main: &str,
        locale: Locale,
        markdown: bool,
    ) -> Result<Handlebars<'static>, ReportError> {
        let mut hb = Handlebars::new();
        let escape: fn(&str) -> String =
            if markdown { helpers::markdown_escape } else { handlebars::html_escape };
        hb.register_escape_fn(escape);
        hb.set_prevent_indent(true);
        helpers::register(&mut hb, locale, escape);
        let compile = |file: &str, e: handlebars::TemplateError| ReportError::Compile {
            file: format!("{}/{file}", self.origin),
            pos: e.pos().map(|(l, c)| format!(" (line {l}, column {c})")).unwrap_or_default(),
            reason: e.reason().to_string(),
        };
        let mut found = false;
        for (path, text) in &self.files {
            if let Some(name) = path.strip_prefix("partials/").and_then(|p| p.strip_suffix(".hbs")) {
                hb.register_partial(name, text.as_str()).map_err(|e| compile(path, e))?;
            } else if path == main {
                hb.register_template_string(main, text.as_str()).map_err(|e| compile(path, e))?;
                found = true;
            }
        }
        if !found {
            return Err(ReportError::Missing { dir: self.origin.clone(), file: main.to_string() });
        }
        Ok(hb)
    }
}

/// The report's two engines, compiled while the fetch runs (`compile_ahead`), by what they
/// were compiled from: a render takes the one that matches its own templates.
static AHEAD: std::sync::Mutex<Vec<(EngineKey, Handlebars<'static>)>> = std::sync::Mutex::new(Vec::new());

/// What an engine is compiled from: the template files (their text, not their folder's name:
/// an edited file is another engine), the main template, the language and the escaping.
struct EngineKey {
    files: Vec<(String, String)>,
    main: String,
    locale: Locale,
    markdown: bool,
}

/// Compiles the report's HTML and Markdown engines for `options` ahead of the render, which then
/// takes them instead of compiling its own: handlebars' parser computes every element's line
/// and column from the start of its file, 0.06 s of a 0.1 s report that a run can spend while
/// its fetch waits on the service. A template that does not compile is left for the render to
/// report, as it would without this.
pub fn compile_ahead(options: &ReportOptions) {
    let Ok(templates) = TemplateSet::load(options.templates.as_deref()) else { return };
    for (main, markdown) in [("report.html.hbs", false), ("report.md.hbs", true)] {
        if let Ok(hb) = templates.compile_engine(main, options.locale, markdown) {
            let key = EngineKey {
                files: templates.files.clone(),
                main: main.to_string(),
                locale: options.locale,
                markdown,
            };
            AHEAD.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((key, hb));
        }
    }
}

/// What a report is made from: the run's tables, its aggregates and alerts, and its record.
pub struct ReportInputs<'a> {
    pub frames: &'a Frames,
    pub aggregates: &'a Aggregates,
    /// `data_quality`: the values that could not be read, per table and column.
    pub quality: &'a polars::prelude::DataFrame,
    /// The watch rules' alerts, each with where it stands; None when no rules were given.
    pub alerts: Option<&'a [crate::monitor::lifecycle::TrackedAlert]>,
    /// The CNPJs (digits) whose dossiers this run writes: the report links to them.
    pub dossiers: &'a std::collections::BTreeSet<String>,
    pub codes: &'a CodeTables,
    pub manifest: &'a Manifest,
    pub run_id: &'a str,
    /// With a store: the series over its snapshots.
    pub history: Option<&'a Aggregates>,
}

/// The portfolio's company table made row by row by `partials/company_row.hbs`, each row its own
/// small context, and its rows then left out of the view. Handlebars turns its whole context into
/// JSON and every partial copies its caller's: 50,000 companies were 235 MiB of JSON, copied
/// again by each partial around them (a run from the publishers' files peaked at 1.1 GiB). A
/// templates folder whose table does not take the rows so (copied before the row partial
/// existed) makes the rows itself.
///
/// The rows made are returned, and the view carries `ROWS_MARK` in their place: the page is
/// rendered around the mark and the rows put in as it is written (`page_parts`). Carried in the
/// view, 500,000 companies' 148 MB of rows were copied twice by Handlebars' context and once
/// more into the page's text.
fn render_company_rows(
    hb: &Handlebars<'static>,
    view: &mut view::ReportView,
    templates: &TemplateSet,
) -> Result<Option<String>, ReportError> {
    const ROW: &str = "company_row";
    let takes_rows = templates
        .files
        .iter()
        .any(|(path, text)| path == "partials/company_table.hbs" && text.contains("rows_html"));
    let table = view.portfolio.as_mut().and_then(|p| p.companies.as_mut());
    let Some(table) = table.filter(|_| takes_rows && hb.has_template(ROW)) else { return Ok(None) };
    let mut html = String::new();
    for row in std::mem::take(&mut table.rows) {
        let made = hb.render(ROW, &row).map_err(|e| ReportError::Render {
            file: format!("{}/partials/{ROW}.hbs", templates.origin),
            reason: e.to_string(),
        })?;
        html.push_str(&made);
    }
    // The template's own line ends the last row.
    if html.ends_with('\n') {
        html.pop();
    }
    table.rows_html = Some(ROWS_MARK.to_string());
    Ok(Some(html))
}

/// Where the company rows go in the rendered page: an HTML comment no escaped value can hold
/// (Handlebars writes a value's `<` as `&lt;`).
const ROWS_MARK: &str = "<!--fiscal-report:company-rows-->";

/// The page `page` as the pieces written one after another: its text with `rows` at each
/// `ROWS_MARK` (a template may show the table more than once).
fn page_parts<'a>(page: &'a [u8], rows: Option<&'a str>) -> Vec<&'a [u8]> {
    let Some(rows) = rows else { return vec![page] };
    let mut parts = Vec::new();
    let mut from = 0;
    for at in memchr::memmem::find_iter(page, ROWS_MARK.as_bytes()) {
        parts.extend([&page[from..at], rows.as_bytes()]);
        from = at + ROWS_MARK.len();
    }
    parts.push(&page[from..]);
    parts
}

/// Renders `report.html`, `report.md` and `report.xlsx` into `out`; returns their manifest
/// entries and what a message about the report repeats of it (`digest`).
pub fn render_reports(
    inputs: &ReportInputs<'_>,
    options: &ReportOptions,
    out: &Path,
) -> Result<(Vec<FileEntry>, digest::Digest), ReportError> {
    let ReportInputs {
        frames,
        aggregates: aggs,
        quality,
        alerts,
        dossiers,
        codes,
        manifest,
        run_id,
        history,
    } = *inputs;
    let templates = TemplateSet::load(options.templates.as_deref())?;
    // Compile both formats before anything else, so a broken template is named first.
    let engines = [
        ("report.html.hbs", "report.html", templates.engine("report.html.hbs", options.locale, false)?),
        ("report.md.hbs", "report.md", templates.engine("report.md.hbs", options.locale, true)?),
    ];
    let strings = templates.strings(options.locale)?;
    let mut view = view::build_view_with(frames, aggs, codes, manifest, run_id, options.locale, &strings);
    view.set_alerts(alerts);
    view.set_dossiers(dossiers);
    view.script = Some(templates.script());
    view.history = history.and_then(|h| view::history(h, options.locale, &strings));
    let company_rows = render_company_rows(&engines[0].2, &mut view, &templates)?;
    let digest = digest::Digest::of(&view);
    tracing::debug!("report's view built{}", crate::memory::peak_note());
    // The page, the text and the workbook made at once, one per core (0.06 s one after
    // another for 300 companies, after the fetch), and written in that order.
    let render = |k: usize| -> Result<(&'static str, u64, Vec<u8>), ReportError> {
        let Some((main, file, hb)) = engines.get(k) else {
            let content = workbook::workbook_content(&view, aggs, quality);
            tracing::debug!("the workbook's content gathered{}", crate::memory::peak_note());
            let bytes = crate::export::workbook::build_workbook(&content)?;
            tracing::debug!("the workbook made{}", crate::memory::peak_note());
            return Ok((crate::export::workbook::WORKBOOK_FILE, content.rows(), bytes));
        };
        let text = hb.render(main, &view).map_err(|e| ReportError::Render {
            file: format!("{}/{main}", templates.origin),
            reason: e.to_string(),
        })?;
        tracing::debug!("{file} made{}", crate::memory::peak_note());
        Ok((file, 0, text.into_bytes()))
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut entries = Vec::new();
    for made in crate::stack::deep_each(engines.len() + 1, threads, render) {
        let (file, rows, bytes) = made?;
        let path = out.join(file);
        let parts = match file {
            "report.html" => page_parts(&bytes, company_rows.as_deref()),
            _ => vec![&bytes[..]],
        };
        crate::fsutil::write_atomic_parts(&path, &parts)
            .map_err(|source| ReportError::Write { path, source })?;
        entries.push(FileEntry::of_parts(file, rows, &parts));
        crate::progress::step(file);
    }
    Ok((entries, digest))
}

/// Renders both formats to strings (tests and snapshot checks).
pub fn render_to_strings(
    view: &view::ReportView,
    templates: &TemplateSet,
) -> Result<(String, String), ReportError> {
    let html = templates.engine("report.html.hbs", view.locale, false)?;
    let md = templates.engine("report.md.hbs", view.locale, true)?;
    let mut view = view.clone();
    let rows = render_company_rows(&html, &mut view, templates)?;
    let r = |hb: &Handlebars, main: &str| {
        crate::stack::deep(|| hb.render(main, &view))
            .map_err(|e| ReportError::Render { file: main.to_string(), reason: e.to_string() })
    };
    let page = r(&html, "report.html.hbs")?;
    // Whole in memory here: the rows at each mark, as `page_parts` writes them.
    let page = match rows {
        Some(rows) => page.replace(ROWS_MARK, &rows),
        None => page,
    };
    Ok((page, r(&md, "report.md.hbs")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in templates copied into a folder of their own, with a comment that no other
    /// test's templates carry (the engines compiled ahead are shared by the whole process).
    fn own_templates(mark: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in crate::builtin::TEMPLATES {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let text = if *path == "report.md.hbs" {
                format!("{{{{!-- {mark} --}}}}{text}")
            } else {
                text.to_string()
            };
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    /// The page's pieces put the rows at every mark, and leave a page without rows whole.
    #[test]
    fn the_page_is_written_with_the_rows_at_each_mark() {
        let page = format!("<table>{ROWS_MARK}</table><p>{ROWS_MARK}</p>");
        let parts = page_parts(page.as_bytes(), Some("<tr>1</tr>"));
        assert_eq!(parts.concat(), b"<table><tr>1</tr></table><p><tr>1</tr></p>");
        assert_eq!(page_parts(page.as_bytes(), None), vec![page.as_bytes()]);
    }

    fn ahead_of(files: &[(String, String)]) -> usize {
        AHEAD.lock().unwrap().iter().filter(|(k, _)| k.files == files).count()
    }

    /// A render takes the engines compiled ahead of the same template text, and only those: a
    /// file edited since is compiled again.
    #[test]
    fn a_render_takes_the_engines_compiled_ahead_of_its_own_templates() {
        let dir = own_templates("ahead");
        let options = ReportOptions { templates: Some(dir.path().to_path_buf()), locale: Locale::default() };
        compile_ahead(&options);
        let set = TemplateSet::load(Some(dir.path())).unwrap();
        assert_eq!(ahead_of(&set.files), 2, "HTML and Markdown");
        set.engine("report.html.hbs", options.locale, false).unwrap();
        assert_eq!(ahead_of(&set.files), 1, "the HTML engine was taken");

        std::fs::write(dir.path().join("report.md.hbs"), "{{!-- edited --}}").unwrap();
        let edited = TemplateSet::load(Some(dir.path())).unwrap();
        edited.engine("report.md.hbs", options.locale, true).unwrap();
        assert_eq!(ahead_of(&set.files), 1, "an edited set does not take the engine of the old text");
        set.engine("report.md.hbs", options.locale, true).unwrap();
        assert_eq!(ahead_of(&set.files), 0);
    }
}
