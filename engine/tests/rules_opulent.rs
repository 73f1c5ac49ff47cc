//! One test per rule of RULES.md §1 (Opulent Chess, Grand Chess rules).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{all_moves, board, legal, moves_from, play, pos, set, start, variant};
use variant_engine::{Bitboard, Position, Square};

/// White has only king and pawn: every type is lost, so every promotion is available.
const LONE_PAWN_E7: &str = "9k/10/10/4P5/10/10/10/10/10/K9 w - - 0 1";

#[test]
fn promotion_is_optional_on_rank_eight() {
    let p = pos("opulent", LONE_PAWN_E7);
    let expected = set(&[
        "e7e8", "e7e8q", "e7e8c", "e7e8a", "e7e8r", "e7e8b", "e7e8n", "e7e8w", "e7e8l",
    ]);
    assert_eq!(moves_from(&p, "e7"), expected);
}

#[test]
fn promotion_is_optional_on_rank_nine() {
    let p = pos("opulent", "9k/10/4P5/10/10/10/10/10/10/K9 w - - 0 1");
    let m = moves_from(&p, "e8");
    assert!(
        m.contains("e8e9") && m.contains("e8e9q") && m.contains("e8e9l"),
        "{m:?}"
    );
    assert_eq!(m.len(), 9);
}

#[test]
fn promotion_is_forced_on_rank_ten() {
    let p = pos("opulent", "9k/4P5/10/10/10/10/10/10/10/K9 w - - 0 1");
    let m = moves_from(&p, "e9");
    assert!(
        !m.contains("e9e10"),
        "a plain move to rank 10 must not exist: {m:?}"
    );
    assert_eq!(
        m,
        set(&[
            "e9e10q", "e9e10c", "e9e10a", "e9e10r", "e9e10b", "e9e10n", "e9e10w", "e9e10l"
        ])
    );
}

#[test]
fn black_promotes_on_ranks_three_two_and_one() {
    let p = pos("opulent", "9k/10/10/10/10/10/10/10/4p5/K9 b - - 0 1");
    let m = moves_from(&p, "e2");
    assert!(
        !m.contains("e2e1") && m.contains("e2e1q") && m.len() == 8,
        "{m:?}"
    );
    let p = pos("opulent", "9k/10/10/10/10/10/10/4p5/10/K9 b - - 0 1");
    assert!(moves_from(&p, "e3").contains("e3e2") && moves_from(&p, "e3").len() == 9);
}

#[test]
fn promotion_only_to_types_below_their_starting_count() {
    // White keeps its queen (1 of 1) and both rooks (2 of 2), has one of two bishops.
    let p = pos("opulent", "7k2/4P5/10/10/10/10/10/10/4QK4/RB7R w - - 0 1");
    let m = moves_from(&p, "e9");
    assert!(!m.contains("e9e10q"), "queen not lost: {m:?}");
    assert!(!m.contains("e9e10r"), "rooks not lost: {m:?}");
    assert!(m.contains("e9e10b"), "one bishop lost: {m:?}");
    assert!(m.contains("e9e10c") && m.contains("e9e10a"));
}

#[test]
fn promotion_never_to_king_or_pawn() {
    let p = pos("opulent", "9k/4P5/10/10/10/10/10/10/10/K9 w - - 0 1");
    assert!(!legal(&p, "e9e10k") && !legal(&p, "e9e10p"));
}

/// White's full army is on the board: nothing is lost, so no promotion is possible.
const FULL_ARMY_PAWN_E9: &str = "3r3k2/4P5/10/10/10/10/10/10/CLNBQKBNLA/RW6WR w - - 0 1";

#[test]
fn pawn_that_cannot_promote_may_not_enter_rank_ten() {
    let p = pos("opulent", FULL_ARMY_PAWN_E9);
    assert!(
        moves_from(&p, "e9").is_empty(),
        "neither step nor capture to rank 10"
    );
    // Remove one knight: now it may step or capture onto rank 10 as a knight.
    let p = pos(
        "opulent",
        "3r3k2/4P5/10/10/10/10/10/10/CL1BQKBNLA/RW6WR w - - 0 1",
    );
    assert_eq!(moves_from(&p, "e9"), set(&["e9e10n", "e9d10n"]));
}

