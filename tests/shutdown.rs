//! Shutdown: an in-process server drains an in-flight search, and the real binary, sent
//! SIGTERM under load, answers every call it accepted and exits 0.
//!
//! Timings are logged (`--nocapture`), never asserted tightly: the machines are shared and noisy.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::{
    process::Command,
    time::{Duration, Instant},
};

use common::{SMALL_POOL_SHORT_GRACE, legal_uci, search_for, spawn_binary, start, start_of};
use tonic::{Code, Request};
use variant_service::proto as pb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_an_in_flight_search_finish() {
    let s = start().await;
    let mut client = s.client.clone();
    let search = tokio::spawn(async move {
        client
            .best_move(pb::BestMoveRequest {
                position: start_of("chess"),
                limits: Some(pb::Limits {
                    movetime_ms: 1_500,
                    ..Default::default()
                }),
            })
            .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let shutdown = tokio::spawn(s.handle.shutdown());
    let answer = search.await.expect("task").expect("drained, not cut off");
    assert!(answer.into_inner().r#move.is_some());
    tokio::time::timeout(Duration::from_secs(10), shutdown)
        .await
        .expect("drained in time")
        .expect("task")
        .expect("clean shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_load_answers_every_accepted_call_and_exits_zero() {
    let (mut child, _port, mut client) = spawn_binary(SMALL_POOL_SHORT_GRACE).await;
    let legal = legal_uci(&mut client, start_of("chess")).await;

    // Searches: two that end on their own (one waits in the queue) and one far longer than the
    // grace period, which the drain must stop early so that it still answers.
    let searches: Vec<_> = [800, 800, 20_000]
        .into_iter()
        .map(|movetime| {
            let mut client = client.clone();
            tokio::spawn(async move {
                let mut request = Request::new(search_for(movetime));
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
                    outcomes.push((after_signal, result.map(|r| r.into_inner().moves().len())));
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
    let mut refused = Vec::new();
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
                // closed", UNAVAILABLE when the client tries to reconnect, or the GOAWAY itself
                // when the stream was opened above the server's last accepted stream id).
                Err(status) => {
                    assert!(after_signal, "a call before SIGTERM failed: {status:?}");
                    assert!(
                        matches!(status.code(), Code::Unavailable | Code::Cancelled)
                            || refused_by_goaway(&status),
                        "{status:?}"
                    );
                    refused.push(status.code());
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
        "SIGTERM: LegalMoves OK {ok_before} before / {ok_after} after, refused {refused:?}; exited {exit:?} {:?} after the signal",
        sent.elapsed()
    );
    assert!(exit.success(), "exit status {exit:?}");
}

/// Whether a failed call was refused by the server's graceful GOAWAY (reason `NO_ERROR`), which
/// HTTP/2 sends for streams the server never handed to the service. Any other transport error,
/// such as a reset of an accepted stream, is not a refusal.
fn refused_by_goaway(status: &tonic::Status) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(status);
    while let Some(error) = source {
        if let Some(h2) = error.downcast_ref::<h2::Error>() {
            return h2.is_go_away() && h2.reason() == Some(h2::Reason::NO_ERROR);
        }
        source = error.source();
    }
    false
}
