//! Game status: ongoing, or finished with a winner (or draw) and the reason.

use crate::piece::Color;
use crate::position::Position;

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Termination {
    /// The side to move is in check with no legal move.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// The same position occurred three times.
    ThreefoldRepetition,
    /// 100 half-moves without a capture, pawn move or drop.
    FiftyMoveRule,
    /// Decima: a side starts its turn with 10 or more points on its tenth rank.
    TenPoints,
    /// Decima: a side could not answer the opponent's ten-point "check".
    CheckUnanswered,
    /// Decima: a side lost its last unit.
    LastUnitCaptured,
    /// Neither side can win.
    InsufficientMaterial,
}

/// The state of the game in a position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameStatus {
    /// Play goes on.
    Ongoing,
    /// The game is over.
    Finished {
        /// The winner, `None` for a draw.
        winner: Option<Color>,
        /// Why.
        reason: Termination,
    },
}

impl GameStatus {
    /// True when the game is over.
    pub const fn is_finished(self) -> bool {
        matches!(self, Self::Finished { .. })
    }
}

impl Position {
    /// The game status, counting repetitions over the moves played since setup.
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Color, GameStatus, Position, Registry, Termination};
    /// let mut pos = Position::new(Registry::builtin().get("chess").unwrap());
    /// for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
    ///     let mv = pos.parse_move(m).unwrap();
    ///     pos.play(mv);
    /// }
    /// assert_eq!(
    ///     pos.status(),
    ///     GameStatus::Finished { winner: Some(Color::Black), reason: Termination::Checkmate }
    /// );
    /// ```
    pub fn status(&self) -> GameStatus {
        self.status_inner(|| self.count_legal_moves())
    }

    /// [`Position::status`] for a caller that already generated this position's legal moves
    /// (`legal_moves` is their number), so they are not generated again.
    pub fn status_with_legal_moves(&self, legal_moves: usize) -> GameStatus {
        self.status_inner(|| legal_moves as u64)
    }

    /// The status; `legal_moves` is asked only when the rules need the move count.
    fn status_inner(&self, legal_moves: impl FnOnce() -> u64) -> GameStatus {
        let rules = self.variant.rules();
        if let Some(status) = rules.status_before_moves(self) {
            return status;
        }
        if legal_moves() == 0 {
            return if self.in_check() {
                GameStatus::Finished {
                    winner: Some(!self.side),
                    reason: rules.unanswered_check(),
                }
            } else {
                GameStatus::Finished {
                    winner: None,
                    reason: Termination::Stalemate,
                }
            };
        }
        if rules.fifty_move_rule() && self.halfmove >= 100 {
            return GameStatus::Finished {
                winner: None,
                reason: Termination::FiftyMoveRule,
            };
        }
        if self.repetitions() >= 3 {
            return GameStatus::Finished {
                winner: None,
                reason: Termination::ThreefoldRepetition,
            };
        }
        GameStatus::Ongoing
    }

    /// How often the current position has occurred (1 = only now), looking back over the
    /// moves played since setup and no further than the last irreversible move.
    pub fn repetitions(&self) -> usize {
        let window = (self.halfmove as usize).min(self.history.len());
        let len = self.history.len();
        1 + (2..=window)
            .step_by(2)
            .filter(|&back| self.history[len - back].hash == self.hash)
            .count()
    }

    /// True when the side to move is in check, in the variant's sense.
    pub fn in_check(&self) -> bool {
        self.variant.rules().in_check(self)
    }

    /// True when the side to move has a royal king that is attacked.
    pub fn king_attacked(&self) -> bool {
        match self.royal_square(self.side) {
            Some(k) => self.is_attacked(k, self.occupied(), self.by_color[!self.side], !self.side),
            None => false,
        }
    }
}
