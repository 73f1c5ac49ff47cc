//! Decima (RULES.md §2, contest version): one test per rule, perft consistency with hand-worked
//! counts, and property tests over random playouts.
//!
//! Positions are built by FEN. Most FENs are written with [`fen`], which turns a list such as
//! `"Ka1 Pe2 ka10"` (uppercase = White) into the board field (`common::board`), so the squares
//! can be read off directly instead of being counted out of digit runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::{all_moves, board, letter_at, play, set, sq, variant};
use proptest::prelude::*;
use variant_engine::{
    Color, GameStatus, Move, MoveKind, Position, Registry, Role, RuleSet, Square, Termination,
    Variant, divide, perft, perft_copy_make,
};

/// A full FEN from a piece list (`"Ka1 pe9"`: letter, then square; uppercase is White), the
/// side to move and the half-move clock. No en-passant square, move number 1.
fn fen_with_clock(pieces: &str, side: char, halfmove: u32) -> String {
    format!("{} {side} - - {halfmove} 1", board(10, 10, pieces))
}

fn fen(pieces: &str, side: char) -> String {
    fen_with_clock(pieces, side, 0)
}

fn at(pieces: &str, side: char) -> Position {
    common::pos("decima", &fen(pieces, side))
}

fn won(winner: Color, reason: Termination) -> GameStatus {
    GameStatus::Finished {
        winner: Some(winner),
        reason,
    }
}

/// Score recomputed square by square, independently of `Position::score`.
fn score_from_scratch(pos: &Position, color: Color) -> u32 {
    let rank = match color {
        Color::White => 9,
        Color::Black => 0,
    };
    (0..10)
        .filter_map(|file| Square::from_coords(file, rank))
        .filter_map(|s| pos.piece_at(s))
        .filter(|p| p.color() == color)
        .map(|p| u32::from(pos.variant().piece(p.kind()).points))
        .sum()
}

// ---------------------------------------------------------------------------------------------
// The variant itself
// ---------------------------------------------------------------------------------------------

#[test]
fn start_position_and_piece_table_follow_the_rule_book() {
    let v = variant("decima");
    assert_eq!((v.files(), v.ranks()), (10, 10));
    assert_eq!(
        v.start_fen(),
        "rbmaqsodbr/npppkkpppn/10/10/10/10/10/10/NPPPKKPPPN/RBMAQSODBR w - - 0 1"
    );
    let table: Vec<(char, u8, Role)> = v
        .pieces()
        .iter()
        .map(|d| (d.letter, d.points, d.role))
        .collect();
    for (letter, points) in [
        ('K', 10),
        ('N', 9),
        ('B', 8),
        ('R', 7),
        ('D', 6),
        ('O', 5),
        ('S', 4),
        ('A', 3),
        ('M', 2),
        ('Q', 1),
        ('P', 0),
    ] {
        let role = if letter == 'P' {
            Role::Pawn
        } else {
            Role::Piece
        };
        assert!(table.contains(&(letter, points, role)), "{letter}");
    }
    // The strong pieces are the low-point ones.
    let value = |l: char| v.piece(v.kind_by_letter(l).unwrap()).value;
    assert!(value('Q') > value('M') && value('M') > value('A') && value('A') > value('N'));
    let pos = Position::new(v);
    assert_eq!(pos.status(), GameStatus::Ongoing);
    assert_eq!((pos.score(Color::White), pos.score(Color::Black)), (0, 0));
}

// ---------------------------------------------------------------------------------------------
// One test per rule
// ---------------------------------------------------------------------------------------------

#[test]
fn kings_are_capturable_and_never_in_check() {
    // The white rook attacks the black king on e6: no check, and the king may be taken.
    let mut pos = at("Re1 Ka1 ke6 kj9", 'w');
    assert!(!pos.in_check());
    assert!(all_moves(&pos).contains("e1e6"));
    play(&mut pos, &["e1e6"]);
    assert_eq!(letter_at(&pos, "e6"), Some('R'));
    assert_eq!(pos.status(), GameStatus::Ongoing);
    // A king may step onto an attacked square and next to the enemy king.
    let pos = at("Rd1 Ke4 ke6 kj9", 'b');
    assert!(!pos.in_check());
    let list = all_moves(&pos);
    assert!(list.contains("e6d6"), "onto the rook's file");
    assert!(list.contains("e6e5"), "next to the enemy king");
    // Both black kings move freely: 8 + 5 (j9 on the edge) = 13.
    assert_eq!(list.len(), 13);
}

#[test]
fn each_side_has_two_kings() {
    let v = variant("decima");
    let king = v.kind_by_letter('K').unwrap();
    let pos = Position::new(v.clone());
    for color in Color::ALL {
        assert_eq!(pos.pieces_of(color, king).count(), 2);
        assert_eq!(v.initial_count(color, king), 2);
    }
    // Any number of kings is a legal position, none included.
    let pos = at("Ra1 kb9 kc9", 'w');
    assert_eq!(pos.status(), GameStatus::Ongoing);
    assert!(!pos.legal_moves().is_empty());
}

