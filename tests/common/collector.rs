//! An in-process fake OpenTelemetry Collector: the OTLP/gRPC trace and metrics services from
//! `opentelemetry-proto`, storing every span and metric they receive, on `127.0.0.1:0`.
//!
//! Included with `#[path]` by the telemetry tests only, so other test crates do not compile it.
#![allow(dead_code, reason = "each test crate uses a different subset")]

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use opentelemetry_proto::tonic::{
    collector::{
        metrics::v1::{
            ExportMetricsServiceRequest, ExportMetricsServiceResponse,
            metrics_service_server::{MetricsService, MetricsServiceServer},
        },
        trace::v1::{
            ExportTraceServiceRequest, ExportTraceServiceResponse,
            trace_service_server::{TraceService, TraceServiceServer},
        },
    },
    common::v1::{AnyValue, KeyValue, any_value::Value},
    metrics::v1::{Metric, metric::Data},
    trace::v1::Span,
};
use tonic::{Request, Response, Status, transport::Server};

/// A span as received, with its resource's attributes.
#[derive(Debug, Clone)]
pub struct ReceivedSpan {
    pub span: Span,
    pub resource: Vec<KeyValue>,
}

/// Everything received so far.
#[derive(Debug, Default)]
pub struct Received {
    pub spans: Vec<ReceivedSpan>,
    pub metrics: Vec<Metric>,
}

/// Handle to the running collector.
#[derive(Debug, Clone)]
pub struct Collector {
    pub addr: SocketAddr,
    received: Arc<Mutex<Received>>,
}

#[derive(Debug, Clone)]
struct Store(Arc<Mutex<Received>>);

