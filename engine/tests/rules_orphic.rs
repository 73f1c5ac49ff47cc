//! Orphic Chess (RULES.md §4 and its fine points): one test per rule, the start position's 712
//! moves derived by category, perft consistency, and property tests over random playouts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::{all_moves, legal, letter_at, play, sq, variant};
use proptest::prelude::*;
use variant_engine::{
    Color, GameStatus, Move, MoveKind, PieceKind, Position, Registry, Square, Termination, Variant,
    colour_right_bit, divide, perft, perft_copy_make,
};

fn orphic() -> Arc<Variant> {
    variant("orphic")
}

fn pos(fen: &str) -> Position {
    common::pos("orphic", fen)
}

fn kind(letter: char) -> PieceKind {
    orphic().kind_by_letter(letter).unwrap()
}

const WHITE_LIGHT: u8 = colour_right_bit(Color::White, true);
const WHITE_DARK: u8 = colour_right_bit(Color::White, false);

// ---------------------------------------------------------------------------------------------
// Setup, FEN, pocket and rights.

#[test]
fn start_position_matches_the_rule_book() {
    let p = Position::new(orphic());
    assert_eq!(p.fen(), orphic().start_fen());
    assert_eq!(
        orphic().start_fen(),
        "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRBBNNKqrrbbnnk] w LDld - 0 1"
    );
    for color in Color::ALL {
        for (letter, n) in [('Q', 1), ('R', 2), ('B', 2), ('N', 2), ('K', 1), ('P', 0)] {
            assert_eq!(p.pocket_count(color, kind(letter)), n, "{color:?} {letter}");
        }
    }
    assert_eq!(p.drop_rights(), 0b1111);
    assert_eq!(p.royal_square(Color::White), None);
    assert!(!p.in_check());
}

#[test]
fn fen_pocket_is_written_in_qrbnk_order_per_side() {
    let p = pos("8/8/pppppppp/8/8/PPPPPPPP/8/8[kNnKBQbRq] w Ld - 0 1");
    assert_eq!(
        p.fen(),
        "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRBNKqbnk] w Ld - 0 1"
    );
}

#[test]
fn fen_empty_pocket_reads_both_forms_and_writes_brackets() {
    let written = "4k3/8/8/8/8/8/8/4K3[] w - - 0 1";
    assert_eq!(pos(written).fen(), written);
    assert_eq!(pos("4k3/8/8/8/8/8/8/4K3[-] w - - 0 1").fen(), written);
    assert_eq!(
        pos(written).hash(),
        pos("4k3/8/8/8/8/8/8/4K3[-] w - - 0 1").hash()
    );
}

#[test]
fn fen_rights_round_trip_every_subset() {
    let letters = ['L', 'D', 'l', 'd'];
    for mask in 0u8..16 {
        let rights: String = letters
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 != 0)
            .map(|(_, l)| *l)
            .collect();
        let field = if rights.is_empty() { "-" } else { &rights };
        // A valid FEN holds one bishop in hand per right (RULES.md: impossible positions).
        let white = "B".repeat((mask & 3).count_ones() as usize);
        let black = "b".repeat((mask >> 2).count_ones() as usize);
        let fen = format!("4k3/8/8/8/8/8/8/4K3[{white}{black}] w {field} - 0 1");
        let p = pos(&fen);
        assert_eq!(p.fen(), fen);
        assert_eq!(p.drop_rights(), mask, "{fen}");
    }
    // Read in any order, written in LDld order.
    assert_eq!(
        pos("4k3/8/8/8/8/8/8/4K3[Bbb] w dLl - 0 1").fen(),
        "4k3/8/8/8/8/8/8/4K3[Bbb] w Lld - 0 1"
    );
}

#[test]
fn fen_rejects_castling_and_repeated_rights() {
    let v = orphic();
    for rights in ["K", "LL", "LDx", "Q"] {
        let fen = format!("4k3/8/8/8/8/8/8/4K3[Bb] w {rights} - 0 1");
        assert!(Position::from_fen(v.clone(), &fen).is_err(), "{fen}");
    }
}

#[test]
fn fen_rejects_a_missing_or_doubled_king() {
    let v = orphic();
    // No king anywhere for White; two for Black (board + pocket).
    assert!(Position::from_fen(v.clone(), "4k3/8/8/8/8/8/8/8[Q] w - - 0 1").is_err());
    assert!(Position::from_fen(v, "4k3/8/8/8/8/8/8/4K3[k] w - - 0 1").is_err());
}

// ---------------------------------------------------------------------------------------------
// Drops onto empty squares and onto friendly pawns.

#[test]
fn pieces_drop_on_every_empty_square() {
    let p = pos("4k3/8/3p4/8/2P5/8/8/8[NKq] w - - 0 1");
    let drops: BTreeSet<Square> = p
        .legal_moves()
        .into_iter()
        .filter_map(|m| match m.kind() {
            MoveKind::Drop {
                kind: k,
                to,
                relocation: None,
            } if k == kind('N') => Some(to),
            _ => None,
        })
        .collect();
    let empty: BTreeSet<Square> = p
        .variant()
        .size()
        .squares()
        .filter(|&s| p.piece_at(s).is_none())
        .collect();
    assert_eq!(drops, empty);
    assert_eq!(drops.len(), 61);
    assert!(!legal(&p, "N@e8"), "occupied by the enemy king");
    assert!(!legal(&p, "N@d6"), "occupied by an enemy pawn");
}

