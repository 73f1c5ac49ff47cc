//! Principal-variation alpha-beta search with the usual selectivity.
//!
//! Per node: draw and mate-distance checks, a transposition-table probe, terminal detection
//! (no legal move: the rule hooks decide the result, else checkmate or stalemate), reverse
//! futility pruning, null-move pruning (only where the rules say a null move is sound),
//! internal iterative reduction, then the moves in [`ordering`](super::ordering) order with
//! late-move pruning, late-move reductions and check extensions.

use crate::geometry::Square;
use crate::moves::Move;
use crate::position::Position;
use crate::search::ordering::{
    AllMoves, TacticalMoves, captured_kind, history_bonus, is_quiet, pick, pick_ordered,
    score_moves, score_tactical, update_cutoff_stats,
};
use crate::search::qsearch::qsearch;
use crate::search::score::{
    INF, MATE, MATE_BOUND, is_decided, score_from_tt, score_to_tt, terminal_score,
};
use crate::search::see::see_ge;
use crate::search::threads::{MAX_PLY, ThreadData};
use crate::search::tt::Bound;

/// True for a draw by the fifty-move rule or by repetition within the search or the game.
#[inline]
fn is_draw(pos: &Position) -> bool {
    if pos.halfmove < 4 {
        return false;
    }
    if pos.halfmove >= 100 && pos.variant.rules().fifty_move_rule() {
        return true;
    }
    pos.repetitions() >= 2
}

/// What a null move changes.
struct NullUndo {
    en_passant: Option<Square>,
    halfmove: u32,
    hash: u64,
}

/// Passes the turn. The halfmove clock is zeroed so repetition checks never look across the
/// null move (positions before it have the other side to move anyway).
fn make_null(pos: &mut Position) -> NullUndo {
    let undo = NullUndo {
        en_passant: pos.en_passant,
        halfmove: pos.halfmove,
        hash: pos.hash,
    };
    let z = &pos.variant.zobrist;
    let mut hash = pos.hash ^ z.side;
    if let Some(e) = pos.en_passant {
        hash ^= z.en_passant(e.index());
    }
    pos.hash = hash;
    pos.en_passant = None;
    pos.halfmove = 0;
    pos.side = !pos.side;
    undo
}

fn unmake_null(pos: &mut Position, undo: &NullUndo) {
    pos.side = !pos.side;
    pos.en_passant = undo.en_passant;
    pos.halfmove = undo.halfmove;
    pos.hash = undo.hash;
}

/// Searches the root moves from `pv_idx` on (earlier ones are the multi-PV lines already found
/// this iteration) and updates their scores and PVs. Returns the best score.
pub(crate) fn search_root(
    td: &mut ThreadData,
    depth: i32,
    mut alpha: i32,
    beta: i32,
    pv_idx: usize,
) -> i32 {
    td.pv_len[0] = 0;
    let mut best = -INF;
    let features = td.shared.features;
    let in_check = td.in_check();
    for i in pv_idx..td.root_moves.len() {
        let m = td.root_moves[i].mv;
        let quiet = is_quiet(&td.pos, m);
        let nodes_before = td.nodes;
        // The child's PV starts empty: only a PV search writes it, so after a null-window
        // search alone (a fail high, or a move played from an unfinished iteration) it would
        // otherwise still hold the line of an earlier root move.
        td.pv_len[1] = 1;
        let gives_check = td.play(m);
        td.count_node();
        let new_depth = depth - 1 + i32::from(gives_check && features.check_extension);
        let mut score;
        if i == pv_idx {
            score = -negamax::<true>(td, new_depth, -beta, -alpha, 1, true);
        } else {
            let mut r = 0;
            if features.lmr && depth >= 3 && quiet && !in_check && !gives_check && i >= pv_idx + 3 {
                r = (td.shared.lmr.reduction(depth, i - pv_idx) - 1).clamp(0, new_depth - 1);
            }
            score = -negamax::<false>(td, new_depth - r, -alpha - 1, -alpha, 1, true);
            if score > alpha && r > 0 {
                score = -negamax::<false>(td, new_depth, -alpha - 1, -alpha, 1, true);
            }
            if score > alpha && score < beta {
                score = -negamax::<true>(td, new_depth, -beta, -alpha, 1, true);
            }
        }
        td.unmake();
        td.root_moves[i].nodes += td.nodes - nodes_before;
        if td.stopped {
            return best;
        }
        let seldepth = td.seldepth;
        let rm = &mut td.root_moves[i];
        if i == pv_idx || score > alpha {
            rm.score = score;
            rm.seldepth = seldepth;
            rm.pv.clear();
            rm.pv.push(m);
            let len = td.pv_len[1].max(1);
            for p in 1..len {
                if let Some(pm) = td.pv[1][p] {
                    rm.pv.push(pm);
                } else {
                    break;
                }
            }
            if i != pv_idx {
                // Better than the iteration's first move at this depth: worth playing even if
                // the iteration is cut short before it ends.
                td.interim_best = Some(td.root_moves[i].clone());
            }
        } else {
            rm.score = -INF;
        }
        if score > best {
            best = score;
        }
        if score > alpha {
            alpha = score;
            if score >= beta {
                break;
            }
        }
    }
    best
}

