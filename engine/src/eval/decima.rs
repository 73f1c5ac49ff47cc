//! Decima's evaluation terms (RULES.md §2): the race to ten points on one's tenth rank and the
//! defence of one's first rank, which is the opponent's tenth.
//!
//! Material and piece-square values cannot see the race: a king is worth 10 points standing on
//! the tenth rank and reaching ten points is "check", which the opponent must answer at once by
//! a (suicide) capture on its own first rank or lose. So the terms here are
//! - the **score** already on the tenth rank, valued steeply as it nears ten;
//! - the **threat**: the best points a unit can add by moving onto the tenth rank next move
//!   (more for the side to move, which can play it now);
//! - the **defence**: a side whose first rank the opponent is close to filling is penalised
//!   when it has few pieces left on its first two ranks, the pieces that can make the
//!   relieving captures there (pawns cannot capture backwards).
//!
//! Everything is computed from the whole position in `evaluate_acc`, cheaply: the score is a
//! sum over one rank; for the threat, the squares from which a rider reaches the tenth rank
//! are found by flood-filling back from the rank through empty squares (a few shifts per
//! direction, whatever the number of riders), leapers far from the rank are skipped by
//! precomputed origin masks, and only the few units left are looked at one by one.

use crate::bitboard::Bitboard;
use crate::eval::params::Layout;
use crate::eval::sum::Sum;
use crate::eval::trace::Trace;
use crate::geometry::STRIDE;
use crate::piece::{ByColor, Color, MAX_KINDS};
use crate::position::Position;
use crate::rules::decima::WINNING_SCORE;
use crate::variant::{Role, Variant};

/// First-rank defenders a side wants; fewer are penalised (`decima.defender` per missing one
/// and per point the opponent has or can reach).
const DEFENDERS_WANTED: i32 = 3;

/// Decima's per-variant tables, built once per search.
#[derive(Debug)]
pub(super) struct DecimaEval {
    /// Each side's tenth rank.
    tenth: ByColor<Bitboard>,
    /// Each side's first two ranks, where its pieces can capture on its first rank.
    home: ByColor<Bitboard>,
    /// Per side and kind: the squares from which a leap of that kind lands on the side's tenth
    /// rank, so far-away leapers are skipped by one bitboard test.
    leap_from: Box<ByColor<[Bitboard; MAX_KINDS]>>,
    /// Per side: the union of `leap_from` over the kinds.
    leap_from_any: ByColor<Bitboard>,
    /// Points per kind (0 for pawns and kinds worth nothing).
    points: [u32; MAX_KINDS],
    /// Pawn kind (not a defender: it cannot capture backwards).
    pawn: Option<usize>,
    /// What a one-rank step back keeps, by file step -1, 0, +1: the board, without the
    /// column a step across the board's edge wraps onto.
    keep: [Bitboard; 3],
}

impl DecimaEval {
    /// Tables for `variant` (a Decima-family variant: pieces with points, a tenth rank).
    pub(super) fn new(variant: &Variant) -> Self {
        let files = variant.files();
        let ranks = variant.ranks();
        let rank_of = |c: Color, r: u8| Bitboard::rank(c.relative_rank(r, ranks), files);
        let tenth = ByColor([
            rank_of(Color::White, ranks - 1),
            rank_of(Color::Black, ranks - 1),
        ]);
        let home = ByColor([
            rank_of(Color::White, 0) | rank_of(Color::White, 1),
            rank_of(Color::Black, 0) | rank_of(Color::Black, 1),
        ]);
        let mut leap_from = Box::new(ByColor([[Bitboard::EMPTY; MAX_KINDS]; 2]));
        for (k, info) in variant.kinds.iter().enumerate() {
            for sq in variant.size().squares() {
                let leaps = info.leap_both[sq.index()] | info.leap_move[sq.index()];
                for c in Color::ALL {
                    if (leaps & tenth[c]).any() {
                        leap_from[c][k] = leap_from[c][k].with(sq);
                    }
                }
            }
        }
        let mut points = [0; MAX_KINDS];
        let mut leap_from_any = ByColor([Bitboard::EMPTY; 2]);
        for (k, def) in variant.pieces().iter().enumerate() {
            if variant.kinds[k].role == Role::Piece {
                points[k] = u32::from(def.points);
                for c in Color::ALL {
                    leap_from_any[c] |= leap_from[c][k];
                }
            }
        }
        let board = Bitboard::board(variant.size());
        let column = |file: u8| {
            (0..STRIDE).fold(Bitboard::EMPTY, |bb, rank| {
                bb | Bitboard(1u128 << (u32::from(rank) * u32::from(STRIDE) + u32::from(file)))
            })
        };
        Self {
            tenth,
            home,
            leap_from,
            leap_from_any,
            points,
            pawn: variant.pawn.map(crate::PieceKind::index),
            keep: [board & !column(STRIDE - 1), board, board & !column(0)],
        }
    }

