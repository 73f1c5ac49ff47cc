//! Static evaluation, per variant, from the variant's spec data and its weights.
//!
//! The terms are written once and read their weights from an [`EvalParams`] (`params.rs`):
//! the tuned values shipped per built-in variant under `engine/eval-params/`, or geometric
//! defaults derived from the board and the pieces (how many squares a piece reaches from a
//! square on an empty board, so a knight-like leaper is drawn to the centre while a rook is
//! not; pawn and passed-pawn tables as long as the board; mobility tables as long as each
//! kind's largest reach). Every term is tapered between a middlegame and an endgame weight by
//! the non-pawn material left.
//!
//! Which family of terms a variant gets is the rules' answer (`RuleSet::eval_family`), and
//! [`Evaluator::new`] builds that family's tables once per search:
//! - every family: material and piece-square sums, kept incrementally by the search
//!   ([`Evaluator::add_piece`]), and pieces in hand;
//! - orthodox (a royal king): pawn structure and passed pawns (`pawns.rs`, cached by pawn
//!   placement), and mobility, king danger and threats from one pass over every piece's
//!   attacks (`attacks.rs`);
//! - Decima: the orthodox terms but king danger (no piece is royal), the race to ten points
//!   and first-rank defence (`decima.rs`);
//! - Orphic: the orthodox terms (pieces in hand join the safe checks on a king) and the
//!   drop-phase terms (`drops.rs`).
//!
//! The tuner (`tune.rs`) evaluates through the same code with a recording [`trace::Trace`],
//! so what it fits is exactly what the search computes.

mod attacks;
mod decima;
mod drops;
mod params;
mod pawns;
mod sum;
mod terms;
mod trace;
mod tune;

use std::sync::Arc;

pub(crate) use attacks::{
    cheaper_masks, pawn_attack_map, piece_kinds, piece_reach, union_of_kinds,
};
pub use params::{EvalParams, ParamsError};
pub(crate) use pawns::PawnCache;
pub use terms::EvalTerms;
pub use tune::{TuneConfig, TuneError, TuneProgress, TuningSet};

use crate::eval::params::{KING_RANKS, Layout, NONE, empty_board_reach};
use crate::eval::sum::{Pair, Sum};
use crate::eval::trace::{NoTrace, Recorder, Trace};
use crate::geometry::{SQUARE_COUNT, Square};
use crate::nnue::Network;
use crate::piece::{ByColor, Color, MAX_KINDS, Piece};
use crate::position::Position;
use crate::rules::EvalFamily;
use crate::variant::{Role, Variant};

/// A variant family's own terms beyond the orthodox ones, with the tables they need (an
/// orthodox or generic variant has none).
#[derive(Debug)]
enum FamilyTerms {
    /// Decima's race to ten points (its orthodox terms have no king danger: no piece is
    /// royal).
    Decima(decima::DecimaEval),
    /// Orphic's drop-phase terms (a drop game is decided by attacks on the king, which
    /// pocket pieces join by dropping, so it has the orthodox terms too).
    Drops(drops::DropEval),
}

/// The tables of the orthodox terms: pawn structure, files, mobility, king danger and
/// threats (every family but the generic one has them).
#[derive(Debug)]
struct OrthodoxTerms {
    pawns: Option<pawns::PawnTables>,
    attacks: attacks::AttackTables,
}

impl OrthodoxTerms {
    fn new(variant: &Variant) -> Self {
        Self {
            pawns: pawns::PawnTables::new(variant),
            attacks: attacks::AttackTables::new(variant),
        }
    }

    /// Pawn structure, passed pawns, files, mobility, king danger and threats, added to `sum`.
    fn add<T: Trace>(
        &self,
        l: &Layout,
        t: EvalTerms,
        pos: &Position,
        cache: Option<&mut PawnCache>,
        sum: &mut Sum<'_, T>,
    ) {
        let passed = match &self.pawns {
            Some(p) if t.pawns => Some((p, p.structure(l, pos, cache, sum))),
            _ => None,
        };
        let attacked = (t.mobility || t.king_safety || t.threats)
            .then(|| attacks::piece_terms(&self.attacks, l, t, pos, sum));
        if let Some((p, passed)) = passed {
            p.passers(l, pos, passed, attacked.map(|a| a.all), sum);
            p.files(l, pos, sum);
        }
        if t.king_safety
            && let Some(pawn) = pos.variant.pawn
        {
            for c in Color::ALL {
                if let Some(k) = pos.royal_square(c) {
                    let shield = self.attacks.shield[c][k.index()]
                        & pos.by_kind[pawn.index()]
                        & pos.by_color[c];
                    sum.add(c, l.shield, (shield.count() as i32).min(3));
                }
            }
        }
    }
}

