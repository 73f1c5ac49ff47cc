//! The shared, lock-free transposition table.
//!
//! Every search thread reads and writes the same table without locks. A bucket is one cache
//! line of eight `AtomicU64`: four entries of `(key ^ data, data)`. A reader accepts an entry
//! only when `stored_key ^ data == key`, so an entry torn by two racing writers (key word from
//! one, data word from the other) fails verification and reads as a miss instead of corrupting
//! the search (Hyatt's lockless xor trick). `Relaxed` ordering suffices for that reason.
//!
//! Replacement is depth-preferred with aging: a store overwrites the entry with the same key
//! (unless that entry is more than two plies deeper and the new result is not exact), else the
//! entry whose `depth - 4 * age` is lowest, where `age` counts searches since the entry was last
//! written or probed. A probe re-stamps the entry it finds, so what the current search uses
//! stays, whichever search wrote it.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::geometry::Square;
use crate::moves::{Move, MoveKind};
use crate::piece::PieceKind;

/// Entries per bucket.
const WAYS: usize = 4;

/// One cache line: `WAYS` entries of (key ^ data, data).
#[repr(align(64))]
#[derive(Default)]
struct Bucket([AtomicU64; 2 * WAYS]);

const _: () = assert!(size_of::<Bucket>() == 64);

/// How a stored score relates to the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    /// The true value is at most the score (fail low).
    Upper = 1,
    /// The true value is at least the score (fail high).
    Lower = 2,
    /// The exact value.
    Exact = 3,
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// Best or refuting move, if one was found.
    pub(crate) mv: Option<Move>,
    /// Score, mate scores relative to the node (see [`score_to_tt`]).
    ///
    /// [`score_to_tt`]: crate::search::score::score_to_tt
    pub(crate) score: i32,
    /// Draft the score was searched to.
    pub(crate) depth: i32,
    /// Bound type.
    pub(crate) bound: Bound,
}

// Data word layout: move 21 bits | score 16 | depth 8 | bound 2 | generation 8.
const MOVE_BITS: u32 = 21;
const SCORE_SHIFT: u32 = 21;
const DEPTH_SHIFT: u32 = 37;
const BOUND_SHIFT: u32 = 45;
const GEN_SHIFT: u32 = 47;

/// Packs a move into 21 bits (0 = none). `Move` keeps its bits private, so the table encodes
/// the readable view and rebuilds the move through the public constructors.
fn encode_move(m: Option<Move>) -> u64 {
    let Some(m) = m else { return 0 };
    let (ty, from, to, kind) = match m.kind() {
        MoveKind::Normal { from, to } => (1, from.index(), to.index(), 0),
        MoveKind::Promotion { from, to, kind } => (2, from.index(), to.index(), kind.index()),
        MoveKind::EnPassant { from, to } => (3, from.index(), to.index(), 0),
        MoveKind::Castle { from, to } => (4, from.index(), to.index(), 0),
        MoveKind::Drop {
            kind,
            to,
            relocation,
        } => (
            5,
            relocation.map_or(127, Square::index),
            to.index(),
            kind.index(),
        ),
    };
    (ty as u64) | (from as u64) << 3 | (to as u64) << 10 | (kind as u64) << 17
}

fn decode_move(bits: u64) -> Option<Move> {
    let ty = bits & 7;
    let from = (bits >> 3 & 127) as u8;
    let to = (bits >> 10 & 127) as u8;
    let kind = PieceKind((bits >> 17 & 15) as u8);
    if usize::from(to) >= crate::geometry::SQUARE_COUNT {
        return None;
    }
    let sq = |i: u8| (usize::from(i) < crate::geometry::SQUARE_COUNT).then(|| Square::new(i));
    let to = Square::new(to);
    match ty {
        1 => Some(Move::normal(sq(from)?, to)),
        2 => Some(Move::promotion(sq(from)?, to, kind)),
        3 => Some(Move::en_passant(sq(from)?, to)),
        4 => Some(Move::castle(sq(from)?, to)),
        5 => Some(Move::drop(kind, to, sq(from))),
        _ => None,
    }
}

/// The transposition table, shared by all threads of a search (and kept between searches of
/// one [`Searcher`](crate::search::Searcher)).
pub(crate) struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: AtomicU64,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable")
            .field("buckets", &self.buckets.len())
            .finish_non_exhaustive()
    }
}

