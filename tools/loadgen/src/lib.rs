//! `variant-loadgen`: a gRPC load generator for the chess-variant service (and the cluster test).
//!
//! A client of the API crate only: it never links the server. The binary (`main.rs`) parses
//! [`LoadgenArgs`] and prints what [`run`] returns; tests call [`run`] against a server of their
//! own.
//!
//! Two modes: a **closed loop** (`--concurrency N` workers, each with one request in flight,
//! measuring what the server sustains) and an **open loop** (`--rate R` requests per second on a
//! fixed schedule; latency is measured from each request's *scheduled* send time, so a stalled
//! server cannot hide its queueing delay: the "coordinated omission" correction).
//!
//! Requests use realistic positions: before the run, each variant's start position is walked a few
//! random legal plies deep with `LegalMoves` calls, and every prefix of those walks becomes a
//! sample. Latencies go into HDR histograms (microsecond resolution, 3 significant digits).
//!
//! The output is a human summary, then one `LOADGEN_JSON {...}` line that scripts parse (the
//! cluster test does). The CLI is a contract with `deploy/cluster-test.sh`: keep flag names.
//! Exit code: 0 if the run happened (whatever the server answered), 1 on a setup failure.
//!
//! Every loop is bounded in count (`--max-requests`) and time (`--duration`, at most 600 s).

use std::{
    collections::BTreeMap,
    fmt::Write as _,
    path::PathBuf,
    str::FromStr,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use clap::{Parser, ValueEnum};
use hdrhistogram::Histogram;
use serde_json::{Value, json};
use tokio::{sync::Semaphore, task::JoinSet};
use tonic::{
    Code, Request, Status,
    metadata::MetadataValue,
    transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity},
};

use variant_api::{
    self as pb, fields::legal_moves_response as field, game_engine_client::GameEngineClient,
};
use variant_engine::SplitMix64;

/// Longest run allowed (`--duration`).
const MAX_DURATION_SECS: f64 = 600.0;
/// Random walks per variant when building the position samples.
const WALKS_PER_VARIANT: usize = 2;
/// Open loop: requests allowed in flight at once; beyond that a scheduled request is not sent
/// (and counted as `not_sent`) so a dead server cannot make the generator grow without bound.
const OPEN_LOOP_MAX_IN_FLIGHT: usize = 4096;
/// Extra time, after the run and the per-call deadline, before unfinished calls are abandoned.
const DRAIN_SLACK: Duration = Duration::from_secs(2);
/// Bound on connecting and on each setup call.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);
/// Histogram range: 1 µs to 1 hour, 3 significant digits.
const HIST_MAX_MICROS: u64 = 3_600_000_000;
/// Echo payload size: about the size of a small position request, so Echo is a fair floor.
const ECHO_PAYLOAD_BYTES: usize = 64;

/// One RPC the generator can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, ValueEnum)]
pub enum RpcKind {
    /// `LegalMoves` of a sample position.
    #[value(name = "legal_moves")]
    LegalMoves,
    /// `ApplyMove` of a random legal move to a sample position.
    #[value(name = "apply_move")]
    ApplyMove,
    /// `BestMove` with `--movetime-ms`.
    #[value(name = "best_move")]
    BestMove,
    /// `ReplayGame` of a sample's whole moves list (one call per game).
    #[value(name = "replay_game")]
    ReplayGame,
    /// The same game as a client without `ReplayGame` replays it: one `ApplyMove` per ply,
    /// each sending the moves so far (one request in the figures = one whole game).
    #[value(name = "apply_loop")]
    ApplyLoop,
    /// `Echo` (the transport floor).
    #[value(name = "echo")]
    Echo,
    /// A weighted mix, see `--mix`.
    #[value(name = "mix")]
    Mix,
}

impl RpcKind {
    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            RpcKind::LegalMoves => "legal_moves",
            RpcKind::ApplyMove => "apply_move",
            RpcKind::BestMove => "best_move",
            RpcKind::ReplayGame => "replay_game",
            RpcKind::ApplyLoop => "apply_loop",
            RpcKind::Echo => "echo",
            RpcKind::Mix => "mix",
        }
    }
}

/// How much each `LegalMoves` call asks for (`LegalMovesRequest.detail`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LegalDetail {
    /// Every field of every move (the API's default).
    #[value(name = "full")]
    Full,
    /// Move texts only (`MOVE_DETAIL_UCI`).
    #[value(name = "uci")]
    Uci,
}

impl LegalDetail {
    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            LegalDetail::Full => "full",
            LegalDetail::Uci => "uci",
        }
    }

    fn proto(self) -> pb::MoveDetail {
        match self {
            LegalDetail::Full => pb::MoveDetail::Full,
            LegalDetail::Uci => pb::MoveDetail::Uci,
        }
    }
}

/// How the generator reads `LegalMoves` answers (`--decode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Decode {
    /// Walk every record with prost into one reused scratch `Move` (no allocation per move):
    /// the generator shares the cores with the server on a one-machine test, and building
    /// hundreds of `String`s per answer would measure the client's allocator, not the server.
    #[value(name = "lean")]
    Lean,
    /// Build the whole generated message, as a typical client does.
    #[value(name = "full")]
    Full,
}

impl Decode {
    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Decode::Lean => "lean",
            Decode::Full => "full",
        }
    }
}