    /// `bb` moved one rank back towards `c`'s own side and `df` files sideways.
    #[inline]
    fn back(&self, bb: Bitboard, c: Color, df: i8) -> Bitboard {
        let stride = i32::from(STRIDE);
        let shift = match c {
            Color::White => -stride,
            Color::Black => stride,
        } + i32::from(df);
        let bits = if shift < 0 {
            bb.0 >> shift.unsigned_abs()
        } else {
            bb.0 << shift.unsigned_abs()
        };
        let keep = match df {
            ..0 => self.keep[0],
            0 => self.keep[1],
            1.. => self.keep[2],
        };
        Bitboard(bits) & keep
    }

    /// The squares from which a rider moving forward (`df` = file step per rank) reaches a
    /// square of `land`: a fill back from `land` that passes only through `empty` squares.
    #[inline]
    fn rider_origins(&self, land: Bitboard, empty: Bitboard, c: Color, df: i8) -> Bitboard {
        let mut frontier = land;
        let mut origins = Bitboard::EMPTY;
        while frontier.any() {
            frontier = self.back(frontier, c, df);
            origins |= frontier;
            frontier &= empty;
        }
        origins
    }

    /// The most points one move of `c` can add to its score by moving a unit onto its tenth
    /// rank (to an empty square or by capture). Promotions are left to the piece-square terms
    /// and the search: the promoted type depends on what the side has lost.
    pub(super) fn reach(&self, pos: &Position, c: Color) -> u32 {
        let own = pos.by_color[c];
        let land = self.tenth[c] & !own;
        if land.is_empty() {
            return 0;
        }
        let v = &*pos.variant;
        let empty = !pos.occupied();
        // A unit already on the rank adds nothing by moving along it.
        let movers = own & !self.tenth[c];
        // Decima's riders move and capture alike, so a clear line is a move.
        let straight = self.rider_origins(land, empty, c, 0) & movers;
        let diagonal = (self.rider_origins(land, empty, c, -1)
            | self.rider_origins(land, empty, c, 1))
            & movers;
        let mut candidates = movers & (straight | diagonal | self.leap_from_any[c]);
        if let Some(p) = self.pawn {
            // A pawn entering the rank promotes; that is left to the search.
            candidates &= !pos.by_kind[p];
        }
        // Usually none or a few units qualify, so look at each one.
        let mut best = 0;
        for sq in candidates {
            let Some(piece) = pos.board[sq.index()] else {
                continue;
            };
            let k = piece.kind().index();
            if self.points[k] <= best {
                continue;
            }
            let info = &v.kinds[k];
            let leaps = info.leap_both[sq.index()] | info.leap_move[sq.index()];
            if (info.orthogonal.is_some() && straight.contains(sq))
                || (info.diagonal.is_some() && diagonal.contains(sq))
                || (self.leap_from[c][k].contains(sq) && (leaps & land).any())
            {
                best = self.points[k];
            }
        }
        best
    }

