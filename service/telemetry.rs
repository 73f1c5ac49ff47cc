//! Telemetry: logs (`tracing`, text or JSON), OpenTelemetry traces and metrics over OTLP/gRPC.
//!
//! [`init`] installs one global `tracing` subscriber with two layers:
//! - a log layer (text or JSON lines) filtered by `RUST_LOG` (default `info`). JSON lines carry a
//!   top-level `trace_id` while a span is active; text lines show it among the RPC span's fields;
//! - an OpenTelemetry layer that turns our spans into OpenTelemetry spans. It is always installed, so trace
//!   ids exist and a caller's W3C trace context is continued (and logged) even when nothing is
//!   exported; it only exports when an OTLP endpoint is configured. It sees only this service's and
//!   the engine's spans, never those of the exporter's own transport (which would loop back).
//!
//! Export is configured with the standard `OTEL_*` variables ([`TelemetryConfig::from_env`]); the
//! SDK and the OTLP exporter read the finer ones themselves (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
//! `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_BSP_*`, ...).
//!
//! Metrics instruments live here too: [`RpcMetrics`] (recorded by the tower layer in
//! `rpc_telemetry.rs`) and [`SearchMetrics`] (recorded by `engine_pool.rs`, which also opens the
//! `search` span through [`SearchMetrics::observe`]).

