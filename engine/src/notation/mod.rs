//! Text formats: FEN and its problem reports (`fen.rs`), move text in the UCI style of
//! RULES.md's notation (`text.rs`), the lenient forms people and other programs write (long
//! algebraic, uppercase coordinates, `0-0`; `lenient.rs`), SAN (`san.rs`, which builds on the
//! move text), and why a move text names no legal move (`refusal.rs`).
//!
//! [`Position::parse_move`] takes every notation, so it is written here, above them all.

pub(crate) mod fen;
pub(crate) mod lenient;
pub(crate) mod refusal;
pub(crate) mod san;
pub(crate) mod text;

pub use fen::{FenError, FenField, FenProblem, FenReport, validate_fen};
pub use refusal::{IllegalReason, MoveRefusal};
pub use san::{MoveDescription, MoveDescriptionRef};
pub use text::{MoveError, MoveText, MoveTextError};

use crate::moves::Move;
use crate::position::Position;
use lenient::parse_long;
use refusal::Intent;

impl Position {
    /// Parses move text and checks legality. Accepted, in this order:
    /// - RULES.md move text (`e2e4`, `h9h10n`, `e7e8Q`, `N@e4`, `N@e3,c2`), the fast path;
    /// - long algebraic (`Ng1f3`, `Ng1-f3`, `e2-e4`, `Qd8xh4`, `e7xd8=Q`, `e7e8=q`) and
    ///   uppercase coordinates (`E2E4`); a piece letter must name the piece on the origin;
    /// - castling as `O-O`, `0-0`, `O-O-O`, `0-0-0`;
    /// - SAN.
    ///
    /// Check and annotation marks (`+`, `#`, `!`, `?`) may follow all but the first.
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{MoveRefusal, Position, Registry};
    /// let pos = Position::new(Registry::builtin().get("chess").unwrap());
    /// let knight = pos.parse_move("g1f3").unwrap();
    /// for text in ["Nf3", "Ng1f3", "Ng1-f3", "G1F3", "Nf3+"] {
    ///     assert_eq!(pos.parse_move(text).unwrap(), knight, "{text}");
    /// }
    /// let err = pos.parse_move("Nc3d5").unwrap_err();
    /// assert_eq!(err.reason(), MoveRefusal::NoPieceToMove);
    /// ```
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when the text is none of these, [`MoveError::Illegal`] with the
    /// reason when it names no legal move.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let text = text.trim();
        let size = self.variant.size();
        let syntax = match self.parse_uci(text) {
            Err(MoveError::Syntax(syntax)) => syntax,
            other => return other,
        };
        if let Some(long) = parse_long(text, size) {
            let intent = Intent::Board {
                piece: long.piece,
                from: long.from,
                to: long.to,
                promotion: long.promotion,
            };
            let letter_fits = long.piece.is_none_or(|letter| {
                self.piece_at(long.from)
                    .is_some_and(|p| self.variant.piece(p.kind()).letter == letter)
            });
            let found = self
                .find_text_move(MoveText::Board {
                    from: long.from,
                    to: long.to,
                    promotion: long.promotion,
                })
                .filter(|_| letter_fits);
            return found.ok_or_else(|| self.refuse(text, intent));
        }
        // Castling (`O-O`, `0-0-0`, ...) is SAN too.
        match self.parse_san(text) {
            Err(MoveError::Syntax(_)) => Err(MoveError::Syntax(syntax)),
            other => other,
        }
    }
}
