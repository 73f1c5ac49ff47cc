//! The server's own accept loop: every accepted TCP connection is tracked and must finish its
//! HTTP/2 handshake in time.
//!
//! hyper waits for a client's HTTP/2 preface forever, and a graceful shutdown waits for a
//! connection still in that handshake to complete it first: one idle or half-open socket kept
//! every shutdown waiting for the whole grace period, and each such socket held a file
//! descriptor for good. So the listener's connections are handed to tonic wrapped in
//! [`Connection`], which fails the connection's reads (hyper then drops it) when:
//! - the client has not sent the 24 bytes of the HTTP/2 preface within the handshake timeout
//!   (`--handshake-timeout-ms`). With TLS the bytes counted are the `ClientHello`'s (this
//!   wrapper sits below TLS), and tonic's TLS handshake gets the same timeout; a client that
//!   completes TLS and then stalls is only closed at shutdown, like any idle connection;
//! - the server starts shutting down while the connection is still in its handshake;
//! - [`Connections::close_all`] is called: at the end of a drain, when no call is in flight any
//!   more (or the grace period is over), so idle HTTP/2 connections whose clients do not answer
//!   the GOAWAY (half-open ones) do not hold the exit up either.
//!
//! The accept loop also backs off briefly when accepting fails for lack of resources (too many
//! open files), instead of spinning on the error.

