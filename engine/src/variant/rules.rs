//! Behaviour that cannot be expressed as data: one closed enum, matched in one place.
//!
//! The move generator, make-move and the game-status code ask these hooks; they never test a
//! variant's name. A new rule family is a new enum variant here, not `if` branches elsewhere.

use crate::geometry::Square;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::Position;
use crate::status::{GameStatus, Termination};
use crate::variant::{colour_right_bit, decima};

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
    /// Decima (RULES.md §2): no royal piece; ten points on one's tenth rank win, reaching them
    /// is "check", suicide captures on the enemy's tenth rank, last-unit rules.
    Decima,
    /// Orphic Chess (RULES.md §4): standard results, but a side whose king is not yet on the
    /// board may only capture with its board pieces, and the rights field carries the bishop
    /// drop rights `LDld`. The drop rules themselves are data ([`DropRules`](super::DropRules)).
    Orphic,
}

impl RuleSet {
    /// Whether the fifty-move rule applies.
    pub const fn fifty_move_rule(self) -> bool {
        match self {
            Self::Standard | Self::Decima | Self::Orphic => true,
        }
    }

    /// True when the game is decided before any move is generated (so the position has no
    /// legal moves at all).
    #[inline]
    pub fn game_over_before_moves(self, pos: &Position) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
            Self::Decima => decima::status_before_moves(pos).is_some(),
        }
    }

    /// The result decided at the start of the turn, before looking at the moves.
    pub fn status_before_moves(self, pos: &Position) -> Option<GameStatus> {
        match self {
            Self::Standard | Self::Orphic => None,
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
            // Until its king is dropped, a side's board pieces and pawns may only capture
            // (en passant and capturing promotions included); drops are not board moves.
            Self::Orphic => pos.royal_square(pos.side_to_move()).is_some(),
        }
    }

    /// Whether generated moves must pass [`RuleSet::allows`] in this position.
    #[inline]
    pub fn filters_moves(self, pos: &Position) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
            Self::Decima => decima::filters_moves(pos),
        }
    }

    /// Per-move rule check, asked only when [`RuleSet::filters_moves`] is true.
    #[inline]
    pub fn allows(self, pos: &Position, m: Move) -> bool {
        match self {
            Self::Standard | Self::Orphic => true,
            Self::Decima => decima::allows(pos, m),
        }
    }

    /// True when a capture by `mover` landing on `to` also removes the capturer.
    #[inline]
    pub fn capture_removes_capturer(self, mover: Color, to: Square, ranks: u8) -> bool {
        match self {
            Self::Standard | Self::Orphic => false,
            Self::Decima => decima::is_suicide_square(mover, to, ranks),
        }
    }

    /// True when the side to move counts as "in check" (royal-king variants: its king is
    /// attacked).
    pub fn in_check(self, pos: &Position) -> bool {
        match self {
            // A side whose king is still in the pocket is never in check.
            Self::Standard | Self::Orphic => pos.king_attacked(),
            Self::Decima => decima::in_check(pos),
        }
    }

    /// Why the game ended when the side to move is in check (per [`RuleSet::in_check`]) and
    /// has no legal move: the variant's name for "checkmate".
    pub const fn unanswered_check(self) -> Termination {
        match self {
            Self::Standard | Self::Orphic => Termination::Checkmate,
            Self::Decima => Termination::CheckUnanswered,
        }
    }

    /// The drop-rights bit a rights-field letter stands for (Orphic `LDld`).
    pub fn drop_right_bit(self, letter: char) -> Option<u8> {
        match self {
            Self::Standard | Self::Decima => None,
            Self::Orphic => ORPHIC_RIGHTS
                .iter()
                .find(|(l, _, _)| *l == letter)
                .map(|&(_, color, light)| colour_right_bit(color, light)),
        }
    }

    /// The rights-field letters for a drop-rights set.
    pub fn drop_rights_text(self, rights: u8) -> String {
        match self {
            Self::Standard | Self::Decima => String::new(),
            Self::Orphic => ORPHIC_RIGHTS
                .iter()
                .filter(|&&(_, color, light)| rights & colour_right_bit(color, light) != 0)
                .map(|&(letter, _, _)| letter)
                .collect(),
        }
    }
}
