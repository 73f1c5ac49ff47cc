//! Behaviour that cannot be expressed as data: the hooks of each rule family.
//!
//! A variant names its family with the [`RuleSet`] tag of its spec. Every hook below is one
//! exhaustive `match` on that tag (no `_` arm, so a new family must answer each one), and each
//! family's code is in its own file: [`standard`] (orthodox rules, which most arms share),
//! [`decima`] and [`orphic`]. The move generator, make-move, the game status, the evaluation
//! and the search ask these hooks; nothing outside this directory branches on the family.

pub(crate) mod decima;
pub(crate) mod orphic;
pub(crate) mod standard;

use crate::bitboard::Bitboard;
use crate::geometry::Square;
use crate::moves::Move;
use crate::outcome::{GameStatus, Termination};
use crate::piece::Color;
use crate::position::Position;
use crate::variant::{RuleSet, Variant};

/// Quiet moves that quiescence must search anyway, for rule families whose quiet moves can
/// decide the game at once (Decima's moves onto the tenth rank).
///
/// The hook is two functions so that the search's move sink can drop most quiet moves in bulk:
/// `squares` is asked once per node for the destinations worth a look, and `keep` only for
/// quiet moves landing there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuietHook {
    /// Destinations a quiet move must land on to be offered to `keep` (once per node).
    pub(crate) squares: fn(&Position) -> Bitboard,
    /// Whether a quiet move landing on one of `squares` must be searched.
    pub(crate) keep: fn(&Position, Move) -> bool,
}

/// Why a rule family refuses a move its pieces' movement allows: what move parsing reports
/// (as an `IllegalReason` of `notation/refusal.rs`) when such a move is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuleRefusal {
    /// Orphic: until a side's king is on the board its board pieces may only capture.
    CapturesOnlyBeforeKing,
    /// Decima: in "check" only a capture that brings the opponent's score below ten counts.
    CheckNotAnswered,
    /// Decima: a suicide capture with one's own last unit that does not take the opponent's.
    LastUnitSuicide,
}

/// Which terms the evaluation of a variant is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvalFamily {
    /// Royal king, checkmate wins: material, PST and the orthodox terms (pawn structure,
    /// files, mobility, king danger, threats).
    Orthodox,
    /// Decima: material, PST, the orthodox terms but king danger (no piece is royal) and the
    /// race to ten points.
    Decima,
    /// Drops (Orphic): material (pocket included), PST, the orthodox terms and the drop-phase
    /// terms.
    Drops,
    /// Material and piece-square terms only (a standard variant without a royal king).
    Generic,
}

impl EvalFamily {
    /// Whether the family's evaluation has the orthodox terms (every family but the generic
    /// one): the parameter layout and the evaluator both ask this.
    pub(crate) fn has_orthodox_terms(self) -> bool {
        self != Self::Generic
    }
}

impl RuleSet {
    /// Whether the fifty-move rule applies.
    pub(crate) const fn fifty_move_rule(self) -> bool {
        match self {
            Self::Standard | Self::Decima | Self::Orphic => true,
        }
    }

