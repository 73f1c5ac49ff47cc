//! The UCI protocol adapter: the `variant-engine` binary with no arguments.
//!
//! The engine library never prints; this module turns protocol lines into library calls and
//! writes replies to the writer it is given, so tests can drive it with strings.
//!
//! `go` starts the search on a background thread and returns at once, so the reader keeps
//! reading: `stop` sets the search's stop flag and waits for the `bestmove` line, `isready`
//! answers while the search runs. The writer is shared with the search thread behind a mutex.
//!
//! Every `go` ends in exactly one `bestmove` (a GUI waits for it): unknown or malformed `go`
//! arguments are reported and skipped, not a reason to stay silent; `go infinite` and
//! `go ponder` hold their `bestmove` back until `stop` (or `ponderhit`), as the protocol asks,
//! even when the search has nothing left to do. Pondering searches the expected position
//! without a time limit; `ponderhit` ends that search without a `bestmove` and starts the real
//! one with the `go` command's limits, which finds the table warm. A failed `position` command
//! leaves a defined position and says which: the variant's start position for an unreadable
//! FEN, the position after the legal prefix for a bad move.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use variant_engine::{
    Clock, Color, EvalParams, Features, Level, Limits, MAX_LEVEL, Network, Position, Registry,
    Score, SearchInfo, SearchOptions, Searcher, SearcherConfig, SplitMix64, Square, Variant,
    divide, perft, quote,
};

/// Default transposition-table size in MiB.
const DEFAULT_HASH_MB: usize = 64;
/// Largest accepted `Hash` option.
const MAX_HASH_MB: usize = 65_536;
/// Largest accepted `Threads` option.
const MAX_THREADS: usize = 256;

/// Engine name reported by `uci`.
pub const ENGINE_NAME: &str = concat!("variant-engine ", env!("CARGO_PKG_VERSION"));

/// Whether the session goes on after a command.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received.
    Quit,
}

/// A search running on a background thread.
#[derive(Debug)]
struct Running {
    infinite: bool,
    stop: Arc<AtomicBool>,
    handle: JoinHandle<()>,
    /// For `go ponder`: the search to start on `ponderhit`, and the switch that silences the
    /// ponder search's `bestmove` when it is replaced.
    ponder: Option<(Limits, Arc<AtomicBool>)>,
}

/// The arguments of `go` (everything but `perft`).
#[derive(Debug, Default)]
pub struct GoArgs {
    /// The limits (`search_moves` left empty: moves are parsed against the position).
    pub limits: Limits,
    /// `ponder`: search until `ponderhit` or `stop`.
    pub ponder: bool,
    /// The texts after `searchmoves`, as given.
    pub search_moves: Vec<String>,
    /// Arguments that were skipped, each with the reason.
    pub skipped: Vec<String>,
}

/// The words that start a `go` argument (they end a `searchmoves` list).
const GO_KEYWORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

/// The writer, shared with the search thread.
#[derive(Debug)]
struct Out<W>(Arc<Mutex<W>>);

impl<W: Write> Write for Out<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .flush()
    }
}

/// One UCI conversation.
#[derive(Debug)]
pub struct UciSession<W: Write + Send + 'static> {
    registry: Registry,
    variant: Arc<Variant>,
    position: Position,
    out: Out<W>,
    shared_out: Arc<Mutex<W>>,
    searcher: Arc<Searcher>,
    threads: usize,
    multipv: usize,
    skill: Option<u8>,
    /// Playing level 1..=8 (`Level` option; 8 = full strength), applied on top of the skill.
    level: u8,
    /// Seeds of the weak levels' and skill levels' random picks: a fixed `Seed` option, or a
    /// fresh draw per search so that two games differ.
    seeds: SplitMix64,
    fixed_seed: Option<u64>,
    /// Search features (`Features` option): all on unless a self-play comparison turns some
    /// off.
    features: Features,
    /// Networks loaded with the `EvalFile` option, at most one per variant (kept for the
    /// life of the process: searches borrow them as `'static`).
    nets: Vec<&'static Network>,
    /// `Use NNUE`: evaluate with the current variant's loaded network, else its shipped one
    /// (on by default: each shipped network beat the hand-written evaluation in self-play).
    use_nnue: bool,
    /// Evaluation weights loaded with the `EvalParams` option, at most one file per variant,
    /// used instead of the shipped ones (kept for the life of the process, as the networks).
    params: Vec<&'static EvalParams>,
    running: Option<Running>,
}

impl<W: Write + Send + 'static> Drop for UciSession<W> {
    fn drop(&mut self) {
        self.stop_search();
    }
}

