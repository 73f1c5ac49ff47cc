//! The async <-> CPU bridge: runs searches (and perft) on dedicated OS threads.
//!
//! CPU-bound work never runs on tokio workers, which must stay free to serve cheap RPCs. A
//! semaphore bounds the concurrent jobs; a bounded number of requests may wait for a slot, and
//! beyond that requests are refused at once with `RESOURCE_EXHAUSTED` (failing fast lets a load
//! balancer retry elsewhere). A request with a deadline is queued only if a slot is expected to
//! free up while the deadline still leaves time to search, and gives up waiting when it no
//! longer does (see `admission.rs`): a call is refused or started, never left to expire in the
//! queue. Each running job owns a stop flag; the request future holds a [`StopOnDrop`] guard, so
//! a client that cancels (tonic drops the future) stops the search, as in tonic's cancellation
//! example.

use std::{
    future::Future as _,
    pin::Pin,
    sync::{
        Arc, Mutex, PoisonError, Weak,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio_stream::Stream;
use variant_engine::{
    Limits, Position, SearchInfo, SearchOptions, SearchResult, Searcher, SearcherConfig,
};

pub use crate::admission::DEADLINE_MARGIN;
use crate::{
    admission::{Booking, JobId, Ledger, latest_start, search_budget},
    error::{ServiceError, ServiceResult},
    telemetry::SearchMetrics,
};

/// Least suggested client back-off when refusing work; longer when the expected wait is.
pub const RETRY_AFTER: Duration = Duration::from_millis(500);
/// Longest suggested back-off.
const RETRY_AFTER_MAX: Duration = Duration::from_secs(60);
/// Intermediate Analyze updates buffered per stream; more are dropped for slow readers.
const INFO_BUFFER: usize = 16;

/// Sizes of the pool.
#[derive(Debug, Clone, Copy)]
pub struct PoolSettings {
    /// Concurrent jobs (searches or perfts).
    pub slots: usize,
    /// Requests allowed to wait for a slot.
    pub queue: usize,
    /// Transposition table size.
    pub hash_mb: usize,
    /// Threads one slot stands for (`--search-threads`). A search asking for more threads
    /// takes as many slots' worth of the thread budget (`slots * threads_per_slot`), so
    /// concurrent searches never use more threads than the budget allows.
    pub threads_per_slot: usize,
}

/// What a job asks of the pool, for admission.
#[derive(Debug, Clone, Copy)]
pub struct Demand {
    /// Threads the job runs.
    pub threads: usize,
    /// How long the job runs unless stopped earlier, when that is known: a search limited only
    /// by time. `None` for jobs that may end at any moment (depth or node limits, perft).
    pub time: Option<Duration>,
}

impl Demand {
    /// One thread, no known run time (perft, tests).
    pub const ONE_THREAD: Demand = Demand {
        threads: 1,
        time: None,
    };

    /// The demand of a search with `limits`.
    pub fn of_search(limits: &Limits) -> Demand {
        let time_only = limits.depth.is_none() && limits.nodes.is_none() && !limits.infinite;
        Demand {
            threads: limits.threads,
            time: limits.movetime.filter(|_| time_only),
        }
    }
}

/// How busy the pool is right now (for tests and diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolLoad {
    /// Jobs whose engine thread is still running.
    pub running: usize,
    /// Requests waiting for a slot.
    pub waiting: usize,
    /// Units of the thread budget that are free.
    pub free_threads: usize,
    /// The whole thread budget (`slots * threads_per_slot`).
    pub thread_budget: usize,
}

impl PoolLoad {
    /// True when nothing runs or waits and every slot is free.
    pub fn is_idle(&self) -> bool {
        self.running == 0 && self.waiting == 0 && self.free_threads == self.thread_budget
    }
}

/// Runs CPU-bound jobs on dedicated threads with admission control.
#[derive(Debug)]
pub struct EnginePool {
    /// Idle searchers, one per slot: an engine `Searcher` owns one transposition
    /// table and runs one search at a time, so each concurrent search needs its own.
    idle: Arc<Mutex<Vec<Searcher>>>,
    permits: Arc<Semaphore>,
    /// Size of the thread budget (the semaphore's permits).
    units: usize,
    waiting: AtomicUsize,
    /// The jobs running and waiting, with their expected run times (admission estimates).
    ledger: Arc<Mutex<Ledger>>,
    settings: PoolSettings,
    /// Queue/refusal/search metrics and the `search` span (see `telemetry.rs`).
    metrics: SearchMetrics,
    /// Stop flags of the running jobs, so that a draining server can make them answer now.
    running: Mutex<Vec<Weak<AtomicBool>>>,
    /// Set by [`EnginePool::finish_all`]: jobs admitted later start already told to stop.
    finishing: AtomicBool,
}

/// Sets a job's stop flag when dropped, i.e. when the request is cancelled or finishes.
#[derive(Debug)]
pub struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A slot in use: an admission permit plus an engine searcher, returned on drop.
struct Slot {
    search: Option<Searcher>,
    idle: Arc<Mutex<Vec<Searcher>>>,
    /// The job's ledger entry, removed when the slot is given back.
    job: JobId,
    ledger: Arc<Mutex<Ledger>>,
    // Declared last so it is released after `drop` has put the searcher back: whoever gets
    // the permit next then always finds an idle searcher.
    _permit: OwnedSemaphorePermit,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(search) = self.search.take() {
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(search);
        }
        self.ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(self.job);
    }
}

