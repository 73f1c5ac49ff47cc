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

pub mod bench;
pub mod bitboard;
pub mod eval;
pub mod geometry;
pub mod movegen;
pub mod movement;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod piece;
pub mod position;
pub mod rng;
pub mod search;
pub mod selfplay;
pub mod status;
pub mod threads;
pub mod tt;
pub mod uci;
pub mod variant;

pub use bitboard::Bitboard;
pub use eval::EvalTerms;
pub use geometry::{BoardSize, ParseSquareError, Square};
pub use movegen::{MoveCounter, MoveList, MoveSink};
pub use moves::{Move, MoveKind};
pub use notation::{
    FenError, MoveDescription, MoveDescriptionRef, MoveError, MoveText, MoveTextError,
};
pub use perft::{PerftStop, divide, divide_with_stop, perft, perft_copy_make, perft_with_stop};
pub use piece::{ByColor, Color, Piece, PieceKind};
pub use position::Position;
pub use search::{
    Clock, Features, Limits, PoolConfig, Score, SearchInfo, SearchPool, SearchResult, StopReason,
};
pub use status::{GameStatus, Termination};
pub use variant::{
    PieceDef, Registry, Role, RuleSet, UnknownVariant, Variant, VariantSpec, VariantSpecError,
};
