//! `variant-engine match`: matches between two UCI engines on our rules. Openings (seeded
//! random plies or a FEN/EPD file) are played twice with colours swapped, games run in
//! parallel, each game goes to PGN and to a resumable results file, and the summary gives W/D/L
//! with Elo intervals per game and per pair; an SPRT stops the match once it has decided.
//!
//! No public tool can referee Opulent, SOHO, Decima or Orphic, so the referee is our own
//! [`Position`](variant_engine::Position) ([`game`]): every move an engine sends is checked
//! against the legal moves, and the game ends exactly where the rule book says.
//!
//! The parts, each using only those before it: [`stats`] (Elo, LOS, SPRT), [`uci`] (an engine
//! process), [`player`], [`game`] (the referee), [`pgn`], and this module (the schedule, the
//! files and the summary); [`args`] turns the command line into a [`MatchConfig`].

pub mod args;
pub mod game;
pub mod pgn;
pub mod player;
pub mod stats;
pub mod uci;

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use variant_engine::{Color, FenError, Position, SplitMix64, Variant};

use game::{GameError, GameRecord, GameSettings, PlayedMove, TimeControl, play_game};
use player::{Player, UciPlayer};
use stats::{EloInterval, Outcome, Sprt, SprtDecision, Tally};
use uci::{EngineFailure, UciCommand, UciEngine};

/// One of the two engines of a match.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Name in logs and PGN.
    pub name: String,
    /// How to run it.
    pub command: UciCommand,
    /// Its own time control, overriding the match's (e.g. a fixed node count).
    pub time_control: Option<TimeControl>,
}

/// Where the openings come from.
#[derive(Clone, Debug)]
pub enum Openings {
    /// `plies` random legal moves from the variant's start, from a seeded generator.
    Random {
        /// Plies per opening.
        plies: usize,
        /// Seed of the generator (opening `k` is the same for the same seed).
        seed: u64,
    },
    /// FEN or EPD lines, used in order (and again from the top when the match is longer).
    Positions(Vec<String>),
}

/// A match.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The variant played (our name for it).
    pub variant: Arc<Variant>,
    /// The two engines; results are given from the first one's view.
    pub entrants: [Entrant; 2],
    /// Games to play (rounded up to whole pairs).
    pub games: usize,
    /// Openings.
    pub openings: Openings,
    /// Time control, margins and adjudication.
    pub settings: GameSettings,
    /// Games played at once (each with its own two engine processes).
    pub concurrency: usize,
    /// Stop early once this test decides.
    pub sprt: Option<Sprt>,
    /// Append each game's PGN here.
    pub pgn: Option<PathBuf>,
    /// Append one line per finished game here, and skip the games it already lists (resume).
    pub results: Option<PathBuf>,
    /// `Event` tag and log label.
    pub event: String,
}

/// Figures of one engine's moves over the match.
#[derive(Clone, Debug, Default)]
pub struct EngineStats {
    /// Moves played (opening moves excluded).
    pub moves: u64,
    /// Sum of reported depths.
    pub depth_sum: u64,
    /// Sum of reported nodes.
    pub node_sum: u64,
    /// Move times in milliseconds.
    pub times_ms: Vec<u64>,
}

impl EngineStats {
    fn add(&mut self, m: &PlayedMove) {
        self.moves += 1;
        self.depth_sum += u64::from(m.thought.depth);
        self.node_sum += m.thought.nodes;
        self.times_ms
            .push(u64::try_from(m.elapsed.as_millis()).unwrap_or(u64::MAX));
    }

    /// Mean reported depth.
    pub fn mean_depth(&self) -> f64 {
        self.depth_sum as f64 / self.moves.max(1) as f64
    }

    /// Mean reported nodes per move.
    pub fn mean_nodes(&self) -> f64 {
        self.node_sum as f64 / self.moves.max(1) as f64
    }

