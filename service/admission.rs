//! Admission arithmetic of the search pool: how much of a deadline a search may use, and when a
//! job that has to wait is expected to start.
//!
//! A call that waits for a search slot must never be left to expire in the queue: by the time a
//! slot frees up its deadline may be gone, and it would end `DEADLINE_EXCEEDED` having searched
//! nothing while its client waited the whole time. So the pool keeps a [`Ledger`] of the jobs
//! running and waiting, with what each is expected to take, and before queueing a call it
//! estimates when that call would start ([`Ledger::estimate_start`]): if the deadline would then
//! leave less than [`MIN_QUEUED_SEARCH`] of searching time, the call is refused at once with
//! `RESOURCE_EXHAUSTED` and the expected wait as its retry hint. A queued call also gives up
//! waiting at its latest useful start ([`latest_start`]), in case the estimate was wrong, and is
//! refused the same way; one that starts late searches for the time it has left.
//!
//! What a job is expected to take: a search limited only by time runs for its time (its
//! `movetime`, capped by its deadline's budget), which is known well. A search limited by depth
//! or nodes, or a perft, may end at any moment before its cap; the estimate counts it as taking
//! no time at all, so it never causes a refusal on a guess, and the latest-start bound still
//! keeps such waiters from expiring in the queue.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use crate::error::{ServiceError, ServiceResult};

/// Time kept back from the gRPC deadline so the result still reaches the client in time.
pub const DEADLINE_MARGIN: Duration = Duration::from_millis(50);
/// Share of the time left that is kept back too (capped by [`DEADLINE_MARGIN_MAX_EXTRA`]): on a
/// busy machine stopping a search and sending its answer takes longer, and a fixed 50 ms made
/// 200 ms deadlines miss by a few milliseconds under load.
const DEADLINE_MARGIN_DIVISOR: u32 = 10;
/// Upper bound of the proportional part of the margin.
const DEADLINE_MARGIN_MAX_EXTRA: Duration = Duration::from_millis(200);
/// Least searching time a *queued* call must expect to get. Below it, the call is refused rather
/// than queued: the estimate of a start time is only as good as a few tens of milliseconds on a
/// loaded machine, and a search of less than this would answer little better than no search.
/// (A call that finds a slot free starts whatever its deadline leaves.)
pub const MIN_QUEUED_SEARCH: Duration = Duration::from_millis(100);
/// What starting and answering a job costs besides its searching time (thread start, result
/// conversion), added to every job of the estimate.
const JOB_OVERHEAD: Duration = Duration::from_millis(2);

/// The search time left before `deadline`, keeping back the margin for answering.
///
/// # Errors
/// [`ServiceError::DeadlineExceeded`] when nothing is left.
pub fn search_budget(deadline: Instant, now: Instant) -> ServiceResult<Duration> {
    Some(budget_left(deadline, now))
        .filter(|budget| !budget.is_zero())
        .ok_or(ServiceError::DeadlineExceeded)
}

/// [`search_budget`] that says zero instead of failing.
fn budget_left(deadline: Instant, now: Instant) -> Duration {
    let left = deadline.saturating_duration_since(now);
    // A very short deadline keeps back half its time instead: a depth-1 search and its answer
    // take well under a millisecond, and a legal move in time beats DEADLINE_EXCEEDED.
    let margin = (DEADLINE_MARGIN
        + (left / DEADLINE_MARGIN_DIVISOR).min(DEADLINE_MARGIN_MAX_EXTRA))
    .min(left / 2);
    let budget = left.saturating_sub(margin);
    // Below this nothing useful fits, not even the answer: the call is refused.
    if budget < MIN_SEARCH {
        Duration::ZERO
    } else {
        budget
    }
}

/// The least search budget a call is started with (a depth-1 search fits in it).
const MIN_SEARCH: Duration = Duration::from_micros(500);

/// The time before a deadline that leaves a budget of `budget` (the inverse of
/// [`search_budget`]).
fn time_needed(budget: Duration) -> Duration {
    // left - (margin + left / 10) = budget while left / 10 is under the cap.
    let proportional = (budget + DEADLINE_MARGIN) * DEADLINE_MARGIN_DIVISOR / 9;
    if proportional / DEADLINE_MARGIN_DIVISOR <= DEADLINE_MARGIN_MAX_EXTRA {
        proportional
    } else {
        budget + DEADLINE_MARGIN + DEADLINE_MARGIN_MAX_EXTRA
    }
}

/// The last instant a queued job with `deadline` may start and still search for
/// [`MIN_QUEUED_SEARCH`]; `None` if that instant is already unrepresentable (long past).
pub fn latest_start(deadline: Instant) -> Option<Instant> {
    deadline.checked_sub(time_needed(MIN_QUEUED_SEARCH))
}

