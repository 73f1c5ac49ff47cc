//! Behaviour that cannot be expressed as data: one closed enum, matched in one place.
//!
//! The move generator, make-move and the game-status code ask these hooks; they never test a
//! variant's name. A new rule family is a new enum variant here, not `if` branches elsewhere.

use crate::geometry::Square;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::Position;
use crate::status::GameStatus;

/// The rule family of a variant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RuleSet {
    /// Orthodox-style rules: checkmate wins, stalemate draws, repetition and fifty-move draws.
    Standard,
}

impl RuleSet {
    /// Whether the fifty-move rule applies.
    pub const fn fifty_move_rule(self) -> bool {
        match self {
            Self::Standard => true,
        }
    }

    /// True when the game is decided before any move is generated (so the position has no
    /// legal moves at all).
    #[inline]
    pub fn game_over_before_moves(self, _pos: &Position) -> bool {
        match self {
            Self::Standard => false,
        }
    }

    /// The result decided at the start of the turn, before looking at the moves.
    pub fn status_before_moves(self, _pos: &Position) -> Option<GameStatus> {
        match self {
            Self::Standard => None,
        }
    }

    /// Whether non-capturing board moves are allowed for the side to move.
    #[inline]
    pub fn quiet_moves_allowed(self, _pos: &Position) -> bool {
        match self {
            Self::Standard => true,
        }
    }

    /// Whether generated moves must pass [`RuleSet::allows`] in this position.
    #[inline]
    pub fn filters_moves(self, _pos: &Position) -> bool {
        match self {
            Self::Standard => false,
        }
    }

    /// Per-move rule check, asked only when [`RuleSet::filters_moves`] is true.
    #[inline]
    pub fn allows(self, _pos: &Position, _m: Move) -> bool {
        match self {
            Self::Standard => true,
        }
    }

    /// True when a capture by `mover` landing on `to` also removes the capturer.
    #[inline]
    pub fn capture_removes_capturer(self, _mover: Color, _to: Square, _ranks: u8) -> bool {
        match self {
            Self::Standard => false,
        }
    }

    /// True when the side to move counts as "in check" (royal-king variants: its king is
    /// attacked).
    pub fn in_check(self, pos: &Position) -> bool {
        match self {
            Self::Standard => pos.king_attacked(),
        }
    }

    /// The drop-rights bit a rights-field letter stands for (Orphic `LDld`).
    pub fn drop_right_bit(self, _letter: char) -> Option<u8> {
        match self {
            Self::Standard => None,
        }
    }

    /// The rights-field letters for a drop-rights set.
    pub fn drop_rights_text(self, _rights: u8) -> String {
        match self {
            Self::Standard => String::new(),
        }
    }
}