/// Decrements the wait-queue count when a waiting request gets a slot or is dropped.
struct QueueSlot<'a>(&'a AtomicUsize);

impl Drop for QueueSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A waiting job's ledger entry; forgotten if the request stops waiting (refused, cancelled).
struct WaitingEntry<'a> {
    job: Option<JobId>,
    ledger: &'a Mutex<Ledger>,
}

impl Drop for WaitingEntry<'_> {
    fn drop(&mut self) {
        if let Some(job) = self.job.take() {
            self.ledger
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(job);
        }
    }
}

/// A job running on its own thread. Dropping it stops the job.
#[derive(Debug)]
pub struct Running<T> {
    result: oneshot::Receiver<T>,
    _stop: StopOnDrop,
}

impl<T> Running<T> {
    /// Waits for the job's result.
    ///
    /// # Errors
    /// [`ServiceError::Internal`] if the job thread died (panicked) without a result.
    pub async fn finish(self) -> ServiceResult<T> {
        self.result
            .await
            .map_err(|_| ServiceError::Internal("engine thread ended without a result".into()))
    }
}

/// One item of an analysis stream.
#[derive(Debug)]
pub enum AnalysisEvent {
    /// A completed search iteration.
    Info(SearchInfo),
    /// The final result (always last).
    Done(SearchResult),
}

/// Stream of search updates followed by the final result; dropping it stops the search.
#[derive(Debug)]
pub struct Analysis {
    infos: mpsc::Receiver<SearchInfo>,
    infos_done: bool,
    running: Option<Running<SearchResult>>,
}

