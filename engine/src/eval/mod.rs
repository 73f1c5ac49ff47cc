//! Static evaluation, per variant, from the variant's spec data.
//!
//! Nothing here is hand-tuned per board: piece-square terms are derived from geometry (how many
//! squares a piece reaches from a square on an empty board, so a knight-like leaper is drawn to
//! the centre while a rook is not), pawn terms from the promotion rank, king zones from the
//! board size. Material comes from [`PieceDef::value`](crate::PieceDef). The terms are tapered
//! between a middlegame and an endgame weight by the non-pawn material left.
//!
//! Which family of terms a variant gets is the rules' answer (`RuleSet::eval_family`), and
//! [`Evaluator::new`] builds that family's tables once: Decima's race to ten points is in
//! `decima.rs`, Orphic's drop-phase terms in `drops.rs`. A standard variant without a royal
//! king gets the generic material + piece-square evaluation.

mod decima;
mod drops;

use std::sync::Arc;

use crate::bitboard::Bitboard;
use crate::geometry::{SQUARE_COUNT, Square};
use crate::piece::{ByColor, Color, MAX_KINDS, Piece};
use crate::position::Position;
use crate::rules::EvalFamily;
use crate::variant::{Role, Variant};

/// Which evaluation terms are on (for self-play comparisons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalTerms {
    /// Piece-square terms (centralisation, pawn advancement, king placement).
    pub pst: bool,
    /// Slider and leaper mobility. Off by default: in self-play at fixed nodes it did not pay
    /// for itself (docs/BENCHMARKS.md), and it is the most expensive term.
    pub mobility: bool,
    /// Doubled, isolated and passed pawns.
    pub pawns: bool,
    /// Pawn shield and enemy pieces near the king.
    pub king_safety: bool,
    /// Decima: points on the tenth rank, units that can reach it next move, and first-rank
    /// defenders (`decima.rs`).
    pub decima: bool,
    /// Orphic: pocket-piece share, king-in-hand penalty and drop danger around the king
    /// (`drops.rs`).
    pub drops: bool,
}

impl Default for EvalTerms {
    fn default() -> Self {
        Self {
            pst: true,
            mobility: false,
            pawns: true,
            king_safety: true,
            decima: true,
            drops: true,
        }
    }
}

/// Middlegame and endgame weights of one term.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pair {
    mg: i32,
    eg: i32,
}

impl Pair {
    /// The same weight in the middlegame and the endgame.
    const fn both(v: i32) -> Self {
        Self { mg: v, eg: v }
    }
}

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Self) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for Pair {
    fn sub_assign(&mut self, o: Self) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

/// The terms of a variant's evaluation family, with the tables they need.
#[derive(Debug)]
enum FamilyTerms {
    /// Pawn structure, king safety and mobility.
    Orthodox,
    /// Decima's race to ten points.
    Decima(decima::DecimaEval),
    /// Orphic's drop-phase terms.
    Drops(drops::DropEval),
    /// Nothing beyond material and piece-square terms.
    Generic,
}

/// Precomputed evaluation tables for one variant. Built once per search (cheap: a few
/// thousand table entries).
#[derive(Debug)]
pub(crate) struct Evaluator {
    family: FamilyTerms,
    terms: EvalTerms,
    kinds: usize,
    value: [i32; MAX_KINDS],
    /// Value counted toward the game phase (pieces only).
    phase_value: [i32; MAX_KINDS],
    /// Piece-square values (material included), indexed by `colour * MAX_KINDS + kind`.
    pst: Vec<[Pair; SQUARE_COUNT]>,
    /// Mobility weight per kind (centipawns per reachable square, mg/eg).
    mobility: [Pair; MAX_KINDS],
    /// Squares ahead of a pawn on its own and adjacent files, per colour.
    passed_mask: Box<ByColor<[Bitboard; SQUARE_COUNT]>>,
    /// Passed-pawn bonus by square, per colour.
    passed_bonus: Box<ByColor<[Pair; SQUARE_COUNT]>>,
    file_mask: Vec<Bitboard>,
    adjacent_files: Vec<Bitboard>,
    /// Squares within king distance 2, per square.
    king_zone: Box<[Bitboard; SQUARE_COUNT]>,
    /// The three squares in front of the king and the three beyond, per colour.
    shield: Box<ByColor<[Bitboard; SQUARE_COUNT]>>,
    /// Non-pawn material of both sides in the start position.
    start_phase: i32,
    pawn: Option<usize>,
    royal: Option<usize>,
    pocket: bool,
}

/// Material and piece-square sums per colour plus the phase material, kept incrementally by
/// the search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Acc {
    /// Per colour: middlegame and endgame sums.
    score: [Pair; 2],
    /// Non-pawn, non-king material on the board.
    phase: i32,
}

