//! Orthodox-style rules (chess, Opulent, SOHO): checkmate wins, stalemate draws, repetition and
//! fifty-move draws.
//!
//! Most of this family's hooks are the plain answers in `rules/mod.rs` (every quiet move
//! allowed, no move filter, no suicide captures, checkmate as the name for an unanswered
//! check); the hooks with a body are here. Orphic shares the check test.

use crate::position::Position;
use crate::rules::EvalFamily;
use crate::variant::Variant;

/// The side to move is in check when it has a royal king on the board and that king is
/// attacked.
#[inline]
pub(crate) fn in_check(pos: &Position) -> bool {
    pos.king_attacked()
}

/// A null move is sound enough when the side to move has a royal king (no zugzwang safety net
/// otherwise) and some piece besides pawns and king.
pub(crate) fn null_move_allowed(pos: &Position) -> bool {
    let us = pos.side_to_move();
    if pos.royal_square(us).is_none() {
        return false;
    }
    let v = pos.variant();
    let mut minor = pos.pieces_by_color(us);
    if let Some(p) = v.pawn_kind() {
        minor &= !pos.pieces_by_kind(p);
    }
    if let Some(k) = v.royal_kind() {
        minor &= !pos.pieces_by_kind(k);
    }
    minor.any()
}

/// The orthodox terms need a royal king (king safety); without one, only material and
/// piece-square terms.
pub(crate) fn eval_family(variant: &Variant) -> EvalFamily {
    if variant.royal_kind().is_some() {
        EvalFamily::Orthodox
    } else {
        EvalFamily::Generic
    }
}
