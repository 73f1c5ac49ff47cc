//! Perft: counting leaf nodes of the legal move tree, the standard move-generator test.
//!
//! The last ply is bulk-counted (legal moves counted, not played), as Fairy-Stockfish counts.
//!
//! [`perft_with_stop`] and [`divide_with_stop`] are the same walk with a way out: a stop flag set
//! by another thread and an optional deadline, checked every [`STOP_CHECK_INTERVAL`] counted
//! move lists. Deep perfts run for hours (Orphic depth 4 takes minutes), so a server must be able to
//! end them when their caller gives up. Both walks share one recursion, monomorphised over the
//! stop check so that the plain [`perft`] pays nothing for it.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

use crate::moves::Move;
use crate::position::Position;

/// Move lists counted (positions one ply above the leaves) between two looks at the stop flag
/// and the clock. Even in the Orphic drop phase (~700 moves a position) 256 of them take a few
/// milliseconds: a stop is seen within milliseconds, and reading the clock that rarely costs
/// nothing measurable. (Counting per interior node instead would be far too coarse: one node
/// two plies above the leaves already counts hundreds of move lists.)
pub(crate) const STOP_CHECK_INTERVAL: u32 = 256;

/// When a stoppable perft must give up.
#[derive(Debug, Clone, Copy)]
pub struct PerftStop<'a> {
    /// Set by another thread to stop the walk (a cancelled request).
    pub flag: &'a AtomicBool,
    /// Stop once this instant has passed (a request's deadline).
    pub deadline: Option<Instant>,
}

/// The stop check of one walk.
trait Stopper {
    /// True when the walk must end now.
    fn should_stop(&mut self) -> bool;
}

/// The plain perft: never stops.
struct NeverStop;

impl Stopper for NeverStop {
    #[inline(always)]
    fn should_stop(&mut self) -> bool {
        false
    }
}

/// Looks at the flag and the clock every [`STOP_CHECK_INTERVAL`] calls; once stopped, stays
/// stopped.
struct Checked<'a> {
    stop: PerftStop<'a>,
    countdown: u32,
    stopped: bool,
}

impl Stopper for Checked<'_> {
    #[inline]
    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = STOP_CHECK_INTERVAL;
            self.stopped = self.stop.flag.load(Ordering::Relaxed)
                || self.stop.deadline.is_some_and(|d| Instant::now() >= d);
        }
        self.stopped
    }
}

impl<'a> Checked<'a> {
    fn new(stop: PerftStop<'a>) -> Self {
        Checked {
            stop,
            // The first look comes at once, so an already-stopped request does no work.
            countdown: 1,
            stopped: false,
        }
    }
}

/// The shared recursion: `None` when `stopper` ended the walk.
fn walk<S: Stopper>(pos: &mut Position, depth: u32, stopper: &mut S) -> Option<u64> {
    match depth {
        0 => Some(1),
        1 => (!stopper.should_stop()).then(|| pos.count_legal_moves()),
        _ => {
            let moves = pos.legal_moves();
            let mut nodes = 0;
            for m in moves {
                pos.play_unchecked(m);
                let below = walk(pos, depth - 1, stopper);
                pos.unmake();
                nodes += below?;
            }
            Some(nodes)
        }
    }
}

/// The per-root-move split over the shared recursion.
fn walk_divide<S: Stopper>(
    pos: &mut Position,
    depth: u32,
    stopper: &mut S,
) -> Option<Vec<(Move, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    let moves = pos.legal_moves();
    let mut split = Vec::with_capacity(moves.len());
    for m in moves {
        pos.play_unchecked(m);
        let below = walk(pos, depth - 1, stopper);
        pos.unmake();
        split.push((m, below?));
    }
    Some(split)
}

/// Number of leaf nodes at `depth` plies.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    walk(pos, depth, &mut NeverStop).unwrap_or(0)
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    walk_divide(pos, depth, &mut NeverStop).unwrap_or_default()
}

/// [`perft`] that gives up when `stop` says so: `None` if it was stopped before it finished.
/// The position is left as it was either way.
///
/// # Examples
/// ```
/// use std::sync::atomic::AtomicBool;
/// use variant_engine::{PerftStop, Position, Registry, perft_with_stop};
/// let mut pos = Position::new(Registry::builtin().get("chess").unwrap());
/// let flag = AtomicBool::new(false);
/// let stop = PerftStop { flag: &flag, deadline: None };
/// assert_eq!(perft_with_stop(&mut pos, 3, stop), Some(8902));
/// flag.store(true, std::sync::atomic::Ordering::Relaxed);
/// assert_eq!(perft_with_stop(&mut pos, 3, stop), None);
/// ```
pub fn perft_with_stop(pos: &mut Position, depth: u32, stop: PerftStop<'_>) -> Option<u64> {
    walk(pos, depth, &mut Checked::new(stop))
}

/// [`divide`] that gives up when `stop` says so: `None` if it was stopped before it finished.
pub fn divide_with_stop(
    pos: &mut Position,
    depth: u32,
    stop: PerftStop<'_>,
) -> Option<Vec<(Move, u64)>> {
    walk_divide(pos, depth, &mut Checked::new(stop))
}

/// Perft by copying the position for every move instead of make/unmake, and without bulk
/// counting: a slow, independent cross-check of make/unmake and of the counting sink.
pub fn perft_copy_make(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut next = pos.clone();
            next.play_unchecked(m);
            perft_copy_make(&next, depth - 1)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::Registry;

    fn start(variant: &str) -> Position {
        Position::new(Registry::builtin().get(variant).expect("built in"))
    }

    #[test]
    fn an_unstopped_walk_counts_like_the_plain_perft() {
        let flag = AtomicBool::new(false);
        let stop = PerftStop {
            flag: &flag,
            deadline: None,
        };
        let mut pos = start("opulent");
        assert_eq!(perft_with_stop(&mut pos, 3, stop), Some(perft(&mut pos, 3)));
        let split = divide_with_stop(&mut pos, 2, stop).expect("not stopped");
        assert_eq!(split, divide(&mut pos, 2));
    }

    #[test]
    fn a_passed_deadline_stops_a_deep_walk_at_once_and_leaves_the_position() {
        let flag = AtomicBool::new(false);
        let stop = PerftStop {
            flag: &flag,
            deadline: Some(Instant::now()),
        };
        let mut pos = start("orphic");
        let fen = pos.fen();
        // Orphic depth 4 runs for minutes; a passed deadline must end it before any real work.
        assert_eq!(perft_with_stop(&mut pos, 4, stop), None);
        assert_eq!(divide_with_stop(&mut pos, 4, stop), None);
        assert_eq!(pos.fen(), fen);
    }

    #[test]
    fn a_deadline_during_the_walk_ends_it_soon_after() {
        let flag = AtomicBool::new(false);
        let budget = Duration::from_millis(100);
        let started = Instant::now();
        let stop = PerftStop {
            flag: &flag,
            deadline: Some(started + budget),
        };
        let mut pos = start("orphic");
        assert_eq!(perft_with_stop(&mut pos, 4, stop), None);
        // Generous bound (shared machine): the point is "not minutes".
        assert!(started.elapsed() < budget + Duration::from_secs(2));
    }
}
