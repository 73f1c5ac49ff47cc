//! Attack tables for one board size: rays for sliders, `between` masks for pins and checks, and
//! leaper tables built from Betza atoms.
//!
//! Slider attacks use ray tables with a first-blocker lookup (the "classical approach" of the
//! chessprogramming wiki): the ray from a square, cut at the first occupied square. It needs no
//! magic numbers and works unchanged on a 128-bit board.

use crate::bitboard::Bitboard;
use crate::geometry::{BoardSize, SQUARE_COUNT, Square};
use crate::movement::betza::Atom;

/// The eight line directions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Direction {
    /// Up the board (+10).
    North = 0,
    /// Right (+1).
    East = 1,
    /// Up-right (+11).
    NorthEast = 2,
    /// Up-left (+9).
    NorthWest = 3,
    /// Down (-10).
    South = 4,
    /// Left (-1).
    West = 5,
    /// Down-left (-11).
    SouthWest = 6,
    /// Down-right (-9).
    SouthEast = 7,
}

impl Direction {
    /// All eight, orthogonal ones at indices 0, 1, 4, 5.
    pub(crate) const ALL: [Self; 8] = [
        Self::North,
        Self::East,
        Self::NorthEast,
        Self::NorthWest,
        Self::South,
        Self::West,
        Self::SouthWest,
        Self::SouthEast,
    ];
    /// The rook directions.
    pub(crate) const ORTHOGONAL: [Self; 4] = [Self::North, Self::East, Self::South, Self::West];
    /// The bishop directions.
    pub(crate) const DIAGONAL: [Self; 4] = [
        Self::NorthEast,
        Self::NorthWest,
        Self::SouthWest,
        Self::SouthEast,
    ];

    /// (file, rank) step.
    pub(crate) const fn step(self) -> (i8, i8) {
        match self {
            Self::North => (0, 1),
            Self::East => (1, 0),
            Self::NorthEast => (1, 1),
            Self::NorthWest => (-1, 1),
            Self::South => (0, -1),
            Self::West => (-1, 0),
            Self::SouthWest => (-1, -1),
            Self::SouthEast => (1, -1),
        }
    }

    /// True when squares along the ray have increasing indices, so the nearest blocker is the
    /// lowest set bit.
    #[inline]
    pub(crate) const fn is_positive(self) -> bool {
        (self as u8) < 4
    }
}

/// Per-square table of bitboards.
pub(crate) type SquareTable = Box<[Bitboard; SQUARE_COUNT]>;

fn empty_table() -> SquareTable {
    Box::new([Bitboard::EMPTY; SQUARE_COUNT])
}

/// Attack tables for one board size.
#[derive(Debug)]
pub(crate) struct Tables {
    /// The board these tables are for.
    pub size: BoardSize,
    /// Every square of the board.
    pub board: Bitboard,
    rays: [SquareTable; 8],
    between: Vec<Bitboard>,
}

impl Tables {
    /// Builds the tables for `size`.
    pub(crate) fn new(size: BoardSize) -> Self {
        let rays = Direction::ALL.map(|dir| {
            let mut t = empty_table();
            let (df, dr) = dir.step();
            for sq in size.squares() {
                let mut bb = Bitboard::EMPTY;
                let mut cur = sq;
                while let Some(next) = cur.offset(df, dr, size) {
                    bb = bb.with(next);
                    cur = next;
                }
                t[sq.index()] = bb;
            }
            t
        });
        let mut between = vec![Bitboard::EMPTY; SQUARE_COUNT * SQUARE_COUNT];
        for a in size.squares() {
            for dir in Direction::ALL {
                let (df, dr) = dir.step();
                let mut cur = a;
                let mut acc = Bitboard::EMPTY;
                while let Some(b) = cur.offset(df, dr, size) {
                    between[a.index() * SQUARE_COUNT + b.index()] = acc;
                    acc = acc.with(b);
                    cur = b;
                }
            }
        }
        Self {
            size,
            board: Bitboard::board(size),
            rays,
            between,
        }
    }

    /// The full ray from `sq` in `dir`, ignoring blockers.
    #[inline]
    pub(crate) fn ray(&self, dir: Direction, sq: Square) -> Bitboard {
        self.rays[dir as usize][sq.index()]
    }

    /// Squares strictly between `a` and `b` when they share a line, else empty.
    #[inline]
    pub(crate) fn between(&self, a: Square, b: Square) -> Bitboard {
        self.between[a.index() * SQUARE_COUNT + b.index()]
    }

    /// Nearest occupied square from `sq` in `dir`, if any.
    #[inline]
    pub(crate) fn first_blocker(
        &self,
        dir: Direction,
        sq: Square,
        occupied: Bitboard,
    ) -> Option<Square> {
        let blockers = self.ray(dir, sq) & occupied;
        if blockers.is_empty() {
            None
        } else if dir.is_positive() {
            Some(blockers.lsb())
        } else {
            Some(blockers.msb())
        }
    }

    /// Squares a rider reaches from `sq` in `dir`, up to and including the first blocker.
    #[inline]
    pub(crate) fn ray_attacks(&self, dir: Direction, sq: Square, occupied: Bitboard) -> Bitboard {
        let ray = self.ray(dir, sq);
        match self.first_blocker(dir, sq, occupied) {
            None => ray,
            Some(b) => ray ^ self.ray(dir, b),
        }
    }

