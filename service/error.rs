//! The service's error type: everything a request can fail with.
//!
//! Messages are lowercase, carry the offending input, and are sent to clients as they are
//! (except [`ServiceError::Internal`], whose details are only logged; see `status.rs`).

use std::time::Duration;

use variant_engine::{FenError, MoveError, UnknownVariant};

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The position names a variant the registry does not know.
    #[error(transparent)]
    UnknownVariant(#[from] UnknownVariant),
    /// The position's FEN does not parse or is not a valid position.
    #[error("invalid FEN: {0}")]
    InvalidFen(#[from] FenError),
    /// The move to apply is unparsable or illegal.
    #[error(transparent)]
    InvalidMove(#[from] MoveError),
    /// A move of `Position.moves` is unparsable or illegal.
    #[error("position.moves[{index}] {text:?} cannot be played: {source}")]
    MoveList {
        /// 0-based index into `Position.moves`.
        index: usize,
        /// The offending move text.
        text: String,
        /// What the engine said about it.
        source: MoveError,
    },
    /// The moves list is longer than the configured maximum.
    #[error("position.moves has {count} moves, more than the maximum {max}")]
    TooManyMoves {
        /// Number of moves sent.
        count: usize,
        /// Configured maximum (`--max-moves`).
        max: usize,
    },
    /// A numeric request field is outside its allowed range.
    #[error("{field} = {value} is out of range (allowed {min}..={max})")]
    OutOfRange {
        /// Dotted field path, e.g. `limits.depth`.
        field: &'static str,
        /// The value sent.
        value: u64,
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// An enum field holds a number this server does not know.
    #[error("{field} = {value} is not a known {name} value")]
    UnknownEnumValue {
        /// Field name, e.g. `detail`.
        field: &'static str,
        /// The number sent.
        value: i32,
        /// The enum's name in the .proto.
        name: &'static str,
    },
    /// A required message field is unset.
    #[error("{0} is required")]
    Missing(&'static str),
    /// Every search slot is busy and the wait queue is full.
    #[error("all {slots} search slots are busy and the queue of {queue} is full; retry later")]
    Busy {
        /// Concurrent searches allowed.
        slots: usize,
        /// Wait-queue length.
        queue: usize,
        /// Suggested wait before retrying.
        retry_after: Duration,
    },
    /// The request's deadline left no time to search.
    #[error("deadline exceeded before the search could start")]
    DeadlineExceeded,
    /// A bug or resource failure; details are logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Result alias for request handling.
pub type ServiceResult<T> = Result<T, ServiceError>;
