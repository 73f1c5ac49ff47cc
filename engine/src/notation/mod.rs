//! Text formats: FEN, move text (UCI style, RULES.md notation) and SAN.

pub mod fen;
pub mod quote;
pub mod san;
pub mod text;

pub use fen::FenError;
pub use quote::{QUOTE_MAX_CHARS, Quoted, quote};
pub use san::{MoveDescription, MoveDescriptionRef};
pub use text::{MoveError, MoveText, MoveTextError};
