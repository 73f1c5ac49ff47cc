//! Every conversion between protobuf messages and engine types, with request validation.
//!
//! Messages are always destructured without `..` (the qdrant habit): adding a proto field breaks
//! the build here instead of being silently ignored.

use std::time::Duration;

use tonic::metadata::MetadataMap;
use variant_engine::{
    Clock, Color, FenProblem, FenReport, GameStatus, LEVELS, Level, Limits, MAX_LEVEL,
    MoveDescription, MoveDescriptionRef, Network, PieceDef, Position, Refusal, Registry,
    ReplayError, Score, SearchInfo, SearchOptions, SearchResult, SplitMix64, StopReason,
    Termination, Variant, Wdl, WinRateModel, ladder, write_pgn,
};

use crate::{
    config::Config,
    error::{MoveField, ServiceError, ServiceResult},
    proto::{self as pb, EncodedMoves, EncodedTexts, MoveRecord},
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
    /// Learned evaluations (`--eval-file`), at most one per variant.
    pub nets: Vec<&'static Network>,
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
            // Loaded by `server::prepare`, which can report a bad file.
            nets: Vec::new(),
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
        let (mut pos, fen, moves) = unplayed(registry, caps, position)?;
        let played = pos.replay(moves).map_err(
            |ReplayError {
                 index,
                 text,
                 source,
             }| refused_move(MoveField::List(index), text, source),
        )?;
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
        let m = self
            .position
            .parse_next_move(text)
            .map_err(|refusal| refused_move(MoveField::Apply, text.into(), refusal))?;
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
            draw_claims: self.position.draw_claims(),
        }
    }
}

/// A request's position before its moves are played, with its FEN text and its moves list.
fn unplayed(
    registry: &Registry,
    caps: &Caps,
    position: Option<pb::Position>,
) -> ServiceResult<(Position, String, Vec<String>)> {
    let pb::Position {
        variant,
        fen,
        moves,
        draw_claims,
    } = position.ok_or(ServiceError::Missing("position"))?;
    let pos = start_position(registry, caps, &variant, &fen, draw_claims, moves.len())?;
    Ok((pos, fen, moves))
}

/// The start position of a request (the variant's start for an empty FEN), after checking
/// the length of its moves list.
fn start_position(
    registry: &Registry,
    caps: &Caps,
    variant: &str,
    fen: &str,
    draw_claims: bool,
    move_count: usize,
) -> ServiceResult<Position> {
    if move_count > caps.max_moves {
        return Err(ServiceError::TooManyMoves {
            count: move_count,
            max: caps.max_moves,
        });
    }
    let mut pos = if fen.is_empty() {
        registry.start_position(variant)?
    } else {
        Position::from_fen(registry.get(variant)?, fen)?
    };
    pos.set_draw_claims(draw_claims);
    Ok(pos)
}

/// Replays a whole game (`ReplayGame`): every move described in the position before it, the
/// FEN after each move when asked, the final status and the game as PGN.
///
/// # Errors
/// As [`Game::from_proto`]: the first move that cannot be played is named by its index.
pub fn replay_game(
    registry: &Registry,
    caps: &Caps,
    request: pb::ReplayGameRequest,
) -> ServiceResult<pb::ReplayGameResponse> {
    let pb::ReplayGameRequest { position, fens } = request;
    let (mut pos, _, moves) = unplayed(registry, caps, position)?;
    let start_fen = pos.fen();
    let mut described = Vec::with_capacity(moves.len());
    let mut after = Vec::with_capacity(if fens { moves.len() } else { 0 });
    for (index, text) in moves.into_iter().enumerate() {
        let m = pos
            .parse_next_move(&text)
            .map_err(|refusal| refused_move(MoveField::List(index), text, refusal))?;
        described.push(move_message(pos.describe(m)));
        pos.play(m);
        if fens {
            after.push(pos.fen());
        }
    }
    let game_status = pos.status();
    let (result, ending) = match game_status {
        GameStatus::Ongoing => ("*", "unterminated"),
        GameStatus::Finished { winner, reason } => (
            match winner {
                Some(Color::White) => "1-0",
                Some(Color::Black) => "0-1",
                None => "1/2-1/2",
            },
            reason.describe(),
        ),
    };
    let mut tags = vec![("Variant", pos.variant().name())];
    if start_fen != pos.variant().start_fen() {
        tags.extend([("SetUp", "1"), ("FEN", start_fen.as_str())]);
    }
    tags.extend([("Result", result), ("Termination", ending)]);
    let pgn = write_pgn(
        &tags,
        &start_fen,
        described.iter().map(|m| (m.san.as_str(), None::<&str>)),
        None,
        result,
    );
    Ok(pb::ReplayGameResponse {
        moves: described,
        fens: after,
        fen: pos.fen(),
        status: Some(status_message(&pos, game_status)),
        pgn,
    })
}

