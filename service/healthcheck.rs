//! The `healthcheck` subcommand: a gRPC health client for container HEALTHCHECKs, because the
//! distroless image has no shell or `grpc_health_probe`.
//!
//! It speaks TLS when the address is `https://` (then `--ca-file` names the CA that signed the
//! server's certificate, `--server-name` the name to check it against, and `--cert`/`--key` a
//! client certificate for a server that requires mutual TLS). Errors name what failed (the
//! file, the connection, the TLS handshake, the call) with the whole chain of causes, because
//! a bare "transport error" in a container's health log says nothing.

use std::{error::Error as _, path::PathBuf, time::Duration};

use clap::Args;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

/// Bound on connect + call, well under typical HEALTHCHECK timeouts.
const TIMEOUT: Duration = Duration::from_secs(3);

/// Options of `variant-service healthcheck` (each also from the environment, so a container
/// image can keep one HEALTHCHECK line and switch it to TLS with variables).
#[derive(Debug, Clone, Args)]
pub struct HealthcheckArgs {
    /// Address of the server to check (`https://` for a TLS server).
    #[arg(
        long,
        env = "VARIANT_HEALTHCHECK_ADDR",
        default_value = "http://127.0.0.1:50051"
    )]
    pub addr: String,
    /// PEM CA certificate(s) to trust for an `https://` address.
    #[arg(long, env = "VARIANT_HEALTHCHECK_CA_FILE")]
    pub ca_file: Option<PathBuf>,
    /// Name the server's certificate must carry (default: the address's host).
    #[arg(long, env = "VARIANT_HEALTHCHECK_SERVER_NAME")]
    pub server_name: Option<String>,
    /// PEM client certificate, for a server that requires mutual TLS (with `--key`).
    #[arg(long, env = "VARIANT_HEALTHCHECK_CERT")]
    pub cert: Option<PathBuf>,
    /// PEM private key of `--cert`.
    #[arg(long, env = "VARIANT_HEALTHCHECK_KEY")]
    pub key: Option<PathBuf>,
}

impl HealthcheckArgs {
    /// Plain-text checks of `addr` with no TLS options.
    pub fn plaintext(addr: impl Into<String>) -> Self {
        HealthcheckArgs {
            addr: addr.into(),
            ca_file: None,
            server_name: None,
            cert: None,
            key: None,
        }
    }
}

/// An error and every cause below it, `outer: inner: innermost`.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // hyper and tonic often repeat their cause's text in their own.
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

fn read(what: &str, path: &PathBuf) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {what} {}: {e}", path.display()))
}

/// The TLS settings for `args`, `None` for plain text.
fn tls(args: &HealthcheckArgs, https: bool) -> Result<Option<ClientTlsConfig>, String> {
    if !https {
        if args.ca_file.is_some() || args.cert.is_some() || args.server_name.is_some() {
            return Err(format!(
                "TLS options given but {} is not an https:// address",
                args.addr
            ));
        }
        return Ok(None);
    }
    let Some(ca_file) = &args.ca_file else {
        return Err(format!(
            "{} is an https:// address: --ca-file must name the CA that signed the server's certificate",
            args.addr
        ));
    };
    let mut tls =
        ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read("CA file", ca_file)?));
    if let Some(name) = &args.server_name {
        tls = tls.domain_name(name.clone());
    }
    match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => {
            tls = tls.identity(Identity::from_pem(
                read("client certificate", cert)?,
                read("client key", key)?,
            ));
        }
        (None, None) => {}
        _ => return Err("--cert and --key must be given together".into()),
    }
    Ok(Some(tls))
}

/// Asks the server for the overall health (service ""). `Ok(true)` iff SERVING.
///
/// # Errors
/// Describes what failed: options, files, connecting (with the TLS handshake's reason), the call.
pub async fn check(args: &HealthcheckArgs) -> Result<bool, String> {
    let addr = &args.addr;
    let call = async {
        let mut endpoint = Endpoint::from_shared(addr.clone())
            .map_err(|e| format!("invalid address {addr:?}: {}", chain(&e)))?;
        let https = endpoint.uri().scheme_str() == Some("https");
        if let Some(tls) = tls(args, https)? {
            endpoint = endpoint
                .tls_config(tls)
                .map_err(|e| format!("invalid TLS settings: {}", chain(&e)))?;
        }
        let channel = endpoint.connect().await.map_err(|e| {
            let what = if https {
                "cannot connect (TCP or TLS handshake)"
            } else {
                "cannot connect"
            };
            format!("{what} to {addr}: {}", chain(&e))
        })?;
        let response = HealthClient::new(channel)
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await
            .map_err(|s| {
                let cause = s
                    .source()
                    .map(|c| format!(" ({})", chain(c)))
                    .unwrap_or_default();
                format!(
                    "health check call failed: {:?}: {}{cause}",
                    s.code(),
                    s.message()
                )
            })?;
        Ok(response.into_inner().status == ServingStatus::Serving as i32)
    };
    tokio::time::timeout(TIMEOUT, call)
        .await
        .map_err(|_| format!("no answer from {addr} within {TIMEOUT:?}"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn https_without_a_ca_file_says_what_is_missing() {
        let err = check(&HealthcheckArgs::plaintext("https://127.0.0.1:1"))
            .await
            .expect_err("no CA");
        assert!(err.contains("--ca-file"), "{err}");
    }

    #[tokio::test]
    async fn a_missing_ca_file_is_named() {
        let mut args = HealthcheckArgs::plaintext("https://127.0.0.1:1");
        args.ca_file = Some("/nonexistent/ca.pem".into());
        let err = check(&args).await.expect_err("no file");
        assert!(
            err.contains("cannot read CA file /nonexistent/ca.pem"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_refused_connection_is_described_with_its_cause() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let err = check(&HealthcheckArgs::plaintext(format!(
            "http://127.0.0.1:{port}"
        )))
        .await
        .expect_err("nobody listens");
        assert!(err.starts_with("cannot connect to"), "{err}");
        assert!(err.to_lowercase().contains("refused"), "{err}");
    }
}
