//! Move ordering: the hash move first, then winning captures (MVV-LVA) and promotions,
//! killers, quiet moves by history and threats (`threats.rs`), and losing captures last.
//!
//! "Losing" is a cheap SEE stand-in that works for any piece set: a capture of a cheaper piece
//! onto a square the opponent defends. A full exchange evaluation would have to model hopping
//! cannons and every fairy leaper; this test catches most bad captures at a fraction of the cost.

use crate::bitboard::Bitboard;
use crate::geometry::Square;
use crate::movegen::MoveSink;
use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::rules::QuietHook;
use crate::search::history::{Histories, ScoredMove};
use crate::search::see::see_ge;
use crate::search::threads::ThreadData;

/// Collects every generated move.
#[derive(Debug)]
pub(crate) struct AllMoves<'a>(pub(crate) &'a mut Vec<ScoredMove>);

impl MoveSink for AllMoves<'_> {
    #[inline]
    fn push(&mut self, m: Move) {
        self.0.push(ScoredMove { mv: m, score: 0 });
    }
}

/// A rule family's quiet-move hook, resolved for one node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuietFilter<'a> {
    /// Destinations worth offering to `keep` (from [`QuietHook::squares`]).
    pub(crate) squares: Bitboard,
    /// The hook's per-move test.
    pub(crate) keep: fn(&Position, Move) -> bool,
    /// The position the hook judges.
    pub(crate) pos: &'a Position,
}

impl<'a> QuietFilter<'a> {
    /// Resolves `hook` for the node at `pos`.
    #[inline]
    pub(crate) fn new(hook: QuietHook, pos: &'a Position) -> Self {
        Self {
            squares: (hook.squares)(pos),
            keep: hook.keep,
            pos,
        }
    }

    #[inline]
    fn keeps(&self, m: Move) -> bool {
        self.squares.contains(m.to()) && (self.keep)(self.pos, m)
    }
}

/// Collects captures and promotions only (quiescence), dropping quiet targets in bulk, plus
/// the quiet moves a rule family's hook selects.
#[derive(Debug)]
pub(crate) struct TacticalMoves<'a> {
    /// Squares holding enemy pieces.
    pub(crate) enemy: Bitboard,
    /// The output list.
    pub(crate) list: &'a mut Vec<ScoredMove>,
    /// The rule family's quiet-move hook, resolved for the position being generated.
    pub(crate) quiet: Option<QuietFilter<'a>>,
}

impl MoveSink for TacticalMoves<'_> {
    #[inline]
    fn push(&mut self, m: Move) {
        let keep = match m.kind() {
            MoveKind::Normal { to, .. } => self.enemy.contains(to),
            MoveKind::Promotion { .. } | MoveKind::EnPassant { .. } => true,
            MoveKind::Castle { .. } | MoveKind::Drop { .. } => false,
        } || self.quiet.is_some_and(|q| q.keeps(m));
        if keep {
            self.list.push(ScoredMove { mv: m, score: 0 });
        }
    }

    #[inline]
    fn push_targets(&mut self, from: Square, targets: Bitboard) {
        let mut wanted = targets & self.enemy;
        if let Some(q) = self.quiet {
            // Only quiet targets on the hook's squares need the per-move test.
            for to in targets & !self.enemy & q.squares {
                if (q.keep)(q.pos, Move::normal(from, to)) {
                    wanted = wanted.with(to);
                }
            }
        }
        for to in wanted {
            self.list.push(ScoredMove {
                mv: Move::normal(from, to),
                score: 0,
            });
        }
    }
}

/// Score bands.
const HASH_MOVE: i32 = 10_000_000;
const GOOD_CAPTURE: i32 = 2_000_000;
const PROMOTION: i32 = 1_500_000;
const KILLER: i32 = 1_000_000;
const COUNTER: i32 = 999_000;
const BAD_CAPTURE: i32 = -2_000_000;

/// The kind captured by `m`, if any (en passant captures a pawn).
#[inline]
pub(crate) fn captured_kind(pos: &Position, m: Move) -> Option<usize> {
    match m.kind() {
        MoveKind::Normal { to, .. } | MoveKind::Promotion { to, .. } => {
            pos.board[to.index()].map(|p| p.kind().index())
        }
        MoveKind::EnPassant { .. } => pos.variant.pawn.map(crate::PieceKind::index),
        MoveKind::Castle { .. } | MoveKind::Drop { .. } => None,
    }
}