#[test]
fn score_counts_only_own_pieces_on_own_tenth_rank() {
    // White: Na10 scores 9, Rb1 stands on White's first rank (no score), Pc9 is not on rank 10.
    // Black: bd1 scores 8 (Black's tenth rank is rank 1), qe10 is on Black's home rank (no
    // score), the black king f5 is in the middle.
    let pos = at("Na10 Rb1 Pc9 Kh5 bd1 qe10 kf5", 'w');
    assert_eq!(pos.score(Color::White), 9);
    assert_eq!(pos.score(Color::Black), 8);
    // Pieces on the opponent's tenth rank never count for either side.
    let pos = at("Ka1 Kb1 kc10 kd10", 'w');
    assert_eq!((pos.score(Color::White), pos.score(Color::Black)), (0, 0));
    // Variants without points score nothing.
    let opulent = Position::new(Registry::builtin().get("opulent").unwrap());
    assert_eq!(opulent.score(Color::White), 0);
}

#[test]
fn ten_points_at_the_start_of_the_turn_win() {
    // A king alone is worth 10.
    let pos = at("Ka10 Ra5 ke5", 'w');
    assert_eq!(pos.status(), won(Color::White, Termination::TenPoints));
    assert!(pos.legal_moves().is_empty());
    // Knight 9 + queen 1.
    let pos = at("Na10 Qb10 ke5", 'w');
    assert_eq!(pos.status(), won(Color::White, Termination::TenPoints));
    // Black: rook 7 + marshall 2 + queen 1 on rank 1.
    let pos = at("Ke5 ra1 mb1 qc1", 'b');
    assert_eq!(pos.status(), won(Color::Black, Termination::TenPoints));
    // Nine is not enough.
    let pos = at("Na10 Ke5 ke6", 'w');
    assert_eq!(pos.status(), GameStatus::Ongoing);
    // Own ten points are checked before the opponent's: both have 10+, the mover wins.
    let pos = at("Ka10 ka1 Re5", 'b');
    assert_eq!(pos.status(), won(Color::Black, Termination::TenPoints));
}

#[test]
fn reaching_ten_is_check_answered_only_by_relieving_captures() {
    // White Na10 (9) and Qj1; Qj1-j10 makes 10. Black can take the knight with the rook
    // (a5xa10) or the knight (b8xa10), or the queen with the bishop (h8xj10); the black king
    // e5 and knight g5 (which could take the rook h3) must not move otherwise.
    let mut pos = at("Na10 Qj1 Rh3 Kc3 ra5 nb8 bh8 ke5 ng5", 'w');
    assert!(!pos.in_check());
    let check = pos.parse_move("j1j10").unwrap();
    assert_eq!(pos.san(check), "Qj10+");
    pos.play(check);
    assert!(pos.in_check());
    assert_eq!(pos.score(Color::White), 10);
    assert_eq!(pos.status(), GameStatus::Ongoing);
    assert_eq!(all_moves(&pos), set(&["a5a10", "b8a10", "h8j10"]));
    // Each answer is a suicide capture and leaves White with 9 or less.
    for answer in ["a5a10", "b8a10", "h8j10"] {
        let mut after = pos.clone();
        play(&mut after, &[answer]);
        assert!(after.score(Color::White) <= 9, "{answer}");
        assert!(!after.in_check());
        assert_eq!(after.status(), GameStatus::Ongoing);
    }
}

#[test]
fn a_capture_that_leaves_ten_or_more_does_not_answer_check() {
    // White has N 9 + B 8 + Q 1 = 18 on rank 10. Only taking the knight (leaving 9) answers;
    // taking the queen leaves 17 and taking the bishop leaves 10.
    let pos = at("Na10 Bc10 Qj10 Ke5 ra5 nd8 rj5 kg5", 'b');
    assert!(pos.in_check());
    assert_eq!(all_moves(&pos), set(&["a5a10"]));
}

#[test]
fn unanswerable_check_wins_for_the_mover() {
    // As above, but Black has nothing that can reach rank 10.
    let mut pos = at("Na10 Qj1 Rh3 Kc3 ke5 ng5", 'w');
    let check = pos.parse_move("j1j10").unwrap();
    assert_eq!(pos.san(check), "Qj10#");
    pos.play(check);
    assert!(pos.in_check());
    assert!(pos.legal_moves().is_empty());
    assert_eq!(
        pos.status(),
        won(Color::White, Termination::CheckUnanswered)
    );
    assert_eq!(perft(&mut pos, 1), 0);
}

#[test]
fn suicide_capture_on_the_enemy_tenth_rank_removes_the_capturer() {
    // No check is pending (Black's knight on a1 scores 9). White Ra5xa1 lands on rank 1, Black's
    // tenth rank: both pieces go.
    let mut pos = at("Ra5 Rj5 Kc3 na1 bj10 ke8", 'w');
    assert!(!pos.in_check());
    let before = pos.clone();
    play(&mut pos, &["a5a1"]);
    assert_eq!(letter_at(&pos, "a1"), None);
    assert_eq!(letter_at(&pos, "a5"), None);
    assert_eq!(pos.pieces_by_color(Color::White).count(), 2);
    assert_eq!(pos.hash(), pos.compute_hash());
    pos.unmake();
    assert_eq!(pos, before);
    // The same for Black capturing on rank 10, White's tenth rank.
    let mut pos = at("Rc10 Ke3 rc5 kh7", 'b');
    play(&mut pos, &["c5c10"]);
    assert_eq!(letter_at(&pos, "c10"), None);
    assert_eq!(pos.pieces_by_color(Color::Black).count(), 1);
}

