//! Telemetry end to end, in process: the real server exports spans and metrics over OTLP/gRPC
//! to a fake collector, continuing the caller's W3C trace.
//!
//! The tracing subscriber and OpenTelemetry providers are process-global, so this file holds a
//! single test and so runs alone in its own test process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/collector.rs"]
mod collector;

use std::time::Duration;

use collector::{Collector, assert_metrics, assert_spans, make_calls};
use tonic::transport::Channel;
use variant_service::{
    Config,
    config::LogFormat,
    telemetry::{self, OtlpConfig, TelemetryConfig},
};

// Multi-thread: flushing blocks on the exporter, which needs a runtime thread of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_and_metrics_reach_the_collector_continuing_the_callers_trace() {
    let collector = Collector::start().await;
    let telemetry = telemetry::init(&TelemetryConfig {
        log_format: LogFormat::Text,
        otlp: OtlpConfig {
            traces: true,
            metrics: true,
            endpoint: Some(collector.endpoint()),
            metric_interval: Some(Duration::from_millis(500)),
        },
    })
    .expect("telemetry installs once in this process");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let server = variant_service::spawn(Config::default(), listener).expect("server starts");
    let channel = Channel::from_shared(server.url())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    make_calls(channel).await;
    server.shutdown().await.expect("clean shutdown");

    let telemetry = tokio::task::spawn_blocking(move || {
        telemetry.force_flush().expect("flush");
        telemetry
    })
    .await
    .expect("flush thread");
    assert_spans(&collector).await;
    assert_metrics(&collector).await;
    telemetry.shutdown().await;
}