/// A `LegalMoves` answer read record by record without keeping the records (`--decode lean`):
/// every `Move` is decoded by prost into one reused scratch message (so the wire format and
/// the UTF-8 of every string are checked as in a full decode) and counted.
///
/// Decode-only: it encodes as an empty message (the generator never sends one).
#[derive(Debug, Default)]
pub struct LegalMovesTally {
    /// Records in `moves` (the full answer).
    pub moves: usize,
    /// Records in `uci_moves` (the text-only answer).
    pub uci_moves: usize,
    /// Records without a move text (a wrong answer).
    pub without_text: usize,
    /// The answer's status.
    pub status: Option<pb::GameStatus>,
    fen: String,
    scratch_move: pb::Move,
    scratch_text: String,
}

impl LegalMovesTally {
    /// The same tally of an answer decoded in full (`--decode full`).
    pub fn of(answer: &pb::LegalMovesResponse) -> Self {
        LegalMovesTally {
            moves: answer.moves().len(),
            uci_moves: answer.uci_moves().len(),
            without_text: answer.moves().iter().filter(|m| m.uci.is_empty()).count()
                + answer.uci_moves().iter().filter(|t| t.is_empty()).count(),
            status: answer.status().copied(),
            ..LegalMovesTally::default()
        }
    }

    /// True when the answer lists `expected` moves (in the field `detail` asks for), each with
    /// its text, and carries a status.
    pub fn is_right(&self, detail: pb::MoveDetail, expected: usize) -> bool {
        let (listed, other) = match detail {
            pb::MoveDetail::Uci => (self.uci_moves, self.moves),
            pb::MoveDetail::Full | pb::MoveDetail::Unspecified => (self.moves, self.uci_moves),
        };
        listed == expected && other == 0 && self.without_text == 0 && self.status.is_some()
    }
}

impl prost::Message for LegalMovesTally {
    fn encode_raw(&self, _buf: &mut impl prost::bytes::BufMut) {}

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: prost::encoding::WireType,
        buf: &mut impl prost::bytes::Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        use prost::encoding::{message, skip_field, string};
        match tag {
            field::MOVES => {
                self.scratch_move.clear();
                message::merge(wire_type, &mut self.scratch_move, buf, ctx)?;
                self.moves += 1;
                self.without_text += usize::from(self.scratch_move.uci.is_empty());
                Ok(())
            }
            field::FEN => string::merge(wire_type, &mut self.fen, buf, ctx),
            field::STATUS => message::merge(
                wire_type,
                self.status.get_or_insert_with(Default::default),
                buf,
                ctx,
            ),
            field::UCI_MOVES => {
                string::merge(wire_type, &mut self.scratch_text, buf, ctx)?;
                self.uci_moves += 1;
                self.without_text += usize::from(self.scratch_text.is_empty());
                Ok(())
            }
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        0
    }

    fn clear(&mut self) {
        *self = Self::default();
    }
}

/// A weighted RPC mix, e.g. `legal_moves=70,apply_move=20,best_move=10`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mix(Vec<(RpcKind, u32)>);

impl FromStr for Mix {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, weight) = part
                .split_once('=')
                .ok_or_else(|| format!("mix entry {part:?} is not NAME=WEIGHT"))?;
            let kind = RpcKind::from_str(name.trim(), false)
                .map_err(|_| format!("unknown rpc {name:?} in mix"))?;
            if kind == RpcKind::Mix {
                return Err("a mix cannot contain mix".into());
            }
            let weight: u32 = weight
                .trim()
                .parse()
                .map_err(|_| format!("weight {weight:?} of {name} is not a whole number"))?;
            parts.push((kind, weight));
        }
        if parts.iter().map(|&(_, w)| u64::from(w)).sum::<u64>() == 0 {
            return Err("mix weights must add up to more than 0".into());
        }
        Ok(Mix(parts))
    }
}

impl Mix {
    /// Picks an RPC with probability proportional to its weight.
    fn pick(&self, rng: &mut Rng) -> RpcKind {
        let total: u64 = self.0.iter().map(|&(_, w)| u64::from(w)).sum();
        let mut ticket = rng.below(total);
        for &(kind, weight) in &self.0 {
            if ticket < u64::from(weight) {
                return kind;
            }
            ticket -= u64::from(weight);
        }
        self.0[0].0
    }
}