use std::{
    io::IsTerminal as _,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use opentelemetry::{
    Key, KeyValue,
    metrics::{Counter, Histogram, Meter, UpDownCounter},
    trace::{TraceContextExt as _, TracerProvider as _},
};
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::{
    Resource,
    metrics::{PeriodicReader, SdkMeterProvider},
    trace::{IdGenerator as _, RandomIdGenerator, Sampler, SdkTracerProvider},
};
use tracing::{Level, Span, Subscriber, field::Empty};
use tracing_subscriber::{
    EnvFilter, Layer as _,
    filter::Targets,
    fmt::{
        self, FmtContext, FormatEvent, FormatFields,
        format::{Format, Json, JsonFields, Writer},
    },
    prelude::*,
    registry::LookupSpan,
};
use variant_engine::{Limits, SearchResult, StopReason};

use crate::{config::LogFormat, rpc_telemetry::Fault};

/// `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one.
pub const DEFAULT_SERVICE_NAME: &str = "variant-service";
/// Instrumentation scope of our tracer and meter.
const SCOPE: &str = "variant-service";
/// Upper bound on flushing telemetry at shutdown: a dead collector must not hold up the exit
/// (Kubernetes' grace period is shared with draining requests).
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// What could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// An OTLP exporter could not be built (e.g. a malformed endpoint).
    #[error("cannot build OTLP exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// A global subscriber was already installed in this process.
    #[error("cannot install the tracing subscriber: {0}")]
    Subscriber(#[from] tracing_subscriber::util::TryInitError),
    /// Flushing spans or metrics failed.
    #[error("cannot flush telemetry: {0}")]
    Flush(#[from] opentelemetry_sdk::error::OTelSdkError),
}

/// Where (and whether) to export OpenTelemetry data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OtlpConfig {
    /// Export spans.
    pub traces: bool,
    /// Export metrics.
    pub metrics: bool,
    /// Collector URL for both signals (`http://host:4317`); `None` lets the exporter read
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT`.
    pub endpoint: Option<String>,
    /// Metric export interval; `None` lets the SDK read `OTEL_METRIC_EXPORT_INTERVAL` (60 s).
    pub metric_interval: Option<Duration>,
}

/// Telemetry settings: the log format and the OTLP export.
#[derive(Debug, Clone, Default)]
pub struct TelemetryConfig {
    /// Log line format.
    pub log_format: LogFormat,
    /// OTLP export.
    pub otlp: OtlpConfig,
}

impl TelemetryConfig {
    /// Reads the export switches from the standard variables: traces are exported when
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and
    /// `OTEL_TRACES_EXPORTER` is not `none`), metrics likewise with `..._METRICS_ENDPOINT` and
    /// `OTEL_METRICS_EXPORTER`.
    pub fn from_env(log_format: LogFormat) -> Self {
        Self::from_vars(log_format, |name| std::env::var(name).ok())
    }

    /// [`TelemetryConfig::from_env`] over any variable lookup (tests cannot safely set
    /// process environment variables).
    pub fn from_vars(log_format: LogFormat, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let var = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let enabled = |signal: &str| {
            let endpoint = var("OTEL_EXPORTER_OTLP_ENDPOINT")
                .or_else(|| var(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")));
            let exporter = var(&format!("OTEL_{signal}_EXPORTER"));
            endpoint.is_some() && exporter.is_none_or(|e| e != "none")
        };
        TelemetryConfig {
            log_format,
            otlp: OtlpConfig {
                traces: enabled("TRACES"),
                metrics: enabled("METRICS"),
                endpoint: None,
                metric_interval: None,
            },
        }
    }
}

/// The installed providers. Keep it for the life of the process and call
/// [`Telemetry::shutdown`] after the server stops, so buffered spans and metrics are sent.
#[derive(Debug)]
pub struct Telemetry {
    tracer: SdkTracerProvider,
    meter: Option<SdkMeterProvider>,
}

impl Telemetry {
    /// Exports everything buffered now. Blocks: call it from a plain thread or `spawn_blocking`
    /// (on a current-thread runtime it would wait for the exporter, which needs that thread).
    ///
    /// # Errors
    /// The exporter failed or timed out.
    pub fn force_flush(&self) -> Result<(), TelemetryError> {
        self.tracer.force_flush()?;
        if let Some(meter) = &self.meter {
            meter.force_flush()?;
        }
        Ok(())
    }

    /// Flushes and shuts the providers down on a dedicated thread, waiting at most
    /// [`SHUTDOWN_TIMEOUT`]; failures are logged, not returned: the process is exiting anyway.
    pub async fn shutdown(self) {
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("otel-shutdown".into())
            .spawn(move || {
                let traces = self.tracer.shutdown_with_timeout(SHUTDOWN_TIMEOUT);
                let metrics = self
                    .meter
                    .as_ref()
                    .map(|m| m.shutdown_with_timeout(SHUTDOWN_TIMEOUT));
                let _ = done_tx.send((traces, metrics));
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot flush telemetry");
            return;
        }
        match tokio::time::timeout(SHUTDOWN_TIMEOUT, done_rx).await {
            Ok(Ok((traces, metrics))) => {
                if let Err(e) = traces {
                    tracing::warn!(error = %e, "flushing spans failed");
                }
                if let Some(Err(e)) = metrics {
                    tracing::warn!(error = %e, "flushing metrics failed");
                }
            }
            Ok(Err(_)) => tracing::warn!("telemetry shutdown thread died"),
            Err(_) => tracing::warn!("telemetry flush timed out"),
        }
    }
}

/// The resource: `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` win; otherwise our defaults.
fn resource() -> Resource {
    let detected = Resource::builder().build();
    let mut builder = Resource::builder();
    // `with_service_name` would override OTEL_SERVICE_NAME, so only fill the SDK's fallback.
    let named = detected
        .get(&Key::from_static_str("service.name"))
        .is_some_and(|v| !v.as_str().starts_with("unknown_service"));
    if !named {
        builder = builder.with_service_name(DEFAULT_SERVICE_NAME);
    }
    if detected
        .get(&Key::from_static_str("service.version"))
        .is_none()
    {
        builder =
            builder.with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
    }
    // Replicas must differ in at least one resource attribute, or a metrics backend merges
    // (and the collector's Prometheus exporter overwrites) their series. Kubernetes passes the
    // pod name; elsewhere (compose) a random id per process does.
    if detected
        .get(&Key::from_static_str("service.instance.id"))
        .is_none()
    {
        let id = RandomIdGenerator::default().new_trace_id();
        builder = builder.with_attribute(KeyValue::new("service.instance.id", id.to_string()));
    }
    builder.build()
}

/// Builds the providers for `otlp`. The tracer provider always exists (ids and propagation).
fn providers(otlp: &OtlpConfig) -> Result<Telemetry, TelemetryError> {
    let resource = resource();
    let mut tracer = SdkTracerProvider::builder().with_resource(resource.clone());
    if !otlp.traces {
        // Nothing would be exported: keep trace ids and context propagation (for the logs and
        // downstream calls) but skip recording span data on every call.
        tracer = tracer.with_sampler(Sampler::AlwaysOff);
    }
    if otlp.traces {
        let mut exporter = opentelemetry_otlp::SpanExporter::builder().with_tonic();
        if let Some(endpoint) = &otlp.endpoint {
            exporter = exporter.with_endpoint(endpoint.clone());
        }
        tracer = tracer.with_batch_exporter(exporter.build()?);
    }
    let meter = if otlp.metrics {
        let mut exporter = opentelemetry_otlp::MetricExporter::builder().with_tonic();
        if let Some(endpoint) = &otlp.endpoint {
            exporter = exporter.with_endpoint(endpoint.clone());
        }
        let mut reader = PeriodicReader::builder(exporter.build()?);
        if let Some(interval) = otlp.metric_interval {
            reader = reader.with_interval(interval);
        }
        Some(
            SdkMeterProvider::builder()
                .with_resource(resource)
                .with_reader(reader.build())
                .build(),
        )
    } else {
        None
    };
    Ok(Telemetry {
        tracer: tracer.build(),
        meter,
    })
}

/// Installs the global subscriber and OpenTelemetry providers. Call once per process, at
/// startup and inside a tokio runtime (the OTLP channel runs on it); instruments created
/// afterwards ([`RpcMetrics::new`], [`SearchMetrics::new`]) report to the installed providers.
///
/// # Errors
/// An exporter cannot be built, or a subscriber is already installed.
pub fn init(config: &TelemetryConfig) -> Result<Telemetry, TelemetryError> {
    let telemetry = providers(&config.otlp)?;
    if let Some(meter) = &telemetry.meter {
        opentelemetry::global::set_meter_provider(meter.clone());
    }
    opentelemetry::global::set_tracer_provider(telemetry.tracer.clone());

    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = match config.log_format {
        // Colour codes only for a terminal: in a file, a pipe or a log collector they are noise.
        LogFormat::Text => fmt::layer()
            .with_ansi(colour_logs())
            .with_filter(filter)
            .boxed(),
        LogFormat::Json => fmt::layer()
            .json()
            .event_format(WithTraceId(fmt::format().json().flatten_event(true)))
            .fmt_fields(JsonFields::new())
            .with_filter(filter)
            .boxed(),
    };
    // Spans are exported independently of RUST_LOG (quiet logs still give traces), but only
    // ours: the exporter's own tonic/h2 spans would otherwise be exported, and so on.
    let spans = tracing_opentelemetry::layer()
        .with_tracer(telemetry.tracer.tracer(SCOPE))
        .with_filter(
            Targets::new()
                .with_target("variant_service", Level::INFO)
                .with_target("variant_engine", Level::INFO),
        );
    tracing_subscriber::registry()
        .with(logs)
        .with(spans)
        .try_init()?;
    Ok(telemetry)
}

/// True when text logs may use colour: stdout (where they go) is a terminal and `NO_COLOR` is
/// not set (<https://no-color.org>).
fn colour_logs() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The trace id of the active OpenTelemetry context, if any.
pub fn current_trace_id() -> Option<String> {
    let cx = opentelemetry::Context::current();
    let span = cx.span();
    let context = span.span_context();
    context.is_valid().then(|| context.trace_id().to_string())
}

/// JSON event format with a top-level `trace_id` (log collectors join logs to traces by it).
struct WithTraceId(Format<Json>);

impl<S, N> FormatEvent<S, N> for WithTraceId
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let Some(trace_id) = current_trace_id() else {
            return self.0.format_event(ctx, writer, event);
        };
        let mut line = String::new();
        self.0.format_event(ctx, Writer::new(&mut line), event)?;
        // The JSON formatter writes one object per line: splice the field in after its `{`.
        match line.strip_prefix('{') {
            Some(rest) => write!(writer, "{{\"trace_id\":\"{trace_id}\",{rest}"),
            None => writer.write_str(&line),
        }
    }
}

/// Attribute keys shared by spans and metrics.
mod keys {
    pub const RPC_SYSTEM: &str = "rpc.system";
    pub const RPC_SERVICE: &str = "rpc.service";
    pub const RPC_METHOD: &str = "rpc.method";
    pub const RPC_GRPC_STATUS_CODE: &str = "rpc.grpc.status_code";
    pub const STOP_REASON: &str = "stop_reason";
    pub const FAULT: &str = "fault";
}

fn meter() -> Meter {
    opentelemetry::global::meter(SCOPE)
}

/// RPC metrics after the OpenTelemetry RPC semantic conventions, and the count of calls in
/// flight (which the drain at shutdown waits for).
#[derive(Debug, Clone)]
pub struct RpcMetrics {
    duration: Histogram<f64>,
    in_flight: Arc<AtomicUsize>,
}

impl RpcMetrics {
    /// Creates the instruments on the global meter provider (no-ops when export is off).
    pub fn new() -> Self {
        RpcMetrics {
            duration: meter()
                .f64_histogram("rpc.server.duration")
                .with_unit("ms")
                .with_description("Duration of inbound RPCs, until the response's status")
                .build(),
            in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Records one finished RPC; a failed one carries `fault` = `client` or `server`.
    pub fn record(
        &self,
        service: &str,
        method: &str,
        code: tonic::Code,
        fault: Option<Fault>,
        elapsed: Duration,
    ) {
        let mut attributes = vec![
            KeyValue::new(keys::RPC_SYSTEM, "grpc"),
            KeyValue::new(keys::RPC_SERVICE, service.to_owned()),
            KeyValue::new(keys::RPC_METHOD, method.to_owned()),
            KeyValue::new(keys::RPC_GRPC_STATUS_CODE, code as i64),
        ];
        if let Some(fault) = fault {
            attributes.push(KeyValue::new(keys::FAULT, fault.as_str()));
        }
        self.duration
            .record(elapsed.as_secs_f64() * 1000.0, &attributes);
    }

    /// Counts a call that started.
    pub fn call_started(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a call that has its status (or was dropped).
    pub fn call_ended(&self) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }

    /// Calls started and not yet ended.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }
}

impl Default for RpcMetrics {
    fn default() -> Self {
        Self::new()
    }
}

/// Search pool metrics and the `search` span.
#[derive(Debug, Clone)]
pub struct SearchMetrics {
    running: UpDownCounter<i64>,
    queued: UpDownCounter<i64>,
    refused: Counter<u64>,
    nodes: Counter<u64>,
    duration: Histogram<f64>,
}

/// Adds 1 to an up-down counter now and takes it away on drop (also on panic or cancellation).
#[derive(Debug)]
pub struct Gauged(UpDownCounter<i64>);

impl Drop for Gauged {
    fn drop(&mut self) {
        self.0.add(-1, &[]);
    }
}

impl SearchMetrics {
    /// Creates the instruments on the global meter provider (no-ops when export is off).
    pub fn new() -> Self {
        let meter = meter();
        SearchMetrics {
            running: meter
                .i64_up_down_counter("variant.search.running")
                .with_unit("{search}")
                .with_description("Searches running now")
                .build(),
            queued: meter
                .i64_up_down_counter("variant.search.queued")
                .with_unit("{job}")
                .with_description("Searches and perfts waiting for a slot")
                .build(),
            refused: meter
                .u64_counter("variant.search.refused")
                .with_unit("{job}")
                .with_description(
                    "Searches and perfts refused: queue full, or no slot free in time for the deadline",
                )
                .build(),
            nodes: meter
                .u64_counter("variant.search.nodes")
                .with_unit("{node}")
                .with_description("Nodes searched")
                .build(),
            duration: meter
                .f64_histogram("variant.search.duration")
                .with_unit("ms")
                .with_description("Search time, by stop reason")
                .build(),
        }
    }

    /// Counts a job waiting for a slot until the returned guard drops.
    pub fn queued(&self) -> Gauged {
        self.queued.add(1, &[]);
        Gauged(self.queued.clone())
    }

    /// Counts a refused job.
    pub fn refused(&self) {
        self.refused.add(1, &[]);
    }

    /// Runs a search (on the calling engine thread) inside a `search` span whose parent is
    /// `parent` (the RPC span, captured on the request task), and records its metrics.
    pub fn observe(
        &self,
        parent: &Span,
        limits: &Limits,
        run: impl FnOnce() -> SearchResult,
    ) -> SearchResult {
        let span = tracing::info_span!(
            parent: parent,
            "search",
            threads = limits.threads.max(1),
            multipv = limits.multipv.max(1),
            depth = Empty,
            seldepth = Empty,
            nodes = Empty,
            nps = Empty,
            time_ms = Empty,
            stop_reason = Empty,
        );
        let _running = {
            self.running.add(1, &[]);
            Gauged(self.running.clone())
        };
        let started = Instant::now();
        let result = span.in_scope(run);
        let elapsed = started.elapsed();
        let reason = stop_reason(result.stop_reason);
        span.record("depth", result.depth)
            .record("seldepth", result.seldepth)
            .record("nodes", result.nodes)
            .record("nps", result.nps)
            .record("time_ms", result.time.as_millis() as u64)
            .record("stop_reason", reason);
        self.nodes.add(result.nodes, &[]);
        self.duration.record(
            elapsed.as_secs_f64() * 1000.0,
            &[KeyValue::new(keys::STOP_REASON, reason)],
        );
        result
    }
}

impl Default for SearchMetrics {
    fn default() -> Self {
        Self::new()
    }
}

/// Stable lowercase names for attributes and dashboards.
fn stop_reason(reason: StopReason) -> &'static str {
    match reason {
        StopReason::Depth => "depth",
        StopReason::Nodes => "nodes",
        StopReason::Time => "time",
        StopReason::Stopped => "stopped",
        StopReason::Mate => "mate",
        StopReason::NoMoves => "no_moves",
    }
}

impl std::fmt::Debug for WithTraceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WithTraceId")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn otlp(vars: &[(&str, &str)]) -> OtlpConfig {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        TelemetryConfig::from_vars(LogFormat::Text, |name| vars.get(name).cloned()).otlp
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint() {
        assert_eq!(otlp(&[]), OtlpConfig::default());
        assert_eq!(
            otlp(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]),
            OtlpConfig::default()
        );
    }

    #[test]
    fn the_general_endpoint_enables_both_signals() {
        let config = otlp(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317")]);
        assert!(config.traces && config.metrics);
        // The exporter reads the endpoint itself, with the per-signal precedence rules.
        assert_eq!(config.endpoint, None);
    }

    #[test]
    fn a_signal_endpoint_enables_only_that_signal() {
        let config = otlp(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://jaeger:4317")]);
        assert!(config.traces && !config.metrics);
        let config = otlp(&[("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://c:4317")]);
        assert!(!config.traces && config.metrics);
    }

    #[test]
    fn exporter_none_switches_a_signal_off() {
        let config = otlp(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317"),
            ("OTEL_METRICS_EXPORTER", "none"),
        ]);
        assert!(config.traces && !config.metrics);
    }

    #[test]
    fn stop_reasons_have_stable_names() {
        assert_eq!(stop_reason(StopReason::Depth), "depth");
        assert_eq!(stop_reason(StopReason::NoMoves), "no_moves");
    }
}
