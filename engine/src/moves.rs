//! `Move`: a compact move, and `MoveKind`, its readable view.
//!
//! Packed into a `NonZeroU32` so `Option<Move>` costs nothing extra:
//! bits 0-6 `to`, bits 7-13 `from` (drops: the relocation square or 127), bits 14-17 a piece
//! kind (promotion or drop), bits 18-20 the move type (never 0).

use std::num::NonZeroU32;

use crate::geometry::Square;
use crate::piece::PieceKind;

const NO_SQUARE: u32 = 127;

/// A move in a particular position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move(NonZeroU32);

const _: () = assert!(size_of::<Move>() == size_of::<Option<Move>>());

/// The readable form of a [`Move`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveKind {
    /// A piece moves (and maybe captures).
    Normal {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
    },
    /// A pawn moves and becomes `kind`.
    Promotion {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
        /// New kind.
        kind: PieceKind,
    },
    /// En-passant capture; `to` is the square the enemy pawn crossed.
    EnPassant {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
    },
    /// Castling, written as the king's move.
    Castle {
        /// King's origin.
        from: Square,
        /// King's destination.
        to: Square,
    },
    /// A piece from the pocket is put on `to`; if `relocation` is set, the friendly pawn on
    /// `to` moves there.
    Drop {
        /// Dropped kind.
        kind: PieceKind,
        /// Drop square.
        to: Square,
        /// Where the displaced pawn goes, for drops onto a friendly pawn.
        relocation: Option<Square>,
    },
}

const T_NORMAL: u32 = 1;
const T_PROMOTION: u32 = 2;
const T_EN_PASSANT: u32 = 3;
const T_CASTLE: u32 = 4;
const T_DROP: u32 = 5;

impl Move {
    #[inline]
    const fn pack(ty: u32, from: u32, to: u32, kind: u32) -> Self {
        match NonZeroU32::new(to | from << 7 | kind << 14 | ty << 18) {
            Some(v) => Self(v),
            None => unreachable!(),
        }
    }

    /// A plain move or capture.
    #[inline]
    pub const fn normal(from: Square, to: Square) -> Self {
        Self::pack(T_NORMAL, from.index() as u32, to.index() as u32, 0)
    }

    /// A promotion.
    #[inline]
    pub const fn promotion(from: Square, to: Square, kind: PieceKind) -> Self {
        Self::pack(
            T_PROMOTION,
            from.index() as u32,
            to.index() as u32,
            kind.0 as u32,
        )
    }

    /// An en-passant capture.
    #[inline]
    pub const fn en_passant(from: Square, to: Square) -> Self {
        Self::pack(T_EN_PASSANT, from.index() as u32, to.index() as u32, 0)
    }

    /// Castling as the king's move.
    #[inline]
    pub const fn castle(from: Square, to: Square) -> Self {
        Self::pack(T_CASTLE, from.index() as u32, to.index() as u32, 0)
    }

    /// A drop, optionally relocating the friendly pawn standing on `to`.
    #[inline]
    pub const fn drop(kind: PieceKind, to: Square, relocation: Option<Square>) -> Self {
        let reloc = match relocation {
            Some(s) => s.index() as u32,
            None => NO_SQUARE,
        };
        Self::pack(T_DROP, reloc, to.index() as u32, kind.0 as u32)
    }

    /// Destination (drop square for drops).
    #[inline]
    pub const fn to(self) -> Square {
        Square::new((self.0.get() & 0x7f) as u8)
    }

    #[inline]
    const fn from_bits(self) -> u32 {
        self.0.get() >> 7 & 0x7f
    }

    #[inline]
    const fn kind_bits(self) -> u8 {
        (self.0.get() >> 14 & 0xf) as u8
    }

    #[inline]
    const fn ty(self) -> u32 {
        self.0.get() >> 18
    }

    /// Origin square; `None` for drops.
    #[inline]
    pub const fn from(self) -> Option<Square> {
        if self.ty() == T_DROP {
            None
        } else {
            Some(Square::new(self.from_bits() as u8))
        }
    }

    /// True for drops.
    #[inline]
    pub const fn is_drop(self) -> bool {
        self.ty() == T_DROP
    }

    /// True for en-passant captures.
    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.ty() == T_EN_PASSANT
    }

    /// True for castling.
    #[inline]
    pub const fn is_castle(self) -> bool {
        self.ty() == T_CASTLE
    }

    /// The promotion kind, if any.
    #[inline]
    pub const fn promotion_kind(self) -> Option<PieceKind> {
        if self.ty() == T_PROMOTION {
            Some(PieceKind(self.kind_bits()))
        } else {
            None
        }
    }

    /// The readable view.
    pub const fn kind(self) -> MoveKind {
        let to = self.to();
        let bits = self.from_bits();
        if self.ty() == T_DROP {
            return MoveKind::Drop {
                kind: PieceKind(self.kind_bits()),
                to,
                relocation: if bits == NO_SQUARE {
                    None
                } else {
                    Some(Square::new(bits as u8))
                },
            };
        }
        let from = Square::new(bits as u8);
        match self.ty() {
            T_PROMOTION => MoveKind::Promotion {
                from,
                to,
                kind: PieceKind(self.kind_bits()),
            },
            T_EN_PASSANT => MoveKind::EnPassant { from, to },
            T_CASTLE => MoveKind::Castle { from, to },
            _ => MoveKind::Normal { from, to },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn moves_round_trip_through_their_view() {
        let k = PieceKind(7);
        let cases = [
            (
                Move::normal(sq("a1"), sq("j10")),
                MoveKind::Normal {
                    from: sq("a1"),
                    to: sq("j10"),
                },
            ),
            (
                Move::promotion(sq("h9"), sq("h10"), k),
                MoveKind::Promotion {
                    from: sq("h9"),
                    to: sq("h10"),
                    kind: k,
                },
            ),
            (
                Move::en_passant(sq("e5"), sq("d6")),
                MoveKind::EnPassant {
                    from: sq("e5"),
                    to: sq("d6"),
                },
            ),
            (
                Move::castle(sq("f2"), sq("h2")),
                MoveKind::Castle {
                    from: sq("f2"),
                    to: sq("h2"),
                },
            ),
            (
                Move::drop(k, sq("e4"), None),
                MoveKind::Drop {
                    kind: k,
                    to: sq("e4"),
                    relocation: None,
                },
            ),
            (
                Move::drop(k, sq("e3"), Some(sq("c2"))),
                MoveKind::Drop {
                    kind: k,
                    to: sq("e3"),
                    relocation: Some(sq("c2")),
                },
            ),
        ];
        for (m, view) in cases {
            assert_eq!(m.kind(), view);
        }
        assert_eq!(Move::drop(k, sq("a1"), None).from(), None);
    }
}