    /// Rook attacks from `sq`.
    #[inline]
    pub(crate) fn rook_attacks(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        self.ray_attacks(Direction::North, sq, occupied)
            | self.ray_attacks(Direction::East, sq, occupied)
            | self.ray_attacks(Direction::South, sq, occupied)
            | self.ray_attacks(Direction::West, sq, occupied)
    }

    /// Bishop attacks from `sq`.
    #[inline]
    pub(crate) fn bishop_attacks(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        self.ray_attacks(Direction::NorthEast, sq, occupied)
            | self.ray_attacks(Direction::NorthWest, sq, occupied)
            | self.ray_attacks(Direction::SouthWest, sq, occupied)
            | self.ray_attacks(Direction::SouthEast, sq, occupied)
    }

    /// The pieces of `riders` that attack `sq` along `dirs` with the board occupied as
    /// `occupied` (`riders` must be occupied squares): the same set as
    /// `rook_attacks(sq, occupied) & riders` for the orthogonal directions, but a direction
    /// with no rider anywhere on its ray costs one AND instead of a blocker search. Attack
    /// detection asks this for every king step and after moves, and most rays hold no rider.
    #[inline]
    pub(crate) fn rider_attackers(
        &self,
        dirs: [Direction; 4],
        sq: Square,
        occupied: Bitboard,
        riders: Bitboard,
    ) -> Bitboard {
        debug_assert!((riders & !occupied).is_empty(), "riders must be occupied");
        let mut found = Bitboard::EMPTY;
        for dir in dirs {
            if (self.ray(dir, sq) & riders).any()
                && let Some(b) = self.first_blocker(dir, sq, occupied)
                && riders.contains(b)
            {
                found = found.with(b);
            }
        }
        found
    }

    /// Cannon capture squares from `sq`: along each rook line, the first piece beyond the first
    /// piece (the screen). Symmetric, so it also gives the cannons that attack `sq`.
    #[inline]
    pub(crate) fn hop_targets(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for dir in Direction::ORTHOGONAL {
            if let Some(screen) = self.first_blocker(dir, sq, occupied)
                && let Some(target) = self.first_blocker(dir, screen, occupied)
            {
                out = out.with(target);
            }
        }
        out
    }

    /// The squares reached by the given leaps from each square.
    pub(crate) fn leap_table(&self, atoms: &[Atom]) -> SquareTable {
        let mut t = empty_table();
        for sq in self.size.squares() {
            let mut bb = Bitboard::EMPTY;
            for atom in atoms {
                for (df, dr) in atom.offsets() {
                    if let Some(to) = sq.offset(df, dr, self.size) {
                        bb = bb.with(to);
                    }
                }
            }
            t[sq.index()] = bb;
        }
        t
    }

    /// One step diagonally forward for a pawn of the side moving in `forward` (+1/-1).
    pub(crate) fn pawn_attack_table(&self, forward: i8) -> SquareTable {
        let mut t = empty_table();
        for sq in self.size.squares() {
            t[sq.index()] = [-1, 1]
                .into_iter()
                .filter_map(|df| sq.offset(df, forward, self.size))
                .collect();
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn rook_on_empty_ten_board_sees_eighteen_squares() {
        let t = Tables::new(BoardSize::TEN);
        assert_eq!(t.rook_attacks(sq("e5"), Bitboard::EMPTY).count(), 18);
        assert_eq!(t.bishop_attacks(sq("a1"), Bitboard::EMPTY).count(), 9);
        let t8 = Tables::new(BoardSize::EIGHT);
        assert_eq!(t8.rook_attacks(sq("a1"), Bitboard::EMPTY).count(), 14);
        assert!(
            !t8.rook_attacks(sq("a1"), Bitboard::EMPTY)
                .contains(sq("i1"))
        );
    }

    #[test]
    fn blockers_cut_rays_and_are_included() {
        let t = Tables::new(BoardSize::TEN);
        let occ = Bitboard::from_square(sq("e8")) | Bitboard::from_square(sq("b5"));
        let a = t.rook_attacks(sq("e5"), occ);
        assert!(a.contains(sq("e8")) && !a.contains(sq("e9")));
        assert!(a.contains(sq("b5")) && !a.contains(sq("a5")));
    }

    #[test]
    fn cannon_needs_exactly_one_screen() {
        let t = Tables::new(BoardSize::TEN);
        let occ: Bitboard = [sq("a3"), sq("a6"), sq("a9")].into_iter().collect();
        assert_eq!(
            t.hop_targets(sq("a1"), occ),
            Bitboard::from_square(sq("a6"))
        );
        assert!(
            t.hop_targets(sq("a1"), Bitboard::from_square(sq("a3")))
                .is_empty()
        );
    }

    #[test]
    fn squares_between_two_on_a_line() {
        let t = Tables::new(BoardSize::TEN);
        assert_eq!(t.between(sq("a1"), sq("a4")).count(), 2);
        assert_eq!(t.between(sq("a1"), sq("d4")).count(), 2);
        assert!(t.between(sq("a1"), sq("b3")).is_empty());
    }
}
