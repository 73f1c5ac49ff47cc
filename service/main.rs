//! `variant-service` binary: parse flags, then serve or run the health check.

use std::process::ExitCode;

use clap::Parser as _;
use variant_service::{Cli, Command, healthcheck, serve, shutdown, telemetry};

/// mimalloc instead of the system allocator: a `LegalMoves` answer is hundreds of small strings
/// built on one tokio worker and freed on another, and glibc's malloc/free (with its
/// cross-thread frees and fastbin consolidation) was about a third of the server's and the load
/// generator's CPU (perf profiles of both).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Healthcheck { addr }) => match healthcheck::check(addr).await {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => {
                eprintln!("not serving");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        },
        None => {
            let config = telemetry::TelemetryConfig::from_env(cli.config.log_format);
            let telemetry = match telemetry::init(&config) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let code = match tokio::net::TcpListener::bind(cli.config.listen).await {
                Ok(listener) => match serve(cli.config, listener, shutdown::signal()).await {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        tracing::error!(error = %e, "server failed");
                        ExitCode::FAILURE
                    }
                },
                Err(e) => {
                    tracing::error!(listen = %cli.config.listen, error = %e, "cannot listen");
                    ExitCode::FAILURE
                }
            };
            // After the server stopped: the last spans and metrics of the drain are included.
            telemetry.shutdown().await;
            code
        }
    }
}
