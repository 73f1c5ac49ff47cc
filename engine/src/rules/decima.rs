//! Decima's rules (RULES.md §2, contest version), called from the [`RuleSet::Decima`] arms of
//! `rules/mod.rs`: the turn-start results, "check" by ten points and its relieving captures,
//! suicide captures on the enemy's tenth rank, the last-unit rules, and the quiet moves
//! quiescence must not skip.
//!
//! Nothing here is cached: the score is a sum over at most ten squares, cheaper than keeping it
//! up to date in make/unmake for every variant.
//!
//! The hooks called once per node are `#[inline(never)]`: inlined, they grew the shared
//! generator enough to cost the standard variants about 1.4% of perft instructions
//! (callgrind, Opulent perft 4); out of line they cost Decima one call per node.
//!
//! [`RuleSet::Decima`]: crate::RuleSet::Decima

use crate::bitboard::Bitboard;
use crate::geometry::Square;
use crate::moves::{Move, MoveKind};
use crate::outcome::{GameStatus, Termination};
use crate::piece::Color;
use crate::position::Position;
use crate::rules::{QuietHook, RuleRefusal};

/// Points on one's tenth rank that win at the start of one's turn, and give "check" when a
/// move reaches them.
pub(crate) const WINNING_SCORE: u32 = 10;

/// The result decided at the start of the turn, in the order RULES.md §2 gives: the side to
/// move has no units (loss), its own score is 10+ (win), the opponent has no units (win; only
/// in a hand-made FEN). "Check" with no answer and stalemate are found from the moves.
///
/// In play the ten-point win is reached only through a hand-made FEN too: a move that reaches
/// ten points leaves the opponent either a relieving capture (every legal move is one) or no
/// move at all, which ends the game as [`Termination::CheckUnanswered`] first.
#[inline(never)]
pub(crate) fn status_before_moves(pos: &Position) -> Option<GameStatus> {
    let us = pos.side_to_move();
    let finished = |winner: Color, reason: Termination| {
        Some(GameStatus::Finished {
            winner: Some(winner),
            reason,
        })
    };
    if pos.pieces_by_color(us).is_empty() {
        finished(!us, Termination::LastUnitCaptured)
    } else if pos.score(us) >= WINNING_SCORE {
        finished(us, Termination::TenPoints)
    } else if pos.pieces_by_color(!us).is_empty() {
        finished(us, Termination::LastUnitCaptured)
    } else {
        None
    }
}

/// The side to move is in "check" when the opponent has 10+ points on the opponent's tenth
/// rank.
#[inline(never)]
pub(crate) fn in_check(pos: &Position) -> bool {
    pos.score(!pos.side_to_move()) >= WINNING_SCORE
}

/// A capture by `mover` landing on the enemy's tenth rank (the mover's own first rank)
/// removes the capturer too.
#[inline]
pub(crate) fn is_suicide_square(mover: Color, to: Square, ranks: u8) -> bool {
    to.rank() == mover.relative_rank(0, ranks)
}

/// Moves need the per-move check only in check (only relieving captures) or when the side to
/// move is down to one unit (a suicide capture with it may be illegal). Both tests are a few
/// bit operations, so ordinary positions keep the unfiltered generator.
#[inline(never)]
pub(crate) fn filters_moves(pos: &Position) -> bool {
    !pos.pieces_by_color(pos.side_to_move()).more_than_one() || in_check(pos)
}

/// The per-move rule, asked when [`filters_moves`] is true.
#[inline(never)]
pub(crate) fn allows(pos: &Position, m: Move) -> bool {
    let us = pos.side_to_move();
    let ranks = pos.variant().ranks();
    // Only a plain capture can be a suicide or lower the opponent's score: promotions land on
    // our own tenth rank, and en passant takes a pawn (0 points) off a middle rank.
    let (suicide, captured_points) = match m.kind() {
        MoveKind::Normal { to, .. } => match pos.piece_at(to) {
            Some(victim) => (
                is_suicide_square(us, to, ranks),
                u32::from(pos.variant().piece(victim.kind()).points),
            ),
            None => (false, 0),
        },
        _ => (false, 0),
    };
    if in_check(pos) {
        // Every capture on the opponent's tenth rank is a suicide capture, so `suicide` also
        // says the victim stood there and counted towards the score.
        if !suicide || pos.score(!us).saturating_sub(captured_points) >= WINNING_SCORE {
            return false;
        }
    }
    // A suicide capture with one's own last unit is legal only when it takes the opponent's
    // last unit too (and then wins).
    !(suicide
        && !pos.pieces_by_color(us).more_than_one()
        && pos.pieces_by_color(!us).more_than_one())
}

/// Why [`allows`] refuses `m`, if it does: in check the move does not relieve it, otherwise it
/// is a suicide capture with the last unit.
pub(crate) fn refusal(pos: &Position, m: Move) -> Option<RuleRefusal> {
    (filters_moves(pos) && !allows(pos, m)).then(|| {
        if in_check(pos) {
            RuleRefusal::CheckNotAnswered
        } else {
            RuleRefusal::LastUnitSuicide
        }
    })
}

/// Quiescence's hook: moves onto the tenth rank change a side's score, and reaching ten
/// points is "check", so quiescence searches them although they are quiet.
pub(crate) const QUIET_HOOK: QuietHook = QuietHook {
    squares: quiet_hook_squares,
    keep: quiet_hook_keeps,
};

/// The empty squares of the mover's tenth rank. Captures there are kept anyway, and a
/// pawn reaching it promotes, so only piece moves are new.
fn quiet_hook_squares(pos: &Position) -> Bitboard {
    let v = pos.variant();
    let side = pos.side_to_move();
    let tenth = Bitboard::rank(side.relative_rank(v.ranks() - 1, v.ranks()), v.files());
    tenth & !pos.occupied()
}

/// Every move onto the tenth rank from off it (a move along the rank leaves the score
/// as it is). Each one changes a side's score, the term the evaluation weighs most, and the
/// ones that reach ten points are "check", which the opponent must answer by a capture at
/// once; a stand-pat score that ignores them is wrong by a game. There are few such moves
/// per node (the squares filter drops the rest in bulk), and a piece enters the rank once, so
/// quiescence stays finite.
fn quiet_hook_keeps(pos: &Position, m: Move) -> bool {
    let ranks = pos.variant().ranks();
    m.from()
        .is_some_and(|from| from.rank() != pos.side_to_move().relative_rank(ranks - 1, ranks))
}
