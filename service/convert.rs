//! Every conversion between protobuf messages and engine types, with request validation.
//!
//! Messages are always destructured without `..` (the qdrant habit): adding a proto field breaks
//! the build here instead of being silently ignored.

use std::time::Duration;

use tonic::metadata::MetadataMap;
use variant_engine::{
    Color, Features, GameStatus, Limits, MoveDescription, MoveError, PieceDef, Position, Registry,
    Score, SearchInfo, SearchResult, StopReason, Termination, Variant,
};

use crate::{
    config::Config,
    error::{MoveField, ServiceError, ServiceResult},
    proto as pb,
    wire::{EncodedMoves, EncodedTexts},
};

/// Highest skill level the engine understands (0..=20, like Stockfish).
const MAX_SKILL_LEVEL: u32 = 20;

/// Request caps taken from the configuration, so conversions need not see all of [`Config`].
#[derive(Debug, Clone)]
pub struct Caps {
    /// Longest accepted `Position.moves`.
    pub max_moves: usize,
    /// Largest perft depth.
    pub max_perft_depth: u32,
    /// Largest `limits.depth`.
    pub max_depth: u32,
    /// Largest `limits.nodes`.
    pub max_nodes: u64,
    /// Largest `limits.movetime_ms`; also the time cap of searches limited only by depth/nodes.
    pub max_movetime_ms: u32,
    /// Search time when a request sets no limit at all.
    pub default_movetime_ms: u32,
    /// Largest `limits.threads`.
    pub max_threads: u32,
    /// Threads used when `limits.threads` is 0.
    pub default_threads: u32,
    /// Largest `limits.multipv`.
    pub max_multipv: u32,
}

impl From<&Config> for Caps {
    fn from(config: &Config) -> Self {
        Caps {
            max_moves: config.max_moves,
            max_perft_depth: config.max_perft_depth,
            max_depth: config.max_depth,
            max_nodes: config.max_nodes,
            max_movetime_ms: config.max_movetime_ms,
            default_movetime_ms: config.default_movetime_ms,
            max_threads: config.max_threads,
            // `Config::validate` ensures search_threads <= max_threads.
            default_threads: u32::try_from(config.search_threads).unwrap_or(config.max_threads),
            max_multipv: config.max_multipv,
        }
    }
}

/// A request position after validation: the engine position plus what is needed to echo it.
#[derive(Debug, Clone)]
pub struct Game {
    /// The position after replaying every move.
    pub position: Position,
    /// The start FEN as sent (empty = variant start).
    pub start_fen: String,
    /// The replayed moves, normalised to UCI-style text.
    pub moves: Vec<String>,
}

impl Game {
    /// Parses and replays a request position.
    ///
    /// # Errors
    /// Missing position, unknown variant, bad FEN, too many moves, or a move that fails
    /// (naming its index and text).
    pub fn from_proto(
        registry: &Registry,
        caps: &Caps,
        position: Option<pb::Position>,
    ) -> ServiceResult<Game> {
        let pb::Position {
            variant,
            fen,
            moves,
        } = position.ok_or(ServiceError::Missing("position"))?;
        if moves.len() > caps.max_moves {
            return Err(ServiceError::TooManyMoves {
                count: moves.len(),
                max: caps.max_moves,
            });
        }
        let mut pos = if fen.is_empty() {
            registry.start_position(&variant)?
        } else {
            Position::from_fen(registry.get(&variant)?, &fen)?
        };
        let mut played = Vec::with_capacity(moves.len());
        let mut normal = String::new();
        for (index, text) in moves.into_iter().enumerate() {
            let m = match pos.parse_move(&text) {
                Ok(m) => m,
                Err(source) => {
                    return Err(refused_move(&pos, MoveField::List(index), text, source));
                }
            };
            // Clients mostly send the normalised text already: keep their string then rather
            // than allocating a new one per replayed move.
            normal.clear();
            pos.write_uci(m, &mut normal);
            played.push(if normal == text { text } else { normal.clone() });
            pos.play(m);
        }
        Ok(Game {
            position: pos,
            start_fen: fen,
            moves: played,
        })
    }