/// Flags of `variant-loadgen`.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "variant-loadgen",
    version,
    about = "Sends load to a variant-service and prints latency percentiles and status counts"
)]
pub struct LoadgenArgs {
    /// Server URL (http:// or https://).
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    pub target: String,
    /// Allow a target that is not a loopback address (off: a load test must not hit a shared
    /// server by accident).
    #[arg(long)]
    pub allow_remote: bool,
    /// RPC to send.
    #[arg(long, value_enum, default_value_t = RpcKind::LegalMoves)]
    pub rpc: RpcKind,
    /// Weights for `--rpc mix`.
    #[arg(long, default_value = "legal_moves=70,apply_move=20,best_move=10")]
    pub mix: Mix,
    /// Closed loop: workers, each with one request in flight.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub concurrency: u32,
    /// Open loop: requests per second in total (overrides the closed loop).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Run time in seconds (at most 600).
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Stop after this many requests.
    #[arg(long)]
    pub max_requests: Option<u64>,
    /// Variants to use, comma-separated (default: every variant the server lists).
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Plies per random walk when building the sample positions (every position along each
    /// walk is a sample). The default keeps to openings and early middlegames; longer walks
    /// reach later phases (for Orphic: past the drop phase).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub walk_plies: u32,
    /// Keep only the last position of each walk as a sample (whole games of `--walk-plies`
    /// plies, or shorter where a walk reached the end of the game), for `replay_game` and
    /// `apply_loop`.
    #[arg(long)]
    pub whole_walks: bool,
    /// What `LegalMoves` calls ask for: every field of every move, or move texts only.
    #[arg(long, value_enum, default_value_t = LegalDetail::Full)]
    pub legal_detail: LegalDetail,
    /// How `LegalMoves` answers are read. Every answer is checked either way: well-formed
    /// records, each with its move text, as many as the sample has legal moves.
    #[arg(long, value_enum, default_value_t = Decode::Lean)]
    pub decode: Decode,
    /// `BestMove` search time in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub movetime_ms: u32,
    /// Per-call gRPC deadline in milliseconds.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub deadline_ms: u64,
    /// Connections (HTTP/2 channels) to spread the workers over.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub connections: u32,
    /// Also write the summary as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// PEM CA certificate to trust for an https:// target.
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
    /// PEM client certificate for mutual TLS (with `--tls-key`).
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of `--tls-cert`.
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Bearer token sent as `authorization: Bearer <token>`.
    #[arg(long)]
    pub token: Option<String>,
    /// Random seed for positions and the mix (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Why the load generator could not run.
#[derive(Debug, thiserror::Error)]
pub enum LoadgenError {
    /// A flag value is unusable.
    #[error("invalid argument: {0}")]
    Argument(String),
    /// The target refuses connections or the URL is bad.
    #[error("cannot connect to {target}: {detail}")]
    Connect {
        /// The `--target` URL.
        target: String,
        /// What went wrong.
        detail: String,
    },
    /// A call needed to prepare the run failed.
    #[error("setup call failed: {0}")]
    Setup(String),
    /// Reading a TLS file or writing the JSON file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The load generator's random source: the engine's seedable `SplitMix64`.
type Rng = SplitMix64;

/// Picks a random index below `len` (`len > 0`).
fn pick_index(rng: &mut Rng, len: usize) -> usize {
    rng.below(len as u64) as usize
}

/// A request position with its legal moves (for `ApplyMove` and for checking `BestMove`).
#[derive(Debug, Clone)]
struct Sample {
    position: pb::Position,
    legal: Vec<String>,
}

/// What the workers share.
#[derive(Debug)]
struct Plan {
    samples: Vec<Sample>,
    rpc: RpcKind,
    mix: Mix,
    legal_detail: pb::MoveDetail,
    decode: Decode,
    movetime_ms: u32,
    deadline: Duration,
    token: Option<MetadataValue<tonic::metadata::Ascii>>,
    /// Requests still allowed (`--max-requests`).
    budget: AtomicU64,
    end: Instant,
}

impl Plan {
    /// Takes one request from the budget; false when the run is over.
    fn take(&self) -> bool {
        Instant::now() < self.end
            && self
                .budget
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                .is_ok()
    }
}

/// Latencies and outcomes of one RPC kind.
#[derive(Debug, Clone)]
struct Stats {
    latency_us: Histogram<u64>,
    codes: BTreeMap<&'static str, u64>,
    /// `BestMove` answers carrying a move.
    best_answers: u64,
    /// ... of which the move is legal in the sent position.
    best_legal: u64,
    /// `LegalMoves` answers read (status OK).
    legal_answers: u64,
    /// ... of which the content was wrong (see [`LegalMovesTally::is_right`]).
    legal_wrong: u64,
}

impl Stats {
    fn new() -> Self {
        Stats {
            latency_us: Histogram::new_with_bounds(1, HIST_MAX_MICROS, 3)
                .expect("constant histogram bounds are valid"),
            codes: BTreeMap::new(),
            best_answers: 0,
            best_legal: 0,
            legal_answers: 0,
            legal_wrong: 0,
        }
    }

    fn merge(&mut self, other: &Stats) {
        // Both histograms have the same bounds, so `add` cannot fail; saturate to be safe.
        for v in other.latency_us.iter_recorded() {
            self.latency_us
                .saturating_record_n(v.value_iterated_to(), v.count_at_value());
        }
        for (code, n) in &other.codes {
            *self.codes.entry(code).or_default() += n;
        }
        self.best_answers += other.best_answers;
        self.best_legal += other.best_legal;
        self.legal_answers += other.legal_answers;
        self.legal_wrong += other.legal_wrong;
    }

    fn requests(&self) -> u64 {
        self.codes.values().sum()
    }

    fn quantile_ms(&self, q: f64) -> f64 {
        if self.latency_us.is_empty() {
            return 0.0;
        }
        self.latency_us.value_at_quantile(q) as f64 / 1000.0
    }

    fn max_ms(&self) -> f64 {
        self.latency_us.max() as f64 / 1000.0
    }
}

/// Per-RPC statistics of one worker (merged at the end).
type StatsByRpc = BTreeMap<RpcKind, Stats>;

/// The canonical (proto) name of a gRPC status code.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// True for `localhost` and loopback IP addresses (`127.0.0.0/8`, `::1`).
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Checks the flags that clap cannot.
fn validate(args: &LoadgenArgs) -> Result<(), LoadgenError> {
    let bad = |m: String| Err(LoadgenError::Argument(m));
    if !(args.duration > 0.0 && args.duration <= MAX_DURATION_SECS) {
        return bad(format!(
            "--duration {} must be above 0 and at most {MAX_DURATION_SECS}",
            args.duration
        ));
    }
    if let Some(rate) = args.rate
        && !(rate > 0.0 && rate.is_finite())
    {
        return bad(format!("--rate {rate} must be a positive number"));
    }
    let uri: tonic::codegen::http::Uri = args
        .target
        .parse()
        .map_err(|e| LoadgenError::Argument(format!("--target {:?}: {e}", args.target)))?;
    let Some(host) = uri.host() else {
        return bad(format!("--target {:?} has no host", args.target));
    };
    if !args.allow_remote && !is_loopback_host(host) {
        return bad(format!(
            "--target host {host:?} is not a loopback address; pass --allow-remote to load it"
        ));
    }
    Ok(())
}

fn read(path: &PathBuf) -> Result<Vec<u8>, LoadgenError> {
    std::fs::read(path).map_err(|source| LoadgenError::Io {
        path: path.clone(),
        source,
    })
}

/// Opens `--connections` channels to the target.
async fn connect(args: &LoadgenArgs) -> Result<Vec<Channel>, LoadgenError> {
    let connect_err = |detail: String| LoadgenError::Connect {
        target: args.target.clone(),
        detail,
    };
    let mut endpoint = Endpoint::from_shared(args.target.clone())
        .map_err(|e| connect_err(e.to_string()))?
        .connect_timeout(SETUP_TIMEOUT)
        .tcp_nodelay(true);
    if args.target.starts_with("https://") || args.tls_ca.is_some() {
        let mut tls = ClientTlsConfig::new();
        if let Some(ca) = &args.tls_ca {
            tls = tls.ca_certificate(Certificate::from_pem(read(ca)?));
        }
        if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
            tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|e| connect_err(e.to_string()))?;
    }
    let mut channels = Vec::new();
    for _ in 0..args.connections {
        // `connect` (not `connect_lazy`) so each channel is its own TCP connection, opened now.
        let channel = endpoint
            .connect()
            .await
            .map_err(|e| connect_err(format!("{e} ({e:?})")))?;
        channels.push(channel);
    }
    Ok(channels)
}

/// Wraps a message with the token and the per-call deadline.
fn request<T>(
    message: T,
    deadline: Duration,
    token: Option<&MetadataValue<tonic::metadata::Ascii>>,
) -> Request<T> {
    let mut request = Request::new(message);
    request.set_timeout(deadline);
    if let Some(token) = token {
        request
            .metadata_mut()
            .insert("authorization", token.clone());
    }
    request
}

/// Builds the position samples: random legal walks from each variant's start position.
async fn samples(
    client: &mut GameEngineClient<Channel>,
    args: &LoadgenArgs,
    token: Option<&MetadataValue<tonic::metadata::Ascii>>,
    rng: &mut Rng,
) -> Result<Vec<Sample>, LoadgenError> {
    let setup =
        |s: Status| LoadgenError::Setup(format!("{}: {}", code_name(s.code()), s.message()));
    let listed = client
        .list_variants(request(pb::ListVariantsRequest {}, SETUP_TIMEOUT, token))
        .await
        .map_err(setup)?
        .into_inner()
        .variants;
    let names: Vec<String> = if args.variants.is_empty() {
        listed.iter().map(|v| v.name.clone()).collect()
    } else {
        for wanted in &args.variants {
            if !listed.iter().any(|v| &v.name == wanted) {
                return Err(LoadgenError::Argument(format!(
                    "--variants: the server does not know {wanted:?} (it has {})",
                    listed
                        .iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        args.variants.clone()
    };
    if names.is_empty() {
        return Err(LoadgenError::Setup("the server lists no variants".into()));
    }
    let mut samples = Vec::new();
    for variant in &names {
        for _ in 0..WALKS_PER_VARIANT {
            let mut position = pb::Position {
                variant: variant.clone(),
                fen: String::new(),
                moves: Vec::new(),
                draw_claims: false,
            };
            let mut last_legal = Vec::new();
            for _ in 0..=args.walk_plies {
                let legal: Vec<String> = client
                    .legal_moves(request(
                        pb::LegalMovesRequest {
                            position: Some(position.clone()),
                            ..Default::default()
                        },
                        SETUP_TIMEOUT,
                        token,
                    ))
                    .await
                    .map_err(setup)?
                    .into_inner()
                    .into_moves()
                    .into_iter()
                    .map(|m| m.uci)
                    .collect();
                if legal.is_empty() {
                    last_legal = legal;
                    break; // Game over: keep what we have.
                }
                let next = legal[pick_index(rng, legal.len())].clone();
                if !args.whole_walks {
                    samples.push(Sample {
                        position: position.clone(),
                        legal: legal.clone(),
                    });
                }
                last_legal = legal;
                position.moves.push(next);
            }
            if args.whole_walks {
                // A walk that ran its length drew one move more than it keeps: drop it, so
                // that the moves list and its legal moves stay in step. (A walk that reached
                // the end of the game kept every move, and no legal move follows.)
                if !last_legal.is_empty() {
                    position.moves.pop();
                }
                samples.push(Sample {
                    position,
                    legal: last_legal,
                });
            }
        }
    }
    if args.whole_walks {
        let plies: Vec<String> = samples
            .iter()
            .map(|s| format!("{} {}", s.position.variant, s.position.moves.len()))
            .collect();
        eprintln!(
            "loadgen: whole walks (variant, plies): {}",
            plies.join(", ")
        );
    }
    Ok(samples)
}

/// Sends one request and records it. `started` is when it was (or should have been) sent.
async fn one_call(
    clients: &mut Clients,
    plan: &Plan,
    rng: &mut Rng,
    stats: &mut StatsByRpc,
    started: Instant,
) {
    let kind = match plan.rpc {
        RpcKind::Mix => plan.mix.pick(rng),
        kind => kind,
    };
    let sample = &plan.samples[pick_index(rng, plan.samples.len())];
    let token = plan.token.as_ref();
    let mut best: Option<bool> = None;
    let mut legal_right: Option<bool> = None;
    let client = &mut clients.typed;
    let result: Result<(), Status> = match kind {
        RpcKind::LegalMoves => {
            let call = request(
                pb::LegalMovesRequest {
                    position: Some(sample.position.clone()),
                    detail: plan.legal_detail.into(),
                },
                plan.deadline,
                token,
            );
            let expected = sample.legal.len();
            match plan.decode {
                Decode::Lean => lean_legal_moves(&mut clients.raw, call).await.map(|tally| {
                    legal_right = Some(tally.is_right(plan.legal_detail, expected));
                }),
                Decode::Full => client.legal_moves(call).await.map(|answer| {
                    let tally = LegalMovesTally::of(answer.get_ref());
                    legal_right = Some(tally.is_right(plan.legal_detail, expected));
                }),
            }
        }
        RpcKind::ApplyMove => {
            let mv = sample.legal[pick_index(rng, sample.legal.len())].clone();
            client
                .apply_move(request(
                    pb::ApplyMoveRequest {
                        position: Some(sample.position.clone()),
                        r#move: mv,
                    },
                    plan.deadline,
                    token,
                ))
                .await
                .map(drop)
        }
        RpcKind::BestMove => client
            .best_move(request(
                pb::BestMoveRequest {
                    position: Some(sample.position.clone()),
                    limits: Some(pb::Limits {
                        movetime_ms: plan.movetime_ms,
                        ..pb::Limits::default()
                    }),
                },
                plan.deadline,
                token,
            ))
            .await
            .map(|r| {
                best = r.into_inner().r#move.map(|m| sample.legal.contains(&m.uci));
            }),
        RpcKind::ReplayGame => client
            .replay_game(request(
                pb::ReplayGameRequest {
                    position: Some(sample.position.clone()),
                    fens: false,
                },
                plan.deadline,
                token,
            ))
            .await
            .and_then(|r| {
                let (got, want) = (r.get_ref().moves.len(), sample.position.moves.len());
                if got == want {
                    Ok(())
                } else {
                    Err(Status::internal(format!("replayed {got} of {want} moves")))
                }
            }),
        RpcKind::ApplyLoop => apply_loop(client, &sample.position, plan, token).await,
        RpcKind::Echo | RpcKind::Mix => client
            .echo(request(
                pb::EchoRequest {
                    payload: vec![b'x'; ECHO_PAYLOAD_BYTES],
                },
                plan.deadline,
                token,
            ))
            .await
            .map(drop),
    };
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let entry = stats.entry(kind).or_insert_with(Stats::new);
    entry.latency_us.saturating_record(micros.max(1));
    let code = result.err().map_or(Code::Ok, |s| s.code());
    *entry.codes.entry(code_name(code)).or_default() += 1;
    if let Some(legal) = best {
        entry.best_answers += 1;
        entry.best_legal += u64::from(legal);
    }
    if let Some(right) = legal_right {
        entry.legal_answers += 1;
        entry.legal_wrong += u64::from(!right);
    }
}

/// Replays `position`'s moves one `ApplyMove` at a time, each call sending the moves before
/// the one it applies, as a client without `ReplayGame` must; stops at the first error.
async fn apply_loop(
    client: &mut GameEngineClient<Channel>,
    position: &pb::Position,
    plan: &Plan,
    token: Option<&MetadataValue<tonic::metadata::Ascii>>,
) -> Result<(), Status> {
    let mut so_far = pb::Position {
        moves: Vec::with_capacity(position.moves.len()),
        ..position.clone()
    };
    for mv in &position.moves {
        client
            .apply_move(request(
                pb::ApplyMoveRequest {
                    position: Some(so_far.clone()),
                    r#move: mv.clone(),
                },
                plan.deadline,
                token,
            ))
            .await?;
        so_far.moves.push(mv.clone());
    }
    Ok(())
}

/// A worker's two views of one channel: the generated client, and the raw one
/// [`lean_legal_moves`] calls with its own response type.
#[derive(Debug)]
struct Clients {
    typed: GameEngineClient<Channel>,
    raw: tonic::client::Grpc<Channel>,
}

impl Clients {
    fn new(channel: &Channel) -> Self {
        Clients {
            typed: GameEngineClient::new(channel.clone()),
            raw: tonic::client::Grpc::new(channel.clone()),
        }
    }
}

/// `LegalMoves`, read as a [`LegalMovesTally`] (`--decode lean`); the same call as the generated
/// client's, with another response type.
async fn lean_legal_moves(
    grpc: &mut tonic::client::Grpc<Channel>,
    call: Request<pb::LegalMovesRequest>,
) -> Result<LegalMovesTally, Status> {
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(format!("channel not ready: {e}")))?;
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(
        "/chessvariants.engine.v1.GameEngine/LegalMoves",
    );
    let codec = tonic_prost::ProstCodec::<pb::LegalMovesRequest, LegalMovesTally>::default();
    Ok(grpc.unary(call, path, codec).await?.into_inner())
}

/// Closed loop: `concurrency` workers, each sending its next request when the last one answered.
async fn closed_loop(
    plan: Arc<Plan>,
    channels: &[Channel],
    concurrency: u32,
    seed: u64,
) -> (Vec<StatsByRpc>, u64) {
    let mut workers = JoinSet::new();
    for i in 0..concurrency {
        let plan = Arc::clone(&plan);
        let mut clients = Clients::new(&channels[i as usize % channels.len()]);
        let mut rng = SplitMix64(seed ^ (u64::from(i) + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        workers.spawn(async move {
            let mut stats = StatsByRpc::new();
            while plan.take() {
                one_call(&mut clients, &plan, &mut rng, &mut stats, Instant::now()).await;
            }
            stats
        });
    }
    collect(workers, &plan).await
}

/// Open loop: one request every `1/rate` seconds, whatever the answers do.
async fn open_loop(
    plan: Arc<Plan>,
    channels: &[Channel],
    rate: f64,
    seed: u64,
) -> (Vec<StatsByRpc>, u64) {
    let start = Instant::now();
    let interval = Duration::from_secs_f64(1.0 / rate);
    let in_flight = Arc::new(Semaphore::new(OPEN_LOOP_MAX_IN_FLIGHT));
    let mut calls = JoinSet::new();
    let mut done = Vec::new();
    let mut not_sent = 0u64;
    let mut sent = 0u64;
    while plan.take() {
        let scheduled = start + interval.mul_f64(sent as f64);
        tokio::time::sleep_until(scheduled.into()).await;
        if Instant::now() >= plan.end {
            break;
        }
        // Reap finished calls as we go so the set stays small.
        while let Some(joined) = calls.try_join_next() {
            done.extend(joined.ok());
        }
        let Ok(permit) = Arc::clone(&in_flight).try_acquire_owned() else {
            not_sent += 1;
            sent += 1;
            continue;
        };
        let plan = Arc::clone(&plan);
        let mut clients = Clients::new(&channels[sent as usize % channels.len()]);
        let mut rng = SplitMix64(seed ^ (sent + 1).wrapping_mul(0xA24B_AED4_963E_E407));
        calls.spawn(async move {
            let mut stats = StatsByRpc::new();
            one_call(&mut clients, &plan, &mut rng, &mut stats, scheduled).await;
            drop(permit);
            stats
        });
        sent += 1;
    }
    let (stats, unfinished) = collect(calls, &plan).await;
    done.extend(stats);
    (done, unfinished + not_sent)
}

/// Waits for the tasks (each call is bounded by its deadline), abandoning stragglers after
/// `DRAIN_SLACK`. Returns their statistics and the number abandoned.
async fn collect(mut tasks: JoinSet<StatsByRpc>, plan: &Plan) -> (Vec<StatsByRpc>, u64) {
    let give_up = plan.end.max(Instant::now()) + plan.deadline + DRAIN_SLACK;
    let mut out = Vec::new();
    while let Ok(Some(joined)) = tokio::time::timeout_at(give_up.into(), tasks.join_next()).await {
        if let Ok(stats) = joined {
            out.push(stats);
        }
    }
    let abandoned = tasks.len() as u64;
    tasks.abort_all();
    (out, abandoned)
}

/// The run's summary, printed and written as JSON.
#[derive(Debug)]
pub struct Summary {
    /// The JSON form (also the `LOADGEN_JSON` line).
    pub json: Value,
    /// The human form.
    pub text: String,
}

fn stats_json(stats: &Stats, elapsed: f64) -> Value {
    let requests = stats.requests();
    json!({
        "requests": requests,
        "throughput_rps": requests as f64 / elapsed,
        "latency_ms": {
            "p50": stats.quantile_ms(0.50),
            "p90": stats.quantile_ms(0.90),
            "p99": stats.quantile_ms(0.99),
            "max": stats.max_ms(),
            "mean": stats.latency_us.mean() / 1000.0,
        },
        "codes": stats.codes,
        "best_move_answers": stats.best_answers,
        "best_move_legal": stats.best_legal,
        "legal_moves_answers": stats.legal_answers,
        "legal_moves_wrong": stats.legal_wrong,
    })
}

fn summarize(
    args: &LoadgenArgs,
    per_rpc: &StatsByRpc,
    elapsed: Duration,
    not_finished: u64,
    samples: usize,
) -> Summary {
    let elapsed_s = elapsed.as_secs_f64().max(1e-9);
    let mut total = Stats::new();
    for stats in per_rpc.values() {
        total.merge(stats);
    }
    let mut json = stats_json(&total, elapsed_s);
    let mode = if args.rate.is_some() {
        "open"
    } else {
        "closed"
    };
    if let Value::Object(map) = &mut json {
        map.insert("target".into(), json!(args.target));
        map.insert("rpc".into(), json!(args.rpc.name()));
        map.insert("legal_detail".into(), json!(args.legal_detail.name()));
        map.insert("walk_plies".into(), json!(args.walk_plies));
        map.insert("whole_walks".into(), json!(args.whole_walks));
        map.insert("decode".into(), json!(args.decode.name()));
        map.insert("mode".into(), json!(mode));
        map.insert("concurrency".into(), json!(args.concurrency));
        map.insert("rate".into(), json!(args.rate));
        map.insert("connections".into(), json!(args.connections));
        map.insert("duration_s".into(), json!(elapsed_s));
        map.insert("samples".into(), json!(samples));
        map.insert("not_finished".into(), json!(not_finished));
        let by_rpc: serde_json::Map<String, Value> = per_rpc
            .iter()
            .map(|(k, s)| (k.name().to_owned(), stats_json(s, elapsed_s)))
            .collect();
        map.insert("per_rpc".into(), Value::Object(by_rpc));
    }

    let mut text = String::new();
    let load = match args.rate {
        Some(rate) => format!("open loop at {rate} req/s"),
        None => format!("closed loop, concurrency {}", args.concurrency),
    };
    let _ = writeln!(
        text,
        "loadgen: {} against {} ({load}, {} connection(s), {} sample positions, legal_moves \
         detail {})",
        args.rpc.name(),
        args.target,
        args.connections,
        samples,
        args.legal_detail.name()
    );
    let _ = writeln!(
        text,
        "  requests {}  in {elapsed_s:.2} s  throughput {:.1} req/s  not finished {not_finished}",
        total.requests(),
        total.requests() as f64 / elapsed_s
    );
    let line = |text: &mut String, label: &str, s: &Stats| {
        let _ = writeln!(
            text,
            "  {label:<12} n={:<8} p50 {:.3} ms  p90 {:.3} ms  p99 {:.3} ms  max {:.3} ms",
            s.requests(),
            s.quantile_ms(0.50),
            s.quantile_ms(0.90),
            s.quantile_ms(0.99),
            s.max_ms()
        );
    };
    line(&mut text, "all", &total);
    if per_rpc.len() > 1 {
        for (kind, s) in per_rpc {
            line(&mut text, kind.name(), s);
        }
    }
    let codes: Vec<String> = total
        .codes
        .iter()
        .map(|(c, n)| format!("{c}={n}"))
        .collect();
    let _ = writeln!(text, "  status codes: {}", codes.join(" "));
    if let Some(best) = per_rpc.get(&RpcKind::BestMove) {
        let _ = writeln!(
            text,
            "  best_move: {} answers with a move, {} legal",
            best.best_answers, best.best_legal
        );
    }
    if let Some(legal) = per_rpc.get(&RpcKind::LegalMoves) {
        let _ = writeln!(
            text,
            "  legal_moves: {} answers checked ({} decode), {} wrong",
            legal.legal_answers,
            args.decode.name(),
            legal.legal_wrong
        );
    }
    Summary { json, text }
}

/// Runs the load generator and returns its summary (the caller prints it).
///
/// # Errors
/// Bad flags, an unreachable target, or a failing setup call; once the run starts, failed calls
/// are counted, not returned.
pub async fn run(args: &LoadgenArgs) -> Result<Summary, LoadgenError> {
    validate(args)?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let token = args
        .token
        .as_ref()
        .map(|t| {
            MetadataValue::try_from(format!("Bearer {t}"))
                .map_err(|_| LoadgenError::Argument("--token is not valid header text".into()))
        })
        .transpose()?;
    let channels = connect(args).await?;
    let mut rng = SplitMix64(seed);
    let mut setup_client = GameEngineClient::new(channels[0].clone());
    let samples = tokio::time::timeout(
        SETUP_TIMEOUT * 6,
        samples(&mut setup_client, args, token.as_ref(), &mut rng),
    )
    .await
    .map_err(|_| LoadgenError::Setup("building sample positions took too long".into()))??;
    let sample_count = samples.len();

    let start = Instant::now();
    let plan = Arc::new(Plan {
        samples,
        rpc: args.rpc,
        mix: args.mix.clone(),
        legal_detail: args.legal_detail.proto(),
        decode: args.decode,
        movetime_ms: args.movetime_ms,
        deadline: Duration::from_millis(args.deadline_ms),
        token,
        budget: AtomicU64::new(args.max_requests.unwrap_or(u64::MAX)),
        end: start + Duration::from_secs_f64(args.duration),
    });
    let (worker_stats, not_finished) = match args.rate {
        Some(rate) => open_loop(Arc::clone(&plan), &channels, rate, seed).await,
        None => closed_loop(Arc::clone(&plan), &channels, args.concurrency, seed).await,
    };
    let elapsed = start.elapsed();
    let mut per_rpc = StatsByRpc::new();
    for stats in worker_stats {
        for (kind, s) in stats {
            per_rpc.entry(kind).or_insert_with(Stats::new).merge(&s);
        }
    }
    let summary = summarize(args, &per_rpc, elapsed, not_finished, sample_count);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&summary.json).unwrap_or_default();
        std::fs::write(path, text).map_err(|source| LoadgenError::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use variant_api::{EncodedMoves, EncodedTexts, MoveRecord};
    use variant_engine::{Position, Registry};

    use super::*;

    fn parse(args: &[&str]) -> LoadgenArgs {
        let mut argv = vec!["variant-loadgen"];
        argv.extend_from_slice(args);
        LoadgenArgs::parse_from(argv)
    }

    /// An answer as a server writes it for Orphic's start position (712 moves): each move with
    /// its text and destination, or with `MOVE_DETAIL_UCI` the texts only; and the move count.
    fn orphic_answer(detail: pb::MoveDetail) -> (pb::LegalMovesResponse, usize) {
        let orphic = Position::new(Registry::builtin().get("orphic").expect("orphic"));
        let legal: Vec<(String, &str)> = orphic
            .legal_moves()
            .into_iter()
            .map(|m| (orphic.uci(m), m.to().name()))
            .collect();
        let (mut moves, mut texts) = (EncodedMoves::default(), EncodedTexts::default());
        for (uci, to) in &legal {
            match detail {
                pb::MoveDetail::Uci => texts.push(uci),
                pb::MoveDetail::Full | pb::MoveDetail::Unspecified => moves.push(&MoveRecord {
                    uci,
                    to,
                    ..MoveRecord::default()
                }),
            }
        }
        let status = pb::GameStatus::default();
        let answer = pb::LegalMovesResponse::encoded(orphic.fen(), status, moves, texts);
        (answer, legal.len())
    }

    #[test]
    fn defaults_follow_the_cli_contract() {
        let args = parse(&[]);
        assert_eq!(args.target, "http://127.0.0.1:50051");
        assert_eq!(args.rpc, RpcKind::LegalMoves);
        assert!((args.duration - 10.0).abs() < f64::EPSILON);
        assert_eq!(args.movetime_ms, 100);
        assert_eq!(args.deadline_ms, 5000);
        assert_eq!(args.connections, 1);
        assert!(args.rate.is_none() && args.variants.is_empty());
        assert!(validate(&args).is_ok());
    }

    #[test]
    fn mix_and_variant_lists_parse() {
        let args = parse(&[
            "--rpc",
            "mix",
            "--mix",
            "legal_moves=70,apply_move=20,best_move=10",
            "--variants",
            "opulent,soho",
        ]);
        assert_eq!(args.rpc, RpcKind::Mix);
        assert_eq!(
            args.mix,
            Mix(vec![
                (RpcKind::LegalMoves, 70),
                (RpcKind::ApplyMove, 20),
                (RpcKind::BestMove, 10)
            ])
        );
        assert_eq!(args.variants, ["opulent", "soho"]);
    }

    #[test]
    fn bad_mixes_are_rejected() {
        assert!("legal_moves".parse::<Mix>().is_err());
        assert!("legal_moves=0".parse::<Mix>().is_err());
        assert!("mix=1".parse::<Mix>().is_err());
        assert!("nope=1".parse::<Mix>().is_err());
    }

    #[test]
    fn mix_picks_follow_the_weights() {
        let mix: Mix = "legal_moves=3,echo=1".parse().expect("valid mix");
        let mut rng = SplitMix64(7);
        let legal = (0..4000)
            .filter(|_| mix.pick(&mut rng) == RpcKind::LegalMoves)
            .count();
        assert!((2700..3300).contains(&legal), "{legal}");
    }

    #[test]
    fn remote_targets_need_allow_remote() {
        let remote = parse(&["--target", "http://10.1.2.3:50051"]);
        assert!(matches!(validate(&remote), Err(LoadgenError::Argument(_))));
        let allowed = parse(&["--target", "http://10.1.2.3:50051", "--allow-remote"]);
        assert!(validate(&allowed).is_ok());
        for local in ["http://localhost:1", "http://127.0.0.2:1", "http://[::1]:1"] {
            assert!(validate(&parse(&["--target", local])).is_ok(), "{local}");
        }
    }

    #[test]
    fn duration_is_capped() {
        assert!(validate(&parse(&["--duration", "601"])).is_err());
        assert!(validate(&parse(&["--duration", "0"])).is_err());
        assert!(validate(&parse(&["--duration", "600"])).is_ok());
    }

    /// The lean read counts the records of a real answer, checks them, and spots a wrong one.
    #[test]
    fn lean_read_checks_legal_moves_answers() {
        use prost::Message as _;
        let (full, count) = orphic_answer(pb::MoveDetail::Full);
        let tally = LegalMovesTally::decode(full.encode_to_vec().as_slice()).expect("decodes");
        assert_eq!(
            (tally.moves, tally.uci_moves, tally.without_text),
            (count, 0, 0)
        );
        assert!(tally.is_right(pb::MoveDetail::Full, count));
        assert!(!tally.is_right(pb::MoveDetail::Full, count - 1));
        let decoded =
            pb::LegalMovesResponse::decode(full.encode_to_vec().as_slice()).expect("decodes");
        let of_full = LegalMovesTally::of(&decoded);
        assert_eq!(
            (of_full.moves, of_full.uci_moves, of_full.without_text),
            (count, 0, 0)
        );
        assert!(of_full.is_right(pb::MoveDetail::Full, count));
        assert!(!tally.is_right(pb::MoveDetail::Uci, count));

        let (texts, _) = orphic_answer(pb::MoveDetail::Uci);
        let tally = LegalMovesTally::decode(texts.encode_to_vec().as_slice()).expect("decodes");
        assert!(tally.is_right(pb::MoveDetail::Uci, count));

        // A move without its text, and a record cut short.
        let no_text = pb::Move {
            san: "e4".into(),
            ..pb::Move::default()
        };
        let bad = pb::LegalMovesResponse::from_messages(
            vec![no_text],
            String::new(),
            full.status().copied(),
            Vec::new(),
        );
        let tally = LegalMovesTally::decode(bad.encode_to_vec().as_slice()).expect("decodes");
        assert_eq!(tally.without_text, 1);
        assert!(!tally.is_right(pb::MoveDetail::Full, 1));
        assert_eq!(LegalMovesTally::of(&bad).without_text, 1);
        let bytes = full.encode_to_vec();
        assert!(LegalMovesTally::decode(&bytes[..bytes.len() / 2]).is_err());
    }

    #[test]
    fn code_names_are_the_proto_names() {
        assert_eq!(code_name(Code::ResourceExhausted), "RESOURCE_EXHAUSTED");
        assert_eq!(code_name(Code::Ok), "OK");
    }
}
