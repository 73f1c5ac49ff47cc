//! Bad input: each case asserts the gRPC code and that the message names the problem, then that
//! the same server still answers a good request.
#![allow(
    clippy::unnecessary_wraps,
    reason = "helpers build optional proto fields"
)]

mod common;

use common::{assert_status, assert_still_serving, position, start, start_of, start_with};
use tonic::Code;
use variant_service::{Config, proto as pb};

async fn legal_moves_error(position: pb::Position) -> (tonic::Status, common::TestServer) {
    let mut s = start().await;
    let status = s
        .client
        .legal_moves(pb::LegalMovesRequest {
            position: Some(position),
            ..Default::default()
        })
        .await
        .expect_err("must be rejected");
    (status, s)
}

#[tokio::test]
async fn unknown_variant_is_invalid_argument_naming_it() {
    let (status, mut s) = legal_moves_error(position("grand-wizard", "", &[])).await;
    assert_status(
        &status,
        Code::InvalidArgument,
        &["unknown variant", "grand-wizard", "chess"],
    );
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn missing_position_is_invalid_argument() {
    let mut s = start().await;
    let status = s
        .client
        .legal_moves(pb::LegalMovesRequest {
            position: None,
            ..Default::default()
        })
        .await
        .expect_err("must be rejected");
    assert_status(&status, Code::InvalidArgument, &["position is required"]);
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn unknown_move_detail_is_invalid_argument_naming_it() {
    let mut s = start().await;
    let status = s
        .client
        .legal_moves(pb::LegalMovesRequest {
            position: start_of("chess"),
            detail: 9,
        })
        .await
        .expect_err("must be rejected");
    assert_status(
        &status,
        Code::InvalidArgument,
        &["detail = 9", "MoveDetail"],
    );
    assert_still_serving(&mut s.client).await;
}

/// Malformed FENs of several kinds, each with the text its error must mention.
const BAD_FENS: &[(&str, &str, &str)] = &[
    (
        "wrong rank count",
        "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "rank",
    ),
    (
        "bad piece letter",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w - - 0 1",
        "X",
    ),
    (
        "bad side to move",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x - - 0 1",
        "x",
    ),
    ("garbage", "hello world", "FEN"),
];

#[tokio::test]
async fn malformed_fens_are_invalid_argument_naming_the_problem() {
    let mut s = start().await;
    for (kind, fen, needle) in BAD_FENS {
        let status = s
            .client
            .legal_moves(pb::LegalMovesRequest {
                position: Some(position("chess", fen, &[])),
                ..Default::default()
            })
            .await
            .expect_err(kind);
        assert_status(&status, Code::InvalidArgument, &["FEN", needle]);
    }
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn illegal_move_is_invalid_argument_naming_the_move() {
    let mut s = start().await;
    let status = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            position: start_of("chess"),
            r#move: "e2e5".into(),
        })
        .await
        .expect_err("illegal");
    assert_status(&status, Code::InvalidArgument, &["illegal", "e2e5"]);
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn unparsable_move_is_invalid_argument_naming_the_text() {
    let mut s = start().await;
    let status = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            position: start_of("chess"),
            r#move: "zz9!".into(),
        })
        .await
        .expect_err("unparsable");
    assert_status(&status, Code::InvalidArgument, &["unparsable", "zz9!"]);
    let status = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            position: start_of("chess"),
            r#move: String::new(),
        })
        .await
        .expect_err("empty");
    assert_status(&status, Code::InvalidArgument, &["empty move"]);
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn a_moves_list_failing_at_index_k_names_k_and_the_move() {
    let (status, mut s) = legal_moves_error(position("chess", "", &["e2e4", "e7e5", "e2e4"])).await;
    assert_status(&status, Code::InvalidArgument, &["moves[2]", "e2e4"]);
    let (status, _) = legal_moves_error(position("chess", "", &["e2e4", "???"])).await;
    assert_status(&status, Code::InvalidArgument, &["moves[1]", "???"]);
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn too_many_moves_is_invalid_argument_naming_the_limit() {
    let moves: Vec<&str> = ["g1f3", "g8f6", "f3g1", "f6g8"]
        .iter()
        .copied()
        .cycle()
        .take(1001)
        .collect();
    let (status, mut s) = legal_moves_error(position("chess", "", &moves)).await;
    assert_status(&status, Code::InvalidArgument, &["1001", "1000"]);
    assert_still_serving(&mut s.client).await;
}

fn limits_with(f: impl FnOnce(&mut pb::Limits)) -> Option<pb::Limits> {
    let mut limits = pb::Limits::default();
    f(&mut limits);
    Some(limits)
}

#[tokio::test]
async fn out_of_range_limits_name_field_value_and_range() {
    let mut s = start().await;
    let config = Config::default();
    let cases = [
        (
            limits_with(|l| l.depth = config.max_depth + 1),
            "limits.depth",
            config.max_depth + 1,
        ),
        (
            limits_with(|l| l.movetime_ms = config.max_movetime_ms + 1),
            "limits.movetime_ms",
            config.max_movetime_ms + 1,
        ),
        (
            limits_with(|l| l.threads = config.max_threads + 1),
            "limits.threads",
            config.max_threads + 1,
        ),
        (
            limits_with(|l| l.multipv = config.max_multipv + 1),
            "limits.multipv",
            config.max_multipv + 1,
        ),
        (
            limits_with(|l| l.skill_level = Some(21)),
            "limits.skill_level",
            21,
        ),
    ];
    for (limits, field, value) in cases {
        let status = s
            .client
            .best_move(pb::BestMoveRequest {
                position: start_of("chess"),
                limits,
            })
            .await
            .expect_err(field);
        assert_status(
            &status,
            Code::InvalidArgument,
            &[field, &value.to_string(), "allowed"],
        );
    }
    // Nodes is a u64 field: checked separately for its type.
    let nodes = config.max_nodes + 1;
    let status = s
        .client
        .analyze(pb::AnalyzeRequest {
            position: start_of("chess"),
            limits: limits_with(|l| l.nodes = nodes),
        })
        .await
        .expect_err("nodes");
    assert_status(
        &status,
        Code::InvalidArgument,
        &["limits.nodes", &nodes.to_string(), "allowed"],
    );
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn perft_depth_out_of_range_is_invalid_argument() {
    let mut s = start().await;
    let too_deep = Config::default().max_perft_depth + 1;
    for depth in [0, too_deep] {
        let status = s
            .client
            .perft(pb::PerftRequest {
                position: start_of("chess"),
                depth,
                split: false,
            })
            .await
            .expect_err("perft depth");
        assert_status(
            &status,
            Code::InvalidArgument,
            &["depth", &depth.to_string(), "allowed 1..="],
        );
    }
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn an_oversized_request_is_rejected() {
    let mut s = start_with(Config {
        max_message_bytes: 4096,
        ..Config::default()
    })
    .await;
    let huge_fen = "x".repeat(10_000);
    let status = s
        .client
        .legal_moves(pb::LegalMovesRequest {
            position: Some(position("chess", &huge_fen, &[])),
            ..Default::default()
        })
        .await
        .expect_err("too large");
    // tonic reports an over-limit message as OUT_OF_RANGE; accept its neighbours too.
    assert!(
        matches!(
            status.code(),
            Code::OutOfRange | Code::ResourceExhausted | Code::InvalidArgument
        ),
        "{status:?}"
    );
    assert!(status.message().contains("4096"), "{status:?}");
    assert_still_serving(&mut s.client).await;
}

#[tokio::test]
async fn apply_move_beyond_the_moves_cap_is_invalid_argument() {
    let mut s = start_with(Config {
        max_moves: 4,
        ..Config::default()
    })
    .await;
    let status = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            position: Some(position("chess", "", &["g1f3", "g8f6", "f3g1", "f6g8"])),
            r#move: "e2e4".into(),
        })
        .await
        .expect_err("a fifth move exceeds the cap");
    assert_status(&status, Code::InvalidArgument, &["5 moves", "maximum 4"]);
    assert_still_serving(&mut s.client).await;
}

/// The `ErrorInfo` reason and the `BadRequest` field of a refused call.
fn reason_and_field(status: &tonic::Status) -> (String, Option<String>) {
    use tonic_types::StatusExt as _;
    let details = status.get_error_details();
    let info = details.error_info().expect("ErrorInfo");
    assert_eq!(info.domain, "chessvariants.engine.v1");
    let field = details
        .bad_request()
        .and_then(|b| b.field_violations.first())
        .map(|v| v.field.clone());
    (info.reason.clone(), field)
}

#[tokio::test]
async fn refusals_carry_a_reason_and_the_field_as_error_details() {
    let mut s = start().await;
    let apply = |position: pb::Position, m: &str| pb::ApplyMoveRequest {
        position: Some(position),
        r#move: m.into(),
    };
    // Fool's mate: the game is over.
    let mated = position("chess", "", &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let cases = [
        (
            apply(position("xiangqi", "", &[]), "e2e4"),
            "UNKNOWN_VARIANT",
            "position.variant",
        ),
        (
            apply(position("chess", "hello world", &[]), "e2e4"),
            "INVALID_FEN",
            "position.fen",
        ),
        (
            apply(position("chess", "", &[]), "zz9!"),
            "UNPARSABLE_MOVE",
            "move",
        ),
        (
            apply(position("chess", "", &[]), "e2e5"),
            "ILLEGAL_MOVE",
            "move",
        ),
        (
            apply(position("chess", "", &["e2e4", "e2e4"]), "e7e5"),
            "ILLEGAL_MOVE",
            "position.moves[1]",
        ),
        (apply(mated.clone(), "a2a3"), "GAME_OVER", "move"),
        (
            apply(
                position("chess", "", &["f2f3", "e7e5", "g2g4", "d8h4", "a2a3"]),
                "a7a6",
            ),
            "GAME_OVER",
            "position.moves[4]",
        ),
    ];
    for (request, reason, field) in cases {
        let status = s.client.apply_move(request).await.expect_err(reason);
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert_eq!(
            reason_and_field(&status),
            (reason.to_owned(), Some(field.to_owned())),
            "{}",
            status.message()
        );
        if reason == "GAME_OVER" {
            assert!(
                status.message().contains("checkmate"),
                "{}",
                status.message()
            );
        }
    }
    let status = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            position: None,
            r#move: "e2e4".into(),
        })
        .await
        .expect_err("no position");
    assert_eq!(
        reason_and_field(&status),
        ("MISSING_FIELD".into(), Some("position".into()))
    );
    let status = s
        .client
        .best_move(pb::BestMoveRequest {
            position: start_of("chess"),
            limits: Some(pb::Limits {
                depth: 999,
                ..Default::default()
            }),
        })
        .await
        .expect_err("too deep");
    assert_eq!(
        reason_and_field(&status),
        ("LIMIT_OUT_OF_RANGE".into(), Some("limits.depth".into()))
    );
    let status = s
        .client
        .perft(pb::PerftRequest {
            position: start_of("chess"),
            depth: 0,
            split: false,
        })
        .await
        .expect_err("depth 0");
    assert_eq!(
        reason_and_field(&status),
        ("LIMIT_OUT_OF_RANGE".into(), Some("depth".into()))
    );
    assert_still_serving(&mut s.client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_search_carries_search_busy_and_retry_info() {
    use tonic_types::StatusExt as _;
    let mut s = start_with(Config {
        max_searches: std::num::NonZeroUsize::new(1),
        search_queue: 0,
        hash_mb: 1,
        ..Config::default()
    })
    .await;
    let mut hold = s
        .client
        .analyze(pb::AnalyzeRequest {
            position: start_of("chess"),
            limits: Some(pb::Limits {
                movetime_ms: 10_000,
                ..Default::default()
            }),
        })
        .await
        .expect("admitted")
        .into_inner();
    hold.message().await.expect("an update");
    let status = s
        .client
        .best_move(pb::BestMoveRequest {
            position: start_of("chess"),
            limits: None,
        })
        .await
        .expect_err("busy");
    assert_eq!(status.code(), Code::ResourceExhausted);
    let details = status.get_error_details();
    assert_eq!(
        details.error_info().map(|i| i.reason.as_str()),
        Some("SEARCH_BUSY")
    );
    let retry = details
        .retry_info()
        .and_then(|r| r.retry_delay)
        .expect("RetryInfo");
    let trailer: u64 = status
        .metadata()
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("retry-after-ms");
    assert_eq!(retry.as_millis(), u128::from(trailer));
}
