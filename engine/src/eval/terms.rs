//! Which evaluation terms are on, and which weights: the switches self-play comparisons
//! turn off one at a time (`SearchOptions`), kept apart from the evaluator so that the term
//! modules can read them without depending on it.

use crate::eval::params::EvalParams;
use crate::nnue::Network;

/// Which evaluation terms are on (for self-play comparisons), and which weights.
///
/// Equality compares the weights and the network by address: they are loaded once and kept,
/// so the same load is the same address, and comparing a network's weights by value would
/// walk megabytes.
#[derive(Clone, Copy, Debug)]
pub struct EvalTerms {
    /// Piece-square terms (centralisation, pawn advancement, king placement).
    pub pst: bool,
    /// Per-kind mobility (safe reachable squares).
    pub mobility: bool,
    /// Doubled, isolated and passed pawns.
    pub pawns: bool,
    /// Pawn shield and king danger from attacks on the king zone.
    pub king_safety: bool,
    /// Pieces attacked by pawns or cheaper pieces, and hanging pieces.
    pub threats: bool,
    /// Decima: points on the tenth rank, units that can reach it next move, and first-rank
    /// defenders (`decima.rs`).
    pub decima: bool,
    /// Orphic: pocket-piece value, king-in-hand penalty and drop danger around the king
    /// (`drops.rs`).
    pub drops: bool,
    /// Weights to evaluate with instead of the variant's shipped ones, used when they were
    /// made for the variant searched (a front end loads them once, e.g. from a UCI option,
    /// and keeps them for the rest of the process: hence `'static`).
    pub params: Option<&'static EvalParams>,
    /// A learned evaluation to use instead of the hand-written terms, used when it was
    /// trained for the variant searched (loaded once by a front end, hence `'static`).
    pub net: Option<&'static Network>,
}

/// True when both are `None` or both point at the same value.
fn same<T>(a: Option<&T>, b: Option<&T>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => std::ptr::eq(a, b),
        _ => false,
    }
}

impl PartialEq for EvalTerms {
    fn eq(&self, other: &Self) -> bool {
        // Destructured so that a new field cannot be left out of the comparison.
        let Self {
            pst,
            mobility,
            pawns,
            king_safety,
            threats,
            decima,
            drops,
            params,
            net,
        } = *self;
        [pst, mobility, pawns, king_safety, threats, decima, drops]
            == [
                other.pst,
                other.mobility,
                other.pawns,
                other.king_safety,
                other.threats,
                other.decima,
                other.drops,
            ]
            && same(params, other.params)
            && same(net, other.net)
    }
}

impl Eq for EvalTerms {}

impl Default for EvalTerms {
    fn default() -> Self {
        Self {
            pst: true,
            mobility: true,
            pawns: true,
            king_safety: true,
            threats: true,
            decima: true,
            drops: true,
            params: None,
            net: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;

    #[test]
    fn networks_compare_by_address() {
        let v = Registry::builtin().get("soho").unwrap();
        let a: &'static Network = Box::leak(Box::new(Network::constant(&v, 5, false)));
        let b: &'static Network = Box::leak(Box::new(Network::constant(&v, 5, false)));
        assert_eq!(a, b, "the two networks are equal by value");
        let with = |net| EvalTerms {
            net: Some(net),
            ..EvalTerms::default()
        };
        assert_eq!(with(a), with(a));
        assert_ne!(with(a), with(b));
        assert_ne!(with(a), EvalTerms::default());
        let off = EvalTerms {
            threats: false,
            ..EvalTerms::default()
        };
        assert_ne!(off, EvalTerms::default());
    }
}
