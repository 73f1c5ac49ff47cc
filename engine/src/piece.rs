//! Colours, piece kinds and pieces.
//!
//! A [`PieceKind`] is an index into its variant's piece table, not a fixed enum: the variant
//! spec says what each kind is called and how it moves.

use std::num::NonZeroU8;
use std::ops::{Index, IndexMut, Not};

/// Most piece kinds a variant may define (pawn and king included).
pub(crate) const MAX_KINDS: usize = 16;

/// Side to move / owner of a piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    /// The side that starts at the bottom (rank 1).
    White = 0,
    /// The side that starts at the top.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Self; 2] = [Self::White, Self::Black];

    /// 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `'w'` or `'b'`, as in FEN.
    pub const fn fen_char(self) -> char {
        match self {
            Self::White => 'w',
            Self::Black => 'b',
        }
    }

    /// +1 for White (moves up the board), -1 for Black.
    #[inline]
    pub const fn forward(self) -> i8 {
        match self {
            Self::White => 1,
            Self::Black => -1,
        }
    }

    /// The absolute rank (0-based) of a rank counted from this side's own edge.
    #[inline]
    pub const fn relative_rank(self, rank: u8, ranks: u8) -> u8 {
        match self {
            Self::White => rank,
            Self::Black => ranks - 1 - rank,
        }
    }
}

impl Not for Color {
    type Output = Self;
    #[inline]
    fn not(self) -> Self {
        match self {
            Self::White => Self::Black,
            Self::Black => Self::White,
        }
    }
}

/// One value per colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct ByColor<T>(pub [T; 2]);

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, c: Color) -> &T {
        &self.0[c.index()]
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, c: Color) -> &mut T {
        &mut self.0[c.index()]
    }
}

/// A piece kind: an index into the variant's piece table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct PieceKind(pub u8);

impl PieceKind {
    /// Index into per-kind tables.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A coloured piece, packed into one non-zero byte so `Option<Piece>` is one byte too.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece(NonZeroU8);

impl Piece {
    /// The piece of `color` and `kind`.
    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Self {
        match NonZeroU8::new(((kind.0 + 1) << 1) | color as u8) {
            Some(v) => Self(v),
            None => unreachable!(),
        }
    }

    /// The owner.
    #[inline]
    pub const fn color(self) -> Color {
        if self.0.get() & 1 == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The kind.
    #[inline]
    pub const fn kind(self) -> PieceKind {
        PieceKind((self.0.get() >> 1) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_pack_and_unpack() {
        for k in 0..MAX_KINDS as u8 {
            for c in Color::ALL {
                let p = Piece::new(c, PieceKind(k));
                assert_eq!((p.color(), p.kind()), (c, PieceKind(k)));
            }
        }
        assert_eq!(size_of::<Option<Piece>>(), 1);
    }
}
