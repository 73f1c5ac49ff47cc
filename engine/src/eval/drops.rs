//! Orphic's drop-phase terms (RULES.md §4): every piece, the king too, starts in the pocket.
//!
//! Three rules shape the opening and each gives one term:
//! - **Hand value.** A piece in the pocket can be dropped on any empty square (or on a friendly
//!   pawn, relocating it), so it is worth a little more than the same piece standing somewhere
//!   on the board: a share of its value, larger for the pieces with the most drop squares
//!   that matter (a queen dropped with check). The generic evaluation already gives every
//!   pocket piece a flat bonus; this adds the share.
//! - **King in hand.** Until a side's king is on the board its board pieces and pawns may only
//!   capture, so every piece it has dropped is frozen. A side with its king in hand pays a
//!   penalty per piece on the board, which grows as it keeps dropping, and pushes the king drop
//!   forward; a king in hand is also never in check, which the next term rewards by default.
//! - **Drop danger.** Drops land on empty squares, so the empty squares next to a king on the
//!   board are where the enemy's pocket pieces can land with check or attack. The penalty is
//!   the number of such squares times the enemy's pocket material. Pawns (including ones
//!   moved there by a relocation drop) and pieces next to the king fill those squares, so the
//!   term also values pawn relocation around the king.

use crate::bitboard::Bitboard;
use crate::eval::params::Layout;
use crate::eval::sum::Sum;
use crate::eval::trace::Trace;
use crate::geometry::SQUARE_COUNT;
use crate::piece::{ByColor, Color};
use crate::position::Position;
use crate::variant::Variant;

/// Enemy pocket material counted for drop danger at most (about a queen, a rook and a minor).
const DANGER_HAND_CAP: i32 = 2000;
/// Drop danger counts the enemy's pocket material in units of this many centipawns.
const DANGER_UNIT: i32 = 150;

/// Orphic's per-variant tables, built once per search.
#[derive(Debug)]
pub(super) struct DropEval {
    /// The squares next to each square (king distance 1).
    ring: Box<[Bitboard; SQUARE_COUNT]>,
    royal: Option<usize>,
    pawn: Option<usize>,
}

impl DropEval {
    /// Tables for `variant`.
    pub(super) fn new(variant: &Variant) -> Self {
        let size = variant.size();
        let mut ring = Box::new([Bitboard::EMPTY; SQUARE_COUNT]);
        for sq in size.squares() {
            for df in -1..=1 {
                for dr in -1..=1 {
                    if (df, dr) != (0, 0)
                        && let Some(s) = sq.offset(df, dr, size)
                    {
                        ring[sq.index()] = ring[sq.index()].with(s);
                    }
                }
            }
        }
        Self {
            ring,
            royal: variant.royal.map(crate::PieceKind::index),
            pawn: variant.pawn.map(crate::PieceKind::index),
        }
    }