/// Asks the kernel to back the (still untouched) table memory with transparent huge pages.
///
/// Every probe lands on a random bucket of a table far larger than the TLB's reach with 4 KiB
/// pages, so nearly every probe also missed the TLB (a page walk, doubly expensive under
/// virtualisation); the probe's first load was ~20% of search time in profiles. With 2 MiB
/// pages the whole table needs a few dozen TLB entries. Linux applies huge pages on first
/// touch only where the policy allows it: the default `madvise` policy needs this call, and
/// when the kernel declines, nothing changes but speed.
fn advise_huge_pages(buckets: &mut Vec<Bucket>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let spare = buckets.spare_capacity_mut();
        let start = spare.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(spare);
        // madvise wants a page-aligned start; the kernel rounds the length itself.
        let aligned = start.next_multiple_of(PAGE);
        if end > aligned {
            // Safety: the range lies inside this vector's own allocation, and MADV_HUGEPAGE
            // changes only how the kernel backs those pages, never their contents or mapping.
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    end - aligned,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buckets;
}

impl TranspositionTable {
    /// A table of about `mb` MiB (at least one bucket). When the memory cannot be had, the
    /// size is halved until it can, rather than aborting the process.
    pub(crate) fn new(mb: usize) -> Self {
        let mut n = (mb.saturating_mul(1 << 20) / size_of::<Bucket>()).max(1);
        let mut buckets: Vec<Bucket> = Vec::new();
        while buckets.try_reserve_exact(n).is_err() && n > 1 {
            n /= 2;
        }
        advise_huge_pages(&mut buckets);
        buckets.extend(std::iter::repeat_with(Bucket::default).take(n));
        Self {
            buckets,
            generation: AtomicU64::new(0),
        }
    }

    /// Empties the table.
    pub(crate) fn clear(&self) {
        for b in &self.buckets {
            for w in &b.0 {
                w.store(0, Ordering::Relaxed);
            }
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries age.
    pub(crate) fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed) & 0xff
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto any table size without a power-of-two constraint.
        let i = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Asks the CPU to start loading `key`'s bucket into cache, so that a probe a little later
    /// (the child node's) finds it there instead of waiting on memory: the probe's cache miss
    /// was the search's largest single cost in profiles. A hint only; no effect elsewhere.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ptr: *const Bucket = self.bucket(key);
            // Safety: SSE is part of the x86_64 baseline, and a prefetch never faults, whatever
            // the address; `ptr` is a live bucket of this table anyway.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(ptr.cast::<i8>());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for way in 0..WAYS {
            let k = b.0[2 * way].load(Ordering::Relaxed);
            let d = b.0[2 * way + 1].load(Ordering::Relaxed);
            if d != 0 && k ^ d == key {
                let bound = match d >> BOUND_SHIFT & 3 {
                    1 => Bound::Upper,
                    2 => Bound::Lower,
                    3 => Bound::Exact,
                    _ => continue,
                };
                // An entry this search uses is this search's: it must not age out.
                Self::refresh(b, way, key, d, self.generation());
                return Some(Entry {
                    mv: decode_move(d & ((1 << MOVE_BITS) - 1)),
                    score: i32::from((d >> SCORE_SHIFT) as u16 as i16),
                    depth: i32::from((d >> DEPTH_SHIFT) as u8),
                    bound,
                });
            }
        }
        None
    }

    /// Stores a result for `key`.
    #[inline]
    pub(crate) fn store(&self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let b = self.bucket(key);
        let generation = self.generation();
        let mut victim = 0;
        let mut victim_worth = i64::MAX;
        for way in 0..WAYS {
            let k = b.0[2 * way].load(Ordering::Relaxed);
            let d = b.0[2 * way + 1].load(Ordering::Relaxed);
            if d == 0 {
                victim = way;
                break;
            }
            if k ^ d == key {
                // Same position: keep the older move when this search found none, and keep a
                // much deeper result over a shallow one.
                let old_depth = (d >> DEPTH_SHIFT & 0xff) as i32;
                if bound != Bound::Exact && old_depth > depth + 2 {
                    // A much deeper result stays, whichever search wrote it: the searches of
                    // one game's moves revisit the same positions, and a shallow result of
                    // this search's first iterations would otherwise erase the last one's
                    // deep work. It is marked as this search's so it does not age out.
                    Self::refresh(b, way, key, d, generation);
                    return;
                }
                let mv = mv.or_else(|| decode_move(d & ((1 << MOVE_BITS) - 1)));
                Self::write(b, way, key, mv, score, depth, bound, generation);
                return;
            }
            let old_depth = (d >> DEPTH_SHIFT & 0xff) as i64;
            let age = (generation.wrapping_sub(d >> GEN_SHIFT) & 0xff) as i64;
            let worth = old_depth - 4 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = way;
            }
        }
        Self::write(b, victim, key, mv, score, depth, bound, generation);
    }

    /// Re-stamps the entry in `way` (data word `d`, key `key`) with `generation` when it has
    /// an older one.
    #[inline]
    fn refresh(b: &Bucket, way: usize, key: u64, d: u64, generation: u64) {
        if d >> GEN_SHIFT & 0xff != generation {
            let data = d & !(0xff << GEN_SHIFT) | generation << GEN_SHIFT;
            Self::put(b, way, key, data);
        }
    }

    /// Writes the data word `data` for `key` into `way`.
    #[inline]
    fn put(b: &Bucket, way: usize, key: u64, data: u64) {
        b.0[2 * way].store(key ^ data, Ordering::Relaxed);
        b.0[2 * way + 1].store(data, Ordering::Relaxed);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn write(
        b: &Bucket,
        way: usize,
        key: u64,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
        generation: u64,
    ) {
        let data = encode_move(mv)
            | u64::from(score.clamp(-32767, 32767) as i16 as u16) << SCORE_SHIFT
            | (depth.clamp(0, 255) as u64) << DEPTH_SHIFT
            | (bound as u64) << BOUND_SHIFT
            | generation << GEN_SHIFT;
        Self::put(b, way, key, data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn moves_survive_encoding() {
        let k = PieceKind(5);
        for m in [
            Move::normal(sq("a1"), sq("j10")),
            Move::promotion(sq("h9"), sq("h10"), k),
            Move::en_passant(sq("e5"), sq("d6")),
            Move::castle(sq("f2"), sq("h2")),
            Move::drop(k, sq("e4"), None),
            Move::drop(k, sq("e3"), Some(sq("c2"))),
        ] {
            assert_eq!(decode_move(encode_move(Some(m))), Some(m));
        }
        assert_eq!(decode_move(encode_move(None)), None);
    }

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let m = Move::normal(sq("e2"), sq("e4"));
        tt.store(0xdead_beef, Some(m), -123, 7, Bound::Lower);
        let e = tt.probe(0xdead_beef).unwrap();
        assert_eq!(
            (e.mv, e.score, e.depth, e.bound),
            (Some(m), -123, 7, Bound::Lower)
        );
        assert!(tt.probe(0xdead_bee0).is_none());
        tt.clear();
        assert!(tt.probe(0xdead_beef).is_none());
    }

    #[test]
    fn a_deep_result_survives_a_later_searchs_shallow_one() {
        let tt = TranspositionTable::new(1);
        let m = Move::normal(sq("e2"), sq("e4"));
        tt.store(77, Some(m), 50, 10, Bound::Lower);
        tt.new_search();
        tt.store(77, None, -20, 2, Bound::Upper);
        let e = tt.probe(77).unwrap();
        assert_eq!((e.depth, e.score, e.bound), (10, 50, Bound::Lower));
        // An exact result always replaces.
        tt.store(77, None, 5, 3, Bound::Exact);
        let e = tt.probe(77).unwrap();
        assert_eq!(
            (e.depth, e.score, e.bound, e.mv),
            (3, 5, Bound::Exact, Some(m))
        );
    }

    #[test]
    fn a_probed_entry_does_not_age_out() {
        let tt = TranspositionTable::new(1);
        // Small keys share the first bucket (its index is the key's top bits).
        for key in 1..=4 {
            tt.store(key, None, 0, 5, Bound::Lower);
        }
        tt.new_search();
        tt.new_search();
        // Entry 1 is used by this search; the other three are two searches old.
        assert!(tt.probe(1).is_some());
        tt.store(5, None, 0, 1, Bound::Lower);
        assert!(tt.probe(1).is_some(), "the probed entry was replaced");
        assert!(tt.probe(5).is_some());
        assert_eq!((2..=4).filter(|&k| tt.probe(k).is_some()).count(), 2);
    }
}