    /// Plays one more move (UCI-style text or SAN) and records its normalised text.
    ///
    /// # Errors
    /// The move is unparsable or illegal, or the moves list would exceed the cap.
    pub fn play(&mut self, caps: &Caps, text: &str) -> ServiceResult<MoveDescription> {
        if self.moves.len() >= caps.max_moves {
            return Err(ServiceError::TooManyMoves {
                count: self.moves.len() + 1,
                max: caps.max_moves,
            });
        }
        let m = self.position.parse_move(text).map_err(|source| {
            refused_move(&self.position, MoveField::Apply, text.into(), source)
        })?;
        let description = self.position.describe(m);
        self.moves.push(description.uci.clone());
        self.position.play(m);
        Ok(description)
    }

    /// The position as a message: canonical variant name, start FEN as sent, normalised moves.
    pub fn to_proto(&self) -> pb::Position {
        pb::Position {
            variant: self.position.variant().name().to_owned(),
            fen: self.start_fen.clone(),
            moves: self.moves.clone(),
        }
    }
}

/// The error for a move the engine refused in `pos`: the game is over if the position has no
/// legal moves left (mate, stalemate, a Decima result), else the engine's reason.
fn refused_move(pos: &Position, field: MoveField, text: String, source: MoveError) -> ServiceError {
    if matches!(source, MoveError::Illegal { .. })
        && let GameStatus::Finished { reason, .. } = pos.status()
        && pos.count_legal_moves() == 0
    {
        return ServiceError::GameOver {
            field,
            text,
            reason,
        };
    }
    match field {
        MoveField::Apply => ServiceError::InvalidMove(source),
        MoveField::List(index) => ServiceError::MoveList {
            index,
            text,
            source,
        },
    }
}

/// Checks `value` against `min..=max`, naming `field` on failure.
fn in_range<T: Copy + Into<u64>>(
    field: &'static str,
    value: T,
    min: T,
    max: T,
) -> ServiceResult<T> {
    let (v, lo, hi) = (value.into(), min.into(), max.into());
    if (lo..=hi).contains(&v) {
        Ok(value)
    } else {
        Err(ServiceError::OutOfRange {
            field,
            value: v,
            min: lo,
            max: hi,
        })
    }
}

/// Validates search limits against the caps; 0 means "not set" (see the .proto).
///
/// # Errors
/// [`ServiceError::OutOfRange`] naming the field, its value and the allowed range.
pub fn limits(caps: &Caps, limits: Option<pb::Limits>) -> ServiceResult<Limits> {
    let pb::Limits {
        depth,
        nodes,
        movetime_ms,
        threads,
        multipv,
        skill_level,
    } = limits.unwrap_or_default();
    let depth = (depth != 0)
        .then(|| in_range("limits.depth", depth, 1, caps.max_depth))
        .transpose()?;
    let nodes = (nodes != 0)
        .then(|| in_range("limits.nodes", nodes, 1, caps.max_nodes))
        .transpose()?;
    let movetime_ms = if movetime_ms != 0 {
        in_range("limits.movetime_ms", movetime_ms, 1, caps.max_movetime_ms)?
    } else if depth.is_none() && nodes.is_none() {
        caps.default_movetime_ms
    } else {
        // Depth/node-limited searches still get a time cap so no request runs unbounded.
        caps.max_movetime_ms
    };
    let threads = if threads == 0 {
        caps.default_threads
    } else {
        in_range("limits.threads", threads, 1, caps.max_threads)?
    };
    let multipv = if multipv == 0 {
        1
    } else {
        in_range("limits.multipv", multipv, 1, caps.max_multipv)?
    };
    let skill_level = skill_level
        .map(|s| in_range("limits.skill_level", s, 0, MAX_SKILL_LEVEL))
        .transpose()?;
    Ok(Limits {
        depth,
        nodes,
        movetime: Some(Duration::from_millis(u64::from(movetime_ms))),
        clock: None,
        infinite: false,
        threads: threads as usize,
        multipv: multipv as usize,
        skill_level: skill_level.map(|s| s as u8),
        seed: 0,
        features: Features::default(),
    })
}