/// Up to three piece-square features of a piece on a square: `(parameter, coefficient)`.
type SquareFeatures = [(usize, i32); 3];

/// Precomputed evaluation tables for one variant. Built once per search (cheap: a few
/// thousand table entries).
#[derive(Debug)]
pub(crate) struct Evaluator {
    /// The orthodox terms' tables, for every family but the generic one.
    orthodox: Option<OrthodoxTerms>,
    /// The family's own terms, if it has any.
    family: Option<FamilyTerms>,
    terms: EvalTerms,
    layout: Layout,
    /// The weights, per parameter of `layout`.
    weights: Vec<[i32; 2]>,
    kinds: usize,
    /// The spec's material values (move ordering and the threat order use these, not the
    /// tuned ones, so that tuning never changes what the search prunes).
    value: [i32; MAX_KINDS],
    /// Value counted toward the game phase (pieces only; the spec's values).
    phase_value: [i32; MAX_KINDS],
    /// Piece-square values (material included), indexed by `colour * MAX_KINDS + kind`.
    pst: Vec<[Pair; SQUARE_COUNT]>,
    /// The features the piece-square values are sums of, same indexing (for the tuner).
    features: Vec<[SquareFeatures; SQUARE_COUNT]>,
    /// Non-pawn material of both sides in the start position.
    start_phase: i32,
    pocket: bool,
    /// The learned evaluation, when one for this variant was given.
    net: Option<&'static Network>,
}

/// The hand-written evaluation of one variant with its shipped weights, for tools: the
/// trainer of a residual network fits what this misses.
#[derive(Debug)]
pub struct HandEval(Evaluator);

impl HandEval {
    /// The evaluation of `variant` (tables built once).
    pub fn new(variant: &Arc<Variant>) -> Self {
        Self(Evaluator::new(variant, EvalTerms::default()))
    }

    /// `pos` in centipawns from the side to move's view (`pos` must be of the variant).
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.0.evaluate_hand(pos)
    }
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

/// Full phase: all the start position's piece material on the board.
const PHASE_FULL: i32 = 256;

impl Evaluator {
    /// Builds the tables for `variant` with the given terms; the weights are
    /// `terms.params` when they fit the variant, otherwise the variant's shipped ones.
    pub(crate) fn new(variant: &Arc<Variant>, terms: EvalTerms) -> Self {
        let params = terms
            .params
            .filter(|p| p.variant_name() == variant.name())
            .cloned()
            .or_else(|| EvalParams::builtin(variant).ok())
            .unwrap_or_else(|| EvalParams::defaults(variant));
        Self::with_params(variant, terms, &params)
    }

    /// Builds the tables for `variant` with the given terms and weights (the defaults when
    /// `params` does not fit the variant's layout).
    pub(crate) fn with_params(
        variant: &Arc<Variant>,
        terms: EvalTerms,
        params: &EvalParams,
    ) -> Self {
        let eval_family = variant.rules().eval_family(variant);
        let layout = Layout::new(variant, eval_family);
        let weights = if params.values.len() == layout.len() && params.defs == layout.defs {
            params.values.clone()
        } else {
            layout.defs.iter().map(|d| d.default).collect()
        };
        let family = match eval_family {
            EvalFamily::Decima => Some(FamilyTerms::Decima(decima::DecimaEval::new(variant))),
            EvalFamily::Drops => Some(FamilyTerms::Drops(drops::DropEval::new(variant))),
            EvalFamily::Orthodox | EvalFamily::Generic => None,
        };
        let orthodox = eval_family
            .has_orthodox_terms()
            .then(|| OrthodoxTerms::new(variant));
        let kinds = variant.kind_count();
        let mut value = [0; MAX_KINDS];
        let mut phase_value = [0; MAX_KINDS];
        for (k, def) in variant.pieces().iter().enumerate() {
            value[k] = def.value;
            if variant.kinds[k].role == Role::Piece {
                phase_value[k] = def.value;
            }
        }
        let features = square_features(variant, &layout, terms.pst);
        let mut pst = vec![[Pair::default(); SQUARE_COUNT]; 2 * MAX_KINDS];
        for (slot, f) in pst.iter_mut().zip(&features) {
            for (p, feats) in slot.iter_mut().zip(f.iter()) {
                for &(id, coef) in feats {
                    if id != NONE {
                        p.mg += weights[id][0] * coef;
                        p.eg += weights[id][1] * coef;
                    }
                }
            }
        }
        let start_phase = {
            let mut total = 0;
            for c in Color::ALL {
                for (k, &v) in phase_value.iter().enumerate().take(kinds) {
                    total += v * i32::from(variant.initial_counts[c][k]);
                }
            }
            total.max(1)
        };
        Self {
            orthodox,
            family,
            terms,
            layout,
            weights,
            kinds,
            value,
            phase_value,
            pst,
            features,
            start_phase,
            pocket: variant.pocket_kinds != 0,
            net: terms.net.filter(|n| n.variant_name() == variant.name()),
        }
    }

