//! Replaying a list of moves given as text: what a request's `moves` and the UCI command
//! `position ... moves` both need, written once.

use crate::moves::Move;
use crate::notation::MoveError;
use crate::outcome::{GameStatus, Termination};
use crate::position::Position;
use crate::quote::quote;

/// Why a list of moves could not be replayed: the first move that failed, where it stands in
/// the list, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {index} ({}): {source}", quote(.text))]
pub struct ReplayError {
    /// 0-based index of the move in the list.
    pub index: usize,
    /// The move's text, as given.
    pub text: String,
    /// Why it cannot be played.
    pub source: Refusal,
}

/// Why one move cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The text is not a legal move of the position.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The game ended before this move: a finished game takes no more moves (RULES.md).
    #[error("the game is over ({})", .0.describe())]
    GameOver(Termination),
}

impl Position {
    /// Parses `text` (move text or SAN, as [`Position::parse_move`]) as the next move of the
    /// game, refusing it when the game is already over.
    ///
    /// The game-over test costs no move generation on the way to a legal move: draws by rule
    /// and the variant's verdict are cheap, and a position without moves fails to parse
    /// anyway, so mate and stalemate are looked for only then.
    ///
    /// # Errors
    /// [`Refusal::GameOver`] naming the ending, or [`Refusal::Move`] for a move that does not
    /// parse or is illegal.
    pub fn parse_next_move(&self, text: &str) -> Result<Move, Refusal> {
        let over = |pos: &Position| match pos.status() {
            GameStatus::Finished { reason, .. } => Some(reason),
            GameStatus::Ongoing => None,
        };
        if self.draw_or_verdict_without_moves()
            && let Some(reason) = over(self)
        {
            return Err(Refusal::GameOver(reason));
        }
        self.parse_move(text).map_err(|e| match e {
            MoveError::Illegal { .. } if self.count_legal_moves() == 0 => {
                over(self).map_or(Refusal::Move(e), Refusal::GameOver)
            }
            e => Refusal::Move(e),
        })
    }
}

impl Position {
    /// Plays `moves` one after another, each given as move text or SAN (as
    /// [`Position::parse_move`] reads them), and returns them as normalised move text.
    ///
    /// A text that is normal already is returned as it was given, without a new allocation (a
    /// client mostly sends the normal form). When a move fails, the moves before it stay played
    /// and the error names the failing one. A move after the end of the game fails with
    /// [`Refusal::GameOver`] (see [`Position::parse_next_move`]).
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Position, Registry};
    /// let mut pos = Position::new(Registry::builtin().get("chess").unwrap());
    /// assert_eq!(pos.replay(["e4", "e7e5"]).unwrap(), ["e2e4", "e7e5"]);
    /// let err = pos.replay(["Nf3", "Ke3"]).unwrap_err();
    /// assert_eq!((err.index, err.text.as_str()), (1, "Ke3"));
    /// assert_eq!(pos.ply_count(), 3);
    /// ```
    ///
    /// # Errors
    /// [`ReplayError`] for the first move that does not parse, is illegal or comes after the
    /// end of the game.
    pub fn replay<S>(
        &mut self,
        moves: impl IntoIterator<Item = S>,
    ) -> Result<Vec<String>, ReplayError>
    where
        S: AsRef<str> + Into<String>,
    {
        let moves = moves.into_iter();
        let mut played = Vec::with_capacity(moves.size_hint().0);
        let mut normal = String::new();
        for (index, text) in moves.enumerate() {
            let m = self
                .parse_next_move(text.as_ref())
                .map_err(|source| ReplayError {
                    index,
                    text: text.as_ref().to_owned(),
                    source,
                })?;
            normal.clear();
            self.write_uci(m, &mut normal);
            played.push(if normal == text.as_ref() {
                text.into()
            } else {
                normal.clone()
            });
            self.play(m);
        }
        Ok(played)
    }
}
