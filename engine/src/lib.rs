//! Exact rules and search for chess variants: Opulent, Decima, SOHO and Orphic Chess, plus
//! orthodox chess as a validation variant.
//!
//! Variants are data ([`VariantSpec`]) validated into a [`Variant`] that carries its attack
//! tables; behaviour that is not data lives in the closed [`RuleSet`] enum. A [`Position`] is
//! built from a FEN, generates fully legal moves, and plays them with make/unmake and
//! incremental Zobrist hashing.
//!
//! ```
//! use variant_engine::{perft, Position, Registry};
//! let registry = Registry::builtin();
//! let mut pos = Position::new(registry.get("opulent").unwrap());
//! assert_eq!(perft(&mut pos, 2), 2704);
//! let m = pos.parse_move("e3e5").unwrap();
//! assert_eq!(pos.san(m), "e5");
//! ```
#![warn(missing_docs)]
// One audited exception: the huge-page advice for the transposition table (`tt.rs`).
#![deny(unsafe_code)]

pub mod bitboard;
pub mod eval;
pub mod geometry;
mod make;
pub mod movegen;
pub mod movement;
pub mod moves;
pub mod notation;
mod outcome;
pub mod perft;
pub mod piece;
pub mod position;
mod registry;
mod replay;
pub mod rng;
mod rules;
pub mod samples;
mod search;
mod status;
pub mod variant;
mod zobrist;

pub use bitboard::Bitboard;
pub use eval::EvalTerms;
pub use geometry::{BoardSize, ParseSquareError, Square};
pub use movegen::{MoveCounter, MoveList, MoveSink};
pub use moves::{Move, MoveKind};
pub use notation::{
    FenError, MoveDescription, MoveDescriptionRef, MoveError, MoveText, MoveTextError,
};
pub use outcome::{GameStatus, Termination};
pub use perft::{divide, perft, perft_copy_make};
pub use piece::{ByColor, Color, Piece, PieceKind};
pub use position::Position;
pub use registry::{Registry, UnknownVariant};
pub use replay::ReplayError;
pub use samples::{bench_positions, random_playout};
pub use search::{
    Clock, Features, Limits, Score, SearchInfo, SearchOptions, SearchOptionsError, SearchResult,
    Searcher, SearcherConfig, StopReason,
};
pub use variant::{
    PieceDef, Role, RuleSet, Variant, VariantSpec, VariantSpecError, colour_right_bit,
};