impl Stream for Analysis {
    type Item = ServiceResult<AnalysisEvent>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if !this.infos_done {
            match this.infos.poll_recv(cx) {
                Poll::Ready(Some(info)) => return Poll::Ready(Some(Ok(AnalysisEvent::Info(info)))),
                // The search thread dropped its sender: only the final result remains.
                Poll::Ready(None) => this.infos_done = true,
                Poll::Pending => return Poll::Pending,
            }
        }
        let Some(running) = this.running.as_mut() else {
            return Poll::Ready(None);
        };
        match Pin::new(&mut running.result).poll(cx) {
            Poll::Ready(result) => {
                this.running = None;
                Poll::Ready(Some(result.map(AnalysisEvent::Done).map_err(|_| {
                    ServiceError::Internal("search thread ended without a result".into())
                })))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl EnginePool {
    /// Creates the pool with one engine searcher (transposition table) per slot.
    pub fn new(settings: PoolSettings) -> Self {
        let slots = settings.slots.max(1);
        let idle = (0..slots)
            .map(|_| {
                Searcher::new(SearcherConfig {
                    hash_mb: settings.hash_mb,
                })
            })
            .collect();
        let units = slots * settings.threads_per_slot.max(1);
        EnginePool {
            idle: Arc::new(Mutex::new(idle)),
            permits: Arc::new(Semaphore::new(units)),
            units,
            waiting: AtomicUsize::new(0),
            ledger: Arc::new(Mutex::new(Ledger::default())),
            settings,
            metrics: SearchMetrics::new(),
            running: Mutex::new(Vec::new()),
            finishing: AtomicBool::new(false),
        }
    }

    /// How busy the pool is now.
    pub fn load(&self) -> PoolLoad {
        let ledger = self.ledger();
        PoolLoad {
            running: ledger.running(),
            waiting: ledger.waiting(),
            free_threads: self.permits.available_permits(),
            thread_budget: self.units,
        }
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells every running (and every later) job to stop now; searches then answer with their
    /// best move so far. Used when the shutdown grace period is nearly over, so that in-flight
    /// searches still get an answer to their clients instead of being cut off.
    pub fn finish_all(&self) {
        self.finishing.store(true, Ordering::Relaxed);
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        for stop in running.iter().filter_map(Weak::upgrade) {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// True once [`EnginePool::finish_all`] was called (the server is shutting down).
    pub fn is_finishing(&self) -> bool {
        self.finishing.load(Ordering::Relaxed)
    }

    /// Records a job's stop flag for [`EnginePool::finish_all`].
    fn register(&self, stop: &Arc<AtomicBool>) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        // Finished jobs leave dead entries; dropping them here keeps the list as short as the
        // number of jobs running at once.
        running.retain(|weak| weak.strong_count() > 0);
        running.push(Arc::downgrade(stop));
    }

    /// Units of the thread budget a job of `threads` threads takes: at least one slot's worth
    /// (so there are never more searches than engine pools), at most the whole budget (so a big
    /// request is not refused forever).
    fn weight(&self, threads: usize) -> usize {
        let per_slot = self.settings.threads_per_slot.max(1);
        threads.clamp(per_slot, self.units)
    }

    /// Waits for a slot, or refuses (see the module docs for the rule).
    async fn admit(
        &self,
        demand: Demand,
        deadline: Option<Instant>,
        stop: &Arc<AtomicBool>,
    ) -> ServiceResult<Slot> {
        let weight = self.weight(demand.threads);
        let booking = Booking {
            weight,
            time: demand.time,
            deadline,
        };
        // Semaphore permits are counted in `u32`; the budget is far smaller.
        let permits = u32::try_from(weight).unwrap_or(u32::MAX);
        if let Ok(permit) = Arc::clone(&self.permits).try_acquire_many_owned(permits) {
            return self.slot(permit, None, booking, stop);
        }
        let queued = self.waiting.fetch_add(1, Ordering::AcqRel);
        let _queue_slot = QueueSlot(&self.waiting);
        let now = Instant::now();
        let mut entry = WaitingEntry {
            job: None,
            ledger: &self.ledger,
        };
        {
            let mut ledger = self.ledger();
            let start = ledger.estimate_start(self.units, weight, now);
            let retry_after = (start - now).clamp(RETRY_AFTER, RETRY_AFTER_MAX);
            if queued >= self.settings.queue {
                self.metrics.refused();
                return Err(ServiceError::Busy {
                    slots: self.settings.slots,
                    queue: self.settings.queue,
                    retry_after,
                });
            }
            if let Some(deadline) = deadline
                && latest_start(deadline).is_none_or(|latest| start > latest)
            {
                self.metrics.refused();
                return Err(ServiceError::NoSlotInTime {
                    wait: start - now,
                    left: deadline.saturating_duration_since(now),
                    retry_after,
                });
            }
            entry.job = Some(ledger.enqueue(booking));
        }
        let _queued = self.metrics.queued();
        let acquire = Arc::clone(&self.permits).acquire_many_owned(permits);
        let acquired = match deadline.and_then(latest_start) {
            Some(latest) => tokio::time::timeout_at(latest.into(), acquire).await.ok(),
            None if deadline.is_some() => None,
            None => Some(acquire.await),
        };
        let Some(acquired) = acquired else {
            // The estimate was wrong (a job ran longer than expected): give up now, while the
            // client can still act on the answer, rather than at its deadline.
            self.metrics.refused();
            let waited = now.elapsed();
            return Err(ServiceError::NoSlotInTime {
                wait: waited,
                left: deadline.map_or(Duration::ZERO, |d| {
                    d.saturating_duration_since(Instant::now())
                }),
                retry_after: RETRY_AFTER,
            });
        };
        let permit =
            acquired.map_err(|_| ServiceError::Internal("search semaphore closed".into()))?;
        self.slot(permit, entry.job.take(), booking, stop)
    }

    /// Takes an idle engine searcher for a granted permit and records the job as running.
    fn slot(
        &self,
        permit: OwnedSemaphorePermit,
        waited: Option<JobId>,
        booking: Booking,
        stop: &Arc<AtomicBool>,
    ) -> ServiceResult<Slot> {
        let job = self
            .ledger()
            .start(waited, booking, Instant::now(), Arc::clone(stop));
        let search = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let slot = Slot {
            search,
            idle: Arc::clone(&self.idle),
            job,
            ledger: Arc::clone(&self.ledger),
            _permit: permit,
        };
        if slot.search.is_none() {
            // Dropping `slot` forgets the job and returns the permit.
            return Err(ServiceError::Internal(
                "no idle searcher behind a permit".into(),
            ));
        }
        Ok(slot)
    }

    /// Admits a one-thread job of unknown length and starts it on a new thread. `job` receives
    /// the slot's engine searcher, the stop flag and the time left before `deadline` (minus
    /// [`DEADLINE_MARGIN`] and a tenth of the time left, at most 200 ms more).
    ///
    /// # Errors
    /// `Busy` when the queue is full, `NoSlotInTime` when no slot frees up while the deadline
    /// leaves time to search, `DeadlineExceeded` if no time is left once admitted, `Internal`
    /// if the thread cannot be spawned.
    pub async fn start<T, F>(&self, deadline: Option<Instant>, job: F) -> ServiceResult<Running<T>>
    where
        T: Send + 'static,
        F: FnOnce(&Searcher, &AtomicBool, Option<Duration>) -> T + Send + 'static,
    {
        self.start_job(deadline, Demand::ONE_THREAD, job).await
    }

    /// [`EnginePool::start`] for a job that asks for `demand` (threads counted against the
    /// budget, expected run time for the admission estimate).
    ///
    /// # Errors
    /// See [`EnginePool::start`].
    pub async fn start_job<T, F>(
        &self,
        deadline: Option<Instant>,
        demand: Demand,
        job: F,
    ) -> ServiceResult<Running<T>>
    where
        T: Send + 'static,
        F: FnOnce(&Searcher, &AtomicBool, Option<Duration>) -> T + Send + 'static,
    {
        if let Some(deadline) = deadline {
            // Nothing to wait for if no time is left even now.
            search_budget(deadline, Instant::now())?;
        }
        // Created before admission so that the ledger sees a cancelled job as ending now; set
        // when the request is dropped (guard below), even while it waits.
        let stop = Arc::new(AtomicBool::new(false));
        let guard = StopOnDrop(Arc::clone(&stop));
        let slot = self.admit(demand, deadline, &stop).await?;
        let budget = match deadline {
            Some(deadline) => Some(search_budget(deadline, Instant::now())?),
            None => None,
        };
        self.register(&stop);
        // Registered first, then checked: a drain that began while this job waited either sees
        // it registered or has already set `finishing` (both under the `running` lock).
        if self.finishing.load(Ordering::Relaxed) {
            stop.store(true, Ordering::Relaxed);
        }
        let (tx, rx) = oneshot::channel();
        let thread_stop = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("engine-job".into())
            .spawn(move || {
                // The slot is held as long as the CPU work, not as long as the request.
                let Some(search) = slot.search.as_ref() else {
                    return;
                };
                let result = job(search, &thread_stop, budget);
                drop(slot);
                // The receiver is gone if the client cancelled; nothing to do then.
                let _ = tx.send(result);
            })
            .map_err(|e| ServiceError::Internal(format!("cannot spawn engine thread: {e}")))?;
        Ok(Running {
            result: rx,
            _stop: guard,
        })
    }

    /// Runs one search to completion. The deadline caps the search time.
    ///
    /// # Errors
    /// See [`EnginePool::start`].
    pub async fn best_move(
        &self,
        position: Position,
        limits: Limits,
        options: SearchOptions,
        deadline: Option<Instant>,
    ) -> ServiceResult<SearchResult> {
        // The search runs on another thread: hand it the RPC span so its span nests under it.
        let (parent, metrics) = (tracing::Span::current(), self.metrics.clone());
        let demand = Demand::of_search(&limits);
        self.start_job(deadline, demand, move |search, stop, budget| {
            let limits = cap_movetime(limits, budget);
            metrics.observe(&parent, &limits, || {
                search.search(&position, &limits, &options, stop, &mut |_| {})
            })
        })
        .await?
        .finish()
        .await
    }

    /// Starts a search whose iterations are streamed.
    ///
    /// # Errors
    /// See [`EnginePool::start`].
    pub async fn analyze(
        &self,
        position: Position,
        limits: Limits,
        options: SearchOptions,
        deadline: Option<Instant>,
    ) -> ServiceResult<Analysis> {
        let (info_tx, infos) = mpsc::channel(INFO_BUFFER);
        let (parent, metrics) = (tracing::Span::current(), self.metrics.clone());
        let demand = Demand::of_search(&limits);
        let running = self
            .start_job(deadline, demand, move |search, stop, budget| {
                let limits = cap_movetime(limits, budget);
                metrics.observe(&parent, &limits, || {
                    search.search(&position, &limits, &options, stop, &mut |info| {
                        // Never block the search on a slow client: drop the update if the buffer
                        // is full. The final result travels on its own channel, never dropped.
                        let _ = info_tx.try_send(info.clone());
                    })
                })
            })
            .await?;
        Ok(Analysis {
            infos,
            infos_done: false,
            running: Some(running),
        })
    }

    /// Runs a CPU-bound job that has no search limits (perft) under the same admission control.
    /// `job` gets the stop flag (set when the request is cancelled or the server drains) and the
    /// time left before the deadline (less the answering margin), and must honour both.
    ///
    /// # Errors
    /// See [`EnginePool::start`].
    pub async fn run<T, F>(&self, deadline: Option<Instant>, job: F) -> ServiceResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&AtomicBool, Option<Duration>) -> T + Send + 'static,
    {
        self.start(deadline, move |_, stop, budget| job(stop, budget))
            .await?
            .finish()
            .await
    }
}

/// Caps the search time by the time left before the deadline.
fn cap_movetime(mut limits: Limits, budget: Option<Duration>) -> Limits {
    if let Some(budget) = budget {
        limits.movetime = Some(limits.movetime.map_or(budget, |t| t.min(budget)));
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(slots: usize, queue: usize) -> Arc<EnginePool> {
        Arc::new(EnginePool::new(PoolSettings {
            slots,
            queue,
            hash_mb: 1,
            threads_per_slot: 1,
        }))
    }

    /// Starts a job that runs until its stop flag is set, and reports when it has stopped.
    async fn spin(pool: &EnginePool) -> (Running<()>, oneshot::Receiver<()>) {
        let (done_tx, done_rx) = oneshot::channel();
        let running = pool
            .start(None, move |_, stop, _| {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let _ = done_tx.send(());
            })
            .await
            .expect("admitted");
        (running, done_rx)
    }

    #[tokio::test]
    async fn full_queue_is_refused_with_busy() {
        let pool = pool(1, 0);
        let (_running, _done) = spin(&pool).await;
        let err = pool
            .run(None, |_, _| ())
            .await
            .expect_err("no slot, no queue");
        assert!(matches!(err, ServiceError::Busy { .. }), "{err}");
    }

    #[tokio::test]
    async fn dropping_the_request_stops_the_job_and_frees_the_slot() {
        let pool = pool(1, 0);
        let (running, done) = spin(&pool).await;
        drop(running);
        done.await.expect("job saw its stop flag");
        // The permit is released when the thread ends, shortly after the stop.
        let value = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match pool.run(None, |_, _| 7).await {
                    Ok(v) => break v,
                    Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                }
            }
        })
        .await
        .expect("slot freed");
        assert_eq!(value, 7);
    }

    #[tokio::test]
    async fn finish_all_stops_running_jobs_and_later_ones_start_stopped() {
        let pool = pool(2, 0);
        let (running, done) = spin(&pool).await;
        pool.finish_all();
        done.await.expect("the running job saw its stop flag");
        drop(running);
        let stopped = pool
            .start(None, |_, stop, _| stop.load(Ordering::Relaxed))
            .await
            .expect("admitted")
            .finish()
            .await
            .expect("result");
        assert!(stopped, "a job admitted while finishing starts stopped");
    }

    #[tokio::test]
    async fn a_multi_threaded_search_counts_against_the_thread_budget() {
        // Two one-thread slots: a two-thread job takes both, so even a one-thread job waits.
        let pool = pool(2, 0);
        let (done_tx, done_rx) = oneshot::channel();
        let wide = pool
            .start_job(
                None,
                Demand {
                    threads: 2,
                    time: None,
                },
                move |_, stop, _| {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    let _ = done_tx.send(());
                },
            )
            .await
            .expect("admitted");
        let err = pool.run(None, |_, _| ()).await.expect_err("budget used up");
        assert!(matches!(err, ServiceError::Busy { .. }), "{err}");
        drop(wide);
        done_rx.await.expect("stopped");
    }

    #[tokio::test]
    async fn an_expired_deadline_is_refused() {
        let pool = pool(1, 0);
        let err = pool
            .run(Some(Instant::now()), |_, _| ())
            .await
            .expect_err("no time left");
        assert!(matches!(err, ServiceError::DeadlineExceeded));
    }

    #[tokio::test]
    async fn each_slot_gets_its_own_search_pool_back_after_a_search() {
        let pool = pool(2, 0);
        let chess = variant_engine::Registry::builtin()
            .get("chess")
            .expect("chess is built in");
        let limits = Limits {
            depth: Some(2),
            threads: 1,
            multipv: 1,
            ..Limits::default()
        };
        let (a, b) = tokio::join!(
            pool.best_move(
                Position::new(Arc::clone(&chess)),
                limits.clone(),
                SearchOptions::default(),
                None
            ),
            pool.best_move(Position::new(chess), limits, SearchOptions::default(), None),
        );
        assert!(a.expect("first").best_move.is_some());
        assert!(b.expect("second").best_move.is_some());
        assert_eq!(pool.idle.lock().expect("lock").len(), 2);
    }

    #[test]
    fn deadline_budget_caps_movetime() {
        let limits = Limits {
            movetime: Some(Duration::from_secs(10)),
            ..Limits::default()
        };
        let capped = cap_movetime(limits, Some(Duration::from_millis(300)));
        assert_eq!(capped.movetime, Some(Duration::from_millis(300)));
    }
}
