//! The service's error type: everything a request can fail with.
//!
//! Messages are lowercase and name the problem; they quote client input through
//! [`variant_engine::quote()`] (at most ~100 characters of it, plus its length), because
//! a status message travels as an HTTP/2 header that clients refuse past a few kilobytes. They
//! are sent to clients as they are (except [`ServiceError::Internal`], whose details are only
//! logged), with machine-readable details (see `status.rs`).

use std::{fmt, time::Duration};

use variant_engine::{FenError, MoveError, Termination, UnknownVariant, quote};

/// Which request field held a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveField {
    /// `ApplyMoveRequest.move`.
    Apply,
    /// `Position.moves[index]`.
    List(usize),
    /// `Limits.search_moves[index]`.
    SearchMoves(usize),
}

impl fmt::Display for MoveField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveField::Apply => f.write_str("move"),
            MoveField::List(index) => write!(f, "position.moves[{index}]"),
            MoveField::SearchMoves(index) => write!(f, "limits.search_moves[{index}]"),
        }
    }
}

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
    #[error("position.moves[{index}] {} cannot be played: {source}", quote(.text))]
    MoveList {
        /// 0-based index into `Position.moves`.
        index: usize,
        /// The offending move text.
        text: String,
        /// What the engine said about it.
        source: MoveError,
    },
    /// A move of `Limits.search_moves` is unparsable or illegal.
    #[error("limits.search_moves[{index}] {} cannot be searched: {source}", quote(.text))]
    SearchMove {
        /// 0-based index into `Limits.search_moves`.
        index: usize,
        /// The offending move text.
        text: String,
        /// What the engine said about it.
        source: MoveError,
    },
    /// A move was sent for a position whose game is over (it has no legal moves).
    #[error("{field} {} cannot be played: the game is over ({})", quote(.text), .reason.describe())]
    GameOver {
        /// Where the move was.
        field: MoveField,
        /// The move text.
        text: String,
        /// How the game ended.
        reason: Termination,
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
    /// No search slot frees up while the request's deadline still leaves time to search.
    #[error(
        "no search slot frees up in time: about {} ms to wait, and the deadline is {} ms away; retry later",
        .wait.as_millis(),
        .left.as_millis()
    )]
    NoSlotInTime {
        /// The expected wait (or, if the request gave up waiting, how long it waited).
        wait: Duration,
        /// Time left before the deadline.
        left: Duration,
        /// Suggested wait before retrying.
        retry_after: Duration,
    },
    /// The request's deadline left no time to search.
    #[error("deadline exceeded before the search could start")]
    DeadlineExceeded,
    /// A perft was stopped by its deadline before it finished.
    #[error("perft to depth {depth} did not finish before the deadline")]
    PerftUnfinished {
        /// The depth asked for.
        depth: u32,
    },
    /// Work was stopped because the server is draining.
    #[error("the server is shutting down; retry on another replica")]
    ShuttingDown,
    /// A bug or resource failure; details are logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Result alias for request handling.
pub type ServiceResult<T> = Result<T, ServiceError>;