/// True for moves that are neither captures nor promotions.
#[inline]
pub(crate) fn is_quiet(pos: &Position, m: Move) -> bool {
    m.promotion_kind().is_none() && captured_kind(pos, m).is_none()
}

/// Scores every move of `list` for the node at `ply`: the hash move, good captures
/// (MVV-LVA plus capture history), promotions, killers, the counter-move, quiet moves by their
/// butterfly and continuation histories, then losing captures.
pub(crate) fn score_moves(
    td: &ThreadData,
    list: &mut [ScoredMove],
    tt_move: Option<Move>,
    ply: usize,
) {
    let pos = &td.pos;
    let ev = &td.shared.evaluator;
    let killers = td.killers[ply];
    let contexts = td.contexts();
    let counter = contexts[0].and_then(|c| td.hist.counter(c));
    let tables = &td.shared.threats;
    let threats = td.shared.features.threat_order.then(|| tables.compute(pos));
    for sm in list.iter_mut() {
        let m = sm.mv;
        sm.score = if Some(m) == tt_move {
            HASH_MOVE
        } else if let Some(victim) = captured_kind(pos, m) {
            let s = capture_score(td, m, victim);
            if see_ge(pos, m, 0, &td.shared.see) {
                GOOD_CAPTURE + s
            } else {
                BAD_CAPTURE + s
            }
        } else if let Some(k) = m.promotion_kind() {
            PROMOTION + ev.value(k.index())
        } else if killers[0] == Some(m) {
            KILLER + 1
        } else if killers[1] == Some(m) {
            KILLER
        } else if counter == Some(m) {
            COUNTER
        } else {
            td.hist.quiet_score(pos, m, contexts)
                + threats.as_ref().map_or(0, |t| tables.adjustment(pos, t, m))
        };
    }
}

/// The ordering score of a capture of `victim` by `m`: MVV-LVA plus the capture history.
#[inline]
fn capture_score(td: &ThreadData, m: Move, victim: usize) -> i32 {
    let pos = &td.pos;
    let ev = &td.shared.evaluator;
    let attacker = Histories::moved_kind(pos, m).unwrap_or(0);
    ev.value(victim) * 16 - ev.value(attacker) / 16
        + m.promotion_kind().map_or(0, |k| ev.value(k.index()))
        + td.hist.capture(pos.side, attacker, m.to().index(), victim) / 4
}

/// Scores captures for quiescence: MVV-LVA only.
pub(crate) fn score_tactical(td: &ThreadData, list: &mut [ScoredMove]) {
    let pos = &td.pos;
    let ev = &td.shared.evaluator;
    for sm in list.iter_mut() {
        let m = sm.mv;
        let victim = captured_kind(pos, m).map_or(0, |k| ev.value(k));
        let attacker = m
            .from()
            .and_then(|f| pos.board[f.index()])
            .map_or(0, |p| ev.value(p.kind().index()));
        sm.score =
            victim * 16 - attacker / 16 + m.promotion_kind().map_or(0, |k| ev.value(k.index()));
    }
}

/// Moves the best-scored remaining move to position `i` and returns it (selection sort: most
/// nodes cut off after one or two moves, so sorting the whole list would waste time).
#[inline]
pub(crate) fn pick(list: &mut [ScoredMove], i: usize) -> ScoredMove {
    let mut best = i;
    for j in i + 1..list.len() {
        if list[j].score > list[best].score {
            best = j;
        }
    }
    list.swap(i, best);
    list[i]
}

/// Picks made by selection before [`pick_ordered`] sorts the rest of the list once.
const SELECTED_PICKS: usize = 3;

