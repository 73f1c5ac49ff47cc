//! Assembles and runs the tonic server: `GameEngine`, `grpc.health.v1` and reflection (v1 and
//! v1alpha, restricted to our services), with explicit message-size limits.
//!
//! Start-up has two steps, so that every configuration mistake (a bad flag, an unreadable TLS
//! or token file) is reported before the port is bound: [`prepare`] validates the whole
//! configuration and builds everything, then [`Prepared::serve`] runs on a bound listener.
//! Connections come from our own accept loop (`connections.rs`: handshake timeout, closing
//! idle connections at shutdown).
//!
//! Extension points: tower middleware goes into `middleware()` (the RPC telemetry layer is the
//! outermost, so it measures what inner layers refuse) and TLS into `builder()`
//! (`Server::builder().tls_config(..)`).

use std::{future::Future, net::SocketAddr, sync::Arc, time::Duration};

use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};
use tonic::{
    server::NamedService,
    service::interceptor::InterceptedService,
    transport::{Certificate, Server, ServerTlsConfig},
};
use tonic_health::ServingStatus;
use tower::{
    ServiceBuilder,
    layer::util::{Identity, Stack},
};
use variant_engine::{Network, Registry};

use crate::{
    api::GameEngineService,
    auth::{BearerAuth, TokensError},
    config::{Config, ConfigError},
    connections::Connections,
    convert::Caps,
    engine_pool::{EnginePool, PoolSettings},
    proto::{self, game_engine_server::GameEngineServer},
    rpc_telemetry::RpcTelemetryLayer,
    shutdown,
    telemetry::RpcMetrics,
};

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
    /// A `--eval-file` network could not be loaded.
    #[error("--eval-file {path}: {reason}")]
    Network {
        /// The file.
        path: String,
        /// Why it was refused.
        reason: String,
    },
    /// Listener I/O failed.
    #[error("listener error: {0}")]
    Io(#[from] std::io::Error),
    /// A TLS certificate or key file cannot be read.
    #[error("cannot read {path}: {source}")]
    TlsFile {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The auth tokens file cannot be read.
    #[error(transparent)]
    Tokens(#[from] TokensError),
}

/// The tower layer stack wrapped around every service.
///
/// First the RPC span and `rpc.server.duration` (see `rpc_telemetry.rs`); auth and
/// load-shedding layers are to be added after it.
fn middleware(metrics: RpcMetrics) -> ServiceBuilder<Stack<RpcTelemetryLayer, Identity>> {
    ServiceBuilder::new().layer(RpcTelemetryLayer::new(metrics))
}

/// The transport builder: connection-level settings and TLS.
fn builder(config: &Config, tls: Option<ServerTlsConfig>) -> Result<Server, ServerError> {
    let mut server = Server::builder()
        .http2_keepalive_interval(config.keepalive())
        .max_concurrent_streams(config.max_concurrent_streams)
        .tcp_nodelay(true);
    if let Some(age) = config.max_connection_age_secs {
        server = server.max_connection_age(Duration::from_secs(age));
    }
    if let Some(tls) = tls {
        server = server.tls_config(tls)?;
    }
    Ok(server)
}

/// Server TLS from `--tls-cert`/`--tls-key`, with client certificates required when
/// `--tls-client-ca` is set (tonic's rustls acceptor then rejects clients without one). The TLS
/// handshake gets the handshake timeout, like the HTTP/2 preface.
fn tls_config(config: &Config) -> Result<Option<ServerTlsConfig>, ServerError> {
    let (Some(cert), Some(key)) = (&config.tls_cert, &config.tls_key) else {
        return Ok(None);
    };
    let read = |path: &std::path::PathBuf| {
        std::fs::read(path).map_err(|source| ServerError::TlsFile {
            path: path.display().to_string(),
            source,
        })
    };
    let mut tls = ServerTlsConfig::new()
        .identity(tonic::transport::Identity::from_pem(
            read(cert)?,
            read(key)?,
        ))
        .timeout(config.handshake_timeout());
    if let Some(ca) = &config.tls_client_ca {
        tls = tls.client_ca_root(Certificate::from_pem(read(ca)?));
    }
    Ok(Some(tls))
}

/// The reflection services' builder, restricted to our services.
fn reflection() -> tonic_reflection::server::Builder<'static> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .with_service_name(GameEngineServer::<GameEngineService>::NAME)
        .with_service_name(<tonic_health::pb::health_server::HealthServer<
            tonic_health::server::HealthService,
        > as NamedService>::NAME)
}

/// A server built from a validated configuration, ready to run on a listener.
#[derive(Debug)]
pub struct Prepared {
    config: Config,
    server: Server,
    pool: Arc<EnginePool>,
    auth: BearerAuth,
    connections: Connections,
    rpc_metrics: RpcMetrics,
    nets: Vec<&'static Network>,
}

/// Loads the `--eval-file` networks, each for the variant it names (one per variant: a later
/// file for the same variant replaces an earlier one), then with `builtin` the shipped ones of
/// the variants still without one. They live for the rest of the process.
fn load_nets(
    registry: &Registry,
    paths: &[std::path::PathBuf],
    builtin: bool,
) -> Result<Vec<&'static Network>, ServerError> {
    let mut nets: Vec<&'static Network> = Vec::new();
    for path in paths {
        let refused = |reason: String| ServerError::Network {
            path: path.display().to_string(),
            reason,
        };
        let bytes = std::fs::read(path).map_err(|e| refused(e.to_string()))?;
        let net = Network::load(&bytes, registry).map_err(|e| refused(e.to_string()))?;
        nets.retain(|n| n.variant_name() != net.variant_name());
        nets.push(Box::leak(Box::new(net)));
    }
    if builtin {
        for variant in registry.iter() {
            if nets.iter().any(|n| n.variant_name() == variant.name()) {
                continue;
            }
            let shipped = Network::shipped(variant).map_err(|e| ServerError::Network {
                path: format!("(shipped network of {})", variant.name()),
                reason: e.to_string(),
            })?;
            nets.extend(shipped);
        }
    }
    Ok(nets)
}