    /// Pieces of `c` that can make relieving captures on its first rank: its pieces (not
    /// pawns) on its first two ranks.
    fn defenders(&self, pos: &Position, c: Color) -> i32 {
        let mut bb = pos.by_color[c] & self.home[c];
        if let Some(p) = self.pawn {
            bb &= !pos.by_kind[p];
        }
        bb.count() as i32
    }

    /// The race and defence terms of both sides, added to `sum`: the points on the tenth
    /// rank (`decima.score`), the points one move can add (`decima.to_move` for the side to
    /// move, `decima.waiting` for the other: the entry of the reachable total minus that of
    /// the current score) and the first-rank defence (`decima.defender`).
    pub(super) fn terms<T: Trace>(&self, l: &Layout, pos: &Position, sum: &mut Sum<'_, T>) {
        let side = pos.side;
        let mut score = ByColor([0usize; 2]);
        let mut potential = ByColor([0usize; 2]);
        for c in Color::ALL {
            let s = pos.score(c).min(WINNING_SCORE);
            let pot = (s + self.reach(pos, c)).min(WINNING_SCORE);
            score[c] = s as usize;
            potential[c] = pot as usize;
        }
        for c in Color::ALL {
            let (s, pot) = (score[c], potential[c]);
            sum.add(c, l.decima_score + s, 1);
            let table = if c == side {
                l.decima_to_move
            } else {
                l.decima_waiting
            };
            if pot > s {
                sum.add(c, table + pot, 1);
                sum.add(c, table + s, -1);
            }
            let missing = (DEFENDERS_WANTED - self.defenders(pos, c)).max(0);
            sum.add(c, l.decima_defender, potential[!c] as i32 * missing);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;
    use crate::eval::board::board_fen;
    use crate::eval::{EvalParams, EvalTerms, Evaluator};

    fn decima(pieces: &[(&str, char)], side: &str) -> Position {
        let v = Registry::builtin().get("decima").unwrap();
        let fen = format!("{} {side} - - 0 1", board_fen(10, 10, pieces));
        Position::from_fen(v, &fen).unwrap()
    }

    /// The evaluation with the untuned defaults (the numbers these tests check).
    fn defaults() -> Evaluator {
        let v = Registry::builtin().get("decima").unwrap();
        Evaluator::with_params(&v, EvalTerms::default(), &EvalParams::defaults(&v))
    }

    fn white_terms(pos: &Position) -> i32 {
        defaults().family_only(pos)[Color::White]
    }

    fn score_value(points: usize) -> i32 {
        let e = defaults();
        e.weights[e.layout.decima_score + points][0]
    }

    fn tables() -> DecimaEval {
        DecimaEval::new(&Registry::builtin().get("decima").unwrap())
    }

    #[test]
    fn reach_is_the_best_unit_that_can_enter_the_tenth_rank() {
        let d = tables();
        // The knight (9) on e8 leaps to d10/f10; the rook (7) runs up the open a-file.
        let pos = decima(&[("e8", 'N'), ("a2", 'R'), ("h5", 'k')], "w");
        assert_eq!(d.reach(&pos, Color::White), 9);
        // From e5 the knight cannot, the rook still can.
        let pos = decima(&[("e5", 'N'), ("a2", 'R'), ("h5", 'k')], "w");
        assert_eq!(d.reach(&pos, Color::White), 7);
        // A blocker on the file stops the rook, own or enemy.
        for blocker in ['P', 'p'] {
            let pos = decima(
                &[("e5", 'N'), ("a2", 'R'), ("a6", blocker), ("h5", 'k')],
                "w",
            );
            assert_eq!(d.reach(&pos, Color::White), 0, "{blocker}");
        }
        // Capturing onto one's own tenth rank counts (it is not a suicide capture).
        let pos = decima(&[("e5", 'N'), ("a2", 'R'), ("a10", 'n'), ("h5", 'k')], "w");
        assert_eq!(d.reach(&pos, Color::White), 7);
        // Black's tenth rank is rank 1: a black bishop on e5 reaches a1 or i1 diagonally.
        let pos = decima(&[("e5", 'b'), ("h8", 'K')], "b");
        assert_eq!(d.reach(&pos, Color::Black), 8);
        // A unit already on the rank adds nothing by moving along it.
        let pos = decima(&[("c10", 'R'), ("h5", 'k')], "w");
        assert_eq!(d.reach(&pos, Color::White), 0);
    }

    #[test]
    fn points_on_the_tenth_rank_are_valued_steeply() {
        // Each further point is worth more than the one before.
        let sv = score_value;
        for s in 1..10 {
            assert!(sv(s + 1) - sv(s) > sv(s) - sv(s - 1));
        }
        // The knight (9 points) on the tenth rank beats the same knight on a5, where it cannot
        // reach the rank next move; the queen on j1, hemmed in by its pawns, stays out of reach.
        let on = decima(
            &[
                ("a10", 'N'),
                ("j1", 'Q'),
                ("j2", 'P'),
                ("i2", 'P'),
                ("h5", 'k'),
            ],
            "w",
        );
        let off = decima(
            &[
                ("a5", 'N'),
                ("j1", 'Q'),
                ("j2", 'P'),
                ("i2", 'P'),
                ("h5", 'k'),
            ],
            "w",
        );
        let gain = white_terms(&on) - white_terms(&off);
        assert_eq!(gain, score_value(9));
        // The whole evaluation agrees, by more than the material and square terms alone.
        let v = Registry::builtin().get("decima").unwrap();
        let with = defaults();
        let without = Evaluator::with_params(
            &v,
            EvalTerms {
                decima: false,
                ..EvalTerms::default()
            },
            &EvalParams::defaults(&v),
        );
        assert!(
            with.evaluate(&on) - with.evaluate(&off)
                > without.evaluate(&on) - without.evaluate(&off) + 200
        );
    }

    #[test]
    fn a_unit_that_can_complete_ten_points_is_a_threat() {
        // 9 points on the rank (knight on a10); the queen (1) can run up the e-file for "check".
        let open = |side| decima(&[("a10", 'N'), ("e2", 'Q'), ("h5", 'k')], side);
        let shut = |side| decima(&[("a10", 'N'), ("e2", 'Q'), ("e3", 'P'), ("h5", 'k')], side);
        for side in ["w", "b"] {
            assert!(white_terms(&open(side)) > white_terms(&shut(side)));
        }
        // The side to move can carry the threat out now, so it counts for more.
        let to_move = white_terms(&open("w")) - white_terms(&shut("w"));
        let waiting = white_terms(&open("b")) - white_terms(&shut("b"));
        assert!(to_move > waiting);
    }

    #[test]
    fn first_rank_defenders_matter_when_the_enemy_is_close() {
        // Black has 9 points on its tenth rank (our first): a knight on b1. Our knight on c2
        // can still capture on the first rank; on c5 it cannot (and reaches nothing either).
        let home = decima(&[("b1", 'n'), ("c2", 'N'), ("h5", 'k')], "w");
        let away = decima(&[("b1", 'n'), ("c5", 'N'), ("h5", 'k')], "w");
        let white = |pos: &Position| white_terms(pos);
        let e = defaults();
        let per_point = -e.weights[e.layout.decima_defender][0];
        assert_eq!(white(&home) - white(&away), 9 * per_point);
        // With the enemy nowhere near our first rank, the defender is worth nothing here.
        let home = decima(&[("b5", 'n'), ("c2", 'N'), ("h5", 'k')], "w");
        let away = decima(&[("b5", 'n'), ("c5", 'N'), ("h5", 'k')], "w");
        assert_eq!(white(&home), white(&away));
    }
}
