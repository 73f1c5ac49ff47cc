//! `variant-service` binary: parse flags, then serve or run the health check.

use std::process::ExitCode;

use clap::Parser as _;
use variant_service::{Cli, Command, healthcheck, server, shutdown, telemetry};

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
        Some(Command::Healthcheck(args)) => match healthcheck::check(&args).await {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => {
                eprintln!("not serving");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("healthcheck: {e}");
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
            let listen = cli.config.listen;
            // Every configuration mistake is reported before the port is bound.
            let code = match server::prepare(cli.config) {
                Err(e) => {
                    tracing::error!(error = %e, "cannot start");
                    ExitCode::FAILURE
                }
                Ok(prepared) => match tokio::net::TcpListener::bind(listen).await {
                    Ok(listener) => match prepared.serve(listener, shutdown::signal()).await {
                        Ok(()) => ExitCode::SUCCESS,
                        Err(e) => {
                            tracing::error!(error = %e, "server failed");
                            ExitCode::FAILURE
                        }
                    },
                    Err(e) => {
                        tracing::error!(%listen, error = %e, "cannot listen");
                        ExitCode::FAILURE
                    }
                },
            };
            // After the server stopped: the last spans and metrics of the drain are included.
            telemetry.shutdown().await;
            code
        }
    }
}
