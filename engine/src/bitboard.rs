//! `Bitboard(u128)`: a set of squares in the 10x10 index space, for every board size.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use crate::geometry::{BoardSize, SQUARE_COUNT, STRIDE, Square};

/// A set of squares; bit `i` is the square with index `i`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Self = Self(0);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Self {
        Self(1u128 << sq.index())
    }

    /// Every square of a board of the given size.
    pub const fn board(size: BoardSize) -> Self {
        let mut bits = 0u128;
        let mut r = 0;
        while r < size.ranks {
            let mut f = 0;
            while f < size.files {
                bits |= 1u128 << (r * STRIDE + f);
                f += 1;
            }
            r += 1;
        }
        Self(bits)
    }

    /// Every square on rank `rank` (0-based) of a board with `files` files.
    pub const fn rank(rank: u8, files: u8) -> Self {
        Self(
            (((1u128 << files) - 1) << (rank as u32 * STRIDE as u32))
                & ((1u128 << SQUARE_COUNT) - 1),
        )
    }

    /// True when no square is set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when at least one square is set.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// True when `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// Number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True when more than one square is set.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new(self.0.trailing_zeros() as u8))
        }
    }

    /// The lowest square; the set must not be empty.
    #[inline]
    pub const fn lsb(self) -> Square {
        Square::new(self.0.trailing_zeros() as u8)
    }

    /// The highest square; the set must not be empty.
    #[inline]
    pub const fn msb(self) -> Square {
        Square::new(127 - self.0.leading_zeros() as u8)
    }

    /// `self` without `sq`.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Self {
        Self(self.0 & !(1u128 << sq.index()))
    }

    /// `self` with `sq`.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Self {
        Self(self.0 | 1u128 << sq.index())
    }
}

/// Iterates squares from lowest to highest index.
#[derive(Debug)]
pub struct Squares(u128);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::new(self.0.trailing_zeros() as u8);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    #[inline]
    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        iter.into_iter().fold(Self::EMPTY, Self::with)
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Self;
            #[inline]
            fn $f(self, rhs: Self) -> Self {
                Self(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Self) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Self;
    #[inline]
    fn not(self) -> Self {
        Self(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_masks_have_the_right_size() {
        assert_eq!(Bitboard::board(BoardSize::TEN).count(), 100);
        assert_eq!(Bitboard::board(BoardSize::EIGHT).count(), 64);
        assert_eq!(Bitboard::rank(9, 10).count(), 10);
        assert!(Bitboard::rank(9, 10).contains("j10".parse().unwrap()));
    }

    #[test]
    fn iteration_is_ordered_and_complete() {
        let bb: Bitboard = ["c3", "a1", "j10"]
            .iter()
            .map(|s| s.parse::<Square>().unwrap())
            .collect();
        let v: Vec<String> = bb.into_iter().map(|s| s.to_string()).collect();
        assert_eq!(v, ["a1", "c3", "j10"]);
        assert_eq!(bb.lsb().to_string(), "a1");
        assert_eq!(bb.msb().to_string(), "j10");
        assert!(bb.more_than_one());
    }
}