impl<W: Write + Send + 'static> UciSession<W> {
    /// A session on orthodox chess, writing replies to `out`.
    ///
    /// # Panics
    /// If the registry has no `chess` variant (it always does).
    pub fn new(registry: Registry, out: W) -> Self {
        let variant = registry.get("chess").expect("chess is built in");
        let position = Position::new(variant.clone());
        let shared_out = Arc::new(Mutex::new(out));
        Self {
            registry,
            variant,
            position,
            out: Out(shared_out.clone()),
            shared_out,
            searcher: Arc::new(Searcher::new(SearcherConfig {
                hash_mb: DEFAULT_HASH_MB,
            })),
            threads: 1,
            multipv: 1,
            skill: None,
            level: MAX_LEVEL,
            seeds: SplitMix64::from_entropy(),
            fixed_seed: None,
            features: Features::default(),
            nets: Vec::new(),
            use_nnue: true,
            params: Vec::new(),
            running: None,
        }
    }

    /// Stops a running search and waits for its `bestmove`.
    fn stop_search(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::Relaxed);
            let _ = r.handle.join();
        }
    }

    /// End of input: lets a bounded search finish (its `bestmove` is printed) and stops an
    /// infinite one.
    pub fn finish(&mut self) {
        if self.running.as_ref().is_some_and(|r| r.infinite) {
            self.stop_search();
        } else {
            self.wait();
        }
    }

    /// Waits for a running search to finish by itself.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }

    /// Handles one command line.
    ///
    /// # Errors
    /// Only when writing to the output fails.
    pub fn handle(&mut self, line: &str) -> io::Result<Flow> {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else {
            return Ok(Flow::Continue);
        };
        let rest: Vec<&str> = words.collect();
        match command {
            "uci" => {
                let vars: String = self
                    .registry
                    .names()
                    .iter()
                    .fold(String::new(), |mut s, n| {
                        let _ = write!(s, " var {n}");
                        s
                    });
                writeln!(self.out, "id name {ENGINE_NAME}")?;
                writeln!(self.out, "id author the variant-engine authors")?;
                writeln!(
                    self.out,
                    "option name UCI_Variant type combo default chess{vars}"
                )?;
                writeln!(
                    self.out,
                    "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
                )?;
                writeln!(
                    self.out,
                    "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"
                )?;
                writeln!(
                    self.out,
                    "option name MultiPV type spin default 1 min 1 max 256"
                )?;
                writeln!(
                    self.out,
                    "option name Skill Level type spin default 20 min 0 max 20"
                )?;
                writeln!(
                    self.out,
                    "option name Level type spin default {MAX_LEVEL} min 1 max {MAX_LEVEL}"
                )?;
                // 0 = a fresh random seed per search.
                writeln!(self.out, "option name Seed type string default 0")?;
                // The `SearchOptions` text form, so that a match can pit configurations
                // against each other through UCI (`option.Features=null=off,lmr=off`).
                writeln!(self.out, "option name Features type string default <empty>")?;
                // A network file (`nnue-train`), for the variant it names, used while `Use
                // NNUE` is on (as it is by default, with the shipped network of a variant that
                // has one and no file).
                writeln!(self.out, "option name EvalFile type string default <empty>")?;
                writeln!(self.out, "option name Use NNUE type check default true")?;
                writeln!(
                    self.out,
                    "option name EvalParams type string default <empty>"
                )?;
                writeln!(self.out, "uciok")?;
            }
            "isready" => writeln!(self.out, "readyok")?,
            "ucinewgame" => {
                self.stop_search();
                self.searcher.clear();
                self.position = Position::new(self.variant.clone());
            }
            "setoption" => {
                self.stop_search();
                self.set_option(&rest)?;
            }
            "position" => {
                self.stop_search();
                self.set_position(&rest)?;
            }
            "go" => {
                self.stop_search();
                self.go(&rest)?;
            }
            "ponderhit" => self.ponderhit()?,
            "stop" => self.stop_search(),
            "d" => self.display()?,
            "quit" => {
                self.stop_search();
                return Ok(Flow::Quit);
            }
            other => writeln!(self.out, "info string unknown command {other:?}")?,
        }
        self.out.flush()?;
        Ok(Flow::Continue)
    }

    fn set_option(&mut self, args: &[&str]) -> io::Result<()> {
        let value_at = args.iter().position(|w| *w == "value");
        let name = args
            .get(1..value_at.unwrap_or(args.len()))
            .map(|w| w.join(" "));
        let value = value_at.map(|i| args[i + 1..].join(" "));
        match (name.as_deref(), value) {
            (Some("UCI_Variant"), Some(value)) => match self.registry.get(&value) {
                Ok(v) => {
                    self.variant = v.clone();
                    self.position = Position::new(v);
                }
                Err(e) => writeln!(self.out, "info string {e}")?,
            },
            (Some("Threads"), Some(value)) => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_THREADS).contains(&n) => self.threads = n,
                _ => writeln!(self.out, "info string invalid Threads value {value:?}")?,
            },
            (Some("Hash"), Some(value)) => match value.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                    self.searcher = Arc::new(Searcher::new(SearcherConfig { hash_mb: mb }));
                }
                _ => writeln!(self.out, "info string invalid Hash value {value:?}")?,
            },
            (Some("MultiPV"), Some(value)) => match value.parse::<usize>() {
                Ok(n) if (1..=256).contains(&n) => self.multipv = n,
                _ => writeln!(self.out, "info string invalid MultiPV value {value:?}")?,
            },
            (Some("Level"), Some(value)) => match value.parse::<u8>() {
                Ok(n) if Level::get(n).is_some() => self.level = n,
                _ => writeln!(self.out, "info string invalid Level value {value:?}")?,
            },
            (Some("Seed"), Some(value)) => match value.parse::<u64>() {
                Ok(n) => self.fixed_seed = (n != 0).then_some(n),
                _ => writeln!(self.out, "info string invalid Seed value {value:?}")?,
            },
            (Some("Skill Level"), Some(value)) => match value.parse::<u8>() {
                Ok(n) if n <= 20 => self.skill = (n < 20).then_some(n),
                _ => writeln!(self.out, "info string invalid Skill Level value {value:?}")?,
            },
            (Some("EvalFile"), Some(path)) if path != "<empty>" => match self.load_net(&path) {
                Ok(name) => writeln!(self.out, "info string loaded network {path} for {name}")?,
                Err(e) => writeln!(self.out, "info string EvalFile {path}: {e}")?,
            },
            (Some("EvalParams"), Some(path)) if path != "<empty>" => {
                match self.load_params(&path) {
                    Ok(name) => writeln!(self.out, "info string loaded weights {path} for {name}")?,
                    Err(e) => writeln!(self.out, "info string EvalParams {path}: {e}")?,
                }
            }
            (Some("EvalFile" | "EvalParams"), _) => {}
            (Some("Use NNUE"), Some(value)) => match value.as_str() {
                "true" => self.use_nnue = true,
                "false" => self.use_nnue = false,
                _ => writeln!(self.out, "info string invalid Use NNUE value {value:?}")?,
            },
            (Some("Features"), value) => {
                let text = value.unwrap_or_default();
                let text = if text == "<empty>" { "" } else { text.as_str() };
                match text.parse::<SearchOptions>() {
                    // Only the switches: the skill level has its own option.
                    Ok(o) if o.skill_level.is_none() => self.features = o.features,
                    Ok(_) => writeln!(
                        self.out,
                        "info string Features takes no skill (use the Skill Level option)"
                    )?,
                    Err(e) => writeln!(self.out, "info string {e}")?,
                }
            }
            (name, _) => writeln!(
                self.out,
                "info string unknown option {:?}",
                name.unwrap_or("")
            )?,
        }
        Ok(())
    }

    /// The current variant's network: one loaded with `EvalFile`, else the shipped one.
    fn net_for_variant(&self) -> Option<&'static Network> {
        let name = self.variant.name();
        if let Some(net) = self.nets.iter().find(|n| n.variant_name() == name) {
            return Some(*net);
        }
        Network::shipped(&self.variant).ok()?
    }

    /// Loads a network file for the variant it names; returns that name.
    fn load_net(&mut self, path: &str) -> Result<String, String> {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let net = Network::load(&bytes, &self.registry).map_err(|e| e.to_string())?;
        let name = net.variant_name().to_owned();
        self.nets.retain(|n| n.variant_name() != name);
        self.nets.push(Box::leak(Box::new(net)));
        Ok(name)
    }

    /// Loads a weights file (`EvalParams`, the format `tune` writes) for the variant its
    /// `variant` line names; returns that name.
    fn load_params(&mut self, path: &str) -> Result<String, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let params = EvalParams::parse_in(&self.registry, &text).map_err(|e| e.to_string())?;
        let name = params.variant_name().to_owned();
        self.params.retain(|p| p.variant_name() != name);
        self.params.push(Box::leak(Box::new(params)));
        Ok(name)
    }

    fn set_position(&mut self, args: &[&str]) -> io::Result<()> {
        let moves_at = args
            .iter()
            .position(|w| *w == "moves")
            .unwrap_or(args.len());
        let mut pos = match args.first() {
            Some(&"startpos") => Position::new(self.variant.clone()),
            Some(&"fen") => {
                match Position::from_fen(self.variant.clone(), &args[1..moves_at].join(" ")) {
                    Ok(p) => p,
                    Err(e) => {
                        // Never keep the previous position: the next `go` would answer for
                        // a game the GUI has left.
                        self.position = Position::new(self.variant.clone());
                        return writeln!(
                            self.out,
                            "info string invalid fen: {e}; position set to the start position"
                        );
                    }
                }
            }
            _ => {
                self.position = Position::new(self.variant.clone());
                return writeln!(
                    self.out,
                    "info string expected position startpos|fen <fen> [moves ...]; position \
                     set to the start position"
                );
            }
        };
        let result = pos.replay(args.iter().skip(moves_at + 1).copied());
        // `replay` keeps the moves before a failing one played: that prefix is the position.
        self.position = pos;
        if let Err(e) = result {
            writeln!(
                self.out,
                "info string {e}; position set to after the first {} moves",
                e.index
            )?;
        }
        Ok(())
    }

    fn go(&mut self, args: &[&str]) -> io::Result<()> {
        if let ["perft", depth] = args {
            return match depth.parse::<u32>() {
                Ok(d) if d >= 1 => {
                    let mut pos = self.position.clone();
                    let mut total = 0;
                    for (m, n) in divide(&mut pos, d) {
                        writeln!(self.out, "{}: {n}", pos.uci(m))?;
                        total += n;
                    }
                    writeln!(self.out)?;
                    writeln!(self.out, "Nodes searched: {total}")
                }
                _ => writeln!(self.out, "info string invalid perft depth {depth:?}"),
            };
        }
        let go = parse_go(args);
        for reason in &go.skipped {
            writeln!(self.out, "info string {reason}")?;
        }
        let mut limits = go.limits;
        limits.threads = self.threads;
        limits.multipv = self.multipv;
        for text in &go.search_moves {
            match self.position.parse_move(text) {
                Ok(m) => limits.search_moves.push(m),
                Err(e) => writeln!(self.out, "info string searchmoves: skipped {e}")?,
            }
        }
        if go.ponder {
            // The real search starts on `ponderhit`; until then, search without a bound.
            let after_hit = limits.clone();
            limits.infinite = true;
            let silence = Arc::new(AtomicBool::new(false));
            return self.start(limits, Some((after_hit, silence)));
        }
        self.start(limits, None)
    }

    /// `ponderhit`: the expected move was played. The ponder search ends without a
    /// `bestmove` and the search of the `go ponder` command's limits takes its place.
    fn ponderhit(&mut self) -> io::Result<()> {
        let pondering = self
            .running
            .as_mut()
            .and_then(|r| r.ponder.take().map(|p| (p, r.stop.clone())));
        let Some(((limits, silence), stop)) = pondering else {
            return writeln!(self.out, "info string ponderhit without go ponder");
        };
        silence.store(true, Ordering::Relaxed);
        stop.store(true, Ordering::Relaxed);
        self.stop_search();
        self.start(limits, None)
    }

    /// Starts a search of the current position on a background thread.
    fn start(
        &mut self,
        limits: Limits,
        ponder: Option<(Limits, Arc<AtomicBool>)>,
    ) -> io::Result<()> {
        let infinite = limits.infinite;
        let silence = ponder
            .as_ref()
            .map_or_else(|| Arc::new(AtomicBool::new(false)), |(_, s)| s.clone());
        let mut limits = limits;
        let mut options = SearchOptions {
            features: self.features,
            skill_level: self.skill,
            seed: self.fixed_seed.unwrap_or_else(|| self.seeds.next_u64()),
            fresh_table: false,
        };
        if self.use_nnue {
            options.features.eval.net = self.net_for_variant();
        }
        let variant = self.variant.name();
        if let Some(params) = self.params.iter().find(|p| p.variant_name() == variant) {
            options.features.eval.params = Some(*params);
        }
        if let Some(level) = Level::get(self.level) {
            level.apply(&mut limits, &mut options);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let searcher = self.searcher.clone();
        let pos = self.position.clone();
        let out = self.shared_out.clone();
        let flag = stop.clone();
        let spawned = std::thread::Builder::new()
            .name("uci-search".into())
            .stack_size(16 << 20)
            .spawn(move || {
                let mut out = Out(out);
                let result = searcher.search(&pos, &limits, &options, &flag, &mut |info| {
                    let _ = writeln!(out, "{}", info_line(&pos, info));
                    let _ = out.flush();
                });
                // An infinite or ponder search may run out of work (a mate found, the depth
                // cap); its `bestmove` still waits for `stop` or `ponderhit`.
                while infinite && !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if silence.load(Ordering::Relaxed) {
                    return;
                }
                // A last report with the totals of the whole search (the per-iteration lines
                // stop at the last completed iteration).
                if let Some(line) = result.lines.first() {
                    let total = SearchInfo {
                        depth: result.depth,
                        seldepth: result.seldepth,
                        nodes: result.nodes,
                        nps: result.nps,
                        time: result.time,
                        ..line.clone()
                    };
                    let _ = writeln!(out, "{}", info_line(&pos, &total));
                }
                let best = result
                    .best_move
                    .map_or_else(|| "0000".to_owned(), |m| pos.uci(m));
                let line = match result.ponder {
                    Some(p) => format!("bestmove {best} ponder {}", pos.uci(p)),
                    None => format!("bestmove {best}"),
                };
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    infinite,
                    stop,
                    handle,
                    ponder,
                });
                Ok(())
            }
            Err(e) => {
                writeln!(self.out, "info string cannot start the search: {e}")?;
                writeln!(self.out, "bestmove 0000")
            }
        }
    }

    fn display(&mut self) -> io::Result<()> {
        let text = board_diagram(&self.position);
        write!(self.out, "{text}")?;
        writeln!(self.out, "Fen: {}", self.position.fen())
    }
}

