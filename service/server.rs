//! Assembles and runs the tonic server: `GameEngine`, `grpc.health.v1` and reflection (v1 and
//! v1alpha, restricted to our services), with explicit message-size limits.
//!
//! Extension points: tower middleware goes into `middleware()` (the OpenTelemetry layer of a
//! later issue belongs there) and TLS into `builder()` (`Server::builder().tls_config(..)`).

use std::{future::Future, net::SocketAddr, sync::Arc, time::Duration};

use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};
use tonic::{
    server::NamedService,
    transport::{Server, server::TcpIncoming},
};
use tonic_health::ServingStatus;
use tower::{ServiceBuilder, layer::util::Identity};
use variant_engine::Registry;

use crate::{
    api::GameEngineService,
    config::{Config, ConfigError},
    convert::Caps,
    engine_pool::{EnginePool, PoolSettings},
    proto::{self, game_engine_server::GameEngineServer},
    shutdown,
};

/// Interval of HTTP/2 pings that detect dead clients (and so cancel their searches).
const HTTP2_KEEPALIVE: Duration = Duration::from_secs(30);

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The reflection service could not be built from the descriptor set.
    #[error("cannot build reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// The transport failed.
    #[error("transport error: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// Listener I/O failed.
    #[error("listener error: {0}")]
    Io(#[from] std::io::Error),
}

/// The tower layer stack wrapped around every service.
///
/// Empty for now; tracing spans come from handler instrumentation. Telemetry (OpenTelemetry), auth and
/// load-shedding layers are to be added here.
fn middleware() -> ServiceBuilder<Identity> {
    ServiceBuilder::new()
}

/// The transport builder: connection-level settings (and later TLS).
fn builder() -> Server {
    Server::builder()
        .http2_keepalive_interval(Some(HTTP2_KEEPALIVE))
        .tcp_nodelay(true)
}

/// Serves on `listener` until `signal` completes, then drains (see `shutdown.rs`).
///
/// # Errors
/// Invalid configuration, reflection set-up, or transport failure.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    signal: impl Future<Output = ()> + Send,
) -> Result<(), ServerError> {
    let config = config.validate()?;
    let registry = Arc::new(Registry::builtin());
    let pool = Arc::new(EnginePool::new(PoolSettings {
        slots: config.max_searches(),
        queue: config.search_queue,
        hash_mb: config.hash_mb,
    }));
    let api = GameEngineService::new(registry, Caps::from(&config), Arc::clone(&pool));
    let engine = GameEngineServer::new(api)
        .max_decoding_message_size(config.max_message_bytes)
        .max_encoding_message_size(config.max_message_bytes);

    let (health, health_service) = tonic_health::server::health_reporter();
    health
        .set_serving::<GameEngineServer<GameEngineService>>()
        .await;

    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .with_service_name(GameEngineServer::<GameEngineService>::NAME)
            .with_service_name(<tonic_health::pb::health_server::HealthServer<
                tonic_health::server::HealthService,
            > as NamedService>::NAME)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;

    let local = listener.local_addr()?;
    tracing::info!(
        listen = %local,
        max_searches = config.max_searches(),
        search_threads = config.search_threads,
        "variant-service listening"
    );

    let (stop_accepting, stopped) = oneshot::channel::<()>();
    let server = builder()
        .layer(middleware())
        .add_service(engine)
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .serve_with_incoming_shutdown(
            TcpIncoming::from(listener).with_nodelay(Some(true)),
            async {
                let _ = stopped.await;
            },
        );
    let grace = config.shutdown_grace();
    let on_drain = async move {
        // Searches still running shortly before the grace period ends are told to stop, so they
        // answer with their best move so far instead of being cut off with the connection.
        tokio::spawn(async move {
            tokio::time::sleep(grace.saturating_sub(shutdown::SEARCH_FINISH_MARGIN)).await;
            pool.finish_all();
        });
        // Tell load balancers and probes first, then stop accepting.
        health
            .set_service_status("", ServingStatus::NotServing)
            .await;
        health
            .set_not_serving::<GameEngineServer<GameEngineService>>()
            .await;
        let _ = stop_accepting.send(());
    };
    shutdown::run_until_drained(server, signal, on_drain, grace).await?;
    tracing::info!("variant-service stopped");
    Ok(())
}

/// A server running on a background task (for tests and embedding).
#[derive(Debug)]
pub struct ServerHandle {
    /// The address the server listens on.
    pub addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServerError>>,
}

impl ServerHandle {
    /// `http://addr`, for tonic clients.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Triggers a graceful shutdown and waits for it.
    ///
    /// # Errors
    /// The server's own error, if it failed.
    pub async fn shutdown(mut self) -> Result<(), ServerError> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match self.task.await {
            Ok(result) => result,
            Err(join) => Err(ServerError::Io(std::io::Error::other(join))),
        }
    }
}

/// Starts the server on `listener` in a background task (bind `127.0.0.1:0` in tests).
///
/// # Errors
/// Invalid configuration or an unusable listener.
pub fn spawn(config: Config, listener: TcpListener) -> Result<ServerHandle, ServerError> {
    let config = config.validate()?;
    let addr = listener.local_addr()?;
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(serve(config, listener, async {
        let _ = rx.await;
    }));
    Ok(ServerHandle {
        addr,
        shutdown: Some(tx),
        task,
    })
}
