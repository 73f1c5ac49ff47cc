//! The single mapping from [`ServiceError`] to a gRPC [`Status`], with google.rpc error details.
//!
//! The match is exhaustive on purpose (no `_ =>`): a new error variant must be given a code and
//! its details here. Every `INVALID_ARGUMENT` and `RESOURCE_EXHAUSTED` carries (via
//! `tonic-types`, in the standard `grpc-status-details-bin` trailer):
//! - `google.rpc.ErrorInfo` with a [`reason`] and the domain [`ERROR_DOMAIN`], so clients can
//!   branch on the reason instead of parsing messages;
//! - for invalid requests, `google.rpc.BadRequest` with one field violation naming the field
//!   (`position.moves[3]`, `limits.depth`, `position.fen`, `move`, ...);
//! - for refusals, `google.rpc.RetryInfo` with the suggested back-off (also sent as the
//!   [`RETRY_AFTER_MS`] trailer, for clients that read no details).
//!
//! Details never repeat more of the client's input than the message does.

use std::{collections::HashMap, time::Duration};

use tonic::{Code, Status, metadata::MetadataValue};
use tonic_types::{ErrorDetails, StatusExt as _};
use variant_engine::{IllegalReason, MoveError, MoveRefusal};

use crate::error::ServiceError;

/// Metadata key carrying the suggested retry delay of a `RESOURCE_EXHAUSTED` answer.
pub const RETRY_AFTER_MS: &str = "retry-after-ms";
/// `ErrorInfo.domain` of every error this service sends.
pub const ERROR_DOMAIN: &str = "chessvariants.engine.v1";

/// `ErrorInfo.reason` values (stable: clients branch on them; add, never rename).
pub mod reason {
    /// `position.variant` names no variant of this server.
    pub const UNKNOWN_VARIANT: &str = "UNKNOWN_VARIANT";
    /// `position.fen` does not parse or is not a valid position.
    pub const INVALID_FEN: &str = "INVALID_FEN";
    /// A move text has no move's shape (neither move text nor SAN).
    pub const UNPARSABLE_MOVE: &str = "UNPARSABLE_MOVE";
    /// A move text parses but names no legal move in its position.
    pub const ILLEGAL_MOVE: &str = "ILLEGAL_MOVE";
    /// SAN that fits several legal moves (`ErrorInfo.metadata["candidates"]` lists them).
    pub const AMBIGUOUS_MOVE: &str = "AMBIGUOUS_MOVE";
    /// A move was sent for a finished game (`metadata["termination"]` names the ending).
    pub const GAME_OVER: &str = "GAME_OVER";
    /// `position.moves` is longer than the server's `--max-moves`.
    pub const TOO_MANY_MOVES: &str = "TOO_MANY_MOVES";
    /// A numeric field (a search limit, the perft depth) is outside its allowed range.
    pub const LIMIT_OUT_OF_RANGE: &str = "LIMIT_OUT_OF_RANGE";
    /// An enum field holds a number this server does not know.
    pub const UNKNOWN_ENUM_VALUE: &str = "UNKNOWN_ENUM_VALUE";
    /// A required field is unset.
    pub const MISSING_FIELD: &str = "MISSING_FIELD";
    /// No search slot is free (queue full, or none frees up in time for the deadline).
    pub const SEARCH_BUSY: &str = "SEARCH_BUSY";
}

/// An `INVALID_ARGUMENT` answer's details: the reason, and the field as both `ErrorInfo`
/// metadata and a `BadRequest` violation described by the message.
fn invalid(
    reason: &str,
    field: String,
    message: &str,
    mut metadata: HashMap<String, String>,
) -> ErrorDetails {
    metadata.insert("field".into(), field.clone());
    let mut details = ErrorDetails::with_error_info(reason, ERROR_DOMAIN, metadata);
    details.add_bad_request_violation(field, message);
    details
}

/// A refusal's details: `SEARCH_BUSY` with `metadata`, and `RetryInfo`.
fn busy(retry_after: Duration, metadata: HashMap<String, String>) -> ErrorDetails {
    let mut details = ErrorDetails::with_error_info(reason::SEARCH_BUSY, ERROR_DOMAIN, metadata);
    details.set_retry_info(Some(retry_after));
    details
}

