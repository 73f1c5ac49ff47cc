//! End-to-end tests of every RPC against an in-process server (`127.0.0.1:0`) with the generated
//! tonic client. Variants are taken from `ListVariants`, never hard-coded. The search slots under
//! load are tested in `search_slots.rs`, shutdown in `shutdown.rs`.
#![allow(
    clippy::unnecessary_wraps,
    reason = "helpers build optional proto fields"
)]

mod common;

use std::{collections::HashSet, time::Duration};

use common::{depth, legal_moves, legal_uci, position, start, start_of};
use tokio_stream::StreamExt as _;
use variant_service::proto::{self as pb, analyze_response::Update};

async fn listed_variants(
    client: &mut pb::game_engine_client::GameEngineClient<tonic::transport::Channel>,
) -> Vec<pb::Variant> {
    client
        .list_variants(pb::ListVariantsRequest {})
        .await
        .expect("list variants")
        .into_inner()
        .variants
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_answers_for_every_listed_variant() {
    let mut s = start().await;
    let variants = listed_variants(&mut s.client).await;
    assert!(variants.iter().any(|v| v.name == "chess"), "{variants:?}");
    for v in variants {
        let name = v.name.as_str();
        assert!(
            v.files > 0 && v.ranks > 0 && !v.start_fen.is_empty(),
            "{v:?}"
        );
        assert!(!v.pieces.is_empty() && !v.summary.is_empty(), "{v:?}");

        // LegalMoves: the start position is ongoing and has moves.
        let legal = s
            .client
            .legal_moves(pb::LegalMovesRequest {
                position: start_of(name),
                ..Default::default()
            })
            .await
            .expect("legal moves")
            .into_inner();
        assert!(!legal.moves().is_empty(), "{name}: no moves at the start");
        assert!(legal.status().expect("status").ongoing, "{name}");
        assert!(!legal.fen().is_empty());

        // The same position given by its explicit start FEN gives the same moves.
        let from_fen = legal_uci(&mut s.client, Some(position(name, &v.start_fen, &[]))).await;
        let from_start: HashSet<_> = legal.moves().iter().map(|m| m.uci.clone()).collect();
        assert_eq!(from_fen, from_start, "{name}");

        // ApplyMove: play the first legal move; the position echoes it.
        let first = legal.moves()[0].clone();
        let applied = s
            .client
            .apply_move(pb::ApplyMoveRequest {
                position: start_of(name),
                r#move: first.uci.clone(),
            })
            .await
            .expect("apply move")
            .into_inner();
        let new_position = applied.position.expect("position");
        assert_eq!(new_position.moves, vec![first.uci.clone()], "{name}");
        assert_eq!(new_position.variant, name);
        assert_eq!(applied.r#move.expect("move").uci, first.uci);
        assert_ne!(applied.fen, legal.fen(), "{name}: the FEN must change");

        // BestMove at small depth returns a legal move.
        let best = s
            .client
            .best_move(pb::BestMoveRequest {
                position: start_of(name),
                limits: depth(2),
            })
            .await
            .expect("best move")
            .into_inner();
        let best_uci = best.r#move.expect("a best move").uci;
        assert!(
            from_start.contains(&best_uci),
            "{name}: {best_uci} is not legal"
        );
        assert_eq!(
            best.pv.first(),
            Some(&best_uci),
            "{name}: pv starts with the move"
        );

        // Analyze: at least one update, the final result last.
        let updates = analyze(&mut s.client, start_of(name), depth(2)).await;
        assert!(updates.len() >= 2, "{name}: {updates:?}");
        assert!(matches!(updates.last(), Some(Update::Result(_))), "{name}");

        // Perft: depth 1 = number of legal moves; the split adds up.
        let perft = s
            .client
            .perft(pb::PerftRequest {
                position: start_of(name),
                depth: 2,
                split: true,
            })
            .await
            .expect("perft")
            .into_inner();
        assert_eq!(perft.moves.len(), legal.moves().len(), "{name}");
        assert_eq!(
            perft.moves.iter().map(|m| m.nodes).sum::<u64>(),
            perft.nodes
        );
        let perft1 = s
            .client
            .perft(pb::PerftRequest {
                position: start_of(name),
                depth: 1,
                split: false,
            })
            .await
            .expect("perft 1")
            .into_inner();
        assert_eq!(perft1.nodes, legal.moves().len() as u64, "{name}");
        assert!(perft1.moves.is_empty(), "no split unless asked for");
    }
}

/// Collects an Analyze stream.
async fn analyze(
    client: &mut pb::game_engine_client::GameEngineClient<tonic::transport::Channel>,
    position: Option<pb::Position>,
    limits: Option<pb::Limits>,
) -> Vec<Update> {
    let mut stream = client
        .analyze(pb::AnalyzeRequest { position, limits })
        .await
        .expect("analyze")
        .into_inner();
    let mut updates = Vec::new();
    while let Some(message) = stream.next().await {
        updates.push(message.expect("stream item").update.expect("update set"));
    }
    updates
}

/// A game that ends, played move by move through `ApplyMove` and also sent as one moves list.
/// Add a line here for each variant-specific ending (e.g. a Decima ten-point win).
struct FinishedGame {
    variant: &'static str,
    fen: &'static str,
    moves: &'static [&'static str],
    result: pb::GameResult,
    reason: pb::Termination,
}

const FINISHED_GAMES: &[FinishedGame] = &[
    // Fool's mate.
    FinishedGame {
        variant: "chess",
        fen: "",
        moves: &["f2f3", "e7e5", "g2g4", "d8h4"],
        result: pb::GameResult::BlackWins,
        reason: pb::Termination::Checkmate,
    },
    // Knights out and back twice: the start position occurs for the third time.
    FinishedGame {
        variant: "chess",
        fen: "",
        moves: &[
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
        ],
        result: pb::GameResult::Draw,
        reason: pb::Termination::ThreefoldRepetition,
    },
    // Decima: Nb8-a10 brings White to 9 + 1 (queen b10) = 10 points; Black cannot capture on
    // rank 10 to answer the "check" and loses.
    FinishedGame {
        variant: "decima",
        fen: "1Q8/10/1N8/10/10/4k5/10/10/10/10 w - - 0 1",
        moves: &["b8a10"],
        result: pb::GameResult::WhiteWins,
        reason: pb::Termination::DecimaCheckUnanswered,
    },
    // Decima: White starts its turn with 10 points on its tenth rank (hand-made position; in
    // play the opponent's unanswered "check" ends the game first).
    FinishedGame {
        variant: "decima",
        fen: "NQ8/10/10/10/10/4k5/10/10/10/10 w - - 0 1",
        moves: &[],
        result: pb::GameResult::WhiteWins,
        reason: pb::Termination::DecimaTenPoints,
    },
];

#[tokio::test]
async fn games_end_with_the_right_result_and_reason() {
    let mut s = start().await;
    for game in FINISHED_GAMES {
        let mut current = position(game.variant, game.fen, &[]);
        for (i, text) in game.moves.iter().enumerate() {
            let status = legal_moves(&mut s.client, Some(current.clone()))
                .await
                .status()
                .copied()
                .expect("status");
            assert!(status.ongoing, "{}: finished before move {i}", game.variant);
            let applied = s
                .client
                .apply_move(pb::ApplyMoveRequest {
                    position: Some(current),
                    r#move: (*text).to_owned(),
                })
                .await
                .expect("apply move")
                .into_inner();
            current = applied.position.expect("position");
            let status = applied.status.expect("status");
            if i + 1 == game.moves.len() {
                assert!(!status.ongoing, "{}: game should be over", game.variant);
                assert_eq!(status.result(), game.result);
                assert_eq!(status.reason(), game.reason);
            }
        }
        // The same game as one moves list.
        let listed = s
            .client
            .legal_moves(pb::LegalMovesRequest {
                position: Some(position(game.variant, game.fen, game.moves)),
                ..Default::default()
            })
            .await
            .expect("legal moves")
            .into_inner()
            .status()
            .copied()
            .expect("status");
        assert_eq!(
            (listed.ongoing, listed.result(), listed.reason()),
            (false, game.result, game.reason)
        );
    }
}

#[tokio::test]
async fn checkmated_side_is_in_check_and_has_no_moves() {
    let mut s = start().await;
    let response = s
        .client
        .legal_moves(pb::LegalMovesRequest {
            position: Some(position("chess", "", FINISHED_GAMES[0].moves)),
            ..Default::default()
        })
        .await
        .expect("legal moves")
        .into_inner();
    assert!(response.moves().is_empty());
    assert!(response.status().expect("status").in_check);
}

#[tokio::test]
async fn apply_move_accepts_san_and_returns_uci() {
    let mut s = start().await;
    let applied = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            // The replayed list is normalised too: SAN and text already normal alike.
            position: Some(position("chess", "", &["e4", "c7c5", "Nf3"])),
            r#move: "Nf6".into(),
        })
        .await
        .expect("SAN move")
        .into_inner();
    let m = applied.r#move.expect("move");
    assert_eq!(
        (m.uci.as_str(), m.from.as_str(), m.to.as_str()),
        ("g8f6", "g8", "f6")
    );
    assert_eq!(
        applied.position.expect("position").moves,
        vec!["e2e4", "c7c5", "g1f3", "g8f6"]
    );
}

