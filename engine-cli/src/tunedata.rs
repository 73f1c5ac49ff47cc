//! `variant-engine tune-data`: positions for the evaluation tuner, from self-play.
//!
//! The engine plays itself at a fixed node count (deterministic, and independent of the load
//! of a shared machine) from seeded random openings; every game's quiet positions are written
//! with the game's result once the game is over. The file is plain text, one position a line:
//!
//! ```text
//! # tune-data variant=opulent nodes=2000 seed=1
//! <FEN>;<result>
//! # game 17
//! ```
//!
//! `<result>` is White's score: `1`, `0.5` or `0`. Lines starting with `#` are comments; a
//! `# game N` line closes game N, so an interrupted run (`--games` more than the file holds)
//! resumes after the last closed game, dropping any half-written one. Game N's opening depends
//! only on `--seed` and N, so a resumed file is the file an uninterrupted run writes.
//!
//! "Quiet" is the usual Texel selection: the side to move is not in check, the engine's best
//! move is no capture or promotion, and the score is neither a mate nor beyond
//! [`MAX_ABS_SCORE`]; the first [`SKIP_PLIES`] plies after the opening are left out, as are
//! positions repeated within the game.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use variant_engine::{
    Color, GameStatus, Limits, MoveKind, Position, Score, SearchOptions, Searcher, SearcherConfig,
    Variant, random_playout,
};

/// Plies after the opening whose positions are not written (still close to random).
pub const SKIP_PLIES: usize = 6;
/// Positions whose search score is beyond this many centipawns are not written: the result
/// is already clear and they teach the tuner little.
pub const MAX_ABS_SCORE: i32 = 1500;
/// A game is adjudicated when the side to move has scored at least this much for
/// [`ADJUDICATE_PLIES`] plies in a row (both sides agree: the sign is from White's view).
const ADJUDICATE_CP: i32 = 2000;
/// See [`ADJUDICATE_CP`].
const ADJUDICATE_PLIES: usize = 8;
/// Draw after this many plies.
const MAX_PLIES: usize = 400;

/// Settings of one `tune-data` run.
#[derive(Clone, Debug)]
pub struct TuneDataConfig {
    /// Games the file should hold when the run ends.
    pub games: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Seed of the random openings.
    pub seed: u64,
    /// Random plies of each opening.
    pub opening_plies: usize,
    /// The network the engine plays with (`datagen --eval-file`: a next generation's data
    /// from the last network); `None` plays the hand-written evaluation alone.
    pub net: Option<&'static variant_engine::Network>,
}

/// Why a `tune-data` run failed.
#[derive(Debug, thiserror::Error)]
pub enum TuneDataError {
    /// Reading or writing the output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: io::Error,
    },
    /// The file was written for another variant or with other settings.
    #[error("{path} was written with {found:?}, not {expected:?}: use another --out")]
    Mismatch {
        /// The file.
        path: String,
        /// Its header.
        found: String,
        /// The header this run writes.
        expected: String,
    },
}

fn header(variant: &Variant, cfg: &TuneDataConfig) -> String {
    format!(
        "# tune-data variant={} nodes={} seed={} plies={}",
        variant.name(),
        cfg.nodes,
        cfg.seed,
        cfg.opening_plies
    )
}

/// What an existing file holds: the byte length up to the last closed game and the number of
/// games closed.
fn scan(path: &Path, expected_header: &str) -> Result<(u64, u64), TuneDataError> {
    let io_err = |source| TuneDataError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(e) => return Err(io_err(e)),
    };
    let mut reader = BufReader::new(file);
    let mut line = String::new();
    let mut offset = 0u64;
    let mut keep = 0u64;
    let mut games = 0u64;
    let mut first = true;
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(io_err)?;
        if n == 0 {
            break;
        }
        offset += n as u64;
        let text = line.trim_end();
        if first {
            first = false;
            if text != expected_header {
                return Err(TuneDataError::Mismatch {
                    path: path.display().to_string(),
                    found: text.to_owned(),
                    expected: expected_header.to_owned(),
                });
            }
            keep = offset;
            continue;
        }
        if let Some(n) = text.strip_prefix("# game ")
            && let Ok(n) = n.trim().parse::<u64>()
        {
            games = n;
            keep = offset;
        }
    }
    Ok((keep, games))
}

