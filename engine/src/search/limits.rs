//! What bounds a search: depth, nodes, time or a game clock, and the threads and lines it may
//! use. How the search plays is not a limit (see [`SearchOptions`](super::SearchOptions)).
//!
//! `depth`, `nodes`, `movetime` and `clock` combine (the first reached stops the search);
//! `infinite` ignores all but the stop flag and `nodes`. With none of them set, the search runs
//! to depth [`DEFAULT_DEPTH`](super::time::DEFAULT_DEPTH) or for
//! [`DEFAULT_MOVETIME`](super::time::DEFAULT_MOVETIME), whichever comes first.

use std::time::Duration;

use crate::moves::Move;

/// What bounds a search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes (all threads together).
    pub nodes: Option<u64>,
    /// Time for this move.
    pub movetime: Option<Duration>,
    /// Game clock; the search budgets its own time from it.
    pub clock: Option<Clock>,
    /// Search until stopped (only `nodes` and the stop flag end it).
    pub infinite: bool,
    /// Threads; 0 or 1 = one thread.
    pub threads: usize,
    /// Number of best lines to report; 0 or 1 = one line.
    pub multipv: usize,
    /// Restricts the root to these moves (UCI `go searchmoves`); empty = every legal move.
    /// Moves that are not legal in the searched position are ignored, and when none of them
    /// is legal the whole root is searched, so a search always has a move to return.
    pub search_moves: Vec<Move>,
}

/// A game clock.
#[derive(Clone, Debug)]
pub struct Clock {
    /// White's remaining time.
    pub wtime: Duration,
    /// Black's remaining time.
    pub btime: Duration,
    /// White's increment per move.
    pub winc: Duration,
    /// Black's increment per move.
    pub binc: Duration,
    /// Moves until the next time control, if any.
    pub movestogo: Option<u32>,
}