/// A small per-thread cache of pawn-structure terms keyed by the pawn placement.
#[derive(Clone, Debug)]
pub(crate) struct PawnCache {
    entries: Vec<(u64, [Pair; 2])>,
}

impl Default for PawnCache {
    fn default() -> Self {
        Self {
            entries: vec![(0, [Pair::default(); 2]); 1 << 14],
        }
    }
}

fn mix(bb: u128) -> u64 {
    let x = (bb as u64) ^ ((bb >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let x = (x ^ (x >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 29)
}

/// Bonus for the side to move.
const TEMPO: i32 = 12;

impl Evaluator {
    /// Builds the tables for `variant` with the given terms.
    pub(crate) fn new(variant: &Arc<Variant>, terms: EvalTerms) -> Self {
        let family = match variant.rules().eval_family(variant) {
            EvalFamily::Orthodox => FamilyTerms::Orthodox,
            EvalFamily::Decima => FamilyTerms::Decima(decima::DecimaEval::new(variant)),
            EvalFamily::Drops => FamilyTerms::Drops(drops::DropEval::new(variant)),
            EvalFamily::Generic => FamilyTerms::Generic,
        };
        let size = variant.size();
        let t = &variant.tables;
        let kinds = variant.kind_count();
        let mut value = [0; MAX_KINDS];
        for (k, def) in variant.pieces().iter().enumerate() {
            value[k] = def.value;
        }
        let files = i32::from(size.files);
        let ranks = i32::from(size.ranks);
        let squares: Vec<Square> = size.squares().collect();
        // Centre distance in half-squares, 0 at the centre.
        let centre = |sq: Square| -> i32 {
            let df = (2 * i32::from(sq.file()) - (files - 1)).abs();
            let dr = (2 * i32::from(sq.rank()) - (ranks - 1)).abs();
            df.max(dr)
        };
        let max_centre = files.max(ranks) - 1;
        let mut pst = vec![[Pair::default(); SQUARE_COUNT]; 2 * MAX_KINDS];
        let mut mobility = [Pair::default(); MAX_KINDS];
        let promotion_rank = ranks - 1;
        let king_home = variant.royal.map_or(0, |k| {
            let start = Position::new(Arc::clone(variant));
            start
                .pieces_of(Color::White, k)
                .first()
                .map_or(0, |sq| i32::from(sq.rank()))
        });
        for k in 0..kinds {
            let info = &variant.kinds[k];
            let reach = |sq: Square| -> i32 {
                let i = sq.index();
                let mut bb = info.leap_both[i] | info.leap_move[i] | info.leap_capture[i];
                if info.orthogonal.is_some() || info.hop {
                    bb |= t.rook_attacks(sq, Bitboard::EMPTY);
                }
                if info.diagonal.is_some() {
                    bb |= t.bishop_attacks(sq, Bitboard::EMPTY);
                }
                bb.count() as i32
            };
            let avg = squares.iter().map(|&s| reach(s)).sum::<i32>() / squares.len().max(1) as i32;
            let is_slider = info.orthogonal.is_some() || info.diagonal.is_some();
            mobility[k] = match info.role {
                Role::Piece if is_slider => Pair { mg: 3, eg: 4 },
                Role::Piece => Pair { mg: 4, eg: 4 },
                _ => Pair::default(),
            };
            for &sq in &squares {
                let rel_rank = |c: Color| i32::from(c.relative_rank(sq.rank(), size.ranks));
                for c in Color::ALL {
                    let cur = centre(sq);
                    let positional = match info.role {
                        Role::Piece => {
                            // Leapers gain most from the centre; sliders a little.
                            let w = if is_slider { 2 } else { 4 };
                            let r = reach(sq) - avg;
                            Pair {
                                mg: w * r + (max_centre - cur),
                                eg: w * r / 2 + (max_centre - cur),
                            }
                        }
                        Role::Pawn => {
                            let r = rel_rank(c);
                            let central = (max_centre - cur.max(1)) / 2;
                            let adv = r * r * 60 / (promotion_rank * promotion_rank).max(1);
                            Pair {
                                mg: r * 3 + central * (r.min(4) - 1).max(0),
                                eg: adv,
                            }
                        }
                        Role::RoyalKing => {
                            // Middlegame: stay on the home rank (Opulent's and SOHO's is the
                            // second) and off the centre files; endgame: centre.
                            let r = (rel_rank(c) - king_home).max(0);
                            Pair {
                                mg: -25 * r.min(3) - 3 * (max_centre - centre_file(sq, files)),
                                eg: 3 * (max_centre - cur),
                            }
                        }
                    };
                    let positional = if terms.pst {
                        positional
                    } else {
                        Pair::default()
                    };
                    pst[c.index() * MAX_KINDS + k][sq.index()] = Pair {
                        mg: value[k] + positional.mg,
                        eg: value[k] + positional.eg,
                    };
                }
            }
        }
        let mut file_mask = vec![Bitboard::EMPTY; usize::from(size.files)];
        for &sq in &squares {
            file_mask[usize::from(sq.file())] = file_mask[usize::from(sq.file())].with(sq);
        }
        let adjacent_files = (0..usize::from(size.files))
            .map(|f| {
                let mut bb = Bitboard::EMPTY;
                if f > 0 {
                    bb |= file_mask[f - 1];
                }
                if f + 1 < file_mask.len() {
                    bb |= file_mask[f + 1];
                }
                bb
            })
            .collect::<Vec<_>>();
        let mut passed_mask = Box::new(ByColor([[Bitboard::EMPTY; SQUARE_COUNT]; 2]));
        let mut passed_bonus = Box::new(ByColor([[Pair::default(); SQUARE_COUNT]; 2]));
        let mut shield = Box::new(ByColor([[Bitboard::EMPTY; SQUARE_COUNT]; 2]));
        let mut king_zone = Box::new([Bitboard::EMPTY; SQUARE_COUNT]);
        for &sq in &squares {
            for c in Color::ALL {
                let fwd = c.forward();
                let mut ahead = Bitboard::EMPTY;
                for &o in &squares {
                    let in_front = if fwd > 0 {
                        o.rank() > sq.rank()
                    } else {
                        o.rank() < sq.rank()
                    };
                    if in_front && o.file().abs_diff(sq.file()) <= 1 {
                        ahead = ahead.with(o);
                    }
                }
                passed_mask[c][sq.index()] = ahead;
                let r = i32::from(c.relative_rank(sq.rank(), size.ranks));
                let scale = r * r * 100 / (promotion_rank * promotion_rank).max(1);
                passed_bonus[c][sq.index()] = Pair {
                    mg: scale / 3 + 5,
                    eg: scale + 10,
                };
                let mut sh = Bitboard::EMPTY;
                for df in -1..=1 {
                    for dr in 1..=2 {
                        if let Some(s) = sq.offset(df, dr * fwd, size) {
                            sh = sh.with(s);
                        }
                    }
                }
                shield[c][sq.index()] = sh;
            }
            let mut zone = Bitboard::EMPTY;
            for df in -2..=2 {
                for dr in -2..=2 {
                    if let Some(s) = sq.offset(df, dr, size) {
                        zone = zone.with(s);
                    }
                }
            }
            king_zone[sq.index()] = zone;
        }
        let start_phase = {
            let mut total = 0;
            for c in Color::ALL {
                for (k, &v) in value.iter().enumerate().take(kinds) {
                    if variant.kinds[k].role == Role::Piece {
                        total += v * i32::from(variant.initial_counts[c][k]);
                    }
                }
            }
            total.max(1)
        };
        let mut phase_value = [0; MAX_KINDS];
        for k in 0..kinds {
            if variant.kinds[k].role == Role::Piece {
                phase_value[k] = value[k];
            }
        }
        Self {
            family,
            terms,
            kinds,
            value,
            phase_value,
            pst,
            mobility,
            passed_mask,
            passed_bonus,
            file_mask,
            adjacent_files,
            king_zone,
            shield,
            start_phase,
            pawn: variant.pawn.map(crate::PieceKind::index),
            royal: variant.royal.map(crate::PieceKind::index),
            pocket: variant.pocket_kinds != 0,
        }
    }

    /// Material value of a kind, in centipawns (for move ordering).
    #[inline]
    pub(crate) fn value(&self, kind: usize) -> i32 {
        self.value[kind]
    }

    /// Material and piece-square sums from scratch.
    pub(crate) fn accumulate(&self, pos: &Position) -> Acc {
        let mut acc = Acc::default();
        for sq in pos.occupied() {
            if let Some(p) = pos.board[sq.index()] {
                self.add_piece(&mut acc, p, sq, 1);
            }
        }
        acc
    }

    /// Adds (`sign` = 1) or removes (`sign` = -1) a piece's material and square value.
    #[inline]
    pub(crate) fn add_piece(&self, acc: &mut Acc, piece: Piece, sq: Square, sign: i32) {
        let k = piece.kind().index();
        let v = self.pst[piece.color().index() * MAX_KINDS + k][sq.index()];
        let slot = &mut acc.score[piece.color().index()];
        slot.mg += sign * v.mg;
        slot.eg += sign * v.eg;
        acc.phase += sign * self.phase_value[k];
    }

    /// The evaluation from the side to move's point of view, in centipawns (from scratch).
    pub(crate) fn evaluate(&self, pos: &Position) -> i32 {
        let acc = self.accumulate(pos);
        self.evaluate_acc(pos, &acc, None)
    }

    /// The evaluation given the incrementally kept sums `acc` and an optional pawn cache.
    pub(crate) fn evaluate_acc(
        &self,
        pos: &Position,
        acc: &Acc,
        cache: Option<&mut PawnCache>,
    ) -> i32 {
        let mut score = ByColor([
            Pair {
                mg: acc.score[0].mg,
                eg: acc.score[0].eg,
            },
            Pair {
                mg: acc.score[1].mg,
                eg: acc.score[1].eg,
            },
        ]);
        let mut phase = acc.phase;
        if self.pocket {
            for c in Color::ALL {
                for k in 0..self.kinds {
                    let n = i32::from(pos.pocket[c][k]);
                    if n == 0 {
                        continue;
                    }
                    // A piece in hand can go anywhere: full value, plus a small bonus.
                    let v = n * (self.value[k] + 10);
                    score[c] += Pair { mg: v, eg: v };
                    phase += self.phase_value[k] * n;
                }
            }
        }
        match &self.family {
            FamilyTerms::Orthodox => {
                let pawn_terms = self.pawn_terms_cached(pos, cache);
                for c in Color::ALL {
                    score[c] += pawn_terms[c.index()];
                    let extra = self.orthodox_terms(pos, c);
                    score[c] += extra;
                }
            }
            FamilyTerms::Decima(d) => {
                if self.terms.decima {
                    let terms = d.terms(pos);
                    for c in Color::ALL {
                        score[c] += Pair::both(terms[c]);
                    }
                }
            }
            FamilyTerms::Drops(d) => {
                if self.terms.drops {
                    let terms = d.terms(pos, &self.value, self.kinds);
                    for c in Color::ALL {
                        score[c] += Pair::both(terms[c]);
                    }
                }
            }
            FamilyTerms::Generic => {}
        }
        let us = pos.side;
        let mut total = score[us];
        total -= score[!us];
        let phase = (phase * 256 / self.start_phase).clamp(0, 256);
        (total.mg * phase + total.eg * (256 - phase)) / 256 + TEMPO
    }

    fn pawn_terms_cached(&self, pos: &Position, cache: Option<&mut PawnCache>) -> [Pair; 2] {
        let Some(p) = self.pawn else {
            return [Pair::default(); 2];
        };
        if !self.terms.pawns {
            return [Pair::default(); 2];
        }
        let white = (pos.by_kind[p] & pos.by_color[Color::White]).0;
        let black = (pos.by_kind[p] & pos.by_color[Color::Black]).0;
        let Some(cache) = cache else {
            return [
                self.pawn_terms(pos, Color::White),
                self.pawn_terms(pos, Color::Black),
            ];
        };
        let key = mix(white) ^ mix(black).rotate_left(17) ^ 0x5bd1_e995;
        let slot = (key as usize) & (cache.entries.len() - 1);
        let e = cache.entries[slot];
        if e.0 == key {
            return e.1;
        }
        let terms = [
            self.pawn_terms(pos, Color::White),
            self.pawn_terms(pos, Color::Black),
        ];
        cache.entries[slot] = (key, terms);
        terms
    }

    /// Doubled, isolated and passed pawns of `c`.
    fn pawn_terms(&self, pos: &Position, c: Color) -> Pair {
        let mut s = Pair::default();
        let Some(p) = self.pawn else { return s };
        let pawns = pos.by_kind[p] & pos.by_color[c];
        let their_pawns = pos.by_kind[p] & pos.by_color[!c];
        for sq in pawns {
            let f = usize::from(sq.file());
            if (self.passed_mask[c][sq.index()] & their_pawns).is_empty() {
                s += self.passed_bonus[c][sq.index()];
            }
            if (self.adjacent_files[f] & pawns).is_empty() {
                s -= Pair { mg: 10, eg: 15 };
            }
        }
        for &fm in &self.file_mask {
            let n = (fm & pawns).count() as i32;
            if n > 1 {
                s -= Pair {
                    mg: 10 * (n - 1),
                    eg: 20 * (n - 1),
                };
            }
        }
        s
    }

    /// King safety and mobility for `c`.
    fn orthodox_terms(&self, pos: &Position, c: Color) -> Pair {
        let mut s = Pair::default();
        let own = pos.by_color[c];
        let enemy = pos.by_color[!c];
        if self.terms.king_safety
            && let Some(k) = pos.royal_square(c)
        {
            if let Some(p) = self.pawn {
                let shield = (self.shield[c][k.index()] & pos.by_kind[p] & own).count() as i32;
                s.mg += 12 * shield.min(3);
            }
            let near = self.king_zone[k.index()] & enemy;
            let mut danger = 0;
            for sq in near {
                if let Some(piece) = pos.board[sq.index()] {
                    let kind = piece.kind().index();
                    if Some(kind) != self.pawn && Some(kind) != self.royal {
                        danger += 1 + self.value[kind] / 300;
                    }
                }
            }
            s.mg -= danger * danger * 4;
        }
        if self.terms.mobility {
            s += self.mobility_of(pos, c);
        }
        s
    }

    fn mobility_of(&self, pos: &Position, c: Color) -> Pair {
        let v = &*pos.variant;
        let t = &v.tables;
        let own = pos.by_color[c];
        let occupied = pos.occupied();
        let mut s = Pair::default();
        for k in 0..self.kinds {
            let info = &v.kinds[k];
            if info.role != Role::Piece {
                continue;
            }
            let bb = pos.by_kind[k] & own;
            if bb.is_empty() {
                continue;
            }
            let w = self.mobility[k];
            for sq in bb {
                let i = sq.index();
                let mut reach = (info.leap_both[i] | info.leap_move[i]).count() as i32;
                if info.orthogonal.is_some() {
                    reach += (t.rook_attacks(sq, occupied) & !own).count() as i32;
                }
                if info.diagonal.is_some() {
                    reach += (t.bishop_attacks(sq, occupied) & !own).count() as i32;
                }
                // Centre the term so material plus mobility stays near the piece's value.
                let r = reach - 4;
                s.mg += w.mg * r;
                s.eg += w.eg * r;
            }
        }
        s
    }
}

/// Distance of the square's file from the centre files, in half-files.
fn centre_file(sq: Square, files: i32) -> i32 {
    (2 * i32::from(sq.file()) - (files - 1)).abs()
}

// The tests' FEN builder, shared with the integration tests.
#[cfg(test)]
#[allow(
    unreachable_pub,
    reason = "written for the integration tests, where it is public"
)]
#[path = "../../tests/common/board.rs"]
mod board;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;

    #[test]
    fn start_positions_are_balanced() {
        for v in Registry::builtin().iter() {
            let e = Evaluator::new(v, EvalTerms::default());
            let pos = Position::new(v.clone());
            assert_eq!(e.evaluate(&pos), TEMPO, "{}", v.name());
        }
    }

    /// The same position with colours swapped and the board mirrored top to bottom (the
    /// pocket's colours swapped too, and Orphic's bishop rights: mirroring an even board
    /// swaps the square colours, so White's light-square right becomes Black's dark one;
    /// castling rights just swap case).
    fn mirrored(fen: &str, drops: bool) -> String {
        let swap_case = |c: char| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        };
        let mut parts = fen.split_whitespace();
        let field = parts.next().unwrap();
        let side = parts.next().unwrap();
        let rights = parts.next().unwrap_or("-");
        let (board, pocket) = match field.split_once('[') {
            Some((board, pocket)) => (
                board,
                format!("[{}", pocket.chars().map(swap_case).collect::<String>()),
            ),
            None => (field, String::new()),
        };
        let ranks: Vec<String> = board
            .split('/')
            .rev()
            .map(|r| r.chars().map(swap_case).collect())
            .collect();
        let side = if side == "w" { "b" } else { "w" };
        let mut rights: Vec<char> = rights
            .chars()
            .map(|c| match c {
                'L' if drops => 'd',
                'D' if drops => 'l',
                'l' if drops => 'D',
                'd' if drops => 'L',
                other => swap_case(other),
            })
            .collect();
        // Written White's letters first.
        rights.sort_by_key(|c| (c.is_ascii_lowercase(), "KQkqLDld".find(*c)));
        let rights: String = rights.into_iter().collect();
        format!("{}{pocket} {side} {rights} - 0 1", ranks.join("/"))
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        let registry = Registry::builtin();
        for v in registry.iter() {
            let e = Evaluator::new(v, EvalTerms::default());
            let mut positions: Vec<Position> = crate::samples::bench_positions(&registry)
                .into_iter()
                .filter(|p| p.variant().name() == v.name())
                .collect();
            // Random games reach the positions the variant terms are about: Decima units on
            // the tenth rank, Orphic kings still in the pocket or dropped.
            for seed in 1..=12 {
                for plies in [6, 20, 45] {
                    positions.push(crate::samples::random_playout(
                        Position::new(v.clone()),
                        plies,
                        seed,
                    ));
                }
            }
            for pos in positions {
                let fen = pos.fen();
                let flipped =
                    Position::from_fen(v.clone(), &mirrored(&fen, v.has_drops())).unwrap();
                assert_eq!(e.evaluate(&pos), e.evaluate(&flipped), "{fen}");
            }
        }
    }

    #[test]
    fn extra_material_counts() {
        let v = Registry::builtin().get("chess").unwrap();
        let e = Evaluator::new(&v, EvalTerms::default());
        let pos = Position::from_fen(v.clone(), "4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        assert!(e.evaluate(&pos) > 800);
        let pos = Position::from_fen(v, "4k3/8/8/8/8/8/8/3QK3 b - - 0 1").unwrap();
        assert!(e.evaluate(&pos) < -800);
    }
}
