//! The search: a [`Searcher`] and the values it takes and gives back.
//!
//! A [`Searcher`] owns a transposition table and runs one search at a time on the caller's
//! thread plus `limits.threads - 1` scoped helper threads (Lazy SMP: every thread searches the
//! same tree and they share results through the table). The engine never prints: progress goes
//! to the `on_info` callback, one [`SearchInfo`] per completed iteration and multi-PV line.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use variant_engine::{Limits, Position, Registry, SearchOptions, Searcher, SearcherConfig};
//!
//! let searcher = Searcher::new(SearcherConfig { hash_mb: 1 });
//! let pos = Position::new(Registry::builtin().get("opulent").unwrap());
//! let limits = Limits { depth: Some(3), ..Limits::default() };
//! let result = searcher.search(
//!     &pos,
//!     &limits,
//!     &SearchOptions::default(),
//!     &AtomicBool::new(false),
//!     &mut |_| {},
//! );
//! assert!(pos.legal_moves().contains(&result.best_move.unwrap()));
//! ```
//!
//! Inside, from the root down: this file runs iterative deepening with aspiration windows and
//! picks the result (skill levels included); `alphabeta.rs` is the main search, `qsearch.rs`
//! quiescence, `ordering.rs` move ordering with the per-thread tables of `history.rs` and the
//! reductions of `lmr.rs`; `threads.rs` holds each thread's state and runs the helpers,
//! `tt.rs` is the shared transposition table, `time.rs` the one stop check, and `score.rs` the
//! score scale. None of it is public: what a caller sees is re-exported here.

mod alphabeta;
mod history;
mod levels;
mod limits;
mod lmr;
mod options;
mod ordering;
mod qsearch;
mod score;
mod see;
mod threads;
mod threats;
mod time;
mod tt;
mod wdl;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::eval::Evaluator;
use crate::moves::Move;
use crate::piece::PieceKind;
use crate::position::Position;
use crate::rng::SplitMix64;
use crate::search::alphabeta::search_root;
use crate::search::history::Histories;
use crate::search::lmr::LmrTable;
use crate::search::ordering::{AllMoves, score_moves};
use crate::search::score::{INF, MATE, MATE_BOUND, is_decided, terminal_score};
use crate::search::see::SeeValues;
use crate::search::threads::{MAX_PLY, RootMove, Shared, ThreadData, run_lazy_smp};
use crate::search::threats::ThreatTables;
use crate::search::time::{DEFAULT_DEPTH, TimeManager};
use crate::search::tt::TranspositionTable;

pub use crate::search::levels::{LEVELS, Level, LevelElo, MAX_LEVEL, ladder};
pub use crate::search::limits::{Clock, Limits};
pub use crate::search::options::{Features, SearchOptions, SearchOptionsError};
pub use crate::search::score::Score;
pub use crate::search::wdl::{Wdl, WinRateModel};

/// How a [`Searcher`] is set up.
#[derive(Clone, Debug)]
pub struct SearcherConfig {
    /// Transposition-table size in MiB.
    pub hash_mb: usize,
}

impl Default for SearcherConfig {
    fn default() -> Self {
        Self { hash_mb: 16 }
    }
}

/// Progress report for one completed iteration and multi-PV line.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    /// Depth of the iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based line number.
    pub multipv: usize,
    /// Score of the line.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Nodes per second so far.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The line.
    pub pv: Vec<Move>,
}

/// Why a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The depth limit was reached.
    Depth,
    /// The node limit was reached.
    Nodes,
    /// The time budget ran out.
    Time,
    /// The caller set the stop flag.
    Stopped,
    /// A forced mate was proven.
    Mate,
    /// The position has no legal move.
    NoMoves,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best move; `None` only when there is no legal move.
    pub best_move: Option<Move>,
    /// Expected reply.
    pub ponder: Option<Move>,
    /// Score of the best move.
    pub score: Score,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time used.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// One entry per multi-PV line, best first.
    pub lines: Vec<SearchInfo>,
    /// Why the search ended.
    pub stop_reason: StopReason,
}

