//! Command line and environment configuration (clap derive), validated once at startup.
//!
//! Flag and variable names are a contract with the deploy files: do not rename them.

use std::{net::SocketAddr, num::NonZeroUsize, path::PathBuf, time::Duration};

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Command line of the `variant-service` binary.
#[derive(Debug, Parser)]
#[command(
    name = "variant-service",
    version,
    about = "gRPC game-engine service for chess variants"
)]
pub struct Cli {
    /// What to do; no subcommand = serve.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Server configuration (used when serving).
    #[command(flatten)]
    pub config: Config,
}

/// Subcommands besides serving.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Dial grpc.health.v1 Check and exit 0 iff the server is SERVING (container HEALTHCHECK).
    Healthcheck(crate::healthcheck::HealthcheckArgs),
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line (for log collectors).
    Json,
}

/// Server configuration. Build it with clap (`Cli::parse`) or [`Config::default`] in tests, then
/// call [`Config::validate`].
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "VARIANT_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// Concurrent searches (default: available cores / search threads, at least 1).
    #[arg(long, env = "VARIANT_MAX_SEARCHES")]
    pub max_searches: Option<NonZeroUsize>,
    /// Threads per search when a request does not ask for a number.
    #[arg(long, env = "VARIANT_SEARCH_THREADS", default_value_t = 1)]
    pub search_threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, env = "VARIANT_HASH_MB", default_value_t = 16)]
    pub hash_mb: usize,
    /// Searches that may wait for a free slot before requests are refused (`RESOURCE_EXHAUSTED`).
    #[arg(long, env = "VARIANT_SEARCH_QUEUE", default_value_t = 16)]
    pub search_queue: usize,
    /// Maximum length of a position's moves list.
    #[arg(long, env = "VARIANT_MAX_MOVES", default_value_t = 1000)]
    pub max_moves: usize,
    /// Maximum perft depth.
    #[arg(long, env = "VARIANT_MAX_PERFT_DEPTH", default_value_t = 5)]
    pub max_perft_depth: u32,
    /// Maximum search depth a request may ask for.
    #[arg(long, env = "VARIANT_MAX_DEPTH", default_value_t = 64)]
    pub max_depth: u32,
    /// Maximum search nodes a request may ask for.
    #[arg(long, env = "VARIANT_MAX_NODES", default_value_t = 1_000_000_000)]
    pub max_nodes: u64,
    /// Maximum search time (ms) a request may ask for.
    #[arg(long, env = "VARIANT_MAX_MOVETIME_MS", default_value_t = 60_000)]
    pub max_movetime_ms: u32,
    /// Search time (ms) used when a request sets no depth, node or time limit.
    #[arg(long, env = "VARIANT_DEFAULT_MOVETIME_MS", default_value_t = 1_000)]
    pub default_movetime_ms: u32,
    /// Maximum threads a single search may ask for.
    #[arg(long, env = "VARIANT_MAX_THREADS", default_value_t = 4)]
    pub max_threads: u32,
    /// Maximum principal variations a search may ask for.
    #[arg(long, env = "VARIANT_MAX_MULTIPV", default_value_t = 8)]
    pub max_multipv: u32,
    /// Maximum encoded size of a request or response message, in bytes.
    #[arg(long, env = "VARIANT_MAX_MESSAGE_BYTES", default_value_t = 1 << 20)]
    pub max_message_bytes: usize,
    /// Seconds to drain in-flight requests after SIGTERM/SIGINT before cancelling them.
    #[arg(long, env = "VARIANT_SHUTDOWN_GRACE_SECS", default_value_t = 20)]
    pub shutdown_grace_secs: u64,
    /// Log format (the level comes from `RUST_LOG`, default info).
    #[arg(long, env = "VARIANT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// PEM certificate chain: serve TLS (with `--tls-key`). Off by default.
    #[arg(long, env = "VARIANT_TLS_CERT")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of `--tls-cert`.
    #[arg(long, env = "VARIANT_TLS_KEY")]
    pub tls_key: Option<PathBuf>,
    /// PEM CA bundle: require client certificates signed by it (mutual TLS; needs `--tls-cert`).
    #[arg(long, env = "VARIANT_TLS_CLIENT_CA")]
    pub tls_client_ca: Option<PathBuf>,
    /// File of accepted bearer tokens, one per line (`#` comments and blank lines ignored).
    #[arg(long, env = "VARIANT_AUTH_TOKENS_FILE")]
    pub auth_tokens_file: Option<PathBuf>,
    /// Accepted bearer tokens, comma-separated (prefer the file: environments leak).
    #[arg(
        long,
        env = "VARIANT_AUTH_TOKENS",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub auth_tokens: Vec<String>,
    /// Concurrent HTTP/2 streams (calls) per connection (default: no limit beyond h2's).
    #[arg(long, env = "VARIANT_MAX_CONCURRENT_STREAMS")]
    pub max_concurrent_streams: Option<u32>,
    /// Interval of HTTP/2 keepalive pings that detect dead clients (0 = off).
    #[arg(long, env = "VARIANT_KEEPALIVE_SECS", default_value_t = 30)]
    pub keepalive_secs: u64,
    /// Close connections after this many seconds (gracefully), so clients re-resolve and load
    /// spreads over new replicas. Off by default.
    #[arg(long, env = "VARIANT_MAX_CONNECTION_AGE_SECS")]
    pub max_connection_age_secs: Option<u64>,
    /// Close connections that do not send the HTTP/2 preface (with TLS: do not complete the TLS
    /// handshake) within this many milliseconds of being accepted (idle or half-open sockets).
    #[arg(long, env = "VARIANT_HANDSHAKE_TIMEOUT_MS", default_value_t = 10_000)]
    pub handshake_timeout_ms: u64,
    /// Learned-evaluation network files (`nnue-train` output), comma-separated or repeated:
    /// searches of the variant a file names evaluate with it. Default none: every variant
    /// uses the hand-written evaluation.
    #[arg(long = "eval-file", env = "VARIANT_EVAL_FILES", value_delimiter = ',')]
    pub eval_files: Vec<PathBuf>,
    /// Evaluate with the networks shipped in the binary (docs/NNUE.md) for the variants that
    /// have one and got no `--eval-file`. On by default (each shipped network beat the
    /// hand-written evaluation in self-play); `--use-nnue=false` plays the hand-written one.
    #[arg(
        long,
        env = "VARIANT_USE_NNUE",
        default_value_t = true,
        num_args = 0..=1,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub use_nnue: bool,
}

