//! What move ordering keeps per thread: the scored move lists a node sorts, and the
//! statistics learned during the search: butterfly history (origin and destination),
//! continuation histories (the move one and two plies back, then this move), capture history
//! (attacker, destination, victim) and counter-moves (the reply that refuted the opponent's
//! last move).
//!
//! All histories use the "gravity" update `h += b - h * |b| / MAX`, which keeps every entry
//! within `±MAX` and lets old knowledge fade as new bonuses arrive, so they fit `i16`.
//!
//! A move's *context* is its moved piece (colour and kind) and destination: the continuation
//! history of a context says how well each (kind, destination) of the next mover answered it.
//! Tables are sized from the variant's piece count, so a 10-kind 10x10 variant needs about
//! 4 MB per thread for the continuation table, allocated zeroed (lazily by the OS).

use crate::geometry::{SQUARE_COUNT, Square};
use crate::moves::{Move, MoveKind};
use crate::piece::{Color, MAX_KINDS};
use crate::position::Position;

/// A move with its ordering score.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScoredMove {
    /// The move.
    pub(crate) mv: Move,
    /// Ordering score, higher first.
    pub(crate) score: i32,
}

/// Entries stay within `±HISTORY_MAX`.
pub(crate) const HISTORY_MAX: i32 = 16_384;

/// Origin slots of the butterfly table: the squares, then one per droppable kind.
const FROM_SLOTS: usize = SQUARE_COUNT + MAX_KINDS;

/// A move's context: `(colour * kinds + kind) * SQUARE_COUNT + destination`.
pub(crate) type Context = u32;

/// The learned ordering statistics of one search thread.
#[derive(Debug)]
pub(crate) struct Histories {
    kinds: usize,
    butterfly: Vec<i16>,
    capture: Vec<i16>,
    continuation: Vec<i16>,
    counter: Vec<Option<Move>>,
}

/// Applies a gravity update of `bonus` to `entry`.
#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let h = i32::from(*entry);
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry = (h + b - h * b.abs() / HISTORY_MAX) as i16;
}

impl Histories {
    /// Empty tables for a variant with `kinds` piece kinds.
    pub(crate) fn new(kinds: usize) -> Self {
        let kinds = kinds.clamp(1, MAX_KINDS);
        let contexts = 2 * kinds * SQUARE_COUNT;
        Self {
            kinds,
            butterfly: vec![0; 2 * FROM_SLOTS * SQUARE_COUNT],
            capture: vec![0; 2 * kinds * SQUARE_COUNT * kinds],
            continuation: vec![0; contexts * kinds * SQUARE_COUNT],
            counter: vec![None; contexts],
        }
    }

    /// The kind `m` moves (the pawn for a promotion, the dropped kind for a drop), if known.
    #[inline]
    pub(crate) fn moved_kind(pos: &Position, m: Move) -> Option<usize> {
        match m.kind() {
            MoveKind::Drop { kind, .. } => Some(kind.index()),
            _ => m
                .from()
                .and_then(|f| pos.board[f.index()])
                .map(|p| p.kind().index()),
        }
    }

    /// The context of `m` played by the side to move of `pos` (before it is played).
    #[inline]
    pub(crate) fn context(&self, pos: &Position, m: Move) -> Option<Context> {
        let kind = Self::moved_kind(pos, m)?;
        if kind >= self.kinds {
            return None;
        }
        let piece = pos.side.index() * self.kinds + kind;
        Some((piece * SQUARE_COUNT + m.to().index()) as Context)
    }

    #[inline]
    fn butterfly_index(side: Color, m: Move) -> usize {
        let slot = match m.kind() {
            MoveKind::Drop { kind, .. } => SQUARE_COUNT + kind.index(),
            _ => m.from().map_or(0, Square::index),
        };
        (side.index() * FROM_SLOTS + slot) * SQUARE_COUNT + m.to().index()
    }

    /// Butterfly history of `m` for `side`.
    #[inline]
    pub(crate) fn butterfly(&self, side: Color, m: Move) -> i32 {
        i32::from(self.butterfly[Self::butterfly_index(side, m)])
    }

    #[inline]
    fn continuation_index(&self, ctx: Context, kind: usize, to: usize) -> usize {
        ctx as usize * self.kinds * SQUARE_COUNT + kind * SQUARE_COUNT + to
    }

    /// Continuation history of (`kind`, `to`) after a move with context `ctx`.
    #[inline]
    pub(crate) fn continuation(&self, ctx: Context, kind: usize, to: usize) -> i32 {
        i32::from(self.continuation[self.continuation_index(ctx, kind, to)])
    }

    #[inline]
    fn capture_index(&self, side: Color, attacker: usize, to: usize, victim: usize) -> usize {
        ((side.index() * self.kinds + attacker) * SQUARE_COUNT + to) * self.kinds + victim
    }

