//! TEMPORARY stand-in for the search API of `variant-engine` (`/work/engine-api.md`): a plain
//! iterative-deepening alpha-beta over the real engine's legal moves with a material evaluation.
//!
//! The engine's own search (module `search`, re-exported at its crate root) replaces this crate;
//! the service imports these types only through `crate::search_api`, so the switch is one line.
#![allow(
    missing_docs,
    missing_debug_implementations,
    clippy::all,
    clippy::pedantic
)]

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use variant_engine::{GameStatus, Move, PieceKind, Position};

#[derive(Clone, Debug)]
pub struct PoolConfig {
    pub hash_mb: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub clock: Option<Clock>,
    pub infinite: bool,
    pub threads: usize,
    pub multipv: usize,
    pub skill_level: Option<u8>,
    pub seed: u64,
}

#[derive(Clone, Debug)]
pub struct Clock {
    pub wtime: Duration,
    pub btime: Duration,
    pub winc: Duration,
    pub binc: Duration,
    pub movestogo: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Centipawns(i32),
    Mate(i32),
}

#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: usize,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best_move: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
    pub lines: Vec<SearchInfo>,
}

#[derive(Debug)]
pub struct SearchPool {
    _config: PoolConfig,
}

struct Ctx<'a> {
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    max_nodes: u64,
    nodes: u64,
    aborted: bool,
}

impl Ctx<'_> {
    fn check(&mut self) -> bool {
        if self.nodes >= self.max_nodes
            || self.stop.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
        self.aborted
    }
}

const MATE: i32 = 100_000;

/// Material balance from the side to move's view, using the variant's piece values.
fn eval(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    let variant = pos.variant();
    let mut score = 0;
    for k in 0..variant.kind_count() {
        let kind = PieceKind(k as u8);
        let value = variant.piece(kind).value;
        for (color, sign) in [(us, 1), (!us, -1)] {
            let n = pos.pieces_of(color, kind).count() as i32
                + i32::from(pos.pocket_count(color, kind));
            score += sign * value * n;
        }
    }
    score
}

fn negamax(
    pos: &mut Position,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    ply: i32,
    ctx: &mut Ctx<'_>,
) -> (i32, Vec<Move>) {
    ctx.nodes += 1;
    if ctx.nodes % 256 == 0 && ctx.check() {
        return (0, Vec::new());
    }
    if ply > 0 {
        match pos.status() {
            GameStatus::Ongoing => {}
            GameStatus::Finished { winner: None, .. } => return (0, Vec::new()),
            GameStatus::Finished {
                winner: Some(w), ..
            } => {
                let s = if w == pos.side_to_move() {
                    MATE - ply
                } else {
                    -MATE + ply
                };
                return (s, Vec::new());
            }
        }
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return (0, Vec::new());
    }
    if depth == 0 {
        return (eval(pos), Vec::new());
    }
    let mut best = (-MATE - 1, Vec::new());
    for m in moves {
        pos.play(m);
        let (s, pv) = negamax(pos, depth - 1, -beta, -alpha, ply + 1, ctx);
        pos.unmake();
        if ctx.aborted {
            return best;
        }
        let s = -s;
        if s > best.0 {
            let mut line = vec![m];
            line.extend(pv);
            best = (s, line);
        }
        alpha = alpha.max(s);
        if alpha >= beta {
            break;
        }
    }
    best
}

impl SearchPool {
    pub fn new(config: PoolConfig) -> SearchPool {
        SearchPool { _config: config }
    }

    pub fn search(
        &self,
        pos: &Position,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let start = Instant::now();
        let mut pos = pos.clone();
        let legal = pos.legal_moves();
        let mut ctx = Ctx {
            stop,
            deadline: limits.movetime.map(|t| start + t),
            max_nodes: limits.nodes.unwrap_or(u64::MAX),
            nodes: 0,
            aborted: false,
        };
        let max_depth = limits.depth.unwrap_or(64).max(1);
        let mut result = SearchResult {
            best_move: legal.first().copied(),
            ponder: None,
            score: Score::Centipawns(0),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            nps: 0,
            time: Duration::ZERO,
            pv: legal.first().copied().into_iter().collect(),
            lines: Vec::new(),
        };
        if legal.is_empty() {
            return result;
        }
        for depth in 1..=max_depth {
            let (s, pv) = negamax(&mut pos, depth, -MATE - 1, MATE + 1, 0, &mut ctx);
            if ctx.aborted || pv.is_empty() {
                break;
            }
            let time = start.elapsed();
            let score = if s.abs() > MATE - 1000 {
                let plies = MATE - s.abs();
                Score::Mate(if s > 0 { (plies + 1) / 2 } else { -(plies / 2) })
            } else {
                Score::Centipawns(s)
            };
            let info = SearchInfo {
                depth,
                seldepth: depth,
                multipv: 1,
                score,
                nodes: ctx.nodes,
                nps: (ctx.nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
                time,
                pv: pv.clone(),
            };
            on_info(&info);
            result.best_move = pv.first().copied();
            result.ponder = pv.get(1).copied();
            result.score = score;
            result.depth = depth;
            result.seldepth = depth;
            result.pv = pv;
            result.lines = vec![info];
            if matches!(score, Score::Mate(_)) {
                break;
            }
        }
        result.nodes = ctx.nodes;
        result.time = start.elapsed();
        result.nps = (ctx.nodes as f64 / result.time.as_secs_f64().max(1e-6)) as u64;
        result
    }
}
