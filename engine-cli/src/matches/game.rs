//! One refereed game between two players: our rules decide every move's legality and the
//! game's end; an illegal move, a crash, a missing move or a time forfeit loses.
//!
//! Engines are never asked whether a game is over. Their own rule books may differ from ours
//! (another program's Opulent has an older start array), so the referee is [`Position`]:
//! checkmate, stalemate, repetition, the fifty-move rule, insufficient material and the
//! variants' own wins all come from [`Position::status`].

use std::sync::Arc;
use std::time::Duration;

use variant_engine::{Color, FenError, GameStatus, MoveError, Position, Termination, Variant};

use super::player::Player;
use super::uci::{EngineFailure, Go, MATE_SCORE, Thought};

/// How long each move may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// A fixed time per move.
    MoveTime(Duration),
    /// A fixed node count per move.
    Nodes(u64),
    /// A fixed depth per move.
    Depth(u32),
    /// A game clock: base time, increment per move, optional moves per period.
    Clock {
        /// Time on each clock at the start (and added at each new period with `movestogo`).
        base: Duration,
        /// Added after every move.
        increment: Duration,
        /// Moves per period, if the clock is not sudden death.
        moves_per_period: Option<u32>,
    },
}

impl TimeControl {
    /// A short text for PGN's `TimeControl` tag.
    pub fn pgn_tag(&self) -> String {
        match *self {
            Self::MoveTime(t) => format!("{}/move", t.as_secs_f64()),
            Self::Nodes(n) => format!("{n} nodes/move"),
            Self::Depth(d) => format!("depth {d}/move"),
            Self::Clock {
                base,
                increment,
                moves_per_period,
            } => {
                let period = moves_per_period.map_or(String::new(), |m| format!("{m}/"));
                format!("{period}{}+{}", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

/// When a game is decided by the engines' own agreement instead of being played out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Resign when both engines agree for this many moves each that one side is at least
    /// `resign_score` centipawns ahead: `(moves, centipawns)`.
    pub resign: Option<(u32, i32)>,
    /// Draw when both engines' scores stay within `draw_score` of zero for this many moves
    /// each, from the given ply on: `(from ply, moves, centipawns)`.
    pub draw: Option<(usize, u32, i32)>,
    /// Draw at this many plies (the game is cut short, and says so).
    pub max_plies: usize,
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules of the variant.
    Rules(Termination),
    /// The side to move overran its time.
    TimeForfeit,
    /// The side to move sent an illegal or unparsable move.
    IllegalMove(String),
    /// The side to move's engine exited.
    Crash,
    /// The side to move answered without a move.
    NoMove,
    /// The engines agreed the game was decided.
    Resignation,
    /// The engines agreed the game was drawn.
    AgreedDraw,
    /// The ply cap was reached.
    MaxPlies,
}

impl Ending {
    /// PGN's standard `Termination` tag value.
    pub fn pgn_termination(&self) -> &'static str {
        match self {
            Self::Rules(_) => "normal",
            Self::TimeForfeit => "time forfeit",
            Self::IllegalMove(_) | Self::NoMove => "rules infraction",
            Self::Crash => "abandoned",
            Self::Resignation | Self::AgreedDraw | Self::MaxPlies => "adjudication",
        }
    }

    /// The kind of ending, without details: the key of the match's endings tally.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Rules(t) => t.describe(),
            Self::TimeForfeit => "time forfeit",
            Self::IllegalMove(_) => "illegal move",
            Self::Crash => "engine crashed",
            Self::NoMove => "no move",
            Self::Resignation => "resignation (adjudicated)",
            Self::AgreedDraw => "draw (adjudicated)",
            Self::MaxPlies => "ply limit",
        }
    }

    /// True for the endings an engine's fault causes (the loser broke the protocol or the
    /// clock, rather than losing the game on the board).
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            Self::TimeForfeit | Self::IllegalMove(_) | Self::Crash | Self::NoMove
        )
    }

    /// A short description for logs and the PGN's closing comment.
    pub fn describe(&self) -> String {
        match self {
            Self::IllegalMove(m) => format!("illegal move {m:?}"),
            other => other.kind().to_owned(),
        }
    }
}