    /// Capture history of `attacker` (of `side`) taking `victim` on `to`.
    #[inline]
    pub(crate) fn capture(&self, side: Color, attacker: usize, to: usize, victim: usize) -> i32 {
        if attacker >= self.kinds || victim >= self.kinds {
            return 0;
        }
        i32::from(self.capture[self.capture_index(side, attacker, to, victim)])
    }

    /// The remembered reply to a move with context `ctx`.
    #[inline]
    pub(crate) fn counter(&self, ctx: Context) -> Option<Move> {
        self.counter[ctx as usize]
    }

    /// The quiet-move score of `m` in `pos`: butterfly plus the continuation histories of
    /// the `contexts` (the moves one and two plies back, when there were such moves).
    #[inline]
    pub(crate) fn quiet_score(
        &self,
        pos: &Position,
        m: Move,
        contexts: [Option<Context>; 2],
    ) -> i32 {
        let mut s = self.butterfly(pos.side, m);
        if let Some(kind) = Self::moved_kind(pos, m).filter(|&k| k < self.kinds) {
            let to = m.to().index();
            for ctx in contexts.into_iter().flatten() {
                s += self.continuation(ctx, kind, to);
            }
        }
        s
    }

    /// Rewards (`bonus` > 0) or penalises a quiet move: butterfly and continuation tables.
    pub(crate) fn update_quiet(
        &mut self,
        pos: &Position,
        m: Move,
        contexts: [Option<Context>; 2],
        bonus: i32,
    ) {
        let kind = Self::moved_kind(pos, m);
        self.update_quiet_kind(pos.side, m, kind, contexts, bonus);
    }

    /// Rewards the quiet move `m` that `side` played with context `ctx`, after `contexts`
    /// (the moves one and two plies before it), once the position it led to has been searched.
    pub(crate) fn update_prior(
        &mut self,
        side: Color,
        m: Move,
        ctx: Context,
        contexts: [Option<Context>; 2],
        bonus: i32,
    ) {
        // The inverse of `context`: its piece index is `colour * kinds + kind`.
        let kind = (ctx as usize / SQUARE_COUNT) % self.kinds;
        self.update_quiet_kind(side, m, Some(kind), contexts, bonus);
    }

    /// The update of `update_quiet` once the moved kind is known (`None`: butterfly only).
    fn update_quiet_kind(
        &mut self,
        side: Color,
        m: Move,
        kind: Option<usize>,
        contexts: [Option<Context>; 2],
        bonus: i32,
    ) {
        let i = Self::butterfly_index(side, m);
        gravity(&mut self.butterfly[i], bonus);
        if let Some(kind) = kind.filter(|&k| k < self.kinds) {
            let to = m.to().index();
            for ctx in contexts.into_iter().flatten() {
                let j = self.continuation_index(ctx, kind, to);
                gravity(&mut self.continuation[j], bonus);
            }
        }
    }

    /// Rewards or penalises a capture of `victim` by the move `m`.
    pub(crate) fn update_capture(&mut self, pos: &Position, m: Move, victim: usize, bonus: i32) {
        let Some(attacker) = Self::moved_kind(pos, m) else {
            return;
        };
        if attacker >= self.kinds || victim >= self.kinds {
            return;
        }
        let i = self.capture_index(pos.side, attacker, m.to().index(), victim);
        gravity(&mut self.capture[i], bonus);
    }

    /// Remembers `m` as the reply to a move with context `ctx`.
    pub(crate) fn set_counter(&mut self, ctx: Context, m: Move) {
        self.counter[ctx as usize] = Some(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_keeps_entries_bounded() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 5000);
        }
        assert!(i32::from(e) <= HISTORY_MAX && e > 15_000, "{e}");
        for _ in 0..1000 {
            gravity(&mut e, -5000);
        }
        assert!(i32::from(e) >= -HISTORY_MAX && e < -15_000, "{e}");
    }

    #[test]
    fn prior_update_rewards_the_move_and_its_continuations() {
        let mut h = Histories::new(6);
        let m = Move::normal(Square::new(12), Square::new(28));
        let kind = 1;
        let ctx = ((Color::White.index() * 6 + kind) * SQUARE_COUNT + 28) as Context;
        let before: Context = 5;
        h.update_prior(Color::White, m, ctx, [Some(before), None], 400);
        assert!(h.butterfly(Color::White, m) > 0);
        assert!(h.continuation(before, kind, 28) > 0);
        // The other side's table and other kinds on that square learn nothing.
        assert_eq!(h.butterfly(Color::Black, m), 0);
        assert_eq!(h.continuation(before, kind + 1, 28), 0);
    }
}