/// Runs searches. `Send + Sync`; share it as `Arc<Searcher>`.
///
/// A searcher runs **one search at a time**: it owns one transposition table, and a second
/// concurrent [`search`](Searcher::search) on the same searcher blocks until the first returns
/// (a mutex guards it) instead of corrupting the table. Create one searcher per concurrent
/// search slot.
#[derive(Debug)]
pub struct Searcher {
    tt: TranspositionTable,
    /// Held for the whole of a search; keeps what the last search learned for the next one.
    busy: Mutex<Option<Learned>>,
}

/// What one search learns beyond the table and hands to the next search of the same searcher:
/// the main thread's move-ordering histories. The moves of one game are searched one after
/// another, and the statistics of the last move's search order the first iterations of the
/// next one far better than empty tables.
#[derive(Debug)]
struct Learned {
    /// The variant they were learned in (only a search of it takes them).
    variant: String,
    /// The main thread's histories.
    histories: Histories,
}

/// Per-search parameters derived from the limits.
struct Plan {
    max_depth: i32,
    multipv: usize,
    reported_lines: usize,
    skill: Option<u8>,
    infinite: bool,
}

/// What a thread's iterative deepening produced.
struct Outcome {
    lines: Vec<(RootMove, u32)>,
    completed_depth: u32,
    reason: StopReason,
}

impl Searcher {
    /// A searcher with a transposition table of `config.hash_mb` MiB.
    #[allow(clippy::needless_pass_by_value)] // the service's contract takes the config by value
    pub fn new(config: SearcherConfig) -> Self {
        Self {
            tt: TranspositionTable::new(config.hash_mb),
            busy: Mutex::new(None),
        }
    }

    /// Forgets everything learned (new game): clears the transposition table and the
    /// statistics the searches pass on.
    pub fn clear(&self) {
        let mut learned = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        *learned = None;
        self.tt.clear();
    }