/// Checks a FEN (`ValidateFen`): valid with the normalised FEN, or every problem found, each
/// naming its field and, where there is one, its square.
///
/// # Errors
/// [`ServiceError::UnknownVariant`]: a FEN cannot be judged without its variant.
pub fn validate_fen(
    registry: &Registry,
    request: pb::ValidateFenRequest,
) -> ServiceResult<pb::ValidateFenResponse> {
    let pb::ValidateFenRequest { variant, fen } = request;
    let FenReport {
        problems,
        normalized,
    } = variant_engine::validate_fen(&registry.get(&variant)?, &fen);
    Ok(pb::ValidateFenResponse {
        valid: problems.is_empty(),
        fen: normalized.unwrap_or_default(),
        problems: problems
            .into_iter()
            .map(
                |FenProblem {
                     error,
                     field,
                     square,
                 }| pb::FenProblem {
                    field: field.as_str().to_owned(),
                    square: square.map(|sq| sq.to_string()).unwrap_or_default(),
                    message: error.to_string(),
                },
            )
            .collect(),
    })
}

/// The error for a move the engine refused: the game was over, or the engine's reason.
fn refused_move(field: MoveField, text: String, refusal: Refusal) -> ServiceError {
    match (refusal, field) {
        (Refusal::GameOver(reason), field) => ServiceError::GameOver {
            field,
            text,
            reason,
        },
        (Refusal::Move(source), MoveField::Apply) => ServiceError::InvalidMove(source),
        (Refusal::Move(source), MoveField::List(index)) => ServiceError::MoveList {
            index,
            text,
            source,
        },
        (Refusal::Move(source), MoveField::SearchMoves(index)) => ServiceError::SearchMove {
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

/// Longest accepted clock time, 30 days in milliseconds: far beyond any game, small enough that
/// the time manager's arithmetic cannot overflow.
const MAX_CLOCK_MS: u64 = 30 * 24 * 3600 * 1000;

/// Validates search limits against the caps; 0 means "not set" (see the .proto). The skill
/// level, the playing level and the seed are not limits: they come back in the search options
/// (a level also caps the limits). `pos` is the position to search, for `search_moves`.
///
/// # Errors
/// [`ServiceError::OutOfRange`] naming the field, its value and the allowed range, or
/// [`ServiceError::SearchMove`] for a root move that is not legal.
pub fn limits(
    caps: &Caps,
    pos: &Position,
    limits: Option<pb::Limits>,
) -> ServiceResult<(Limits, SearchOptions)> {
    let pb::Limits {
        depth,
        nodes,
        movetime_ms,
        threads,
        multipv,
        skill_level,
        clock,
        level,
        seed,
        search_moves,
    } = limits.unwrap_or_default();
    let depth = (depth != 0)
        .then(|| in_range("limits.depth", depth, 1, caps.max_depth))
        .transpose()?;
    let nodes = (nodes != 0)
        .then(|| in_range("limits.nodes", nodes, 1, caps.max_nodes))
        .transpose()?;
    let clock = clock.map(game_clock).transpose()?;
    let movetime_ms = if movetime_ms != 0 {
        in_range("limits.movetime_ms", movetime_ms, 1, caps.max_movetime_ms)?
    } else if depth.is_none() && nodes.is_none() && clock.is_none() {
        caps.default_movetime_ms
    } else {
        // Every search still gets a time cap so no request runs unbounded; a clock's own
        // budget is normally far below it.
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
    let level = level
        .map(|l| in_range("limits.level", l, 1, u32::from(MAX_LEVEL)))
        .transpose()?
        .and_then(|l| u8::try_from(l).ok())
        .and_then(Level::get);
    if search_moves.len() > caps.max_moves {
        return Err(ServiceError::OutOfRange {
            field: "limits.search_moves",
            value: search_moves.len() as u64,
            min: 0,
            max: caps.max_moves as u64,
        });
    }
    let search_moves = search_moves
        .iter()
        .enumerate()
        .map(|(index, text)| {
            pos.parse_next_move(text).map_err(|refusal| match refusal {
                Refusal::Move(source) => ServiceError::SearchMove {
                    index,
                    text: text.clone(),
                    source,
                },
                Refusal::GameOver(reason) => ServiceError::GameOver {
                    field: MoveField::SearchMoves(index),
                    text: text.clone(),
                    reason,
                },
            })
        })
        .collect::<ServiceResult<Vec<_>>>()?;
    let mut limits = Limits {
        depth,
        nodes,
        movetime: Some(Duration::from_millis(u64::from(movetime_ms))),
        clock,
        infinite: false,
        threads: threads as usize,
        multipv: multipv as usize,
        search_moves,
    };
    let mut options = SearchOptions {
        skill_level: skill_level
            .and_then(|s| u8::try_from(s).ok())
            .filter(|&s| s < 20),
        // Unset: a fresh seed per call, so two games against a weak level differ.
        seed: seed.unwrap_or_else(|| SplitMix64::from_entropy().next_u64()),
        // A seed asks for a reproducible answer: what earlier calls left in the slot's table
        // must not change it.
        fresh_table: seed.is_some(),
        ..SearchOptions::default()
    };
    options.features.eval.net = caps
        .nets
        .iter()
        .find(|n| n.variant_name() == pos.variant().name())
        .copied();
    if let Some(level) = level {
        level.apply(&mut limits, &mut options);
    }
    Ok((limits, options))
}

/// Validates a game clock.
fn game_clock(clock: pb::Clock) -> ServiceResult<Clock> {
    let pb::Clock {
        white_ms,
        black_ms,
        white_increment_ms,
        black_increment_ms,
        moves_to_go,
    } = clock;
    let ms = |field, value| in_range(field, value, 0, MAX_CLOCK_MS).map(Duration::from_millis);
    Ok(Clock {
        wtime: ms("limits.clock.white_ms", white_ms)?,
        btime: ms("limits.clock.black_ms", black_ms)?,
        winc: ms("limits.clock.white_increment_ms", white_increment_ms)?,
        binc: ms("limits.clock.black_increment_ms", black_increment_ms)?,
        movestogo: (moves_to_go != 0)
            .then(|| in_range("limits.clock.moves_to_go", moves_to_go, 1, 10_000))
            .transpose()?,
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
            claimable_draw: pos
                .claimable_draw()
                .map_or(pb::Termination::Unspecified, termination)
                .into(),
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
            claimable_draw: pb::Termination::Unspecified.into(),
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
        Termination::FivefoldRepetition => pb::Termination::FivefoldRepetition,
        Termination::SeventyFiveMoveRule => pb::Termination::SeventyFiveMoveRule,
    }
}

/// A move description as the API's `Move`.
pub fn move_message(description: MoveDescription) -> pb::Move {
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
/// response's buffer (no message or string per move; see [`pb::LegalMovesResponse`]), its FEN
/// and its status. `detail` chooses between full descriptions (`moves`) and move texts only
/// (`uci_moves`, which skips SAN and the check probe).
pub fn legal_moves_response(pos: &Position, detail: pb::MoveDetail) -> pb::LegalMovesResponse {
    // A finished game has no legal moves (RULES.md), draws by rule included: those are known
    // without generating moves, and then none are listed.
    if pos.draw_or_verdict_without_moves() {
        return pb::LegalMovesResponse::encoded(
            pos.fen(),
            status(pos),
            EncodedMoves::default(),
            EncodedTexts::default(),
        );
    }
    let (moves, texts, count) = match detail {
        pb::MoveDetail::Unspecified | pb::MoveDetail::Full => {
            // About 40 bytes per move (four short strings and their keys).
            let mut encoded = EncodedMoves::with_capacity(64 * 40);
            pos.describe_moves_with(|_, description| push_description(&mut encoded, &description));
            let count = encoded.len();
            (encoded, EncodedTexts::default(), count)
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
            (EncodedMoves::default(), encoded, legal.len())
        }
    };
    pb::LegalMovesResponse::encoded(pos.fen(), status_with_legal_moves(pos, count), moves, texts)
}

/// Appends a move description to an answer's records, with its piece letters written as
/// one-character strings (the `.proto`'s form) and absent squares as empty ones.
fn push_description(encoded: &mut EncodedMoves, d: &MoveDescriptionRef<'_>) {
    let MoveDescriptionRef {
        uci,
        san,
        from,
        to,
        promotion,
        drop,
        relocation,
        capture,
        check,
    } = *d;
    let (mut promotion_buf, mut drop_buf) = ([0u8; 4], [0u8; 4]);
    encoded.push(&MoveRecord {
        uci,
        san,
        from: from.unwrap_or(""),
        to,
        promotion: promotion.map_or("", |c| c.encode_utf8(&mut promotion_buf)),
        drop: drop.map_or("", |c| c.encode_utf8(&mut drop_buf)),
        relocation: relocation.unwrap_or(""),
        capture,
        check,
    });
}

/// A variant as the API's `Variant`.
fn variant_message(variant: &Variant) -> pb::Variant {
    pb::Variant {
        name: variant.name().to_owned(),
        files: variant.files().into(),
        ranks: variant.ranks().into(),
        start_fen: variant.start_fen().to_owned(),
        pieces: variant.pieces().iter().map(piece_message).collect(),
        summary: variant.summary().to_owned(),
        has_drops: variant.has_drops(),
        levels: level_messages(variant.name()),
    }
}

/// The playing levels with the variant's measured ladder (Elo 0 and no games where the
/// ladder has not been measured).
fn level_messages(variant: &str) -> Vec<pb::Level> {
    let ladder = ladder(variant);
    LEVELS
        .iter()
        .map(|level| {
            let measured = ladder.and_then(|l| l.get(usize::from(level.level) - 1).copied());
            pb::Level {
                level: level.level.into(),
                elo: measured.map_or(0, |m| m.elo.round() as i32),
                elo_margin: measured.map_or(0, |m| m.margin.round() as u32),
                skill_level: level.skill_level.map_or(20, u32::from),
                max_depth: level.max_depth().unwrap_or(0),
                max_nodes: level.max_nodes.unwrap_or(0),
                max_movetime_ms: level.max_movetime.map_or(0, millis),
                games: measured.map_or(0, |m| m.games),
            }
        })
        .collect()
}

/// A piece definition as the API's `Piece`.
fn piece_message(piece: &PieceDef) -> pb::Piece {
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

/// Every variant of the registry.
pub fn variants(registry: &Registry) -> pb::ListVariantsResponse {
    pb::ListVariantsResponse {
        variants: registry.iter().map(|v| variant_message(v)).collect(),
    }
}

/// A search score as the API's `Score`.
/// A score as the API's `Score`, with the chances of the variant's win-rate model (none for a
/// variant without a fitted model).
fn score_message(pos: &Position, score: Score) -> pb::Score {
    pb::Score {
        value: Some(match score {
            Score::Centipawns(cp) => pb::score::Value::Centipawns(cp),
            Score::Mate(moves) => pb::score::Value::Mate(moves),
        }),
        wdl: WinRateModel::of(pos.variant().name()).map(|model| {
            let Wdl { win, draw, loss } = model.wdl(score);
            pb::Wdl { win, draw, loss }
        }),
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
        score: Some(score_message(pos, *score)),
        pv: pv_text(pos, pv),
        depth: *depth,
        seldepth: *seldepth,
        nodes: *nodes,
        nps: *nps,
        time_ms: millis(*time),
    }
}

/// A finished search as a message.
/// The answer of a search request for a finished game, when the game is over without a look
/// at the moves (a draw by rule or the variant's verdict): no move, nothing searched, the
/// status saying why. `None` when the game goes on (or ends by mate or stalemate, which the
/// search itself reports, having no root moves).
pub fn finished_best_move(pos: &Position) -> Option<pb::BestMoveResponse> {
    if !pos.draw_or_verdict_without_moves() {
        return None;
    }
    let status = pos.status();
    let draw = matches!(status, GameStatus::Finished { winner: None, .. });
    Some(pb::BestMoveResponse {
        score: draw.then(|| score_message(pos, Score::Centipawns(0))),
        fen: pos.fen(),
        status: Some(status_message(pos, status)),
        stop_reason: pb::StopReason::NoMoves.into(),
        ..pb::BestMoveResponse::default()
    })
}

/// A search result as the API's `BestMoveResponse`.
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
        after.is_legal(p).then(|| move_message(after.describe(p)))
    });
    pb::BestMoveResponse {
        r#move: best.map(|m| move_message(pos.describe(m))),
        ponder,
        score: Some(score_message(pos, *score)),
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
    use prost::Message as _;
    use tonic::metadata::MetadataValue;
    use variant_engine::SplitMix64;

    use super::*;

    fn caps() -> Caps {
        Caps::from(&Config::default())
    }

    /// The answer as the generated code would have built it: one `pb::Move` per move, encoded
    /// by prost.
    fn reference(pos: &Position) -> pb::LegalMovesResponse {
        let moves: Vec<pb::Move> = pos
            .describe_moves()
            .into_iter()
            .map(|(_, d)| move_message(d))
            .collect();
        let status = status_with_legal_moves(pos, moves.len());
        pb::LegalMovesResponse::from_messages(moves, pos.fen(), Some(status), Vec::new())
    }

    fn check_answers(pos: &Position, seen: &mut [usize; 6]) {
        // The text-only answer: the same texts, in the same order, as the full one.
        let texts = legal_moves_response(pos, pb::MoveDetail::Uci);
        let full = reference(pos);
        let expected = pb::LegalMovesResponse::from_messages(
            Vec::new(),
            full.fen().to_owned(),
            full.status().copied(),
            full.moves().iter().map(|m| m.uci.clone()).collect(),
        );
        let bytes = texts.encode_to_vec();
        assert_eq!(
            bytes,
            expected.encode_to_vec(),
            "texts differ at {}",
            pos.fen()
        );
        assert_eq!(bytes.len(), texts.encoded_len());
        assert_eq!(
            pb::LegalMovesResponse::decode(bytes.as_slice()).expect("decodes"),
            expected
        );

        let fast = legal_moves_response(pos, pb::MoveDetail::Full);
        let slow = reference(pos);
        let bytes = fast.encode_to_vec();
        assert_eq!(
            bytes,
            slow.encode_to_vec(),
            "encodings differ at {}",
            pos.fen()
        );
        assert_eq!(bytes.len(), fast.encoded_len());
        let decoded = pb::LegalMovesResponse::decode(bytes.as_slice()).expect("decodes");
        // Decoding fills the plain fields only: the whole answer equals the reference.
        assert_eq!(decoded, slow);
        for m in slow.moves() {
            seen[0] += usize::from(m.capture);
            seen[1] += usize::from(m.check);
            seen[2] += usize::from(!m.promotion.is_empty());
            seen[3] += usize::from(!m.drop.is_empty());
            seen[4] += usize::from(!m.relocation.is_empty());
            seen[5] += 1;
        }
    }

    /// Byte for byte the same as prost's encoding of the same moves, over random games of
    /// every variant (drops, relocations, promotions, captures and checks all occur).
    #[test]
    fn direct_encoding_matches_prost() {
        let mut seen = [0usize; 6];
        for variant in Registry::builtin().iter() {
            for seed in 1..=3 {
                let mut rng = SplitMix64(seed);
                let mut pos = Position::new(variant.clone());
                for _ in 0..120 {
                    check_answers(&pos, &mut seen);
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play(moves[rng.below(moves.len() as u64) as usize]);
                }
            }
        }
        // A promotion with capture and check, to be sure the rarest fields are covered.
        let chess = Registry::builtin().get("chess").expect("chess");
        let pos = Position::from_fen(chess, "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1").expect("fen");
        check_answers(&pos, &mut seen);
        assert!(
            seen.iter().all(|&n| n > 0),
            "a field never occurred: {seen:?}"
        );
    }

    #[test]
    fn unset_limits_get_the_default_movetime() {
        let pos = Position::new(Registry::builtin().get("chess").expect("chess"));
        let (l, options) = limits(&caps(), &pos, None).expect("defaults are valid");
        // Unset seed: a fresh one, and no table clearing.
        assert_eq!((options.skill_level, options.fresh_table), (None, false));
        assert_eq!(options.features, SearchOptions::default().features);
        assert_eq!(l.depth, None);
        assert_eq!(l.movetime, Some(Duration::from_secs(1)));
        assert_eq!((l.threads, l.multipv), (1, 1));
    }

    #[test]
    fn each_out_of_range_limit_names_its_field() {
        let caps = caps();
        let pos = Position::new(Registry::builtin().get("chess").expect("chess"));
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
            let err = limits(&caps, &pos, Some(l)).expect_err(field);
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
