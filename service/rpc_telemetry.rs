//! Tower middleware that gives every RPC its span and its `rpc.server.duration` sample.
//!
//! It sits outside tonic's router, so it also sees calls that never reach a handler (unknown
//! methods, undecodable requests, refusals by other layers). Per call it:
//! - continues the caller's W3C trace (`traceparent`/`tracestate` metadata, extracted with the
//!   OpenTelemetry `TraceContextPropagator`) by making it the parent of the RPC span;
//! - opens the RPC span (`rpc.system`, `rpc.service`, `rpc.method`; the handler adds `variant`
//!   and `moves`), named `package.Service/Method` in OpenTelemetry, and enters it while the
//!   handler runs, so handler logs and the `search` span nest under it;
//! - reads the gRPC status from the response headers (errors are trailers-only responses) or
//!   from the trailers at the end of the body (successes, streams). The span and the duration
//!   therefore cover a streamed `Analyze` until its last message. A call dropped before it has a
//!   status (client cancelled or disconnected) counts as `CANCELLED`.

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
    time::Instant,
};

use http_body::{Body, Frame, SizeHint};
use opentelemetry::{
    propagation::{Extractor, TextMapPropagator as _},
    trace::TraceContextExt as _,
};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tonic::Code;
use tower::{Layer, Service};
use tracing::{Instrument as _, Level, Span, field::Empty};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::telemetry::RpcMetrics;

/// Layer producing [`RpcTelemetry`].
#[derive(Debug, Clone, Default)]
pub struct RpcTelemetryLayer {
    metrics: RpcMetrics,
}

impl RpcTelemetryLayer {
    /// A layer recording into `metrics`.
    pub fn new(metrics: RpcMetrics) -> Self {
        RpcTelemetryLayer { metrics }
    }
}

impl<S> Layer<S> for RpcTelemetryLayer {
    type Service = RpcTelemetry<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RpcTelemetry {
            inner,
            metrics: self.metrics.clone(),
        }
    }
}

/// The middleware service (see the module docs).
#[derive(Debug, Clone)]
pub struct RpcTelemetry<S> {
    inner: S,
    metrics: RpcMetrics,
}

/// Reads W3C trace context from request headers (gRPC metadata are HTTP/2 headers).
struct MetadataExtractor<'a>(&'a http::HeaderMap);

impl Extractor for MetadataExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// Health checks come every few seconds from every probe: their span is at DEBUG level, so
/// neither the default logs nor the exported traces fill up with them (they are still measured
/// in `rpc.server.duration`).
const HEALTH_SERVICE: &str = "grpc.health.v1.Health";

/// The RPC span at a given level (a span's level must be a constant at its call site).
macro_rules! rpc_span {
    ($level:expr, $service:expr, $method:expr) => {
        tracing::span!(
            $level,
            "rpc",
            otel.name = format!("{}/{}", $service, $method),
            otel.kind = "server",
            otel.status_code = Empty,
            otel.status_description = Empty,
            rpc.system = "grpc",
            rpc.service = $service.as_str(),
            rpc.method = $method.as_str(),
            rpc.grpc.status_code = Empty,
            fault = Empty,
            variant = Empty,
            moves = Empty,
            trace_id = Empty,
        )
    };
}

/// `/package.Service/Method` -> (`package.Service`, `Method`).
fn split_path(path: &str) -> (String, String) {
    let path = path.strip_prefix('/').unwrap_or(path);
    match path.split_once('/') {
        Some((service, method)) => (service.to_owned(), method.to_owned()),
        None => (String::new(), path.to_owned()),
    }
}

/// gRPC codes that make a *server* span an error (OpenTelemetry RPC conventions): the others
/// are the caller's problem, not ours.
fn is_server_error(code: Code) -> bool {
    matches!(
        code,
        Code::Unknown
            | Code::DeadlineExceeded
            | Code::Unimplemented
            | Code::Internal
            | Code::Unavailable
            | Code::DataLoss
    )
}

/// Starts of the messages of tonic 0.14's request decoder (and prost's, through tonic-prost)
/// for a request it cannot read: undecodable protobuf, broken gRPC framing, a stream reset by
/// the client. gRPC's status-code table makes them `INTERNAL`, and we keep that code, but the
/// fault is the caller's. `tests/hostile.rs` sends each kind of broken request, so a tonic
/// upgrade that rewords one fails there.
const MALFORMED_REQUEST_MESSAGES: &[&str] = &[
    "failed to decode Protobuf message",
    "protocol error: received message with",
    "Unexpected EOF decoding stream",
    "Error decompressing",
    "Missing request message",
    "h2 protocol error",
];

/// Whose fault a failed call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The caller's: a bad or malformed request, a refusal, a cancellation.
    Client,
    /// Ours: the server could not do what a valid request asked.
    Server,
}

impl Fault {
    /// The call's fault, `None` for a success.
    pub fn of(status: &tonic::Status) -> Option<Fault> {
        let code = status.code();
        if code == Code::Ok {
            return None;
        }
        let malformed = code == Code::Internal
            && MALFORMED_REQUEST_MESSAGES
                .iter()
                .any(|start| status.message().starts_with(start));
        Some(if is_server_error(code) && !malformed {
            Fault::Server
        } else {
            Fault::Client
        })
    }

    /// The value of the `fault` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            Fault::Client => "client",
            Fault::Server => "server",
        }
    }
}

