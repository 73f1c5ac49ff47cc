//! Zobrist keys for incremental position hashing.
//!
//! Keys come from a `SplitMix64` stream seeded by the variant name, so hashes are stable across
//! runs (useful for reproducible searches and tests) and differ between variants.

use crate::geometry::SQUARE_COUNT;
use crate::piece::{Color, MAX_KINDS, Piece};
use crate::rng::SplitMix64;

/// Most pieces of one kind a pocket can hold (counts are hashed per count).
pub(crate) const MAX_POCKET: usize = 32;

/// The key tables.
#[derive(Debug)]
pub(crate) struct Zobrist {
    pieces: Vec<u64>,
    /// Mixed in (by XOR) when Black is to move.
    pub side: u64,
    castling: [u64; 16],
    en_passant: [u64; SQUARE_COUNT],
    pocket: Vec<u64>,
    drop_rights: [u64; 256],
}

impl Zobrist {
    /// Keys for the variant called `name`.
    pub(crate) fn new(name: &str) -> Self {
        let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        let mut rng = SplitMix64(seed);
        let pieces = (0..2 * MAX_KINDS * SQUARE_COUNT)
            .map(|_| rng.next_u64())
            .collect();
        let side = rng.next_u64();
        let castling = std::array::from_fn(|i| if i == 0 { 0 } else { rng.next_u64() });
        let en_passant = std::array::from_fn(|_| rng.next_u64());
        let pocket = (0..2 * MAX_KINDS * MAX_POCKET)
            .map(|i| {
                if i % MAX_POCKET == 0 {
                    0
                } else {
                    rng.next_u64()
                }
            })
            .collect();
        let drop_rights = std::array::from_fn(|i| if i == 0 { 0 } else { rng.next_u64() });
        Self {
            pieces,
            side,
            castling,
            en_passant,
            pocket,
            drop_rights,
        }
    }

    /// Key of `piece` on square index `sq`.
    #[inline]
    pub(crate) fn piece(&self, piece: Piece, sq: usize) -> u64 {
        self.pieces[(piece.kind().index() * 2 + piece.color().index()) * SQUARE_COUNT + sq]
    }

    /// Key of a castling-rights set (0 hashes to 0).
    #[inline]
    pub(crate) fn castling(&self, rights: u8) -> u64 {
        self.castling[(rights & 15) as usize]
    }

    /// Key of an en-passant square.
    #[inline]
    pub(crate) fn en_passant(&self, sq: usize) -> u64 {
        self.en_passant[sq]
    }

    /// Key of holding `count` pieces of `kind` in `color`'s pocket (0 hashes to 0).
    #[inline]
    pub(crate) fn pocket(&self, color: Color, kind: usize, count: u8) -> u64 {
        self.pocket[(kind * 2 + color.index()) * MAX_POCKET + (count as usize).min(MAX_POCKET - 1)]
    }

    /// Key of a drop-rights set (0 hashes to 0).
    #[inline]
    pub(crate) fn drop_rights(&self, rights: u8) -> u64 {
        self.drop_rights[rights as usize]
    }
}