/// Parses the arguments of `go` (everything but `perft`). Nothing here is fatal: an unknown
/// word or a missing or malformed number is skipped and named in [`GoArgs::skipped`], so a
/// `go` always starts a search and ends in a `bestmove`.
pub fn parse_go(args: &[&str]) -> GoArgs {
    let mut go = GoArgs::default();
    let mut clock = Clock {
        wtime: Duration::ZERO,
        btime: Duration::ZERO,
        winc: Duration::ZERO,
        binc: Duration::ZERO,
        movestogo: None,
    };
    let mut has_clock = false;
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        match key {
            "infinite" => go.limits.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                while let Some(m) = args.get(i).filter(|w| !GO_KEYWORDS.contains(w)) {
                    go.search_moves.push((*m).to_owned());
                    i += 1;
                }
            }
            "depth" | "nodes" | "movetime" | "wtime" | "btime" | "winc" | "binc" | "movestogo"
            | "mate" => {
                let Some(n) = args
                    .get(i)
                    .and_then(|v| v.parse::<i64>().ok())
                    .map(|v| v.max(0) as u64)
                else {
                    go.skipped.push(format!("go {key} needs a number: skipped"));
                    continue;
                };
                i += 1;
                let ms = Duration::from_millis(n);
                let l = &mut go.limits;
                match key {
                    "depth" => l.depth = Some(n.clamp(1, 1000) as u32),
                    "nodes" => l.nodes = Some(n.max(1)),
                    "movetime" => l.movetime = Some(ms),
                    "wtime" => (clock.wtime, has_clock) = (ms, true),
                    "btime" => (clock.btime, has_clock) = (ms, true),
                    "winc" => clock.winc = ms,
                    "binc" => clock.binc = ms,
                    "movestogo" => clock.movestogo = Some(n.clamp(1, 1000) as u32),
                    _ => l.depth = Some((2 * n).clamp(1, 1000) as u32), // mate in n: 2n plies
                }
            }
            other => go.skipped.push(format!(
                "unsupported go argument {:?}: skipped",
                quote(other)
            )),
        }
    }
    if has_clock {
        go.limits.clock = Some(clock);
    }
    go
}