    /// Effective branching factor: nodes per move to the power of one over the depth; `None`
    /// below a mean depth of one ply, where the root's own nodes would dominate it.
    pub fn branching_factor(&self) -> Option<f64> {
        let d = self.mean_depth();
        (d >= 1.0).then(|| self.mean_nodes().max(1.0).powf(1.0 / d))
    }

    /// The move time at quantile `q` (0..=1, nearest rank), in milliseconds.
    pub fn time_quantile(&self, q: f64) -> u64 {
        if self.times_ms.is_empty() {
            return 0;
        }
        let mut t = self.times_ms.clone();
        t.sort_unstable();
        let i = ((t.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        t[i.min(t.len() - 1)]
    }
}

/// The outcome of a match.
#[derive(Clone, Debug, Default)]
pub struct MatchSummary {
    /// W/D/L of the first engine, with pairs.
    pub tally: Tally,
    /// Per engine (`[first, second]`), over the games played in this run.
    pub engines: [EngineStats; 2],
    /// How games ended: kind of ending -> count.
    pub endings: BTreeMap<String, u64>,
    /// The SPRT's decision, if it made one.
    pub decision: Option<SprtDecision>,
    /// The last log-likelihood ratio (when an SPRT ran).
    pub llr: Option<f64>,
    /// Losses of each engine by illegal move, crash, no move or time forfeit.
    pub faults: [u64; 2],
}

/// Why a match could not run (engine failures are not among them: they lose games).
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The openings file lists no position.
    #[error("{0}: the openings file has no position")]
    NoOpenings(PathBuf),
    /// A line of the openings file is neither FEN nor EPD.
    #[error("{path}:{line}: not a FEN or EPD line: {text:?}")]
    NotFen {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A position of the openings file is not valid in the variant.
    #[error("opening {index} ({fen:?}): {source}")]
    BadOpening {
        /// 1-based index among the file's positions.
        index: usize,
        /// The FEN.
        fen: String,
        /// Why it was rejected.
        source: FenError,
    },
    /// Random plies cannot make an opening (every try ended the game).
    #[error("no {0}-ply random opening leaves a game in progress")]
    NoRandomOpening(usize),
    /// An engine does not start or does not finish the UCI handshake.
    #[error("engine {name}: {source}")]
    EngineStart {
        /// The engine's name.
        name: String,
        /// What went wrong.
        source: EngineFailure,
    },
    /// A game could not be set up.
    #[error("game {index}: {source}")]
    Game {
        /// 1-based game number.
        index: usize,
        /// What went wrong.
        source: GameError,
    },
}

/// Random-opening retries before giving up: an opening whose random moves end the game is
/// replaced by the next stream of the generator.
const OPENING_ATTEMPTS: u64 = 100;

/// The opening of pair `k`: a start FEN and moves to play from it.
fn opening(config: &MatchConfig, k: usize) -> Result<(String, Vec<String>), MatchError> {
    match &config.openings {
        Openings::Positions(list) => Ok((list[k % list.len()].clone(), Vec::new())),
        Openings::Random { plies, seed } => {
            let start = config.variant.start_fen().to_owned();
            for attempt in 0..OPENING_ATTEMPTS {
                // Odd constants from SplitMix64's own mixer keep the streams of different pairs
                // and attempts apart.
                let mut rng = SplitMix64(
                    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                        ^ (k as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
                        ^ attempt.wrapping_mul(0x8CB9_2BA7_2F3D_8DD7),
                );
                let mut pos = Position::new(config.variant.clone());
                let mut moves = Vec::with_capacity(*plies);
                for _ in 0..*plies {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let m = legal[rng.below(legal.len() as u64) as usize];
                    moves.push(pos.uci(m));
                    pos.play(m);
                }
                if moves.len() == *plies && !pos.status().is_finished() {
                    return Ok((start, moves));
                }
            }
            Err(MatchError::NoRandomOpening(*plies))
        }
    }
}

/// Reads FEN or EPD lines: blank lines and `#` comments are skipped; an EPD line (four
/// fields, possibly followed by operations) gets a zero half-move clock and move number 1.
///
/// # Errors
/// When the file cannot be read, has a line that is neither FEN nor EPD, or has no position.
pub fn read_openings(path: &Path) -> Result<Vec<String>, MatchError> {
    let file = File::open(path).map_err(io_error(path))?;
    let mut out = Vec::new();
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io_error(path))?;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line
            .split(';')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let counters = fields.len() >= 6
            && fields[4].parse::<u32>().is_ok()
            && fields[5].parse::<u32>().is_ok();
        let fen = if counters {
            fields[..6].join(" ")
        } else if fields.len() >= 4 {
            format!("{} 0 1", fields[..4].join(" "))
        } else {
            return Err(MatchError::NotFen {
                path: path.to_owned(),
                line: number + 1,
                text: line.to_owned(),
            });
        };
        out.push(fen);
    }
    if out.is_empty() {
        return Err(MatchError::NoOpenings(path.to_owned()));
    }
    Ok(out)
}

/// Result of one game from the first engine's view.
fn outcome(game: &GameRecord, first_is_white: bool) -> Outcome {
    match (game.winner, first_is_white) {
        (None, _) => Outcome::Draw,
        (Some(Color::White), true) | (Some(Color::Black), false) => Outcome::Win,
        _ => Outcome::Loss,
    }
}

/// The results file's first line (a rerun skips it like any line it cannot read).
const RESULTS_HEADER: &str = "game\tresult\tending\tplies\twhite\tblack\tdetail\n";

/// One line of the results file: the 0-based game index, the first engine's points, the kind
/// of ending, the plies, the players and the ending's details. Tabs in names become spaces.
fn result_line(index: usize, o: Outcome, record: &GameRecord, white: &str, black: &str) -> String {
    let r = match o {
        Outcome::Win => "1",
        Outcome::Draw => "0.5",
        Outcome::Loss => "0",
    };
    let clean = |s: &str| s.replace(['\t', '\n'], " ");
    format!(
        "{index}\t{r}\t{}\t{}\t{}\t{}\t{}\n",
        record.ending.kind(),
        record.opening.len() + record.moves.len(),
        clean(white),
        clean(black),
        clean(&record.ending.describe()),
    )
}

/// The game index, outcome and kind of ending of a results line, `None` for other lines.
fn parse_result_line(line: &str) -> Option<(usize, Outcome, String)> {
    let mut f = line.split('\t');
    let index = f.next()?.parse().ok()?;
    let o = match f.next()? {
        "1" => Outcome::Win,
        "0.5" => Outcome::Draw,
        "0" => Outcome::Loss,
        _ => return None,
    };
    Some((index, o, f.next().unwrap_or("").to_owned()))
}

/// State shared by the workers.
#[derive(Debug, Default)]
struct Shared {
    /// The next game index to hand out.
    next: usize,
    /// Games finished (in this run or a resumed one).
    done: HashSet<usize>,
    /// Outcomes by game index, to pair a game with its colour-swapped partner.
    outcomes: BTreeMap<usize, Outcome>,
    summary: MatchSummary,
    /// No new games: the SPRT decided or something failed.
    stop: bool,
    /// The first error that stopped the match.
    error: Option<MatchError>,
}

impl Shared {
    /// Counts a finished game and, when its partner is in, the pair.
    fn count(&mut self, index: usize, o: Outcome, ending: &str) {
        self.summary.tally.add_game(o);
        *self.summary.endings.entry(ending.to_owned()).or_default() += 1;
        self.outcomes.insert(index, o);
        if let Some(&p) = self.outcomes.get(&(index ^ 1)) {
            let (a, b) = if index.is_multiple_of(2) {
                (o, p)
            } else {
                (p, o)
            };
            self.summary.tally.add_pair(a, b);
        }
        self.done.insert(index);
    }