#[tokio::test]
async fn best_move_is_legal_according_to_legal_moves() {
    let mut s = start().await;
    let pos = position("chess", "", &["e2e4", "e7e5"]);
    let best = s
        .client
        .best_move(pb::BestMoveRequest {
            position: Some(pos.clone()),
            limits: depth(3),
        })
        .await
        .expect("best move")
        .into_inner();
    let legal = legal_uci(&mut s.client, Some(pos)).await;
    let m = best.r#move.expect("move");
    assert!(legal.contains(&m.uci), "{} not in {legal:?}", m.uci);
    assert_eq!(best.depth, 3);
    assert!(best.nodes > 0);
    assert!(best.score.is_some());
}

#[tokio::test]
async fn best_move_finds_mate_in_one() {
    let mut s = start().await;
    // Scholar's mate pattern: Qxf7#.
    let pos = position(
        "chess",
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        &[],
    );
    let best = s
        .client
        .best_move(pb::BestMoveRequest {
            position: Some(pos),
            limits: depth(2),
        })
        .await
        .expect("best move")
        .into_inner();
    assert_eq!(best.r#move.expect("move").uci, "h5f7");
    assert_eq!(
        best.score.and_then(|s| s.value),
        Some(pb::score::Value::Mate(1))
    );
}

#[tokio::test]
async fn analyze_streams_updates_then_the_final_result() {
    let mut s = start().await;
    let updates = analyze(&mut s.client, start_of("chess"), depth(3)).await;
    let (last, infos) = updates.split_last().expect("at least one message");
    assert!(!infos.is_empty(), "at least one update before the result");
    assert!(infos.iter().all(|u| matches!(u, Update::Info(_))));
    let Update::Result(result) = last else {
        panic!("last message must be the result: {last:?}")
    };
    assert!(result.r#move.is_some());
    let depths: Vec<u32> = infos
        .iter()
        .filter_map(|u| match u {
            Update::Info(line) => Some(line.depth),
            Update::Result(_) => None,
        })
        .collect();
    assert!(depths.windows(2).all(|w| w[0] < w[1]), "{depths:?}");
}

#[tokio::test]
async fn echo_returns_its_payload() {
    let mut s = start().await;
    let payload = b"floor".to_vec();
    let echoed = s
        .client
        .echo(pb::EchoRequest {
            payload: payload.clone(),
        })
        .await
        .expect("echo")
        .into_inner();
    assert_eq!(echoed.payload, payload);
}

#[tokio::test]
async fn health_is_serving_and_not_serving_while_draining() {
    let s = start().await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(s.channel.clone());
    for service in ["", "chessvariants.engine.v1.GameEngine"] {
        let status = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.into(),
            })
            .await
            .expect("health check")
            .into_inner()
            .status();
        assert_eq!(
            status,
            tonic_health::pb::health_check_response::ServingStatus::Serving,
            "{service:?}"
        );
    }
    assert!(
        variant_service::healthcheck::check(
            &variant_service::healthcheck::HealthcheckArgs::plaintext(s.handle.url())
        )
        .await
        .expect("reachable")
    );

    // A watcher sees NOT_SERVING as soon as the drain starts.
    let mut watch = health
        .watch(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("watch")
        .into_inner();
    let first = watch.next().await.expect("first").expect("ok").status();
    assert_eq!(
        first,
        tonic_health::pb::health_check_response::ServingStatus::Serving
    );
    let shutdown = tokio::spawn(s.handle.shutdown());
    let next = watch.next().await.expect("second").expect("ok").status();
    assert_eq!(
        next,
        tonic_health::pb::health_check_response::ServingStatus::NotServing
    );
    // The watch is the last in-flight call; ending it lets the drain finish.
    drop(watch);
    tokio::time::timeout(Duration::from_secs(10), shutdown)
        .await
        .expect("drained in time")
        .expect("task")
        .expect("clean shutdown");
}

#[tokio::test]
async fn reflection_lists_the_game_engine_service_v1_and_v1alpha() {
    use tonic_reflection::pb::{v1, v1alpha};
    let s = start().await;

    let mut client = v1::server_reflection_client::ServerReflectionClient::new(s.channel.clone());
    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut stream = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection v1")
        .into_inner();
    let response = stream.next().await.expect("one answer").expect("ok");
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        response.message_response
    else {
        panic!("unexpected answer {response:?}")
    };
    let names: Vec<_> = list.service.into_iter().map(|s| s.name).collect();
    assert!(
        names.contains(&"chessvariants.engine.v1.GameEngine".to_owned()),
        "{names:?}"
    );

    let mut client =
        v1alpha::server_reflection_client::ServerReflectionClient::new(s.channel.clone());
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    };
    let mut stream = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection v1alpha")
        .into_inner();
    let response = stream.next().await.expect("one answer").expect("ok");
    assert!(
        format!("{response:?}").contains("chessvariants.engine.v1.GameEngine"),
        "{response:?}"
    );
}

