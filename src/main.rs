//! Parses the command line, runs it, and maps the outcome to a documented exit code.

use std::process::ExitCode;

use clap::Parser;
use fiscal_report::{cli::Cli, commands, exit, logging};

/// jemalloc returns what the stages free to the system, where glibc's per-thread arenas kept it.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refuse_arguments(e),
    };
    logging::init(cli.log_format.into(), cli.verbose, cli.quiet);
    // A panic is a bug: report it as one, with a hint, instead of a raw backtrace.
    std::panic::set_hook(Box::new(|info| {
        logging::say_error(
            &format!(
                "internal error: {info}\nThis is a bug in fiscal-report. Please file an issue with this message and \
                 the command you ran."
            ),
            // A panic caught on its way (a worker thread's) may end as another status.
            None,
        );
    }));
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            let message = format!("error: cannot start the async runtime: {e}");
            logging::say_error(&message, Some(exit::ExitStatus::Internal as u8));
            return ExitCode::from(exit::ExitStatus::Internal as u8);
        }
    };
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime.block_on(commands::run(cli))));
    let status = match outcome {
        Ok(Ok(status)) => status,
        Ok(Err(err)) => {
            let status = commands::error::classify(&err);
            logging::say_error(&commands::error::render(&err), Some(status as u8));
            status
        }
        Err(_) => exit::ExitStatus::Internal,
    };
    ExitCode::from(status as u8)
}

/// A command line clap cannot read, said as clap says it; or, when the line asks for JSON logs,
/// as one JSON line with clap's exit status. Help and version print as they are.
fn refuse_arguments(e: clap::Error) -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--log-format=json")
        || args.windows(2).any(|w| w[0] == "--log-format" && w[1] == "json");
    if !e.use_stderr() || !json {
        e.exit()
    }
    logging::init(logging::LogFormat::Json, 0, true);
    let code = u8::try_from(e.exit_code()).unwrap_or(exit::ExitStatus::BadInput as u8);
    logging::say_error(e.render().to_string().trim_end(), Some(code));
    ExitCode::from(code)
}
