//! One test per rule of RULES.md §3 (SOHO Chess).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{all_moves, legal, moves_from, play, pos, set, start};
use variant_engine::{Bitboard, Square};

/// White king f2 with both rooks on the second rank, nothing between them.
const CASTLE_READY: &str = "4k5/10/10/10/10/10/10/10/R4K3R/10 w KQ - 0 1";

#[test]
fn castling_king_side_moves_king_two_squares_and_rook_to_the_crossed_square() {
    let mut p = pos("soho", CASTLE_READY);
    let m = p.parse_uci("f2h2").unwrap();
    assert!(m.is_castle());
    p.play(m);
    assert!(
        p.fen()
            .starts_with("4k5/10/10/10/10/10/10/10/R5RK2/10 b - "),
        "{}",
        p.fen()
    );
}

#[test]
fn castling_queen_side_moves_king_two_squares_and_rook_to_the_crossed_square() {
    let mut p = pos("soho", CASTLE_READY);
    let m = p.parse_uci("f2d2").unwrap();
    assert!(m.is_castle());
    p.play(m);
    assert!(
        p.fen()
            .starts_with("4k5/10/10/10/10/10/10/10/3KR4R/10 b - "),
        "{}",
        p.fen()
    );
}

#[test]
fn black_castles_on_the_ninth_rank() {
    let p = pos("soho", "10/r4k3r/10/10/10/10/10/10/10/4K5 b kq - 0 1");
    assert!(legal(&p, "f9h9") && legal(&p, "f9d9"));
}

#[test]
fn no_castling_through_check() {
    // The black rook on g10 attacks g2, the square the king crosses going king side.
    let p = pos("soho", "4k1r3/10/10/10/10/10/10/10/R4K3R/10 w KQ - 0 1");
    assert!(!legal(&p, "f2h2"));
    assert!(legal(&p, "f2d2"));
}

#[test]
fn no_castling_into_check() {
    let p = pos("soho", "4k2r2/10/10/10/10/10/10/10/R4K3R/10 w KQ - 0 1");
    assert!(!legal(&p, "f2h2"));
    assert!(legal(&p, "f2d2"));
}

#[test]
fn no_castling_out_of_check() {
    let p = pos("soho", "4kr4/10/10/10/10/10/10/10/R4K3R/10 w KQ - 0 1");
    assert!(p.in_check());
    assert!(!legal(&p, "f2h2") && !legal(&p, "f2d2"));
}

#[test]
fn no_castling_with_pieces_between() {
    let p = pos("soho", "4k5/10/10/10/10/10/10/10/R4K2NR/10 w KQ - 0 1");
    assert!(!legal(&p, "f2h2"), "knight on i2 between king and rook");
    let p = pos("soho", "4k5/10/10/10/10/10/10/10/RN3K3R/10 w KQ - 0 1");
    assert!(!legal(&p, "f2d2"), "knight on b2 between rook and king");
    assert!(legal(&p, "f2h2"));
}

#[test]
fn no_castling_after_the_king_moved() {
    let mut p = pos("soho", CASTLE_READY);
    play(&mut p, &["f2f1", "e10e9", "f1f2", "e9e10"]);
    assert!(!legal(&p, "f2h2") && !legal(&p, "f2d2"));
    assert!(p.fen().contains(" w - "), "{}", p.fen());
}

#[test]
fn no_castling_after_the_rook_moved() {
    let mut p = pos("soho", CASTLE_READY);
    play(&mut p, &["j2j1", "e10e9", "j1j2", "e9e10"]);
    assert!(!legal(&p, "f2h2"));
    assert!(legal(&p, "f2d2"));
}

#[test]
fn capturing_a_rook_at_home_removes_its_right() {
    let mut p = pos("soho", "4k5/10/10/10/10/10/10/10/R4K3R/9r b KQ - 0 1");
    play(&mut p, &["j1j2"]);
    assert!(p.fen().contains(" w Q "), "{}", p.fen());
}

#[test]
fn start_position_castling_is_blocked_and_has_48_moves() {
    let p = start("soho");
    assert_eq!(all_moves(&p).len(), 48);
    assert!(!legal(&p, "f2h2") && !legal(&p, "f2d2"));
}

/// White cannon e1, white king j3, black king a10, black rook e6; `screen` fills rank 3/4.
fn cannon_position(rank4: &str, rank3: &str, rank6: &str) -> variant_engine::Position {
    pos(
        "soho",
        &format!("k9/10/10/10/{rank6}/10/{rank4}/{rank3}/10/4C5 w - - 0 1"),
    )
}

#[test]
fn cannon_without_screen_cannot_capture() {
    let p = cannon_position("10", "9K", "4r5");
    let m = moves_from(&p, "e1");
    assert!(!m.contains("e1e6"), "{m:?}");
    assert!(
        m.contains("e1e5") && m.contains("e1e2"),
        "moves like a rook: {m:?}"
    );
}