/// What the ledger knows about one job.
#[derive(Debug, Clone, Copy)]
pub struct Booking {
    /// Units of the thread budget the job holds (its semaphore permits).
    pub weight: usize,
    /// How long the job runs if nothing stops it earlier, when that is known (a search limited
    /// only by time); `None` for jobs that may end any time (depth, nodes, perft).
    pub time: Option<Duration>,
    /// The request's deadline.
    pub deadline: Option<Instant>,
}

impl Booking {
    /// The expected run time of the job if it starts at `start`.
    fn expected(&self, start: Instant) -> Duration {
        let Some(time) = self.time else {
            return JOB_OVERHEAD;
        };
        let capped = self
            .deadline
            .map_or(time, |deadline| time.min(budget_left(deadline, start)));
        capped + JOB_OVERHEAD
    }
}

/// A job of the ledger: its booking and, once running, its start and stop flag.
#[derive(Debug, Clone)]
struct Entry {
    id: u64,
    booking: Booking,
    started: Option<Instant>,
    /// Set when the job was told to stop (its client cancelled): it ends now, whatever its
    /// booking said.
    stop: Option<Arc<AtomicBool>>,
}

/// The jobs running and waiting, in the order the pool's semaphore serves them (first come,
/// first served).
#[derive(Debug, Default)]
pub struct Ledger {
    next_id: u64,
    running: Vec<Entry>,
    waiting: Vec<Entry>,
}

/// Identifies a job in the [`Ledger`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobId(u64);

impl Ledger {
    /// Records a job that waits for a slot.
    pub fn enqueue(&mut self, booking: Booking) -> JobId {
        let id = self.next_id;
        self.next_id += 1;
        self.waiting.push(Entry {
            id,
            booking,
            started: None,
            stop: None,
        });
        JobId(id)
    }

    /// Records a job that got its slot at `now` (whether it waited or not), with its stop flag.
    pub fn start(
        &mut self,
        id: Option<JobId>,
        booking: Booking,
        now: Instant,
        stop: Arc<AtomicBool>,
    ) -> JobId {
        let id = if let Some(JobId(id)) = id {
            self.waiting.retain(|e| e.id != id);
            id
        } else {
            let id = self.next_id;
            self.next_id += 1;
            id
        };
        self.running.push(Entry {
            id,
            booking,
            started: Some(now),
            stop: Some(stop),
        });
        JobId(id)
    }

    /// Forgets a job (finished, or gave up waiting).
    pub fn remove(&mut self, JobId(id): JobId) {
        self.running.retain(|e| e.id != id);
        self.waiting.retain(|e| e.id != id);
    }

    /// Jobs running now.
    pub fn running(&self) -> usize {
        self.running.len()
    }

    /// Jobs waiting for a slot now.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// When a job of `weight` units, queued now behind every waiting job, is expected to start,
    /// on a pool of `units` units. Waiting jobs that will themselves be refused (their deadline
    /// leaves them too little time by then) take no slot in the estimate.
    pub fn estimate_start(&self, units: usize, weight: usize, now: Instant) -> Instant {
        let units = units.max(1);
        // The instant each unit of the budget is expected to be free, kept sorted.
        let mut free = vec![now; units];
        let mut next = 0;
        for entry in &self.running {
            let start = entry.started.unwrap_or(now);
            let stopped = entry
                .stop
                .as_ref()
                .is_some_and(|stop| stop.load(Ordering::Relaxed));
            let end = if stopped {
                now + JOB_OVERHEAD
            } else {
                (start + entry.booking.expected(start)).max(now)
            };
            for _ in 0..entry.booking.weight.min(units) {
                if next < units {
                    free[next] = end;
                    next += 1;
                }
            }
        }
        free.sort_unstable();
        for entry in &self.waiting {
            let weight = entry.booking.weight.clamp(1, units);
            let start = free[weight - 1];
            if entry
                .booking
                .deadline
                .is_some_and(|deadline| latest_start(deadline).is_none_or(|latest| start > latest))
            {
                continue;
            }
            let end = start + entry.booking.expected(start);
            free[..weight].fill(end);
            free.sort_unstable();
        }
        free[weight.clamp(1, units) - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn flag() -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(false))
    }

    #[test]
    fn a_stopped_job_is_expected_to_end_now() {
        let now = Instant::now();
        let mut ledger = Ledger::default();
        let stop = flag();
        ledger.start(None, timed(30_000, None), now, Arc::clone(&stop));
        assert!(ledger.estimate_start(1, 1, now) > now + MS * 29_000);
        stop.store(true, Ordering::Relaxed);
        assert_eq!(ledger.estimate_start(1, 1, now), now + JOB_OVERHEAD);
    }

    fn timed(ms: u64, deadline: Option<Instant>) -> Booking {
        Booking {
            weight: 1,
            time: Some(MS * ms as u32),
            deadline,
        }
    }