/// The `info` line for one search report.
pub fn info_line(pos: &Position, info: &SearchInfo) -> String {
    let score = match info.score {
        Score::Centipawns(cp) => format!("cp {cp}"),
        Score::Mate(m) => format!("mate {m}"),
    };
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {score} nodes {} nps {} time {} pv",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.nps,
        info.time.as_millis()
    );
    for &m in &info.pv {
        s.push(' ');
        s.push_str(&pos.uci(m));
    }
    s
}

/// A text diagram of the board, White at the bottom.
pub fn board_diagram(pos: &Position) -> String {
    let v = pos.variant();
    let mut s = String::new();
    for rank in (0..v.ranks()).rev() {
        let _ = write!(s, "{:>3} ", rank + 1);
        for file in 0..v.files() {
            let c = Square::from_coords(file, rank)
                .and_then(|sq| pos.piece_at(sq))
                .map_or('.', |p| {
                    let l = v.piece(p.kind()).letter;
                    if p.color() == Color::White {
                        l
                    } else {
                        l.to_ascii_lowercase()
                    }
                });
            let _ = write!(s, " {c}");
        }
        s.push('\n');
    }
    s.push_str("    ");
    for file in 0..v.files() {
        let _ = write!(s, " {}", (b'a' + file) as char);
    }
    s.push('\n');
    s
}