/// `MOVE_DETAIL_UCI` lists the same moves, in the same order, as text only; the FEN and status
/// are those of the full answer. Checked on every variant's start and a finished game.
#[tokio::test]
async fn text_only_detail_lists_the_same_moves() {
    let mut s = start().await;
    let variants = listed_variants(&mut s.client).await;
    let mut positions: Vec<_> = variants.iter().map(|v| start_of(&v.name)).collect();
    positions.push(Some(position("chess", "", FINISHED_GAMES[0].moves)));
    for position in positions {
        let ask = |detail: pb::MoveDetail| pb::LegalMovesRequest {
            position: position.clone(),
            detail: detail.into(),
        };
        let mut answers = Vec::new();
        for detail in [
            pb::MoveDetail::Unspecified,
            pb::MoveDetail::Full,
            pb::MoveDetail::Uci,
        ] {
            answers.push(
                s.client
                    .legal_moves(ask(detail))
                    .await
                    .expect("legal moves")
                    .into_inner(),
            );
        }
        let [default, full, texts] = &answers[..] else {
            unreachable!("three answers")
        };
        assert_eq!(default, full, "unspecified means full");
        assert!(full.uci_moves().is_empty() && texts.moves().is_empty());
        let listed: Vec<&str> = full.moves().iter().map(|m| m.uci.as_str()).collect();
        assert_eq!(texts.uci_moves(), listed, "{position:?}");
        assert_eq!((texts.fen(), texts.status()), (full.fen(), full.status()));
    }
}

#[tokio::test]
async fn drops_and_relocations_are_described() {
    let mut s = start().await;
    let legal = legal_moves(&mut s.client, start_of("orphic")).await;
    let drop = legal
        .moves()
        .iter()
        .find(|m| m.uci == "N@e4")
        .expect("a knight drop on an empty square");
    assert_eq!(
        (drop.drop.as_str(), drop.from.as_str(), drop.to.as_str()),
        ("N", "", "e4")
    );

    let applied = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            position: start_of("orphic"),
            r#move: "N@e3,c2".into(),
        })
        .await
        .expect("a drop onto a pawn with relocation")
        .into_inner();
    let m = applied.r#move.expect("move");
    assert_eq!(
        (m.drop.as_str(), m.to.as_str(), m.relocation.as_str()),
        ("N", "e3", "c2")
    );
    assert_eq!(applied.position.expect("position").moves, vec!["N@e3,c2"]);
}