    /// Searches `pos` within `limits`, playing as `options` say.
    ///
    /// Blocking; runs on the caller's thread plus `limits.threads - 1` helper threads (Lazy
    /// SMP sharing the table). Returns promptly (within a few ms) after `stop` is set, with
    /// the best move found so far; always returns a legal move when one exists, even when
    /// stopped at once.
    pub fn search(
        &self,
        pos: &Position,
        limits: &Limits,
        options: &SearchOptions,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let mut learned = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        let start = Instant::now();
        if options.fresh_table {
            self.tt.clear();
            *learned = None;
        }
        self.tt.new_search();
        let features = options.features;
        let evaluator = Evaluator::new(pos.variant(), features.eval);
        let values: Vec<i32> = (0..pos.variant().kind_count())
            .map(|k| evaluator.value(k))
            .collect();
        let see = SeeValues::new(&values, pos.variant().royal_kind().map(PieceKind::index));
        // Level 20 is full strength: only 0..=19 weaken the play.
        let skill = options.skill_level.filter(|&l| l < 20);
        let threats = ThreatTables::new(pos.variant(), &see);
        let shared = Shared {
            tt: &self.tt,
            evaluator,
            see,
            threats,
            time: TimeManager::new(limits, pos.side_to_move(), start),
            stop,
            abort: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            features,
            lmr: LmrTable::new(),
            whole_first_iteration: skill.is_some(),
        };
        let no_limit = limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.movetime.is_none()
            && limits.clock.is_none()
            && !limits.infinite;
        let mut max_depth = match limits.depth {
            Some(d) if !limits.infinite => d.clamp(1, MAX_PLY as u32 - 8),
            _ if no_limit => DEFAULT_DEPTH,
            _ => MAX_PLY as u32 - 8,
        } as i32;
        if let Some(level) = skill {
            max_depth = max_depth.min(1 + i32::from(level) / 2);
        }
        let requested = limits.multipv.max(1);
        let plan = Plan {
            max_depth,
            multipv: if skill.is_some() {
                requested.max(4)
            } else {
                requested
            },
            reported_lines: requested,
            skill,
            infinite: limits.infinite,
        };

        // Another variant's histories stay until this search leaves its own.
        let hist = if learned
            .as_ref()
            .is_some_and(|l| l.variant == pos.variant().name())
        {
            learned.take().map(|l| l.histories)
        } else {
            None
        };
        let mut main_td = ThreadData::new(0, pos.clone(), &shared, Vec::new(), hist);
        let root_moves = initial_root_moves(&mut main_td, &limits.search_moves);
        if root_moves.is_empty() {
            let score = Score::from_internal(terminal_score(pos, 0));
            return SearchResult {
                best_move: None,
                ponder: None,
                score,
                depth: 0,
                seldepth: 0,
                nodes: 0,
                nps: 0,
                time: start.elapsed(),
                pv: Vec::new(),
                lines: Vec::new(),
                stop_reason: StopReason::NoMoves,
            };
        }
        main_td.root_moves.clone_from(&root_moves);
        main_td.reset_root();
        let threads = limits.threads.clamp(1, 256);
        let plan_ref = &plan;
        let shared_ref = &shared;
        let outcome = run_lazy_smp(
            threads,
            &shared.abort,
            || iterative_deepening(&mut main_td, plan_ref, &mut *on_info),
            |id| {
                let mut td = ThreadData::new(id, pos.clone(), shared_ref, root_moves.clone(), None);
                td.reset_root();
                let _ = iterative_deepening(&mut td, plan_ref, &mut |_| {});
                td.flush_nodes();
            },
        );
        main_td.flush_nodes();
        let elapsed = start.elapsed();
        let nodes = shared.nodes.load(Ordering::Relaxed);
        let nps = nps(nodes, elapsed);
        let mut lines: Vec<SearchInfo> = outcome
            .lines
            .iter()
            .take(plan.reported_lines)
            .enumerate()
            .map(|(i, (rm, depth))| SearchInfo {
                depth: *depth,
                seldepth: rm.seldepth as u32,
                multipv: i + 1,
                score: Score::from_internal(rm.prev_score),
                nodes,
                nps,
                time: elapsed,
                pv: rm.pv.clone(),
            })
            .collect();
        let (best, best_score) = match plan.skill {
            Some(level) => {
                // The position's hash varies the draw from move to move within one seeded game.
                let pick = skill_pick(&outcome.lines, level, options.seed ^ pos.hash());
                (pick.0, pick.1)
            }
            None => outcome
                .lines
                .first()
                .map_or((None, 0), |(rm, _)| (Some(rm), rm.prev_score)),
        };
        let best = best.or_else(|| main_td.root_moves.first());
        let pv = best.map_or_else(Vec::new, |rm| {
            if rm.pv.is_empty() {
                vec![rm.mv]
            } else {
                rm.pv.clone()
            }
        });
        if lines.is_empty() && best.is_some() {
            lines.push(SearchInfo {
                depth: 0,
                seldepth: 0,
                multipv: 1,
                score: Score::from_internal(best_score),
                nodes,
                nps,
                time: elapsed,
                pv: pv.clone(),
            });
        }
        let result = SearchResult {
            best_move: pv.first().copied(),
            ponder: pv.get(1).copied(),
            score: Score::from_internal(best_score),
            depth: outcome.completed_depth,
            seldepth: best.map_or(0, |rm| rm.seldepth as u32),
            nodes,
            nps,
            time: elapsed,
            pv,
            lines,
            stop_reason: outcome.reason,
        };
        *learned = Some(Learned {
            variant: pos.variant().name().to_owned(),
            histories: main_td.hist,
        });
        result
    }
}

fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let ns = elapsed.as_nanos().max(1);
    (u128::from(nodes) * 1_000_000_000 / ns) as u64
}

/// The root moves in a first ordering (hash move, captures, killers...) before any search,
/// restricted to `only` when that names at least one legal move.
fn initial_root_moves(td: &mut ThreadData, only: &[Move]) -> Vec<RootMove> {
    if is_decided(&td.pos) {
        return Vec::new();
    }
    let mut list = Vec::new();
    td.pos.generate(&mut AllMoves(&mut list));
    if list.iter().any(|sm| only.contains(&sm.mv)) {
        list.retain(|sm| only.contains(&sm.mv));
    }
    let tt_move = if td.shared.features.tt {
        td.shared.tt.probe(td.pos.hash()).and_then(|e| e.mv)
    } else {
        None
    };
    score_moves(td, &mut list, tt_move, 0);
    list.sort_by_key(|sm| std::cmp::Reverse(sm.score));
    list.iter()
        .map(|sm| RootMove {
            mv: sm.mv,
            score: -INF,
            prev_score: -INF,
            pv: vec![sm.mv],
            seldepth: 0,
            nodes: 0,
        })
        .collect()
}

