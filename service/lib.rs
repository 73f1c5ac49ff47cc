//! `variant-service`: a stateless gRPC front end (tonic) for the `variant-engine` library.
//!
//! Start a server with [`server::serve`] (blocking until shutdown) or [`server::spawn`] (a
//! background task, for tests on `127.0.0.1:0`). `main.rs` only parses flags and calls these.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod admission;
pub mod api;
pub mod auth;
pub mod config;
pub mod connections;
pub mod convert;
pub mod engine_pool;
pub mod error;
pub mod healthcheck;
pub mod proto;
pub mod rpc_telemetry;
pub mod server;
pub mod shutdown;
pub mod status;
pub mod telemetry;

pub use config::{Cli, Command, Config};
pub use server::{ServerHandle, serve, spawn};