    /// The learned evaluation the search uses instead of the hand-written one, if any.
    #[inline]
    pub(crate) fn net(&self) -> Option<&'static Network> {
        self.net
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

    /// The evaluation from the side to move's point of view, in centipawns (from scratch;
    /// the network's when one is in use; the tests' entry point).
    #[cfg(test)]
    pub(crate) fn evaluate(&self, pos: &Position) -> i32 {
        let learned = self.net.map(|net| net.evaluate_position(pos));
        match learned {
            Some(n) if !self.net.is_some_and(Network::residual) => n,
            _ => self.evaluate_hand(pos) + learned.unwrap_or(0),
        }
    }

    /// The hand-written evaluation alone, from the side to move's view (from scratch).
    pub(crate) fn evaluate_hand(&self, pos: &Position) -> i32 {
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
        let score = ByColor([acc.score[0], acc.score[1]]);
        self.evaluate_with(pos, score, acc.phase, cache, &mut NoTrace)
            .0
    }

    /// The tuner's view of `pos`: every parameter's coefficient, the phase (0..=256) and
    /// the evaluation from White's point of view.
    pub(crate) fn trace(&self, pos: &Position) -> (Recorder, i32, i32) {
        let mut rec = Recorder::default();
        let mut score = ByColor([Pair::default(); 2]);
        let mut phase = 0;
        let mut sum = Sum {
            weights: &self.weights,
            score: ByColor([Pair::default(); 2]),
            trace: &mut rec,
        };
        for sq in pos.occupied() {
            if let Some(p) = pos.board[sq.index()] {
                let k = p.kind().index();
                for &(id, coef) in &self.features[p.color().index() * MAX_KINDS + k][sq.index()] {
                    sum.add(p.color(), id, coef);
                }
                phase += self.phase_value[k];
            }
        }
        score[Color::White] += sum.score[Color::White];
        score[Color::Black] += sum.score[Color::Black];
        let (eval, phase) = self.evaluate_with(pos, score, phase, None, &mut rec);
        rec.compact();
        let white = if pos.side == Color::White {
            eval
        } else {
            -eval
        };
        (rec, phase, white)
    }

    /// The evaluation from the side to move's view and the phase (0..=256), given the
    /// material and piece-square sums `score` and the phase material `phase`.
    #[inline]
    fn evaluate_with<T: Trace>(
        &self,
        pos: &Position,
        score: ByColor<Pair>,
        phase: i32,
        cache: Option<&mut PawnCache>,
        trace: &mut T,
    ) -> (i32, i32) {
        let l = &self.layout;
        let mut sum = Sum {
            weights: &self.weights,
            score,
            trace,
        };
        let mut phase = phase;
        if self.pocket {
            for c in Color::ALL {
                for k in 0..self.kinds {
                    let n = i32::from(pos.pocket[c][k]);
                    if n == 0 {
                        continue;
                    }
                    // A piece in hand can go anywhere: its value plus the hand bonus.
                    sum.add(c, l.value[k], n);
                    sum.add(c, l.hand[k], n);
                    phase += self.phase_value[k] * n;
                }
            }
        }
        sum.add(pos.side, l.tempo, 1);
        if let Some(o) = &self.orthodox {
            o.add(l, self.terms, pos, cache, &mut sum);
        }
        match &self.family {
            Some(FamilyTerms::Decima(d)) if self.terms.decima => d.terms(l, pos, &mut sum),
            Some(FamilyTerms::Drops(d)) if self.terms.drops => d.terms(l, pos, &mut sum),
            // No own terms, or switched off.
            _ => {}
        }
        let us = pos.side;
        let mut total = sum.score[us];
        total -= sum.score[!us];
        let phase = (phase * PHASE_FULL / self.start_phase).clamp(0, PHASE_FULL);
        (
            (total.mg * phase + total.eg * (PHASE_FULL - phase)) / PHASE_FULL,
            phase,
        )
    }
}