/// White's score for a finished game.
fn white_score(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::White) => "1",
        Some(Color::Black) => "0",
        None => "0.5",
    }
}

/// Opening `index` of the seeded random openings of `seed`: `plies` random moves from the
/// start, from the first of 16 seeded tries that leaves the game in progress (the last try's
/// position when none does). `datagen`, `tune-data` and `book` all take their openings here.
pub fn random_opening(variant: &Arc<Variant>, seed: u64, index: u64, plies: usize) -> Position {
    let seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(index);
    let mut pos = Position::new(variant.clone());
    for attempt in 0..16 {
        pos = random_playout(
            Position::new(variant.clone()),
            plies,
            seed.wrapping_add(attempt * 7919),
        );
        if pos.status() == GameStatus::Ongoing {
            break;
        }
    }
    pos
}

/// Plays game `index`, handing each quiet position and its search score (centipawns, White's
/// view) to `keep`; returns White's score for the game: `1`, `0.5` or `0`. `datagen` plays
/// its games through this too.
pub fn play_game(
    variant: &Arc<Variant>,
    cfg: &TuneDataConfig,
    index: u64,
    searcher: &Searcher,
    mut keep: impl FnMut(&Position, i32),
) -> &'static str {
    searcher.clear();
    let mut pos = random_opening(variant, cfg.seed, index, cfg.opening_plies);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        nodes: Some(cfg.nodes),
        ..Limits::default()
    };
    let mut options = SearchOptions::default();
    options.features.eval.net = cfg.net;
    let mut streak = 0usize;
    let mut last_sign = 0;
    for ply in 0..MAX_PLIES {
        if let GameStatus::Finished { winner, .. } = pos.status() {
            return white_score(winner);
        }
        let r = searcher.search(&pos, &limits, &options, &stop, &mut |_| {});
        let Some(m) = r.best_move else {
            return "0.5";
        };
        let side_sign = if pos.side_to_move() == Color::White {
            1
        } else {
            -1
        };
        let cp = match r.score {
            Score::Centipawns(c) => Some(c),
            Score::Mate(_) => None,
        };
        let quiet = !pos.in_check()
            && !pos.is_capture(m)
            && !matches!(m.kind(), MoveKind::Promotion { .. })
            && cp.is_some_and(|c| c.abs() <= MAX_ABS_SCORE)
            && pos.repetitions() <= 1;
        if ply >= SKIP_PLIES
            && quiet
            && let Some(c) = cp
        {
            keep(&pos, c * side_sign);
        }
        let white_view = match r.score {
            Score::Mate(n) => n.signum() * 100_000,
            Score::Centipawns(c) => c,
        } * side_sign;
        let sign = if white_view >= ADJUDICATE_CP {
            1
        } else if white_view <= -ADJUDICATE_CP {
            -1
        } else {
            0
        };
        streak = if sign != 0 && sign == last_sign {
            streak + 1
        } else {
            usize::from(sign != 0)
        };
        last_sign = sign;
        if streak >= ADJUDICATE_PLIES {
            return if sign > 0 { "1" } else { "0" };
        }
        pos.play(m);
    }
    "0.5"
}

/// Opens `path` for appending after its first `keep` bytes (the whole games a resumed run
/// keeps: a half-written game after them is cut off), creating it when absent.
pub(crate) fn open_after(path: &Path, keep: u64) -> io::Result<File> {
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    file.set_len(keep)?;
    file.seek(SeekFrom::End(0))?;
    Ok(file)
}

