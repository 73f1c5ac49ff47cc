//! Behaviour that cannot be expressed as data: one closed enum, matched in one place.
//!
//! The move generator, make-move and the game-status code ask these hooks; they never test a
//! variant's name. A new rule family is a new enum variant here, not `if` branches elsewhere.

use crate::geometry::Square;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::Position;
use crate::status::{GameStatus, Termination};
use crate::variant::decima;

/// The rule family of a variant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RuleSet {
    /// Orthodox-style rules: checkmate wins, stalemate draws, repetition and fifty-move draws.
    Standard,
    /// Decima (RULES.md §2): no royal piece; ten points on one's tenth rank win, reaching them
    /// is "check", suicide captures on the enemy's tenth rank, last-unit rules.
    Decima,
}

impl RuleSet {
    /// Whether the fifty-move rule applies.
    pub const fn fifty_move_rule(self) -> bool {
        match self {
            Self::Standard | Self::Decima => true,
        }
    }

    /// True when the game is decided before any move is generated (so the position has no
    /// legal moves at all).
    #[inline]
    pub fn game_over_before_moves(self, pos: &Position) -> bool {
        match self {
            Self::Standard => false,
            Self::Decima => decima::status_before_moves(pos).is_some(),
        }
    }

    /// The result decided at the start of the turn, before looking at the moves.
    pub fn status_before_moves(self, pos: &Position) -> Option<GameStatus> {
        match self {
            Self::Standard => None,
            Self::Decima => decima::status_before_moves(pos),
        }
    }

    /// Whether non-capturing board moves are allowed for the side to move.
    #[inline]
    pub fn quiet_moves_allowed(self, pos: &Position) -> bool {
        match self {
            Self::Standard => true,
            // In check only a capture can lower the opponent's score.
            Self::Decima => !decima::in_check(pos),
        }
    }

    /// Whether generated moves must pass [`RuleSet::allows`] in this position.
    #[inline]
    pub fn filters_moves(self, pos: &Position) -> bool {
        match self {
            Self::Standard => false,
            Self::Decima => decima::filters_moves(pos),
        }
    }

    /// Per-move rule check, asked only when [`RuleSet::filters_moves`] is true.
    #[inline]
    pub fn allows(self, pos: &Position, m: Move) -> bool {
        match self {
            Self::Standard => true,
            Self::Decima => decima::allows(pos, m),
        }
    }

    /// True when a capture by `mover` landing on `to` also removes the capturer.
    #[inline]
    pub fn capture_removes_capturer(self, mover: Color, to: Square, ranks: u8) -> bool {
        match self {
            Self::Standard => false,
            Self::Decima => decima::is_suicide_square(mover, to, ranks),
        }
    }

    /// True when the side to move counts as "in check" (royal-king variants: its king is
    /// attacked).
    pub fn in_check(self, pos: &Position) -> bool {
        match self {
            Self::Standard => pos.king_attacked(),
            Self::Decima => decima::in_check(pos),
        }
    }

    /// Why the game ended when the side to move is in check (per [`RuleSet::in_check`]) and
    /// has no legal move: the variant's name for "checkmate".
    pub const fn unanswered_check(self) -> Termination {
        match self {
            Self::Standard => Termination::Checkmate,
            Self::Decima => Termination::CheckUnanswered,
        }
    }

    /// The drop-rights bit a rights-field letter stands for (Orphic `LDld`).
    pub fn drop_right_bit(self, _letter: char) -> Option<u8> {
        match self {
            Self::Standard | Self::Decima => None,
        }
    }

    /// The rights-field letters for a drop-rights set.
    pub fn drop_rights_text(self, _rights: u8) -> String {
        match self {
            Self::Standard | Self::Decima => String::new(),
        }
    }
}
