//! `variant-service` binary: parse flags, then serve or run the health check.

use std::process::ExitCode;

use clap::Parser as _;
use variant_service::{Cli, Command, healthcheck, serve, shutdown, telemetry};

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
        Some(Command::Loadgen(args)) => match variant_service::loadgen::run(&args).await {
            Ok(summary) => {
                print!("{}", summary.text);
                println!("LOADGEN_JSON {}", summary.json);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("loadgen: {e}");
                ExitCode::FAILURE
            }
        },
        None => {
            telemetry::init(cli.config.log_format);
            let listener = match tokio::net::TcpListener::bind(cli.config.listen).await {
                Ok(l) => l,
                Err(e) => {
                    tracing::error!(listen = %cli.config.listen, error = %e, "cannot listen");
                    return ExitCode::FAILURE;
                }
            };
            match serve(cli.config, listener, shutdown::signal()).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, "server failed");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
