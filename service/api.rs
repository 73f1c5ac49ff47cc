//! The `GameEngine` gRPC handlers: convert the request, call the engine or the pool, convert back.
//!
//! Handlers stay thin; validation lives in `convert.rs`, CPU work in `engine_pool.rs`, and the
//! error mapping in `status.rs`. Each RPC runs inside the span opened by the tower layer in
//! `rpc_telemetry.rs` (so that calls failing before a handler are traced too); handlers only add
//! the `variant` and `moves` fields to it.

use std::{pin::Pin, sync::Arc, time::Instant};

use tokio_stream::{Stream, StreamExt as _};
use tonic::{Request, Response, Status};
use variant_engine::{PerftStop, Registry, divide_with_stop, perft_with_stop};

use crate::{
    convert::{self, Caps, Game},
    engine_pool::{AnalysisEvent, EnginePool},
    error::ServiceError,
    proto::{self as pb, game_engine_server::GameEngine},
};

/// Implementation of `chessvariants.engine.v1.GameEngine`.
#[derive(Debug, Clone)]
pub struct GameEngineService {
    registry: Arc<Registry>,
    caps: Arc<Caps>,
    pool: Arc<EnginePool>,
}

impl GameEngineService {
    /// Creates the service over a registry, request caps and a search pool.
    pub fn new(registry: Arc<Registry>, caps: Caps, pool: Arc<EnginePool>) -> Self {
        GameEngineService {
            registry,
            caps: Arc::new(caps),
            pool,
        }
    }

    /// Validates and replays a request position, recording the variant and the number of moves
    /// in the RPC span.
    fn game(&self, position: Option<pb::Position>) -> Result<Game, Status> {
        if let Some(p) = &position {
            tracing::Span::current()
                .record("variant", p.variant.as_str())
                .record("moves", p.moves.len());
        }
        Ok(Game::from_proto(&self.registry, &self.caps, position)?)
    }
}

/// The request's gRPC deadline as an instant.
fn deadline<T>(request: &Request<T>) -> Option<Instant> {
    convert::grpc_timeout(request.metadata()).and_then(|t| Instant::now().checked_add(t))
}

/// Stream type of `Analyze`.
type AnalyzeStream = Pin<Box<dyn Stream<Item = Result<pb::AnalyzeResponse, Status>> + Send>>;

#[tonic::async_trait]
impl GameEngine for GameEngineService {
    async fn list_variants(
        &self,
        _request: Request<pb::ListVariantsRequest>,
    ) -> Result<Response<pb::ListVariantsResponse>, Status> {
        Ok(Response::new(convert::variants(&self.registry)))
    }

    async fn legal_moves(
        &self,
        request: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        let request = request.into_inner();
        let detail = convert::move_detail(request.detail)?;
        let pos = self.game(request.position)?.position;
        Ok(Response::new(convert::legal_moves_response(&pos, detail)))
    }