#[test]
fn capture_on_the_capturers_own_tenth_rank_is_not_suicide() {
    // White Rj5xj10 lands on White's own tenth rank: the rook stays, and scores 7.
    let mut pos = at("Ra5 Rj5 Kc3 na1 bj10 ke8", 'w');
    play(&mut pos, &["j5j10"]);
    assert_eq!(letter_at(&pos, "j10"), Some('R'));
    assert_eq!(pos.score(Color::White), 7);
    // Black capturing on rank 1 likewise.
    let mut pos = at("Ka1 Ke3 ra5 kh7", 'b');
    play(&mut pos, &["a5a1"]);
    assert_eq!(letter_at(&pos, "a1"), Some('r'));
    assert_eq!(pos.score(Color::Black), 7);
}

#[test]
fn capturing_the_last_enemy_unit_wins_even_by_suicide_with_ones_own_last_unit() {
    // White's only unit takes Black's only unit on rank 1: both go, White wins.
    let mut pos = at("Ra5 na1", 'w');
    assert_eq!(all_moves(&pos).len(), 18, "17 rook moves plus the capture");
    play(&mut pos, &["a5a1"]);
    assert!(pos.pieces_by_color(Color::White).is_empty());
    assert!(pos.pieces_by_color(Color::Black).is_empty());
    assert_eq!(
        pos.status(),
        won(Color::White, Termination::LastUnitCaptured)
    );
    assert_eq!(perft(&mut pos, 1), 0);
    // An ordinary capture of the last unit wins too.
    let mut pos = at("Ra5 Kj2 ne5", 'w');
    play(&mut pos, &["a5e5"]);
    assert_eq!(
        pos.status(),
        won(Color::White, Termination::LastUnitCaptured)
    );
    assert!(pos.legal_moves().is_empty());
}

#[test]
fn any_other_suicide_capture_of_ones_own_last_unit_is_illegal() {
    // Black has a second unit, so Ra5xa1 would leave White with nothing: illegal.
    let pos = at("Ra5 na1 kj9", 'w');
    let list = all_moves(&pos);
    assert!(!list.contains("a5a1"));
    assert_eq!(list.len(), 17);
    // With a second white unit it is legal.
    let pos = at("Ra5 Pj2 na1 kj9", 'w');
    assert!(all_moves(&pos).contains("a5a1"));
    // A pawn is a unit: with a black pawn left, the knight is not Black's last unit.
    let pos = at("Ra5 na1 pj9", 'w');
    assert!(!all_moves(&pos).contains("a5a1"));
    // In check the rule still holds: the only relieving capture is a forbidden suicide, so
    // White has no legal move and loses.
    let pos = at("Ra5 ka1 kj9", 'w');
    assert!(pos.in_check());
    assert!(pos.legal_moves().is_empty());
    assert_eq!(
        pos.status(),
        won(Color::Black, Termination::CheckUnanswered)
    );
    // Unless it takes Black's last unit.
    let pos = at("Ra5 ka1", 'w');
    assert_eq!(all_moves(&pos), set(&["a5a1"]));
}

#[test]
fn promotion_is_forced_on_the_tenth_rank_to_a_lost_piece_only() {
    // White still has D, O, S and A: the pawn may become only M or Q, on b10 or by taking c10.
    let pos = at("Pb9 Dc1 Od1 Se1 Af1 Kj1 rc10 kj8", 'w');
    let pawn_moves: Vec<String> = all_moves(&pos)
        .into_iter()
        .filter(|m| m.starts_with("b9"))
        .collect();
    assert_eq!(pawn_moves, ["b9b10m", "b9b10q", "b9c10m", "b9c10q"]);
    // Black promotes on rank 1, here only to a queen.
    let pos = at("Kj9 pb2 da10 ob10 sc10 ad10 me10 kj5", 'b');
    let pawn_moves: Vec<String> = all_moves(&pos)
        .into_iter()
        .filter(|m| m.starts_with("b2"))
        .collect();
    assert_eq!(pawn_moves, ["b2b1q"]);
}

#[test]
fn no_entry_to_the_tenth_rank_when_nothing_is_lost() {
    // All six of D, O, S, A, M, Q are on the board: the pawn can neither step nor capture
    // onto rank 10, though it still attacks c10.
    let pos = at("Pb9 Dc1 Od1 Se1 Af1 Mg1 Qh1 rc10 kj8", 'w');
    assert!(all_moves(&pos).iter().all(|m| !m.starts_with("b9")));
}