    /// The drop-phase terms of both sides, added to `sum` (the hand value is the pocket
    /// term of the evaluation proper, `hand.*`): drop danger next to a king on the board
    /// (`drops.danger` per empty square next to it and per [`DANGER_UNIT`] of the enemy's
    /// pocket material, the spec's values), and the board pieces frozen while the king is
    /// in hand (`drops.frozen`).
    pub(super) fn terms<T: Trace>(&self, l: &Layout, pos: &Position, sum: &mut Sum<'_, T>) {
        let v = &*pos.variant;
        let mut hand = ByColor([0; 2]);
        for c in Color::ALL {
            for k in 0..v.kind_count() {
                if Some(k) != self.royal {
                    hand[c] += i32::from(pos.pocket[c][k]) * v.pieces()[k].value;
                }
            }
        }
        let occupied = pos.occupied();
        for c in Color::ALL {
            match pos.royal_square(c) {
                Some(king) => {
                    let open = (self.ring[king.index()] & !occupied).count() as i32;
                    sum.add(
                        c,
                        l.drops_danger,
                        open * (hand[!c].min(DANGER_HAND_CAP) / DANGER_UNIT),
                    );
                }
                None if self.royal.is_some_and(|k| pos.pocket[c][k] > 0) => {
                    let mut pieces = pos.by_color[c];
                    if let Some(p) = self.pawn {
                        pieces &= !pos.by_kind[p];
                    }
                    sum.add(c, l.drops_frozen, pieces.count() as i32);
                }
                // The king was captured or never existed: nothing to weigh.
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;
    use crate::eval::board::board_fen;
    use crate::eval::params::SAFE_CHECKS_COUNTED as SAFE_CHECKS;
    use crate::eval::{EvalParams, EvalTerms, Evaluator};

    fn orphic(pieces: &[(&str, char)], pocket: &str, side: &str) -> Position {
        let v = Registry::builtin().get("orphic").unwrap();
        // One bishop-drop right per bishop in hand, as a valid FEN must have.
        let rights = |bishop: char, letters: &str| {
            let n = pocket.chars().filter(|&c| c == bishop).count();
            letters[..n].to_owned()
        };
        let rights = format!("{}{}", rights('B', "LD"), rights('b', "ld"));
        let rights = if rights.is_empty() {
            "-".to_owned()
        } else {
            rights
        };
        let fen = format!(
            "{}[{pocket}] {side} {rights} - 0 1",
            board_fen(8, 8, pieces)
        );
        Position::from_fen(v, &fen).unwrap()
    }

    /// The evaluation with the untuned defaults (the numbers these tests check).
    fn defaults() -> Evaluator {
        let v = Registry::builtin().get("orphic").unwrap();
        Evaluator::with_params(&v, EvalTerms::default(), &EvalParams::defaults(&v))
    }

    fn white_terms(pos: &Position) -> i32 {
        defaults().family_only(pos)[Color::White]
    }

    #[test]
    fn pocket_pieces_are_worth_a_share_of_their_value() {
        // A flat bonus and a sixteenth of the piece's value, on top of the value itself.
        let e = defaults();
        let v = Registry::builtin().get("orphic").unwrap();
        let hand = |letter| {
            let k = v.kind_by_letter(letter).unwrap().index();
            e.weights[e.layout.hand[k]][0]
        };
        assert_eq!(hand('Q'), 10 + 950 / 16);
        assert!(hand('Q') > hand('R') && hand('R') > hand('N'));
        // The whole evaluation counts a queen in hand as more than its value.
        let board = [("e1", 'K'), ("e8", 'k')];
        let with = e.evaluate(&orphic(&board, "Q", "w"));
        let without = e.evaluate(&orphic(&board, "", "w"));
        assert!(with - without > 950, "{with} {without}");
    }

    #[test]
    fn pieces_dropped_before_the_king_are_penalised() {
        // Black's pocket is empty, so a king on the board is in no drop danger: with the king
        // still in hand, the rook and knight on the board may only capture.
        let pieces = [("a1", 'R'), ("c3", 'N'), ("e8", 'k')];
        let in_hand = white_terms(&orphic(&pieces, "K", "w"));
        let mut with_king = pieces.to_vec();
        with_king.push(("e1", 'K'));
        let dropped = white_terms(&orphic(&with_king, "", "w"));
        let e = defaults();
        let frozen = -e.weights[e.layout.drops_frozen][0];
        assert_eq!(dropped - in_hand, 2 * frozen);
        // One more piece dropped before the king costs more.
        let more = [("a1", 'R'), ("c3", 'N'), ("f3", 'B'), ("e8", 'k')];
        assert!(white_terms(&orphic(&more, "K", "w")) < in_hand);
    }

    #[test]
    fn empty_squares_around_the_king_are_dangerous_against_a_full_pocket() {
        // Pawns moved up against the king (as a relocation drop can do) close the squares an
        // enemy queen or rook would be dropped on.
        let sheltered = [
            ("e1", 'K'),
            ("d2", 'P'),
            ("e2", 'P'),
            ("f2", 'P'),
            ("e8", 'k'),
        ];
        let open = [
            ("e1", 'K'),
            ("d3", 'P'),
            ("e3", 'P'),
            ("f3", 'P'),
            ("e8", 'k'),
        ];
        assert!(
            white_terms(&orphic(&sheltered, "qr", "w")) > white_terms(&orphic(&open, "qr", "w"))
        );
        // With nothing in the enemy's pocket there is nothing to drop.
        assert_eq!(
            white_terms(&orphic(&sheltered, "", "w")),
            white_terms(&orphic(&open, "", "w"))
        );
    }

    #[test]
    fn a_piece_in_hand_checks_from_the_empty_squares() {
        // A black rook in hand can be dropped on a1, b1 or c1 with check (the king does not
        // reach them); with nothing in hand, Black has no check at all.
        let e = defaults();
        let v = Registry::builtin().get("orphic").unwrap();
        let rook = v.kind_by_letter('R').unwrap().index();
        let id = e.layout.safety_check[rook];
        let board = [
            ("e1", 'K'),
            ("d2", 'P'),
            ("e2", 'P'),
            ("f2", 'P'),
            ("e8", 'k'),
        ];
        let checks = |pocket: &str| {
            let (rec, _, _) = e.trace(&orphic(&board, pocket, "w"));
            rec.danger_coefficient(Color::White, id)
        };
        assert_eq!(checks("r"), SAFE_CHECKS);
        assert_eq!(checks(""), 0);
    }
}
