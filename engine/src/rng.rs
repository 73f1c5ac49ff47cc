//! `SplitMix64`: a tiny, fast, seedable pseudo-random generator.
//!
//! Used where reproducibility matters and secrecy does not: Zobrist keys (stable across runs),
//! the skill level's seeded choice (seeded from [`SplitMix64::from_entropy`] when a game should
//! differ from the last), the load generator's choice of positions and moves, and the
//! random games of tests.

/// The `SplitMix64` generator (Steele, Lea and Flood), one `u64` of state.
///
/// # Examples
/// ```
/// use variant_engine::SplitMix64;
/// let (mut a, mut b) = (SplitMix64(7), SplitMix64(7));
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// assert!((0.0..1.0).contains(&a.next_f64()));
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform draw in `[0, 1)`: the top 53 bits of the next `u64`, every value a double
    /// can hold exactly on that grid.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A generator seeded unpredictably (the standard library's per-process random hash keys
    /// mixed with the clock), for callers that want a different game each time: two calls
    /// give different seeds.
    pub fn from_entropy() -> Self {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        hasher.write_u128(nanos);
        Self(hasher.finish())
    }

    /// Uniform-ish in `0..n` (`n = 0` is treated as 1; the modulo bias is negligible here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}