#[test]
fn pawns_double_step_and_capture_en_passant() {
    // From the start rank one or two steps; from the third rank one.
    let pos = at("Pe2 Pg3 kj9", 'w');
    let list = all_moves(&pos);
    assert!(list.contains("e2e3") && list.contains("e2e4"));
    assert!(list.contains("g3g4") && !list.contains("g3g5"));
    // Black double-steps past the white pawn on e7, which takes en passant on f8.
    let mut pos = at("Pe7 Kj1 pf9 ka9", 'b');
    play(&mut pos, &["f9f7"]);
    assert_eq!(pos.en_passant_square(), Some(sq("f8")));
    play(&mut pos, &["e7f8"]);
    assert_eq!(letter_at(&pos, "f8"), Some('P'));
    assert_eq!(letter_at(&pos, "f7"), None);
    // And the other way round: White double-steps past a black pawn on e4.
    let mut pos = at("Pd2 Kj1 pe4 ka9", 'w');
    play(&mut pos, &["d2d4"]);
    assert_eq!(pos.en_passant_square(), Some(sq("d3")));
    play(&mut pos, &["e4d3"]);
    assert_eq!(letter_at(&pos, "d3"), Some('p'));
    assert_eq!(letter_at(&pos, "d4"), None);
}

#[test]
fn en_passant_is_never_suicide() {
    // En passant lands on rank 3 or 8, never on a tenth rank, and the capturer stays (even
    // when the victim's side is down to its last units).
    let mut pos = at("Pd2 pe4 ka9", 'w');
    play(&mut pos, &["d2d4"]);
    play(&mut pos, &["e4d3"]);
    assert_eq!(letter_at(&pos, "d3"), Some('p'));
    assert!(pos.pieces_by_color(Color::White).is_empty());
    assert_eq!(
        pos.status(),
        won(Color::Black, Termination::LastUnitCaptured)
    );
}

#[test]
fn no_legal_move_without_check_is_stalemate() {
    // White's only unit, a pawn on a2, is blocked by the knight on a3 and has nothing to take.
    let pos = at("Pa2 na3 kj9", 'w');
    assert!(!pos.in_check());
    assert!(pos.legal_moves().is_empty());
    assert_eq!(
        pos.status(),
        GameStatus::Finished {
            winner: None,
            reason: Termination::Stalemate
        }
    );
}

#[test]
fn suicide_captures_reset_the_fifty_move_count() {
    let mut pos = common::pos("decima", &fen_with_clock("Ra5 Kj2 na1 kj9", 'w', 57));
    play(&mut pos, &["j2i2"]);
    assert_eq!(pos.halfmove_clock(), 58);
    play(&mut pos, &["j9i9"]);
    play(&mut pos, &["a5a1"]);
    assert_eq!(letter_at(&pos, "a1"), None);
    assert_eq!(pos.halfmove_clock(), 0);
    // The fifty-move rule itself applies.
    let pos = common::pos("decima", &fen_with_clock("Ra5 Kj2 na1 kj9", 'w', 100));
    assert_eq!(
        pos.status(),
        GameStatus::Finished {
            winner: None,
            reason: Termination::FiftyMoveRule
        }
    );
}

#[test]
fn threefold_repetition_draws() {
    let mut pos = at("Ka5 kj5", 'w');
    for m in [
        "a5a6", "j5j6", "a6a5", "j6j5", "a5a6", "j5j6", "a6a5", "j6j5",
    ] {
        play(&mut pos, &[m]);
    }
    assert_eq!(
        pos.status(),
        GameStatus::Finished {
            winner: None,
            reason: Termination::ThreefoldRepetition
        }
    );
}

#[test]
fn promoting_capture_onto_the_tenth_rank_is_not_suicide_and_scores_at_once() {
    // White has lost every D..Q. b9xc10=Q keeps the new queen on c10; with the knight on a10
    // that is 9 + 1 = 10: check. Black answers with the bishop (e8xc10) or the knight, which
    // can take either piece (b8xa10, b8xc10); the king h5 may not move.
    let mut pos = at("Pb9 Na10 Kj1 rc10 be8 nb8 kh5", 'w');
    let m = pos.parse_move("b9c10q").unwrap();
    assert_eq!(pos.san(m), "bxc10=Q+");
    pos.play(m);
    assert_eq!(letter_at(&pos, "c10"), Some('Q'));
    assert_eq!(pos.score(Color::White), 10);
    assert!(pos.in_check());
    assert_eq!(all_moves(&pos), set(&["b8a10", "b8c10", "e8c10"]));
    // A quiet promotion gives check as well, here mate: nothing black reaches rank 10.
    let mut pos = at("Pb9 Na10 Kj1 kh5", 'w');
    let m = pos.parse_move("b9b10q").unwrap();
    assert_eq!(pos.san(m), "b10=Q#");
    pos.play(m);
    assert_eq!(
        pos.status(),
        won(Color::White, Termination::CheckUnanswered)
    );
}

#[test]
fn turn_start_order_no_units_first_then_scores_then_enemy_units() {
    // The side to move has no units: it has lost, whatever the scores (Black's king on a1
    // would be worth 10).
    let pos = at("ka1", 'w');
    assert_eq!(
        pos.status(),
        won(Color::Black, Termination::LastUnitCaptured)
    );
    let pos = at("Ka10", 'b');
    assert_eq!(
        pos.status(),
        won(Color::White, Termination::LastUnitCaptured)
    );
    // The opponent has no units (hand-made): the side to move has won.
    let pos = at("Ra5", 'w');
    assert_eq!(
        pos.status(),
        won(Color::White, Termination::LastUnitCaptured)
    );
    assert!(pos.legal_moves().is_empty());
    // Own score before an empty opponent: reported as the ten-point win.
    let pos = at("Ka10", 'w');
    assert_eq!(pos.status(), won(Color::White, Termination::TenPoints));
}