/// Runs (or resumes) a `tune-data` run writing to `path`, with progress lines on `progress`;
/// returns the number of positions written by this run.
///
/// # Errors
/// [`TuneDataError`] when the file cannot be read or written, or holds another run's data.
pub fn run(
    variant: &Arc<Variant>,
    cfg: &TuneDataConfig,
    path: &Path,
    progress: &mut impl Write,
) -> Result<u64, TuneDataError> {
    let io_err = |source| TuneDataError::Io {
        path: path.display().to_string(),
        source,
    };
    let head = header(variant, cfg);
    let (keep, done) = scan(path, &head)?;
    let mut file = open_after(path, keep).map_err(io_err)?;
    if keep == 0 {
        writeln!(file, "{head}").map_err(io_err)?;
    }
    if done > 0 {
        let _ = writeln!(progress, "resuming after game {done}");
    }
    let searcher = Searcher::new(SearcherConfig { hash_mb: 16 });
    let start = Instant::now();
    let mut written = 0u64;
    let mut results = [0u64; 3];
    for index in done + 1..=cfg.games {
        let mut fens = Vec::new();
        let result = play_game(variant, cfg, index, &searcher, |pos, _| {
            fens.push(pos.fen());
        });
        let mut text = String::new();
        for fen in &fens {
            text.push_str(fen);
            text.push(';');
            text.push_str(result);
            text.push('\n');
        }
        text.push_str("# game ");
        text.push_str(&index.to_string());
        text.push('\n');
        file.write_all(text.as_bytes()).map_err(io_err)?;
        file.flush().map_err(io_err)?;
        written += fens.len() as u64;
        results[match result {
            "1" => 0,
            "0.5" => 1,
            _ => 2,
        }] += 1;
        let secs = start.elapsed().as_secs_f64();
        let played = index - done;
        let _ = writeln!(
            progress,
            "game {index}/{} positions {written} (+{}) W/D/L {}/{}/{} {:.1}s/game eta {:.0}s",
            cfg.games,
            fens.len(),
            results[0],
            results[1],
            results[2],
            secs / played as f64,
            secs / played as f64 * (cfg.games - index) as f64,
        );
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_resumes_where_it_stopped_and_writes_the_same_file() {
        let v = variant_engine::Registry::builtin().get("opulent").unwrap();
        let dir = std::env::temp_dir().join(format!("tunedata-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let whole = dir.join("whole.epd");
        let parts = dir.join("parts.epd");
        let _ = std::fs::remove_file(&whole);
        let _ = std::fs::remove_file(&parts);
        let cfg = |games| TuneDataConfig {
            games,
            nodes: 150,
            seed: 3,
            opening_plies: 4,
            net: None,
        };
        run(&v, &cfg(2), &whole, &mut io::sink()).unwrap();
        run(&v, &cfg(1), &parts, &mut io::sink()).unwrap();
        // A half-written game at the end is dropped on resume.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&parts)
            .unwrap()
            .write_all(b"garbage;1\n")
            .unwrap();
        run(&v, &cfg(2), &parts, &mut io::sink()).unwrap();
        let a = std::fs::read_to_string(&whole).unwrap();
        let b = std::fs::read_to_string(&parts).unwrap();
        assert_eq!(a, b);
        assert!(a.contains("# game 2"));
        for line in a.lines().filter(|l| !l.starts_with('#')) {
            let (fen, result) = line.split_once(';').unwrap();
            let pos = Position::from_fen(v.clone(), fen).unwrap();
            assert!(!pos.in_check());
            assert!(["1", "0.5", "0"].contains(&result));
        }
        // Another run's file is refused.
        let other = TuneDataConfig {
            nodes: 99,
            ..cfg(3)
        };
        assert!(matches!(
            run(&v, &other, &whole, &mut io::sink()),
            Err(TuneDataError::Mismatch { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
