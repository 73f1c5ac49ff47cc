//! TLS, mutual TLS and bearer tokens, end to end: certificates are generated at test time with
//! rcgen (a CA, a server certificate for `localhost`, a client certificate), written to a
//! temporary directory and given to the server by the same flags production uses.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::unnecessary_wraps,
    reason = "common helpers build optional proto fields"
)]

mod common;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use common::start_of;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use tonic::{
    Code, Request,
    transport::{Certificate, Channel, ClientTlsConfig, Identity},
};
use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus, health_client};
use variant_service::{
    Config, ServerHandle,
    proto::{self as pb, game_engine_client::GameEngineClient},
    spawn,
};

/// PEM files of a throwaway PKI.
struct Pki {
    dir: PathBuf,
    ca: String,
    client_cert: String,
    client_key: String,
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Pki {
    fn new(name: &str) -> Pki {
        let dir = std::env::temp_dir().join(format!("variant-pki-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let server_key = KeyPair::generate().unwrap();
        let server_cert = CertificateParams::new(vec!["localhost".to_owned()])
            .unwrap()
            .signed_by(&server_key, &issuer)
            .unwrap();
        let client_key = KeyPair::generate().unwrap();
        let client_cert = CertificateParams::new(vec!["client".to_owned()])
            .unwrap()
            .signed_by(&client_key, &issuer)
            .unwrap();
        let pki = Pki {
            dir,
            ca: ca_cert.pem(),
            client_cert: client_cert.pem(),
            client_key: client_key.serialize_pem(),
        };
        std::fs::write(pki.path("ca.pem"), &pki.ca).unwrap();
        std::fs::write(pki.path("server.pem"), server_cert.pem()).unwrap();
        std::fs::write(pki.path("server.key"), server_key.serialize_pem()).unwrap();
        pki
    }

    fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    fn tls_config(&self, mutual: bool) -> Config {
        Config {
            tls_cert: Some(self.path("server.pem")),
            tls_key: Some(self.path("server.key")),
            tls_client_ca: mutual.then(|| self.path("ca.pem")),
            ..Config::default()
        }
    }
}

async fn serve(config: Config) -> ServerHandle {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    spawn(config, listener).expect("server starts")
}

/// Connects over TLS, trusting `pki`'s CA, optionally presenting the client certificate.
async fn tls_channel(
    handle: &ServerHandle,
    pki: &Pki,
    client_cert: bool,
) -> Result<Channel, tonic::transport::Error> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&pki.ca))
        .domain_name("localhost");
    if client_cert {
        tls = tls.identity(Identity::from_pem(&pki.client_cert, &pki.client_key));
    }
    Channel::from_shared(format!("https://{}", handle.addr))
        .unwrap()
        .connect_timeout(Duration::from_secs(5))
        .tls_config(tls)?
        .connect()
        .await
}

