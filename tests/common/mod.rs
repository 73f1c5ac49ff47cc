//! Shared helpers for the integration tests: a real server on `127.0.0.1:0` and its client.
#![allow(dead_code, reason = "each test crate uses a different subset")]
#![allow(
    clippy::unnecessary_wraps,
    reason = "helpers build the optional fields of requests"
)]

pub mod port;

use std::{
    collections::HashSet,
    num::NonZeroUsize,
    process::{Child, Command, Stdio},
    time::Duration,
};

use tokio_stream::StreamExt as _;
use tonic::{Code, Status, transport::Channel};
use variant_service::{
    Config, ServerHandle,
    proto::{self as pb, game_engine_client::GameEngineClient},
    spawn,
};

/// A running in-process server and a connected client.
pub struct TestServer {
    pub handle: ServerHandle,
    pub channel: Channel,
    pub client: GameEngineClient<Channel>,
}

/// Starts a server with the default configuration.
pub async fn start() -> TestServer {
    start_with(Config::default()).await
}

/// Starts a server with `config` (its listen address is ignored: tests bind 127.0.0.1:0).
pub async fn start_with(config: Config) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let handle = spawn(config, listener).expect("server starts");
    let channel = Channel::from_shared(handle.url())
        .expect("valid url")
        .connect()
        .await
        .expect("connect to test server");
    let client = GameEngineClient::new(channel.clone());
    TestServer {
        handle,
        channel,
        client,
    }
}

/// A request position.
pub fn position(variant: &str, fen: &str, moves: &[&str]) -> pb::Position {
    pb::Position {
        variant: variant.into(),
        fen: fen.into(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        draw_claims: false,
    }
}

/// The start position of `variant`.
pub fn start_of(variant: &str) -> Option<pb::Position> {
    Some(position(variant, "", &[]))
}

/// Search limits of a fixed depth.
pub fn depth(depth: u32) -> Option<pb::Limits> {
    Some(pb::Limits {
        depth,
        ..Default::default()
    })
}

/// A server configuration with `slots` concurrent searches, a wait queue of `queue` and a small
/// table.
pub fn slots(slots: usize, queue: usize) -> Config {
    Config {
        max_searches: NonZeroUsize::new(slots),
        search_queue: queue,
        hash_mb: 1,
        ..Config::default()
    }
}

/// A `BestMove` request for the chess start position that searches `movetime_ms`.
pub fn search_for(movetime_ms: u32) -> pb::BestMoveRequest {
    pb::BestMoveRequest {
        position: start_of("chess"),
        limits: Some(pb::Limits {
            movetime_ms,
            ..Default::default()
        }),
    }
}

/// The `LegalMoves` answer (full detail) for `position`.
pub async fn legal_moves(
    client: &mut GameEngineClient<Channel>,
    position: Option<pb::Position>,
) -> pb::LegalMovesResponse {
    client
        .legal_moves(pb::LegalMovesRequest {
            position,
            ..Default::default()
        })
        .await
        .expect("legal moves")
        .into_inner()
}

/// The text of every legal move of `position`, as `LegalMoves` lists them.
pub async fn legal_uci(
    client: &mut GameEngineClient<Channel>,
    position: Option<pb::Position>,
) -> HashSet<String> {
    legal_moves(client, position)
        .await
        .into_moves()
        .into_iter()
        .map(|m| m.uci)
        .collect()
}

/// Starts a long streamed search and returns once it holds a slot (its first update arrived).
pub async fn hold_slot(
    client: &mut GameEngineClient<Channel>,
) -> tonic::Streaming<pb::AnalyzeResponse> {
    let pb::BestMoveRequest { position, limits } = search_for(30_000);
    let mut stream = client
        .analyze(pb::AnalyzeRequest { position, limits })
        .await
        .expect("analyze admitted")
        .into_inner();
    stream.next().await.expect("an update").expect("ok update");
    stream
}

/// Asserts `status` has `code` and that its message contains every needle.
pub fn assert_status(status: &Status, code: Code, needles: &[&str]) {
    assert_eq!(status.code(), code, "unexpected status: {status:?}");
    for needle in needles {
        assert!(
            status.message().contains(needle),
            "message {:?} does not mention {needle:?}",
            status.message()
        );
    }
}

/// The server still answers a good request (after bad ones).
pub async fn assert_still_serving(client: &mut GameEngineClient<Channel>) {
    let response = client
        .legal_moves(pb::LegalMovesRequest {
            position: start_of("chess"),
            ..Default::default()
        })
        .await
        .expect("a good request after bad ones succeeds")
        .into_inner();
    assert!(!response.moves().is_empty());
}

/// Kills the child if the test fails before it exits.
pub struct Reap(pub Child);

impl Drop for Reap {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Binary flags for drain tests: two search slots, a queue of four, a 3 s grace period.
pub const SMALL_POOL_SHORT_GRACE: &[&str] = &[
    "--max-searches",
    "2",
    "--search-queue",
    "4",
    "--shutdown-grace-secs",
    "3",
];

/// The server binary on a free loopback port with 1 MB hash tables, quiet logs and `args`,
/// once it accepts connections: the process, its port and a client.
pub async fn spawn_binary(args: &[&str]) -> (Reap, u16, GameEngineClient<Channel>) {
    let port = port::free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_variant-service"))
        .args(["--listen", &format!("127.0.0.1:{port}"), "--hash-mb", "1"])
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server binary");
    let child = Reap(child);
    let url = format!("http://127.0.0.1:{port}");
    let channel = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Ok(channel) = Channel::from_shared(url.clone())
                .expect("url")
                .connect()
                .await
            {
                break channel;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the server starts listening");
    (child, port, GameEngineClient::new(channel))
}