    /// The next game to play, `None` when the match is over.
    fn take(&mut self, games: usize) -> Option<usize> {
        while self.next < games && self.done.contains(&self.next) {
            self.next += 1;
        }
        if self.stop || self.next >= games {
            return None;
        }
        self.next += 1;
        Some(self.next - 1)
    }

    /// Stops the match with `error` (the first one is kept).
    fn fail(&mut self, error: MatchError) {
        self.stop = true;
        self.error.get_or_insert(error);
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> MatchError + '_ {
    move |source| MatchError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A file the workers append to, one whole record at a time.
#[derive(Debug)]
struct AppendFile {
    path: PathBuf,
    file: Mutex<File>,
}

impl AppendFile {
    fn open(path: &Path) -> Result<Self, MatchError> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io_error(path))?;
        Ok(Self {
            path: path.to_owned(),
            file: Mutex::new(file),
        })
    }

    fn append(&self, text: &str) -> Result<(), MatchError> {
        let mut f = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        f.write_all(text.as_bytes())
            .and_then(|()| f.flush())
            .map_err(io_error(&self.path))
    }
}

/// Counts the games a results file already lists, for resuming.
fn resume(path: &Path, games: usize, shared: &mut Shared) -> Result<(), MatchError> {
    let file = File::open(path).map_err(io_error(path))?;
    for line in BufReader::new(file).lines() {
        let line = line.map_err(io_error(path))?;
        if let Some((index, o, ending)) = parse_result_line(&line)
            && index < games
            && !shared.done.contains(&index)
        {
            shared.count(index, o, &ending);
        }
    }
    Ok(())
}

/// Checks everything that does not depend on the engines' play before any game starts: the
/// openings parse in the variant and both engines complete the UCI handshake.
fn preflight(config: &MatchConfig) -> Result<(), MatchError> {
    match &config.openings {
        Openings::Positions(list) => {
            for (i, fen) in list.iter().enumerate() {
                Position::from_fen(config.variant.clone(), fen).map_err(|source| {
                    MatchError::BadOpening {
                        index: i + 1,
                        fen: fen.clone(),
                        source,
                    }
                })?;
            }
        }
        Openings::Random { .. } => {
            opening(config, 0)?;
        }
    }
    for e in &config.entrants {
        UciEngine::start(&e.command).map_err(|source| MatchError::EngineStart {
            name: e.name.clone(),
            source,
        })?;
    }
    Ok(())
}

/// What the workers share besides the schedule.
struct Context<'a> {
    config: &'a MatchConfig,
    games: usize,
    shared: Mutex<Shared>,
    out: Mutex<&'a mut (dyn Write + Send)>,
    pgn: Option<AppendFile>,
    results: Option<AppendFile>,
    started: Instant,
    date: String,
}

