//! How a game stands: ongoing, or finished with a winner (or a draw) and the reason.
//!
//! Only the vocabulary lives here, below the rules that decide it (`rules/`) and the code that
//! computes it for a position (`status.rs`).

use crate::piece::Color;

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Termination {
    /// The side to move is in check with no legal move.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// The same position occurred three times.
    ThreefoldRepetition,
    /// 100 half-moves without a capture, pawn move or drop.
    FiftyMoveRule,
    /// Decima: a side starts its turn with 10 or more points on its tenth rank.
    TenPoints,
    /// Decima: a side could not answer the opponent's ten-point "check".
    CheckUnanswered,
    /// Decima: a side lost its last unit.
    LastUnitCaptured,
    /// Neither side can win: a dead position (per variant, see [`crate::DeadMaterial`]).
    InsufficientMaterial,
    /// With draw claims: the same position occurred for the fifth time.
    FivefoldRepetition,
    /// With draw claims: 150 half-moves without a capture, pawn move or drop.
    SeventyFiveMoveRule,
}

impl Termination {
    /// A short English name of the ending ("checkmate", "fifty-move rule"), for messages and
    /// PGN `Termination` texts.
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Checkmate => "checkmate",
            Self::Stalemate => "stalemate",
            Self::ThreefoldRepetition => "threefold repetition",
            Self::FiftyMoveRule => "fifty-move rule",
            Self::TenPoints => "ten points on the tenth rank",
            Self::CheckUnanswered => "unanswered check",
            Self::LastUnitCaptured => "last unit captured",
            Self::InsufficientMaterial => "insufficient material",
            Self::FivefoldRepetition => "fivefold repetition",
            Self::SeventyFiveMoveRule => "seventy-five-move rule",
        }
    }
}

/// The state of the game in a position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameStatus {
    /// Play goes on.
    Ongoing,
    /// The game is over.
    Finished {
        /// The winner, `None` for a draw.
        winner: Option<Color>,
        /// Why.
        reason: Termination,
    },
}

impl GameStatus {
    /// True when the game is over.
    pub const fn is_finished(self) -> bool {
        matches!(self, Self::Finished { .. })
    }
}
