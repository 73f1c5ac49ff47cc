//! Hostile and broken clients: raw bytes and broken gRPC framing on every method,
//! oversized fields, deep and long move lists, floods of cancelled streams and closed channels,
//! idle and half-open sockets, deep perfts past their deadline, a search queue under a burst,
//! and SIGTERM with all of it in flight. After each group the server must still answer a normal
//! call promptly and every search slot must be free again.
//!
//! Counts and times are bounded for CI's two cores. Timings are printed (`--nocapture`) and
//! asserted only with generous bounds; the figures go into the report and docs. The tests share
//! a lock so that their timings are not mixed with each other's load.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::unnecessary_wraps,
    reason = "common helpers build optional proto fields"
)]

mod common;

use std::{
    net::SocketAddr,
    process::Command,
    time::{Duration, Instant},
};

use bytes::Bytes;
use common::{
    Reap, SMALL_POOL_SHORT_GRACE, TestServer, legal_uci, position, search_for, slots, spawn_binary,
    start_of, start_with,
};
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::TcpStream,
    sync::Mutex,
};
use tokio_stream::StreamExt as _;
use tonic::{Code, Request, Status, transport::Channel};
use tonic_types::StatusExt as _;
use variant_service::{
    Config,
    proto::{self as pb, game_engine_client::GameEngineClient},
};

type Client = GameEngineClient<Channel>;

/// One test at a time: each one loads the two cores on its own.
static SERIAL: Mutex<()> = Mutex::const_new(());

/// How long a "prompt" answer may take at most on a loaded CI machine.
const PROMPT: Duration = Duration::from_secs(2);

fn with_timeout<T>(message: T, timeout: Duration) -> Request<T> {
    let mut request = Request::new(message);
    request.set_timeout(timeout);
    request
}

