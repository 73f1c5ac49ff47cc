//! Shared helpers for the integration tests: a real server on `127.0.0.1:0` and its client.
#![allow(dead_code, reason = "each test crate uses a different subset")]

pub mod port;

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
    }
}

/// The start position of `variant`.
pub fn start_of(variant: &str) -> Option<pb::Position> {
    Some(position(variant, "", &[]))
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
