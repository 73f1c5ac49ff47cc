//! RULES.md, "Game end, draw claims and impossible positions": one test per ruling on the order
//! of endings, on a finished game taking no more moves, on draw claims and on insufficient
//! material per variant.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::board;
use variant_engine::{Color, GameStatus, Position, Refusal, Termination};

fn at(variant: &str, pieces: &str, side: char, halfmove: u32) -> Position {
    let size = if variant == "chess" || variant == "orphic" {
        8
    } else {
        10
    };
    common::pos(
        variant,
        &format!("{} {side} - - {halfmove} 60", board(size, size, pieces)),
    )
}

fn draw(reason: Termination) -> GameStatus {
    GameStatus::Finished {
        winner: None,
        reason,
    }
}

fn dead(variant: &str, pieces: &str) -> bool {
    at(variant, pieces, 'w', 0).insufficient_material()
}

/// Knights' tour shuffle: both sides' knights out and back, which repeats the start position
/// once per four plies.
const SHUFFLE: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

fn shuffled(times: usize, claims: bool) -> Position {
    let mut pos = common::start("chess");
    pos.set_draw_claims(claims);
    for _ in 0..times {
        pos.replay(SHUFFLE).unwrap();
    }
    pos
}

// Insufficient material, per variant.

#[test]
fn chess_dead_positions_are_exactly_the_ruled_ones() {
    assert!(dead("chess", "Ke1 ke8"), "K v K");
    assert!(dead("chess", "Ke1 Nb1 ke8"), "K+N v K");
    assert!(dead("chess", "Ke1 ke8 nb8"), "K v K+N");
    assert!(dead("chess", "Ke1 Bc1 ke8"), "K+B v K");
    // c1, e3 and f8 are all dark squares.
    assert!(
        dead("chess", "Ke1 Bc1 Be3 ke8 bf8"),
        "bishops on one colour"
    );
    assert!(!dead("chess", "Ke1 Bc1 ke8 bc8"), "bishops on both colours");
    assert!(
        !dead("chess", "Ke1 Nb1 Nc3 ke8"),
        "two knights can mate with help"
    );
    assert!(
        !dead("chess", "Ke1 Nb1 ke8 nb8"),
        "knight each can mate with help"
    );
    assert!(!dead("chess", "Ke1 Nb1 Bc1 ke8"), "knight and bishop");
    assert!(!dead("chess", "Ke1 Pa2 ke8"), "a pawn can promote");
    assert!(!dead("chess", "Ke1 Ra1 ke8"), "a rook mates");
}

#[test]
fn opulent_and_soho_are_dead_only_with_bare_kings() {
    for variant in ["opulent", "soho"] {
        assert!(dead(variant, "Ke1 ke10"), "{variant}");
        assert!(!dead(variant, "Ke1 Nb1 ke10"), "{variant}: not ruled dead");
        assert!(!dead(variant, "Ke1 Bc1 ke10"), "{variant}: not ruled dead");
        assert!(!dead(variant, "Ke1 Pa3 ke10"), "{variant}");
    }
}

#[test]
fn orphic_is_dead_only_with_bare_kings_on_the_board_and_empty_pockets() {
    let orphic = |fen: &str| common::pos("orphic", fen).insufficient_material();
    assert!(orphic("4k3/8/8/8/8/8/8/4K3[] w - - 0 1"));
    assert!(
        !orphic("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1"),
        "a knight in hand"
    );
    assert!(
        !orphic("4k3/8/8/8/8/8/8/4K3[n] w - - 0 1"),
        "Black's pocket too"
    );
    assert!(!orphic("4k3/8/8/8/8/8/8/3NK3[] w - - 0 1"));
}

#[test]
fn decima_is_never_dead() {
    // A bare king can still walk to the tenth rank and score ten points.
    assert!(!dead("decima", "Ke1 ke10"));
    assert_eq!(
        at("decima", "Ke1 ke10", 'w', 0).status(),
        GameStatus::Ongoing
    );
}

