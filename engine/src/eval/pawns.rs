//! Pawn structure: doubled, isolated and passed pawns, cached by pawn placement, and the
//! terms that depend on more than the pawns (computed fresh each time): passed pawns that
//! can advance or may not promote, and orthogonal riders on open and half-open files.
//!
//! Passed pawns are valued by relative rank from a table as long as the board, so the bonus
//! follows the board size and the promotion rank. Two refinements read the rest of the board:
//! a passer whose stop square is empty and not attacked by the enemy gains per rank (it can
//! advance), and under promotion by replacement (Opulent) a pawn on the last rank before
//! promotion whose side has lost nothing it could become is stuck there: it may not step onto
//! the last rank, so it pays `passed.stuck` (its passer bonus taken back, in effect).

use crate::bitboard::Bitboard;
use crate::eval::params::{Layout, NONE};
use crate::eval::sum::{Pair, Sum};
use crate::eval::trace::Trace;
use crate::geometry::SQUARE_COUNT;
use crate::piece::{ByColor, Color, PieceKind};
use crate::position::Position;
use crate::variant::Variant;

/// Per-variant pawn tables, built once per search.
#[derive(Debug)]
pub(super) struct PawnTables {
    /// Squares ahead of a pawn on its own and adjacent files, per colour.
    passed_mask: Box<ByColor<[Bitboard; SQUARE_COUNT]>>,
    /// Each file's squares.
    file_mask: Vec<Bitboard>,
    /// The files next to each file.
    adjacent_files: Vec<Bitboard>,
    /// Per side: the rank before the last (where an Opulent pawn waits to promote).
    last_but_one: ByColor<Bitboard>,
    /// Kinds a pawn may promote to, when promotion is only to lost kinds.
    only_lost_choices: Vec<PieceKind>,
    ranks: u8,
    pawn: usize,
}

/// A small per-thread cache of pawn-structure terms keyed by the pawn placement.
#[derive(Clone, Debug)]
pub(crate) struct PawnCache {
    entries: Vec<Entry>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    terms: [Pair; 2],
    passed: [Bitboard; 2],
}

/// Entries of a [`PawnCache`] (a power of two).
const CACHE_ENTRIES: usize = 1 << 13;

impl Default for PawnCache {
    fn default() -> Self {
        Self {
            entries: vec![Entry::default(); CACHE_ENTRIES],
        }
    }
}