impl Context<'_> {
    fn shared(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One worker: its own two engine processes, games until the schedule runs out.
    fn work(&self) {
        let config = self.config;
        let mut players = config.entrants.clone().map(|e| UciPlayer::new(e.command));
        loop {
            // Its own statement: a guard in a `while let` condition would live through the
            // loop body, which locks the state again.
            let next = self.shared().take(self.games);
            let Some(index) = next else { break };
            let first_is_white = index.is_multiple_of(2);
            let (fen, moves) = match opening(config, index / 2) {
                Ok(o) => o,
                Err(e) => {
                    self.shared().fail(e);
                    break;
                }
            };
            let (white_i, black_i) = if first_is_white { (0, 1) } else { (1, 0) };
            let mut settings = config.settings;
            settings.overrides = [
                config.entrants[white_i].time_control,
                config.entrants[black_i].time_control,
            ];
            let [p0, p1] = &mut players;
            let pair: [&mut dyn Player; 2] = if first_is_white { [p0, p1] } else { [p1, p0] };
            match play_game(&config.variant, &fen, &moves, pair, &settings) {
                Ok(record) => {
                    if let Err(e) = self.finish(index, &record) {
                        self.shared().fail(e);
                        break;
                    }
                }
                Err(source) => {
                    self.shared().fail(MatchError::Game {
                        index: index + 1,
                        source,
                    });
                    break;
                }
            }
        }
    }

    /// Records a finished game: PGN, results file, tally, SPRT and the progress line.
    fn finish(&self, index: usize, record: &GameRecord) -> Result<(), MatchError> {
        let config = self.config;
        let first_is_white = index.is_multiple_of(2);
        let (white_i, black_i) = if first_is_white { (0, 1) } else { (1, 0) };
        let (white, black) = (
            &config.entrants[white_i].name,
            &config.entrants[black_i].name,
        );
        let o = outcome(record, first_is_white);
        if let Some(f) = &self.pgn {
            let tc = config.entrants[white_i]
                .time_control
                .unwrap_or(config.settings.time_control);
            let header = pgn::PgnHeader {
                event: &config.event,
                round: index + 1,
                white,
                black,
                variant: config.variant.name(),
                time_control: &tc.pgn_tag(),
                date: &self.date,
            };
            f.append(&pgn::to_pgn(&header, record))?;
        }
        // The results line is written before the game is counted: a rerun must never miss a
        // game this run counted.
        if let Some(f) = &self.results {
            f.append(&result_line(index, o, record, white, black))?;
        }
        let entrant_of = |c: Color| usize::from((c == Color::White) != first_is_white);
        let line = {
            let mut s = self.shared();
            s.count(index, o, record.ending.kind());
            if record.ending.is_fault()
                && let Some(winner) = record.winner
            {
                s.summary.faults[entrant_of(!winner)] += 1;
            }
            for m in &record.moves {
                s.summary.engines[entrant_of(m.mover)].add(m);
            }
            let mut line = format!(
                "game {:>4}/{} {white} vs {black}: {} {} ({} plies) | {}",
                index + 1,
                self.games,
                record.result_text(),
                record.ending.describe(),
                record.opening.len() + record.moves.len(),
                score_line(&s.summary.tally),
            );
            if let Some(sprt) = &config.sprt {
                let llr = s.summary.tally.llr(sprt);
                s.summary.llr = Some(llr);
                let (lo, hi) = sprt.bounds();
                let _ = write!(line, " | LLR {llr:.2} ({lo:.2}, {hi:.2})");
                // The LLR counts completed pairs only (a lone game of a pair carries its
                // opening's bias), so a decision needs no wait for the games still running:
                // with concurrency, finished games are seldom all in complete pairs.
                if s.summary.tally.pair_count() > 0
                    && let Some(d) = sprt.decision(llr)
                {
                    s.summary.decision.get_or_insert(d);
                    s.stop = true;
                }
            }
            let _ = write!(line, " | {:.0}s", self.started.elapsed().as_secs_f64());
            line
        };
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(io_error(Path::new("<stdout>")))
    }
}