/// `perft` subcommand: prints the split and the total.
///
/// # Errors
/// A message naming the bad argument, or an I/O error text.
pub fn perft_command(
    registry: &Registry,
    variant: &str,
    depth: u32,
    fen: Option<&str>,
    out: &mut impl Write,
) -> Result<u64, String> {
    let v = registry.get(variant).map_err(|e| e.to_string())?;
    let mut pos = match fen {
        Some(f) => Position::from_fen(v, f).map_err(|e| format!("invalid fen: {e}"))?,
        None => Position::new(v),
    };
    let start = std::time::Instant::now();
    let mut total = 0;
    if depth == 0 {
        total = perft(&mut pos, 0);
    }
    for (m, n) in divide(&mut pos, depth) {
        writeln!(out, "{}: {n}", pos.uci(m)).map_err(|e| e.to_string())?;
        total += n;
    }
    let secs = start.elapsed().as_secs_f64();
    writeln!(out).map_err(|e| e.to_string())?;
    writeln!(out, "Nodes searched: {total}").map_err(|e| e.to_string())?;
    writeln!(
        out,
        "Time: {:.3} s ({:.0} nodes/s)",
        secs,
        total as f64 / secs.max(1e-9)
    )
    .map_err(|e| e.to_string())?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test can read back after the session (and its search thread) is done.
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn run(lines: &[&str]) -> String {
        let buf = Buf::default();
        {
            let mut s = UciSession::new(Registry::builtin(), buf.clone());
            for l in lines {
                if *l == "wait" {
                    s.wait();
                } else {
                    s.handle(l).unwrap();
                }
            }
        }
        String::from_utf8(buf.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn eval_params_replaces_the_weights_of_its_variant_only() {
        // Black has no queen: the shipped weights score that as a queen up for White, and a
        // weights file with every weight 0 scores every position about 0.
        let v = Registry::builtin().get("soho").unwrap();
        let zero: String = EvalParams::builtin(&v)
            .unwrap()
            .to_text()
            .lines()
            .map(|line| {
                let mut words = line.split_whitespace();
                match (words.next(), words.count()) {
                    (Some("variant") | None, _) => format!("{line}\n"),
                    (Some(name), 1) => format!("{name} 0\n"),
                    (Some(name), _) => format!("{name} 0 0\n"),
                }
            })
            .collect();
        let path = std::env::temp_dir().join(format!("uci-params-{}.txt", std::process::id()));
        std::fs::write(&path, zero).unwrap();
        let load = format!("setoption name EvalParams value {}", path.display());
        let fen = "position fen cwf4fwc/rnbu1kubnr/pppppppppp/10/10/10/10/PPPPPPPPPP/\
                   RNBUQKUBNR/CWF4FWC w KQkq - 0 1";
        let score = |out: &str| -> i32 {
            out.lines()
                .find(|l| l.starts_with("info depth 1 "))
                .and_then(|l| l.split(" score cp ").nth(1))
                .and_then(|t| t.split(' ').next())
                .and_then(|t| t.parse().ok())
                .unwrap_or_else(|| panic!("no depth-1 score in {out}"))
        };
        // The hand-written evaluation alone: SOHO's shipped network would add its correction.
        let go = [
            "setoption name Use NNUE value false",
            "setoption name UCI_Variant value soho",
            fen,
            "go depth 1",
            "wait",
        ];
        let shipped = run(&go);
        let zeroed = run(&[&load, go[0], go[1], go[2], go[3], go[4]]);
        assert!(zeroed.contains("info string loaded weights"), "{zeroed}");
        assert!(score(&shipped) > 500, "{shipped}");
        assert!(score(&zeroed).abs() < 50, "{zeroed}");
        // The file is for SOHO: Opulent keeps its own weights.
        let opulent = |extra: &[&str]| {
            let mut lines = extra.to_vec();
            lines.extend([
                "setoption name UCI_Variant value opulent",
                "position startpos",
                "go depth 2",
                "wait",
            ]);
            let out = run(&lines);
            out.lines()
                .filter(|l| l.starts_with("info depth 2 "))
                .map(|l| l.split(" nodes ").next().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(opulent(&[&load]), opulent(&[]));
        let bad = run(&["setoption name EvalParams value /nonexistent/w.txt"]);
        assert!(
            bad.contains("info string EvalParams /nonexistent/w.txt: "),
            "{bad}"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn eval_file_and_use_nnue_switch_the_evaluation() {
        // A network whose only non-zero weight is the output bias scores every position
        // 123 cp for the side to move, so a depth-1 search from any position reports -123
        // (the reply's side gets the 123) once the network is on, and something else off.
        let v = Registry::builtin().get("soho").unwrap();
        let net = Network::constant(&v, 123, false);
        let path = std::env::temp_dir().join(format!("uci-net-{}.nnue", std::process::id()));
        std::fs::write(&path, net.to_bytes()).unwrap();
        let load = format!("setoption name EvalFile value {}", path.display());
        let on = run(&[
            &load,
            "setoption name Use NNUE value true",
            "setoption name UCI_Variant value soho",
            "position startpos",
            "go depth 1",
            "wait",
        ]);
        assert!(on.contains("info string loaded network"), "{on}");
        assert!(
            on.contains("info depth 1 ") && on.contains("score cp -123 "),
            "{on}"
        );
        let off = run(&[
            &load,
            "setoption name Use NNUE value false",
            "setoption name UCI_Variant value soho",
            "position startpos",
            "go depth 1",
            "wait",
        ]);
        assert!(!off.contains("score cp -123 "), "{off}");
        // Without a file, `Use NNUE` (on by default) takes the variant's shipped network
        // (Opulent has one).
        let score = |out: &str| {
            out.lines()
                .find(|l| l.starts_with("info depth 2 "))
                .and_then(|l| l.split(" score cp ").nth(1))
                .and_then(|t| t.split(' ').next())
                .map(str::to_owned)
        };
        let hand = run(&[
            "setoption name Use NNUE value false",
            "setoption name UCI_Variant value opulent",
            "position startpos",
            "go depth 2",
            "wait",
        ]);
        let shipped = run(&[
            "setoption name UCI_Variant value opulent",
            "position startpos",
            "go depth 2",
            "wait",
        ]);
        assert!(
            score(&hand).is_some() && score(&hand) != score(&shipped),
            "{hand}\n{shipped}"
        );
        let bad = run(&["setoption name EvalFile value /nonexistent/net.nnue"]);
        assert!(
            bad.contains("info string EvalFile /nonexistent/net.nnue: "),
            "{bad}"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn go_depth_prints_info_and_bestmove() {
        let out = run(&[
            "setoption name UCI_Variant value opulent",
            "setoption name MultiPV value 2",
            "position startpos moves e3e5",
            "go depth 3",
            "wait",
        ]);
        assert!(out.contains("info depth 3 seldepth"), "{out}");
        assert!(out.contains(" multipv 2 score cp "), "{out}");
        let best = out
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .unwrap();
        let v = Registry::builtin().get("opulent").unwrap();
        let mut pos = Position::new(v);
        pos.play(pos.parse_move("e3e5").unwrap());
        let m = best.split_whitespace().next().unwrap();
        assert!(pos.parse_move(m).is_ok(), "{best}");
    }

    #[test]
    fn stop_ends_an_infinite_search_with_bestmove() {
        let out = run(&[
            "setoption name Threads value 2",
            "position startpos",
            "go infinite",
            "isready",
            "stop",
        ]);
        assert!(out.contains("readyok"), "{out}");
        assert_eq!(out.matches("bestmove ").count(), 1, "{out}");
    }

    #[test]
    fn go_arguments_parse() {
        let l = parse_go(&[
            "wtime",
            "1000",
            "btime",
            "2000",
            "winc",
            "10",
            "binc",
            "20",
            "movestogo",
            "5",
        ])
        .limits;
        let c = l.clock.unwrap();
        assert_eq!(
            (c.wtime.as_millis(), c.btime.as_millis(), c.movestogo),
            (1000, 2000, Some(5))
        );
        assert_eq!(parse_go(&["nodes", "500"]).limits.nodes, Some(500));
        assert_eq!(parse_go(&["depth"]).skipped.len(), 1);
        let g = parse_go(&["sideways", "depth", "3"]);
        assert_eq!((g.skipped.len(), g.limits.depth), (1, Some(3)));
        let g = parse_go(&["searchmoves", "e2e4", "d2d4", "ponder", "movetime", "50"]);
        assert_eq!(g.search_moves, ["e2e4", "d2d4"]);
        assert!(g.ponder);
        assert_eq!(g.limits.movetime, Some(Duration::from_millis(50)));
    }

    #[test]
    fn the_features_option_sets_the_search_switches() {
        let buf = Buf::default();
        let mut s = UciSession::new(Registry::builtin(), buf.clone());
        s.handle("setoption name Features value null=off,lmr=off")
            .unwrap();
        assert!(!s.features.null_move && !s.features.lmr && s.features.tt);
        s.handle("setoption name Features value bogus=on").unwrap();
        s.handle("setoption name Features value skill=3").unwrap();
        assert!(!s.features.null_move, "a rejected value changes nothing");
        s.handle("setoption name Features value <empty>").unwrap();
        assert_eq!(s.features, Features::default());
        drop(s);
        let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(
            out.contains("invalid engine config item \"bogus=on\""),
            "{out}"
        );
        assert!(out.contains("Features takes no skill"), "{out}");
    }

    #[test]
    fn uci_advertises_every_variant() {
        let out = run(&["uci"]);
        let line = out
            .lines()
            .find(|l| l.starts_with("option name UCI_Variant"))
            .unwrap();
        for name in Registry::builtin().names() {
            assert!(line.contains(&format!(" var {name}")), "{line}");
        }
        assert!(out.ends_with("uciok\n"));
    }

    #[test]
    fn go_perft_prints_split_and_total() {
        let out = run(&[
            "setoption name UCI_Variant value opulent",
            "position startpos moves e3e5",
            "go perft 2",
        ]);
        assert!(out.contains("\nNodes searched: "), "{out}");
        let total: u64 = out
            .lines()
            .find_map(|l| l.strip_prefix("Nodes searched: "))
            .unwrap()
            .parse()
            .unwrap();
        let split: u64 = out
            .lines()
            .filter_map(|l| l.split_once(": "))
            .filter(|(m, _)| !m.contains(' '))
            .map(|(_, n)| n.parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, split);
        assert!(total > 0);
    }

    #[test]
    fn d_prints_fen_and_bad_input_is_reported() {
        let out = run(&["setoption name UCI_Variant value soho", "d"]);
        assert!(out.contains("Fen: cwf4fwc/"), "{out}");
        let out = run(&[
            "setoption name UCI_Variant value nosuch",
            "position fen garbage",
            "position startpos moves e2e5",
        ]);
        assert!(out.contains("unknown variant"), "{out}");
        assert!(out.contains("invalid fen"), "{out}");
        assert!(out.contains("move 0 (\"e2e5\")"), "{out}");
    }

    /// The moves of the `bestmove` lines in `out`.
    fn bestmoves(out: &str) -> Vec<&str> {
        out.lines()
            .filter_map(|l| l.strip_prefix("bestmove "))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect()
    }

    #[test]
    fn go_searchmoves_searches_only_those_and_answers() {
        let out = run(&[
            "position startpos",
            "go depth 3 searchmoves a2a3 h2h3",
            "wait",
        ]);
        let best = bestmoves(&out);
        assert_eq!(best.len(), 1, "{out}");
        assert!(["a2a3", "h2h3"].contains(&best[0]), "{out}");
        // Garbage after searchmoves is named, the rest still searched.
        let out = run(&[
            "position startpos",
            "go searchmoves zz9 depth 2 sideways",
            "wait",
        ]);
        assert!(out.contains("searchmoves: skipped"), "{out}");
        assert!(out.contains("unsupported go argument"), "{out}");
        assert_eq!(bestmoves(&out).len(), 1, "{out}");
    }

    #[test]
    fn a_failed_position_leaves_a_defined_position() {
        // An illegal move: the legal prefix stands (so `go` answers for it, not for the old
        // position).
        let out = run(&[
            "position startpos moves e2e4 e7e5",
            "position startpos moves d2d4 d7d5 e1e5",
            "d",
        ]);
        assert!(
            out.contains("position set to after the first 2 moves"),
            "{out}"
        );
        assert!(
            out.contains("Fen: rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"),
            "{out}"
        );
        // An unreadable FEN: the start position, never the previous one.
        let out = run(&[
            "position startpos moves e2e4",
            "position fen 8/8/8 w - - 0 1",
            "d",
        ]);
        assert!(out.contains("position set to the start position"), "{out}");
        assert!(
            out.contains("Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "{out}"
        );
    }

    #[test]
    fn ponder_then_ponderhit_gives_one_bestmove_of_the_real_search() {
        let out = run(&[
            "position startpos moves e2e4 e7e5",
            "go ponder movetime 100",
            "isready",
            "ponderhit",
            "wait",
        ]);
        assert_eq!(bestmoves(&out).len(), 1, "{out}");
        assert!(out.contains("readyok"), "{out}");
        let out = run(&["position startpos", "ponderhit"]);
        assert!(out.contains("ponderhit without go ponder"), "{out}");
    }

    #[test]
    fn ponder_and_infinite_hold_their_bestmove_until_stop() {
        // A mate in one is found at once and the depth cap reached in milliseconds; the
        // answer must still wait for `stop`.
        for go in ["go ponder depth 2", "go infinite depth 2"] {
            let buf = Buf::default();
            let mut s = UciSession::new(Registry::builtin(), buf.clone());
            s.handle("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
                .unwrap();
            s.handle(go).unwrap();
            std::thread::sleep(Duration::from_millis(300));
            let before = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
            assert!(bestmoves(&before).is_empty(), "{go}: {before}");
            s.handle("stop").unwrap();
            let after = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
            assert_eq!(bestmoves(&after), ["a1a8"], "{go}: {after}");
        }
    }
}
