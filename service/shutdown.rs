//! Graceful shutdown: on SIGTERM/SIGINT report `NOT_SERVING`, stop accepting connections, let
//! in-flight requests finish within a grace period, then cancel the rest and return (exit 0).

use std::{future::Future, time::Duration};

/// Running searches are told to stop this long before the grace period ends, leaving time to
/// send their answers (a search stops within milliseconds; the rest is network slack).
pub const SEARCH_FINISH_MARGIN: Duration = Duration::from_millis(1000);

/// Completes on the first SIGTERM (Kubernetes, docker stop) or SIGINT (Ctrl-C).
pub async fn signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM received"),
                    _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT received"),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only SIGINT stops the server");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Drives `server` until `signal` completes, runs `on_drain` (health `NOT_SERVING`, stop
/// accepting), then gives in-flight requests `grace` to finish.
///
/// When the grace period expires the server future is dropped: open connections close, request
/// futures are dropped, and their guards stop running searches.
///
/// # Errors
/// The server's own error.
pub async fn run_until_drained<E>(
    server: impl Future<Output = Result<(), E>>,
    signal: impl Future<Output = ()>,
    on_drain: impl Future<Output = ()>,
    grace: Duration,
) -> Result<(), E> {
    tokio::pin!(server);
    tokio::select! {
        result = &mut server => return result,
        () = signal => {}
    }
    tracing::info!(grace_secs = grace.as_secs(), "draining in-flight requests");
    on_drain.await;
    if let Ok(result) = tokio::time::timeout(grace, server).await {
        result
    } else {
        tracing::warn!("grace period over; cancelling remaining requests");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    #[tokio::test]
    async fn a_hanging_server_is_cut_off_after_the_grace_period() {
        let server = std::future::pending::<Result<(), Infallible>>();
        let result = tokio::time::timeout(
            Duration::from_secs(5),
            run_until_drained(server, async {}, async {}, Duration::from_millis(10)),
        )
        .await;
        assert!(matches!(result, Ok(Ok(()))));
    }
}