#[test]
fn cannon_with_one_screen_captures_the_first_piece_beyond() {
    let p = cannon_position("10", "4P4K", "4r5");
    let m = moves_from(&p, "e1");
    assert!(m.contains("e1e6"), "{m:?}");
    assert!(
        !m.contains("e1e3") && !m.contains("e1e4"),
        "cannot move onto or past the screen: {m:?}"
    );
    // An enemy piece serves as a screen too.
    let p = cannon_position("10", "4p4K", "4r5");
    let m = moves_from(&p, "e1");
    assert!(m.contains("e1e6") && !m.contains("e1e3"), "{m:?}");
}

#[test]
fn cannon_with_two_screens_cannot_capture() {
    let p = cannon_position("4p5", "4P4K", "4r5");
    let m = moves_from(&p, "e1");
    assert!(
        m.contains("e1e4"),
        "hops the first screen onto the second: {m:?}"
    );
    assert!(!m.contains("e1e6"), "{m:?}");
}

#[test]
fn cannon_never_captures_its_own_piece() {
    let p = cannon_position("10", "4P4K", "4N5");
    let m = moves_from(&p, "e1");
    assert!(!m.contains("e1e6"), "{m:?}");
}

#[test]
fn cannon_gives_check_through_a_screen_and_the_screen_may_not_leave() {
    // Black cannon e10, white pawn e3 as screen, white king e1: in check.
    let p = pos("soho", "k3c5/10/10/10/10/10/10/4P5/10/4K5 w - - 0 1");
    assert!(p.in_check());
    // Without the screen there is no check, and putting a piece between makes one.
    let p = pos("soho", "k3c5/10/10/10/10/10/10/10/5N4/4K5 w - - 0 1");
    assert!(!p.in_check());
    assert!(
        !legal(&p, "f2e4"),
        "the knight would become the screen of a check"
    );
    assert!(legal(&p, "f2g4"));
}

#[test]
fn champion_and_fad_leap_over_pieces() {
    let p = start("soho");
    // Champion (WAD) on d2: wazir step to d1, alfil leaps over c3/e3, dabbaba leap over d3.
    assert_eq!(moves_from(&p, "d2"), set(&["d2d1", "d2b4", "d2f4", "d2d4"]));
    // FAD on c1: every short move is blocked by its own pieces; the dabbaba leap e1 is free.
    assert_eq!(moves_from(&p, "c1"), set(&["c1e1"]));
    // Wizard (CF) on b1 camel-leaps over two ranks.
    assert_eq!(moves_from(&p, "b1"), set(&["b1a4", "b1c4"]));
}

#[test]
fn promotion_is_forced_on_the_last_rank_to_any_non_king_type() {
    // White's full army is on the board: SOHO has no captured-piece limit.
    let p = pos(
        "soho",
        "7k2/4P5/10/10/10/10/10/10/RNBUQKUBNR/CWF4FWC w - - 0 1",
    );
    let expected = set(&[
        "e9e10q", "e9e10r", "e9e10b", "e9e10n", "e9e10u", "e9e10f", "e9e10w", "e9e10c",
    ]);
    assert_eq!(moves_from(&p, "e9"), expected);
}

#[test]
fn no_optional_promotion_before_the_last_rank() {
    let p = pos("soho", "7k2/10/4P5/10/10/10/10/10/10/K9 w - - 0 1");
    assert_eq!(moves_from(&p, "e8"), set(&["e8e9"]));
}

#[test]
fn double_step_from_rank_three_and_en_passant() {
    let mut p = start("soho");
    assert!(legal(&p, "e3e5"));
    play(&mut p, &["e3e5", "a8a7", "e5e6", "d8d6"]);
    assert!(p.parse_uci("e6d7").unwrap().is_en_passant());
}

#[test]
fn fad_and_wizard_stay_on_their_colour_but_champion_does_not() {
    let p = pos("soho", "k9/10/10/10/4F5/10/3W6/10/10/5U3K w - - 0 1");
    let colour_of = |from: &str| -> Vec<bool> {
        let f: Square = from.parse().unwrap();
        let b: Bitboard = p
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == Some(f))
            .map(variant_engine::Move::to)
            .collect();
        b.into_iter().map(Square::is_light).collect()
    };
    let e6_light = "e6".parse::<Square>().unwrap().is_light();
    assert!(colour_of("e6").iter().all(|&c| c == e6_light));
    let d4_light = "d4".parse::<Square>().unwrap().is_light();
    assert!(colour_of("d4").iter().all(|&c| c == d4_light));
    assert!(colour_of("f1").iter().any(|&c| c) && colour_of("f1").iter().any(|&c| !c));
}