/// Waits until every search slot is free again; returns how long that took.
async fn wait_idle(s: &TestServer, within: Duration) -> Duration {
    let started = Instant::now();
    loop {
        let load = s.handle.pool().load();
        if load.is_idle() {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < within,
            "search slots still busy after {within:?}: {load:?}"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// After a group: a normal call answers promptly and every slot is free.
async fn assert_healthy(s: &mut TestServer, group: &str) {
    let idle_after = wait_idle(s, Duration::from_secs(10)).await;
    let started = Instant::now();
    let moves = s
        .client
        .legal_moves(with_timeout(
            pb::LegalMovesRequest {
                position: start_of("chess"),
                ..Default::default()
            },
            PROMPT,
        ))
        .await
        .unwrap_or_else(|e| panic!("{group}: a normal call failed afterwards: {e:?}"))
        .into_inner()
        .moves()
        .len();
    assert_eq!(moves, 20, "{group}");
    let search = s
        .client
        .best_move(with_timeout(
            pb::BestMoveRequest {
                position: start_of("chess"),
                limits: Some(pb::Limits {
                    depth: 2,
                    ..Default::default()
                }),
            },
            PROMPT,
        ))
        .await
        .unwrap_or_else(|e| panic!("{group}: a search failed afterwards: {e:?}"));
    assert!(search.into_inner().r#move.is_some(), "{group}");
    eprintln!(
        "{group}: slots free {idle_after:?} after the group; normal calls answered in {:?}",
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP/2: broken gRPC framing on every method.

/// Every method of every service the server offers.
const METHODS: &[&str] = &[
    "/chessvariants.engine.v1.GameEngine/ListVariants",
    "/chessvariants.engine.v1.GameEngine/LegalMoves",
    "/chessvariants.engine.v1.GameEngine/ApplyMove",
    "/chessvariants.engine.v1.GameEngine/BestMove",
    "/chessvariants.engine.v1.GameEngine/Analyze",
    "/chessvariants.engine.v1.GameEngine/Perft",
    "/chessvariants.engine.v1.GameEngine/Echo",
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// A gRPC message frame: compression flag, 4-byte length, payload.
fn frame(flag: u8, declared_len: u32, payload: &[u8]) -> Bytes {
    let mut out = vec![flag];
    out.extend_from_slice(&declared_len.to_be_bytes());
    out.extend_from_slice(payload);
    Bytes::from(out)
}

/// Broken request bodies, each with the status codes tonic answers it with.
fn broken_bodies() -> Vec<(&'static str, Bytes, &'static [Code])> {
    // Field 1 with wire type 7, which protobuf does not have: every message fails to decode.
    let bad_protobuf: &[u8] = &[0x0f, 0xff, 0xff, 0xff];
    vec![
        (
            "undecodable protobuf",
            frame(0, 4, bad_protobuf),
            &[Code::Internal],
        ),
        (
            "invalid compression flag",
            frame(2, 4, bad_protobuf),
            &[Code::Internal],
        ),
        (
            "compressed flag without grpc-encoding",
            frame(1, 4, bad_protobuf),
            &[Code::Internal],
        ),
        (
            "frame shorter than its length",
            frame(0, 100, b"\x0a\x05chess"),
            &[Code::Internal],
        ),
        (
            "length beyond the message limit",
            frame(0, u32::MAX, b""),
            &[Code::OutOfRange, Code::ResourceExhausted],
        ),
        (
            "half a frame header",
            Bytes::from_static(&[0, 0]),
            &[Code::Internal],
        ),
        (
            "no message at all",
            Bytes::new(),
            // Unary methods need a message; a stream of none is valid for streaming ones
            // (reflection answers it with an empty stream, Watch with a status).
            &[Code::Internal, Code::Ok, Code::Unimplemented],
        ),
    ]
}

/// Sends `body` as a gRPC request to `path` over a fresh raw HTTP/2 connection and returns the
/// call's status (from the headers of a trailers-only answer, or from the trailers).
async fn raw_call(addr: SocketAddr, path: &str, body: Bytes) -> Status {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    let (client, connection) = h2::client::handshake(tcp).await.expect("h2 handshake");
    tokio::spawn(connection);
    let mut client = client.ready().await.expect("h2 ready");
    let request = http::Request::builder()
        .method("POST")
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .expect("request");
    let (response, mut send) = client.send_request(request, false).expect("send");
    send.send_data(body, true).expect("body");
    let response = tokio::time::timeout(PROMPT * 5, response)
        .await
        .expect("an answer, not a hang")
        .expect("response headers");
    if let Some(status) = Status::from_header_map(response.headers()) {
        return status;
    }
    let mut body = response.into_body();
    // Streaming methods may answer messages first (e.g. Watch); read until the trailers.
    let read = async {
        while let Some(chunk) = body.data().await {
            let chunk = chunk.expect("body");
            let _ = body.flow_control().release_capacity(chunk.len());
        }
        body.trailers().await.expect("trailers")
    };
    match tokio::time::timeout(PROMPT, read).await {
        Ok(Some(trailers)) => Status::from_header_map(&trailers).expect("grpc-status"),
        Ok(None) => Status::unknown("no trailers"),
        // Watch streams on: it answered, which is all we ask of it.
        Err(_) => Status::ok("still streaming"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_framing_on_every_method_is_refused_and_the_server_carries_on() {
    let _serial = SERIAL.lock().await;
    let mut s = start_with(slots(2, 4)).await;
    let mut calls = 0;
    for path in METHODS {
        for (kind, body, codes) in broken_bodies() {
            let status = raw_call(s.handle.addr, path, body).await;
            // Reflection reads a request stream and ends its answer cleanly on a bad message.
            let streaming_ok = path.contains("Reflection") && status.code() == Code::Ok;
            assert!(
                streaming_ok || codes.contains(&status.code()),
                "{path} with {kind}: {:?} {:?}",
                status.code(),
                status.message()
            );
            calls += 1;
        }
    }
    // Not HTTP/2 at all: the connection is closed, promptly.
    for garbage in [&b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"[..], &[0xff; 64][..]] {
        let mut tcp = TcpStream::connect(s.handle.addr).await.expect("connect");
        tcp.write_all(garbage).await.expect("write");
        let mut sink = Vec::new();
        let closed = tokio::time::timeout(PROMPT * 5, tcp.read_to_end(&mut sink)).await;
        assert!(closed.is_ok(), "a garbage connection stays open");
    }
    eprintln!("broken framing: {calls} calls on {} methods", METHODS.len());
    assert_healthy(&mut s, "broken framing").await;
}

// ---------------------------------------------------------------------------------------------
// Oversized fields and long move lists.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_inputs_get_short_messages_that_say_how_long_they_were() {
    let _serial = SERIAL.lock().await;
    let mut s = start_with(slots(2, 4)).await;
    let huge_name = "v".repeat(10_000);
    // A 1 MB side-to-move field: FEN errors quote the field they reject.
    let huge_fen = format!("8/8/8/8/8/8/8/K6k {} - - 0 1", "w".repeat(1_000_000));
    let huge_move = "e".repeat(1_000_000);
    let cases: Vec<(&str, pb::ApplyMoveRequest, &str, usize)> = vec![
        (
            "variant name",
            pb::ApplyMoveRequest {
                position: Some(position(&huge_name, "", &[])),
                r#move: "e2e4".into(),
            },
            "UNKNOWN_VARIANT",
            10_000,
        ),
        (
            "FEN",
            pb::ApplyMoveRequest {
                position: Some(position("chess", &huge_fen, &[])),
                r#move: "e2e4".into(),
            },
            "INVALID_FEN",
            1_000_000,
        ),
        (
            "move text",
            pb::ApplyMoveRequest {
                position: start_of("chess"),
                r#move: huge_move.clone(),
            },
            "UNPARSABLE_MOVE",
            1_000_000,
        ),
        (
            "move list entry",
            pb::ApplyMoveRequest {
                position: Some(position("chess", "", &["e2e4", &huge_move[..100_000]])),
                r#move: "e2e4".into(),
            },
            "UNPARSABLE_MOVE",
            100_000,
        ),
    ];
    for (what, request, reason, length) in cases {
        let status = s
            .client
            .apply_move(request)
            .await
            .expect_err("must be refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
        let message = status.message();
        assert!(
            message.len() < 400,
            "{what}: {} bytes: {message}",
            message.len()
        );
        assert!(
            message.contains(&format!("({length} characters)")),
            "{what}: {message}"
        );
        let details = status.get_error_details();
        assert_eq!(
            details.error_info().map(|i| i.reason.as_str()),
            Some(reason),
            "{what}"
        );
        eprintln!(
            "{what} of {length} characters -> {} bytes: {message}",
            message.len()
        );
    }
    // A whole request over the message limit: refused by tonic before any parsing.
    let status = s
        .client
        .legal_moves(pb::LegalMovesRequest {
            position: Some(position("chess", &"x".repeat(2 << 20), &[])),
            ..Default::default()
        })
        .await
        .expect_err("over the limit");
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert_healthy(&mut s, "huge inputs").await;
}

/// The refusal of a `LegalMoves` call on the chess start followed by `moves`.
async fn refused_moves(client: &mut Client, moves: &[&str]) -> Status {
    client
        .legal_moves(pb::LegalMovesRequest {
            position: Some(position("chess", "", moves)),
            ..Default::default()
        })
        .await
        .expect_err("the moves list must be refused")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_and_failing_move_lists_are_replayed_or_refused_by_index() {
    let _serial = SERIAL.lock().await;
    let mut s = start_with(slots(2, 4)).await;
    // 1000 moves of knights out and back: the third repetition ends the game at index 8, and
    // every call refuses the rest at once, naming that index (RULES.md: a finished game takes
    // no more moves).
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let moves: Vec<&str> = shuffle.iter().copied().cycle().take(1_000).collect();
    let started = Instant::now();
    let game_over = |err: tonic::Status| {
        assert!(
            err.message().contains("position.moves[8]") && err.message().contains("threefold"),
            "{err:?}"
        );
    };
    game_over(
        s.client
            .legal_moves(pb::LegalMovesRequest {
                position: Some(position("chess", "", &moves)),
                ..Default::default()
            })
            .await
            .expect_err("moves after the end"),
    );
    game_over(
        s.client
            .perft(pb::PerftRequest {
                position: Some(position("chess", "", &moves)),
                depth: 3,
                split: true,
            })
            .await
            .expect_err("moves after the end"),
    );
    game_over(
        s.client
            .best_move(with_timeout(
                pb::BestMoveRequest {
                    position: Some(position("chess", "", &moves)),
                    limits: Some(pb::Limits {
                        depth: 3,
                        ..Default::default()
                    }),
                },
                PROMPT * 5,
            ))
            .await
            .expect_err("moves after the end"),
    );
    eprintln!("1000-move list: three calls in {:?}", started.elapsed());

    let too_many: Vec<&str> = shuffle.iter().copied().cycle().take(1_001).collect();
    let status = refused_moves(&mut s.client, &too_many).await;
    assert_eq!(
        status
            .get_error_details()
            .error_info()
            .map(|i| i.reason.clone()),
        Some("TOO_MANY_MOVES".into())
    );
    let mut failing = moves[..7].to_vec();
    failing.push("e1e8");
    let status = refused_moves(&mut s.client, &failing).await;
    assert!(
        status.message().starts_with("position.moves[7] \"e1e8\""),
        "{}",
        status.message()
    );
    let details = status.get_error_details();
    assert_eq!(
        details
            .bad_request()
            .map(|b| b.field_violations[0].field.clone()),
        Some("position.moves[7]".into())
    );
    assert_healthy(&mut s, "long move lists").await;
}

// ---------------------------------------------------------------------------------------------
// Floods of cancelled streams and closed channels.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floods_of_cancelled_streams_and_closed_channels_free_every_slot() {
    const STREAMS: usize = 100;
    const CHANNELS: usize = 30;
    let _serial = SERIAL.lock().await;
    let mut s = start_with(slots(2, 8)).await;
    let analyze = || pb::AnalyzeRequest {
        position: start_of("chess"),
        limits: Some(pb::Limits {
            movetime_ms: 10_000,
            ..Default::default()
        }),
    };
    let started = Instant::now();
    let mut refused = 0;
    for i in 0..STREAMS {
        match s.client.analyze(analyze()).await {
            Ok(response) => {
                let mut stream = response.into_inner();
                if i % 2 == 0 {
                    // Read one update, then hang up mid-search.
                    let _ = tokio::time::timeout(PROMPT, stream.next()).await;
                }
                drop(stream);
            }
            Err(status) => {
                assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
                refused += 1;
            }
        }
    }
    // Whole channels closed with a search in flight.
    for _ in 0..CHANNELS {
        let channel = Channel::from_shared(s.handle.url())
            .expect("url")
            .connect()
            .await
            .expect("connect");
        let mut client = Client::new(channel);
        let call = tokio::spawn(async move { client.best_move(search_for(10_000)).await });
        tokio::time::sleep(Duration::from_millis(5)).await;
        call.abort();
    }
    eprintln!(
        "flood: {STREAMS} analyze streams ({refused} refused) and {CHANNELS} closed channels in {:?}",
        started.elapsed()
    );
    assert_healthy(&mut s, "cancel flood").await;
}

// ---------------------------------------------------------------------------------------------
// Perft deadlines (item 1) and the search queue (item 2).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_perfts_stop_at_their_deadline_and_a_search_then_answers() {
    let _serial = SERIAL.lock().await;
    let mut s = start_with(slots(2, 4)).await;
    let deadline = Duration::from_secs(1);
    let sent = Instant::now();
    let perfts: Vec<_> = (0..2)
        .map(|_| {
            let mut client = s.client.clone();
            tokio::spawn(async move {
                client
                    .perft(with_timeout(
                        pb::PerftRequest {
                            position: start_of("orphic"),
                            depth: 4,
                            split: false,
                        },
                        deadline,
                    ))
                    .await
            })
        })
        .collect();
    for perft in perfts {
        let status = perft
            .await
            .expect("task")
            .expect_err("orphic depth 4 takes minutes");
        // Our own answer at the budget, or the client's timer if it fires first.
        assert!(
            matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
            "{status:?}"
        );
    }
    // The engine threads must let go of their slots right at the deadline, not minutes later.
    let idle = wait_idle(&s, Duration::from_secs(30)).await;
    let stopped_after = sent.elapsed();
    eprintln!(
        "perft: both slots free {stopped_after:?} after sending (deadline {deadline:?}; waited {idle:?} after the answers)"
    );
    assert!(
        stopped_after < deadline + Duration::from_secs(1),
        "perft threads ran on for {stopped_after:?}"
    );
    let legal = legal_uci(&mut s.client, start_of("chess")).await;
    let started = Instant::now();
    let answer = s
        .client
        .best_move(with_timeout(search_for(200), Duration::from_secs(1)))
        .await
        .expect("a search after the perfts answers within its 1 s deadline")
        .into_inner();
    eprintln!(
        "BestMove 200 ms after the perfts: answered in {:?}",
        started.elapsed()
    );
    assert!(legal.contains(&answer.r#move.expect("a move").uci));
    assert_healthy(&mut s, "perft deadlines").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_searches_is_answered_in_time_or_refused_at_once_never_left_to_expire() {
    const CALLS: usize = 32;
    let _serial = SERIAL.lock().await;
    let mut s = start_with(slots(2, 16)).await;
    let legal = legal_uci(&mut s.client, start_of("chess")).await;
    let deadline = Duration::from_secs(3);
    let calls: Vec<_> = (0..CALLS)
        .map(|_| {
            let mut client = s.client.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                let result = client
                    .best_move(with_timeout(search_for(1_000), deadline))
                    .await;
                (started.elapsed(), result)
            })
        })
        .collect();
    let mut answered = Vec::new();
    let mut refused = Vec::new();
    for call in calls {
        let (elapsed, result) = call.await.expect("task");
        match result {
            Ok(response) => {
                let uci = response.into_inner().r#move.expect("a move").uci;
                assert!(legal.contains(&uci), "illegal best move {uci}");
                assert!(
                    elapsed < deadline,
                    "answered after its deadline: {elapsed:?}"
                );
                answered.push(elapsed);
            }
            Err(status) => {
                assert_eq!(
                    status.code(),
                    Code::ResourceExhausted,
                    "after {elapsed:?}: {status:?}"
                );
                assert!(status.metadata().get("retry-after-ms").is_some());
                let details = status.get_error_details();
                assert!(details.retry_info().is_some(), "RetryInfo");
                refused.push(elapsed);
            }
        }
    }
    answered.sort();
    refused.sort();
    eprintln!(
        "burst of {CALLS} 1 s searches, 3 s deadline, 2 slots: {} answered (slowest {:?}), {} refused (median {:?}, slowest {:?})",
        answered.len(),
        answered.last(),
        refused.len(),
        refused.get(refused.len() / 2),
        refused.last()
    );
    assert!(answered.len() >= 4, "the slots were used: {answered:?}");
    // Target 50 ms; the bound is generous for a loaded two-core machine.
    let slowest_refusal = refused.last().copied().unwrap_or_default();
    assert!(
        slowest_refusal < Duration::from_secs(1),
        "a refusal came late: {slowest_refusal:?}"
    );
    assert_healthy(&mut s, "search burst").await;
}

// ---------------------------------------------------------------------------------------------
// Idle and half-open sockets (item 3).

/// Bytes of an HTTP/2 client that says hello and then nothing: the preface and an empty
/// SETTINGS frame. It never acknowledges the server's SETTINGS or PING (a half-open peer).
const PREFACE_AND_SETTINGS: &[u8] =
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_are_closed_at_the_handshake_timeout_while_calls_stay_fast() {
    const SOCKETS: usize = 500;
    let _serial = SERIAL.lock().await;
    let timeout = Duration::from_millis(500);
    let mut s = start_with(Config {
        handshake_timeout_ms: 500,
        ..slots(2, 4)
    })
    .await;
    let latency = async |client: &mut Client, n: usize| {
        let mut times = Vec::new();
        for _ in 0..n {
            let started = Instant::now();
            client
                .legal_moves(pb::LegalMovesRequest {
                    position: start_of("chess"),
                    ..Default::default()
                })
                .await
                .expect("legal moves");
            times.push(started.elapsed());
        }
        times.sort();
        times
    };
    let before = latency(&mut s.client, 50).await;
    let baseline = s.handle.connections().live();
    let opened = Instant::now();
    let mut sockets = Vec::with_capacity(SOCKETS);
    for i in 0..SOCKETS {
        let mut tcp = TcpStream::connect(s.handle.addr).await.expect("connect");
        if i % 5 == 0 {
            // Some send half a preface, then stall.
            tcp.write_all(b"PRI * HTTP").await.expect("write");
        }
        sockets.push(tcp);
    }
    let mut client = s.client.clone();
    let during = tokio::spawn(async move { latency(&mut client, 50).await });
    let closes: Vec<_> = sockets
        .into_iter()
        .map(|mut tcp| {
            tokio::spawn(async move {
                let mut sink = [0u8; 64];
                // EOF or a reset: either way the server let go.
                loop {
                    match tcp.read(&mut sink).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                opened.elapsed()
            })
        })
        .collect();
    let mut closed_after = Vec::with_capacity(SOCKETS);
    for close in closes {
        let after = tokio::time::timeout(timeout + Duration::from_secs(10), close)
            .await
            .expect("every idle socket is closed by the server")
            .expect("task");
        closed_after.push(after);
    }
    closed_after.sort();
    let during = during.await.expect("task");
    eprintln!(
        "{SOCKETS} idle sockets, handshake timeout {timeout:?}: closed {:?}..{:?} after opening; LegalMoves p50/max {:?}/{:?} before, {:?}/{:?} meanwhile",
        closed_after[0],
        closed_after[SOCKETS - 1],
        before[before.len() / 2],
        before[before.len() - 1],
        during[during.len() / 2],
        during[during.len() - 1],
    );
    assert!(closed_after[0] >= timeout.saturating_sub(Duration::from_millis(50)));
    assert!(
        during[during.len() - 1] < PROMPT,
        "calls slowed down: {during:?}"
    );
    // The server holds no descriptor for them any more.
    let end = Instant::now() + Duration::from_secs(5);
    while s.handle.connections().live() > baseline && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(s.handle.connections().live(), baseline);
    assert_healthy(&mut s, "idle sockets").await;
}

/// An idle raw TCP socket (it never sends the preface) and a half-open HTTP/2 connection, to
/// the server on `port`, once the server has seen both.
async fn idle_and_half_open(port: u16) -> [TcpStream; 2] {
    let idle = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let mut half_open = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    half_open
        .write_all(PREFACE_AND_SETTINGS)
        .await
        .expect("write");
    tokio::time::sleep(Duration::from_millis(100)).await;
    [idle, half_open]
}

/// Sends SIGTERM and returns the exit status and how long the exit took.
async fn sigterm(child: &mut Reap, patience: Duration) -> (std::process::ExitStatus, Duration) {
    let sent = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    loop {
        if let Some(exit) = child.0.try_wait().expect("wait") {
            return (exit, sent.elapsed());
        }
        assert!(sent.elapsed() < patience, "no exit within {patience:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_idle_and_half_open_sockets_and_nothing_in_flight_exits_at_once() {
    let _serial = SERIAL.lock().await;
    let grace = 10;
    let (mut child, port, mut client) =
        spawn_binary(&["--shutdown-grace-secs", &grace.to_string()]).await;
    legal_uci(&mut client, start_of("chess")).await;
    let _sockets = idle_and_half_open(port).await;
    let (exit, took) = sigterm(&mut child, Duration::from_secs(grace + 10)).await;
    eprintln!("SIGTERM with an idle and a half-open socket: exited {exit:?} after {took:?}");
    assert!(exit.success(), "{exit:?}");
    // Main waited for the whole 10 s grace period here.
    assert!(took < Duration::from_secs(3), "exit took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_mixed_calls_in_flight_answers_them_and_exits_zero() {
    let _serial = SERIAL.lock().await;
    let (mut child, port, mut client) = spawn_binary(SMALL_POOL_SHORT_GRACE).await;
    let legal = legal_uci(&mut client, start_of("chess")).await;
    let long_search = {
        let mut client = client.clone();
        tokio::spawn(async move {
            client
                .best_move(with_timeout(search_for(20_000), Duration::from_secs(30)))
                .await
        })
    };
    let mut analysis = client
        .analyze(with_timeout(
            pb::AnalyzeRequest {
                position: start_of("chess"),
                limits: Some(pb::Limits {
                    movetime_ms: 20_000,
                    ..Default::default()
                }),
            },
            Duration::from_secs(30),
        ))
        .await
        .expect("analysis admitted")
        .into_inner();
    analysis.next().await.expect("an update").expect("ok");
    // Queued behind the two searches, with a deadline far beyond the grace period.
    let perft = {
        let mut client = client.clone();
        tokio::spawn(async move {
            client
                .perft(with_timeout(
                    pb::PerftRequest {
                        position: start_of("orphic"),
                        depth: 4,
                        split: true,
                    },
                    Duration::from_secs(30),
                ))
                .await
        })
    };
    let _sockets = idle_and_half_open(port).await;

    let (exit, took) = sigterm(&mut child, Duration::from_secs(15)).await;
    let answer = long_search
        .await
        .expect("task")
        .expect("the long search answers with its best move so far");
    assert!(legal.contains(&answer.into_inner().r#move.expect("a move").uci));
    let mut last = None;
    while let Some(update) = analysis.next().await {
        last = Some(update.expect("the stream ends cleanly"));
    }
    assert!(
        matches!(
            last.and_then(|u| u.update),
            Some(pb::analyze_response::Update::Result(_))
        ),
        "the analysis ends with its result"
    );
    // The queued perft: started once the searches answered, stopped by the drain at once and
    // told that the server is going away.
    let perft = perft.await.expect("task");
    let code = perft.as_ref().map_or_else(Status::code, |_| Code::Ok);
    assert_eq!(code, Code::Unavailable, "{perft:?}");
    eprintln!(
        "SIGTERM with searches, a stream, a perft and idle sockets: exited {exit:?} after {took:?}, perft {code:?}"
    );
    assert!(exit.success(), "{exit:?}");
    // Searches are stopped 1 s before the 3 s grace period ends; then nothing is in flight and
    // the idle sockets must not hold the exit up to the end of the grace period.
    assert!(took < Duration::from_millis(2_900), "exit took {took:?}");
}
