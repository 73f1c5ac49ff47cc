//! Graceful shutdown: on SIGTERM/SIGINT report `NOT_SERVING`, stop accepting connections, let
//! in-flight requests finish within a grace period, then cancel the rest and return (exit 0).

use std::{future::Future, time::Duration};

/// Running searches are told to stop this long before the grace period ends, leaving time to
/// send their answers (a search stops within milliseconds; the rest is network slack).
pub const SEARCH_FINISH_MARGIN: Duration = Duration::from_secs(1);

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

/// How often the drain looks whether calls are still in flight.
const QUIET_POLL: Duration = Duration::from_millis(20);
/// How long no call may be in flight before the remaining (idle) connections are closed: a
/// client that opened a stream just before our GOAWAY reached it gets that long to show up.
const QUIET_LINGER: Duration = Duration::from_millis(100);
/// How long the server may take to let go of its connections once they are told to close.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// What the drain needs to know and do besides waiting for the server.
pub struct Drain<'a> {
    /// Time in-flight calls get to finish.
    pub grace: Duration,
    /// Calls that have started and have no status yet.
    pub calls_in_flight: &'a (dyn Fn() -> usize + Sync),
    /// Closes every connection (they are idle, or the grace period is over).
    pub close_connections: &'a (dyn Fn() + Sync),
}

impl std::fmt::Debug for Drain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Drain")
            .field("grace", &self.grace)
            .finish_non_exhaustive()
    }
}

/// Drives `server` until `signal` completes, runs `on_drain` (health `NOT_SERVING`, stop
/// accepting), then gives in-flight calls `drain.grace` to finish.
///
/// The server itself finishes once every connection has closed; a connection whose client does
/// not react to the GOAWAY (idle, half-open) would keep it waiting, so as soon as no call has
/// been in flight for a moment (`QUIET_LINGER`) the remaining connections are closed. When the grace
/// period expires they are closed too and the server future is dropped: request futures are
/// dropped, and their guards stop running searches.
///
/// # Errors
/// The server's own error.
pub async fn run_until_drained<E>(
    server: impl Future<Output = Result<(), E>>,
    signal: impl Future<Output = ()>,
    on_drain: impl Future<Output = ()>,
    drain: Drain<'_>,
) -> Result<(), E> {
    tokio::pin!(server);
    tokio::select! {
        result = &mut server => return result,
        () = signal => {}
    }
    tracing::info!(
        grace_secs = drain.grace.as_secs(),
        "draining in-flight requests"
    );
    on_drain.await;
    let grace_over = tokio::time::sleep(drain.grace);
    tokio::pin!(grace_over);
    let mut quiet_since: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            result = &mut server => return result,
            () = &mut grace_over => {
                tracing::warn!("grace period over; cancelling remaining requests");
                (drain.close_connections)();
                return Ok(());
            }
            () = tokio::time::sleep(QUIET_POLL) => {
                if (drain.calls_in_flight)() > 0 {
                    quiet_since = None;
                    continue;
                }
                let since = *quiet_since.get_or_insert_with(tokio::time::Instant::now);
                if since.elapsed() >= QUIET_LINGER {
                    tracing::info!("no call in flight; closing idle connections");
                    (drain.close_connections)();
                    return tokio::time::timeout(CLOSE_WAIT, server)
                        .await
                        .unwrap_or(Ok(()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{
        convert::Infallible,
        sync::atomic::{AtomicBool, Ordering},
    };

    use super::*;

    /// Drains a server that never finishes by itself, with `in_flight` calls throughout;
    /// returns whether the drain ended within 5 s and whether it closed the connections.
    async fn drain_hanging_server(grace: Duration, in_flight: usize) -> (bool, bool) {
        let closed = AtomicBool::new(false);
        let server = std::future::pending::<Result<(), Infallible>>();
        let result = tokio::time::timeout(
            Duration::from_secs(5),
            run_until_drained(
                server,
                async {},
                async {},
                Drain {
                    grace,
                    calls_in_flight: &|| in_flight,
                    close_connections: &|| closed.store(true, Ordering::Relaxed),
                },
            ),
        )
        .await;
        (matches!(result, Ok(Ok(()))), closed.load(Ordering::Relaxed))
    }

    #[tokio::test]
    async fn a_hanging_server_is_cut_off_after_the_grace_period() {
        assert_eq!(
            drain_hanging_server(Duration::from_millis(10), 1).await,
            (true, true)
        );
    }

    #[tokio::test]
    async fn with_nothing_in_flight_idle_connections_are_closed_long_before_the_grace_period() {
        // A 60 s grace period: ending within the 5 s bound means it did not wait for it.
        assert_eq!(
            drain_hanging_server(Duration::from_secs(60), 0).await,
            (true, true)
        );
    }
}
