//! The search slots under load: refusal beyond the slots and the queue, deadline-capped
//! searches, cancellation freeing a slot, and cheap RPCs answering while every slot is busy.
//!
//! Timings are logged (`--nocapture`), never asserted tightly: the machines are shared and noisy.
//! The only time bounds asserted are generous ones that a correct server meets by seconds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{depth, hold_slot, legal_moves, legal_uci, search_for, slots, start_of, start_with};
use tokio_stream::StreamExt as _;
use tonic::{Code, Request, transport::Channel};
use variant_service::proto::{
    self as pb, analyze_response::Update, game_engine_client::GameEngineClient,
};

type Client = GameEngineClient<Channel>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_beyond_slots_and_queue_is_refused_with_a_retry_hint_and_the_rest_answer_legally() {
    const SLOTS: usize = 2;
    const QUEUE: usize = 2;
    const BURST: usize = 8;
    let mut s = start_with(slots(SLOTS, QUEUE)).await;
    let legal = legal_uci(&mut s.client, start_of("chess")).await;
    // 1 s searches: all of the burst arrives long before the first slot frees up.
    let calls = (0..BURST).map(|_| {
        let mut client = s.client.clone();
        tokio::spawn(async move { client.best_move(search_for(1_000)).await })
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
                assert!(status.message().contains("busy"), "{}", status.message());
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
    let mut s = start_with(slots(1, 1)).await;
    let legal = legal_uci(&mut s.client, start_of("chess")).await;
    // Asks for a minute, but the client only waits half a second: the search must stop early
    // and answer.
    let mut request = Request::new(search_for(60_000));
    request.set_timeout(Duration::from_millis(500));
    let started = Instant::now();
    let best = s
        .client
        .best_move(request)
        .await
        .expect("answered within the deadline")
        .into_inner();
    let elapsed = started.elapsed();
    eprintln!("500 ms deadline, 60 s movetime: answered in {elapsed:?}");
    assert!(best.time_ms < 2_000, "{}", best.time_ms);
    assert_eq!(best.stop_reason(), pb::StopReason::Time);
    let uci = best.r#move.expect("a move").uci;
    assert!(legal.contains(&uci), "illegal best move {uci}");
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_search_frees_its_slot_for_the_next_call() {
    // One slot: if the cancelled search kept it, the next call would wait in the queue until its
    // deadline and fail. Two queue places, because the last probe below may still be queued
    // for a moment after its client gave up (the server sees the reset a little later).
    let mut s = start_with(slots(1, 2)).await;
    let mut long_client = s.client.clone();
    let long = tokio::spawn(async move { long_client.best_move(search_for(30_000)).await });
    // Wait until the long search holds the slot: a quick probe with a short deadline is then
    // refused, as no slot frees up in time for it.
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let mut probe = Request::new(pb::BestMoveRequest {
                position: start_of("chess"),
                limits: depth(1),
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
        limits: depth(1),
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

/// Retries a quick search until the only slot is free again (10 s at most).
async fn wait_for_free_slot(client: &mut Client) -> pb::BestMoveResponse {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let quick = pb::BestMoveRequest {
                position: start_of("chess"),
                limits: depth(1),
            };
            match client.best_move(quick).await {
                Ok(r) => break r.into_inner(),
                Err(status) => {
                    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    })
    .await
    .expect("the slot is freed long before the 30 s search would end")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_an_analyze_stream_stops_its_search() {
    let mut s = start_with(slots(1, 0)).await;
    let pb::BestMoveRequest { position, limits } = search_for(30_000);
    let mut stream = s
        .client
        .analyze(pb::AnalyzeRequest { position, limits })
        .await
        .expect("analyze")
        .into_inner();
    let first = stream.next().await.expect("an update").expect("ok");
    assert!(matches!(first.update, Some(Update::Info(_))), "{first:?}");
    drop(stream);
    assert!(wait_for_free_slot(&mut s.client).await.r#move.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_moves_answers_while_every_search_slot_is_busy() {
    let mut s = start_with(slots(2, 2)).await;
    // Both slots busy with long searches, plus a full queue behind them.
    let _a = hold_slot(&mut s.client).await;
    let _b = hold_slot(&mut s.client).await;
    let queued: Vec<_> = (0..2)
        .map(|_| {
            let mut client = s.client.clone();
            tokio::spawn(async move { client.best_move(search_for(500)).await })
        })
        .collect();
    let mut latencies = Vec::new();
    for _ in 0..50 {
        let started = Instant::now();
        // LegalMoves never waits behind the searches.
        let moves = legal_moves(&mut s.client, start_of("chess"))
            .await
            .into_moves();
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