/// Plays the match, writing a line per game and a summary to `out`.
///
/// # Errors
/// When the results or PGN file cannot be used, the openings are unusable, an engine does not
/// start, or writing `out` fails. Games already played are in the files.
pub fn run_match(
    config: &MatchConfig,
    out: &mut (dyn Write + Send),
) -> Result<MatchSummary, MatchError> {
    let games = config.games.div_ceil(2) * 2;
    let mut shared = Shared::default();
    let stdout_error = io_error(Path::new("<stdout>"));
    if let Some(path) = &config.results
        && path.exists()
    {
        resume(path, games, &mut shared)?;
        writeln!(out, "resuming: {} games already played", shared.done.len())
            .map_err(stdout_error)?;
    }
    preflight(config)?;
    let results = match &config.results {
        Some(p) => {
            let fresh = !p.exists() || std::fs::metadata(p).is_ok_and(|m| m.len() == 0);
            let f = AppendFile::open(p)?;
            if fresh {
                f.append(RESULTS_HEADER)?;
            }
            Some(f)
        }
        None => None,
    };
    let pgn = config.pgn.as_deref().map(AppendFile::open).transpose()?;
    let context = Context {
        config,
        games,
        shared: Mutex::new(shared),
        out: Mutex::new(out),
        pgn,
        results,
        started: Instant::now(),
        date: today(),
    };
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.clamp(1, games.max(1)) {
            scope.spawn(|| context.work());
        }
    });
    let Context { shared, out, .. } = context;
    let shared = shared.into_inner().unwrap_or_else(PoisonError::into_inner);
    let out = out.into_inner().unwrap_or_else(PoisonError::into_inner);
    if let Some(e) = shared.error {
        return Err(e);
    }
    let mut summary = shared.summary;
    if let Some(sprt) = &config.sprt {
        let llr = summary.tally.llr(sprt);
        summary.llr = Some(llr);
    }
    write_summary(config, &summary, out).map_err(io_error(Path::new("<stdout>")))?;
    Ok(summary)
}

