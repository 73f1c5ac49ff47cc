//! The search's score scale: centipawns, with mate scores at the far ends.
//!
//! A mate in `n` plies from the root scores `MATE - n` for the winner; anything beyond
//! `MATE_BOUND` in absolute value is a mate score. Here too: the conversions of mate scores
//! for the transposition table (node-relative) and for reports ([`Score`]), and the score of a
//! position that has no move to search.

use crate::outcome::GameStatus;
use crate::position::Position;

/// Score of a checkmate at the root (mate in n plies scores `MATE - n`).
pub(crate) const MATE: i32 = 32_000;
/// Scores at least this large (in absolute value) are mate scores.
pub(crate) const MATE_BOUND: i32 = MATE - 1000;
/// Larger than any score.
pub(crate) const INF: i32 = 32_001;

/// A search score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Centipawns(i32),
    /// Moves to mate; negative when being mated.
    Mate(i32),
}

impl Score {
    /// Converts an internal score.
    pub(crate) fn from_internal(v: i32) -> Self {
        if v >= MATE_BOUND {
            Self::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Self::Mate(-(MATE + v) / 2)
        } else {
            Self::Centipawns(v)
        }
    }
}

/// Converts a score at `ply` from the root into the node-relative form stored in the table, so
/// a mate found through a transposition keeps the right distance.
#[inline]
pub(crate) fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Inverse of [`score_to_tt`].
#[inline]
pub(crate) fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// True when the game is decided before any move is generated (Decima's ten points, ...).
#[inline]
pub(crate) fn is_decided(pos: &Position) -> bool {
    pos.variant.rules().game_over_before_moves(pos)
}

/// Score of a position without legal moves, from the side to move's view.
pub(crate) fn terminal_score(pos: &Position, ply: usize) -> i32 {
    let mate_in = MATE - ply as i32;
    if let Some(GameStatus::Finished { winner, .. }) = pos.variant.rules().status_before_moves(pos)
    {
        return match winner {
            Some(c) if c == pos.side => mate_in,
            Some(_) => -mate_in,
            None => 0,
        };
    }
    if pos.in_check() { -mate_in } else { 0 }
}