/// Validates the whole configuration and builds the server (engine pool, TLS, tokens), without
/// touching the network: call it before binding, so mistakes are reported first.
///
/// # Errors
/// Invalid configuration, unreadable TLS or token files, a TLS set-up tonic refuses.
pub fn prepare(config: Config) -> Result<Prepared, ServerError> {
    let config = config.validate()?;
    let auth = BearerAuth::from_config(&config)?;
    let tls = tls_config(&config)?;
    let server = builder(&config, tls)?;
    // Reflection is rebuilt in `serve` (its services are not `Debug`); building it here checks
    // the descriptor sets before the port is bound.
    reflection().build_v1()?;
    let pool = Arc::new(EnginePool::new(PoolSettings {
        slots: config.max_searches(),
        queue: config.search_queue,
        hash_mb: config.hash_mb,
        threads_per_slot: config.search_threads,
    }));
    let connections = Connections::new(config.handshake_timeout());
    let nets = load_nets(&Registry::builtin(), &config.eval_files, config.use_nnue)?;
    for net in &nets {
        tracing::info!(
            variant = net.variant_name(),
            hidden = net.hidden(),
            residual = net.residual(),
            "learned evaluation loaded"
        );
    }
    Ok(Prepared {
        config,
        server,
        pool,
        auth,
        connections,
        rpc_metrics: RpcMetrics::new(),
        nets,
    })
}

impl Prepared {
    /// The search pool (its [`EnginePool::load`] shows running jobs and free slots).
    pub fn pool(&self) -> Arc<EnginePool> {
        Arc::clone(&self.pool)
    }

    /// The live connections.
    pub fn connections(&self) -> Connections {
        self.connections.clone()
    }

    /// Serves on `listener` until `signal` completes, then drains (see `shutdown.rs`).
    ///
    /// # Errors
    /// Reflection set-up, listener or transport failure.
    pub async fn serve(
        self,
        listener: TcpListener,
        signal: impl Future<Output = ()> + Send,
    ) -> Result<(), ServerError> {
        let Prepared {
            config,
            server,
            pool,
            auth,
            connections,
            rpc_metrics,
            nets,
        } = self;
        let registry = Arc::new(Registry::builtin());
        let mut caps = Caps::from(&config);
        caps.nets = nets;
        let api = GameEngineService::new(registry, caps, Arc::clone(&pool));
        let engine = GameEngineServer::new(api)
            .max_decoding_message_size(config.max_message_bytes)
            .max_encoding_message_size(config.max_message_bytes);
        // Health stays outside the token check so that probes work; everything else is inside.
        let engine = InterceptedService::new(engine, auth.clone());

        let (health, health_service) = tonic_health::server::health_reporter();
        health
            .set_serving::<GameEngineServer<GameEngineService>>()
            .await;

        let reflection_v1 = InterceptedService::new(reflection().build_v1()?, auth.clone());
        let reflection_v1alpha =
            InterceptedService::new(reflection().build_v1alpha()?, auth.clone());

        let local = listener.local_addr()?;
        tracing::info!(
            listen = %local,
            max_searches = config.max_searches(),
            search_threads = config.search_threads,
            tls = config.tls_cert.is_some(),
            mutual_tls = config.tls_client_ca.is_some(),
            bearer_auth = auth.enabled(),
            "variant-service listening"
        );

        let (stop_accepting, stopped) = oneshot::channel::<()>();
        let server = server
            .layer(middleware(rpc_metrics.clone()))
            .add_service(engine)
            .add_service(health_service)
            .add_service(reflection_v1)
            .add_service(reflection_v1alpha)
            .serve_with_incoming_shutdown(connections.incoming(listener), async {
                let _ = stopped.await;
            });
        let grace = config.shutdown_grace();
        let draining = connections.clone();
        let on_drain = async move {
            // Searches still running shortly before the grace period ends are told to stop, so
            // they answer with their best move so far instead of being cut off with the
            // connection.
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
            // Sockets that never began HTTP/2 have no call to finish: close them now.
            draining.shutting_down();
        };
        shutdown::run_until_drained(
            server,
            signal,
            on_drain,
            shutdown::Drain {
                grace,
                calls_in_flight: &|| rpc_metrics.in_flight(),
                close_connections: &|| connections.close_all(),
            },
        )
        .await?;
        tracing::info!("variant-service stopped");
        Ok(())
    }
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
    prepare(config)?.serve(listener, signal).await
}

/// A server running on a background task (for tests and embedding).
#[derive(Debug)]
pub struct ServerHandle {
    /// The address the server listens on.
    pub addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServerError>>,
    pool: Arc<EnginePool>,
    connections: Connections,
}

impl ServerHandle {
    /// `http://addr`, for tonic clients.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The search pool, e.g. to see that every slot is free again ([`EnginePool::load`]).
    pub fn pool(&self) -> &EnginePool {
        &self.pool
    }

    /// The server's live connections.
    pub fn connections(&self) -> &Connections {
        &self.connections
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
    let prepared = prepare(config)?;
    let addr = listener.local_addr()?;
    let (pool, connections) = (prepared.pool(), prepared.connections());
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(prepared.serve(listener, async {
        let _ = rx.await;
    }));
    Ok(ServerHandle {
        addr,
        shutdown: Some(tx),
        task,
        pool,
        connections,
    })
}
