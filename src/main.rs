//! Parses the command line, runs it, and maps the outcome to a documented exit code.

use std::process::ExitCode;

use clap::Parser;
use fiscal_report::{cli::Cli, commands, exit, logging};

/// jemalloc returns what the stages free to the system, where glibc's per-thread arenas kept it.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
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
