//! Behaviour that cannot be expressed as data: one closed enum, matched in one place.
//!
//! The move generator, make-move and the game-status code ask these hooks; they never test a
//! variant's name. A new rule family is a new enum variant here, not `if` branches elsewhere.

use crate::geometry::Square;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::Position;
use crate::status::GameStatus;
use crate::variant::colour_right_bit;

/// Orphic rights-field letters in the order they are written: White may still drop a bishop on
/// a light / dark square, then the same for Black (RULES.md §4 ruling).
const ORPHIC_RIGHTS: [(char, Color, bool); 4] = [
    ('L', Color::White, true),
    ('D', Color::White, false),
    ('l', Color::Black, true),
    ('d', Color::Black, false),
];

/// The rule family of a variant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RuleSet {
    /// Orthodox-style rules: checkmate wins, stalemate draws, repetition and fifty-move draws.
    Standard,
    /// Orphic Chess (RULES.md §4): standard results, but a side whose king is not yet on the
    /// board may only capture with its board pieces, and the rights field carries the bishop
    /// drop rights `LDld`. The drop rules themselves are data ([`DropRules`](super::DropRules)).
    Orphic,
}

impl RuleSet {
    /// Whether the fifty-move rule applies.
    pub const fn fifty_move_rule(self) -> bool {
        match self {
            Self::Standard | Self::Orphic => true,
        }
    }

    /// True when the game is decided before any move is generated (so the position has no
    /// legal moves at all).
    #[inline]
    pub fn game_over_before_moves(self, _pos: &Position) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
        }
    }

    /// The result decided at the start of the turn, before looking at the moves.
    pub fn status_before_moves(self, _pos: &Position) -> Option<GameStatus> {
        match self {
            Self::Standard | Self::Orphic => None,
        }
    }

    /// Whether non-capturing board moves are allowed for the side to move.
    #[inline]
    pub fn quiet_moves_allowed(self, pos: &Position) -> bool {
        match self {
            Self::Standard => true,
            // Until its king is dropped, a side's board pieces and pawns may only capture
            // (en passant and capturing promotions included); drops are not board moves.
            Self::Orphic => pos.royal_square(pos.side_to_move()).is_some(),
        }
    }

    /// Whether generated moves must pass [`RuleSet::allows`] in this position.
    #[inline]
    pub fn filters_moves(self, _pos: &Position) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
        }
    }

    /// Per-move rule check, asked only when [`RuleSet::filters_moves`] is true.
    #[inline]
    pub fn allows(self, _pos: &Position, _m: Move) -> bool {
        match self {
            Self::Standard | Self::Orphic => true,
        }
    }

    /// True when a capture by `mover` landing on `to` also removes the capturer.
    #[inline]
    pub fn capture_removes_capturer(self, _mover: Color, _to: Square, _ranks: u8) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
        }
    }

    /// True when the side to move counts as "in check" (royal-king variants: its king is
    /// attacked).
    pub fn in_check(self, pos: &Position) -> bool {
        match self {
            // A side whose king is still in the pocket is never in check.
            Self::Standard | Self::Orphic => pos.king_attacked(),
        }
    }

    /// The drop-rights bit a rights-field letter stands for (Orphic `LDld`).
    pub fn drop_right_bit(self, letter: char) -> Option<u8> {
        match self {
            Self::Standard => None,
            Self::Orphic => ORPHIC_RIGHTS
                .iter()
                .find(|(l, _, _)| *l == letter)
                .map(|&(_, color, light)| colour_right_bit(color, light)),
        }
    }

    /// The rights-field letters for a drop-rights set.
    pub fn drop_rights_text(self, rights: u8) -> String {
        match self {
            Self::Standard => String::new(),
            Self::Orphic => ORPHIC_RIGHTS
                .iter()
                .filter(|&&(_, color, light)| rights & colour_right_bit(color, light) != 0)
                .map(|&(letter, _, _)| letter)
                .collect(),
        }
    }
}
