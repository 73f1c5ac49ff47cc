//! Quiescence search: captures and promotions until the position is quiet; when in check, every
//! capturing evasion and the quiet evasions until one has shown the side is not mated.
//!
//! Which moves count as "tactical" is decided by [`TacticalMoves`]; a variant whose quiet moves
//! can be decisive (Decima's relieving captures are captures already; its tenth-rank threats
//! are not) can widen that set there without touching this function.

use crate::search::ordering::{
    AllMoves, QuietFilter, TacticalMoves, captured_kind, is_quiet, pick, score_moves,
    score_tactical,
};
use crate::search::score::{
    INF, MATE_BOUND, is_decided, score_from_tt, score_to_tt, terminal_score,
};
use crate::search::see::see_ge;
use crate::search::threads::{MAX_PLY, ThreadData};
use crate::search::tt::Bound;

/// Margin for delta pruning: a capture that cannot lift the score near alpha is skipped.
const DELTA_MARGIN: i32 = 200;

/// Quiescence search of the node at `ply`.
pub(crate) fn qsearch<const PV: bool>(
    td: &mut ThreadData,
    mut alpha: i32,
    beta: i32,
    ply: usize,
) -> i32 {
    if td.count_node() {
        return 0;
    }
    if PV {
        td.pv_len[ply] = ply;
    }
    td.seldepth = td.seldepth.max(ply);
    if is_decided(&td.pos) {
        return terminal_score(&td.pos, ply);
    }
    let in_check = td.in_check();
    if ply >= MAX_PLY - 1 {
        return if in_check { 0 } else { td.evaluate() };
    }
    let shared = td.shared;
    let key = td.pos.hash();
    let mut tt_move = None;
    if shared.features.tt
        && let Some(e) = shared.tt.probe(key)
    {
        let score = score_from_tt(e.score, ply);
        tt_move = e.mv;
        if !PV
            && match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            }
        {
            return score;
        }
    }
    let mut list = std::mem::take(&mut td.lists[ply]);
    list.clear();
    let mut best;
    let stand_pat;
    if in_check {
        td.pos.generate(&mut AllMoves(&mut list));
        if list.is_empty() {
            td.lists[ply] = list;
            return terminal_score(&td.pos, ply);
        }
        score_moves(td, &mut list, tt_move, ply);
        best = -INF;
        stand_pat = -INF;
    } else {
        stand_pat = td.evaluate();
        if stand_pat >= beta {
            td.lists[ply] = list;
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        best = stand_pat;
        let enemy = td.pos.by_color[!td.pos.side];
        let hook = if shared.features.quiet_hook {
            td.pos.variant.rules().quiet_tactical_hook()
        } else {
            None
        };
        td.pos.generate(&mut TacticalMoves {
            enemy,
            list: &mut list,
            quiet: hook.map(|h| QuietFilter::new(h, &td.pos)),
        });
        score_tactical(td, &mut list);
    }
    let original_alpha = alpha;
    let mut best_move = None;
    let mut quiet_evasion_searched = false;
    for i in 0..list.len() {
        let m = pick(&mut list, i).mv;
        if in_check && is_quiet(&td.pos, m) {
            // Once one quiet evasion has shown the side is not mated, the other quiet
            // evasions (a 10x10 army has many interpositions) rarely change the score.
            if quiet_evasion_searched && best > -MATE_BOUND {
                continue;
            }
            quiet_evasion_searched = true;
        }
        if !in_check {
            let victim = captured_kind(&td.pos, m);
            let gain = victim.map_or(0, |k| shared.evaluator.value(k))
                + m.promotion_kind()
                    .map_or(0, |k| shared.evaluator.value(k.index()));
            if stand_pat + gain + DELTA_MARGIN <= alpha {
                continue;
            }
            // A capture that loses material in the exchange cannot raise the score.
            if !see_ge(&td.pos, m, 0, &shared.see) {
                continue;
            }
        }
        td.play(m);
        let score = -qsearch::<PV>(td, -beta, -alpha, ply + 1);
        td.unmake();
        if td.stopped {
            td.lists[ply] = list;
            return 0;
        }
        if score > best {
            best = score;
            if score > alpha {
                best_move = Some(m);
                alpha = score;
                if PV {
                    td.update_pv(ply, m);
                }
                if score >= beta {
                    break;
                }
            }
        }
    }
    td.lists[ply] = list;
    if in_check && best == -INF {
        // Every evasion was pruned: cannot happen (no pruning in check), but stay safe.
        best = -MATE_BOUND;
    }
    if shared.features.tt {
        let bound = if best >= beta {
            Bound::Lower
        } else if PV && best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        shared
            .tt
            .store(key, best_move, score_to_tt(best, ply), 0, bound);
    }
    best
}