#[test]
fn decima_is_in_the_registry_and_speaks_every_notation() {
    let registry = Registry::builtin();
    assert!(registry.names().contains(&"decima"));
    let mut pos = Position::new(registry.get("decima").unwrap());
    let fen = pos.fen();
    assert_eq!(fen, variant("decima").start_fen());
    // e2 and f2 hold the kings; d2 is a pawn.
    let m = pos.parse_move("d2d4").unwrap();
    assert_eq!(pos.san(m), "d4");
    assert_eq!(pos.parse_move("d4").unwrap(), m);
    // Both kings reach e3, so SAN names the file, and reads back.
    let king_move = pos.parse_move("e2e3").unwrap();
    assert_eq!(pos.san(king_move), "Kee3");
    assert_eq!(
        pos.parse_move("Kfe3").unwrap(),
        pos.parse_move("f2e3").unwrap()
    );
    pos.play(m);
    let m = pos.parse_move("a9c8").unwrap();
    assert_eq!(pos.san(m), "Nc8");
    pos.play(m);
    let again = common::pos("decima", &pos.fen());
    assert_eq!(again.fen(), pos.fen());
    assert_eq!(again.hash(), pos.hash());
}

// ---------------------------------------------------------------------------------------------
// Perft
// ---------------------------------------------------------------------------------------------

/// `perft` (make/unmake, bulk count) = `perft_copy_make` (copy, no bulk count) = sum of
/// `divide`, at every depth up to `depth`; returns the counts.
fn consistent_perft(fen: &str, depth: u32) -> Vec<u64> {
    let mut pos = common::pos("decima", fen);
    let before = pos.clone();
    (1..=depth)
        .map(|d| {
            let fast = perft(&mut pos, d);
            assert_eq!(pos, before, "perft must leave the position unchanged");
            assert_eq!(
                fast,
                perft_copy_make(&pos, d),
                "copy-make, depth {d}, {fen}"
            );
            let split: u64 = divide(&mut pos, d).iter().map(|(_, n)| n).sum();
            assert_eq!(fast, split, "divide sum, depth {d}, {fen}");
            fast
        })
        .collect()
}

#[test]
fn perft_is_consistent_from_the_start_position() {
    // Ply 1 by hand (White, from rbmaqsodbr/npppkkpppn/.../NPPPKKPPPN/RBMAQSODBR):
    //   six pawns, one or two steps: 12;
    //   knights a2 -> b4 c3, j2 -> i4 h3 (c1 and h1 are friendly): 4;
    //   kings e2 -> d3 e3 f3, f2 -> e3 f3 g3: 6;
    //   marshall c1 -> b3 d3, palladin d1 -> c3 e3, duke h1 -> g3 i3 (knight leaps; every
    //   step and slide is blocked): 6;
    //   rooks, bishops, queen, seneschal, pope: boxed in: 0.  Total 28.
    // Ply 2: the armies cannot touch in one move each and Black mirrors White: 28 * 28 = 784.
    // Ply 3 (29151) has no outside reference (no public engine plays contest Decima); it is
    // the three-way consistent count, kept as a regression value.
    let counts = consistent_perft(variant("decima").start_fen(), 3);
    assert_eq!(counts, [28, 784, 29_151]);
}

/// Positions where the special rules fire: check pending, suicide captures available, last
/// units, promotions (lost and not), en passant.
const SPECIAL: [&str; 8] = [
    // Black in check with three relieving suicide captures.
    "Na10 Qj1 Rh3 Kc3 ra5 nb8 bh8 ke5 ng5",
    // Suicide captures for both sides on both back ranks, no check.
    "Ra5 Rj5 Kc3 Bd4 na1 bj10 ke8 rc6",
    // Last units: rook against knight and king.
    "Ra5 na1 kj9",
    // Lone units: every capture ends the game.
    "Ra5 nb3",
    // Promotions: M or Q only, by step or capture; a black pawn too.
    "Pb9 Dc1 Od1 Se1 Af1 Kj1 rc10 kj8 pi2",
    // Promotion to any of six, with the knight already on a10 (so most promotions check).
    "Pb9 Na10 Kj1 rc10 be8 nb8 kh5",
    // Pawns able to double-step past enemy pawns (en passant at the next ply).
    "Pd2 Pf2 Kj1 pe4 pg9 Ph7 ka9",
    // White one capture away from ten, Black defending on rank 10.
    "Kb9 Nd8 Ra1 ka10 rj9 qe5 kh3",
];

#[test]
fn perft_is_consistent_where_the_special_rules_fire() {
    for pieces in SPECIAL {
        for side in ['w', 'b'] {
            let f = fen(pieces, side);
            let counts = consistent_perft(&f, 3);
            assert!(
                counts[0] > 0 || common::pos("decima", &f).status().is_finished(),
                "{f}"
            );
        }
    }
}