#[test]
fn a_dead_position_is_a_draw_and_its_status_says_so() {
    let pos = at("chess", "Ke1 Nb1 ke8", 'w', 0);
    assert_eq!(pos.status(), draw(Termination::InsufficientMaterial));
}

// Order of endings.

#[test]
fn mate_on_the_hundredth_half_move_is_a_mate() {
    // Ra1-a8 mates (Kg6 covers g7 and h7) and is the hundredth half-move without a pawn move
    // or capture.
    let mut pos = at("chess", "Kg6 Ra1 kh8", 'w', 99);
    pos.replay(["a1a8"]).unwrap();
    assert_eq!(pos.halfmove_clock(), 100);
    assert_eq!(
        pos.status(),
        GameStatus::Finished {
            winner: Some(Color::White),
            reason: Termination::Checkmate
        }
    );
}

#[test]
fn stalemate_comes_before_the_fifty_move_rule() {
    // Black: Kh8 has no move (Qf7 covers g8, g7, h7) and is not in check.
    let pos = at("chess", "Kg6 Qf7 kh8", 'b', 100);
    assert_eq!(pos.status(), draw(Termination::Stalemate));
}

#[test]
fn the_fifty_move_rule_comes_before_insufficient_material() {
    let pos = at("chess", "Ke1 ke8", 'w', 100);
    assert_eq!(pos.status(), draw(Termination::FiftyMoveRule));
}

#[test]
fn decima_verdicts_come_before_the_draws_by_rule() {
    // Ten points on the tenth rank at the start of White's turn, with the clock at 100.
    let pos = at("decima", "Ka10 Ra5 ke5", 'w', 100);
    assert_eq!(
        pos.status(),
        GameStatus::Finished {
            winner: Some(Color::White),
            reason: Termination::TenPoints
        }
    );
}

#[test]
fn repetition_comes_before_insufficient_material_and_after_the_fifty_move_rule() {
    // A threefold repetition with the clock past 100 is reported as the fifty-move rule.
    let mut pos = at("chess", "Ke1 Ra1 ke8 ra8", 'w', 92);
    pos.replay([
        "a1a2", "a8a7", "a2a1", "a7a8", "a1a2", "a8a7", "a2a1", "a7a8",
    ])
    .unwrap();
    assert_eq!(pos.repetitions(), 3);
    assert_eq!(pos.status(), draw(Termination::FiftyMoveRule));
    let mut pos = at("chess", "Ke1 Ra1 ke8 ra8", 'w', 0);
    pos.replay([
        "a1a2", "a8a7", "a2a1", "a7a8", "a1a2", "a8a7", "a2a1", "a7a8",
    ])
    .unwrap();
    assert_eq!(pos.status(), draw(Termination::ThreefoldRepetition));
}

// A finished game takes no more moves.

fn refused(pos: &Position, text: &str) -> Option<Termination> {
    match pos.parse_next_move(text) {
        Err(Refusal::GameOver(reason)) => Some(reason),
        _ => None,
    }
}

#[test]
fn no_move_after_checkmate_or_stalemate() {
    let mut mated = common::start("chess");
    mated.replay(["f2f3", "e7e5", "g2g4", "d8h4"]).unwrap();
    assert_eq!(refused(&mated, "a2a3"), Some(Termination::Checkmate));
    let stalemate = at("chess", "Kg6 Qf7 kh8", 'b', 0);
    assert_eq!(refused(&stalemate, "h8g8"), Some(Termination::Stalemate));
}

#[test]
fn no_move_after_a_threefold_repetition_and_the_list_names_the_index() {
    let mut pos = common::start("chess");
    let mut moves: Vec<&str> = SHUFFLE.repeat(2);
    moves.push("e2e4");
    let err = pos.replay(moves).unwrap_err();
    assert_eq!(err.index, 8);
    assert_eq!(
        err.source,
        Refusal::GameOver(Termination::ThreefoldRepetition)
    );
    assert!(err.to_string().contains("threefold repetition"), "{err}");
    // The legal move itself was fine before the end.
    assert!(common::start("chess").parse_next_move("e2e4").is_ok());
}

