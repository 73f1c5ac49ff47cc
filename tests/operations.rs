//! The binary as operators meet it: configuration mistakes are reported before the port is
//! bound, and text logs carry no colour codes when they do not go to a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};

/// The binary with `args`, no `VARIANT_*`/`RUST_LOG` from the environment, output captured.
fn binary(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_variant-service"));
    for (name, _) in std::env::vars() {
        if name.starts_with("VARIANT_") || name.starts_with("OTEL_") || name == "RUST_LOG" {
            command.env_remove(name);
        }
    }
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[test]
fn a_config_mistake_is_reported_before_the_port_is_bound() {
    // The port is taken: a server that binds first reports "cannot listen" instead of the
    // real mistake (and would have held the port while the operator fixes the wrong thing).
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = taken.local_addr().unwrap().to_string();
    let output = binary(&[
        "--listen",
        &listen,
        "--tls-cert",
        "/nonexistent/server.pem",
        "--tls-key",
        "/nonexistent/server.key",
    ])
    .output()
    .expect("run");
    let logs = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success());
    assert!(logs.contains("/nonexistent/server.pem"), "{logs}");
    assert!(!logs.contains("cannot listen"), "{logs}");
}

#[test]
fn text_logs_into_a_pipe_have_no_colour_codes() {
    // A config mistake makes the binary log an error line and exit at once.
    let output = binary(&[
        "--log-format",
        "text",
        "--auth-tokens-file",
        "/nonexistent/tokens",
    ])
    .output()
    .expect("run");
    let logs = String::from_utf8_lossy(&output.stdout);
    assert!(logs.contains("ERROR"), "an error line was logged: {logs}");
    assert!(!logs.contains('\u{1b}'), "ANSI escape codes in {logs:?}");
}