/// Validates a perft depth (1..=cap).
///
/// # Errors
/// [`ServiceError::OutOfRange`] for `depth`.
pub fn perft_depth(caps: &Caps, depth: u32) -> ServiceResult<u32> {
    in_range("depth", depth, 1, caps.max_perft_depth)
}

/// Reads the gRPC deadline (`grpc-timeout` header, e.g. `250m`) of a request.
///
/// Returns `None` when absent or malformed (tonic itself rejects malformed values).
pub fn grpc_timeout(metadata: &MetadataMap) -> Option<Duration> {
    let text = metadata.get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    let value: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(value.saturating_mul(3600)),
        "M" => Duration::from_secs(value.saturating_mul(60)),
        "S" => Duration::from_secs(value),
        "m" => Duration::from_millis(value),
        "u" => Duration::from_micros(value),
        "n" => Duration::from_nanos(value),
        _ => return None,
    })
}

/// Status of a position.
pub fn status(pos: &Position) -> pb::GameStatus {
    status_message(pos, pos.status())
}

/// Status of a position whose legal moves were just listed (`legal_moves` of them), without
/// generating them again.
pub fn status_with_legal_moves(pos: &Position, legal_moves: usize) -> pb::GameStatus {
    status_message(pos, pos.status_with_legal_moves(legal_moves))
}

fn status_message(pos: &Position, status: GameStatus) -> pb::GameStatus {
    let in_check = pos.in_check();
    match status {
        GameStatus::Ongoing => pb::GameStatus {
            ongoing: true,
            result: pb::GameResult::Unspecified.into(),
            reason: pb::Termination::Unspecified.into(),
            in_check,
        },
        GameStatus::Finished { winner, reason } => pb::GameStatus {
            ongoing: false,
            result: match winner {
                Some(Color::White) => pb::GameResult::WhiteWins,
                Some(Color::Black) => pb::GameResult::BlackWins,
                None => pb::GameResult::Draw,
            }
            .into(),
            reason: termination(reason).into(),
            in_check,
        },
    }
}

fn termination(reason: Termination) -> pb::Termination {
    match reason {
        Termination::Checkmate => pb::Termination::Checkmate,
        Termination::Stalemate => pb::Termination::Stalemate,
        Termination::ThreefoldRepetition => pb::Termination::ThreefoldRepetition,
        Termination::FiftyMoveRule => pb::Termination::FiftyMoveRule,
        Termination::TenPoints => pb::Termination::DecimaTenPoints,
        Termination::CheckUnanswered => pb::Termination::DecimaCheckUnanswered,
        Termination::LastUnitCaptured => pb::Termination::DecimaLastUnitCaptured,
        Termination::InsufficientMaterial => pb::Termination::InsufficientMaterial,
    }
}

impl From<MoveDescription> for pb::Move {
    fn from(description: MoveDescription) -> Self {
        let MoveDescription {
            uci,
            san,
            from,
            to,
            promotion,
            drop,
            relocation,
            capture,
            check,
        } = description;
        pb::Move {
            uci,
            san,
            from: from.unwrap_or_default(),
            to,
            promotion: promotion.map(String::from).unwrap_or_default(),
            drop: drop.map(String::from).unwrap_or_default(),
            relocation: relocation.unwrap_or_default(),
            capture,
            check,
        }
    }
}

/// Reads `LegalMovesRequest.detail`.
///
/// # Errors
/// [`ServiceError::UnknownEnumValue`] for a number the .proto does not define.
pub fn move_detail(value: i32) -> ServiceResult<pb::MoveDetail> {
    pb::MoveDetail::try_from(value).map_err(|_| ServiceError::UnknownEnumValue {
        field: "detail",
        value,
        name: "MoveDetail",
    })
}