async fn legal_moves(channel: Channel, token: Option<&str>) -> Result<usize, tonic::Status> {
    let mut request = Request::new(pb::LegalMovesRequest {
        position: start_of("chess"),
        ..Default::default()
    });
    request.set_timeout(Duration::from_secs(5));
    if let Some(token) = token {
        request
            .metadata_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    GameEngineClient::new(channel)
        .legal_moves(request)
        .await
        .map(|r| r.into_inner().moves().len())
}

#[tokio::test]
async fn tls_server_answers_a_client_that_trusts_its_ca() {
    let pki = Pki::new("tls");
    let handle = serve(pki.tls_config(false)).await;
    let channel = tls_channel(&handle, &pki, false).await.expect("handshake");
    assert_eq!(legal_moves(channel, None).await.expect("answer"), 20);
    // A plaintext client gets nothing from a TLS port.
    let plain = Channel::from_shared(handle.url()).unwrap().connect().await;
    if let Ok(plain) = plain {
        assert!(legal_moves(plain, None).await.is_err());
    }
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn mutual_tls_accepts_a_client_certificate_and_rejects_its_absence() {
    let pki = Pki::new("mtls");
    let handle = serve(pki.tls_config(true)).await;
    let with_cert = tls_channel(&handle, &pki, true).await.expect("handshake");
    assert_eq!(legal_moves(with_cert, None).await.expect("answer"), 20);
    // Without a client certificate the handshake (or the first call on it) fails.
    match tls_channel(&handle, &pki, false).await {
        Err(_) => {}
        Ok(channel) => {
            let refused = legal_moves(channel, None)
                .await
                .expect_err("no client cert");
            assert_ne!(refused.code(), Code::Ok);
        }
    }
    handle.shutdown().await.unwrap();
}

fn with_tokens(file: Option<&Path>) -> Config {
    Config {
        auth_tokens: vec!["env-token".to_owned()],
        auth_tokens_file: file.map(Path::to_path_buf),
        ..Config::default()
    }
}

#[tokio::test]
async fn bearer_tokens_are_checked_except_for_health() {
    let pki = Pki::new("tokens"); // only for its temporary directory
    let tokens = pki.path("tokens");
    std::fs::write(&tokens, "# tokens\nfile-token\n").unwrap();
    let handle = serve(with_tokens(Some(&tokens))).await;
    let channel = Channel::from_shared(handle.url())
        .unwrap()
        .connect()
        .await
        .unwrap();

    for token in ["env-token", "file-token"] {
        assert_eq!(legal_moves(channel.clone(), Some(token)).await.unwrap(), 20);
    }
    for token in [None, Some("wrong")] {
        let refused = legal_moves(channel.clone(), token)
            .await
            .expect_err("refused");
        assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");
    }
    // Probes carry no token.
    let health = health_client::HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health is exempt")
        .into_inner();
    assert_eq!(health.status, ServingStatus::Serving as i32);
    handle.shutdown().await.unwrap();
}

/// Runs `variant-service healthcheck` with `args` (and no `VARIANT_HEALTHCHECK_*` from the
/// environment); returns (success, stderr).
fn healthcheck_binary(args: &[&str]) -> (bool, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_variant-service"));
    for (name, _) in std::env::vars() {
        if name.starts_with("VARIANT_") {
            command.env_remove(name);
        }
    }
    let output = command
        .arg("healthcheck")
        .args(args)
        .output()
        .expect("run the healthcheck");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_healthcheck_checks_a_tls_server_and_says_what_failed() {
    let pki = Pki::new("healthcheck");
    let handle = serve(pki.tls_config(false)).await;
    let addr = format!("https://{}", handle.addr);
    let ca = pki.path("ca.pem");
    let ca = ca.to_str().unwrap();
    let check = |args: Vec<&str>| {
        let args: Vec<String> = args.into_iter().map(String::from).collect();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            healthcheck_binary(&args)
        })
    };
    let (ok, stderr) = check(vec![
        "--addr",
        &addr,
        "--ca-file",
        ca,
        "--server-name",
        "localhost",
    ])
    .await
    .unwrap();
    assert!(ok, "a TLS server with its CA and name is healthy: {stderr}");
    let (ok, stderr) = check(vec!["--addr", &addr]).await.unwrap();
    assert!(!ok && stderr.contains("--ca-file"), "{stderr}");
    // The certificate is for localhost, not for the IP address dialled.
    let (ok, stderr) = check(vec!["--addr", &addr, "--ca-file", ca]).await.unwrap();
    assert!(!ok, "name mismatch accepted");
    assert!(
        stderr.contains("TLS handshake") && stderr.to_lowercase().contains("certificate"),
        "the cause is named: {stderr}"
    );
    // Plain text to a TLS port.
    let (ok, stderr) = check(vec!["--addr", &handle.url()]).await.unwrap();
    assert!(!ok, "{stderr}");
    handle.shutdown().await.unwrap();
}