#[test]
fn perft_by_hand_two_kings_and_a_pawn_each() {
    // White: kings a1, j1, pawn e2. Black: kings a10, j10, pawn e9. Nothing can reach
    // anything within three plies, no piece gets near a tenth rank.
    // Ply 1 (White): Ka1 -> a2 b1 b2 (3), Kj1 -> i1 i2 j2 (3), e2 -> e3 e4 (2) = 8.
    // Ply 2: Black mirrors that, 8 replies after each, unaffected by White's move = 64.
    // Ply 3: White's count after its own first move, times Black's 8 replies:
    //   king to an edge square (a2, b1, i1, j2): 5 + 3 + 2 = 10, four such moves = 40;
    //   king to b2 or i2: 8 + 3 + 2 = 13, two moves = 26;
    //   pawn to e3 or e4: 3 + 3 + 1 = 7, two moves = 14;
    //   (40 + 26 + 14) * 8 = 640.
    let f = fen("Ka1 Kj1 Pe2 ka10 kj10 pe9", 'w');
    assert_eq!(consistent_perft(&f, 3), [8, 64, 640]);
}

#[test]
fn perft_by_hand_check_with_exactly_two_relieving_captures() {
    // White's king on a10 scores 10: Black is in check. Black's answers: ra5xa10 and nb8xa10,
    // both suicide captures; the black king e5 may not make a quiet move. = 2.
    // Ply 2: after either capture White has only Kj2: j1 j3 i1 i2 i3 = 5; 2 * 5 = 10.
    let f = fen("Ka10 Kj2 ra5 nb8 ke5", 'b');
    assert_eq!(consistent_perft(&f, 2), [2, 10]);
}

#[test]
fn perft_by_hand_last_unit_suicide() {
    // White's rook c5 is its last unit; Black has nc1 and kj9. Rook: c6..c10 (5), c4 c3 c2
    // (3), a5 b5 d5..j5 (2 + 7 = 9) = 17; c5xc1 is a suicide with the last unit and Black
    // keeps a unit, so it is illegal.
    let f = fen("Rc5 nc1 kj9", 'w');
    assert_eq!(consistent_perft(&f, 1), [17]);
    // Without the black king, c5xc1 takes Black's last unit and is legal: 18.
    // Ply 2: after c5xc1 the board is empty and Black, to move, has lost: 0. After each of
    // the other 17 rook moves the knight c1 has a2 b3 d3 e2 (none on the rook's lines) = 4.
    // 17 * 4 = 68.
    let f = fen("Rc5 nc1", 'w');
    assert_eq!(consistent_perft(&f, 2), [18, 68]);
}

#[test]
fn perft_by_hand_suicide_capture_empties_the_square() {
    // White: Ra5, Kj2. Black: na1 (9 points on rank 1, not 10: no check), pb2, kj9.
    // Ply 1: rook a6..a10 (5), a4 a3 a2 (3), a5xa1 (a suicide, legal: White keeps its king)
    // (1), b5..j5 (9) = 18; king j2 -> j1 j3 i1 i2 i3 (5). Total 23.
    // Ply 2, Black's replies. Normally: knight a1 -> b3 c2 (2), pawn b2 -> b1 promoting to
    // any of the six lost D O S A M Q (6; a1 is its own knight, c1 is empty), king j9 -> i8
    // j8 i9 i10 j10 (5) = 13; no white move but one changes that (the rook on a2 is beside
    // the pawn, not in front of it or diagonally ahead). 22 * 13 = 286.
    // After a5xa1 the rook has gone with the knight, so a1 is empty and the pawn cannot
    // capture there: pawn 6 + king 5 = 11 (had the rook stayed, b2xa1 would add 6).
    // 286 + 11 = 297.
    let f = fen("Ra5 Kj2 na1 pb2 kj9", 'w');
    assert_eq!(consistent_perft(&f, 2), [23, 297]);
}

#[test]
fn perft_by_hand_promotion_to_lost_pieces() {
    // White: pawn b9 and king j1; all six of D O S A M Q are lost. b9-b10 promotes to any of
    // them (6), Kj1 -> i1 i2 j2 (3) = 9. No promoted piece is worth 10, so no check.
    // Ply 2: Black's king j10 has i10 i9 j9 after every white move (nothing can be captured:
    // the promoted piece is on b10) = 9 * 3 = 27.
    let f = fen("Pb9 Kj1 kj10", 'w');
    assert_eq!(consistent_perft(&f, 2), [9, 27]);
    // The pawn's share of ply 1, through divide: one move per promotion choice.
    let mut pos = at("Pb9 Kj1 kj10", 'w');
    let pawn: Vec<Move> = divide(&mut pos, 1)
        .into_iter()
        .map(|(m, _)| m)
        .filter(|m| m.from() == Some(sq("b9")))
        .collect();
    assert_eq!(pawn.len(), 6);
}