/// Returns the move to search at position `i` of a node's full move list, best first.
///
/// Cut nodes usually cut on one of the first moves, where selection ([`pick`]) is cheapest;
/// but all-nodes search every move, and selection over 80-120 moves of a 10x10 board is
/// quadratic (it was a quarter of the search's time in profiles). So after the first
/// `SELECTED_PICKS` picks the remainder is sorted once, and later picks just read it.
#[inline]
pub(crate) fn pick_ordered(list: &mut [ScoredMove], i: usize) -> ScoredMove {
    match i.cmp(&SELECTED_PICKS) {
        std::cmp::Ordering::Less => pick(list, i),
        std::cmp::Ordering::Equal => {
            list[i..].sort_unstable_by_key(|m| std::cmp::Reverse(m.score));
            list[i]
        }
        std::cmp::Ordering::Greater => list[i],
    }
}

/// The history bonus of a cutoff at `depth`.
#[inline]
pub(crate) fn history_bonus(depth: i32) -> i32 {
    (depth * depth * 8).min(1600)
}

/// Updates the statistics after `best` caused a cutoff at `depth`: a quiet `best` becomes a
/// killer and the counter-move of the opponent's last move and is rewarded in the butterfly
/// and continuation histories, and the quiet moves tried before it are penalised; a capture is
/// rewarded in the capture history. The captures tried before `best` are penalised either way.
pub(crate) fn update_cutoff_stats(
    td: &mut ThreadData,
    best: Move,
    quiets: &[Move],
    captures: &[(Move, usize)],
    depth: i32,
    ply: usize,
) {
    let bonus = history_bonus(depth);
    let contexts = td.contexts();
    if let Some(victim) = captured_kind(&td.pos, best) {
        td.hist.update_capture(&td.pos, best, victim, bonus);
    } else if best.promotion_kind().is_none() {
        if td.killers[ply][0] != Some(best) {
            td.killers[ply][1] = td.killers[ply][0];
            td.killers[ply][0] = Some(best);
        }
        if let Some(c) = contexts[0] {
            td.hist.set_counter(c, best);
        }
        td.hist.update_quiet(&td.pos, best, contexts, bonus);
        for &m in quiets {
            if m != best {
                td.hist.update_quiet(&td.pos, m, contexts, -bonus);
            }
        }
    }
    for &(m, victim) in captures {
        if m != best {
            td.hist.update_capture(&td.pos, m, victim, -bonus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Registry, RuleSet};

    /// The moves quiescence would generate at `fen` (Decima), as text, with or without the
    /// rule family's hook.
    fn tactical(fen: &str, hook: bool) -> Vec<String> {
        let v = Registry::builtin().get("decima").unwrap();
        let pos = Position::from_fen(v, fen).unwrap();
        let mut list = Vec::new();
        let quiet = if hook {
            pos.variant().rules().quiet_tactical_hook()
        } else {
            None
        };
        pos.generate(&mut TacticalMoves {
            enemy: pos.by_color[!pos.side],
            list: &mut list,
            quiet: quiet.map(|h| QuietFilter::new(h, &pos)),
        });
        let mut out: Vec<String> = list.iter().map(|sm| pos.uci(sm.mv)).collect();
        out.sort();
        out
    }

    #[test]
    fn decima_quiescence_searches_moves_onto_the_tenth_rank() {
        assert!(RuleSet::Decima.quiet_tactical_hook().is_some());
        assert!(RuleSet::Standard.quiet_tactical_hook().is_none());
        // White: knight (9 points) on a10, rook on c2 with the c-file open, queen (1) on e9.
        // Black: a king on h5, out of everyone's reach.
        let fen = "N9/4Q5/10/10/10/7k2/10/10/2R7/10 w - - 0 1";
        let with = tactical(fen, true);
        // The queen's step onto the rank gives "check" (10 points); the rook's run scores too.
        for m in ["e9e10", "e9d10", "e9f10", "c2c10"] {
            assert!(with.contains(&m.to_owned()), "{m} missing from {with:?}");
        }
        // Quiet moves elsewhere, and along the rank (the knight's), stay out.
        for m in ["c2c3", "e9e8", "a10b8"] {
            assert!(!with.contains(&m.to_owned()), "{m} in {with:?}");
        }
        assert_eq!(with, ["c2c10", "e9d10", "e9e10", "e9f10"]);
        // Without the hook only captures would remain, and there are none.
        assert!(tactical(fen, false).is_empty());
    }
}
