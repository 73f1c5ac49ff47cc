//! What game backends and AI-opponent platforms need from each call, end to end against an
//! in-process server: game end and draw claims, clocks, levels and seeds, root move
//! restriction, win/draw/loss chances, whole-game replay, FEN checks and very short deadlines.

mod common;

use std::time::Duration;

use common::{position, start, start_of};
use variant_service::proto::{self as pb};

type Client = pb::game_engine_client::GameEngineClient<tonic::transport::Channel>;

const SHUFFLE: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

fn shuffled(times: usize, draw_claims: bool) -> pb::Position {
    let moves: Vec<&str> = SHUFFLE.repeat(times);
    pb::Position {
        draw_claims,
        ..position("chess", "", &moves)
    }
}

async fn best(
    client: &mut Client,
    position: pb::Position,
    limits: pb::Limits,
) -> pb::BestMoveResponse {
    client
        .best_move(pb::BestMoveRequest {
            position: Some(position),
            limits: Some(limits),
        })
        .await
        .expect("best move")
        .into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_lists_no_moves_and_takes_none() {
    let mut s = start().await;
    for (pos, reason) in [
        (shuffled(2, false), pb::Termination::ThreefoldRepetition),
        (
            position("chess", "8/8/8/4k3/8/8/8/4K3 w - - 0 1", &[]),
            pb::Termination::InsufficientMaterial,
        ),
        (
            position("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 100 80", &[]),
            pb::Termination::FiftyMoveRule,
        ),
    ] {
        let legal = common::legal_moves(&mut s.client, Some(pos.clone())).await;
        let status = legal.status().expect("status");
        assert!(!status.ongoing && status.reason() == reason, "{status:?}");
        assert!(legal.moves().is_empty(), "{reason:?}: moves listed");
        let err = s
            .client
            .apply_move(pb::ApplyMoveRequest {
                position: Some(pos.clone()),
                r#move: "e1e2".into(),
            })
            .await
            .expect_err("a move after the end");
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(err.message().contains("game is over"), "{}", err.message());
        // BestMove answers at once with no move and the status.
        let answer = best(&mut s.client, pos, pb::Limits::default()).await;
        assert!(answer.r#move.is_none(), "{answer:?}");
        assert_eq!(answer.stop_reason(), pb::StopReason::NoMoves);
    }
    // A move list that runs past the end is refused, naming the index and the ending.
    let mut moves = SHUFFLE.repeat(2);
    moves.push("e2e4");
    let err = s
        .client
        .legal_moves(pb::LegalMovesRequest {
            position: Some(position("chess", "", &moves)),
            ..Default::default()
        })
        .await
        .expect_err("past the end");
    assert!(
        err.message().contains("position.moves[8]") && err.message().contains("threefold"),
        "{}",
        err.message()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_claims_make_repetition_claimable_until_the_fifth_time() {
    let mut s = start().await;
    let legal = common::legal_moves(&mut s.client, Some(shuffled(2, true))).await;
    let status = legal.status().expect("status");
    assert!(status.ongoing, "{status:?}");
    assert_eq!(
        status.claimable_draw(),
        pb::Termination::ThreefoldRepetition
    );
    assert!(!legal.moves().is_empty());
    let applied = s
        .client
        .apply_move(pb::ApplyMoveRequest {
            position: Some(shuffled(2, true)),
            r#move: "e4".into(),
        })
        .await
        .expect("the game goes on")
        .into_inner();
    assert!(applied.position.expect("position").draw_claims, "echoed");
    let fifth = common::legal_moves(&mut s.client, Some(shuffled(4, true))).await;
    let status = fifth.status().expect("status");
    assert_eq!(status.reason(), pb::Termination::FivefoldRepetition);
    assert!(fifth.moves().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_budgets_the_search_below_the_remaining_time() {
    let mut s = start().await;
    let clock = |ms| pb::Clock {
        white_ms: ms,
        black_ms: ms,
        white_increment_ms: 0,
        black_increment_ms: 0,
        moves_to_go: 0,
    };
    let limits = |ms| pb::Limits {
        clock: Some(clock(ms)),
        ..Default::default()
    };
    let short = best(
        &mut s.client,
        start_of("chess").expect("pos"),
        limits(1_000),
    )
    .await;
    assert!(short.r#move.is_some());
    // With a second on the clock, a move takes a small share of it.
    assert!(short.time_ms < 500, "{} ms of 1000", short.time_ms);
    let err = s
        .client
        .best_move(pb::BestMoveRequest {
            position: start_of("chess"),
            limits: Some(pb::Limits {
                clock: Some(clock(u64::MAX)),
                ..Default::default()
            }),
        })
        .await
        .expect_err("an absurd clock");
    assert!(
        err.message().contains("limits.clock.white_ms"),
        "{}",
        err.message()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn levels_and_seeds_vary_or_reproduce_the_moves() {
    let mut s = start().await;
    let play = |seed: Option<u64>| {
        let mut client = s.client.clone();
        async move {
            let mut moves: Vec<String> = Vec::new();
            for _ in 0..16 {
                let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
                let answer = best(
                    &mut client,
                    position("chess", "", &refs),
                    pb::Limits {
                        level: Some(2),
                        seed,
                        ..Default::default()
                    },
                )
                .await;
                let Some(m) = answer.r#move else {
                    // A weak, random game can end early (a quick mate); then the answer must
                    // say that the game is over.
                    let status = answer.status.expect("a status");
                    assert!(!status.ongoing, "no move in an ongoing game: {status:?}");
                    break;
                };
                moves.push(m.uci);
            }
            moves
        }
    };
    let (a, b) = (play(Some(7)).await, play(Some(7)).await);
    assert_eq!(a, b, "the same seed plays the same game");
    let (c, d) = (play(None).await, play(None).await);
    assert_ne!(c, d, "without a seed two games differ");
    let err = s
        .client
        .best_move(pb::BestMoveRequest {
            position: start_of("chess"),
            limits: Some(pb::Limits {
                level: Some(9),
                ..Default::default()
            }),
        })
        .await
        .expect_err("level 9");
    assert!(err.message().contains("limits.level"), "{}", err.message());
    // Every variant lists its eight levels, weakest first.
    let variants = s
        .client
        .list_variants(pb::ListVariantsRequest {})
        .await
        .expect("variants")
        .into_inner()
        .variants;
    for v in variants {
        let levels: Vec<u32> = v.levels.iter().map(|l| l.level).collect();
        assert_eq!(levels, (1..=8).collect::<Vec<_>>(), "{}", v.name);
        assert!(v.levels[0].max_nodes > 0 && v.levels[7].max_nodes == 0);
        // The measured ladder: level 8 at 0, every level below it weaker than the next, each
        // step from at least 100 games.
        assert_eq!((v.levels[7].elo, v.levels[7].games), (0, 0), "{}", v.name);
        for pair in v.levels.windows(2) {
            assert!(pair[0].elo < pair[1].elo, "{}: {:?}", v.name, v.levels);
            assert!(pair[0].games >= 100 && pair[0].elo_margin > 0, "{}", v.name);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_moves_restrict_the_root_and_bad_ones_are_named() {
    let mut s = start().await;
    let answer = best(
        &mut s.client,
        position("chess", "", &[]),
        pb::Limits {
            depth: 4,
            search_moves: vec!["a2a3".into(), "h2h3".into()],
            ..Default::default()
        },
    )
    .await;
    let played = answer.r#move.expect("a move").uci;
    assert!(played == "a2a3" || played == "h2h3", "{played}");
    let err = s
        .client
        .best_move(pb::BestMoveRequest {
            position: start_of("chess"),
            limits: Some(pb::Limits {
                depth: 2,
                search_moves: vec!["a2a3".into(), "e2e5".into()],
                ..Default::default()
            }),
        })
        .await
        .expect_err("an illegal root move");
    assert!(
        err.message().contains("limits.search_moves[1]"),
        "{}",
        err.message()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scores_carry_win_draw_loss_chances_that_add_up() {
    let mut s = start().await;
    // White is a queen up.
    let answer = best(
        &mut s.client,
        position("chess", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", &[]),
        pb::Limits {
            depth: 3,
            ..Default::default()
        },
    )
    .await;
    let wdl = answer
        .score
        .and_then(|sc| sc.wdl)
        .expect("chess has a fitted model");
    assert_eq!(wdl.win + wdl.draw + wdl.loss, 1000);
    assert!(wdl.win > 900, "{wdl:?}");
    for line in answer.lines {
        let w = line.score.and_then(|sc| sc.wdl).expect("every line");
        assert_eq!(w.win + w.draw + w.loss, 1000);
    }
}

/// A long game of legal moves from a seeded walk (the first legal move after a varying
/// offset), so that the test needs no engine-side helper.
async fn walk(client: &mut Client, variant: &str, plies: usize) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..plies {
        let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        let legal = common::legal_moves(client, Some(position(variant, "", &refs))).await;
        let list = legal.moves();
        if list.is_empty() {
            break;
        }
        moves.push(list[(ply * 7 + 3) % list.len()].uci.clone());
    }
    moves
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_game_matches_an_apply_move_loop() {
    let mut s = start().await;
    let moves = walk(&mut s.client, "opulent", 300).await;
    assert!(moves.len() >= 100, "{} plies", moves.len());
    let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
    let replay = s
        .client
        .replay_game(pb::ReplayGameRequest {
            position: Some(position("opulent", "", &refs)),
            fens: true,
        })
        .await
        .expect("replay")
        .into_inner();
    assert_eq!(replay.moves.len(), moves.len());
    assert_eq!(replay.fens.len(), moves.len());
    let mut pos = position("opulent", "", &[]);
    for (i, text) in moves.iter().enumerate() {
        let applied = s
            .client
            .apply_move(pb::ApplyMoveRequest {
                position: Some(pos),
                r#move: text.clone(),
            })
            .await
            .expect("apply")
            .into_inner();
        let played = applied.r#move.expect("move");
        assert_eq!(played, replay.moves[i], "ply {i}");
        assert_eq!(applied.fen, replay.fens[i], "ply {i}");
        pos = applied.position.expect("position");
    }
    assert!(
        replay.pgn.contains("[Variant \"opulent\"]"),
        "{}",
        replay.pgn
    );
    assert!(replay.pgn.contains(&format!("1. {}", replay.moves[0].san)));
    assert!(!replay.pgn.contains("[FEN"), "the start needs no FEN tag");
    assert_eq!(replay.fen, *replay.fens.last().expect("a FEN"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_game_writes_result_termination_and_fen_tags() {
    let mut s = start().await;
    let fen = "4k3/8/8/8/8/8/8/R3K3 b - - 0 40";
    let replay = s
        .client
        .replay_game(pb::ReplayGameRequest {
            position: Some(position("chess", fen, &["e8d7", "a1a7", "d7d6"])),
            fens: false,
        })
        .await
        .expect("replay")
        .into_inner();
    assert!(replay.fens.is_empty());
    let pgn = replay.pgn;
    assert!(pgn.contains(&format!("[FEN \"{fen}\"]")), "{pgn}");
    assert!(
        pgn.contains("[Result \"*\"]") && pgn.contains("40... Kd7 41. Ra7+ Kd6 *"),
        "{pgn}"
    );
    let mated = s
        .client
        .replay_game(pb::ReplayGameRequest {
            position: Some(position("chess", "", &["f3", "e5", "g4", "Qh4"])),
            fens: false,
        })
        .await
        .expect("replay")
        .into_inner();
    assert!(
        mated.pgn.contains("[Result \"0-1\"]") && mated.pgn.contains("Qh4# 0-1"),
        "{}",
        mated.pgn
    );
    assert!(
        mated.pgn.contains("[Termination \"checkmate\"]"),
        "{}",
        mated.pgn
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_fen_normalises_or_lists_the_problems() {
    let mut s = start().await;
    let ok = s
        .client
        .validate_fen(pb::ValidateFenRequest {
            variant: "chess".into(),
            fen: "4k3/8/8/8/8/8/8/4K3 w - -".into(),
        })
        .await
        .expect("validate")
        .into_inner();
    assert!(ok.valid && ok.problems.is_empty());
    assert_eq!(ok.fen, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    let bad = s
        .client
        .validate_fen(pb::ValidateFenRequest {
            variant: "chess".into(),
            fen: "4k3/8/8/8/8/8/8/P3K3 w - - 0 1".into(),
        })
        .await
        .expect("validate")
        .into_inner();
    assert!(!bad.valid && bad.fen.is_empty());
    let problem = bad.problems.first().expect("a problem");
    assert_eq!(
        (problem.field.as_str(), problem.square.as_str()),
        ("board", "a1")
    );
    let err = s
        .client
        .validate_fen(pb::ValidateFenRequest {
            variant: "nosuch".into(),
            fen: String::new(),
        })
        .await
        .expect_err("unknown variant");
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_of_a_few_milliseconds_still_gets_a_legal_move() {
    let mut s = start().await;
    let legal = common::legal_uci(&mut s.client, start_of("opulent")).await;
    // On a loaded machine the 30 ms can pass before the call even reaches the server; then
    // the client's own timer fires (DEADLINE_EXCEEDED or CANCELLED "Timeout expired"), which
    // is not the server refusing a short deadline. So a few tries, one of which must answer.
    let mut timed_out = Vec::new();
    for _ in 0..8 {
        let mut request = tonic::Request::new(pb::BestMoveRequest {
            position: start_of("opulent"),
            limits: Some(pb::Limits {
                movetime_ms: 5_000,
                ..Default::default()
            }),
        });
        request.set_timeout(Duration::from_millis(30));
        match s.client.best_move(request).await {
            Ok(answer) => {
                let m = answer.into_inner().r#move.expect("a move");
                assert!(legal.contains(&m.uci), "{}", m.uci);
                return;
            }
            Err(status) => {
                assert!(
                    matches!(
                        status.code(),
                        tonic::Code::DeadlineExceeded | tonic::Code::Cancelled
                    ) && !status.message().contains("before the search"),
                    "the server refused a 30 ms deadline: {status:?}"
                );
                timed_out.push(status.message().to_owned());
            }
        }
    }
    panic!("no answer within 30 ms in 8 tries: {timed_out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_eval_file_network_evaluates_its_variant_only() {
    use variant_engine::{Network, Registry};
    // A network whose only weight is the output bias: 123 cp for the side to move, so a
    // depth-1 search reports -123 (the reply's side gets the 123) wherever it is used.
    let soho = Registry::builtin().get("soho").expect("soho");
    let net = Network::constant(&soho, 123, false);
    let dir = std::env::temp_dir().join(format!("eval-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("soho.nnue");
    std::fs::write(&path, net.to_bytes()).expect("write network");
    let mut s = common::start_with(variant_service::Config {
        eval_files: vec![path.clone()],
        ..variant_service::Config::default()
    })
    .await;
    let depth1 = pb::Limits {
        depth: 1,
        ..Default::default()
    };
    let cp = |r: &pb::BestMoveResponse| match r.score.as_ref().and_then(|s| s.value) {
        Some(pb::score::Value::Centipawns(cp)) => Some(cp),
        _ => None,
    };
    let soho_answer = best(&mut s.client, position("soho", "", &[]), depth1.clone()).await;
    assert_eq!(cp(&soho_answer), Some(-123), "{soho_answer:?}");
    let opulent_answer = best(&mut s.client, position("opulent", "", &[]), depth1.clone()).await;
    assert_ne!(cp(&opulent_answer), Some(-123), "{opulent_answer:?}");
    // The shipped Opulent network is on by default (that answer came from it):
    // --use-nnue=false plays the hand-written evaluation, which scores differently.
    let mut hand = common::start_with(variant_service::Config {
        use_nnue: false,
        ..variant_service::Config::default()
    })
    .await;
    let hand_answer = best(&mut hand.client, position("opulent", "", &[]), depth1).await;
    assert!(
        cp(&hand_answer).is_some() && cp(&hand_answer) != cp(&opulent_answer),
        "{hand_answer:?} {opulent_answer:?}"
    );
    // A file that is not a network stops the server before it listens, naming the file.
    let bad = dir.join("bad.nnue");
    std::fs::write(&bad, b"not a network").expect("write");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let err = variant_service::spawn(
        variant_service::Config {
            eval_files: vec![bad],
            ..variant_service::Config::default()
        },
        listener,
    )
    .expect_err("a bad network is refused");
    assert!(err.to_string().contains("bad.nnue"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
