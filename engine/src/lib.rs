//! Exact rules and search for chess variants: Opulent, Decima, SOHO and Orphic Chess, plus
//! orthodox chess as a validation variant. A library only: it never prints and speaks no
//! protocol (the `variant-engine` program and the gRPC service are its front ends).
//!
//! Variants are data ([`VariantSpec`]) validated into a [`Variant`] that carries its attack
//! tables; behaviour that is not data is named by the [`RuleSet`] tag. A [`Position`] is built
//! from a FEN, generates fully legal moves, and plays them with make/unmake and incremental
//! Zobrist hashing. A [`Searcher`] finds the best move within [`Limits`].
//!
//! ```
//! use variant_engine::{perft, Position, Registry};
//! let registry = Registry::builtin();
//! let mut pos = Position::new(registry.get("opulent").unwrap());
//! assert_eq!(perft(&mut pos, 2), 2704);
//! let m = pos.parse_move("e3e5").unwrap();
//! assert_eq!(pos.san(m), "e5");
//! ```
//!
//! Every module is private and the vocabulary is re-exported here. The modules, each using
//! only those before it:
//!
//! | module | what it holds |
//! |---|---|
//! | `quote`, `geometry`, `bitboard`, `piece`, `moves` | how error messages quote input (at most 100 characters of it), squares and board sizes, `Bitboard(u128)`, colours and piece kinds, `Move` |
//! | `movement/` | the Betza subset and the attack tables built from it |
//! | `rng`, `zobrist`, `outcome` | `SplitMix64`, hash keys, `GameStatus`/`Termination` |
//! | `variant/` | `VariantSpec` and its `RuleSet` tag (`spec.rs`), the built-in specs (`builtin.rs`), the validated `Variant` |
//! | `position` | the state of a game and the attack queries on it |
//! | `rules/` | each rule family's hooks: `standard.rs`, `decima.rs`, `orphic.rs` |
//! | `movegen`, `make`, `status` | legal moves, make/unmake, the game status and check tests |
//! | `notation/` | FEN (and reports of every problem of one), move text in strict and lenient forms, SAN, move descriptions, and why a refused move is refused |
//! | `perft`, `replay`, `registry`, `samples` | move-path counts, replaying move lists, the built-in variants, sample positions |
//! | `nnue/` | the learned evaluation: network files, the incremental accumulator, and the training data format |
//! | `eval/` | static evaluation (terms, weights as data, the Texel tuner), with Decima's and Orphic's own terms |
//! | `search/` | the `Searcher` and everything it owns (alpha-beta, quiescence, ordering, threads, TT) |
#![warn(missing_docs, unreachable_pub)]
// One audited exception: the huge-page advice for the transposition table (`search/tt.rs`).
#![deny(unsafe_code)]

mod bitboard;
mod eval;
mod geometry;
mod make;
mod movegen;
mod movement;
mod moves;
mod nnue;
mod notation;
mod outcome;
mod perft;
mod pgn;
mod piece;
mod position;
mod quote;
mod registry;
mod replay;
mod rng;
mod rules;
mod samples;
mod search;
mod status;
mod variant;
mod zobrist;

pub use bitboard::Bitboard;
pub use eval::{
    EvalParams, EvalTerms, HandEval, ParamsError, TuneConfig, TuneError, TuneProgress, TuningSet,
};
pub use geometry::{BoardSize, ParseSquareError, Square};
pub use movegen::MoveList;
pub use movement::BetzaError;
pub use moves::{Move, MoveKind};
pub use nnue::data::{
    DataError, DataReader, PackedPosition, Record, decode_piece, features as data_features,
    header as data_header, scan as scan_data, write_game,
};
pub use nnue::{
    Inputs as NetInputs, MAGIC as NET_MAGIC, NetError, Network, QA, QB, SCALE as NET_SCALE,
    WINDOW_RADIUS, WINDOW_SQUARES, board_feature, input_count,
};
pub use notation::{
    FenError, FenField, FenProblem, FenReport, IllegalReason, MoveDescription, MoveDescriptionRef,
    MoveError, MoveRefusal, MoveText, MoveTextError, validate_fen,
};
pub use outcome::{GameStatus, Termination};
pub use perft::{PerftStop, divide, divide_with_stop, perft, perft_copy_make, perft_with_stop};
pub use pgn::write_pgn;
pub use piece::{Color, Piece, PieceKind};
pub use position::Position;
pub use quote::{QUOTE_MAX_CHARS, Quoted, quote};
pub use registry::{Registry, UnknownVariant};
pub use replay::{Refusal, ReplayError};
pub use rng::SplitMix64;
pub use samples::{bench_positions, random_playout};
pub use search::{
    Clock, Features, LEVELS, Level, LevelElo, Limits, MAX_LEVEL, Score, SearchInfo, SearchOptions,
    SearchOptionsError, SearchResult, Searcher, SearcherConfig, StopReason, Wdl, WinRateModel,
    ladder,
};
pub use variant::{
    CastlingRules, DeadMaterial, DropRules, PawnRelocation, PawnRules, PieceDef, PromotionLimit,
    PromotionRules, Role, RuleSet, Variant, VariantSpec, VariantSpecError, colour_right_bit,
};