/// One move as played, with what its engine said about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The colour that played it.
    pub mover: Color,
    /// SAN (with `+`/`#`) in the position before the move.
    pub san: String,
    /// Normalised UCI text.
    pub uci: String,
    /// The mover's report.
    pub thought: Thought,
    /// Wall time from `go` to `bestmove`.
    pub elapsed: Duration,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// FEN the game started from.
    pub start_fen: String,
    /// Opening moves played before the engines took over (UCI text).
    pub opening: Vec<String>,
    /// SAN of the opening moves.
    pub opening_san: Vec<String>,
    /// Moves the engines played.
    pub moves: Vec<PlayedMove>,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub ending: Ending,
}

impl GameRecord {
    /// PGN result text.
    pub fn result_text(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// Per-game settings.
#[derive(Clone, Copy, Debug)]
pub struct GameSettings {
    /// Time control for both engines unless a player overrides it.
    pub time_control: TimeControl,
    /// Overrides per colour (`[white, black]`), e.g. a fixed node count for one engine.
    pub overrides: [Option<TimeControl>; 2],
    /// How long past its allowance a move may take before it loses on time.
    pub time_margin: Duration,
    /// How long a fixed-node or fixed-depth move may take before the engine counts as hung.
    pub hang_timeout: Duration,
    /// Adjudication rules.
    pub adjudication: Adjudication,
}

/// Why a game could not be started (the opening is at fault, not an engine).
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The start FEN does not parse for the variant.
    #[error("opening FEN {fen:?}: {source}")]
    Fen {
        /// The FEN.
        fen: String,
        /// Why it was rejected.
        source: FenError,
    },
    /// An opening move is not legal.
    #[error("opening move {index} ({text}) from {fen:?}: {source}")]
    OpeningMove {
        /// The FEN the opening starts from.
        fen: String,
        /// 0-based index of the move in the opening.
        index: usize,
        /// The move's text.
        text: String,
        /// Why it cannot be played (boxed: a refusal's reason is large, and this error is
        /// rare).
        source: Box<MoveError>,
    },
}

/// The per-move side of a clock: what `go` says and how long the referee waits.
#[derive(Clone, Copy, Debug)]
struct Clocks {
    /// Time left, `[white, black]`.
    left: [Duration; 2],
    /// Increment per move, `[white, black]`.
    increment: [Duration; 2],
    /// Moves each colour has made (opening moves included), for `movestogo`.
    made: [u32; 2],
}

impl Clocks {
    /// Clocks at the start: each colour's base time if it plays on a clock.
    fn new(tcs: [TimeControl; 2]) -> Self {
        let part = |tc: TimeControl| match tc {
            TimeControl::Clock {
                base, increment, ..
            } => (base, increment),
            _ => (Duration::ZERO, Duration::ZERO),
        };
        let [(wb, wi), (bb, bi)] = tcs.map(part);
        Self {
            left: [wb, bb],
            increment: [wi, bi],
            made: [0; 2],
        }
    }

    /// The `go` for colour `me` under `tc`, and the deadline of its answer.
    fn go(&self, tc: TimeControl, me: usize, settings: &GameSettings) -> (Go, Duration) {
        match tc {
            TimeControl::MoveTime(t) => (Go::MoveTime(t), t + settings.time_margin),
            TimeControl::Nodes(n) => (Go::Nodes(n), settings.hang_timeout),
            TimeControl::Depth(d) => (Go::Depth(d), settings.hang_timeout),
            TimeControl::Clock {
                moves_per_period, ..
            } => (
                Go::Clock {
                    wtime: self.left[0],
                    btime: self.left[1],
                    winc: self.increment[0],
                    binc: self.increment[1],
                    movestogo: moves_per_period.map(|p| p - self.made[me] % p),
                },
                self.left[me] + settings.time_margin,
            ),
        }
    }

