//! In-process request handling for the `request` fuzz target (`fuzz/fuzz_targets/request.rs`).
//!
//! Fuzz-only code, kept out of the server. Two crates include this file with `#[path]`: the
//! fuzz target, and the service's `tests/fuzz_request.rs`, so that its test below runs in the
//! ordinary test suite (the fuzz crate is outside the workspace).
//!
//! [`handle_request`] decodes arbitrary bytes as each request message the server accepts and runs
//! every message that decodes through the same validation, conversion and engine calls as the
//! gRPC handlers in `api.rs`, minus the transport. Searches are capped at a few hundred nodes and
//! perft at depth 2 so that one input takes microseconds, not seconds. Panics are the bugs this
//! looks for; errors are fine (they become `INVALID_ARGUMENT` in the server).

use std::sync::{LazyLock, Mutex, PoisonError, atomic::AtomicBool};

use prost::Message as _;
use tonic::Status;
use variant_engine::{Registry, Searcher, SearcherConfig, divide, perft};

use variant_service::{
    config::Config,
    convert::{self, Caps, Game},
    proto as pb,
};

/// Node cap of fuzzed searches: enough to reach the move-ordering and result-conversion code.
const FUZZ_MAX_NODES: u64 = 256;
/// Depth cap of fuzzed perft requests.
const FUZZ_MAX_PERFT_DEPTH: u32 = 2;
/// Moves-list cap: long lists only repeat the replay loop.
const FUZZ_MAX_MOVES: usize = 64;

static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::builtin);
static CAPS: LazyLock<Caps> = LazyLock::new(|| {
    let mut caps = Caps::from(&Config::default());
    caps.max_moves = FUZZ_MAX_MOVES;
    caps.max_perft_depth = FUZZ_MAX_PERFT_DEPTH;
    caps.max_threads = 1;
    caps.default_threads = 1;
    caps
});
static SEARCH: LazyLock<Mutex<Searcher>> =
    LazyLock::new(|| Mutex::new(Searcher::new(SearcherConfig { hash_mb: 1 })));

/// Decodes `data` as `LegalMovesRequest`, `ApplyMoveRequest`, `BestMoveRequest`,
/// `PerftRequest`, `ReplayGameRequest` and `ValidateFenRequest` in turn and handles every one that decodes. Returns how many were answered
/// without an error (useful to see that the corpus reaches the engine).
pub(crate) fn handle_request(data: &[u8]) -> usize {
    let mut answered = 0;
    if let Ok(request) = pb::LegalMovesRequest::decode(data) {
        answered += usize::from(legal_moves(request).is_ok());
    }
    if let Ok(request) = pb::ApplyMoveRequest::decode(data) {
        answered += usize::from(apply_move(request).is_ok());
    }
    if let Ok(request) = pb::BestMoveRequest::decode(data) {
        answered += usize::from(best_move(request).is_ok());
    }
    if let Ok(request) = pb::PerftRequest::decode(data) {
        answered += usize::from(perft_request(request).is_ok());
    }
    if let Ok(request) = pb::ReplayGameRequest::decode(data) {
        answered += usize::from(convert::replay_game(&REGISTRY, &CAPS, request).is_ok());
    }
    if let Ok(request) = pb::ValidateFenRequest::decode(data) {
        answered += usize::from(convert::validate_fen(&REGISTRY, request).is_ok());
    }
    answered
}

/// Same steps as `GameEngine::legal_moves`.
fn legal_moves(request: pb::LegalMovesRequest) -> Result<pb::LegalMovesResponse, Status> {
    let detail = convert::move_detail(request.detail)?;
    let pos = Game::from_proto(&REGISTRY, &CAPS, request.position)?.position;
    Ok(convert::legal_moves_response(&pos, detail))
}

/// Same steps as `GameEngine::apply_move`.
fn apply_move(request: pb::ApplyMoveRequest) -> Result<pb::ApplyMoveResponse, Status> {
    let pb::ApplyMoveRequest { position, r#move } = request;
    let mut game = Game::from_proto(&REGISTRY, &CAPS, position)?;
    let description = game.play(&CAPS, &r#move)?;
    Ok(pb::ApplyMoveResponse {
        position: Some(game.to_proto()),
        fen: game.position.fen(),
        r#move: Some(convert::move_message(description)),
        status: Some(convert::status(&game.position)),
    })
}

/// Same steps as `GameEngine::best_move`, with the node cap instead of the search pool.
fn best_move(request: pb::BestMoveRequest) -> Result<pb::BestMoveResponse, Status> {
    let pb::BestMoveRequest { position, limits } = request;
    let pos = Game::from_proto(&REGISTRY, &CAPS, position)?.position;
    let (mut limits, options) = convert::limits(&CAPS, &pos, limits)?;
    if let Some(finished) = convert::finished_best_move(&pos) {
        return Ok(finished);
    }
    // Nodes, not time, bound the search: deterministic and fast whatever the request asked.
    limits.nodes = Some(
        limits
            .nodes
            .map_or(FUZZ_MAX_NODES, |n| n.min(FUZZ_MAX_NODES)),
    );
    limits.movetime = None;
    limits.threads = 1;
    let search = SEARCH.lock().unwrap_or_else(PoisonError::into_inner);
    let result = search.search(
        &pos,
        &limits,
        &options,
        &AtomicBool::new(false),
        &mut |_| {},
    );
    Ok(convert::best_move(&pos, &result))
}

/// Same steps as `GameEngine::perft`, on this thread.
fn perft_request(request: pb::PerftRequest) -> Result<pb::PerftResponse, Status> {
    let pb::PerftRequest {
        position,
        depth,
        split,
    } = request;
    let mut pos = Game::from_proto(&REGISTRY, &CAPS, position)?.position;
    let depth = convert::perft_depth(&CAPS, depth)?;
    let (nodes, moves) = if split {
        let moves = divide(&mut pos, depth);
        (moves.iter().map(|&(_, n)| n).sum(), moves)
    } else {
        (perft(&mut pos, depth), Vec::new())
    };
    Ok(convert::perft(&pos, nodes, &moves))
}

#[cfg(test)]
mod tests {
    use prost::Message as _;

    use super::*;

    #[test]
    fn garbage_and_valid_requests_are_handled_without_panics() {
        assert_eq!(handle_request(&[0xff, 0xff, 0xff]), 0);
        let start = Some(pb::Position {
            variant: "chess".into(),
            fen: String::new(),
            moves: vec!["e2e4".into()],
            draw_claims: false,
        });
        let best = pb::BestMoveRequest {
            position: start.clone(),
            limits: Some(pb::Limits {
                movetime_ms: 60_000,
                ..pb::Limits::default()
            }),
        };
        // Field 1 is the position everywhere, so one request reaches several paths; the
        // best-move path answers at least.
        assert!(handle_request(&best.encode_to_vec()) >= 1);
        for detail in [pb::MoveDetail::Full, pb::MoveDetail::Uci] {
            let legal = pb::LegalMovesRequest {
                position: start.clone(),
                detail: detail.into(),
            };
            assert!(handle_request(&legal.encode_to_vec()) >= 1, "{detail:?}");
        }
        let perft = pb::PerftRequest {
            position: start,
            depth: 2,
            split: true,
        };
        assert!(handle_request(&perft.encode_to_vec()) >= 1);
    }
}
