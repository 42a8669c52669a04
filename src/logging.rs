//! Log setup: tracing to stderr as text or JSON lines. Logs never carry the API key: the key
//! type redacts itself and no log statement records request headers.

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

pub fn init(format: LogFormat, verbose: u8, quiet: bool) {
    let default = match (quiet, verbose) {
        (true, _) => "error",
        // delta-rs logs every snapshot it loads at info: detail for -v, not for a monthly log.
        (false, 0) => "info,deltalake_core=warn,delta_kernel=warn,buoyant_kernel=warn",
        (false, 1) => "info,fiscal_report=debug",
        (false, _) => "debug,fiscal_report=trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Colour codes only for a person at a terminal, not in files a scheduler captures.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| LogWriter)
        .with_target(false)
        .with_ansi(ansi);
    // A second init (tests calling the library twice) keeps the first subscriber.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// stderr, with the later stages' progress bar hidden while a line is written
/// (`progress::suspend`): a log line is not drawn into the bar, and the bar is drawn again
/// below it.
struct LogWriter;

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        crate::progress::suspend(|| std::io::stderr().write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        crate::progress::suspend(|| std::io::stderr().write_all(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}