#[test]
fn perft_by_hand_stalemate_and_decided_positions_are_empty() {
    // Stalemate: the blocked pawn has no move; a decided position has none either.
    for f in [
        fen("Pa2 na3 kj9", 'w'),
        fen("Ka10 ra5", 'w'),
        fen("Ra5", 'w'),
        fen("Ka10 ke5", 'w'),
    ] {
        let mut pos = common::pos("decima", &f);
        assert_eq!(perft(&mut pos, 1), 0, "{f}");
        assert_eq!(perft(&mut pos, 3), 0, "{f}");
        assert_eq!(perft_copy_make(&pos, 2), 0, "{f}");
    }
}

// ---------------------------------------------------------------------------------------------
// Property tests over random playouts
// ---------------------------------------------------------------------------------------------

/// Starting points for playouts: the start position and special positions for both sides.
fn playout_starts() -> Vec<String> {
    let mut starts = vec![variant("decima").start_fen().to_owned()];
    for pieces in SPECIAL {
        for side in ['w', 'b'] {
            starts.push(fen(pieces, side));
        }
    }
    starts
}

/// Decima's pieces, board and pawns under [`RuleSet::Standard`]: with no royal piece, its
/// legal moves are Decima's moves before any Decima rule, and its make-move never removes a
/// capturer. The oracle below re-applies the rule book to it, independently of the engine's
/// `RuleSet::Decima` code.
fn unruled_twin() -> Arc<Variant> {
    let mut spec = variant("decima").spec().clone();
    spec.name = "decima-unruled".into();
    spec.rules = RuleSet::Standard;
    spec.validate().unwrap()
}

fn same_board(twin: &Arc<Variant>, pos: &Position) -> Position {
    Position::from_fen(twin.clone(), &pos.fen()).unwrap()
}

/// The square rank (0-based) of the enemy's tenth rank, where `mover`'s captures are suicides.
fn enemy_tenth_rank(mover: Color) -> u8 {
    match mover {
        Color::White => 0,
        Color::Black => 9,
    }
}

/// The result at the start of the turn and the legal moves, straight from RULES.md §2,
/// computed on the twin.
fn oracle(twin: &Arc<Variant>, pos: &Position) -> (Option<GameStatus>, Vec<Move>) {
    let us = pos.side_to_move();
    let units = |c: Color| pos.pieces_by_color(c).count();
    let decided = if units(us) == 0 {
        Some(won(!us, Termination::LastUnitCaptured))
    } else if score_from_scratch(pos, us) >= 10 {
        Some(won(us, Termination::TenPoints))
    } else if units(!us) == 0 {
        Some(won(us, Termination::LastUnitCaptured))
    } else {
        None
    };
    if decided.is_some() {
        return (decided, Vec::new());
    }
    let their_score = score_from_scratch(pos, !us);
    let plain = same_board(twin, pos);
    let moves: Vec<Move> = plain
        .legal_moves()
        .into_iter()
        .filter(|&m| {
            let (suicide, points) = match m.kind() {
                MoveKind::Normal { to, .. } => pos.piece_at(to).map_or((false, 0), |victim| {
                    (
                        to.rank() == enemy_tenth_rank(us),
                        u32::from(pos.variant().piece(victim.kind()).points),
                    )
                }),
                _ => (false, 0),
            };
            let relieves = suicide && their_score - points <= 9;
            let last_unit_ok = !suicide || units(us) > 1 || units(!us) == 1;
            (their_score < 10 || relieves) && last_unit_ok
        })
        .collect();
    let status = moves.is_empty().then(|| {
        if their_score >= 10 {
            won(!us, Termination::CheckUnanswered)
        } else {
            GameStatus::Finished {
                winner: None,
                reason: Termination::Stalemate,
            }
        }
    });
    (status, moves)
}

/// Plays `m` on the twin and removes the capturer when the rule book says so: the board
/// Decima must reach.
fn oracle_after(twin: &Arc<Variant>, pos: &Position, m: Move) -> Vec<Option<char>> {
    let mut plain = same_board(twin, pos);
    let suicide = match m.kind() {
        MoveKind::Normal { to, .. } => {
            pos.piece_at(to).is_some() && to.rank() == enemy_tenth_rank(pos.side_to_move())
        }
        _ => false,
    };
    plain.play(m);
    let mut board = board_letters(&plain);
    if suicide {
        board[usize::from(m.to().rank()) * 10 + usize::from(m.to().file())] = None;
    }
    board
}

/// The board as FEN letters, rank 1 first.
fn board_letters(pos: &Position) -> Vec<Option<char>> {
    (0..10)
        .flat_map(|rank| (0..10).map(move |file| (file, rank)))
        .map(|(file, rank)| {
            let square = Square::from_coords(file, rank).unwrap();
            letter_at(pos, &square.to_string())
        })
        .collect()
}

