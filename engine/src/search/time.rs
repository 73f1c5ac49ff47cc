//! Time management and the single stop check.
//!
//! [`TimeManager::check_up`] is the only place a search asks whether to stop: the caller's
//! stop flag, the pool's internal abort flag (the main thread finished), the node limit and
//! the hard time limit. The soft limit ([`TimeManager::should_start_iteration`]) keeps the
//! iterative deepening from starting an iteration it will probably not finish.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::piece::Color;
use crate::search::limits::Limits;

/// Default time for a search given no depth, node, time or clock limit.
pub(crate) const DEFAULT_MOVETIME: Duration = Duration::from_secs(1);
/// Default depth for a search given no depth, node, time or clock limit.
pub(crate) const DEFAULT_DEPTH: u32 = 12;
/// Time kept in reserve for communication per move.
const OVERHEAD: Duration = Duration::from_millis(15);
/// Moves a sudden-death clock is shared over: the 10x10 variants' games are long, and an
/// even share of the remaining time over this many moves leaves reserves for later.
const SUDDEN_DEATH_MOVES: u32 = 35;
/// An iteration takes about as long as all before it together (twice the elapsed time), so
/// one is started only while at most this share of the planned time is used.
const ITERATION_SHARE: f64 = 0.55;

/// Stop conditions of one search.
#[derive(Debug)]
pub(crate) struct TimeManager {
    start: Instant,
    /// Do not start a new iteration after this.
    soft: Option<Duration>,
    /// Abort the search after this.
    hard: Option<Duration>,
    /// The time a clock search plans for this move, before the search's own adjustments
    /// (`None` without a clock).
    optimum: Option<Duration>,
    nodes: Option<u64>,
}

impl TimeManager {
    /// Derives the budget from `limits` for `side` to move.
    pub(crate) fn new(limits: &Limits, side: Color, start: Instant) -> Self {
        let mut soft = None;
        let mut hard = None;
        let mut optimum = None;
        if limits.infinite {
            return Self {
                start,
                soft,
                hard,
                optimum,
                nodes: limits.nodes,
            };
        }
        if let Some(mt) = limits.movetime {
            soft = Some(mt);
            hard = Some(mt);
        }
        if let Some(clock) = &limits.clock {
            let (time, inc) = match side {
                Color::White => (clock.wtime, clock.winc),
                Color::Black => (clock.btime, clock.binc),
            };
            let left = time.saturating_sub(OVERHEAD);
            let mtg = clock.movestogo.unwrap_or(SUDDEN_DEATH_MOVES).clamp(1, 50);
            // Plan an even share of the remaining time plus most of the increment; the search
            // stretches or shrinks it (`stop_after_iteration`) but never past the hard limit:
            // four times the plan, and never more than 40% of what is left (or all but the
            // overhead with one move to go).
            // Saturating arithmetic: clock values come from clients and may be absurd.
            let share = (left / mtg).saturating_add(inc.mul_f64(0.75));
            let cap = if mtg == 1 { left } else { left.mul_f64(0.4) };
            let planned = share.min(cap);
            let maximum = planned.saturating_mul(4).min(cap);
            optimum = Some(planned);
            soft = Some(soft.map_or(maximum, |s: Duration| s.min(maximum)));
            hard = Some(hard.map_or(maximum, |h: Duration| h.min(maximum)));
        }
        if limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.movetime.is_none()
            && limits.clock.is_none()
        {
            soft = Some(DEFAULT_MOVETIME);
            hard = Some(DEFAULT_MOVETIME);
        }
        Self {
            start,
            soft,
            hard,
            optimum,
            nodes: limits.nodes,
        }
    }

    /// For a clock search, true when the iteration just completed should be the last: the
    /// planned time, scaled by `factor` (more when the best move keeps changing or the score
    /// falls, less when one move takes nearly all the effort), is used up. Starting another
    /// iteration that late would mostly be wasted: it rarely finishes.
    pub(crate) fn stop_after_iteration(&self, factor: f64) -> bool {
        self.optimum
            .is_some_and(|o| self.elapsed() >= o.mul_f64(factor.clamp(0.2, 4.0) * ITERATION_SHARE))
    }

    /// Time since the search started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// True when a new iteration may start.
    pub(crate) fn should_start_iteration(&self) -> bool {
        self.soft.is_none_or(|s| self.elapsed() < s)
    }

    /// True when the search has a node limit.
    #[inline]
    pub(crate) fn has_node_limit(&self) -> bool {
        self.nodes.is_some()
    }

    /// True when the node budget is used up.
    #[inline]
    pub(crate) fn nodes_exhausted(&self, nodes: u64) -> bool {
        self.nodes.is_some_and(|n| nodes >= n)
    }

    /// The single stop check: returns true when the search must stop now. `nodes` is the
    /// count to hold against the node limit, `None` while the limit does not apply yet.
    #[inline]
    pub(crate) fn check_up(
        &self,
        stop: &AtomicBool,
        abort: &AtomicBool,
        nodes: Option<u64>,
    ) -> bool {
        stop.load(Ordering::Relaxed)
            || abort.load(Ordering::Relaxed)
            || nodes.is_some_and(|n| self.nodes_exhausted(n))
            || self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// True when the search has a time limit (used for the stop reason).
    pub(crate) fn timed(&self) -> bool {
        self.hard.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::limits::Clock;

    fn clock(ms: u64, inc: u64, movestogo: Option<u32>) -> Limits {
        Limits {
            clock: Some(Clock {
                wtime: Duration::from_millis(ms),
                btime: Duration::from_millis(ms),
                winc: Duration::from_millis(inc),
                binc: Duration::from_millis(inc),
                movestogo,
            }),
            ..Limits::default()
        }
    }

    #[test]
    fn clock_budget_is_a_share_of_the_remaining_time() {
        let tm = TimeManager::new(&clock(30_000, 0, None), Color::White, Instant::now());
        let hard = tm.hard.unwrap();
        assert!(
            hard > Duration::from_millis(500) && hard < Duration::from_secs(12),
            "{hard:?}"
        );
        // The plan is a quarter of the hard limit; the search stretches it up to that.
        assert!(tm.optimum.unwrap() < hard && tm.soft.unwrap() <= hard);
        // Last move before the time control: may use nearly everything, never more.
        let tm = TimeManager::new(&clock(1_000, 0, Some(1)), Color::Black, Instant::now());
        assert!(tm.hard.unwrap() <= Duration::from_secs(1));
    }

    #[test]
    fn absurd_clocks_do_not_panic() {
        for (ms, inc) in [
            (u64::MAX, u64::MAX),
            (0, 0),
            (u64::MAX, 0),
            (0, u64::MAX / 4),
        ] {
            let tm = TimeManager::new(&clock(ms, inc, None), Color::White, Instant::now());
            let _ = tm.should_start_iteration();
        }
    }

    #[test]
    fn no_limits_means_the_default_budget() {
        let tm = TimeManager::new(&Limits::default(), Color::White, Instant::now());
        assert_eq!(tm.hard, Some(DEFAULT_MOVETIME));
        let tm = TimeManager::new(
            &Limits {
                infinite: true,
                ..Limits::default()
            },
            Color::White,
            Instant::now(),
        );
        assert_eq!(tm.hard, None);
    }
}