/// The `LegalMoves` answer for a position: every legal move, encoded straight into the
/// response's buffer (no message or string per move; see [`crate::wire`]), its FEN and its
/// status. `detail` chooses between full descriptions (`moves`) and move texts only
/// (`uci_moves`, which skips SAN and the check probe).
pub fn legal_moves_response(pos: &Position, detail: pb::MoveDetail) -> pb::LegalMovesResponse {
    let mut response = pb::LegalMovesResponse {
        fen: pos.fen(),
        ..pb::LegalMovesResponse::default()
    };
    let count = match detail {
        pb::MoveDetail::Unspecified | pb::MoveDetail::Full => {
            // About 40 bytes per move (four short strings and their keys).
            let mut encoded = EncodedMoves::with_capacity(64 * 40);
            pos.describe_moves_with(|_, description| encoded.push(&description));
            let count = encoded.len();
            response.encoded_moves = encoded;
            count
        }
        pb::MoveDetail::Uci => {
            let legal = pos.legal_moves();
            let mut encoded = EncodedTexts::with_capacity(legal.len() * 8);
            let mut text = String::with_capacity(16);
            for &m in &legal {
                text.clear();
                pos.write_uci(m, &mut text);
                encoded.push(&text);
            }
            response.encoded_uci_moves = encoded;
            legal.len()
        }
    };
    response.status = Some(status_with_legal_moves(pos, count));
    response
}

impl From<&Variant> for pb::Variant {
    fn from(variant: &Variant) -> Self {
        pb::Variant {
            name: variant.name().to_owned(),
            files: variant.files().into(),
            ranks: variant.ranks().into(),
            start_fen: variant.start_fen().to_owned(),
            pieces: variant.pieces().iter().map(pb::Piece::from).collect(),
            summary: variant.summary().to_owned(),
            has_drops: variant.has_drops(),
        }
    }
}

impl From<&PieceDef> for pb::Piece {
    fn from(piece: &PieceDef) -> Self {
        // The role (pawn/royal/...) is implied by the Betza text and the name.
        let PieceDef {
            letter,
            name,
            betza,
            role: _,
            value,
            points,
        } = piece;
        pb::Piece {
            letter: letter.to_string(),
            name: name.clone(),
            betza: betza.clone(),
            value: *value,
            points: u32::from(*points),
        }
    }
}

/// Every variant of the registry.
pub fn variants(registry: &Registry) -> pb::ListVariantsResponse {
    pb::ListVariantsResponse {
        variants: registry
            .iter()
            .map(|v| pb::Variant::from(v.as_ref()))
            .collect(),
    }
}

impl From<Score> for pb::Score {
    fn from(score: Score) -> Self {
        pb::Score {
            value: Some(match score {
                Score::Centipawns(cp) => pb::score::Value::Centipawns(cp),
                Score::Mate(moves) => pb::score::Value::Mate(moves),
            }),
        }
    }
}

fn millis(time: Duration) -> u32 {
    u32::try_from(time.as_millis()).unwrap_or(u32::MAX)
}

/// Renders a move sequence starting at `pos` as UCI-style text.
fn pv_text(pos: &Position, pv: &[variant_engine::Move]) -> Vec<String> {
    // Each move is rendered in the position it is played in, and the walk stops at the first
    // move that is not legal there: engine output must never make the service panic.
    let mut walk = pos.clone();
    let mut out = Vec::with_capacity(pv.len());
    for &m in pv {
        if !walk.is_legal(m) {
            break;
        }
        out.push(walk.uci(m));
        walk.play(m);
    }
    out
}

/// One search iteration as a message.
pub fn line(pos: &Position, info: &SearchInfo) -> pb::Line {
    let SearchInfo {
        depth,
        seldepth,
        multipv,
        score,
        nodes,
        nps,
        time,
        pv,
    } = info;
    pb::Line {
        multipv: u32::try_from(*multipv).unwrap_or(u32::MAX),
        score: Some((*score).into()),
        pv: pv_text(pos, pv),
        depth: *depth,
        seldepth: *seldepth,
        nodes: *nodes,
        nps: *nps,
        time_ms: millis(*time),
    }
}