#[cfg(test)]
impl Evaluator {
    /// The family's own terms alone (Decima's race, Orphic's drop terms), middlegame sums
    /// per colour: what the family tests check.
    pub(crate) fn family_only(&self, pos: &Position) -> ByColor<i32> {
        let mut sum = Sum {
            weights: &self.weights,
            score: ByColor::default(),
            trace: &mut NoTrace,
        };
        match &self.family {
            Some(FamilyTerms::Decima(d)) => d.terms(&self.layout, pos, &mut sum),
            Some(FamilyTerms::Drops(d)) => d.terms(&self.layout, pos, &mut sum),
            None => {}
        }
        ByColor([sum.score[Color::White].mg, sum.score[Color::Black].mg])
    }
}

/// Per colour, kind and square: the piece-square features (material included), so that a
/// piece's square value is the sum of weight times coefficient over them.
fn square_features(
    variant: &Arc<Variant>,
    l: &Layout,
    positional: bool,
) -> Vec<[SquareFeatures; SQUARE_COUNT]> {
    let size = variant.size();
    let files = i32::from(size.files);
    let ranks = i32::from(size.ranks);
    let squares: Vec<Square> = size.squares().collect();
    // Centre distance in half-squares, 0 at the centre.
    let centre = |sq: Square| -> i32 {
        let df = (2 * i32::from(sq.file()) - (files - 1)).abs();
        let dr = (2 * i32::from(sq.rank()) - (ranks - 1)).abs();
        df.max(dr)
    };
    let centre_file = |sq: Square| (2 * i32::from(sq.file()) - (files - 1)).abs();
    let max_centre = files.max(ranks) - 1;
    let king_home = variant.royal.map_or(0, |k| {
        let start = Position::new(Arc::clone(variant));
        start
            .pieces_of(Color::White, k)
            .first()
            .map_or(0, |sq| i32::from(sq.rank()))
    });
    let none: SquareFeatures = [(NONE, 0); 3];
    let mut out = vec![[none; SQUARE_COUNT]; 2 * MAX_KINDS];
    for k in 0..variant.kind_count() {
        let info = &variant.kinds[k];
        let reach = |sq: Square| empty_board_reach(variant, k, sq).count() as i32;
        let avg = squares.iter().map(|&s| reach(s)).sum::<i32>() / squares.len().max(1) as i32;
        for &sq in &squares {
            for c in Color::ALL {
                let r = i32::from(c.relative_rank(sq.rank(), size.ranks));
                let mut f = none;
                f[0] = (l.value[k], 1);
                if positional {
                    match info.role {
                        Role::Piece => {
                            f[1] = (l.pst_centre[k], max_centre - centre(sq));
                            f[2] = (l.pst_reach[k], reach(sq) - avg);
                        }
                        Role::Pawn => {
                            let central = (max_centre - centre(sq).max(1)) / 2;
                            f[1] = (l.pawn_rank + r as usize, 1);
                            f[2] = (l.pawn_centre, central * (r.min(4) - 1).max(0));
                        }
                        Role::RoyalKing => {
                            // Middlegame: stay on the home rank (Opulent's and SOHO's is the
                            // second) and off the centre files; endgame: centre.
                            let up = (r - king_home).clamp(0, KING_RANKS as i32 - 1);
                            f[0] = (l.king_rank + up as usize, 1);
                            f[1] = (l.king_file, max_centre - centre_file(sq));
                            f[2] = (l.king_centre, max_centre - centre(sq));
                        }
                    }
                }
                out[c.index() * MAX_KINDS + k][sq.index()] = f;
            }
        }
    }
    out
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
            // Everything but the tempo cancels; the start has all its material (phase 256).
            let tempo = e.weights[e.layout.tempo][0];
            assert_eq!(e.evaluate(&pos), tempo, "{}", v.name());
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

    #[test]
    fn orthogonal_riders_on_open_and_half_open_files_are_counted() {
        // Rooks on a1 (only a black pawn on the file), b1 (behind its own pawn) and c1 (no
        // pawn on the file); Black has no rook.
        let v = Registry::builtin().get("chess").unwrap();
        let e = Evaluator::new(&v, EvalTerms::default());
        let rook = v.kind_by_letter('R').unwrap().index();
        let pos = Position::from_fen(v, "4k3/pp6/8/8/8/8/1P6/RRR1K3 w - - 0 1").unwrap();
        let (rec, _, _) = e.trace(&pos);
        assert_eq!(rec.linear_coefficient(e.layout.file_open[rook]), 1);
        assert_eq!(rec.linear_coefficient(e.layout.file_semi[rook]), 1);
    }
}
