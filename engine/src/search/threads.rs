//! Per-thread search state and the Lazy SMP thread runner.
//!
//! Every thread of a search owns a [`ThreadData`] (its own position copy, killers, history and
//! PV table) and shares one [`Shared`] (transposition table, evaluator, limits, stop flags, node
//! counter). Helper threads run inside [`std::thread::scope`], so they borrow the shared state
//! and are joined before the search returns; nothing is global.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::eval::{Acc, Evaluator, PawnCache};
use crate::geometry::Square;
use crate::moves::{Move, MoveKind};
use crate::nnue::AccStack;
use crate::piece::Piece;
use crate::position::{Position, ep_victim};
use crate::search::history::{Context, Histories, ScoredMove};
use crate::search::lmr::LmrTable;
use crate::search::options::Features;
use crate::search::see::SeeValues;
use crate::search::threats::ThreatTables;
use crate::search::time::TimeManager;
use crate::search::tt::TranspositionTable;

/// Deepest ply a search reaches (the PV table and per-ply stacks have this many rows).
pub(crate) const MAX_PLY: usize = 128;

/// Node counts are flushed to the shared counter in batches of this size, so threads do not
/// fight over one cache line; the stop check runs at the same rate.
const NODE_BATCH: u64 = 1024;

/// Stack size for helper threads: the search recurses up to `MAX_PLY` twice (main search and
/// quiescence), so be generous.
const HELPER_STACK: usize = 16 << 20;

/// State shared by all threads of one search.
#[derive(Debug)]
pub(crate) struct Shared<'a> {
    /// The transposition table.
    pub(crate) tt: &'a TranspositionTable,
    /// Evaluation tables for the variant.
    pub(crate) evaluator: Evaluator,
    /// Piece values and capture order of the static exchange evaluation.
    pub(crate) see: SeeValues,
    /// Which kinds count as cheaper than which, for quiet-move ordering by threats.
    pub(crate) threats: ThreatTables,
    /// Stop conditions.
    pub(crate) time: TimeManager,
    /// The caller's stop flag.
    pub(crate) stop: &'a AtomicBool,
    /// Set by the main thread when it is done, to stop the helpers.
    pub(crate) abort: AtomicBool,
    /// Nodes searched by all threads (flushed in batches).
    pub(crate) nodes: AtomicU64,
    /// Search features in use.
    pub(crate) features: Features,
    /// Late-move reduction table.
    pub(crate) lmr: LmrTable,
    /// The node limit waits until the first iteration is complete (skill levels: their
    /// random pick needs every candidate line searched, however small the budget).
    pub(crate) whole_first_iteration: bool,
}

/// One root move and what the last search of it found.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    /// The move.
    pub(crate) mv: Move,
    /// Score of the current iteration (`-INF` when it failed low).
    pub(crate) score: i32,
    /// Score of the last completed iteration.
    pub(crate) prev_score: i32,
    /// Principal variation starting with `mv`.
    pub(crate) pv: Vec<Move>,
    /// Selective depth reached.
    pub(crate) seldepth: usize,
    /// Nodes spent on this move in the current iteration.
    pub(crate) nodes: u64,
}

/// Per-thread search state. Aligned to a cache line so threads' hot fields never share one.
#[repr(align(64))]
#[derive(Debug)]
pub(crate) struct ThreadData<'a> {
    /// Thread index; 0 is the main thread.
    pub(crate) id: usize,
    /// This thread's copy of the position.
    pub(crate) pos: Position,
    /// The shared state.
    pub(crate) shared: &'a Shared<'a>,
    /// Nodes this thread searched.
    pub(crate) nodes: u64,
    unflushed: u64,
    /// Deepest ply reached in the current iteration.
    pub(crate) seldepth: usize,
    /// Set once the search must unwind.
    pub(crate) stopped: bool,
    /// Two killer moves per ply.
    pub(crate) killers: Vec<[Option<Move>; 2]>,
    /// Butterfly, continuation and capture histories and counter-moves.
    pub(crate) hist: Histories,
    /// The move the node at each ply leaves out (singular-extension searches).
    pub(crate) excluded: [Option<Move>; MAX_PLY + 1],
    /// Triangular PV table.
    pub(crate) pv: Vec<[Option<Move>; MAX_PLY]>,
    /// PV length per ply.
    pub(crate) pv_len: [usize; MAX_PLY],
    /// Static evaluation per ply (for the "improving" heuristic).
    pub(crate) eval_stack: [i32; MAX_PLY],
    /// Reusable move lists, one per ply.
    pub(crate) lists: Vec<Vec<ScoredMove>>,
    /// Root moves, best first.
    pub(crate) root_moves: Vec<RootMove>,
    /// Depth of the iteration being searched.
    pub(crate) root_depth: i32,
    /// Depth of the last completed iteration.
    pub(crate) completed_depth: u32,
    /// A root move that beat the first move of the iteration being searched (its search at
    /// this depth completed with a score above alpha), for when the iteration is cut short.
    pub(crate) interim_best: Option<RootMove>,
    /// Incremental evaluation sums, one per position on the current line.
    acc: Vec<Acc>,
    /// Whether the side to move is in check, one per position on the current line.
    checks: Vec<bool>,
    /// Context (moved piece and destination) of each move on the current line from the root;
    /// `None` for a null move.
    moved: Vec<Option<Context>>,
    /// Pawn-structure cache.
    pawn_cache: PawnCache,
    /// The network's accumulators, one per position on the current line (when the
    /// evaluation is the network's).
    nnue: Option<AccStack>,
}

