//! Perft: counting leaf nodes of the legal move tree, the standard move-generator test.
//!
//! The last ply is bulk-counted (legal moves counted, not played), as Fairy-Stockfish counts.

use crate::moves::Move;
use crate::position::Position;

/// Number of leaf nodes at `depth` plies.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let moves = pos.legal_moves();
            let mut nodes = 0;
            for m in moves {
                pos.play_unchecked(m);
                nodes += perft(pos, depth - 1);
                pos.unmake();
            }
            nodes
        }
    }
}

/// Perft split by root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = pos.legal_moves();
    moves
        .into_iter()
        .map(|m| {
            pos.play_unchecked(m);
            let n = perft(pos, depth - 1);
            pos.unmake();
            (m, n)
        })
        .collect()
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
