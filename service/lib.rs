//! `variant-service`: a stateless gRPC front end (tonic) for the `variant-engine` library.
//!
//! Start a server with [`server::serve`] (blocking until shutdown) or [`server::spawn`] (a
//! background task, for tests on `127.0.0.1:0`). `main.rs` only parses flags and calls these.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod api;
pub mod config;
pub mod convert;
pub mod engine_pool;
pub mod error;
pub mod healthcheck;
pub mod proto;
pub mod server;
pub mod shutdown;
pub mod status;
pub mod telemetry;

/// The engine's search API (`SearchPool`, `Limits`, ...), imported in one place.
///
/// TEMPORARY: points at `variant-search-stub` until the engine's own search lands; then this
/// becomes `pub use variant_engine::{...}` and nothing else changes.
pub mod search_api {
    pub use variant_search_stub::{
        Limits, PoolConfig, Score, SearchInfo, SearchPool, SearchResult,
    };
}

pub use config::{Cli, Command, Config};
pub use server::{ServerHandle, serve, spawn};