impl Default for Config {
    /// The same values as the command line defaults.
    fn default() -> Self {
        Cli::parse_from(["variant-service"]).config
    }
}

/// A configuration value that makes no sense.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {0}")]
pub struct ConfigError(String);

impl Config {
    /// Checks the values that clap's types cannot.
    ///
    /// # Errors
    /// Names the first offending flag.
    pub fn validate(self) -> Result<Self, ConfigError> {
        let positive = [
            ("--search-threads", self.search_threads as u64),
            ("--max-perft-depth", u64::from(self.max_perft_depth)),
            ("--max-depth", u64::from(self.max_depth)),
            ("--max-nodes", self.max_nodes),
            ("--max-movetime-ms", u64::from(self.max_movetime_ms)),
            ("--default-movetime-ms", u64::from(self.default_movetime_ms)),
            ("--max-threads", u64::from(self.max_threads)),
            ("--max-multipv", u64::from(self.max_multipv)),
            ("--max-message-bytes", self.max_message_bytes as u64),
            ("--handshake-timeout-ms", self.handshake_timeout_ms),
        ];
        if let Some((flag, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(ConfigError(format!("{flag} must be at least 1")));
        }
        if self.default_movetime_ms > self.max_movetime_ms {
            return Err(ConfigError(format!(
                "--default-movetime-ms {} exceeds --max-movetime-ms {}",
                self.default_movetime_ms, self.max_movetime_ms
            )));
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err(ConfigError(
                "--tls-cert and --tls-key must be given together".into(),
            ));
        }
        if self.tls_client_ca.is_some() && self.tls_cert.is_none() {
            return Err(ConfigError(
                "--tls-client-ca needs --tls-cert and --tls-key".into(),
            ));
        }
        if self.search_threads > self.max_threads as usize {
            return Err(ConfigError(format!(
                "--search-threads {} exceeds --max-threads {}",
                self.search_threads, self.max_threads
            )));
        }
        Ok(self)
    }

    /// Concurrent searches: the flag, or available cores divided by threads per search.
    pub fn max_searches(&self) -> usize {
        self.max_searches.map_or_else(
            || {
                let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
                (cores / self.search_threads.max(1)).max(1)
            },
            NonZeroUsize::get,
        )
    }

    /// HTTP/2 keepalive ping interval, `None` when disabled.
    pub fn keepalive(&self) -> Option<Duration> {
        (self.keepalive_secs > 0).then(|| Duration::from_secs(self.keepalive_secs))
    }

    /// How long a new connection may take to send the HTTP/2 preface (after TLS, if on).
    pub fn handshake_timeout(&self) -> Duration {
        Duration::from_millis(self.handshake_timeout_ms)
    }

    /// Drain period after a shutdown signal.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_listen_locally() {
        let config = Config::default().validate().expect("defaults are valid");
        assert_eq!(config.listen.to_string(), "127.0.0.1:50051");
        assert_eq!(config.max_moves, 1000);
        assert_eq!(config.search_threads, 1);
        assert!(config.max_searches() >= 1);
    }

