//! Orphic Chess (RULES.md §4): the orthodox army on 8x8, every piece but the pawns starting in
//! the pocket.
//!
//! The drops themselves are data of the spec ([`DropRules`](crate::DropRules): relocation onto
//! a friendly pawn, colour-bound bishops, the king's drop ranks) and the generic move generator
//! reads them. What is not data is here: a side whose king is not yet on the board may only
//! capture with its board pieces, and the FEN rights field writes the bishops' drop rights as
//! `LDld`. Results are the standard ones (`standard.rs`).

use crate::piece::Color;
use crate::position::Position;
use crate::variant::colour_right_bit;

/// Rights-field letters in the order they are written: White may still drop a bishop on a
/// light / dark square, then the same for Black (RULES.md §4 ruling).
const RIGHTS: [(char, Color, bool); 4] = [
    ('L', Color::White, true),
    ('D', Color::White, false),
    ('l', Color::Black, true),
    ('d', Color::Black, false),
];

/// Until its king is dropped, a side's board pieces and pawns may only capture (en passant and
/// capturing promotions included); drops are not board moves.
#[inline]
pub(crate) fn quiet_moves_allowed(pos: &Position) -> bool {
    pos.royal_square(pos.side_to_move()).is_some()
}

/// The drop-rights bit a rights-field letter stands for.
pub(crate) fn drop_right_bit(letter: char) -> Option<u8> {
    RIGHTS
        .iter()
        .find(|(l, _, _)| *l == letter)
        .map(|&(_, color, light)| colour_right_bit(color, light))
}

/// The rights-field letters for a drop-rights set.
pub(crate) fn drop_rights_text(rights: u8) -> String {
    RIGHTS
        .iter()
        .filter(|&&(_, color, light)| rights & colour_right_bit(color, light) != 0)
        .map(|&(letter, _, _)| letter)
        .collect()
}