    /// Charges colour `me` for a move that took `elapsed`; false when it overran its time.
    fn charge(&mut self, tc: TimeControl, me: usize, elapsed: Duration, margin: Duration) -> bool {
        self.made[me] += 1;
        match tc {
            TimeControl::MoveTime(t) => elapsed <= t + margin,
            TimeControl::Nodes(_) | TimeControl::Depth(_) => true,
            TimeControl::Clock {
                base,
                increment,
                moves_per_period,
            } => {
                if elapsed > self.left[me] + margin {
                    return false;
                }
                self.left[me] = self.left[me].saturating_sub(elapsed) + increment;
                // A new period starts after every `moves_per_period` moves of this colour.
                if moves_per_period.is_some_and(|p| self.made[me].is_multiple_of(p)) {
                    self.left[me] += base;
                }
                true
            }
        }
    }
}

/// Plays one game from `start_fen` after the `opening` moves; `players[0]` is White.
///
/// Engine failures do not make this fail: they lose the game, and the record says how.
///
/// # Errors
/// [`GameError`] when the start FEN or an opening move is not valid in the variant.
pub fn play_game(
    variant: &Arc<Variant>,
    start_fen: &str,
    opening: &[String],
    players: [&mut dyn Player; 2],
    settings: &GameSettings,
) -> Result<GameRecord, GameError> {
    let mut pos =
        Position::from_fen(variant.clone(), start_fen).map_err(|source| GameError::Fen {
            fen: start_fen.to_owned(),
            source,
        })?;
    // The whole game so far as normalised move texts: every `position` command repeats it.
    let mut texts = Vec::with_capacity(256);
    let mut opening_san = Vec::with_capacity(opening.len());
    let mut clocks = Clocks::new(
        settings
            .overrides
            .map(|o| o.unwrap_or(settings.time_control)),
    );
    for (index, text) in opening.iter().enumerate() {
        let m = pos
            .parse_uci(text)
            .map_err(|source| GameError::OpeningMove {
                source: Box::new(source),
                fen: start_fen.to_owned(),
                index,
                text: text.clone(),
            })?;
        opening_san.push(pos.san(m));
        texts.push(pos.uci(m));
        clocks.made[pos.side_to_move().index()] += 1;
        pos.play(m);
    }
    let mut players = players;
    for p in &mut players {
        // A player that cannot even start a game loses it when its first move is asked.
        let _ = p.new_game();
    }
    let mut record = GameRecord {
        start_fen: start_fen.to_owned(),
        opening: texts.clone(),
        opening_san,
        moves: Vec::new(),
        winner: None,
        ending: Ending::MaxPlies,
    };
    // Consecutive moves (per colour) whose score satisfied the resign or draw rule.
    let mut resign_streak = [0u32; 2];
    let mut draw_streak = [0u32; 2];
    loop {
        if let GameStatus::Finished { winner, reason } = pos.status() {
            record.winner = winner;
            record.ending = Ending::Rules(reason);
            return Ok(record);
        }
        if texts.len() >= settings.adjudication.max_plies {
            record.ending = Ending::MaxPlies;
            return Ok(record);
        }
        let side = pos.side_to_move();
        let me = side.index();
        let tc = settings.overrides[me].unwrap_or(settings.time_control);
        let (go, deadline) = clocks.go(tc, me, settings);
        let lose = |mut record: GameRecord, ending: Ending| {
            record.winner = Some(!side);
            record.ending = ending;
            Ok(record)
        };
        let (thought, elapsed) = match players[me].go(start_fen, &texts, go, deadline) {
            Ok(answer) => answer,
            Err(EngineFailure::Timeout(_)) => return lose(record, Ending::TimeForfeit),
            Err(EngineFailure::Crashed | EngineFailure::Spawn(_)) => {
                return lose(record, Ending::Crash);
            }
            Err(EngineFailure::NoMove(_)) => return lose(record, Ending::NoMove),
        };
        if !clocks.charge(tc, me, elapsed, settings.time_margin) {
            return lose(record, Ending::TimeForfeit);
        }
        // Strict move text only: a SAN or otherwise sloppy answer is a protocol error.
        let Ok(m) = pos.parse_uci(&thought.best) else {
            let text = thought.best.clone();
            return lose(record, Ending::IllegalMove(text));
        };
        let san = pos.san(m);
        let uci = pos.uci(m);
        texts.push(uci.clone());
        pos.play(m);
        let score = thought.score;
        record.moves.push(PlayedMove {
            mover: side,
            san,
            uci,
            thought,
            elapsed,
        });
        // Adjudication on the engines' own scores (each from its mover's view).
        let adj = settings.adjudication;
        if let (Some((moves, cp)), Some(s)) = (adj.resign, score) {
            if s <= -cp {
                resign_streak[me] += 1;
            } else {
                resign_streak[me] = 0;
            }
            let loser_says = resign_streak[me] >= moves;
            let winner_says = last_scores(&record, !side, moves).is_some_and(|v| v >= cp);
            if loser_says && winner_says {
                record.winner = Some(!side);
                record.ending = Ending::Resignation;
                return Ok(record);
            }
        }
        if let (Some((from, moves, cp)), Some(s)) = (adj.draw, score) {
            if texts.len() >= from && s.abs() <= cp {
                draw_streak[me] += 1;
            } else {
                draw_streak[me] = 0;
            }
            if draw_streak[0] >= moves && draw_streak[1] >= moves {
                record.ending = Ending::AgreedDraw;
                return Ok(record);
            }
        }
    }
}

/// The lowest score `color`'s engine reported over its last `moves` moves, if it reported one
/// for each (mate scores count as large).
fn last_scores(record: &GameRecord, color: Color, moves: u32) -> Option<i32> {
    let mine = record
        .moves
        .iter()
        .rev()
        .filter(|m| m.mover == color)
        .take(moves as usize)
        .map(|m| m.thought.score.map(|s| s.clamp(-MATE_SCORE, MATE_SCORE)))
        .collect::<Option<Vec<i32>>>()?;
    if mine.len() < moves as usize {
        return None;
    }
    mine.into_iter().min()
}

#[cfg(test)]
mod tests {
    use variant_engine::Registry;