    async fn apply_move(
        &self,
        request: Request<pb::ApplyMoveRequest>,
    ) -> Result<Response<pb::ApplyMoveResponse>, Status> {
        let pb::ApplyMoveRequest { position, r#move } = request.into_inner();
        let mut game = self.game(position)?;
        let description = game.play(&self.caps, &r#move)?;
        Ok(Response::new(pb::ApplyMoveResponse {
            position: Some(game.to_proto()),
            fen: game.position.fen(),
            r#move: Some(convert::move_message(description)),
            status: Some(convert::status(&game.position)),
        }))
    }

    async fn best_move(
        &self,
        request: Request<pb::BestMoveRequest>,
    ) -> Result<Response<pb::BestMoveResponse>, Status> {
        let deadline = deadline(&request);
        let pb::BestMoveRequest { position, limits } = request.into_inner();
        let pos = self.game(position)?.position;
        let (limits, options) = convert::limits(&self.caps, &pos, limits)?;
        if let Some(finished) = convert::finished_best_move(&pos) {
            return Ok(Response::new(finished));
        }
        let result = self
            .pool
            .best_move(pos.clone(), limits, options, deadline)
            .await?;
        tracing::info!(
            depth = result.depth,
            nodes = result.nodes,
            nps = result.nps,
            "search done"
        );
        Ok(Response::new(convert::best_move(&pos, &result)))
    }

    type AnalyzeStream = AnalyzeStream;

    async fn analyze(
        &self,
        request: Request<pb::AnalyzeRequest>,
    ) -> Result<Response<Self::AnalyzeStream>, Status> {
        let deadline = deadline(&request);
        let pb::AnalyzeRequest { position, limits } = request.into_inner();
        let pos = self.game(position)?.position;
        let (limits, options) = convert::limits(&self.caps, &pos, limits)?;
        if let Some(finished) = convert::finished_best_move(&pos) {
            let done = pb::AnalyzeResponse {
                update: Some(pb::analyze_response::Update::Result(finished)),
            };
            return Ok(Response::new(Box::pin(tokio_stream::once(Ok(done)))));
        }
        let analysis = self
            .pool
            .analyze(pos.clone(), limits, options, deadline)
            .await?;
        let stream = analysis.map(move |event| {
            let update = match event? {
                AnalysisEvent::Info(info) => {
                    pb::analyze_response::Update::Info(convert::line(&pos, &info))
                }
                AnalysisEvent::Done(result) => {
                    pb::analyze_response::Update::Result(convert::best_move(&pos, &result))
                }
            };
            Ok(pb::AnalyzeResponse {
                update: Some(update),
            })
        });
        Ok(Response::new(Box::pin(stream)))
    }

    async fn perft(
        &self,
        request: Request<pb::PerftRequest>,
    ) -> Result<Response<pb::PerftResponse>, Status> {
        let deadline = deadline(&request);
        let pb::PerftRequest {
            position,
            depth,
            split,
        } = request.into_inner();
        let mut pos = self.game(position)?.position;
        let depth = convert::perft_depth(&self.caps, depth)?;
        let counted = self
            .pool
            .run(deadline, move |flag, budget| {
                // The budget is the deadline less the answering margin: stopping there still
                // answers DEADLINE_EXCEEDED in time, and frees the slot at once.
                let stop = PerftStop {
                    flag,
                    deadline: budget.and_then(|b| Instant::now().checked_add(b)),
                };
                let counted = if split {
                    divide_with_stop(&mut pos, depth, stop)
                        .map(|moves| (moves.iter().map(|&(_, n)| n).sum(), moves))
                } else {
                    perft_with_stop(&mut pos, depth, stop).map(|nodes| (nodes, Vec::new()))
                };
                counted.map(|(nodes, moves)| convert::perft(&pos, nodes, &moves))
            })
            .await?;
        let response = counted.ok_or(if self.pool.is_finishing() {
            ServiceError::ShuttingDown
        } else {
            ServiceError::PerftUnfinished { depth }
        })?;
        Ok(Response::new(response))
    }

    async fn replay_game(
        &self,
        request: Request<pb::ReplayGameRequest>,
    ) -> Result<Response<pb::ReplayGameResponse>, Status> {
        let request = request.into_inner();
        if let Some(p) = &request.position {
            tracing::Span::current()
                .record("variant", p.variant.as_str())
                .record("moves", p.moves.len());
        }
        Ok(Response::new(convert::replay_game(
            &self.registry,
            &self.caps,
            request,
        )?))
    }

    async fn validate_fen(
        &self,
        request: Request<pb::ValidateFenRequest>,
    ) -> Result<Response<pb::ValidateFenResponse>, Status> {
        let request = request.into_inner();
        tracing::Span::current().record("variant", request.variant.as_str());
        Ok(Response::new(convert::validate_fen(
            &self.registry,
            request,
        )?))
    }

    // The RPC span comes from the middleware for every RPC alike, so that Echo is a fair floor
    // for LegalMoves in load benchmarks.
    async fn echo(
        &self,
        request: Request<pb::EchoRequest>,
    ) -> Result<Response<pb::EchoResponse>, Status> {
        let pb::EchoRequest { payload } = request.into_inner();
        Ok(Response::new(pb::EchoResponse { payload }))
    }
}