impl<'a> ThreadData<'a> {
    /// Fresh state for thread `id` searching `pos`, with the histories an earlier search
    /// left (`None`: empty ones).
    pub(crate) fn new(
        id: usize,
        pos: Position,
        shared: &'a Shared<'a>,
        root_moves: Vec<RootMove>,
        hist: Option<Histories>,
    ) -> Self {
        let pos_kinds = pos.variant().kind_count();
        Self {
            id,
            pos,
            shared,
            nodes: 0,
            unflushed: 0,
            seldepth: 0,
            stopped: false,
            killers: vec![[None; 2]; MAX_PLY + 1],
            hist: hist.unwrap_or_else(|| Histories::new(pos_kinds)),
            excluded: [None; MAX_PLY + 1],
            pv: vec![[None; MAX_PLY]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY],
            eval_stack: [0; MAX_PLY],
            lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(128)).collect(),
            root_moves,
            root_depth: 0,
            completed_depth: 0,
            interim_best: None,
            acc: Vec::with_capacity(2 * MAX_PLY),
            checks: Vec::with_capacity(2 * MAX_PLY),
            moved: Vec::with_capacity(2 * MAX_PLY),
            pawn_cache: PawnCache::default(),
            nnue: shared
                .evaluator
                .net()
                .map(|net| AccStack::new(net, 2 * MAX_PLY + 2)),
        }
    }

    /// Resets the line stacks to the current position (the search root).
    pub(crate) fn reset_root(&mut self) {
        self.acc.clear();
        self.acc.push(self.shared.evaluator.accumulate(&self.pos));
        self.checks.clear();
        self.checks.push(self.pos.in_check());
        self.moved.clear();
        if let Some(stack) = &mut self.nnue {
            stack.reset(&self.pos);
        }
    }

    /// Contexts of the moves one and two plies before the current position (the opponent's
    /// last move, then our own), for the continuation histories.
    #[inline]
    pub(crate) fn contexts(&self) -> [Option<Context>; 2] {
        [self.moved_back(1), self.moved_back(2)]
    }

    /// Context of the move `k` plies back on the current line (1: the last move).
    #[inline]
    fn moved_back(&self, k: usize) -> Option<Context> {
        self.moved.len().checked_sub(k).and_then(|i| self.moved[i])
    }

    /// The opponent's last move when it was a quiet one (not a null move, capture or
    /// promotion), with its context and the contexts of the two moves before it: what a
    /// node that fails low rewards.
    #[inline]
    pub(crate) fn prior_quiet(&self) -> Option<(Move, Context, [Option<Context>; 2])> {
        let ctx = self.moved_back(1)?;
        let undo = self.pos.history.last()?;
        if undo.captured.is_some() || undo.mv.promotion_kind().is_some() {
            return None;
        }
        Some((undo.mv, ctx, [self.moved_back(2), self.moved_back(3)]))
    }

    /// True when the side to move is in check (computed once per position on the line).
    #[inline]
    pub(crate) fn in_check(&self) -> bool {
        self.checks.last().copied().unwrap_or(false)
    }

    /// Static evaluation of the current position.
    #[inline]
    pub(crate) fn evaluate(&mut self) -> i32 {
        let learned = match &mut self.nnue {
            Some(stack) if !stack.residual() => return stack.evaluate(&self.pos),
            Some(stack) => stack.evaluate(&self.pos),
            None => 0,
        };
        let ev = &self.shared.evaluator;
        learned
            + match self.acc.last() {
                Some(acc) => ev.evaluate_acc(&self.pos, acc, Some(&mut self.pawn_cache)),
                None => ev.evaluate_hand(&self.pos),
            }
    }

    /// Plays `m`, updating the evaluation sums from the squares the move touches; returns
    /// whether the move gives check.
    #[inline]
    pub(crate) fn play(&mut self, m: Move) -> bool {
        let us = self.pos.side;
        let mut touched = [Square::new(0); 4];
        let mut n = 0;
        let mut touch = |sq: Square| {
            if !touched[..n].contains(&sq) {
                touched[n] = sq;
                n += 1;
            }
        };
        match m.kind() {
            MoveKind::Normal { from, to } | MoveKind::Promotion { from, to, .. } => {
                touch(from);
                touch(to);
            }
            MoveKind::EnPassant { from, to } => {
                touch(from);
                touch(to);
                touch(ep_victim(to, us));
            }
            MoveKind::Castle { from, to } => {
                let (rook_from, rook_to) = self.pos.castling_rook(us, from, to);
                touch(from);
                touch(to);
                touch(rook_from);
                touch(rook_to);
            }
            MoveKind::Drop { to, relocation, .. } => {
                touch(to);
                if let Some(r) = relocation {
                    touch(r);
                }
            }
        }
        // Each touched square with its piece before the move (the piece after is read from
        // the board once the move is played): what both evaluations update from.
        let changes: [(Square, Option<Piece>); 4] = std::array::from_fn(|i| {
            let before = (i < n)
                .then(|| self.pos.board[touched[i].index()])
                .flatten();
            (touched[i], before)
        });
        // The search trusts `move_may_give_check` to prune without playing: check it here.
        let may_check = cfg!(debug_assertions).then(|| self.pos.move_may_give_check(m));
        let context = self.hist.context(&self.pos, m);
        self.moved.push(context);
        self.pos.play_unchecked(m);
        self.shared.tt.prefetch(self.pos.hash());
        let mut acc = self.acc.last().copied().unwrap_or_default();
        let ev = &self.shared.evaluator;
        for &(sq, before) in &changes[..n] {
            if let Some(p) = before {
                ev.add_piece(&mut acc, p, sq, -1);
            }
            if let Some(p) = self.pos.board[sq.index()] {
                ev.add_piece(&mut acc, p, sq, 1);
            }
        }
        debug_assert_eq!(
            acc,
            ev.accumulate(&self.pos),
            "incremental eval after {m:?}"
        );
        self.acc.push(acc);
        if let Some(stack) = &mut self.nnue {
            stack.push_move(&self.pos, &changes[..n]);
        }
        let check = match m.kind() {
            MoveKind::Normal { from, to } | MoveKind::Promotion { from, to, .. } => {
                self.pos.in_check_after_piece_move(from, to)
            }
            _ => self.pos.in_check(),
        };
        debug_assert_eq!(check, self.pos.in_check(), "gives check after {m:?}");
        debug_assert!(
            !check || may_check != Some(false),
            "{m:?} checks although move_may_give_check said it cannot"
        );
        self.checks.push(check);
        check
    }

    /// Sets the PV at `ply` to `m` followed by the child's PV.
    #[inline]
    pub(crate) fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// Takes back the last move played with [`ThreadData::play`].
    #[inline]
    pub(crate) fn unmake(&mut self) {
        self.pos.unmake();
        self.acc.pop();
        if let Some(stack) = &mut self.nnue {
            stack.pop();
        }
        self.checks.pop();
        self.moved.pop();
    }

    /// Records a null move on the line stacks (the board does not change).
    pub(crate) fn push_null(&mut self) {
        let acc = self.acc.last().copied().unwrap_or_default();
        self.acc.push(acc);
        if let Some(stack) = &mut self.nnue {
            stack.push_null();
        }
        self.checks.push(false);
        self.moved.push(None);
    }

    /// Takes a null move off the line stacks.
    pub(crate) fn pop_null(&mut self) {
        self.acc.pop();
        if let Some(stack) = &mut self.nnue {
            stack.pop();
        }
        self.checks.pop();
        self.moved.pop();
    }

    /// Counts a node; returns true when the search must stop. The flags and the clock are
    /// consulted once per batch; a node limit is checked exactly, so single-threaded
    /// node-limited searches are deterministic.
    #[inline]
    pub(crate) fn count_node(&mut self) -> bool {
        self.nodes += 1;
        self.unflushed += 1;
        let sh = self.shared;
        let node_limited = self.root_depth > 1 || !sh.whole_first_iteration;
        if self.unflushed >= NODE_BATCH {
            let total = sh.nodes.fetch_add(self.unflushed, Ordering::Relaxed) + self.unflushed;
            self.unflushed = 0;
            if sh
                .time
                .check_up(sh.stop, &sh.abort, node_limited.then_some(total))
            {
                self.stopped = true;
            }
        } else if node_limited
            && sh.time.has_node_limit()
            && sh
                .time
                .nodes_exhausted(sh.nodes.load(Ordering::Relaxed) + self.unflushed)
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Nodes counted but not yet added to the shared counter.
    pub(crate) fn nodes_unflushed(&self) -> u64 {
        self.unflushed
    }

    /// Flushes the unflushed node count.
    pub(crate) fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }
}

/// Runs `main` on the calling thread and `helper(id)` for ids `1..threads` on scoped helper
/// threads; when `main` returns, sets `abort` so the helpers unwind, joins them and returns
/// `main`'s result. A helper that cannot be spawned is skipped (the search still works).
pub(crate) fn run_lazy_smp<R>(
    threads: usize,
    abort: &AtomicBool,
    main: impl FnOnce() -> R,
    helper: impl Fn(usize) + Sync,
) -> R {
    std::thread::scope(|s| {
        let helper = &helper;
        for id in 1..threads {
            let spawned = std::thread::Builder::new()
                .name(format!("search-helper-{id}"))
                .stack_size(HELPER_STACK)
                .spawn_scoped(s, move || helper(id));
            if spawned.is_err() {
                break;
            }
        }
        let result = main();
        abort.store(true, Ordering::Relaxed);
        result
    })
}
