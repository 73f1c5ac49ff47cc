//! The players of a match: anything that can be asked for a move in a position.

use std::time::Duration;

use super::uci::{EngineFailure, Go, Thought, UciCommand, UciEngine};

/// A match participant.
pub trait Player: Send {
    /// Prepares for a new game.
    ///
    /// # Errors
    /// When the player cannot be (re)started.
    fn new_game(&mut self) -> Result<(), EngineFailure>;

    /// The move in the position `fen` + `moves` under the limit `go`, within `deadline`.
    ///
    /// # Errors
    /// See [`UciEngine::go`].
    fn go(
        &mut self,
        fen: &str,
        moves: &[String],
        go: Go,
        deadline: Duration,
    ) -> Result<(Thought, Duration), EngineFailure>;
}

/// An external UCI engine, started on first use and again after it crashed or hung.
#[derive(Debug)]
pub struct UciPlayer {
    command: UciCommand,
    engine: Option<UciEngine>,
}

impl UciPlayer {
    /// A player for `command` (the process starts at the first game).
    pub fn new(command: UciCommand) -> Self {
        Self {
            command,
            engine: None,
        }
    }

    fn engine(&mut self) -> Result<&mut UciEngine, EngineFailure> {
        if self.engine.as_mut().is_some_and(|e| !e.alive()) {
            self.engine = None;
        }
        if self.engine.is_none() {
            self.engine = Some(UciEngine::start(&self.command)?);
        }
        self.engine
            .as_mut()
            .ok_or_else(|| EngineFailure::Spawn("engine missing".into()))
    }
}

impl Player for UciPlayer {
    fn new_game(&mut self) -> Result<(), EngineFailure> {
        let result = self.engine()?.new_game();
        if result.is_err() {
            self.engine = None;
        }
        result
    }

    fn go(
        &mut self,
        fen: &str,
        moves: &[String],
        go: Go,
        deadline: Duration,
    ) -> Result<(Thought, Duration), EngineFailure> {
        let result = self.engine()?.go(fen, moves, go, deadline);
        if matches!(
            result,
            Err(EngineFailure::Crashed | EngineFailure::Timeout(_))
        ) {
            // Start afresh for the next game rather than trust its state.
            self.engine = None;
        }
        result
    }
}