fn mix(bb: u128) -> u64 {
    let x = (bb as u64) ^ ((bb >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let x = (x ^ (x >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 29)
}

impl PawnTables {
    /// Tables for `variant`, `None` when it has no pawns.
    pub(super) fn new(variant: &Variant) -> Option<Self> {
        let pawn = variant.pawn?.index();
        let size = variant.size();
        let squares: Vec<_> = size.squares().collect();
        let mut file_mask = vec![Bitboard::EMPTY; usize::from(size.files)];
        for &sq in &squares {
            file_mask[usize::from(sq.file())] = file_mask[usize::from(sq.file())].with(sq);
        }
        let adjacent_files = (0..file_mask.len())
            .map(|f| {
                let left = f.checked_sub(1).map_or(Bitboard::EMPTY, |l| file_mask[l]);
                let right = file_mask.get(f + 1).copied().unwrap_or(Bitboard::EMPTY);
                left | right
            })
            .collect();
        let mut passed_mask = Box::new(ByColor([[Bitboard::EMPTY; SQUARE_COUNT]; 2]));
        for &sq in &squares {
            for c in Color::ALL {
                passed_mask[c][sq.index()] = squares
                    .iter()
                    .copied()
                    .filter(|o| {
                        let ahead = if c.forward() > 0 {
                            o.rank() > sq.rank()
                        } else {
                            o.rank() < sq.rank()
                        };
                        ahead && o.file().abs_diff(sq.file()) <= 1
                    })
                    .collect();
            }
        }
        let ranks = size.ranks;
        let rank_of = |c: Color, r: u8| Bitboard::rank(c.relative_rank(r, ranks), size.files);
        let last_but_one = ByColor([
            rank_of(Color::White, ranks.saturating_sub(2)),
            rank_of(Color::Black, ranks.saturating_sub(2)),
        ]);
        let only_lost_choices = variant
            .promotion
            .as_ref()
            .filter(|p| p.only_lost)
            .map(|p| p.choices.clone())
            .unwrap_or_default();
        Some(Self {
            passed_mask,
            file_mask,
            adjacent_files,
            last_but_one,
            only_lost_choices,
            ranks,
            pawn,
        })
    }

    /// The cached structure terms of both sides and their passed pawns.
    pub(super) fn structure<T: Trace>(
        &self,
        layout: &Layout,
        pos: &Position,
        cache: Option<&mut PawnCache>,
        sum: &mut Sum<'_, T>,
    ) -> [Bitboard; 2] {
        let white = (pos.by_kind[self.pawn] & pos.by_color[Color::White]).0;
        let black = (pos.by_kind[self.pawn] & pos.by_color[Color::Black]).0;
        // A trace must see every term, so it never reads the cache.
        let cache = if T::ON { None } else { cache };
        let Some(cache) = cache else {
            let passed = Color::ALL.map(|c| self.side(layout, pos, c, sum));
            return passed;
        };
        let key = mix(white) ^ mix(black).rotate_left(17) ^ 0x5bd1_e995;
        let slot = (key as usize) & (cache.entries.len() - 1);
        let e = cache.entries[slot];
        if e.key == key {
            for c in Color::ALL {
                sum.score[c] += e.terms[c.index()];
            }
            return e.passed;
        }
        let before = sum.score;
        let passed = Color::ALL.map(|c| self.side(layout, pos, c, sum));
        let mut terms = [Pair::default(); 2];
        for c in Color::ALL {
            terms[c.index()] = sum.score[c];
            terms[c.index()] -= before[c];
        }
        cache.entries[slot] = Entry { key, terms, passed };
        passed
    }

    /// Doubled, isolated and passed pawns of `c`; returns its passed pawns.
    fn side<T: Trace>(
        &self,
        layout: &Layout,
        pos: &Position,
        c: Color,
        sum: &mut Sum<'_, T>,
    ) -> Bitboard {
        let pawns = pos.by_kind[self.pawn] & pos.by_color[c];
        let their_pawns = pos.by_kind[self.pawn] & pos.by_color[!c];
        let mut passed = Bitboard::EMPTY;
        let mut isolated = 0;
        for sq in pawns {
            if (self.passed_mask[c][sq.index()] & their_pawns).is_empty() {
                passed = passed.with(sq);
                let r = usize::from(c.relative_rank(sq.rank(), self.ranks));
                sum.add(c, layout.passed + r, 1);
            }
            if (self.adjacent_files[usize::from(sq.file())] & pawns).is_empty() {
                isolated += 1;
            }
        }
        sum.add(c, layout.isolated, isolated);
        let doubled: i32 = self
            .file_mask
            .iter()
            .map(|&fm| ((fm & pawns).count() as i32 - 1).max(0))
            .sum();
        sum.add(c, layout.doubled, doubled);
        passed
    }

    /// Orthogonal riders on files without pawns (open) or with enemy pawns only (half-open).
    pub(super) fn files<T: Trace>(&self, layout: &Layout, pos: &Position, sum: &mut Sum<'_, T>) {
        let pawns = pos.by_kind[self.pawn];
        for (k, (&open, &semi)) in layout.file_open.iter().zip(&layout.file_semi).enumerate() {
            if open == NONE {
                continue;
            }
            for c in Color::ALL {
                let own_pawns = pawns & pos.by_color[c];
                for sq in pos.by_kind[k] & pos.by_color[c] {
                    let file = self.file_mask[usize::from(sq.file())];
                    if (file & pawns).is_empty() {
                        sum.add(c, open, 1);
                    } else if (file & own_pawns).is_empty() {
                        sum.add(c, semi, 1);
                    }
                }
            }
        }
    }

    /// The passed-pawn terms that read the whole board: free passers (given what the enemy
    /// attacks) and pawns stuck before a promotion they may not make.
    pub(super) fn passers<T: Trace>(
        &self,
        layout: &Layout,
        pos: &Position,
        passed: [Bitboard; 2],
        enemy_attacks: Option<ByColor<Bitboard>>,
        sum: &mut Sum<'_, T>,
    ) {
        let v = &*pos.variant;
        let occupied = pos.occupied();
        for c in Color::ALL {
            if let Some(attacked) = enemy_attacks {
                for sq in passed[c.index()] {
                    let Some(stop) = sq.offset(0, c.forward(), v.size()) else {
                        continue;
                    };
                    if !occupied.contains(stop) && !attacked[!c].contains(stop) {
                        let r = i32::from(c.relative_rank(sq.rank(), self.ranks));
                        sum.add(c, layout.passed_free, r);
                    }
                }
            }
            if layout.passed_stuck == NONE {
                continue;
            }
            let waiting = pos.by_kind[self.pawn] & pos.by_color[c] & self.last_but_one[c];
            if waiting.is_empty() {
                continue;
            }
            let own = pos.by_color[c];
            let can_regain = self.only_lost_choices.iter().any(|&k| {
                (pos.by_kind[k.index()] & own).count() < u32::from(v.initial_counts[c][k.index()])
            });
            if !can_regain {
                sum.add(c, layout.passed_stuck, waiting.count() as i32);
            }
        }
    }
}
