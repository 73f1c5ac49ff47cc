//! Telemetry from outside the process: the built binary, configured only through `OTEL_*`
//! variables, exports to a fake collector and flushes its spans and metrics on SIGTERM; without
//! them it exports nothing and stays quiet, but its logs still carry the caller's trace id.
//!
//! The metric export interval is set to a minute, so the metrics that arrive can only come
//! from the flush at shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/collector.rs"]
mod collector;
#[path = "common/port.rs"]
mod port;

use std::{
    io::Read as _,
    process::{Child, Command, ExitStatus, Stdio},
    thread::JoinHandle,
    time::{Duration, Instant},
};

use collector::{CALLER_TRACE_ID, Collector, assert_metrics, assert_spans, attr, make_calls};
use port::free_port;
use tonic::transport::Channel;

/// How long the binary may take to start listening or to exit.
const PATIENCE: Duration = Duration::from_secs(30);

async fn connect(port: u16) -> Channel {
    let url = format!("http://127.0.0.1:{port}");
    let end = Instant::now() + PATIENCE;
    loop {
        match Channel::from_shared(url.clone())
            .expect("url")
            .connect()
            .await
        {
            Ok(channel) => return channel,
            Err(e) if Instant::now() > end => panic!("binary never listened: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// The binary configured only by `vars` (plus a free loopback `VARIANT_LISTEN` and JSON logs),
/// its port, and a thread collecting its stdout.
fn spawn_binary(vars: &[(&str, String)]) -> (Child, u16, JoinHandle<String>) {
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_variant-service"));
    // Only what this test sets may configure the binary.
    for (name, _) in std::env::vars() {
        if name.starts_with("OTEL_") || name.starts_with("VARIANT_") || name == "RUST_LOG" {
            command.env_remove(name);
        }
    }
    command
        .env("VARIANT_LISTEN", format!("127.0.0.1:{port}"))
        .env("VARIANT_LOG_FORMAT", "json")
        .env("VARIANT_SHUTDOWN_GRACE_SECS", "5");
    for (name, value) in vars {
        command.env(name, value);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the binary");
    let mut stdout = child.stdout.take().expect("stdout");
    let logs = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    (child, port, logs)
}

/// Sends SIGTERM, waits for the exit and returns (status, stdout, stderr).
async fn terminate(mut child: Child, logs: JoinHandle<String>) -> (ExitStatus, String, String) {
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let end = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < end, "binary did not exit after SIGTERM");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    (status, logs.join().expect("log reader"), stderr)
}

/// Runs the binary configured by `vars`, makes the test calls, stops it with SIGTERM, asserts
/// that it exited 0 and returns (stdout, stderr).
async fn calls_then_sigterm(vars: &[(&str, String)]) -> (String, String) {
    let (child, port, logs) = spawn_binary(vars);
    make_calls(connect(port).await).await;
    let (status, logs, stderr) = terminate(child, logs).await;
    assert!(
        status.success(),
        "exit {status:?}\nstdout:\n{logs}\nstderr:\n{stderr}"
    );
    (logs, stderr)
}

/// The JSON log line of the search must carry the caller's trace id up front.
fn assert_search_line_has_callers_trace_id(logs: &str) {
    let line = logs
        .lines()
        .find(|line| line.contains("search done"))
        .unwrap_or_else(|| panic!("no search log line in:\n{logs}"));
    assert!(
        line.starts_with(&format!("{{\"trace_id\":\"{CALLER_TRACE_ID}\"")),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_exports_via_otel_env_vars_and_flushes_on_sigterm() {
    let collector = Collector::start().await;
    let (logs, _stderr) = calls_then_sigterm(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint()),
        ("OTEL_SERVICE_NAME", "variant-service-under-test".into()),
        (
            "OTEL_RESOURCE_ATTRIBUTES",
            "deployment.environment=test".into(),
        ),
        ("OTEL_METRIC_EXPORT_INTERVAL", "60000".into()),
    ])
    .await;

    // Everything below was exported at the latest during the shutdown flush.
    assert_spans(&collector).await;
    assert_metrics(&collector).await;
    let resource = collector
        .wait_for(collector::ARRIVAL, |r| {
            r.spans.first().map(|s| s.resource.clone())
        })
        .await
        .expect("spans");
    assert_eq!(
        attr(&resource, "service.name").as_deref(),
        Some("variant-service-under-test")
    );
    assert_eq!(
        attr(&resource, "deployment.environment").as_deref(),
        Some("test")
    );
    assert!(
        attr(&resource, "service.instance.id").is_some_and(|id| !id.is_empty()),
        "replicas are told apart"
    );
    assert_search_line_has_callers_trace_id(&logs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_otel_env_nothing_is_exported_but_logs_still_carry_the_callers_trace_id() {
    let (logs, stderr) = calls_then_sigterm(&[]).await;
    assert!(stderr.is_empty(), "no error noise: {stderr}");
    for line in logs.lines() {
        assert!(
            !line.contains("\"level\":\"WARN\"") && !line.contains("\"level\":\"ERROR\""),
            "{line}"
        );
    }
    assert_search_line_has_callers_trace_id(&logs);
}
