//! Which evaluation terms are on, and which weights: the switches self-play comparisons
//! turn off one at a time (`SearchOptions`), kept apart from the evaluator so that the term
//! modules can read them without depending on it.

use crate::eval::params::EvalParams;
use crate::nnue::Network;

/// Which evaluation terms are on (for self-play comparisons), and which weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