fn score_line(t: &Tally) -> String {
    let elo = t.elo_trinomial().map_or_else(
        || "-".to_owned(),
        |e: EloInterval| format!("{:+.0} ± {:.0}", e.elo, (e.high - e.low) / 2.0),
    );
    format!(
        "W-D-L {}-{}-{} ({:.1}%) Elo {elo}",
        t.wins,
        t.draws,
        t.losses,
        100.0 * t.score()
    )
}

/// Writes the end-of-match summary.
fn write_summary(
    config: &MatchConfig,
    s: &MatchSummary,
    out: &mut (dyn Write + Send),
) -> io::Result<()> {
    let t = &s.tally;
    let [a, b] = [&config.entrants[0].name, &config.entrants[1].name];
    let tc = |i: usize| {
        config.entrants[i]
            .time_control
            .unwrap_or(config.settings.time_control)
            .pgn_tag()
    };
    let limits = if tc(0) == tc(1) {
        tc(0)
    } else {
        format!("{a}: {}, {b}: {}", tc(0), tc(1))
    };
    writeln!(
        out,
        "\n== {} : {a} vs {b}, {} ({limits})",
        config.event,
        config.variant.name(),
    )?;
    writeln!(
        out,
        "games {}  {a}: W {} D {} L {}  score {:.1}%  LOS {:.1}%",
        t.games(),
        t.wins,
        t.draws,
        t.losses,
        100.0 * t.score(),
        100.0 * t.los()
    )?;
    if let Some(e) = t.elo_trinomial() {
        writeln!(out, "Elo (trinomial, per game):   {e}")?;
    }
    if t.pair_count() > 0 {
        writeln!(
            out,
            "pairs {}  pentanomial [0, 0.5, 1, 1.5, 2] = {:?}",
            t.pair_count(),
            t.pairs
        )?;
        if let Some(e) = t.elo_pentanomial() {
            writeln!(out, "Elo (pentanomial, per pair): {e}")?;
        }
    }
    if let (Some(sprt), Some(llr)) = (&config.sprt, s.llr) {
        let (lo, hi) = sprt.bounds();
        let verdict = match s.decision {
            Some(SprtDecision::AcceptH1) => "H1 accepted",
            Some(SprtDecision::AcceptH0) => "H0 accepted",
            None => "inconclusive",
        };
        writeln!(
            out,
            "SPRT elo0 {} elo1 {} alpha {} beta {}: LLR {llr:.2} ({lo:.2}, {hi:.2}) {verdict}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        )?;
    }
    let endings: Vec<String> = s.endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
    writeln!(out, "endings: {}", endings.join(", "))?;
    for (i, name) in [a, b].iter().enumerate() {
        let e = &s.engines[i];
        writeln!(
            out,
            "{name}: moves {} depth {:.1} nodes/move {:.0} EBF {} time p50 {} ms p99 {} ms max {} ms; losses by fault {}",
            e.moves,
            e.mean_depth(),
            e.mean_nodes(),
            e.branching_factor()
                .map_or_else(|| "-".to_owned(), |b| format!("{b:.2}")),
            e.time_quantile(0.5),
            e.time_quantile(0.99),
            e.time_quantile(1.0),
            s.faults[i]
        )?;
    }
    Ok(())
}

/// Seconds per day.
const DAY_SECONDS: u64 = 86_400;

/// Today's date for PGN (`YYYY.MM.DD`, UTC), `????.??.??` (PGN's unknown date) if the clock
/// is before 1970.
fn today() -> String {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or_else(
        |_| "????.??.??".to_owned(),
        |d| {
            let (y, m, day) = civil_date(d.as_secs() / DAY_SECONDS);
            format!("{y:04}.{m:02}.{day:02}")
        },
    )
}

/// The proleptic Gregorian date `days` days after 1970-01-01: count 400-year eras of 146097
/// days from 0000-03-01, so that the leap day is the last day of a year (a well-known
/// derivation; see Howard Hinnant's notes on `days_from_civil`).
fn civil_date(days: u64) -> (u64, u64, u64) {
    /// Days from 0000-03-01 to 1970-01-01.
    const EPOCH_SHIFT: u64 = 719_468;
    /// Days in 400 Gregorian years.
    const ERA_DAYS: u64 = 146_097;
    let z = days + EPOCH_SHIFT;
    let era = z / ERA_DAYS;
    let day_of_era = z % ERA_DAYS;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months from March: 153 days per five months.
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_of_known_days() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        // 2000-02-29 (a leap day of a century year) is day 11016; 2026-12-01 is day 20788.
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(11_017), (2000, 3, 1));
        assert_eq!(civil_date(20_788), (2026, 12, 1));
        assert_eq!(civil_date(20_818), (2026, 12, 31));
    }

    #[test]
    fn results_lines_round_trip_and_the_header_is_skipped() {
        let record = GameRecord {
            start_fen: String::new(),
            opening: vec!["e2e4".into()],
            opening_san: vec!["e4".into()],
            moves: Vec::new(),
            winner: Some(Color::Black),
            ending: game::Ending::IllegalMove("a1a1".into()),
        };
        let line = result_line(3, Outcome::Win, &record, "A\tx", "B");
        assert_eq!(
            line,
            "3\t1\tillegal move\t1\tA x\tB\tillegal move \"a1a1\"\n"
        );
        assert_eq!(
            parse_result_line(line.trim_end()),
            Some((3, Outcome::Win, "illegal move".to_owned()))
        );
        assert_eq!(parse_result_line(RESULTS_HEADER.trim_end()), None);
        assert_eq!(parse_result_line("7\t2\tx"), None);
    }

    #[test]
    fn games_pair_with_their_colour_swapped_partner() {
        let mut s = Shared::default();
        s.count(1, Outcome::Loss, "checkmate");
        assert_eq!(s.summary.tally.pair_count(), 0);
        s.count(0, Outcome::Win, "checkmate");
        s.count(2, Outcome::Draw, "ply limit");
        assert_eq!(s.summary.tally.pairs, [0, 0, 1, 0, 0]);
        assert_eq!(
            s.take(4),
            Some(3),
            "finished games are not handed out again"
        );
        assert_eq!(s.take(4), None);
    }

    #[test]
    fn epd_and_fen_lines_become_fens() {
        let dir = std::env::temp_dir().join(format!("matches-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("o.epd");
        std::fs::write(
            &path,
            "# comment\n\n4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"x\";\n4k3/8/8/8/8/8/8/4K3 b - - 3 40\n",
        )
        .unwrap();
        assert_eq!(
            read_openings(&path).unwrap(),
            [
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
                "4k3/8/8/8/8/8/8/4K3 b - - 3 40"
            ]
        );
        std::fs::write(&path, "# nothing\n").unwrap();
        assert!(matches!(
            read_openings(&path),
            Err(MatchError::NoOpenings(_))
        ));
        std::fs::write(&path, "8/8 w\n").unwrap();
        assert!(matches!(
            read_openings(&path),
            Err(MatchError::NotFen { line: 1, .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