/// Razoring: the deepest node it applies to, and the margin per ply below alpha.
const RAZOR_DEPTH: i32 = 3;
/// See [`RAZOR_DEPTH`].
const RAZOR_MARGIN: i32 = 250;
/// Reverse futility pruning: the deepest node it applies to.
const RFP_DEPTH: i32 = 8;

/// Exchange pruning: the deepest node, and the margins (per ply for captures, per ply squared
/// for quiet moves) an exchange may lose before the move is skipped.
const SEE_PRUNE_DEPTH: i32 = 6;
/// See [`SEE_PRUNE_DEPTH`].
const SEE_CAPTURE_MARGIN: i32 = 100;
/// See [`SEE_PRUNE_DEPTH`].
const SEE_QUIET_MARGIN: i32 = 15;

/// `ProbCut`: the shallowest node it is tried at, and its margin over beta.
const PROBCUT_DEPTH: i32 = 5;
/// See [`PROBCUT_DEPTH`].
const PROBCUT_MARGIN: i32 = 200;

/// Late-move pruning of quiet moves: the deepest node it applies to.
const LMP_DEPTH: i32 = 6;
/// Futility pruning of quiet moves: the deepest node it applies to.
const FUTILITY_DEPTH: i32 = 5;

/// Singular extensions: the shallowest node they are tried at.
const SINGULAR_DEPTH: i32 = 6;
/// How far (per ply of depth) below the hash score the other moves must stay.
const SINGULAR_MARGIN: i32 = 2;

/// Most quiet moves (and captures) remembered per node for the history penalties.
const TRIED_MAX: usize = 64;