#[test]
fn pawn_stuck_on_rank_nine_still_gives_check() {
    // White's army is complete, so the e9 pawn can never move, yet it attacks f10.
    let p = pos(
        "opulent",
        "r4k4/4P5/10/10/10/10/10/10/CLNBQKBNLA/RW6WR b - - 0 1",
    );
    assert!(p.in_check());
    assert!(
        !legal(&p, "a10a9"),
        "a move that ignores the check is illegal"
    );
    assert!(
        !legal(&p, "f10e9"),
        "the pawn is defended by the queen along the e-file"
    );
    // Without the pawn, black is not in check and a10a9 is fine.
    let p = pos(
        "opulent",
        "r4k4/10/10/10/10/10/10/10/CLNBQKBNLA/RW6WR b - - 0 1",
    );
    assert!(!p.in_check() && legal(&p, "a10a9"));
}

#[test]
fn double_step_only_from_the_start_rank() {
    let mut p = start("opulent");
    assert!(legal(&p, "e3e5") && legal(&p, "e3e4"));
    play(&mut p, &["e3e4", "a8a7"]);
    assert!(!legal(&p, "e4e6"), "no double step after the first move");
    // A pawn never stands behind its start rank (RULES.md: impossible position), so there is
    // no rank-2 pawn whose double step could be asked about.
    assert!(
        Position::from_fen(
            variant("opulent"),
            "9k/10/10/10/10/10/10/10/4P5/K9 w - - 0 1"
        )
        .is_err()
    );
}

#[test]
fn en_passant_captures_a_double_stepped_pawn() {
    let mut p = pos("opulent", "9k/10/3p6/10/4P5/10/10/10/10/K9 b - - 0 1");
    play(&mut p, &["d8d6"]);
    assert_eq!(
        p.en_passant_square().map(|s| s.to_string()),
        Some("d7".to_owned())
    );
    let m = p.parse_uci("e6d7").unwrap();
    assert!(m.is_en_passant());
    p.play(m);
    let d6: Square = "d6".parse().unwrap();
    assert!(p.piece_at(d6).is_none(), "the double-stepped pawn is gone");
}

#[test]
fn en_passant_only_immediately() {
    let mut p = pos("opulent", "9k/10/3p6/10/4P5/10/10/10/10/K9 b - - 0 1");
    play(&mut p, &["d8d6", "a1a2", "j10j9"]);
    assert!(!legal(&p, "e6d7"));
}

#[test]
fn no_castling_rights_exist() {
    let v = variant_engine::Registry::builtin().get("opulent").unwrap();
    let err =
        variant_engine::Position::from_fen(v, &start("opulent").fen().replace(" - - ", " KQkq - "))
            .unwrap_err();
    assert!(err.to_string().contains("rights"), "{err}");
}

#[test]
fn leapers_jump_over_pieces() {
    let p = start("opulent");
    // Lion (FDH) on b2 leaps over the b3 pawn to b4 and b5; steps diagonally to c1.
    assert_eq!(moves_from(&p, "b2"), set(&["b2c1", "b2b4", "b2b5"]));
    // Knight (NW) on c2: knight leaps over the pawn rank plus one orthogonal step.
    assert_eq!(moves_from(&p, "c2"), set(&["c2b4", "c2d4", "c2e1", "c2c1"]));
    // Wizard (CF) on b1: camel leaps over two ranks of pieces.
    assert_eq!(moves_from(&p, "b1"), set(&["b1a4", "b1c4"]));
    assert_eq!(all_moves(&p).len(), 52);
}

#[test]
fn archbishop_and_chancellor_have_no_wazir_step() {
    let p = pos("opulent", "9k/10/10/10/4A5/10/10/10/10/K9 w - - 0 1");
    let m = moves_from(&p, "e6");
    assert!(!m.contains("e6e7") && m.contains("e6f7") && m.contains("e6f8"));
    let p = pos("opulent", "9k/10/10/10/4C5/10/10/10/10/K9 w - - 0 1");
    let m = moves_from(&p, "e6");
    assert!(!m.contains("e6f7") && m.contains("e6e7") && m.contains("e6f8"));
}

#[test]
fn wizards_stay_on_their_colour() {
    for sq in ["a1", "e5", "f6", "j10", "c8", "h3"] {
        let s: Square = sq.parse().unwrap();
        // The kings stand in corners off the wizard's file.
        let black_king = if s.file() == 0 { "j10" } else { "a10" };
        let white_king = if s.file() == 9 { "a1" } else { "j1" };
        let pieces = format!("W{sq} k{black_king} K{white_king}");
        let fen = format!("{} w - - 0 1", board(10, 10, &pieces));
        let p = pos("opulent", &fen);
        let from: Square = sq.parse().unwrap();
        let targets: Bitboard = p
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == Some(from))
            .map(variant_engine::Move::to)
            .collect();
        assert!(targets.any(), "{fen}");
        assert!(
            targets.into_iter().all(|t| t.is_light() == from.is_light()),
            "wizard on {sq} changes colour"
        );
    }
}
