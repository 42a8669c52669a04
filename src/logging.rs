//! Log setup: tracing to stderr as text or JSON lines, and the lines said whatever the level
//! (a run's summary, the final error) in the same format, so that a scheduler reading
//! `--log-format json` gets nothing but JSON objects. Logs never carry the API key: the key
//! type redacts itself and no log statement records request headers.

use std::sync::OnceLock;

static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

pub fn init(format: LogFormat, verbose: u8, quiet: bool) {
    let _ = FORMAT.set(format);
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

/// Says a line on stderr whatever the log level: as it is, or under `--log-format json` as an
/// object shaped like the log lines' (`timestamp`, `level`, `message`).
pub fn say(message: &str) {
    say_at("INFO", message, None);
}

/// The run's last word on a failure, with the exit status it ends with (`exit_code` in JSON)
/// when that is known.
pub fn say_error(message: &str, exit_code: Option<u8>) {
    say_at("ERROR", message, exit_code);
}

fn say_at(level: &str, message: &str, exit_code: Option<u8>) {
    if FORMAT.get() != Some(&LogFormat::Json) {
        eprintln!("{message}");
        return;
    }
    let timestamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let mut line = serde_json::json!({ "timestamp": timestamp, "level": level, "message": message });
    if let Some(code) = exit_code {
        line["exit_code"] = code.into();
    }
    eprintln!("{line}");
}

/// `eprintln!` for what a command tells its user: one line in the run's log format.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::logging::say(&format!($($arg)*))
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
