//! The single mapping from [`ServiceError`] to a gRPC [`Status`].
//!
//! The match is exhaustive on purpose (no `_ =>`): a new error variant must be given a code here.

use tonic::{Code, Status, metadata::MetadataValue};

use crate::error::ServiceError;

/// Metadata key carrying the suggested retry delay of a `RESOURCE_EXHAUSTED` answer.
pub const RETRY_AFTER_MS: &str = "retry-after-ms";

impl From<ServiceError> for Status {
    fn from(err: ServiceError) -> Self {
        let code = match &err {
            ServiceError::UnknownVariant(_)
            | ServiceError::InvalidFen(_)
            | ServiceError::InvalidMove(_)
            | ServiceError::MoveList { .. }
            | ServiceError::TooManyMoves { .. }
            | ServiceError::OutOfRange { .. }
            | ServiceError::UnknownEnumValue { .. }
            | ServiceError::Missing(_) => Code::InvalidArgument,
            ServiceError::Busy { retry_after, .. } => {
                let mut status = Status::resource_exhausted(err.to_string());
                let millis = retry_after.as_millis().to_string();
                if let Ok(value) = MetadataValue::try_from(millis) {
                    status.metadata_mut().insert(RETRY_AFTER_MS, value);
                }
                return status;
            }
            ServiceError::DeadlineExceeded => Code::DeadlineExceeded,
            ServiceError::Internal(detail) => {
                // Details may contain internals (thread names, paths): log them, send nothing.
                tracing::error!(error = %detail, "internal error");
                return Status::internal("internal error");
            }
        };
        Status::new(code, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

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
    }

    #[test]
    fn busy_is_resource_exhausted_with_retry_hint() {
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
    }

    #[test]
    fn internal_error_details_do_not_leak() {
        let status = Status::from(ServiceError::Internal("secret /etc/path".into()));
        assert_eq!(status.code(), Code::Internal);
        assert!(!status.message().contains("secret"));
    }
}
