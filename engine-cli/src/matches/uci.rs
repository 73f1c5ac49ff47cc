//! The match runner's side of UCI: an engine run as a child process, with the start-up
//! handshake, per-engine init lines, one `go` at a time with a deadline, and the `info` figures
//! of its last completed iteration. (The crate's own `uci` module is the other side: our engine
//! answering a GUI.)
//!
//! A reader thread turns the engine's stdout into lines on a channel, so every wait has a
//! timeout: an engine that hangs is detected and killed, and the player starts a fresh process
//! for the next game instead of stalling the match.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// How long an engine may take to answer `uci` and `isready` (loading a variant file or
/// allocating a large hash table takes a moment).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an engine gets to exit by itself after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);
/// How often a quitting engine is polled for having exited.
const QUIT_POLL: Duration = Duration::from_millis(10);

/// How to start one engine and set it up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UciCommand {
    /// Program to run (a path, or a name looked up in `PATH`).
    pub program: std::path::PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Lines sent after `uciok`, in order (`setoption name Hash value 64`, `load soho.ini`).
    pub init: Vec<String>,
    /// The engine's name for the variant (`UCI_Variant`), when it needs one.
    pub variant: Option<String>,
}

/// Why an engine failed to answer.
#[derive(Debug, thiserror::Error)]
pub enum EngineFailure {
    /// The process could not be started or its pipes failed.
    #[error("could not run the engine: {0}")]
    Spawn(String),
    /// The process exited (or closed its output).
    #[error("the engine exited")]
    Crashed,
    /// No answer within the allowed time.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// A `bestmove` without a move (`(none)`, `0000`) while legal moves exist.
    #[error("the engine returned no move ({0:?})")]
    NoMove(String),
}

/// What the engine reported about one move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Thought {
    /// The move text after `bestmove`.
    pub best: String,
    /// Depth of the last `info` line with a score.
    pub depth: u32,
    /// Selective depth, when given.
    pub seldepth: u32,
    /// Nodes, when given.
    pub nodes: u64,
    /// Score from the mover's view: centipawns, or `MATE_SCORE - plies` for a mate.
    pub score: Option<i32>,
}

/// Score given to "mate in n" (in plies), so that mates compare above any centipawn value.
pub const MATE_SCORE: i32 = 100_000;

/// The limit of one `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Go {
    /// `go movetime`.
    MoveTime(Duration),
    /// `go nodes`.
    Nodes(u64),
    /// `go depth`.
    Depth(u32),
    /// `go wtime btime winc binc [movestogo]`.
    Clock {
        /// White's time left.
        wtime: Duration,
        /// Black's time left.
        btime: Duration,
        /// White's increment.
        winc: Duration,
        /// Black's increment.
        binc: Duration,
        /// Moves to the next time control, if any.
        movestogo: Option<u32>,
    },
}

impl Go {
    /// The `go` command line.
    fn command(&self) -> String {
        match *self {
            Self::MoveTime(t) => format!("go movetime {}", t.as_millis()),
            Self::Nodes(n) => format!("go nodes {n}"),
            Self::Depth(d) => format!("go depth {d}"),
            Self::Clock {
                wtime,
                btime,
                winc,
                binc,
                movestogo,
            } => {
                let mut s = format!(
                    "go wtime {} btime {} winc {} binc {}",
                    wtime.as_millis(),
                    btime.as_millis(),
                    winc.as_millis(),
                    binc.as_millis()
                );
                if let Some(m) = movestogo {
                    let _ = write!(s, " movestogo {m}");
                }
                s
            }
        }
    }
}