#[tonic::async_trait]
impl TraceService for Store {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let mut received = self.0.lock().unwrap();
        for resource_spans in request.into_inner().resource_spans {
            let resource = resource_spans
                .resource
                .map(|r| r.attributes)
                .unwrap_or_default();
            for scope in resource_spans.scope_spans {
                for span in scope.spans {
                    received.spans.push(ReceivedSpan {
                        span,
                        resource: resource.clone(),
                    });
                }
            }
        }
        Ok(Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Store {
    async fn export(
        &self,
        request: Request<ExportMetricsServiceRequest>,
    ) -> Result<Response<ExportMetricsServiceResponse>, Status> {
        let mut received = self.0.lock().unwrap();
        for resource_metrics in request.into_inner().resource_metrics {
            for scope in resource_metrics.scope_metrics {
                received.metrics.extend(scope.metrics);
            }
        }
        Ok(Response::new(ExportMetricsServiceResponse::default()))
    }
}

impl Collector {
    /// Starts the collector on a background task of the current (multi-thread) runtime.
    pub async fn start() -> Collector {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind collector");
        let addr = listener.local_addr().expect("collector addr");
        let received = Arc::new(Mutex::new(Received::default()));
        let store = Store(Arc::clone(&received));
        tokio::spawn(
            Server::builder()
                .add_service(TraceServiceServer::new(store.clone()))
                .add_service(MetricsServiceServer::new(store))
                .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
        );
        Collector { addr, received }
    }

    /// `http://addr`, the value for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Runs `check` on what was received until it returns `Some`, for at most `timeout`.
    pub async fn wait_for<T>(
        &self,
        timeout: Duration,
        mut check: impl FnMut(&Received) -> Option<T>,
    ) -> Option<T> {
        let end = Instant::now() + timeout;
        loop {
            if let Some(found) = check(&self.received.lock().unwrap()) {
                return Some(found);
            }
            if Instant::now() > end {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A description of what was received, for assertion messages.
    pub fn summary(&self) -> String {
        let received = self.received.lock().unwrap();
        let spans: Vec<&str> = received
            .spans
            .iter()
            .map(|s| s.span.name.as_str())
            .collect();
        let metrics: Vec<&str> = received.metrics.iter().map(|m| m.name.as_str()).collect();
        format!("spans {spans:?}, metrics {metrics:?}")
    }
}

/// The value of attribute `key`, as text.
pub fn attr(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(value_text)
}

fn value_text(value: &AnyValue) -> Option<String> {
    Some(match value.value.as_ref()? {
        Value::StringValue(s) => s.clone(),
        Value::IntValue(i) => i.to_string(),
        Value::BoolValue(b) => b.to_string(),
        Value::DoubleValue(d) => d.to_string(),
        _ => return None,
    })
}

/// Hex of an id (trace and span ids travel as bytes).
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// Attribute sets of every data point of a metric (histogram or sum).
pub fn point_attributes(metric: &Metric) -> Vec<HashMap<String, String>> {
    let to_map = |attrs: &[KeyValue]| -> HashMap<String, String> {
        attrs
            .iter()
            .filter_map(|kv| Some((kv.key.clone(), kv.value.as_ref().and_then(value_text)?)))
            .collect()
    };
    match metric.data.as_ref() {
        Some(Data::Histogram(h)) => h
            .data_points
            .iter()
            .map(|p| to_map(&p.attributes))
            .collect(),
        Some(Data::Sum(s)) => s
            .data_points
            .iter()
            .map(|p| to_map(&p.attributes))
            .collect(),
        Some(Data::Gauge(g)) => g
            .data_points
            .iter()
            .map(|p| to_map(&p.attributes))
            .collect(),
        _ => Vec::new(),
    }
}

/// Total of a sum metric's integer data points.
pub fn sum_total(metric: &Metric) -> i64 {
    use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as N;
    match metric.data.as_ref() {
        Some(Data::Sum(s)) => s
            .data_points
            .iter()
            .map(|p| match p.value {
                Some(N::AsInt(i)) => i,
                Some(N::AsDouble(d)) => d as i64,
                None => 0,
            })
            .sum(),
        _ => 0,
    }
}

/// The W3C `traceparent` of a caller whose trace the server must continue.
pub const CALLER_TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
/// The caller's span id (the parent of our RPC span).
pub const CALLER_SPAN_ID: &str = "00f067aa0ba902b7";
/// `traceparent` header value (sampled).
pub const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// A request carrying the caller's `traceparent`.
pub fn traced<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("traceparent", TRACEPARENT.parse().expect("ascii"));
    request
}

/// The calls both telemetry tests make: a search, a streamed analysis and a rejected request,
/// each with the caller's `traceparent`.
pub async fn make_calls(channel: tonic::transport::Channel) {
    use variant_service::proto as pb;
    let client =
        &mut variant_service::proto::game_engine_client::GameEngineClient::new(channel.clone());
    let position = || {
        Some(pb::Position {
            variant: "chess".into(),
            fen: String::new(),
            moves: vec!["e2e4".into(), "e7e5".into()],
            draw_claims: false,
        })
    };
    let limits = || {
        Some(pb::Limits {
            depth: 2,
            threads: 1,
            ..pb::Limits::default()
        })
    };
    let best = client
        .best_move(traced(pb::BestMoveRequest {
            position: position(),
            limits: limits(),
        }))
        .await
        .expect("BestMove succeeds")
        .into_inner();
    assert!(best.nodes > 0);
    let mut stream = client
        .analyze(traced(pb::AnalyzeRequest {
            position: position(),
            limits: limits(),
        }))
        .await
        .expect("Analyze starts")
        .into_inner();
    while stream.message().await.expect("Analyze streams").is_some() {}
    let err = client
        .legal_moves(traced(pb::LegalMovesRequest {
            position: Some(pb::Position {
                variant: "no-such-variant".into(),
                ..pb::Position::default()
            }),
            ..Default::default()
        }))
        .await
        .expect_err("unknown variant");
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    let err = undecodable_legal_moves(channel).await;
    assert_eq!(err.code(), tonic::Code::Internal, "{err:?}");
}

/// Passes request bytes through as they are, so a test can send what no client would.
#[derive(Debug, Clone, Copy, Default)]
pub struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl tonic::codec::Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(
        &mut self,
        item: Vec<u8>,
        dst: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        bytes::BufMut::put_slice(dst, &item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn decode(
        &mut self,
        src: &mut tonic::codec::DecodeBuf<'_>,
    ) -> Result<Option<Vec<u8>>, tonic::Status> {
        let len = bytes::Buf::remaining(src);
        Ok(Some(bytes::Buf::copy_to_bytes(src, len).to_vec()))
    }
}

/// A `LegalMoves` call whose request is no protobuf (field 1 with wire type 7), with the
/// caller's `traceparent`; returns its status.
pub async fn undecodable_legal_moves(channel: tonic::transport::Channel) -> tonic::Status {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("channel ready");
    grpc.unary(
        traced(vec![0x0f, 0xff, 0xff, 0xff]),
        http::uri::PathAndQuery::from_static("/chessvariants.engine.v1.GameEngine/LegalMoves"),
        RawCodec,
    )
    .await
    .expect_err("no protobuf")
}

/// How long to wait for exports (a generous bound; normally well under a second).
pub const ARRIVAL: Duration = Duration::from_secs(20);

/// Asserts the spans of [`make_calls`] arrived: RPC spans continuing the caller's trace, with
/// their attributes, and the search span as a child of the RPC span.
pub async fn assert_spans(collector: &Collector) {
    let find_rpc = |received: &Received, method: &str| {
        received
            .spans
            .iter()
            .find(|s| attr(&s.span.attributes, "rpc.method").as_deref() == Some(method))
            .cloned()
    };
    let best = collector
        .wait_for(ARRIVAL, |r| find_rpc(r, "BestMove"))
        .await
        .unwrap_or_else(|| panic!("no BestMove span; got {}", collector.summary()));
    let span = &best.span;
    assert_eq!(span.name, "chessvariants.engine.v1.GameEngine/BestMove");
    assert_eq!(
        hex(&span.trace_id),
        CALLER_TRACE_ID,
        "caller's trace continued"
    );
    assert_eq!(
        hex(&span.parent_span_id),
        CALLER_SPAN_ID,
        "caller's span is the parent"
    );
    assert_eq!(span.kind, 2, "SPAN_KIND_SERVER");
    let a = &span.attributes;
    assert_eq!(attr(a, "rpc.system").as_deref(), Some("grpc"));
    assert_eq!(
        attr(a, "rpc.service").as_deref(),
        Some("chessvariants.engine.v1.GameEngine")
    );
    assert_eq!(attr(a, "variant").as_deref(), Some("chess"));
    assert_eq!(attr(a, "moves").as_deref(), Some("2"));
    assert_eq!(attr(a, "rpc.grpc.status_code").as_deref(), Some("0"));

    let rpc_span_id = span.span_id.clone();
    let search = collector
        .wait_for(ARRIVAL, |r| {
            r.spans
                .iter()
                .find(|s| s.span.name == "search" && s.span.parent_span_id == rpc_span_id)
                .cloned()
        })
        .await
        .unwrap_or_else(|| panic!("no search span under BestMove; got {}", collector.summary()));
    assert_eq!(hex(&search.span.trace_id), CALLER_TRACE_ID);
    let a = &search.span.attributes;
    assert_eq!(attr(a, "depth").as_deref(), Some("2"));
    assert_eq!(attr(a, "threads").as_deref(), Some("1"));
    assert_eq!(attr(a, "stop_reason").as_deref(), Some("depth"));
    assert!(attr(a, "nodes").is_some_and(|n| n != "0"), "nodes recorded");
    assert!(attr(a, "nps").is_some(), "nps recorded");

    let analyze = collector
        .wait_for(ARRIVAL, |r| find_rpc(r, "Analyze"))
        .await
        .unwrap_or_else(|| panic!("no Analyze span; got {}", collector.summary()));
    assert_eq!(
        attr(&analyze.span.attributes, "rpc.grpc.status_code").as_deref(),
        Some("0"),
        "a stream's status comes from its trailers"
    );
    let rejected = collector
        .wait_for(ARRIVAL, |r| find_rpc(r, "LegalMoves"))
        .await
        .unwrap_or_else(|| panic!("no LegalMoves span; got {}", collector.summary()));
    assert_eq!(
        attr(&rejected.span.attributes, "rpc.grpc.status_code").as_deref(),
        Some("3"),
        "INVALID_ARGUMENT"
    );
    assert_eq!(hex(&rejected.span.trace_id), CALLER_TRACE_ID);
    // The undecodable request: INTERNAL, as gRPC's table says, but the caller's fault, so its
    // span is not an error span.
    let undecodable = collector
        .wait_for(ARRIVAL, |r| {
            r.spans
                .iter()
                .find(|s| {
                    attr(&s.span.attributes, "rpc.method").as_deref() == Some("LegalMoves")
                        && attr(&s.span.attributes, "rpc.grpc.status_code").as_deref() == Some("13")
                })
                .cloned()
        })
        .await
        .unwrap_or_else(|| {
            panic!(
                "no span of the undecodable call; got {}",
                collector.summary()
            )
        });
    assert_eq!(
        attr(&undecodable.span.attributes, "fault").as_deref(),
        Some("client")
    );
    let status = undecodable.span.status.clone().unwrap_or_default();
    assert_ne!(
        status.code, 2,
        "STATUS_CODE_ERROR for a client's malformed request"
    );
}

/// Asserts the metrics of [`make_calls`] arrived: `rpc.server.duration` per method and status,
/// and the search metrics.
pub async fn assert_metrics(collector: &Collector) {
    let has_point = |r: &Received, method: &str, code: &str| {
        r.metrics
            .iter()
            .filter(|m| m.name == "rpc.server.duration")
            .flat_map(point_attributes)
            .any(|p| {
                p.get("rpc.method").map(String::as_str) == Some(method)
                    && p.get("rpc.grpc.status_code").map(String::as_str) == Some(code)
                    && p.get("rpc.system").map(String::as_str) == Some("grpc")
                    && p.get("rpc.service").map(String::as_str)
                        == Some("chessvariants.engine.v1.GameEngine")
            })
    };
    let malformed_is_a_client_fault = |r: &Received| {
        r.metrics
            .iter()
            .filter(|m| m.name == "rpc.server.duration")
            .flat_map(point_attributes)
            .any(|p| {
                p.get("rpc.method").map(String::as_str) == Some("LegalMoves")
                    && p.get("rpc.grpc.status_code").map(String::as_str) == Some("13")
                    && p.get("fault").map(String::as_str) == Some("client")
            })
    };
    collector
        .wait_for(ARRIVAL, |r| malformed_is_a_client_fault(r).then_some(()))
        .await
        .unwrap_or_else(|| {
            panic!(
                "the undecodable call is not counted as a client fault; got {}",
                collector.summary()
            )
        });
    for (method, code) in [("BestMove", "0"), ("Analyze", "0"), ("LegalMoves", "3")] {
        collector
            .wait_for(ARRIVAL, |r| has_point(r, method, code).then_some(()))
            .await
            .unwrap_or_else(|| {
                panic!(
                    "no rpc.server.duration point for {method} {code}; got {}",
                    collector.summary()
                )
            });
    }
    let unit = collector
        .wait_for(ARRIVAL, |r| {
            r.metrics
                .iter()
                .find(|m| m.name == "rpc.server.duration")
                .map(|m| m.unit.clone())
        })
        .await;
    assert_eq!(unit.as_deref(), Some("ms"));
    let nodes = collector
        .wait_for(ARRIVAL, |r| {
            r.metrics
                .iter()
                .filter(|m| m.name == "variant.search.nodes")
                .map(sum_total)
                .max()
                .filter(|&n| n > 0)
        })
        .await;
    assert!(
        nodes.is_some(),
        "nodes counted; got {}",
        collector.summary()
    );
    for name in ["variant.search.duration", "variant.search.running"] {
        collector
            .wait_for(ARRIVAL, |r| {
                r.metrics.iter().any(|m| m.name == name).then_some(())
            })
            .await
            .unwrap_or_else(|| panic!("no {name}; got {}", collector.summary()));
    }
}