#[test]
fn drop_onto_friendly_pawn_relocates_it() {
    let mut p = Position::new(orphic());
    play(&mut p, &["N@e3,c2"]);
    assert_eq!(letter_at(&p, "e3"), Some('N'));
    assert_eq!(letter_at(&p, "c2"), Some('P'));
    assert_eq!(p.pocket_count(Color::White, kind('N')), 1);
    assert_eq!(
        p.fen(),
        "8/8/pppppppp/8/8/PPPPNPPP/2P5/8[QRRBBNKqrrbbnnk] b LDld - 0 1"
    );
    play(&mut p, &["n@d6,h5"]);
    assert_eq!(letter_at(&p, "d6"), Some('n'));
    assert_eq!(letter_at(&p, "h5"), Some('p'));
}

#[test]
fn relocation_target_must_be_on_ranks_two_to_four() {
    let p = pos("4k3/8/8/8/8/4P3/8/8[NKq] w - - 0 1");
    for ok in ["N@e3,a2", "N@e3,h2", "N@e3,d3", "N@e3,a4", "N@e3,h4"] {
        assert!(legal(&p, ok), "{ok}");
    }
    for bad in ["N@e3,a1", "N@e3,e1", "N@e3,a5", "N@e3,e5", "N@e3,h8"] {
        assert!(!legal(&p, bad), "{bad}");
    }
    let relocations: BTreeSet<Square> = p
        .legal_moves()
        .into_iter()
        .filter_map(|m| match m.kind() {
            MoveKind::Drop {
                relocation: Some(r),
                ..
            } => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(relocations.len(), 23, "ranks 2-4 minus the drop square");
    assert!(relocations.iter().all(|r| (1..=3).contains(&r.rank())));
}

#[test]
fn black_relocation_target_must_be_on_ranks_seven_to_five() {
    let p = pos("8/8/4p3/8/8/8/8/4K3[Qnk] b - - 0 1");
    for ok in ["N@e6,a7", "N@e6,d6", "N@e6,h5"] {
        assert!(legal(&p, ok), "{ok}");
    }
    for bad in ["N@e6,a8", "N@e6,e4", "N@e6,a2"] {
        assert!(!legal(&p, bad), "{bad}");
    }
}

#[test]
fn relocation_square_must_be_empty_before_the_drop() {
    let p = pos("4k3/8/8/8/8/3PP3/3n4/8[NKq] w - - 0 1");
    assert!(!legal(&p, "N@e3,e3"), "the drop square itself");
    assert!(!legal(&p, "N@e3,d3"), "a friendly pawn");
    assert!(!legal(&p, "N@e3,d2"), "an enemy piece");
    assert!(legal(&p, "N@e3,e2"));
}

#[test]
fn drops_only_onto_pawns_not_other_friendly_pieces() {
    let p = pos("4k3/8/8/8/8/R7/8/8[NKq] w - - 0 1");
    assert!(!legal(&p, "N@a3,a2"));
    assert!(!legal(&p, "N@a3"));
}

#[test]
fn relocation_drop_refused_in_check_while_plain_block_allowed() {
    // White king e1 checked by the rook on e8; pawns a3 and h3 could be dropped on.
    let p = pos("4r2k/8/8/8/8/P6P/8/4K3[NQ] w - - 0 1");
    assert!(p.in_check());
    assert!(legal(&p, "N@e2"), "plain blocking drop");
    assert!(legal(&p, "Q@e5"), "plain blocking drop");
    assert!(!legal(&p, "N@a5"), "plain drop that does not block");
    assert!(
        !legal(&p, "N@a3,e2"),
        "relocation would block, but is refused in check"
    );
    assert!(
        p.legal_moves().into_iter().all(|m| !matches!(
            m.kind(),
            MoveKind::Drop {
                relocation: Some(_),
                ..
            }
        )),
        "no relocation drop at all in check"
    );
    // Out of check the same relocation is fine.
    let q = pos("7k/8/8/8/8/P6P/8/4K3[NQr] w - - 0 1");
    assert!(legal(&q, "N@a3,e2"));
}

#[test]
fn relocation_leaves_the_drop_square_blocked() {
    // Not in check: a relocation never opens a line (the drop square stays occupied), so every
    // relocation of the pinned-looking pawn on e2 is legal.
    let p = pos("4r2k/8/8/8/8/8/4P3/4K3[N] w - - 0 1");
    assert!(!p.in_check());
    assert!(legal(&p, "N@e2,a4"));
    let relocations = p
        .legal_moves()
        .into_iter()
        .filter(|m| {
            matches!(
                m.kind(),
                MoveKind::Drop {
                    relocation: Some(_),
                    ..
                }
            )
        })
        .count();
    assert_eq!(relocations, 23, "every empty square of ranks 2-4");
    // The knight now on e2 is pinned in its turn.
    let mut q = p.clone();
    play(&mut q, &["N@e2,a4"]);
    play(&mut q, &["h8g8"]);
    assert!(
        q.legal_moves()
            .into_iter()
            .all(|m| m.from() != Some(sq("e2")))
    );
}

// ---------------------------------------------------------------------------------------------
// Bishop colour rights.

#[test]
fn bishop_drop_uses_its_square_colour_right() {
    let mut p = Position::new(orphic());
    assert!(sq("c4").is_light() && !sq("c1").is_light() && !sq("a1").is_light());
    play(&mut p, &["B@c4"]);
    assert_eq!(p.drop_rights() & (WHITE_LIGHT | WHITE_DARK), WHITE_DARK);
    assert!(p.fen().contains(" b Dld "), "{}", p.fen());
    play(&mut p, &["n@a5"]);
    assert!(!legal(&p, "B@e4"), "light square right used");
    assert!(legal(&p, "B@d4"), "dark square right remains");
    play(&mut p, &["B@d4"]);
    assert_eq!(p.drop_rights() & (WHITE_LIGHT | WHITE_DARK), 0);
}

#[test]
fn bishop_relocation_drop_uses_its_square_colour_right() {
    let mut p = Position::new(orphic());
    assert!(!sq("e3").is_light() && !sq("c3").is_light() && sq("d3").is_light());
    play(&mut p, &["B@e3,e2"]);
    assert_eq!(p.drop_rights() & (WHITE_LIGHT | WHITE_DARK), WHITE_LIGHT);
    assert!(p.fen().contains(" b Lld "), "{}", p.fen());
    play(&mut p, &["n@a5"]);
    assert!(!legal(&p, "B@c3,c4"), "c3 is dark and its right is gone");
    assert!(!legal(&p, "B@d4"), "d4 is dark too");
    assert!(legal(&p, "B@d3,d4"), "d3 is light");
}

#[test]
fn second_bishop_refused_on_used_colour_even_after_first_was_captured() {
    // White drops a bishop on a light square (right L gone) and Black captures it.
    let mut q = pos("4k3/7q/8/8/8/3P4/8/K7[BB] w LD - 0 1");
    play(&mut q, &["B@e4"]);
    play(&mut q, &["h7e4"]);
    assert_eq!(q.pocket_count(Color::White, kind('B')), 1);
    assert!(
        !legal(&q, "B@c4"),
        "light square after the light bishop died"
    );
    assert!(!legal(&q, "B@d3,d2"), "also not by relocation");
    assert!(legal(&q, "B@d4"), "the dark right remains");
    // A bishop in hand with no right left cannot arise (a right per bishop in hand); such a
    // FEN is an impossible position.
    assert!(Position::from_fen(orphic(), "4k3/8/8/8/8/8/8/4K3[Bq] w - - 0 1").is_err());
}

#[test]
fn promotion_to_bishop_does_not_touch_rights() {
    // The dark bishop was dropped already; the light one is in hand.
    let mut p = pos("7k/1P6/8/8/8/8/8/4K3[B] w L - 0 1");
    play(&mut p, &["b7b8b"]);
    assert_eq!(p.drop_rights(), WHITE_LIGHT);
    assert!(p.fen().contains(" L "));
    play(&mut p, &["h8g7"]);
    assert!(legal(&p, "B@c4") && !legal(&p, "B@d4"));
}

#[test]
fn captured_pieces_never_return_to_the_pocket() {
    let mut p = pos("4k3/8/8/8/8/8/q7/4K3[Rr] w - - 0 1");
    play(&mut p, &["R@a3"]);
    play(&mut p, &["a2a3"]);
    assert_eq!(p.pocket_count(Color::White, kind('R')), 0);
    assert_eq!(p.pocket_count(Color::Black, kind('R')), 1);
    assert_eq!(p.pocket_count(Color::Black, kind('Q')), 0);
}

// ---------------------------------------------------------------------------------------------
// King drops.

#[test]
fn king_drop_only_on_first_rank_while_other_pieces_remain() {
    let p = Position::new(orphic());
    for file in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        assert!(legal(&p, &format!("K@{file}1")), "K@{file}1");
    }
    assert!(!legal(&p, "K@e2"), "rank 2 while pieces remain");
    assert!(!legal(&p, "K@e4"));
    assert!(!legal(&p, "K@e3,e2"), "onto a pawn while pieces remain");
    let mut b = p.clone();
    play(&mut b, &["N@a5"]);
    assert!(legal(&b, "K@e8"));
    assert!(!legal(&b, "K@e7"), "rank 7 for Black while pieces remain");
    assert!(!legal(&b, "K@e1"), "White's first rank is not Black's");
}

#[test]
fn last_reserve_king_drops_anywhere_including_onto_a_pawn() {
    let p = pos("4k3/8/8/8/8/4P3/8/8[K] w - - 0 1");
    assert!(legal(&p, "K@d5"));
    assert!(legal(&p, "K@a8"));
    assert!(legal(&p, "K@e3,c2"));
    assert!(legal(&p, "K@e3,e4"));
    assert!(!legal(&p, "K@e3,e5"), "relocation ranks still apply");
    assert!(!legal(&p, "K@d7"), "next to the enemy king");
    let mut q = p.clone();
    play(&mut q, &["K@e3,c2"]);
    assert_eq!(q.royal_square(Color::White), Some(sq("e3")));
    assert_eq!(letter_at(&q, "c2"), Some('P'));
    // Every empty square not attacked by Black, plus the relocation drops.
    let plain = p
        .legal_moves()
        .into_iter()
        .filter(|m| {
            matches!(
                m.kind(),
                MoveKind::Drop {
                    relocation: None,
                    ..
                }
            )
        })
        .count();
    assert_eq!(plain, 62 - 5, "62 empty squares minus d7 d8 e7 f7 f8");
}

#[test]
fn king_is_never_dropped_into_check() {
    let p = pos("4r2k/8/8/8/8/8/8/8[KQ] w - - 0 1");
    assert!(!legal(&p, "K@e1"));
    assert!(legal(&p, "K@d1"));
    let pawn_guard = pos("7k/8/8/8/8/8/3p4/8[KQ] w - - 0 1");
    assert!(!legal(&pawn_guard, "K@c1") && !legal(&pawn_guard, "K@e1"));
    assert!(legal(&pawn_guard, "K@d1"));
}

#[test]
fn relocated_pawn_can_block_a_king_drop_check() {
    let p = pos("4r2k/8/8/8/8/4P3/8/8[K] w - - 0 1");
    assert!(legal(&p, "K@e3,e4"), "the relocated pawn blocks the rook");
    assert!(!legal(&p, "K@e3,d4"), "the rook on e8 sees e3");
    assert!(legal(&p, "K@e2"), "behind the pawn");
    assert!(!legal(&p, "K@e4"), "in front of it");
}

// ---------------------------------------------------------------------------------------------
// Before the king is down: captures only.

#[test]
fn pawn_pushes_and_quiet_piece_moves_refused_before_king_is_down() {
    let p = pos("4k3/8/8/3p4/8/2N1P3/P7/8[KQ] w - - 0 1");
    let moves = all_moves(&p);
    assert!(!moves.contains("e3e4"), "pawn push");
    assert!(
        !moves.contains("a2a3") && !moves.contains("a2a4"),
        "pawn pushes"
    );
    assert!(!moves.contains("c3b5"), "quiet knight move");
    assert!(moves.contains("c3d5"), "knight capture");
    let board_moves: Vec<_> = p
        .legal_moves()
        .into_iter()
        .filter(|m| !m.is_drop())
        .map(|m| p.uci(m))
        .collect();
    assert_eq!(board_moves, vec!["c3d5".to_owned()]);
    // After the king is down, the same pieces move freely.
    let mut q = p.clone();
    play(&mut q, &["K@e1"]);
    play(&mut q, &["d5d4"]);
    let moves = all_moves(&q);
    for m in ["e3e4", "a2a3", "a2a4", "c3b5", "e3d4"] {
        assert!(moves.contains(m), "{m}");
    }
}

#[test]
fn en_passant_allowed_before_king_is_down() {
    let mut p = pos("4k3/3p4/8/4P3/8/8/8/8[Kq] b - - 0 1");
    play(&mut p, &["d7d5"]);
    assert_eq!(p.en_passant_square(), Some(sq("d6")));
    let moves = all_moves(&p);
    assert!(moves.contains("e5d6"), "en passant is a capture");
    assert!(!moves.contains("e5e6"), "a push is not");
    play(&mut p, &["e5d6"]);
    assert_eq!(letter_at(&p, "d5"), None);
    assert_eq!(letter_at(&p, "d6"), Some('P'));
}

#[test]
fn capturing_promotion_allowed_before_king_is_down() {
    let p = pos("k6r/6P1/8/8/8/8/8/8[K] w - - 0 1");
    let moves = all_moves(&p);
    for k in ['q', 'r', 'b', 'n'] {
        assert!(moves.contains(&format!("g7h8{k}")), "capture promotion {k}");
        assert!(!moves.contains(&format!("g7g8{k}")), "quiet promotion {k}");
    }
}

#[test]
fn side_without_king_is_never_in_check_but_gives_check() {
    // Black's rook attacks e1; White has no king there, so nothing is in check.
    let p = pos("4k3/8/8/8/8/8/8/R3r3[K] w - - 0 1");
    assert!(!p.in_check());
    // White's rook (no white king on the board) gives check along the 8th rank.
    let mut q = pos("r3k3/8/8/8/8/8/8/R7[Kq] w - - 0 1");
    play(&mut q, &["a1a8"]);
    assert!(q.in_check(), "a kingless side's piece still gives check");
    assert!(!legal(&q, "Q@b1"), "Black must answer the check");
    assert!(legal(&q, "Q@b8") && legal(&q, "e8e7"));
}

// ---------------------------------------------------------------------------------------------
// Pawns.

#[test]
fn pawn_double_step_only_from_second_rank() {
    let p = pos("4k3/8/8/8/8/3P4/4P3/4K3[] w - - 0 1");
    let moves = all_moves(&p);
    assert!(moves.contains("e2e4"), "rank 2 double step");
    assert!(moves.contains("d3d4"));
    assert!(!moves.contains("d3d5"), "no double step from rank 3");
    let b = pos("4k3/4p3/3p4/8/8/8/8/4K3[] b - - 0 1");
    let moves = all_moves(&b);
    assert!(moves.contains("e7e5"));
    assert!(!moves.contains("d6d4"));
}

#[test]
fn en_passant_after_double_step_from_relocation() {
    // Relocate the a3 pawn to e2, then double-step it past the d4 pawn.
    let mut p = pos("4k3/8/8/8/3p4/P7/8/4K3[N] w - - 0 1");
    play(&mut p, &["N@a3,e2"]);
    play(&mut p, &["e8d8"]);
    play(&mut p, &["e2e4"]);
    assert_eq!(p.en_passant_square(), Some(sq("e3")));
    assert!(all_moves(&p).contains("d4e3"));
    play(&mut p, &["d4e3"]);
    assert_eq!(letter_at(&p, "e4"), None);
}

#[test]
fn promotion_on_last_rank_to_q_r_b_n() {
    let p = pos("7k/P7/8/8/8/8/8/4K3[] w - - 0 1");
    let promos: BTreeSet<String> = all_moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("a7"))
        .collect();
    let want: BTreeSet<String> = ["a7a8q", "a7a8r", "a7a8b", "a7a8n"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(promos, want);
}

// ---------------------------------------------------------------------------------------------
// Clocks, hashing, repetition, results.

#[test]
fn every_drop_resets_the_fifty_move_clock() {
    let mut p = pos("4k3/8/8/8/8/4P3/8/4K3[NN] w - - 37 30");
    play(&mut p, &["N@a4"]);
    assert_eq!(p.halfmove_clock(), 0);
    play(&mut p, &["e8d8"]);
    assert_eq!(p.halfmove_clock(), 1);
    play(&mut p, &["N@e3,e2"]);
    assert_eq!(p.halfmove_clock(), 0, "relocation drops too");
}

#[test]
fn hash_includes_pocket_counts_and_drop_rights() {
    let base = pos("4k3/8/8/8/8/8/8/4K3[Bb] w Ld - 0 1");
    let other_pocket = pos("4k3/8/8/8/8/8/8/4K3[BNb] w Ld - 0 1");
    let other_rights = pos("4k3/8/8/8/8/8/8/4K3[Bb] w Dd - 0 1");
    let no_pocket = pos("4k3/8/8/8/8/8/8/4K3[b] w d - 0 1");
    let hashes: BTreeSet<u64> = [&base, &other_pocket, &other_rights, &no_pocket]
        .iter()
        .map(|p| p.hash())
        .collect();
    assert_eq!(hashes.len(), 4);
    for p in [&base, &other_pocket, &other_rights, &no_pocket] {
        assert_eq!(p.hash(), p.compute_hash());
    }
}

#[test]
fn threefold_repetition_and_drops_are_irreversible() {
    // The same king shuffle repeats the position three times.
    let mut p = pos("4k3/8/8/8/8/8/8/4K3[Bb] w Ld - 0 1");
    for m in [
        "e1d1", "e8d8", "d1e1", "d8e8", "e1d1", "e8d8", "d1e1", "d8e8",
    ] {
        play(&mut p, &[m]);
    }
    assert_eq!(p.repetitions(), 3);
    assert_eq!(
        p.status(),
        GameStatus::Finished {
            winner: None,
            reason: Termination::ThreefoldRepetition
        }
    );
    // A drop is irreversible, so positions before it never count again.
    let mut q = pos("4k3/8/8/8/8/8/8/4K3[Bb] w Ld - 0 1");
    play(&mut q, &["e1d1"]);
    play(&mut q, &["B@a5"]);
    assert_eq!(q.repetitions(), 1);
}

#[test]
fn make_unmake_restores_drop_rights_pocket_and_hash() {
    let mut p = Position::new(orphic());
    let before = p.clone();
    for m in ["B@c4", "B@c5", "B@e3,e2"] {
        let mv = p.parse_move(m).unwrap();
        let snapshot = p.clone();
        p.play(mv);
        assert_eq!(p.hash(), p.compute_hash(), "after {m}");
        p.unmake();
        assert_eq!(p, snapshot, "unmake {m}");
        p.play(mv);
    }
    // L (c4), d (c5) and D (e3) are used up; only Black's light-square right is left.
    assert_eq!(p.drop_rights(), colour_right_bit(Color::Black, true));
    for _ in 0..3 {
        p.unmake();
    }
    assert_eq!(p, before);
    assert_eq!(p.hash(), before.hash());
}

#[test]
fn checkmate_wins_and_no_move_draws() {
    // Back-rank mate; Black has nothing left to drop.
    let mate = pos("R5k1/5ppp/8/8/8/8/8/6K1[] b - - 0 1");
    assert_eq!(
        mate.status(),
        GameStatus::Finished {
            winner: Some(Color::White),
            reason: Termination::Checkmate
        }
    );
    // A drop that blocks saves the same position.
    let saved = pos("R5k1/5ppp/8/8/8/8/8/6K1[n] b - - 0 1");
    assert_eq!(saved.status(), GameStatus::Ongoing);
    assert!(legal(&saved, "N@f8"));
    let stalemate = pos("k7/2Q5/1K6/8/8/8/8/8[] b - - 0 1");
    assert_eq!(
        stalemate.status(),
        GameStatus::Finished {
            winner: None,
            reason: Termination::Stalemate
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Move text, SAN and UCI for drops.

#[test]
fn drop_move_text_and_san_round_trip() {
    let p = Position::new(orphic());
    let plain = p.parse_move("N@e4").unwrap();
    assert_eq!(plain, Move::drop(kind('N'), sq("e4"), None));
    assert_eq!(p.uci(plain), "N@e4");
    assert_eq!(p.san(plain), "N@e4");
    let reloc = p.parse_move("N@e3,c2").unwrap();
    assert_eq!(reloc, Move::drop(kind('N'), sq("e3"), Some(sq("c2"))));
    assert_eq!(p.uci(reloc), "N@e3,c2");
    assert_eq!(p.san(reloc), "N@e3,c2");
    assert_eq!(p.parse_san("N@e3,c2").unwrap(), reloc);
    // Lowercase letters are accepted for drops of either side.
    let mut b = p.clone();
    b.play(plain);
    assert_eq!(b.parse_move("n@e5").unwrap(), b.parse_move("N@e5").unwrap());
    // A checking drop gets its suffix and still parses back.
    let c = pos("4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1");
    let check = c.parse_move("Q@e4").unwrap();
    assert_eq!(c.san(check), "Q@e4+");
    assert_eq!(c.parse_move("Q@e4+").unwrap(), check);
    let d = c.describe(check);
    assert_eq!(
        (d.drop, d.relocation.as_deref(), d.check),
        (Some('Q'), None, true)
    );
}

// ---------------------------------------------------------------------------------------------
// The start position's 712 moves, derived category by category.

#[test]
fn start_position_has_712_moves_derived_by_category() {
    let p = Position::new(orphic());
    let size = p.variant().size();
    let moves = p.legal_moves();
    let empty: BTreeSet<Square> = size
        .squares()
        .filter(|&s| p.piece_at(s).is_none())
        .collect();
    let pawns: BTreeSet<Square> = size
        .squares()
        .filter(|&s| letter_at(&p, s.to_string().as_str()) == Some('P'))
        .collect();
    // Relocation targets: empty squares of ranks 2-4 (index 1..=3).
    let relocation: BTreeSet<Square> = empty
        .iter()
        .copied()
        .filter(|s| (1..=3).contains(&s.rank()))
        .collect();
    let first_rank: BTreeSet<Square> = empty.iter().copied().filter(|s| s.rank() == 0).collect();
    assert_eq!(
        (empty.len(), pawns.len(), relocation.len(), first_rank.len()),
        (48, 8, 16, 8)
    );

    let mut board_moves = 0;
    let mut plain: [BTreeSet<Square>; 16] = Default::default();
    let mut relocated: [BTreeSet<(Square, Square)>; 16] = Default::default();
    for &m in &moves {
        match m.kind() {
            MoveKind::Drop {
                kind: k,
                to,
                relocation: None,
            } => assert!(plain[k.index()].insert(to), "duplicate {m:?}"),
            MoveKind::Drop {
                kind: k,
                to,
                relocation: Some(r),
            } => assert!(relocated[k.index()].insert((to, r)), "duplicate {m:?}"),
            _ => board_moves += 1,
        }
    }
    // No king on the board and no enemy within reach: no board move at all.
    assert_eq!(board_moves, 0);
    let mut derived = 0;
    for letter in ['Q', 'R', 'B', 'N'] {
        let k = kind(letter).index();
        // Any empty square (both bishop rights are open).
        assert_eq!(plain[k], empty, "{letter} plain drops");
        // Onto each pawn, with the pawn going to each empty square of ranks 2-4.
        let want: BTreeSet<(Square, Square)> = pawns
            .iter()
            .flat_map(|&to| relocation.iter().map(move |&r| (to, r)))
            .collect();
        assert_eq!(relocated[k], want, "{letter} relocation drops");
        derived += plain[k].len() + relocated[k].len();
    }
    // The king: first rank only while other pieces remain, never onto a pawn (rank 3).
    let king = kind('K').index();
    assert_eq!(plain[king], first_rank);
    assert!(relocated[king].is_empty());
    derived += plain[king].len();
    assert_eq!(derived, 4 * 48 + 8 + 4 * 8 * 16);
    assert_eq!(derived, 712);
    assert_eq!(moves.len(), derived);
    assert_eq!(p.count_legal_moves(), 712);
}

// ---------------------------------------------------------------------------------------------
// Perft consistency.

/// Middlegame positions with drops, relocations, checks and en passant.
const MIDDLEGAMES: [&str; 5] = [
    // En passant available (d6), both sides with pockets and kings down.
    "r3k3/1pp2ppp/p1n5/3pP3/8/2N2Q2/PP3PPP/4K3[RBNrbn] w Ld d6 0 12",
    // White in check from the rook: only blocks, captures and king moves; no relocation.
    "4k3/8/8/8/4r3/2P5/PP6/4K3[QBNbn] w Dd - 0 20",
    // White without its king (captures only) against a Black king.
    "4k3/8/ppp1pppp/3p4/3P4/PPN1PPPP/8/8[QRRBBNKrrbbnn] b LDld - 0 3",
    // White's king is the last pocket piece: anywhere, also onto a pawn.
    "r3k2r/8/2pppp2/8/3P4/1PN1PP2/P7/Q1B1RRBN[K] w - - 0 15",
    // Promotions with captures and a double step from a relocated pawn.
    "1r2k3/P7/8/8/8/8/3P4/4K3[Nrb] w d - 0 30",
];

#[test]
fn perft_matches_copy_make_and_divide_on_start_position() {
    let mut p = Position::new(orphic());
    let d1 = perft(&mut p, 1);
    assert_eq!(d1, 712);
    let d2 = perft(&mut p, 2);
    assert_eq!(d2, perft_copy_make(&p, 2));
    let split: u64 = divide(&mut p, 2).iter().map(|(_, n)| n).sum();
    assert_eq!(split, d2);
    assert_eq!(
        p,
        Position::new(orphic()),
        "perft leaves the position as it was"
    );
}

#[test]
fn perft_depth_three_matches_divide_on_start_position() {
    let mut p = Position::new(orphic());
    let d3 = perft(&mut p, 3);
    let split: u64 = divide(&mut p, 3).iter().map(|(_, n)| n).sum();
    assert_eq!(split, d3);
}

#[test]
fn perft_matches_copy_make_and_divide_on_middlegames() {
    for fen in MIDDLEGAMES {
        let mut p = pos(fen);
        assert_eq!(p.fen(), fen, "FEN round-trip");
        for depth in 1..=2 {
            let n = perft(&mut p, depth);
            assert_eq!(n, perft_copy_make(&p, depth), "{fen} depth {depth}");
            let split: u64 = divide(&mut p, depth).iter().map(|(_, n)| n).sum();
            assert_eq!(split, n, "{fen} divide {depth}");
        }
        assert_eq!(p, pos(fen));
    }
    // The positions exercise what they claim to.
    let ep = pos(MIDDLEGAMES[0]);
    assert!(ep.legal_moves().into_iter().any(Move::is_en_passant));
    assert!(pos(MIDDLEGAMES[1]).in_check());
    let reloc = |p: &Position| {
        p.legal_moves().into_iter().any(|m| {
            matches!(
                m.kind(),
                MoveKind::Drop {
                    relocation: Some(_),
                    ..
                }
            )
        })
    };
    assert!(reloc(&pos(MIDDLEGAMES[0])) && reloc(&pos(MIDDLEGAMES[3])));
}

#[test]
fn perft_depth_three_matches_copy_make_on_middlegames() {
    for fen in [MIDDLEGAMES[1], MIDDLEGAMES[4]] {
        let mut p = pos(fen);
        let n = perft(&mut p, 3);
        assert_eq!(n, perft_copy_make(&p, 3), "{fen}");
        let split: u64 = divide(&mut p, 3).iter().map(|(_, n)| n).sum();
        assert_eq!(split, n, "{fen}");
    }
}

// ---------------------------------------------------------------------------------------------
// Property tests over random playouts through the drop phase into the middlegame.

/// How many drops get their SAN round-tripped per position (all board moves always do): drop
/// SAN is the move text plus a check suffix, and checking all ~700 drops of the drop phase
/// would cost ~700 move generations each.
const SAN_DROP_SAMPLE: usize = 12;

/// The legal drops, found the slow way straight from RULES.md §4: every (piece, square,
/// relocation) candidate is tested against the rule book's wording, then played on a copy to
/// see that the mover's king (if any, including a dropped one) is not attacked.
fn reference_drops(p: &Position) -> BTreeSet<Move> {
    let v = p.variant();
    let us = p.side_to_move();
    let squares: Vec<Square> = v.size().squares().collect();
    let relative_rank = |s: Square| match us {
        Color::White => s.rank(),
        Color::Black => 7 - s.rank(),
    };
    let in_pocket: u32 = (0..v.kind_count())
        .map(|k| u32::from(p.pocket_count(us, PieceKind(k as u8))))
        .sum();
    let mut out = BTreeSet::new();
    for k in 0..v.kind_count() {
        let k = PieceKind(k as u8);
        if p.pocket_count(us, k) == 0 {
            continue;
        }
        let letter = v.piece(k).letter;
        for &to in &squares {
            if letter == 'B' && p.drop_rights() & colour_right_bit(us, to.is_light()) == 0 {
                continue;
            }
            if letter == 'K' && in_pocket > 1 && relative_rank(to) != 0 {
                continue;
            }
            let own_pawn = p
                .piece_at(to)
                .is_some_and(|pc| pc.color() == us && Some(pc.kind()) == v.pawn_kind());
            let mut candidates = Vec::new();
            if p.piece_at(to).is_none() {
                candidates.push(Move::drop(k, to, None));
            }
            if own_pawn && !p.in_check() {
                for &r in &squares {
                    if p.piece_at(r).is_none() && (1..=3).contains(&relative_rank(r)) {
                        candidates.push(Move::drop(k, to, Some(r)));
                    }
                }
            }
            for m in candidates {
                let mut after = p.clone();
                after.play_unchecked(m);
                let safe = after
                    .royal_square(us)
                    .is_none_or(|king| after.attackers_to(king, after.occupied(), !us).is_empty());
                if safe {
                    out.insert(m);
                }
            }
        }
    }
    out
}

/// With both kings on the board, Orphic board moves are orthodox chess moves without castling:
/// the same board in the (perft-verified) chess variant must give the same board moves.
fn chess_board_moves(p: &Position) -> Option<BTreeSet<String>> {
    if p.royal_square(Color::White).is_none() || p.royal_square(Color::Black).is_none() {
        return None;
    }
    let fen = p.fen();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let board = &fields[0][..fields[0].find('[').unwrap()];
    let chess_fen = format!(
        "{board} {} - {} {} {}",
        fields[1], fields[3], fields[4], fields[5]
    );
    let chess = Registry::builtin().get("chess").unwrap();
    let c = Position::from_fen(chess, &chess_fen).unwrap_or_else(|e| panic!("{chess_fen}: {e}"));
    Some(c.legal_moves().into_iter().map(|m| c.uci(m)).collect())
}

fn check_position(p: &Position, salt: usize) {
    let v = p.variant().clone();
    assert_eq!(p.hash(), p.compute_hash(), "{}", p.fen());
    let fen = p.fen();
    let back = Position::from_fen(v, &fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(back.fen(), fen);
    assert_eq!(&back, p, "FEN round-trip keeps position and hash");
    let moves = p.legal_moves();
    assert_eq!(moves.len() as u64, p.count_legal_moves());
    let drops: BTreeSet<Move> = moves.iter().copied().filter(|m| m.is_drop()).collect();
    assert_eq!(drops, reference_drops(p), "drops in {fen}");
    let board: BTreeSet<String> = moves
        .iter()
        .filter(|m| !m.is_drop())
        .map(|&m| p.uci(m))
        .collect();
    if let Some(chess) = chess_board_moves(p) {
        assert_eq!(board, chess, "board moves in {fen}");
    } else if p.royal_square(p.side_to_move()).is_none() {
        assert!(
            moves.iter().all(|&m| m.is_drop() || p.is_capture(m)),
            "only captures before the king is down: {fen}"
        );
    }
    let step = moves.len() / SAN_DROP_SAMPLE + 1;
    for (i, &m) in moves.iter().enumerate() {
        let text = p.uci(m);
        assert_eq!(p.parse_move(&text).unwrap(), m, "{text} in {fen}");
        if !m.is_drop() || (i + salt).is_multiple_of(step) {
            let san = p.san(m);
            assert_eq!(p.parse_move(&san).unwrap(), m, "SAN {san} in {fen}");
        }
    }
}

fn check_move(p: &mut Position, m: Move) {
    let before = p.clone();
    let mover = p.side_to_move();
    p.play(m);
    // No generated move leaves the mover's king attacked.
    if let Some(k) = p.royal_square(mover) {
        assert!(
            p.attackers_to(k, p.occupied(), !mover).is_empty(),
            "{} leaves the king attacked in {}",
            before.uci(m),
            before.fen()
        );
    }
    // Pockets only shrink, by exactly the dropped piece (and u8 counts cannot go negative
    // without a debug-build overflow panic).
    for color in Color::ALL {
        for k in 0..p.variant().pieces().len() {
            let k = PieceKind(k as u8);
            let (was, now) = (before.pocket_count(color, k), p.pocket_count(color, k));
            let dropped = match m.kind() {
                MoveKind::Drop { kind: d, .. } if d == k && color == mover => 1,
                _ => 0,
            };
            assert_eq!(now + dropped, was, "pocket {color:?} {k:?}");
        }
    }
    // Rights only lose bits: exactly the dropped bishop's square colour, nothing otherwise.
    assert_eq!(p.drop_rights() & !before.drop_rights(), 0);
    let used = match m.kind() {
        MoveKind::Drop { kind: k, to, .. } if p.variant().piece(k).letter == 'B' => {
            colour_right_bit(mover, to.is_light())
        }
        _ => 0,
    };
    assert_eq!(
        p.drop_rights(),
        before.drop_rights() & !used,
        "rights after {m:?}"
    );
    assert_eq!(p.hash(), p.compute_hash());
    p.unmake();
    assert_eq!(*p, before, "unmake restores the position and hash");
    p.play(m);
}

/// Plays a playout steered by `choices`; board moves are preferred two times in three so the
/// game leaves the drop phase. With `checks`, every invariant is checked along the way.
fn playout(choices: &[u32], checks: bool) -> Position {
    let mut p = Position::new(orphic());
    for (ply, &c) in choices.iter().enumerate() {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        if checks && ply.is_multiple_of(4) {
            check_position(&p, c as usize);
        }
        let board: Vec<Move> = moves.iter().copied().filter(|m| !m.is_drop()).collect();
        let m = if !board.is_empty() && c % 3 != 0 {
            board[(c / 3) as usize % board.len()]
        } else {
            moves[c as usize % moves.len()]
        };
        if checks {
            check_move(&mut p, m);
        } else {
            p.play(m);
        }
    }
    if checks {
        check_position(&p, 0);
    }
    p
}

#[test]
fn playouts_get_through_the_drop_phase_into_the_middlegame() {
    // A fixed linear congruential stream stands in for proptest's choices.
    let mut state = 0x2545_f491_u32;
    let mut reached = 0;
    for _ in 0..10 {
        let choices: Vec<u32> = (0..80)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                state >> 8
            })
            .collect();
        let p = playout(&choices, false);
        let kings =
            p.royal_square(Color::White).is_some() && p.royal_square(Color::Black).is_some();
        let board_moves = p.moves_played().filter(|m| !m.is_drop()).count();
        if kings && board_moves >= 20 {
            reached += 1;
        }
    }
    assert!(
        reached >= 7,
        "only {reached} of 10 playouts reached the middlegame"
    );
}

#[test]
fn generators_agree_with_reference_on_fixed_positions() {
    let mut fens = vec![orphic().start_fen().to_owned()];
    fens.extend(MIDDLEGAMES.iter().map(|f| (*f).to_owned()));
    fens.extend(
        [
            "4r2k/8/8/8/8/P6P/8/4K3[NQ] w - - 0 1",
            "4r2k/8/8/8/8/4P3/8/8[K] w - - 0 1",
            "4k3/8/8/8/8/4P3/8/8[K] w - - 0 1",
            "7k/8/8/8/8/8/3p4/8[KQ] w - - 0 1",
            "4k3/7q/8/8/4B3/3P4/8/K7[B] b D - 0 1",
            "r3k3/8/8/8/8/8/8/R7[Kq] w - - 0 1",
        ]
        .map(str::to_owned),
    );
    for fen in &fens {
        check_position(&pos(fen), 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_playouts_keep_every_invariant(choices in prop::collection::vec(any::<u32>(), 40..120)) {
        let p = playout(&choices, true);
        prop_assert!(p.ply_count() > 0);
    }
}