    #[test]
    fn shipped_networks_are_on_unless_turned_off() {
        let parse = |args: &[&str]| {
            Cli::parse_from(std::iter::once("variant-service").chain(args.iter().copied()))
                .config
                .use_nnue
        };
        assert!(parse(&[]));
        assert!(parse(&["--use-nnue"]));
        assert!(parse(&["--use-nnue=true"]));
        assert!(!parse(&["--use-nnue=false"]));
        assert!(!parse(&["--use-nnue", "false"]));
    }

    #[test]
    fn zero_caps_are_rejected_naming_the_flag() {
        let config = Cli::parse_from(["variant-service", "--max-depth", "0"]).config;
        let err = config.validate().expect_err("zero depth cap");
        assert!(err.to_string().contains("--max-depth"), "{err}");
    }

    #[test]
    fn default_search_threads_must_fit_the_per_request_cap() {
        let config = Cli::parse_from([
            "variant-service",
            "--search-threads",
            "8",
            "--max-threads",
            "4",
        ])
        .config;
        let err = config.validate().expect_err("8 > 4");
        assert!(err.to_string().contains("--search-threads 8"), "{err}");
    }

    #[test]
    fn tls_key_without_cert_and_client_ca_without_tls_are_rejected() {
        let config = Cli::parse_from(["variant-service", "--tls-key", "k.pem"]).config;
        assert!(config.validate().is_err());
        let config = Cli::parse_from(["variant-service", "--tls-client-ca", "ca.pem"]).config;
        let err = config.validate().expect_err("mTLS without TLS");
        assert!(err.to_string().contains("--tls-client-ca"), "{err}");
    }

    #[test]
    fn security_options_are_off_by_default() {
        let config = Config::default();
        assert!(config.tls_cert.is_none() && config.tls_client_ca.is_none());
        assert!(config.auth_tokens.is_empty() && config.auth_tokens_file.is_none());
        assert_eq!(config.keepalive(), Some(Duration::from_secs(30)));
    }

    #[test]
    fn healthcheck_subcommand_parses_addr() {
        let cli = Cli::parse_from(["variant-service", "healthcheck", "--addr", "http://[::1]:1"]);
        assert!(
            matches!(cli.command, Some(Command::Healthcheck(args)) if args.addr == "http://[::1]:1")
        );
    }
}