    /// True when the game is decided before any move is generated (so the position has no
    /// legal moves at all).
    #[inline]
    pub(crate) fn game_over_before_moves(self, pos: &Position) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
            Self::Decima => decima::status_before_moves(pos).is_some(),
        }
    }

    /// The result decided at the start of the turn, before looking at the moves.
    pub(crate) fn status_before_moves(self, pos: &Position) -> Option<GameStatus> {
        match self {
            Self::Standard | Self::Orphic => None,
            Self::Decima => decima::status_before_moves(pos),
        }
    }

    /// Whether non-capturing board moves are allowed for the side to move.
    #[inline]
    pub(crate) fn quiet_moves_allowed(self, pos: &Position) -> bool {
        match self {
            Self::Standard => true,
            // In check only a capture can lower the opponent's score.
            Self::Decima => !decima::in_check(pos),
            Self::Orphic => orphic::quiet_moves_allowed(pos),
        }
    }

    /// Why quiet board moves are refused when [`RuleSet::quiet_moves_allowed`] says no (asked
    /// only to explain a refused move).
    pub(crate) const fn quiet_refusal(self) -> Option<RuleRefusal> {
        match self {
            Self::Standard => None,
            Self::Decima => Some(RuleRefusal::CheckNotAnswered),
            Self::Orphic => Some(RuleRefusal::CapturesOnlyBeforeKing),
        }
    }

    /// Why the per-move rule ([`RuleSet::allows`]) refuses `m` here, if it does (asked only to
    /// explain a refused move).
    pub(crate) fn move_refusal(self, pos: &Position, m: Move) -> Option<RuleRefusal> {
        match self {
            Self::Standard | Self::Orphic => None,
            Self::Decima => decima::refusal(pos, m),
        }
    }

    /// Whether generated moves must pass [`RuleSet::allows`] in this position.
    #[inline]
    pub(crate) fn filters_moves(self, pos: &Position) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
            Self::Decima => decima::filters_moves(pos),
        }
    }

    /// Per-move rule check, asked only when [`RuleSet::filters_moves`] is true.
    #[inline]
    pub(crate) fn allows(self, pos: &Position, m: Move) -> bool {
        match self {
            Self::Standard | Self::Orphic => true,
            Self::Decima => decima::allows(pos, m),
        }
    }

    /// True when a capture by `mover` landing on `to` also removes the capturer.
    #[inline]
    pub(crate) fn capture_removes_capturer(self, mover: Color, to: Square, ranks: u8) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
            Self::Decima => decima::is_suicide_square(mover, to, ranks),
        }
    }

    /// True when the side to move counts as "in check".
    pub(crate) fn in_check(self, pos: &Position) -> bool {
        match self {
            // Orphic: a side whose king is still in the pocket is never in check, which the
            // standard test (no royal king on the board, no check) already gives.
            Self::Standard | Self::Orphic => standard::in_check(pos),
            Self::Decima => decima::in_check(pos),
        }
    }

    /// True when "in check" means that the side's royal king is attacked, so that attack
    /// geometry alone decides whether a move checks (the search's and SAN's shortcuts).
    pub(crate) const fn check_is_king_attack(self) -> bool {
        match self {
            Self::Standard | Self::Orphic => true,
            Self::Decima => false,
        }
    }

    /// Why the game ended when the side to move is in check (per [`RuleSet::in_check`]) and
    /// has no legal move: the variant's name for "checkmate".
    pub(crate) const fn unanswered_check(self) -> Termination {
        match self {
            Self::Standard | Self::Orphic => Termination::Checkmate,
            Self::Decima => Termination::CheckUnanswered,
        }
    }

    /// The drop-rights bit a rights-field letter stands for (Orphic `LDld`).
    pub(crate) fn drop_right_bit(self, letter: char) -> Option<u8> {
        match self {
            Self::Standard | Self::Decima => None,
            Self::Orphic => orphic::drop_right_bit(letter),
        }
    }

    /// The rights-field letters for a drop-rights set.
    pub(crate) fn drop_rights_text(self, rights: u8) -> String {
        match self {
            Self::Standard | Self::Decima => String::new(),
            Self::Orphic => orphic::drop_rights_text(rights),
        }
    }

    /// True when a null move is sound enough here for the search to try null-move pruning.
    pub(crate) fn null_move_allowed(self, pos: &Position) -> bool {
        match self {
            Self::Standard => standard::null_move_allowed(pos),
            // Families opt in explicitly; only the orthodox one has so far.
            Self::Decima | Self::Orphic => false,
        }
    }

    /// The quiescence hook of the family, if its quiet moves can decide the game at once.
    pub(crate) const fn quiet_tactical_hook(self) -> Option<QuietHook> {
        match self {
            Self::Standard | Self::Orphic => None,
            Self::Decima => Some(decima::QUIET_HOOK),
        }
    }

    /// Which evaluation terms suit `variant` (whose family this is).
    pub(crate) fn eval_family(self, variant: &Variant) -> EvalFamily {
        match self {
            Self::Standard => standard::eval_family(variant),
            Self::Decima => EvalFamily::Decima,
            Self::Orphic => EvalFamily::Drops,
        }
    }
}
