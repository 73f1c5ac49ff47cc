//! Logging set-up: `tracing` with text (default) or JSON lines, level from `RUST_LOG`.
//!
//! OpenTelemetry export (a later issue) plugs in here as one more `tracing-subscriber` layer,
//! enabled when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.

use tracing_subscriber::{EnvFilter, fmt, prelude::*};

use crate::config::LogFormat;

/// Installs the global subscriber. Call once, at startup.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let registry = tracing_subscriber::registry().with(filter);
    // `try_init` so a second call (tests) is harmless.
    let _ = match format {
        LogFormat::Text => registry.with(fmt::layer()).try_init(),
        LogFormat::Json => registry
            .with(fmt::layer().json().flatten_event(true))
            .try_init(),
    };
}