#[test]
fn no_move_after_the_fifty_move_rule_or_in_a_dead_position() {
    let pos = at("chess", "Ke1 Ra1 ke8", 'w', 100);
    assert_eq!(refused(&pos, "a1a2"), Some(Termination::FiftyMoveRule));
    let pos = at("chess", "Ke1 Bc1 ke8", 'w', 0);
    assert_eq!(
        refused(&pos, "c1d2"),
        Some(Termination::InsufficientMaterial)
    );
    // A capture that leaves bare kings ends the game; the next move is refused.
    let mut pos = at("soho", "Ke1 Rd2 ke10 qd9", 'w', 0);
    pos.replay(["d2d9"]).unwrap();
    let mut rest = pos.clone();
    assert!(rest.replay(["e10d9"]).is_ok(), "the king recaptures");
    assert_eq!(rest.status(), draw(Termination::InsufficientMaterial));
    assert_eq!(
        refused(&rest, "e1e2"),
        Some(Termination::InsufficientMaterial)
    );
}

#[test]
fn no_move_after_a_decima_verdict() {
    let pos = at("decima", "Ka10 Ra5 ke5", 'w', 0);
    assert_eq!(refused(&pos, "a5a6"), Some(Termination::TenPoints));
}

// Draw claims.

#[test]
fn without_claims_a_threefold_repetition_ends_the_game() {
    let pos = shuffled(2, false);
    assert_eq!(pos.status(), draw(Termination::ThreefoldRepetition));
    assert_eq!(pos.claimable_draw(), None);
}

#[test]
fn with_claims_a_threefold_repetition_is_only_claimable() {
    let pos = shuffled(2, true);
    assert_eq!(pos.status(), GameStatus::Ongoing);
    assert_eq!(pos.claimable_draw(), Some(Termination::ThreefoldRepetition));
    assert!(pos.parse_next_move("e2e4").is_ok(), "the game goes on");
    assert_eq!(
        shuffled(1, true).claimable_draw(),
        None,
        "twice is not enough"
    );
}

#[test]
fn with_claims_the_fifth_occurrence_ends_the_game() {
    let pos = shuffled(3, true);
    assert_eq!(pos.repetitions(), 4);
    assert_eq!(pos.status(), GameStatus::Ongoing);
    let pos = shuffled(4, true);
    assert_eq!(pos.status(), draw(Termination::FivefoldRepetition));
    assert_eq!(refused(&pos, "e2e4"), Some(Termination::FivefoldRepetition));
}

#[test]
fn with_claims_the_fifty_move_rule_is_claimable_and_150_half_moves_end_the_game() {
    let mut pos = at("chess", "Ke1 Ra1 ke8", 'w', 100);
    pos.set_draw_claims(true);
    assert_eq!(pos.status(), GameStatus::Ongoing);
    assert_eq!(pos.claimable_draw(), Some(Termination::FiftyMoveRule));
    let mut pos = at("chess", "Ke1 Ra1 ke8", 'w', 149);
    pos.set_draw_claims(true);
    pos.replay(["a1a2"]).unwrap();
    assert_eq!(pos.status(), draw(Termination::SeventyFiveMoveRule));
    let mut before = at("chess", "Ke1 Ra1 ke8", 'w', 148);
    before.set_draw_claims(true);
    before.replay(["a1a2"]).unwrap();
    assert_eq!(before.status(), GameStatus::Ongoing);
}

#[test]
fn with_claims_a_mate_on_the_150th_half_move_is_a_mate() {
    let mut pos = at("chess", "Kg6 Ra1 kh8", 'w', 149);
    pos.set_draw_claims(true);
    pos.replay(["a1a8"]).unwrap();
    assert_eq!(
        pos.status(),
        GameStatus::Finished {
            winner: Some(Color::White),
            reason: Termination::Checkmate
        }
    );
}

#[test]
fn claims_are_a_setting_not_part_of_the_position() {
    let plain = shuffled(2, false);
    let claims = shuffled(2, true);
    assert_eq!(plain, claims, "same position, same FEN and hash");
    assert_eq!(plain.fen(), claims.fen());
    assert!(claims.draw_claims() && !plain.draw_claims());
}
