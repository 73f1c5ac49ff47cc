//! What move ordering keeps per thread: the butterfly history of quiet moves, and the scored
//! move lists a node sorts.

use crate::geometry::Square;
use crate::moves::{Move, MoveKind};
use crate::piece::MAX_KINDS;

/// A move with its ordering score.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScoredMove {
    /// The move.
    pub(crate) mv: Move,
    /// Ordering score, higher first.
    pub(crate) score: i32,
}

/// History values stay within +-`HISTORY_MAX`.
pub(crate) const HISTORY_MAX: i32 = 16_384;

/// Slots for move origins: 100 squares, then one per droppable kind.
pub(crate) const FROM_SLOTS: usize = 100 + MAX_KINDS;

/// Butterfly history, indexed by `colour * FROM_SLOTS + origin slot`, then destination.
pub(crate) type History = Vec<[i32; 100]>;

/// The history slot of a move's origin.
#[inline]
pub(crate) fn from_slot(m: Move) -> usize {
    match m.kind() {
        MoveKind::Drop { kind, .. } => 100 + kind.index(),
        _ => m.from().map_or(0, Square::index),
    }
}