/// Iterative deepening for one thread. The main thread (id 0) reports, decides when to stop
/// and returns the lines; helpers just search (skipping some depths so they diverge from the
/// main thread and fill the table with different subtrees).
fn iterative_deepening(
    td: &mut ThreadData,
    plan: &Plan,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Outcome {
    let shared = td.shared;
    let main = td.id == 0;
    let multipv = plan.multipv.min(td.root_moves.len());
    let mut outcome = Outcome {
        lines: Vec::new(),
        completed_depth: 0,
        reason: StopReason::Depth,
    };
    let mut depth = 1;
    // Time-management state of the main thread: how unstable the best move has been (decays
    // by half per iteration) and the scores of the iterations so far.
    let mut instability = 0.0f64;
    let mut last_best: Option<Move> = None;
    let mut previous_score: Option<i32> = None;
    while depth <= plan.max_depth {
        if depth > 1 && !shared.time.should_start_iteration() {
            outcome.reason = StopReason::Time;
            break;
        }
        let search_depth = if main {
            depth
        } else {
            (depth + i32::from(td.id % 2 == 1)).min(plan.max_depth)
        };
        td.root_depth = search_depth;
        for rm in &mut td.root_moves {
            rm.nodes = 0;
        }
        td.interim_best = None;
        for pv_idx in 0..multipv {
            td.seldepth = 0;
            aspiration(td, search_depth, pv_idx);
            if td.stopped {
                break;
            }
        }
        if td.stopped {
            // A move that beat the previous best in the unfinished iteration is the better
            // choice: its score comes from the deeper search. (Only for one line at full
            // strength: the weakened levels pick among complete iterations' lines.)
            if main
                && multipv == 1
                && plan.skill.is_none()
                && let Some(mut rm) = td.interim_best.take()
                && let Some(first) = outcome.lines.first_mut()
            {
                rm.prev_score = rm.score;
                *first = (rm, search_depth as u32);
            }
            break;
        }
        // Lines in score order (a later line can outscore an earlier one after re-searches).
        td.root_moves[..multipv].sort_by_key(|rm| std::cmp::Reverse(rm.score));
        for rm in &mut td.root_moves {
            rm.prev_score = rm.score;
        }
        td.completed_depth = search_depth as u32;
        if main {
            let elapsed = shared.time.elapsed();
            let nodes = shared.nodes.load(Ordering::Relaxed) + td.nodes_unflushed();
            let nps = nps(nodes, elapsed);
            outcome.lines = td.root_moves[..multipv]
                .iter()
                .map(|rm| (rm.clone(), search_depth as u32))
                .collect();
            outcome.completed_depth = search_depth as u32;
            for (i, rm) in td.root_moves[..multipv.min(plan.reported_lines)]
                .iter()
                .enumerate()
            {
                on_info(&SearchInfo {
                    depth: search_depth as u32,
                    seldepth: rm.seldepth as u32,
                    multipv: i + 1,
                    score: Score::from_internal(rm.score),
                    nodes,
                    nps,
                    time: elapsed,
                    pv: rm.pv.clone(),
                });
            }
            let best = td.root_moves[0].score;
            if !plan.infinite && best.abs() >= MATE_BOUND && multipv == 1 {
                let plies = MATE - best.abs();
                if search_depth >= plies {
                    outcome.reason = StopReason::Mate;
                    return outcome;
                }
            }
            if td.root_moves.len() == 1 && shared.time.timed() && !plan.infinite {
                // A forced move needs no deliberation.
                outcome.reason = StopReason::Time;
                return outcome;
            }
            if !plan.infinite
                && shared.time.stop_after_iteration(time_factor(
                    td,
                    &mut instability,
                    &mut last_best,
                    &mut previous_score,
                ))
            {
                outcome.reason = StopReason::Time;
                return outcome;
            }
        }
        depth += 1;
    }
    if td.stopped && main {
        let nodes = shared.nodes.load(Ordering::Relaxed) + td.nodes_unflushed();
        outcome.reason = if shared.stop.load(Ordering::Relaxed) {
            StopReason::Stopped
        } else if shared.time.nodes_exhausted(nodes) {
            StopReason::Nodes
        } else {
            StopReason::Time
        };
    }
    if plan.infinite && main && !td.stopped {
        // An infinite search that ran out of depth waits for the stop flag, as UCI requires.
        while !shared.stop.load(Ordering::Relaxed)
            && !shared
                .time
                .nodes_exhausted(shared.nodes.load(Ordering::Relaxed))
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        outcome.reason = StopReason::Stopped;
    }
    outcome
}

/// How much of its planned time a clock search should use, from the iteration just
/// completed: more while the best move keeps changing (`instability`, decaying by half per
/// iteration) or the score falls below the previous iteration's, less when the best move took
/// nearly all of the iteration's nodes (the alternatives were refuted quickly).
fn time_factor(
    td: &ThreadData,
    instability: &mut f64,
    last_best: &mut Option<Move>,
    previous_score: &mut Option<i32>,
) -> f64 {
    let best = &td.root_moves[0];
    *instability /= 2.0;
    if last_best.is_some_and(|m| m != best.mv) {
        *instability += 1.0;
    }
    *last_best = Some(best.mv);
    let stability = 1.0 + 0.9 * *instability;
    let falling = previous_score.map_or(1.0, |prev| {
        if prev.abs() >= MATE_BOUND || best.score.abs() >= MATE_BOUND {
            1.0
        } else {
            (1.0 + f64::from(prev - best.score) / 150.0).clamp(0.7, 1.6)
        }
    });
    *previous_score = Some(best.score);
    let total: u64 = td.root_moves.iter().map(|rm| rm.nodes).sum();
    let effort = if total == 0 {
        1.0
    } else {
        match best.nodes as f64 / total as f64 {
            f if f > 0.9 => 0.6,
            f if f > 0.75 => 0.85,
            f if f < 0.4 => 1.25,
            _ => 1.0,
        }
    };
    stability * falling * effort
}

/// One root search at `depth` for line `pv_idx`, with an aspiration window around the last
/// iteration's score that widens on failure.
fn aspiration(td: &mut ThreadData, depth: i32, pv_idx: usize) {
    let prev = td.root_moves[pv_idx].prev_score;
    let mut delta = 20;
    let (mut alpha, mut beta) =
        if td.shared.features.aspiration && depth >= 5 && prev.abs() < MATE_BOUND {
            (prev - delta, prev + delta)
        } else {
            (-INF, INF)
        };
    loop {
        let score = search_root(td, depth, alpha, beta, pv_idx);
        td.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
        if td.stopped {
            return;
        }
        if score <= alpha && alpha > -INF {
            beta = i32::midpoint(alpha, beta);
            alpha = (score - delta).max(-INF);
        } else if score >= beta && beta < INF {
            beta = (score + delta).min(INF);
        } else {
            return;
        }
        delta += delta / 2 + 10;
        if delta > 1500 {
            alpha = -INF;
            beta = INF;
        }
    }
}

/// The temperature of skill level `level`'s random pick, in centipawns: 320 at skill 0,
/// falling by 16% a step to about 12 at skill 19.
pub(crate) fn skill_temperature(level: u8) -> f64 {
    320.0 * 0.84_f64.powi(i32::from(level))
}

/// Skill levels: a seeded random choice among the multi-PV lines, each line weighted by
/// `exp(-(best - score) / T)` with the skill's temperature `T`. A move as good as the best is
/// always as likely as the best, a slightly worse one nearly so, and a blunder's chance falls
/// off exponentially with its cost, more steeply at higher skill: weak levels make the
/// mistakes a weak player makes (cheap inaccuracies often, a lost piece now and then), and
/// each skill step makes them rarer. A line that walks into a forced mate is never chosen
/// while a line that does not exists. Weaker levels also search shallower (see
/// [`Searcher::search`]).
fn skill_pick(lines: &[(RootMove, u32)], level: u8, seed: u64) -> (Option<&RootMove>, i32) {
    let Some((top, _)) = lines.first() else {
        return (None, 0);
    };
    let temperature = skill_temperature(level);
    let top_score = lines
        .iter()
        .map(|(rm, _)| rm.prev_score)
        .max()
        .unwrap_or(top.prev_score);
    let safe = |rm: &RootMove| rm.prev_score > -MATE_BOUND || top_score <= -MATE_BOUND;
    // The lines that may be chosen with their weights. Beyond 20 temperatures a line's
    // weight is nil anyway; the clamp keeps exp finite.
    let weighted: Vec<(&RootMove, f64)> = lines
        .iter()
        .map(|(rm, _)| rm)
        .filter(|rm| safe(rm))
        .map(|rm| {
            let gap = f64::from(top_score.saturating_sub(rm.prev_score)).min(20.0 * temperature);
            (rm, (-gap / temperature).exp())
        })
        .collect();
    let total: f64 = weighted.iter().map(|(_, w)| w).sum();
    let mut rng = SplitMix64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut draw = rng.next_f64() * total;
    let mut chosen = top;
    for &(rm, w) in &weighted {
        chosen = rm;
        if draw < w {
            break;
        }
        draw -= w;
    }
    (Some(chosen), chosen.prev_score)
}

#[cfg(test)]
mod skill_tests {
    use super::*;
    use crate::geometry::Square;

    /// Root lines with the given scores, moves a1→b1, a1→c1, ...
    fn lines(scores: &[i32]) -> Vec<(RootMove, u32)> {
        (1u8..)
            .zip(scores)
            .map(|(to, &score)| {
                let mv = Move::normal(Square::new(0), Square::new(to));
                let rm = RootMove {
                    mv,
                    score,
                    prev_score: score,
                    pv: vec![mv],
                    seldepth: 1,
                    nodes: 0,
                };
                (rm, 1)
            })
            .collect()
    }

    /// How often each line is picked over `draws` seeds at `skill`.
    fn counts(lines: &[(RootMove, u32)], skill: u8, draws: u64) -> Vec<u64> {
        let mut counts = vec![0; lines.len()];
        for seed in 0..draws {
            let (pick, score) = skill_pick(lines, skill, seed.wrapping_mul(0x2545_f491));
            let i = lines
                .iter()
                .position(|(rm, _)| Some(rm.mv) == pick.map(|p| p.mv))
                .expect("picks one of the lines");
            assert_eq!(score, lines[i].0.prev_score);
            counts[i] += 1;
        }
        counts
    }

    #[test]
    fn better_moves_are_likelier_and_blunders_fade_with_skill() {
        // Best, a small inaccuracy, a lost pawn, a lost piece.
        let l = lines(&[50, 30, -60, -300]);
        let weak = counts(&l, 0, 4000);
        let strong = counts(&l, 16, 4000);
        assert!(weak.windows(2).all(|w| w[0] > w[1]), "{weak:?}");
        assert!(
            weak[3] > 100,
            "a beginner drops a piece now and then: {weak:?}"
        );
        assert_eq!(strong[3], 0, "skill 16 never drops a piece: {strong:?}");
        assert!(
            strong[0] > weak[0] && strong[3] < weak[3],
            "{weak:?} {strong:?}"
        );
        // The expected loss falls with every skill step.
        let loss = |skill| {
            let c = counts(&l, skill, 4000);
            c.iter()
                .zip([0, 20, 110, 350])
                .map(|(n, cost)| n * cost)
                .sum::<u64>()
        };
        let losses: Vec<u64> = (0..20).step_by(3).map(loss).collect();
        assert!(losses.windows(2).all(|w| w[0] > w[1]), "{losses:?}");
    }

    #[test]
    fn equal_moves_are_equally_likely_and_mated_lines_are_never_picked() {
        let l = lines(&[10, 10, -MATE + 4]);
        let c = counts(&l, 0, 4000);
        assert_eq!(c[2], 0, "walks into mate: {c:?}");
        assert!(c[0].abs_diff(c[1]) < 300, "{c:?}");
        // When every line is mated, one is still played.
        let lost = lines(&[-MATE + 6, -MATE + 4]);
        assert_eq!(counts(&lost, 5, 50).iter().sum::<u64>(), 50);
        assert_eq!(skill_pick(&[], 3, 1).0.map(|rm| rm.mv), None);
    }
}

#[cfg(test)]
mod learned_tests {
    use super::*;
    use crate::Registry;

    fn run(s: &Searcher, pos: &Position) -> SearchResult {
        let limits = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let options = SearchOptions::default();
        s.search(pos, &limits, &options, &AtomicBool::new(false), &mut |_| {})
    }

    /// With the table cleared in between, only the statistics a search hands on can make a
    /// second search differ from a new searcher's; they are handed on within a variant only.
    #[test]
    fn statistics_carry_over_to_the_next_search_of_the_same_variant() {
        let registry = Registry::builtin();
        let start = Position::new(registry.get("opulent").unwrap());
        let mut next = start.clone();
        next.play(next.legal_moves()[7]);
        let cold = run(&Searcher::new(SearcherConfig { hash_mb: 4 }), &next);

        let s = Searcher::new(SearcherConfig { hash_mb: 4 });
        run(&s, &start);
        assert_eq!(
            s.busy
                .lock()
                .ok()
                .and_then(|l| l.as_ref().map(|l| l.variant.clone()))
                .as_deref(),
            Some("opulent")
        );
        s.tt.clear();
        let warm = run(&s, &next);
        assert_ne!(
            warm.nodes, cold.nodes,
            "the first search's statistics were not used"
        );

        let chess = Position::new(registry.get("chess").unwrap());
        let cold_chess = run(&Searcher::new(SearcherConfig { hash_mb: 4 }), &chess);
        s.tt.clear();
        let after_opulent = run(&s, &chess);
        assert_eq!(
            (after_opulent.nodes, after_opulent.pv),
            (cold_chess.nodes, cold_chess.pv)
        );
    }
}

#[cfg(test)]
mod interim_tests {
    use super::*;
    use crate::Registry;
    use crate::samples::bench_positions;

    /// The best move of the last completed iteration and the search's answer, for a search of
    /// `nodes` nodes on a fresh table.
    fn answer(pos: &Position, nodes: u64) -> (Option<Move>, SearchResult) {
        let s = Searcher::new(SearcherConfig { hash_mb: 4 });
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::default()
        };
        let mut completed = None;
        let result = s.search(
            pos,
            &limits,
            &SearchOptions::default(),
            &AtomicBool::new(false),
            &mut |info| completed = info.pv.first().copied(),
        );
        (completed, result)
    }

    /// A node limit that stops an iteration after a new move has beaten the previous best
    /// plays that move, not the last completed iteration's choice, and reports it whole.
    #[test]
    fn a_better_move_found_in_an_unfinished_iteration_is_played() {
        let registry = Registry::builtin();
        let positions: Vec<Position> = bench_positions(&registry)
            .into_iter()
            .filter(|p| p.variant().name() == "opulent")
            .collect();
        let mut switched = 0;
        for pos in &positions {
            for nodes in (1..=20).map(|k| k * 1_500) {
                let (completed, result) = answer(pos, nodes);
                let best = result.best_move;
                assert!(best.is_some_and(|m| pos.is_legal(m)), "{nodes}: {best:?}");
                assert_eq!(result.pv.first().copied(), best);
                assert_eq!(result.lines[0].pv.first().copied(), best);
                assert_eq!(result.lines[0].score, result.score);
                if completed.is_some() && best != completed {
                    switched += 1;
                    // The same search again gives the same answer: nothing here is timing.
                    assert_eq!(answer(pos, nodes).1.best_move, best);
                }
            }
        }
        assert!(
            switched > 0,
            "no search played a move found after its last iteration"
        );
    }
}