/// One call in flight: finishes the span and records the metric exactly once.
struct Call {
    span: Span,
    started: Instant,
    service: String,
    method: String,
    metrics: RpcMetrics,
    done: bool,
}

impl Call {
    fn finish(&mut self, status: &tonic::Status) {
        if self.done {
            return;
        }
        self.done = true;
        let code = status.code();
        let fault = Fault::of(status);
        self.span.record("rpc.grpc.status_code", code as i64);
        if let Some(fault) = fault {
            self.span.record("fault", fault.as_str());
        }
        if fault == Some(Fault::Server) {
            self.span
                .record("otel.status_code", "ERROR")
                .record("otel.status_description", status.message());
        }
        if let Some(fault) = fault {
            // Handlers return errors without logging them; this is the one log line per failure.
            // Entered (not just `parent:`) so JSON lines get the trace id too.
            let _entered = self.span.enter();
            tracing::info!(
                code = ?code,
                fault = fault.as_str(),
                error = status.message(),
                "rpc failed"
            );
        }
        self.metrics.record(
            &self.service,
            &self.method,
            code,
            fault,
            self.started.elapsed(),
        );
        self.metrics.call_ended();
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.finish(&tonic::Status::cancelled(
            "call dropped before it had a status",
        ));
    }
}

impl<S, ReqBody, ResBody> Service<http::Request<ReqBody>> for RpcTelemetry<S>
where
    S: Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    ResBody: Send + 'static,
{
    type Response = http::Response<ObservedBody<ResBody>>;
    type Error = S::Error;
    type Future =
        Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<ReqBody>) -> Self::Future {
        let (service, method) = split_path(request.uri().path());
        let span = if service == HEALTH_SERVICE {
            rpc_span!(Level::DEBUG, service, method)
        } else {
            rpc_span!(Level::INFO, service, method)
        };
        let caller = TraceContextPropagator::new().extract(&MetadataExtractor(request.headers()));
        if caller.span().span_context().is_valid() {
            // Fails only when no OpenTelemetry layer is installed (tests without telemetry).
            let _ = span.set_parent(caller);
        }
        // Text logs show span fields, so this puts the trace id into every line of the call.
        let context = span.context();
        let otel_span = context.span();
        let span_context = otel_span.span_context();
        if span_context.is_valid() {
            span.record("trace_id", span_context.trace_id().to_string());
        }
        self.metrics.call_started();
        let mut call = Call {
            span: span.clone(),
            started: Instant::now(),
            service,
            method,
            metrics: self.metrics.clone(),
            done: false,
        };
        let response = self.inner.call(request).instrument(span);
        Box::pin(async move {
            let response = response.await?;
            if let Some(status) = tonic::Status::from_header_map(response.headers()) {
                call.finish(&status);
            }
            Ok(response.map(|inner| ObservedBody { inner, call }))
        })
    }
}

/// Response body that watches for the trailers' `grpc-status` and closes the call.
pub struct ObservedBody<B> {
    inner: B,
    call: Call,
}

impl<B> std::fmt::Debug for ObservedBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObservedBody")
            .field("method", &self.call.method)
            .finish_non_exhaustive()
    }
}

impl<B> Body for ObservedBody<B>
where
    B: Body + Unpin,
{
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        let frame = Pin::new(&mut this.inner).poll_frame(cx);
        match &frame {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(status) = frame
                    .trailers_ref()
                    .and_then(tonic::Status::from_header_map)
                {
                    this.call.finish(&status);
                }
            }
            Poll::Ready(Some(Err(_))) => {
                this.call
                    .finish(&tonic::Status::internal("response body failed"));
            }
            Poll::Ready(None) | Poll::Pending => {}
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_service_and_method() {
        assert_eq!(
            split_path("/chessvariants.engine.v1.GameEngine/BestMove"),
            (
                "chessvariants.engine.v1.GameEngine".into(),
                "BestMove".into()
            )
        );
        assert_eq!(split_path("/odd"), (String::new(), "odd".into()));
    }

    #[test]
    fn only_server_side_failures_mark_the_span_as_an_error() {
        assert!(is_server_error(Code::Internal));
        assert!(is_server_error(Code::DeadlineExceeded));
        assert!(!is_server_error(Code::InvalidArgument));
        assert!(!is_server_error(Code::ResourceExhausted));
        assert!(!is_server_error(Code::Ok));
    }

    #[test]
    fn undecodable_requests_are_the_callers_fault_other_internal_errors_ours() {
        let fault = |code, message: &str| Fault::of(&tonic::Status::new(code, message));
        assert_eq!(
            fault(
                Code::Internal,
                "failed to decode Protobuf message: invalid wire type value: 7"
            ),
            Some(Fault::Client)
        );
        assert_eq!(
            fault(Code::Internal, "Unexpected EOF decoding stream."),
            Some(Fault::Client)
        );
        assert_eq!(fault(Code::Internal, "internal error"), Some(Fault::Server));
        assert_eq!(fault(Code::InvalidArgument, "bad"), Some(Fault::Client));
        assert_eq!(fault(Code::DeadlineExceeded, "late"), Some(Fault::Server));
        assert_eq!(fault(Code::Ok, ""), None);
    }

    #[test]
    fn traceparent_metadata_is_extracted() {
        let mut headers = http::HeaderMap::new();
        headers.insert(
            "traceparent",
            http::HeaderValue::from_static(
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            ),
        );
        let cx = TraceContextPropagator::new().extract(&MetadataExtractor(&headers));
        assert_eq!(
            cx.span().span_context().trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
    }
}