/// A running engine process.
#[derive(Debug)]
pub struct UciEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // Give it a moment to quit by itself (and flush its own files), then make sure.
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            thread::sleep(QUIT_POLL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl UciEngine {
    /// Starts the engine, runs the UCI handshake and its init lines, and selects the variant.
    ///
    /// # Errors
    /// When the program cannot be started or does not complete the handshake in time.
    pub fn start(command: &UciCommand) -> Result<Self, EngineFailure> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| EngineFailure::Spawn(format!("{}: {e}", command.program.display())))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| EngineFailure::Spawn("no stdin pipe".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineFailure::Spawn("no stdout pipe".into()))?;
        let (tx, lines) = channel();
        thread::Builder::new()
            .name("uci-reader".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| EngineFailure::Spawn(e.to_string()))?;
        let mut engine = Self {
            child,
            stdin,
            lines,
        };
        engine.send("uci")?;
        engine.wait_for(|l| l.trim() == "uciok", HANDSHAKE_TIMEOUT)?;
        for line in &command.init {
            engine.send(line)?;
        }
        if let Some(v) = &command.variant {
            engine.send(&format!("setoption name UCI_Variant value {v}"))?;
        }
        engine.sync()?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        writeln!(self.stdin, "{line}").map_err(|_| EngineFailure::Crashed)?;
        self.stdin.flush().map_err(|_| EngineFailure::Crashed)
    }

    /// Reads lines until one satisfies `done`, which is returned; every line read is given to
    /// `seen` first.
    fn wait_for_with(
        &mut self,
        mut done: impl FnMut(&str) -> bool,
        mut seen: impl FnMut(&str),
        timeout: Duration,
    ) -> Result<String, EngineFailure> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    seen(&line);
                    if done(&line) {
                        return Ok(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(EngineFailure::Timeout(timeout)),
                Err(RecvTimeoutError::Disconnected) => return Err(EngineFailure::Crashed),
            }
        }
    }

    fn wait_for(
        &mut self,
        done: impl FnMut(&str) -> bool,
        timeout: Duration,
    ) -> Result<String, EngineFailure> {
        self.wait_for_with(done, |_| {}, timeout)
    }

    /// `isready` / `readyok`: everything sent before has been processed.
    fn sync(&mut self) -> Result<(), EngineFailure> {
        self.send("isready")?;
        self.wait_for(|l| l.trim() == "readyok", HANDSHAKE_TIMEOUT)
            .map(drop)
    }

    /// Tells the engine a new game starts.
    ///
    /// # Errors
    /// When the engine does not answer `isready`.
    pub fn new_game(&mut self) -> Result<(), EngineFailure> {
        self.send("ucinewgame")?;
        self.sync()
    }

    /// Sends the position (`fen` plus the moves played since) and the limit, and waits for
    /// `bestmove` until `deadline` has passed since the `go` was sent. Returns the engine's
    /// report and the time it took.
    ///
    /// # Errors
    /// [`EngineFailure::Timeout`] when no `bestmove` arrived in time (the process is killed: the
    /// game is lost anyway, and a late `bestmove` must not be read as the answer to the next
    /// `go`), [`EngineFailure::Crashed`] when it exited, [`EngineFailure::NoMove`] for an empty
    /// `bestmove`.
    pub fn go(
        &mut self,
        fen: &str,
        moves: &[String],
        go: Go,
        deadline: Duration,
    ) -> Result<(Thought, Duration), EngineFailure> {
        let mut position = format!("position fen {fen}");
        if !moves.is_empty() {
            position.push_str(" moves");
            for m in moves {
                position.push(' ');
                position.push_str(m);
            }
        }
        self.send(&position)?;
        let mut thought = Thought::default();
        let started = Instant::now();
        self.send(&go.command())?;
        let answer = self.wait_for_with(
            |l| l.starts_with("bestmove"),
            |l| parse_info(l, &mut thought),
            deadline,
        );
        let elapsed = started.elapsed();
        let line = match answer {
            Ok(line) => line,
            Err(EngineFailure::Timeout(t)) => {
                let _ = self.child.kill();
                return Err(EngineFailure::Timeout(t));
            }
            Err(e) => return Err(e),
        };
        let best = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        if best.is_empty() || best == "(none)" || best == "0000" {
            return Err(EngineFailure::NoMove(best));
        }
        thought.best = best;
        Ok((thought, elapsed))
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

/// Reads the figures of an `info` line into `thought` (only lines with a score: the last one
/// belongs to the last completed iteration; lines of other multi-PV lines are ignored).
fn parse_info(line: &str, thought: &mut Thought) {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return;
    }
    let words: Vec<&str> = words.collect();
    let value = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
    };
    if value("multipv").is_some_and(|v| *v != "1") {
        return;
    }
    let Some(i) = words.iter().position(|w| *w == "score") else {
        return;
    };
    let score = match (words.get(i + 1), words.get(i + 2).map(|v| v.parse::<i32>())) {
        (Some(&"cp"), Some(Ok(cp))) => cp,
        (Some(&"mate"), Some(Ok(m))) if m > 0 => MATE_SCORE - (2 * m - 1),
        (Some(&"mate"), Some(Ok(m))) => -MATE_SCORE - 2 * m,
        _ => return,
    };
    // Bound-only scores (`lowerbound`/`upperbound`) come from aspiration failures mid-iteration.
    if words
        .get(i + 3)
        .is_some_and(|w| *w == "lowerbound" || *w == "upperbound")
    {
        return;
    }
    thought.score = Some(score);
    if let Some(Ok(d)) = value("depth").map(|v| v.parse()) {
        thought.depth = d;
    }
    if let Some(Ok(d)) = value("seldepth").map(|v| v.parse()) {
        thought.seldepth = d;
    }
    if let Some(Ok(n)) = value("nodes").map(|v| v.parse()) {
        thought.nodes = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_depth_nodes_and_score() {
        let mut t = Thought::default();
        parse_info(
            "info depth 12 seldepth 20 multipv 1 score cp 35 nodes 123456 nps 1000 pv e2e4",
            &mut t,
        );
        assert_eq!(
            (t.depth, t.seldepth, t.nodes, t.score),
            (12, 20, 123_456, Some(35))
        );
        // Another line's figures, a bound and a string line change nothing.
        parse_info("info depth 13 multipv 2 score cp 10 nodes 5", &mut t);
        parse_info("info depth 13 score cp 99 lowerbound nodes 7", &mut t);
        parse_info("info string hello", &mut t);
        assert_eq!((t.depth, t.nodes, t.score), (12, 123_456, Some(35)));
        parse_info("info depth 14 score mate 3 nodes 9", &mut t);
        assert_eq!(t.score, Some(MATE_SCORE - 5));
        parse_info("info depth 15 score mate -2 nodes 10", &mut t);
        assert_eq!(t.score, Some(-MATE_SCORE + 4));
    }

    #[test]
    fn go_commands() {
        assert_eq!(
            Go::MoveTime(Duration::from_millis(200)).command(),
            "go movetime 200"
        );
        assert_eq!(Go::Nodes(5000).command(), "go nodes 5000");
        let clock = Go::Clock {
            wtime: Duration::from_secs(60),
            btime: Duration::from_millis(59_500),
            winc: Duration::from_millis(100),
            binc: Duration::from_millis(100),
            movestogo: Some(20),
        };
        assert_eq!(
            clock.command(),
            "go wtime 60000 btime 59500 winc 100 binc 100 movestogo 20"
        );
    }
}