/// The reason for a move the engine refused: `UNPARSABLE_MOVE`, `AMBIGUOUS_MOVE` or
/// `ILLEGAL_MOVE` (clients branch on these few), and the engine's finer refusal code.
fn move_reason(error: &MoveError) -> &'static str {
    match error.reason() {
        MoveRefusal::Unparsable => reason::UNPARSABLE_MOVE,
        MoveRefusal::Ambiguous => reason::AMBIGUOUS_MOVE,
        MoveRefusal::GameOver => reason::GAME_OVER,
        _ => reason::ILLEGAL_MOVE,
    }
}

/// `ErrorInfo` metadata of a refused move: its index (for a list), the engine's refusal code
/// (`LEAVES_KING_IN_CHECK`, `PROMOTION_REQUIRED`, ...) and, for ambiguous SAN, the candidate
/// moves.
fn move_metadata(error: &MoveError, index: Option<usize>) -> HashMap<String, String> {
    let mut metadata = HashMap::new();
    if let Some(index) = index {
        metadata.insert("index".to_owned(), index.to_string());
    }
    metadata.insert("refusal".to_owned(), error.reason().as_str().to_owned());
    if let MoveError::Illegal {
        reason: IllegalReason::Ambiguous { candidates },
        ..
    } = error
    {
        metadata.insert("candidates".to_owned(), candidates.join(" "));
    }
    metadata
}

/// `ErrorInfo` metadata from key/value pairs.
fn meta<const N: usize>(pairs: [(&str, String); N]) -> HashMap<String, String> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