    #[test]
    fn the_budget_keeps_a_margin_that_grows_with_the_deadline_up_to_a_cap() {
        let now = Instant::now();
        let budget = |ms| search_budget(now + MS * ms, now).ok();
        assert_eq!(budget(200), Some(MS * 130));
        assert_eq!(budget(10_000), Some(MS * 9_750));
        // A short deadline keeps half its time back, so a few milliseconds still search.
        assert_eq!(budget(40), Some(MS * 20));
        assert_eq!(budget(4), Some(MS * 2));
        assert!(
            search_budget(now + MS / 2, now).is_err(),
            "no time left to search"
        );
        assert!(search_budget(now, now).is_err());
    }

    #[test]
    fn time_needed_inverts_the_budget() {
        let now = Instant::now();
        // Above the short deadlines that keep half their time (it is used for 100 ms).
        for ms in [100, 500, 1_700, 5_000] {
            let wanted = MS * ms;
            let got = budget_left(now + time_needed(wanted), now);
            assert!(got >= wanted && got <= wanted + MS, "{ms} ms: {got:?}");
        }
    }

    #[test]
    fn an_idle_pool_starts_at_once() {
        let now = Instant::now();
        assert_eq!(Ledger::default().estimate_start(2, 1, now), now);
    }

    #[test]
    fn timed_jobs_fill_the_slots_in_turn() {
        // 2 slots, two 1 s searches running, two waiting: the fifth starts after the second
        // round, at about 2 s.
        let now = Instant::now();
        let mut ledger = Ledger::default();
        for _ in 0..2 {
            ledger.start(None, timed(1_000, None), now, flag());
        }
        for _ in 0..2 {
            ledger.enqueue(timed(1_000, None));
        }
        let start = ledger.estimate_start(2, 1, now);
        let expected = now + MS * 2_000 + JOB_OVERHEAD * 2;
        assert_eq!(start, expected);
    }

    #[test]
    fn a_deadline_caps_the_expected_time_of_a_waiting_job() {
        let now = Instant::now();
        let mut ledger = Ledger::default();
        ledger.start(None, timed(1_000, None), now, flag());
        // Starts at ~1 s with 500 ms of deadline left: it searches for what is left, not 10 s.
        ledger.enqueue(timed(10_000, Some(now + MS * 1_500)));
        let start = ledger.estimate_start(1, 1, now);
        let after_first = now + MS * 1_000 + JOB_OVERHEAD;
        let second = budget_left(now + MS * 1_500, after_first);
        assert_eq!(start, after_first + second + JOB_OVERHEAD);
    }

    #[test]
    fn waiting_jobs_that_will_be_refused_take_no_slot() {
        let now = Instant::now();
        let mut ledger = Ledger::default();
        ledger.start(None, timed(1_000, None), now, flag());
        // Its deadline is over before the running job ends: it will give up waiting.
        ledger.enqueue(timed(1_000, Some(now + MS * 500)));
        assert_eq!(
            ledger.estimate_start(1, 1, now),
            now + MS * 1_000 + JOB_OVERHEAD
        );
    }

    #[test]
    fn open_ended_jobs_are_not_counted_as_long() {
        let now = Instant::now();
        let mut ledger = Ledger::default();
        let depth_limited = Booking {
            weight: 1,
            time: None,
            deadline: None,
        };
        ledger.start(None, depth_limited, now, flag());
        assert_eq!(ledger.estimate_start(1, 1, now), now + JOB_OVERHEAD);
    }

    #[test]
    fn a_wide_job_waits_for_enough_units() {
        let now = Instant::now();
        let mut ledger = Ledger::default();
        ledger.start(None, timed(100, None), now, flag());
        ledger.start(None, timed(300, None), now, flag());
        // Two units wanted: free only when both jobs have ended.
        assert_eq!(
            ledger.estimate_start(2, 2, now),
            now + MS * 300 + JOB_OVERHEAD
        );
        assert_eq!(
            ledger.estimate_start(2, 1, now),
            now + MS * 100 + JOB_OVERHEAD
        );
    }

    #[test]
    fn removed_jobs_leave_the_ledger() {
        let now = Instant::now();
        let mut ledger = Ledger::default();
        let waiting = ledger.enqueue(timed(100, None));
        let running = ledger.start(None, timed(100, None), now, flag());
        assert_eq!((ledger.running(), ledger.waiting()), (1, 1));
        let started = ledger.start(Some(waiting), timed(100, None), now, flag());
        assert_eq!((ledger.running(), ledger.waiting()), (2, 0));
        ledger.remove(running);
        ledger.remove(started);
        assert_eq!((ledger.running(), ledger.waiting()), (0, 0));
    }

    #[test]
    fn the_latest_start_leaves_the_minimum_search() {
        let now = Instant::now();
        let deadline = now + MS * 3_000;
        let latest = latest_start(deadline).expect("representable");
        let left = budget_left(deadline, latest);
        assert!(left >= MIN_QUEUED_SEARCH && left <= MIN_QUEUED_SEARCH + MS);
    }
}