/// A finished search as a message.
pub fn best_move(pos: &Position, result: &SearchResult) -> pb::BestMoveResponse {
    let SearchResult {
        best_move,
        ponder,
        score,
        depth,
        seldepth,
        nodes,
        nps,
        time,
        pv,
        lines,
        stop_reason,
    } = result;
    let best = best_move.filter(|&m| pos.is_legal(m));
    let ponder = best.zip(*ponder).and_then(|(b, p)| {
        let mut after = pos.clone();
        after.play(b);
        after.is_legal(p).then(|| after.describe(p).into())
    });
    pb::BestMoveResponse {
        r#move: best.map(|m| pos.describe(m).into()),
        ponder,
        score: Some((*score).into()),
        pv: pv_text(pos, pv),
        depth: *depth,
        seldepth: *seldepth,
        nodes: *nodes,
        nps: *nps,
        time_ms: millis(*time),
        lines: lines.iter().map(|info| line(pos, info)).collect(),
        fen: pos.fen(),
        status: Some(status(pos)),
        stop_reason: self::stop_reason(*stop_reason).into(),
    }
}

fn stop_reason(reason: StopReason) -> pb::StopReason {
    match reason {
        StopReason::Depth => pb::StopReason::Depth,
        StopReason::Nodes => pb::StopReason::Nodes,
        StopReason::Time => pb::StopReason::Time,
        StopReason::Stopped => pb::StopReason::Stopped,
        StopReason::Mate => pb::StopReason::Mate,
        StopReason::NoMoves => pb::StopReason::NoMoves,
    }
}

/// A perft count as a message; `split` is empty unless the per-move split was asked for.
pub fn perft(
    pos: &Position,
    nodes: u64,
    split: &[(variant_engine::Move, u64)],
) -> pb::PerftResponse {
    pb::PerftResponse {
        nodes,
        moves: split
            .iter()
            .map(|&(m, nodes)| pb::PerftMove {
                uci: pos.uci(m),
                nodes,
            })
            .collect(),
        fen: pos.fen(),
        status: Some(status(pos)),
    }
}

#[cfg(test)]
mod tests {
    use tonic::metadata::MetadataValue;

    use super::*;

    fn caps() -> Caps {
        Caps::from(&Config::default())
    }

    #[test]
    fn unset_limits_get_the_default_movetime() {
        let l = limits(&caps(), None).expect("defaults are valid");
        assert_eq!(l.depth, None);
        assert_eq!(l.movetime, Some(Duration::from_secs(1)));
        assert_eq!((l.threads, l.multipv), (1, 1));
    }

    #[test]
    fn each_out_of_range_limit_names_its_field() {
        let caps = caps();
        let cases = [
            (
                "limits.depth",
                pb::Limits {
                    depth: caps.max_depth + 1,
                    ..Default::default()
                },
            ),
            (
                "limits.nodes",
                pb::Limits {
                    nodes: caps.max_nodes + 1,
                    ..Default::default()
                },
            ),
            (
                "limits.movetime_ms",
                pb::Limits {
                    movetime_ms: caps.max_movetime_ms + 1,
                    ..Default::default()
                },
            ),
            (
                "limits.threads",
                pb::Limits {
                    threads: caps.max_threads + 1,
                    ..Default::default()
                },
            ),
            (
                "limits.multipv",
                pb::Limits {
                    multipv: caps.max_multipv + 1,
                    ..Default::default()
                },
            ),
            (
                "limits.skill_level",
                pb::Limits {
                    skill_level: Some(21),
                    ..Default::default()
                },
            ),
        ];
        for (field, l) in cases {
            let err = limits(&caps, Some(l)).expect_err(field);
            assert!(err.to_string().starts_with(field), "{err}");
        }
    }

    #[test]
    fn grpc_timeout_units_parse() {
        let mut md = MetadataMap::new();
        md.insert("grpc-timeout", MetadataValue::from_static("250m"));
        assert_eq!(grpc_timeout(&md), Some(Duration::from_millis(250)));
        md.insert("grpc-timeout", MetadataValue::from_static("3S"));
        assert_eq!(grpc_timeout(&md), Some(Duration::from_secs(3)));
        md.insert("grpc-timeout", MetadataValue::from_static("x"));
        assert_eq!(grpc_timeout(&md), None);
    }
}