impl From<ServiceError> for Status {
    fn from(err: ServiceError) -> Self {
        let message = err.to_string();
        let (code, details, retry_after) = match &err {
            ServiceError::UnknownVariant(e) => (
                Code::InvalidArgument,
                invalid(
                    reason::UNKNOWN_VARIANT,
                    "position.variant".into(),
                    &message,
                    meta([("known", e.known.clone())]),
                ),
                None,
            ),
            ServiceError::InvalidFen(_) => (
                Code::InvalidArgument,
                invalid(
                    reason::INVALID_FEN,
                    "position.fen".into(),
                    &message,
                    HashMap::new(),
                ),
                None,
            ),
            ServiceError::InvalidMove(e) => (
                Code::InvalidArgument,
                invalid(
                    move_reason(e),
                    "move".into(),
                    &message,
                    move_metadata(e, None),
                ),
                None,
            ),
            ServiceError::MoveList { index, source, .. } => (
                Code::InvalidArgument,
                invalid(
                    move_reason(source),
                    format!("position.moves[{index}]"),
                    &message,
                    move_metadata(source, Some(*index)),
                ),
                None,
            ),
            ServiceError::SearchMove { index, source, .. } => (
                Code::InvalidArgument,
                invalid(
                    move_reason(source),
                    format!("limits.search_moves[{index}]"),
                    &message,
                    move_metadata(source, Some(*index)),
                ),
                None,
            ),
            ServiceError::GameOver { field, reason, .. } => (
                Code::InvalidArgument,
                invalid(
                    reason::GAME_OVER,
                    field.to_string(),
                    &message,
                    meta([("termination", reason.describe().to_owned())]),
                ),
                None,
            ),
            ServiceError::TooManyMoves { count, max } => (
                Code::InvalidArgument,
                invalid(
                    reason::TOO_MANY_MOVES,
                    "position.moves".into(),
                    &message,
                    meta([("count", count.to_string()), ("max", max.to_string())]),
                ),
                None,
            ),
            ServiceError::OutOfRange {
                field, min, max, ..
            } => (
                Code::InvalidArgument,
                invalid(
                    reason::LIMIT_OUT_OF_RANGE,
                    (*field).to_owned(),
                    &message,
                    meta([("min", min.to_string()), ("max", max.to_string())]),
                ),
                None,
            ),
            ServiceError::UnknownEnumValue { field, name, .. } => (
                Code::InvalidArgument,
                invalid(
                    reason::UNKNOWN_ENUM_VALUE,
                    (*field).to_owned(),
                    &message,
                    meta([("enum", (*name).to_owned())]),
                ),
                None,
            ),
            ServiceError::Missing(field) => (
                Code::InvalidArgument,
                invalid(
                    reason::MISSING_FIELD,
                    (*field).to_owned(),
                    &message,
                    HashMap::new(),
                ),
                None,
            ),
            ServiceError::Busy {
                slots,
                queue,
                retry_after,
            } => (
                Code::ResourceExhausted,
                busy(
                    *retry_after,
                    meta([("slots", slots.to_string()), ("queue", queue.to_string())]),
                ),
                Some(*retry_after),
            ),
            ServiceError::NoSlotInTime {
                wait,
                left,
                retry_after,
            } => (
                Code::ResourceExhausted,
                busy(
                    *retry_after,
                    meta([
                        ("expected_wait_ms", wait.as_millis().to_string()),
                        ("deadline_left_ms", left.as_millis().to_string()),
                    ]),
                ),
                Some(*retry_after),
            ),
            ServiceError::DeadlineExceeded | ServiceError::PerftUnfinished { .. } => {
                return Status::deadline_exceeded(message);
            }
            ServiceError::ShuttingDown => return Status::unavailable(message),
            ServiceError::Internal(detail) => {
                // Details may contain internals (thread names, paths): log them, send nothing.
                tracing::error!(error = %detail, "internal error");
                return Status::internal("internal error");
            }
        };
        let mut status = Status::with_error_details(code, message, details);
        if let Some(retry_after) = retry_after
            && let Ok(value) = MetadataValue::try_from(retry_after.as_millis().to_string())
        {
            status.metadata_mut().insert(RETRY_AFTER_MS, value);
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tonic_types::StatusExt as _;

    use super::*;

    #[test]
    fn out_of_range_is_invalid_argument_naming_field_value_and_range() {
        let status = Status::from(ServiceError::OutOfRange {
            field: "limits.depth",
            value: 99,
            min: 1,
            max: 64,
        });
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(
            status.message(),
            "limits.depth = 99 is out of range (allowed 1..=64)"
        );
        let details = status.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            (reason::LIMIT_OUT_OF_RANGE, ERROR_DOMAIN)
        );
        let violations = &details.bad_request().expect("BadRequest").field_violations;
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].field, "limits.depth");
    }

    #[test]
    fn busy_is_resource_exhausted_with_retry_hint_and_retry_info() {
        let status = Status::from(ServiceError::Busy {
            slots: 2,
            queue: 4,
            retry_after: Duration::from_millis(250),
        });
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status
                .metadata()
                .get(RETRY_AFTER_MS)
                .map(|v| v.to_str().ok()),
            Some(Some("250"))
        );
        let details = status.get_error_details();
        assert_eq!(
            details.error_info().map(|i| i.reason.as_str()),
            Some(reason::SEARCH_BUSY)
        );
        assert_eq!(
            details.retry_info().and_then(|r| r.retry_delay),
            Some(Duration::from_millis(250))
        );
    }

    #[test]
    fn a_move_list_failure_names_its_index_as_the_field() {
        let status = Status::from(ServiceError::MoveList {
            index: 3,
            text: "e2e5".into(),
            source: MoveError::Illegal {
                text: "e2e5".into(),
                fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
                reason: IllegalReason::NoPieceToMove {
                    square: "e2".parse().expect("a square"),
                    side: variant_engine::Color::White,
                    occupant: None,
                },
            },
        });
        let details = status.get_error_details();
        assert_eq!(
            details.error_info().map(|i| i.reason.as_str()),
            Some(reason::ILLEGAL_MOVE)
        );
        assert_eq!(
            details.bad_request().expect("BadRequest").field_violations[0].field,
            "position.moves[3]"
        );
    }

    #[test]
    fn internal_error_details_do_not_leak() {
        let status = Status::from(ServiceError::Internal("secret /etc/path".into()));
        assert_eq!(status.code(), Code::Internal);
        assert!(!status.message().contains("secret"));
        assert!(status.details().is_empty());
    }
}