    use super::*;

    /// A player that answers from a script: each answer is a move text with a score, or a
    /// failure.
    struct Scripted(std::vec::IntoIter<Result<(&'static str, Option<i32>), EngineFailure>>);

    impl Scripted {
        fn new(answers: Vec<Result<(&'static str, Option<i32>), EngineFailure>>) -> Self {
            Self(answers.into_iter())
        }

        fn moves(moves: &[&'static str]) -> Self {
            Self::new(moves.iter().map(|m| Ok((*m, Some(0)))).collect())
        }
    }

    impl Player for Scripted {
        fn new_game(&mut self) -> Result<(), EngineFailure> {
            Ok(())
        }

        fn go(
            &mut self,
            _fen: &str,
            _moves: &[String],
            _go: Go,
            _deadline: Duration,
        ) -> Result<(Thought, Duration), EngineFailure> {
            let (best, score) = self.0.next().unwrap_or(Err(EngineFailure::Crashed))?;
            let thought = Thought {
                best: best.to_owned(),
                depth: 1,
                score,
                ..Thought::default()
            };
            Ok((thought, Duration::from_millis(1)))
        }
    }

    fn settings() -> GameSettings {
        GameSettings {
            time_control: TimeControl::Nodes(1),
            overrides: [None, None],
            time_margin: Duration::ZERO,
            hang_timeout: Duration::from_secs(1),
            adjudication: Adjudication {
                resign: None,
                draw: None,
                max_plies: 100,
            },
        }
    }

    fn play(
        white: &mut Scripted,
        black: &mut Scripted,
        opening: &[&str],
        settings: &GameSettings,
    ) -> GameRecord {
        let v = Registry::builtin().get("chess").unwrap();
        let opening: Vec<String> = opening.iter().map(|m| (*m).to_owned()).collect();
        play_game(&v, v.start_fen(), &opening, [white, black], settings).unwrap()
    }

    #[test]
    fn the_rules_end_the_game_at_checkmate() {
        let mut white = Scripted::moves(&["g2g4"]);
        let mut black = Scripted::moves(&["e7e5", "d8h4"]);
        let g = play(&mut white, &mut black, &["f2f3"], &settings());
        assert_eq!(g.ending, Ending::Rules(Termination::Checkmate));
        assert_eq!(g.winner, Some(Color::Black));
        assert_eq!(g.opening_san, ["f3"]);
        let san: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(san, ["e5", "g4", "Qh4#"]);
        assert_eq!(g.moves[0].mover, Color::Black);
    }

    #[test]
    fn an_illegal_or_sloppy_move_loses_for_its_mover() {
        for bad in ["e2e5", "e4", "nonsense"] {
            let mut white = Scripted::moves(&[bad]);
            let mut black = Scripted::moves(&[]);
            let g = play(&mut white, &mut black, &[], &settings());
            assert_eq!(g.ending, Ending::IllegalMove(bad.to_owned()), "{bad}");
            assert_eq!(g.winner, Some(Color::Black));
            assert!(g.moves.is_empty());
        }
    }

    #[test]
    fn engine_failures_lose_with_their_own_ending() {
        for (failure, ending) in [
            (EngineFailure::Crashed, Ending::Crash),
            (EngineFailure::Timeout(Duration::ZERO), Ending::TimeForfeit),
            (EngineFailure::NoMove("(none)".into()), Ending::NoMove),
        ] {
            let mut white = Scripted::moves(&["e2e4"]);
            let mut black = Scripted::new(vec![Err(failure)]);
            let g = play(&mut white, &mut black, &[], &settings());
            assert_eq!((g.ending.clone(), g.winner), (ending, Some(Color::White)));
            assert!(g.ending.is_fault());
        }
    }

    #[test]
    fn the_ply_cap_and_bad_openings() {
        let mut s = settings();
        s.adjudication.max_plies = 3;
        let mut white = Scripted::moves(&["g1f3", "f3g1"]);
        let mut black = Scripted::moves(&["g8f6", "f6g8"]);
        let g = play(&mut white, &mut black, &["e2e4"], &s);
        assert_eq!((g.ending.clone(), g.winner), (Ending::MaxPlies, None));
        assert_eq!(g.opening.len() + g.moves.len(), 3);
        let v = Registry::builtin().get("chess").unwrap();
        let err = play_game(
            &v,
            v.start_fen(),
            &["e2e4".into(), "e2e4".into()],
            [&mut white, &mut black],
            &s,
        )
        .unwrap_err();
        assert!(
            matches!(err, GameError::OpeningMove { index: 1, .. }),
            "{err}"
        );
        assert!(play_game(&v, "8/8 w", &[], [&mut white, &mut black], &s).is_err());
    }

    #[test]
    fn both_engines_must_agree_before_a_resignation() {
        let mut s = settings();
        s.adjudication.resign = Some((2, 500));
        // White thinks it is winning, Black agrees only from its second move on.
        let mut white = Scripted::new(vec![
            Ok(("g1f3", Some(600))),
            Ok(("f3g1", Some(700))),
            Ok(("g1f3", Some(800))),
        ]);
        let mut black = Scripted::new(vec![
            Ok(("g8f6", Some(0))),
            Ok(("f6g8", Some(-600))),
            Ok(("g8f6", Some(-900))),
        ]);
        let g = play(&mut white, &mut black, &[], &s);
        assert_eq!(
            (g.ending.clone(), g.winner),
            (Ending::Resignation, Some(Color::White))
        );
        assert_eq!(g.moves.len(), 6, "after Black's second agreeing move");
    }

    #[test]
    fn clocks_charge_add_increments_and_new_periods() {
        let tc = TimeControl::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_secs(1),
            moves_per_period: Some(2),
        };
        let mut c = Clocks::new([tc, TimeControl::Nodes(5)]);
        let s = settings();
        let (go, deadline) = c.go(tc, 0, &s);
        assert_eq!(
            go,
            Go::Clock {
                wtime: Duration::from_secs(10),
                btime: Duration::ZERO,
                winc: Duration::from_secs(1),
                binc: Duration::ZERO,
                movestogo: Some(2),
            }
        );
        assert_eq!(deadline, Duration::from_secs(10));
        assert!(c.charge(tc, 0, Duration::from_secs(3), Duration::ZERO));
        assert_eq!(c.left[0], Duration::from_secs(8));
        // The second move of the period ends it: the base time is added again.
        assert!(c.charge(tc, 0, Duration::from_secs(1), Duration::ZERO));
        assert_eq!(c.left[0], Duration::from_secs(18));
        assert!(!c.charge(tc, 0, Duration::from_secs(19), Duration::ZERO));
        assert_eq!(c.go(TimeControl::Nodes(5), 1, &s).0, Go::Nodes(5));
    }
}