/// Checks every invariant in `pos`; returns false when the game is over.
fn check_invariants(twin: &Arc<Variant>, pos: &mut Position) -> bool {
    let fen = pos.fen();
    // Hash and FEN.
    assert_eq!(pos.hash(), pos.compute_hash(), "{fen}");
    if fen.starts_with("10/10/10/10/10/10/10/10/10/10 ") {
        // A suicide capture of the last unit by the last unit ends the game on an empty
        // board, which RULES.md rules an impossible position as a FEN: it must not read back.
        assert!(
            Position::from_fen(variant("decima"), &fen).is_err(),
            "{fen}"
        );
    } else {
        let reread = common::pos("decima", &fen);
        assert_eq!(reread.fen(), fen);
        assert_eq!(reread.hash(), pos.hash(), "{fen}");
    }
    // Score against a from-scratch count.
    for color in Color::ALL {
        assert_eq!(pos.score(color), score_from_scratch(pos, color), "{fen}");
    }
    let us = pos.side_to_move();
    let status = pos.status();
    let legal = pos.legal_moves();
    assert_eq!(legal.len() as u64, pos.count_legal_moves(), "{fen}");
    // The same moves and turn-start result as the rule book applied to the unruled twin.
    let (expected_status, mut expected) = oracle(twin, pos);
    let mut sorted = legal.clone();
    sorted.sort_by_key(|&m| pos.uci(m));
    expected.sort_by_key(|&m| pos.uci(m));
    assert_eq!(sorted, expected, "legal moves of {fen}");
    if let Some(expected_status) = expected_status {
        assert_eq!(status, expected_status, "{fen}");
    }
    // Status consistent with the board.
    assert_eq!(
        pos.in_check(),
        score_from_scratch(pos, !us) >= 10,
        "check means the opponent has ten: {fen}"
    );
    if let GameStatus::Finished { winner, reason } = status {
        match reason {
            Termination::TenPoints => {
                assert_eq!(winner, Some(us), "{fen}");
                assert!(score_from_scratch(pos, us) >= 10, "{fen}");
            }
            Termination::CheckUnanswered => {
                assert_eq!(winner, Some(!us), "{fen}");
                assert!(pos.in_check() && legal.is_empty(), "{fen}");
            }
            Termination::LastUnitCaptured => {
                let loser = winner.map(|w| !w).expect("a winner");
                assert!(pos.pieces_by_color(loser).is_empty(), "{fen}");
            }
            Termination::Stalemate => assert!(legal.is_empty() && !pos.in_check(), "{fen}"),
            Termination::FiftyMoveRule | Termination::ThreefoldRepetition => {}
            other => panic!("{other:?} does not exist in Decima: {fen}"),
        }
        // A decided position has no legal moves, except for the draws by rule, which are
        // claimed over moves that still exist.
        if !matches!(
            reason,
            Termination::FiftyMoveRule | Termination::ThreefoldRepetition
        ) {
            assert!(legal.is_empty(), "decided but has moves: {fen}");
            return false;
        }
    } else {
        assert!(!legal.is_empty(), "ongoing without moves: {fen}");
    }
    if pos.in_check() {
        // In check, every legal move is a capture that brings the opponent to 9 or less.
        for &m in &legal {
            let mut after = pos.clone();
            after.play(m);
            assert!(
                after.score(!us) <= 9,
                "{} does not answer check in {fen}",
                pos.uci(m)
            );
        }
    }
    let before = pos.clone();
    for &m in &legal {
        // Move text round-trips.
        let text = pos.uci(m);
        assert_eq!(pos.parse_move(&text).unwrap(), m, "{text} in {fen}");
        // Make/unmake restores the position and hash exactly.
        let expected_board = oracle_after(twin, pos, m);
        pos.play(m);
        assert_eq!(
            board_letters(pos),
            expected_board,
            "board after {text} in {fen}"
        );
        assert_eq!(pos.hash(), pos.compute_hash(), "{text} in {fen}");
        let units_after = pos.pieces_by_color(us).count();
        let enemy_after = pos.pieces_by_color(!us).count();
        pos.unmake();
        assert_eq!(*pos, before, "{text} in {fen}");
        // The last-unit rule: a move never leaves its own side empty unless it also empties
        // the other side.
        assert!(units_after > 0 || enemy_after == 0, "{text} in {fen}");
    }
    !legal.is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_playouts_keep_every_invariant(
        start in 0usize..17,
        choices in proptest::collection::vec(any::<u16>(), 1..80),
    ) {
        let starts = playout_starts();
        let twin = unruled_twin();
        let mut pos = common::pos("decima", &starts[start % starts.len()]);
        for choice in choices {
            if !check_invariants(&twin, &mut pos) {
                break;
            }
            let legal = pos.legal_moves();
            let m = legal[usize::from(choice) % legal.len()];
            pos.play(m);
        }
    }

    /// Captures are played whenever there are any, so the special rules (suicide, last
    /// unit, check) are reached often even from the start position.
    #[test]
    fn capture_greedy_playouts_keep_every_invariant(
        start in 0usize..17,
        choices in proptest::collection::vec(any::<u16>(), 1..120),
    ) {
        let starts = playout_starts();
        let twin = unruled_twin();
        let mut pos = common::pos("decima", &starts[start % starts.len()]);
        for choice in choices {
            if !check_invariants(&twin, &mut pos) {
                break;
            }
            let legal = pos.legal_moves();
            let captures: Vec<Move> =
                legal.iter().copied().filter(|&m| pos.is_capture(m)).collect();
            let pool = if captures.is_empty() { &legal } else { &captures };
            let m = pool[usize::from(choice) % pool.len()];
            pos.play(m);
        }
    }
}
