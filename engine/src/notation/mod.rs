//! Text formats: FEN (`fen.rs`), move text in the UCI style of RULES.md's notation (`text.rs`)
//! and SAN (`san.rs`, which builds on the move text).
//!
//! [`Position::parse_move`] takes either notation, so it is written here, above both.

pub(crate) mod fen;
pub(crate) mod san;
pub(crate) mod text;

pub use fen::FenError;
pub use san::{MoveDescription, MoveDescriptionRef};
pub use text::{MoveError, MoveText, MoveTextError};

use crate::moves::Move;
use crate::position::Position;

impl Position {
    /// Parses move text (RULES.md notation) or SAN and checks legality.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when the text is neither, [`MoveError::Illegal`] when it names no
    /// legal move.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let text = text.trim();
        match self.parse_uci(text) {
            Err(MoveError::Syntax(syntax)) => self.parse_san(text).map_err(|e| match e {
                MoveError::Syntax(_) => MoveError::Syntax(syntax),
                illegal @ MoveError::Illegal { .. } => illegal,
            }),
            other => other,
        }
    }
}