/// The main search.
#[allow(clippy::too_many_arguments)]
pub(crate) fn negamax<const PV: bool>(
    td: &mut ThreadData,
    mut depth: i32,
    mut alpha: i32,
    mut beta: i32,
    ply: usize,
    allow_null: bool,
) -> i32 {
    if depth <= 0 {
        return qsearch::<PV>(td, alpha, beta, ply);
    }
    if PV {
        td.pv_len[ply] = ply;
    }
    if td.count_node() {
        return 0;
    }
    td.seldepth = td.seldepth.max(ply);
    if is_draw(&td.pos) {
        return 0;
    }
    // Mate-distance pruning: no line from here can beat a mate already found closer to the root.
    alpha = alpha.max(-MATE + ply as i32);
    beta = beta.min(MATE - ply as i32 - 1);
    if alpha >= beta {
        return alpha;
    }
    let shared = td.shared;
    let features = shared.features;
    let in_check = td.in_check();
    if ply >= MAX_PLY - 1 {
        return if in_check { 0 } else { td.evaluate() };
    }
    let key = td.pos.hash();
    let excluded = td.excluded[ply];
    let mut tt_move = None;
    let mut tt_hit = None;
    if features.tt
        && excluded.is_none()
        && let Some(e) = shared.tt.probe(key)
    {
        let score = score_from_tt(e.score, ply);
        tt_move = e.mv;
        tt_hit = Some((score, e.bound, e.depth));
        if !PV
            && e.depth >= depth
            && match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            }
        {
            return score;
        }
    }
    if is_decided(&td.pos) {
        return terminal_score(&td.pos, ply);
    }
    let static_eval = if in_check {
        -INF
    } else {
        let e = td.evaluate();
        // A TT bound is a better estimate than the static evaluation when it points the right way.
        match tt_hit {
            Some((s, Bound::Lower, _)) if s > e && s.abs() < MATE_BOUND => s,
            Some((s, Bound::Upper, _)) if s < e && s.abs() < MATE_BOUND => s,
            Some((s, Bound::Exact, _)) if s.abs() < MATE_BOUND => s,
            _ => e,
        }
    };
    td.eval_stack[ply] = static_eval;
    let improving = !in_check && ply >= 2 && static_eval > td.eval_stack[ply - 2];
    if !PV && !in_check && excluded.is_none() {
        // Razoring: far below alpha at a shallow node, only a tactical shot can help; when
        // quiescence finds none, trust it.
        if features.pruning && depth <= RAZOR_DEPTH && static_eval + RAZOR_MARGIN * depth < alpha {
            let v = qsearch::<false>(td, alpha, alpha + 1, ply);
            if td.stopped {
                return 0;
            }
            if v <= alpha {
                return v;
            }
        }
        if features.pruning
            && depth <= RFP_DEPTH
            && beta.abs() < MATE_BOUND
            && static_eval - 90 * (depth - i32::from(improving)) >= beta
        {
            return static_eval;
        }
        if features.null_move
            && allow_null
            && depth >= 3
            && static_eval >= beta
            && beta.abs() < MATE_BOUND
            && td.pos.variant.rules().null_move_allowed(&td.pos)
        {
            // A milder reduction than the classic 3 + depth / 4: the 10x10 armies' long-range
            // pieces and leapers hide tactics that a deeply reduced null-move search misses
            // (self-play at 15,000 nodes, null move on vs off: Opulent -35 -> 0, SOHO +47;
            // docs/BENCHMARKS.md).
            let r = 2 + depth / 6 + ((static_eval - beta) / 300).min(2);
            let undo = make_null(&mut td.pos);
            td.push_null();
            td.killers[ply + 1] = [None; 2];
            let score = -negamax::<false>(td, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
            unmake_null(&mut td.pos, &undo);
            td.pop_null();
            if td.stopped {
                return 0;
            }
            if score >= beta {
                return if score >= MATE_BOUND { beta } else { score };
            }
        }
    }
    // ProbCut: a good capture that beats beta by a margin in a reduced search very likely
    // refutes this node at full depth too.
    let probcut_beta = beta + PROBCUT_MARGIN;
    if features.pruning
        && !PV
        && !in_check
        && excluded.is_none()
        && depth >= PROBCUT_DEPTH
        && beta.abs() < MATE_BOUND
        && !tt_hit.is_some_and(|(s, _, d)| d >= depth - 3 && s < probcut_beta)
    {
        let mut list = std::mem::take(&mut td.lists[ply]);
        list.clear();
        let enemy = td.pos.by_color[!td.pos.side];
        td.pos.generate(&mut TacticalMoves {
            enemy,
            list: &mut list,
            quiet: None,
        });
        score_tactical(td, &mut list);
        let mut refutation = None;
        for i in 0..list.len() {
            let m = pick(&mut list, i).mv;
            if !see_ge(&td.pos, m, probcut_beta - static_eval, &shared.see) {
                continue;
            }
            td.play(m);
            let mut v = -qsearch::<false>(td, -probcut_beta, -probcut_beta + 1, ply + 1);
            if v >= probcut_beta {
                v = -negamax::<false>(
                    td,
                    depth - 4,
                    -probcut_beta,
                    -probcut_beta + 1,
                    ply + 1,
                    true,
                );
            }
            td.unmake();
            if td.stopped {
                td.lists[ply] = list;
                return 0;
            }
            if v >= probcut_beta {
                refutation = Some((m, v));
                break;
            }
        }
        td.lists[ply] = list;
        if let Some((m, v)) = refutation {
            if features.tt {
                shared
                    .tt
                    .store(key, Some(m), score_to_tt(v, ply), depth - 3, Bound::Lower);
            }
            return v;
        }
    }
    // Moves are generated only now: the pruning above needs none. (A stalemate can be
    // misjudged by it, as in every engine that prunes before generating; decided positions
    // were caught above.) A legal hash move is searched before the others are generated: it
    // usually refutes the node, and then generating, scoring and sorting the other 80-120
    // moves would be wasted.
    let mut hash_move = tt_move.filter(|&m| td.pos.is_legal(m));
    if excluded.is_some() {
        // The singular search revisits a node whose hash move it leaves out.
        hash_move = None;
    }
    let mut list = std::mem::take(&mut td.lists[ply]);
    list.clear();
    let mut generated = hash_move.is_none();
    if generated {
        td.pos.generate(&mut AllMoves(&mut list));
        if list.is_empty() {
            td.lists[ply] = list;
            return terminal_score(&td.pos, ply);
        }
    }
    // Internal iterative reduction: without a hash move this node is probably not important
    // enough to search at full depth, and the next visit will have a move.
    if features.pruning && tt_move.is_none() && excluded.is_none() && depth >= 4 {
        depth -= 1;
    }
    if generated {
        score_moves(td, &mut list, tt_move, ply);
    }
    td.killers[ply + 1] = [None; 2];
    let original_alpha = alpha;
    let mut best = -INF;
    let mut best_move = None;
    let filler = Move::normal(Square::new(0), Square::new(0));
    let mut quiets = [filler; TRIED_MAX];
    let mut quiet_count = 0usize;
    let mut captures = [(filler, 0usize); TRIED_MAX];
    let mut capture_count = 0usize;
    let mut searched = 0usize;
    let mut next = 0usize;
    loop {
        let m = if let Some(h) = hash_move.take() {
            h
        } else {
            if !generated {
                generated = true;
                td.pos.generate(&mut AllMoves(&mut list));
                if let Some(h) = tt_move
                    && let Some(at) = list.iter().position(|sm| sm.mv == h)
                {
                    list.swap_remove(at);
                }
                score_moves(td, &mut list, None, ply);
            }
            if next == list.len() {
                break;
            }
            next += 1;
            pick_ordered(&mut list, next - 1).mv
        };
        if Some(m) == excluded {
            continue;
        }
        let quiet = is_quiet(&td.pos, m);
        if features.pruning
            && !PV
            && !in_check
            && quiet
            && best > -MATE_BOUND
            && depth <= LMP_DEPTH
            && quiet_count >= (3 + depth * depth * 2) as usize / if improving { 1 } else { 2 }
        {
            continue;
        }
        // Exchange pruning: at shallow depth a move that loses material in the exchange on its
        // square (a capture by more than a pawn per ply, a quiet move by a growing margin) is
        // not worth a search.
        if features.pruning
            && !PV
            && !in_check
            && best > -MATE_BOUND
            && depth <= SEE_PRUNE_DEPTH
            && !see_ge(
                &td.pos,
                m,
                if quiet {
                    -SEE_QUIET_MARGIN * depth * depth
                } else {
                    -SEE_CAPTURE_MARGIN * depth
                },
                &shared.see,
            )
        {
            continue;
        }
        // Futility pruning: a quiet move that does not give check cannot lift a hopeless
        // static evaluation to alpha at low depth. Whether it checks is first asked of the
        // geometry, so most such moves are dropped without being played (they were about
        // two-thirds of all moves played in profiles).
        let futile = features.pruning
            && !PV
            && !in_check
            && quiet
            && depth <= FUTILITY_DEPTH
            && best > -MATE_BOUND
            && static_eval + 120 + 100 * depth <= alpha;
        if futile && !td.pos.move_may_give_check(m) {
            continue;
        }
        // Singular extension: when a reduced search without the hash move fails low well
        // below the hash score, the hash move is the only good one here: search it a ply
        // deeper. When even without it the node fails high over beta, cut at once
        // (multi-cut).
        let mut singular = false;
        if Some(m) == tt_move
            && excluded.is_none()
            && features.pruning
            && depth >= SINGULAR_DEPTH
            && let Some((tt_score, bound, tt_depth)) = tt_hit
            && bound != Bound::Upper
            && tt_depth >= depth - 3
            && tt_score.abs() < MATE_BOUND
        {
            let singular_beta = tt_score - SINGULAR_MARGIN * depth;
            td.excluded[ply] = Some(m);
            let v = negamax::<false>(
                td,
                (depth - 1) / 2,
                singular_beta - 1,
                singular_beta,
                ply,
                false,
            );
            td.excluded[ply] = None;
            if td.stopped {
                td.lists[ply] = list;
                return 0;
            }
            if v < singular_beta {
                singular = true;
            } else if singular_beta >= beta {
                td.lists[ply] = list;
                return singular_beta;
            }
        }
        let safe_check = features.check_extension
            && td.pos.move_may_give_check(m)
            && see_ge(&td.pos, m, 0, &shared.see);
        let gives_check = td.play(m);
        if futile && !gives_check {
            td.unmake();
            continue;
        }
        // Checks are extended only when the checking piece is not simply lost: a sacrificial
        // check of a 10x10 army (every long-range piece gives many) rarely needs the ply.
        let extend = (singular || gives_check && features.check_extension && safe_check)
            && ply < MAX_PLY / 2;
        let new_depth = depth - 1 + i32::from(extend);
        let mut score;
        if searched == 0 {
            score = -negamax::<PV>(td, new_depth, -beta, -alpha, ply + 1, true);
        } else {
            let mut r = 0;
            if features.lmr && depth >= 3 && quiet && !in_check && !gives_check && searched >= 2 {
                r = td.shared.lmr.reduction(depth, searched);
                if PV {
                    r -= 1;
                }
                if !improving {
                    r += 1;
                }
                if td.killers[ply].contains(&Some(m)) {
                    r -= 1;
                }
                r = r.clamp(0, new_depth - 1);
            }
            score = -negamax::<false>(td, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
            if score > alpha && r > 0 {
                score = -negamax::<false>(td, new_depth, -alpha - 1, -alpha, ply + 1, true);
            }
            if PV && score > alpha && score < beta {
                score = -negamax::<true>(td, new_depth, -beta, -alpha, ply + 1, true);
            }
        }
        td.unmake();
        if td.stopped {
            td.lists[ply] = list;
            return 0;
        }
        searched += 1;
        if score > best {
            best = score;
            if score > alpha {
                best_move = Some(m);
                alpha = score;
                if PV {
                    td.update_pv(ply, m);
                }
                if score >= beta {
                    update_cutoff_stats(
                        td,
                        m,
                        &quiets[..quiet_count],
                        &captures[..capture_count],
                        depth,
                        ply,
                    );
                    break;
                }
            }
        }
        if quiet {
            if quiet_count < TRIED_MAX {
                quiets[quiet_count] = m;
                quiet_count += 1;
            }
        } else if let Some(v) = captured_kind(&td.pos, m)
            && capture_count < TRIED_MAX
        {
            captures[capture_count] = (m, v);
            capture_count += 1;
        }
    }
    td.lists[ply] = list;
    if excluded.is_some() && best == -INF {
        // Only the excluded move was legal (or every other one was pruned): a fail low.
        return alpha;
    }
    if best == -INF {
        // Every move was pruned (only possible with pruning on): fall back to a fail low.
        best = alpha;
    }
    // Every move failed low: the opponent's quiet move that led here was a good one, so its
    // histories learn that too (otherwise only the quiet moves tried before a cutoff are
    // taught, and most nodes cut on their first move).
    if best <= original_alpha
        && searched > 0
        && excluded.is_none()
        && depth >= 2
        && let Some((prior, ctx, contexts)) = td.prior_quiet()
    {
        let side = !td.pos.side;
        td.hist
            .update_prior(side, prior, ctx, contexts, history_bonus(depth));
    }
    if features.tt && excluded.is_none() {
        let bound = if best >= beta {
            Bound::Lower
        } else if PV && best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        shared
            .tt
            .store(key, best_move, score_to_tt(best, ply), depth, bound);
    }
    best
}