use std::{
    future::Future as _,
    io,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    time::Sleep,
};
use tokio_stream::Stream;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Length of the client connection preface of HTTP/2 (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`).
pub const PREFACE_LEN: usize = 24;
/// Pause of the accept loop after an accept error other than a vanished peer (`EMFILE`...).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The live connections of one server, and the switches that close them.
#[derive(Debug, Clone)]
pub struct Connections {
    shared: Arc<Shared>,
    handshake_timeout: Duration,
}

#[derive(Debug, Default)]
struct Shared {
    live: AtomicUsize,
    handshaking: AtomicUsize,
    /// Cancelled when the server starts shutting down: closes connections still in handshake.
    shutting_down: CancellationToken,
    /// Cancelled to close every connection.
    close_all: CancellationToken,
}

impl Connections {
    /// Tracking with the given handshake timeout.
    pub fn new(handshake_timeout: Duration) -> Self {
        Connections {
            shared: Arc::new(Shared::default()),
            handshake_timeout,
        }
    }

    /// Connections open now.
    pub fn live(&self) -> usize {
        self.shared.live.load(Ordering::Relaxed)
    }

    /// Connections that have not yet sent the HTTP/2 preface.
    pub fn handshaking(&self) -> usize {
        self.shared.handshaking.load(Ordering::Relaxed)
    }

    /// Closes the connections still in their handshake, now and from now on.
    pub fn shutting_down(&self) {
        self.shared.shutting_down.cancel();
    }

    /// Closes every connection.
    pub fn close_all(&self) {
        self.shared.close_all.cancel();
    }

    /// The stream of accepted connections for tonic's `serve_with_incoming_shutdown`.
    pub fn incoming(&self, listener: TcpListener) -> Incoming {
        Incoming {
            listener,
            connections: self.clone(),
            backoff: None,
        }
    }

    fn wrap(&self, tcp: TcpStream) -> Connection {
        let shared = &self.shared;
        Connection {
            tcp,
            handshake: Some(Handshake {
                received: 0,
                deadline: Box::pin(tokio::time::sleep(self.handshake_timeout)),
                shutting_down: Box::pin(shared.shutting_down.clone().cancelled_owned()),
                _counted: Counted::new(Arc::clone(shared), Gauge::Handshaking),
            }),
            closed: Box::pin(shared.close_all.clone().cancelled_owned()),
            _live: Counted::new(Arc::clone(shared), Gauge::Live),
        }
    }
}

/// Which count a [`Counted`] holds a unit of.
#[derive(Debug, Clone, Copy)]
enum Gauge {
    Live,
    Handshaking,
}

/// One unit of a count, given back on drop.
#[derive(Debug)]
struct Counted(Arc<Shared>, Gauge);

impl Counted {
    fn new(shared: Arc<Shared>, gauge: Gauge) -> Self {
        Self::counter(&shared, gauge).fetch_add(1, Ordering::Relaxed);
        Counted(shared, gauge)
    }

    fn counter(shared: &Shared, gauge: Gauge) -> &AtomicUsize {
        match gauge {
            Gauge::Live => &shared.live,
            Gauge::Handshaking => &shared.handshaking,
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        Self::counter(&self.0, self.1).fetch_sub(1, Ordering::Relaxed);
    }
}

/// Accepted connections (see the module docs).
#[derive(Debug)]
pub struct Incoming {
    listener: TcpListener,
    connections: Connections,
    backoff: Option<Pin<Box<Sleep>>>,
}

impl Stream for Incoming {
    type Item = io::Result<Connection>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(backoff) = this.backoff.as_mut() {
                if backoff.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.backoff = None;
            }
            match this.listener.poll_accept(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok((tcp, _peer))) => {
                    // Small request/response messages: do not wait to coalesce them.
                    if let Err(e) = tcp.set_nodelay(true) {
                        tracing::debug!(error = %e, "cannot set TCP_NODELAY");
                    }
                    return Poll::Ready(Some(Ok(this.connections.wrap(tcp))));
                }
                // The peer gave up before we accepted: nothing to serve, accept the next one.
                Poll::Ready(Err(e))
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                            | io::ErrorKind::Interrupted
                    ) => {}
                Poll::Ready(Err(e)) => {
                    // Out of file descriptors or memory: retrying at once would spin.
                    tracing::warn!(error = %e, "cannot accept connections; pausing");
                    this.backoff = Some(Box::pin(tokio::time::sleep(ACCEPT_BACKOFF)));
                }
            }
        }
    }
}

/// An accepted connection still owing its HTTP/2 preface.
#[derive(Debug)]
struct Handshake {
    received: usize,
    deadline: Pin<Box<Sleep>>,
    shutting_down: Pin<Box<WaitForCancellationFutureOwned>>,
    _counted: Counted,
}

/// An accepted TCP connection, closed by the server as the module docs say.
#[derive(Debug)]
pub struct Connection {
    tcp: TcpStream,
    handshake: Option<Handshake>,
    closed: Pin<Box<WaitForCancellationFutureOwned>>,
    _live: Counted,
}

impl Connection {
    /// The error that ends the connection now, if any. Polling the timers also registers the
    /// task to be woken when they fire, so hyper polls the connection (and sees the error) then.
    fn poll_close(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        if self.closed.as_mut().poll(cx).is_ready() {
            return Some(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "server closed the connection",
            ));
        }
        let handshake = self.handshake.as_mut()?;
        if handshake.shutting_down.as_mut().poll(cx).is_ready() {
            return Some(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "server shutting down before the HTTP/2 handshake",
            ));
        }
        if handshake.deadline.as_mut().poll(cx).is_ready() {
            tracing::debug!("closing a connection that sent no HTTP/2 preface in time");
            return Some(io::Error::new(
                io::ErrorKind::TimedOut,
                "no HTTP/2 preface within the handshake timeout",
            ));
        }
        None
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if let Some(error) = this.poll_close(cx) {
            return Poll::Ready(Err(error));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.tcp).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), Some(handshake)) = (&polled, this.handshake.as_mut()) {
            handshake.received += buf.filled().len() - before;
            if handshake.received >= PREFACE_LEN {
                this.handshake = None;
            }
        }
        polled
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(error) = self.poll_close(cx) {
            return Poll::Ready(Err(error));
        }
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(error) = self.poll_close(cx) {
            return Poll::Ready(Err(error));
        }
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

impl Connected for Connection {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.tcp.connect_info()
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio_stream::StreamExt as _;

    use super::*;

    /// A listener, its tracking and a connected client socket with the server's side of it.
    async fn pair(timeout: Duration) -> (Connections, TcpStream, Connection) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let connections = Connections::new(timeout);
        let mut incoming = connections.incoming(listener);
        let client = TcpStream::connect(addr).await.expect("connect");
        let server = incoming.next().await.expect("a connection").expect("ok");
        (connections, client, server)
    }

    #[tokio::test]
    async fn a_connection_without_a_preface_fails_at_the_handshake_timeout() {
        let (connections, _client, mut server) = pair(Duration::from_millis(50)).await;
        assert_eq!((connections.live(), connections.handshaking()), (1, 1));
        let mut buf = [0; 8];
        let err = tokio::time::timeout(Duration::from_secs(5), server.read(&mut buf))
            .await
            .expect("not stuck")
            .expect_err("timed out");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        drop(server);
        assert_eq!((connections.live(), connections.handshaking()), (0, 0));
    }

    #[tokio::test]
    async fn after_the_preface_the_timeout_no_longer_applies() {
        let (connections, mut client, mut server) = pair(Duration::from_millis(50)).await;
        client
            .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            .await
            .expect("write");
        let mut preface = [0; PREFACE_LEN];
        server.read_exact(&mut preface).await.expect("preface");
        assert_eq!(connections.handshaking(), 0);
        tokio::time::sleep(Duration::from_millis(100)).await;
        client.write_all(b"x").await.expect("write");
        let mut byte = [0; 1];
        server.read_exact(&mut byte).await.expect("still open");
        // ... until every connection is closed.
        connections.close_all();
        let err = server.read(&mut byte).await.expect_err("closed");
        assert_eq!(err.kind(), io::ErrorKind::ConnectionAborted);
    }

    #[tokio::test]
    async fn shutting_down_closes_connections_still_in_handshake() {
        let (connections, _client, mut server) = pair(Duration::from_secs(60)).await;
        let read = tokio::spawn(async move {
            let mut buf = [0; 8];
            server.read(&mut buf).await
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        connections.shutting_down();
        let result = tokio::time::timeout(Duration::from_secs(5), read)
            .await
            .expect("woken by the shutdown")
            .expect("task");
        assert_eq!(
            result.expect_err("closed").kind(),
            io::ErrorKind::ConnectionAborted
        );
    }
}
