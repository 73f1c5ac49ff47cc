//! Behaviour under load and fault (issue 7): overload refusal, deadline-capped searches,
//! cancellation freeing slots, cheap RPCs answering while every search slot is busy, and a
//! graceful SIGTERM of the real binary during load.
//!
//! Timings are logged (`--nocapture`), never asserted tightly: the machines are shared and noisy.
//! The only time bounds asserted are generous ones that a correct server meets by seconds.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::unnecessary_wraps,
    reason = "common helpers build optional proto fields"
)]

mod common;

use std::{
    process::Command,
    time::{Duration, Instant},
};

use common::{
    SMALL_POOL_SHORT_GRACE, chess_start_legal, pool_config, search, spawn_binary, start_of,
    start_with,
};
use tokio_stream::StreamExt as _;
use tonic::{Code, Request, transport::Channel};
use variant_service::proto::{self as pb, game_engine_client::GameEngineClient};

type Client = GameEngineClient<Channel>;

/// Starts a long streamed search and returns once it holds a slot (its first update arrived).
async fn hold_slot(client: &mut Client) -> tonic::Streaming<pb::AnalyzeResponse> {
    let pb::BestMoveRequest { position, limits } = search(30_000);
    let mut stream = client
        .analyze(pb::AnalyzeRequest { position, limits })
        .await
        .expect("analyze admitted")
        .into_inner();
    stream.next().await.expect("an update").expect("ok update");
    stream
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_beyond_slots_and_queue_is_refused_and_the_rest_answer_legally() {
    const SLOTS: usize = 2;
    const QUEUE: usize = 2;
    const BURST: usize = 8;
    let mut s = start_with(pool_config(SLOTS, QUEUE)).await;
    let legal = chess_start_legal(&mut s.client).await;
    // 1 s searches: all of the burst arrives long before the first slot frees up.
    let calls = (0..BURST).map(|_| {
        let mut client = s.client.clone();
        tokio::spawn(async move { client.best_move(search(1_000)).await })
    });
    // Collect first: spawning lazily inside the loop below would send the burst one by one.
    let calls: Vec<_> = calls.collect();
    let mut answered = 0;
    let mut refused = 0;
    for call in calls {
        match call.await.expect("task") {
            Ok(response) => {
                let uci = response.into_inner().r#move.expect("a move").uci;
                assert!(legal.contains(&uci), "illegal best move {uci}");
                answered += 1;
            }
            Err(status) => {
                assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
                assert!(status.metadata().get("retry-after-ms").is_some());
                refused += 1;
            }
        }
    }
    eprintln!("burst of {BURST}: {answered} answered, {refused} refused");
    assert_eq!(answered + refused, BURST);
    assert!(answered >= SLOTS + QUEUE, "slots and queue are used");
    assert!(refused >= 1, "the excess is refused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_deadline_caps_a_long_search_which_answers_with_a_legal_move() {
    let mut s = start_with(pool_config(1, 1)).await;
    let legal = chess_start_legal(&mut s.client).await;
    let mut request = Request::new(search(10_000));
    request.set_timeout(Duration::from_millis(200));
    let started = Instant::now();
    let best = s
        .client
        .best_move(request)
        .await
        .expect("answered within the deadline")
        .into_inner();
    let elapsed = started.elapsed();
    eprintln!("200 ms deadline, 10 s movetime: answered in {elapsed:?}");
    let uci = best.r#move.expect("a move").uci;
    assert!(legal.contains(&uci), "illegal best move {uci}");
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_search_frees_its_slot_for_the_next_call() {
    // One slot: if the cancelled search kept it, the next call would wait in the queue until its
    // deadline and fail. Two queue places, because the last probe below may still be queued
    // for a moment after its client gave up (the server sees the reset a little later).
    let mut s = start_with(pool_config(1, 2)).await;
    let mut long_client = s.client.clone();
    let long = tokio::spawn(async move { long_client.best_move(search(30_000)).await });
    // Wait until the long search holds the slot: a quick probe with a short deadline is then
    // refused, as no slot frees up in time for it.
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let mut probe = Request::new(pb::BestMoveRequest {
                position: start_of("chess"),
                limits: Some(pb::Limits {
                    depth: 1,
                    ..Default::default()
                }),
            });
            probe.set_timeout(Duration::from_millis(100));
            if let Err(status) = s.client.best_move(probe).await {
                // Refused at admission; should the client's own timer fire first, CANCELLED.
                assert!(
                    matches!(status.code(), Code::ResourceExhausted | Code::Cancelled),
                    "{status:?}"
                );
                break;
            }
        }
    })
    .await
    .expect("the long search got the slot");

    long.abort(); // Drops the call: the HTTP/2 stream is reset, the server drops the request.
    let started = Instant::now();
    // The server sees the reset a moment later; then the search stops and its slot is free.
    tokio::time::timeout(Duration::from_secs(10), async {
        while !s.handle.pool().load().is_idle() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the cancelled search gave its slot back");
    let mut next = Request::new(pb::BestMoveRequest {
        position: start_of("chess"),
        limits: Some(pb::Limits {
            depth: 1,
            ..Default::default()
        }),
    });
    next.set_timeout(Duration::from_millis(1_500));
    let answer = s
        .client
        .best_move(next)
        .await
        .expect("admitted: the cancelled search freed the slot");
    eprintln!(
        "next call after cancellation answered in {:?}",
        started.elapsed()
    );
    assert!(answer.into_inner().r#move.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_moves_answers_while_every_search_slot_is_busy() {
    let mut s = start_with(pool_config(2, 2)).await;
    // Both slots busy with long searches, plus a full queue behind them.
    let _a = hold_slot(&mut s.client).await;
    let _b = hold_slot(&mut s.client).await;
    let queued: Vec<_> = (0..2)
        .map(|_| {
            let mut client = s.client.clone();
            tokio::spawn(async move { client.best_move(search(500)).await })
        })
        .collect();
    let mut latencies = Vec::new();
    for _ in 0..50 {
        let started = Instant::now();
        let moves = s
            .client
            .legal_moves(pb::LegalMovesRequest {
                position: start_of("chess"),
                ..Default::default()
            })
            .await
            .expect("LegalMoves never waits behind searches")
            .into_inner()
            .moves;
        latencies.push(started.elapsed());
        assert_eq!(moves.len(), 20);
    }
    latencies.sort();
    eprintln!(
        "LegalMoves with all slots busy: p50 {:?}, max {:?}",
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1]
    );
    for call in queued {
        call.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_load_answers_every_accepted_call_and_exits_zero() {
    let (mut child, _port, mut client) = spawn_binary(SMALL_POOL_SHORT_GRACE).await;
    let legal = chess_start_legal(&mut client).await;

    // Searches: two that end on their own (one waits in the queue) and one far longer than the
    // grace period, which the drain must stop early so that it still answers.
    let searches: Vec<_> = [800, 800, 20_000]
        .into_iter()
        .map(|movetime| {
            let mut client = client.clone();
            tokio::spawn(async move {
                let mut request = Request::new(search(movetime));
                request.set_timeout(Duration::from_secs(30));
                client.best_move(request).await
            })
        })
        .collect();
    // Cheap calls keep coming before and after the signal.
    let signalled = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cheap: Vec<_> = (0..2)
        .map(|_| {
            let mut client = client.clone();
            let signalled = std::sync::Arc::clone(&signalled);
            tokio::spawn(async move {
                let mut outcomes = Vec::new();
                for _ in 0..2_000 {
                    let after_signal = signalled.load(std::sync::atomic::Ordering::Relaxed);
                    let result = client
                        .legal_moves(pb::LegalMovesRequest {
                            position: start_of("chess"),
                            ..Default::default()
                        })
                        .await;
                    let failed = result.is_err();
                    outcomes.push((after_signal, result.map(|r| r.into_inner().moves.len())));
                    if failed {
                        break; // Refused: the server stopped accepting.
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                outcomes
            })
        })
        .collect();

    tokio::time::sleep(Duration::from_millis(400)).await;
    let sent = Instant::now();
    // Flag first: a call that saw the flag unset was sent before `kill` even started.
    signalled.store(true, std::sync::atomic::Ordering::Relaxed);
    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());

    for (i, search) in searches.into_iter().enumerate() {
        let answer = search
            .await
            .expect("task")
            .unwrap_or_else(|s| panic!("search {i} was accepted but got {s:?}"));
        let uci = answer.into_inner().r#move.expect("a move").uci;
        assert!(legal.contains(&uci), "illegal best move {uci}");
    }
    let mut ok_before = 0;
    let mut ok_after = 0;
    for task in cheap {
        for (after_signal, outcome) in task.await.expect("task") {
            match outcome {
                Ok(count) => {
                    assert_eq!(count, 20);
                    if after_signal {
                        ok_after += 1;
                    } else {
                        ok_before += 1;
                    }
                }
                // Only calls made after the signal may fail, and only by being refused: the
                // server's GOAWAY closes the connection to new streams (CANCELLED "connection
                // closed" or UNAVAILABLE when the client tries to reconnect).
                Err(status) => {
                    assert!(after_signal, "a call before SIGTERM failed: {status:?}");
                    assert!(
                        matches!(status.code(), Code::Unavailable | Code::Cancelled),
                        "{status:?}"
                    );
                }
            }
        }
    }
    let exit = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            if let Some(exit) = child.0.try_wait().expect("wait") {
                break exit;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server exits after draining");
    eprintln!(
        "SIGTERM: LegalMoves OK {ok_before} before / {ok_after} after; exited {exit:?} {:?} after the signal",
        sent.elapsed()
    );
    assert!(exit.success(), "exit status {exit:?}");
}

/// The load generator against a real server: every `LegalMoves` answer is read and checked,
/// by both ways of reading (`--decode lean|full`), for both details, and none is wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loadgen_checks_every_legal_moves_answer() {
    use clap::Parser as _;
    let server = common::start().await;
    for (decode, detail) in [
        ("lean", "full"),
        ("full", "full"),
        ("lean", "uci"),
        ("full", "uci"),
    ] {
        let cli = variant_service::Cli::parse_from([
            "variant-service",
            "loadgen",
            "--target",
            &server.handle.url(),
            "--rpc",
            "legal_moves",
            "--decode",
            decode,
            "--legal-detail",
            detail,
            "--variants",
            "chess,orphic",
            "--walk-plies",
            "4",
            "--concurrency",
            "4",
            "--duration",
            "30",
            "--max-requests",
            "200",
            "--seed",
            "3",
        ]);
        let Some(variant_service::Command::Loadgen(args)) = cli.command else {
            panic!("not a loadgen command");
        };
        let summary = variant_service::loadgen::run(&args)
            .await
            .expect("loadgen runs");
        let legal = &summary.json["per_rpc"]["legal_moves"];
        eprintln!("{decode}/{detail}: {}", summary.text);
        assert_eq!(
            legal["codes"]["OK"], 200,
            "{decode}/{detail}: {}",
            summary.text
        );
        assert_eq!(legal["legal_moves_answers"], 200, "{decode}/{detail}");
        assert_eq!(legal["legal_moves_wrong"], 0, "{decode}/{detail}");
    }
}
