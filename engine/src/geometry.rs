//! Board geometry shared by every variant: squares, files, ranks and board sizes.
//!
//! Every board uses the same 10-file stride, so a square's index is `rank * 10 + file` whether
//! the board is 10x10 or 8x8. Smaller boards are a mask over the same index space, decided at
//! run time (unlike Fairy-Stockfish's compile-time `LARGEBOARDS` switch), so one build and one
//! `Bitboard` type serve all variants.

use std::fmt;

/// Files (and ranks) per row of the index space; also the largest supported board side.
pub(crate) const STRIDE: u8 = 10;
/// Number of squares in the index space.
pub(crate) const SQUARE_COUNT: usize = (STRIDE as usize) * (STRIDE as usize);

/// The name of every square of the index space, a1 first, so writing a square (move text, SAN,
/// the API's `from`/`to` fields) is a table look-up instead of integer formatting: describing
/// hundreds of moves per `LegalMoves` call made `fmt` a visible cost in profiles.
#[rustfmt::skip] // One rank per line.
static SQUARE_NAMES: [&str; SQUARE_COUNT] = [
    "a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "i1", "j1",
    "a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2", "i2", "j2",
    "a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "i3", "j3",
    "a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4", "i4", "j4",
    "a5", "b5", "c5", "d5", "e5", "f5", "g5", "h5", "i5", "j5",
    "a6", "b6", "c6", "d6", "e6", "f6", "g6", "h6", "i6", "j6",
    "a7", "b7", "c7", "d7", "e7", "f7", "g7", "h7", "i7", "j7",
    "a8", "b8", "c8", "d8", "e8", "f8", "g8", "h8", "i8", "j8",
    "a9", "b9", "c9", "d9", "e9", "f9", "g9", "h9", "i9", "j9",
    "a10", "b10", "c10", "d10", "e10", "f10", "g10", "h10", "i10", "j10",
];

/// A square in the 10x10 index space (`rank * 10 + file`, a1 = 0).
///
/// # Examples
/// ```
/// use variant_engine::Square;
/// let sq: Square = "j10".parse().unwrap();
/// assert_eq!(sq.index(), 99);
/// assert_eq!(sq.to_string(), "j10");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with the given index. Panics in debug builds when out of range.
    #[inline]
    pub const fn new(index: u8) -> Self {
        debug_assert!((index as usize) < SQUARE_COUNT);
        Self(index)
    }

    /// The square on `file` (0 = a) and `rank` (0 = first rank), if inside the index space.
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Self> {
        if file < STRIDE && rank < STRIDE {
            Some(Self(rank * STRIDE + file))
        } else {
            None
        }
    }

    /// Index `rank * 10 + file`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 = a.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % STRIDE
    }

    /// Rank, 0 = first rank.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / STRIDE
    }

    /// The square displaced by (`df`, `dr`), if still inside `size`.
    #[inline]
    pub fn offset(self, df: i8, dr: i8, size: BoardSize) -> Option<Self> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || r < 0 || f >= size.files as i8 || r >= size.ranks as i8 {
            None
        } else {
            Some(Self((r as u8) * STRIDE + f as u8))
        }
    }

    /// The square's name, e.g. `"e4"` or `"j10"`.
    #[inline]
    pub fn name(self) -> &'static str {
        SQUARE_NAMES[self.index()]
    }

    /// True for light squares (a1 is dark, as on a real board).
    #[inline]
    pub const fn is_light(self) -> bool {
        (self.file() + self.rank()) % 2 == 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a square name could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid square {}", crate::quote::quote(.0))]
pub struct ParseSquareError(pub String);

impl std::str::FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseSquareError(s.to_owned());
        let mut chars = s.chars();
        let file = chars.next().ok_or_else(err)?;
        if !file.is_ascii_lowercase() {
            return Err(err());
        }
        let rank_text = chars.as_str();
        if rank_text.is_empty()
            || rank_text.len() > 2
            || !rank_text.bytes().all(|b| b.is_ascii_digit())
            || rank_text.starts_with('0')
        {
            return Err(err());
        }
        let rank: u8 = rank_text.parse().map_err(|_| err())?;
        let file = file as u8 - b'a';
        if rank == 0 {
            return Err(err());
        }
        Self::from_coords(file, rank - 1).ok_or_else(err)
    }
}

/// Size of a variant's board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct BoardSize {
    /// Number of files (columns), at most 10.
    pub files: u8,
    /// Number of ranks (rows), at most 10.
    pub ranks: u8,
}

impl BoardSize {
    /// The 10x10 board.
    pub const TEN: Self = Self {
        files: 10,
        ranks: 10,
    };
    /// The 8x8 board.
    pub const EIGHT: Self = Self { files: 8, ranks: 8 };

    /// True when `sq` lies on this board.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        sq.file() < self.files && sq.rank() < self.ranks
    }

    /// Parses a square name and checks that it lies on this board.
    ///
    /// # Errors
    /// [`ParseSquareError`] when the text is not a square of this board.
    pub fn parse_square(self, s: &str) -> Result<Square, ParseSquareError> {
        let sq: Square = s.parse()?;
        if self.contains(sq) {
            Ok(sq)
        } else {
            Err(ParseSquareError(s.to_owned()))
        }
    }

    /// Every square of this board, a1 first.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        (0..self.ranks).flat_map(move |r| (0..self.files).map(move |f| Square(r * STRIDE + f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in BoardSize::TEN.squares() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
    }

    #[test]
    fn the_name_table_matches_file_and_rank() {
        for i in 0..SQUARE_COUNT as u8 {
            let sq = Square::new(i);
            let name = format!("{}{}", (b'a' + sq.file()) as char, sq.rank() + 1);
            assert_eq!(sq.name(), name);
        }
    }

    #[test]
    fn bad_square_names_are_rejected() {
        for bad in ["", "a", "a0", "a11", "k1", "A1", "a01", "1a", "a1x", "é1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
        assert!(BoardSize::EIGHT.parse_square("i1").is_err());
        assert!(BoardSize::EIGHT.parse_square("a9").is_err());
        assert!(BoardSize::EIGHT.parse_square("h8").is_ok());
    }

    #[test]
    fn a1_is_dark() {
        assert!(!"a1".parse::<Square>().unwrap().is_light());
        assert!("b1".parse::<Square>().unwrap().is_light());
    }
}
