//! `variant-engine datagen`: training positions for the network, from self-play.
//!
//! The games are `tune-data`'s ([`tunedata::play_game`]: seeded random openings, a fixed node
//! count per move, the same quiet-position selection and adjudication); each kept position is
//! stored with its search score and the game's result in the binary format of
//! `variant_engine::DataReader` (engine/src/nnue/data.rs). `--threads` plays that many games
//! at once, one searcher each; every game is appended whole, so an interrupted file resumes:
//! run the same command again and the games it lacks are played (game N depends only on the
//! seed and N, so the file holds the same games whatever the interruptions).

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use variant_engine::{PackedPosition, Searcher, SearcherConfig, Variant};

use crate::gamefile::{GameOutput, OpenError};
use crate::tunedata::{self, TuneDataConfig};

/// Why a `datagen` run failed.
#[derive(Debug, thiserror::Error)]
pub enum DatagenError {
    /// Reading or writing the output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: io::Error,
    },
    /// The existing file is not a data file of this variant.
    #[error("{path}: {what}")]
    Mismatch {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
}

/// Runs (or resumes) a `datagen` run into `path` with `threads` games at a time, printing
/// progress lines to `progress`; returns the positions written by this run.
///
/// # Errors
/// [`DatagenError`] when the file cannot be read or written or belongs to another variant.
pub fn run(
    variant: &Arc<Variant>,
    cfg: &TuneDataConfig,
    threads: usize,
    path: &Path,
    progress: &mut (impl Write + Send),
) -> Result<u64, DatagenError> {
    let io_err = |source| DatagenError::Io {
        path: path.display().to_string(),
        source,
    };
    let output = GameOutput::open(path, variant.name()).map_err(|e| match e {
        OpenError::Io(source) => io_err(source),
        OpenError::Mismatch(what) => DatagenError::Mismatch {
            path: path.display().to_string(),
            what,
        },
    })?;
    let done = output.done();
    let todo: Vec<u64> = (1..=cfg.games)
        .filter(|&g| !done.contains(&(g as u32)))
        .collect();
    if !done.is_empty() {
        let _ = writeln!(
            progress,
            "resuming: {} games on file, {} to play",
            done.len(),
            todo.len()
        );
    }
    let progress = Mutex::new(progress);
    let next = AtomicUsize::new(0);
    let written = AtomicU64::new(0);
    let finished = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let searcher = Searcher::new(SearcherConfig { hash_mb: 16 });
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&game) = todo.get(i) else { break };
                    if output.failed() {
                        break;
                    }
                    let mut kept = Vec::new();
                    let result = tunedata::play_game(variant, cfg, game, &searcher, |pos, cp| {
                        kept.push(PackedPosition::from_position(pos, cp, 0));
                    });
                    let code = match result {
                        "1" => 2,
                        "0.5" => 1,
                        _ => 0,
                    };
                    for p in &mut kept {
                        p.result = code;
                    }
                    if !output.write(game as u32, &kept) {
                        break;
                    }
                    let total =
                        written.fetch_add(kept.len() as u64, Ordering::Relaxed) + kept.len() as u64;
                    let games = finished.fetch_add(1, Ordering::Relaxed) + 1;
                    let secs = start.elapsed().as_secs_f64().max(1e-3);
                    let left = todo.len() as u64 - games;
                    if let Ok(mut out) = progress.lock() {
                        let _ = writeln!(
                            out,
                            "game {game} done {games}/{} positions {total} ({:.0}/s) eta {:.0}s",
                            todo.len(),
                            total as f64 / secs,
                            secs / games as f64 * left as f64,
                        );
                    }
                }
            });
        }
    });
    output.finish().map_err(io_err)?;
    Ok(written.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{File, OpenOptions};
    use variant_engine::{DataReader, Record, Registry};

    #[test]
    fn a_parallel_run_resumes_and_holds_every_game_once() {
        let v = Registry::builtin().get("orphic").unwrap();
        let dir = std::env::temp_dir().join(format!("datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.bin");
        let _ = std::fs::remove_file(&path);
        let cfg = |games| TuneDataConfig {
            games,
            nodes: 150,
            seed: 5,
            opening_plies: 4,
            net: None,
        };
        run(&v, &cfg(2), 2, &path, &mut io::sink()).unwrap();
        // A record cut short at the end is dropped on resume.
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(&[1, 0, 2])
            .unwrap();
        run(&v, &cfg(4), 2, &path, &mut io::sink()).unwrap();
        let mut reader = DataReader::new(File::open(&path).unwrap()).unwrap();
        let mut games = Vec::new();
        let mut positions = 0;
        while let Some(r) = reader.next_record().unwrap() {
            match r {
                Record::GameEnd(n) => games.push(n),
                Record::Position(p) => {
                    positions += 1;
                    let pos = p.to_position(&v);
                    assert!(!pos.in_check());
                    assert!(p.result <= 2 && p.score.abs() <= 1500);
                }
            }
        }
        games.sort_unstable();
        assert_eq!(games, vec![1, 2, 3, 4]);
        assert!(positions > 0);
        // Another variant's file is refused.
        let chess = Registry::builtin().get("chess").unwrap();
        assert!(matches!(
            run(&chess, &cfg(1), 1, &path, &mut io::sink()),
            Err(DatagenError::Mismatch { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_run_with_a_network_records_its_scores() {
        // A network that scores every position 123 cp for the side to move: every recorded
        // score is then the network's (±123, or 0 where a draw by repetition was best), and
        // the hand-written evaluation would give other numbers.
        let v = Registry::builtin().get("chess").unwrap();
        let net: &'static variant_engine::Network =
            Box::leak(Box::new(variant_engine::Network::constant(&v, 123, false)));
        let dir = std::env::temp_dir().join(format!("datagen-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.bin");
        let _ = std::fs::remove_file(&path);
        let cfg = TuneDataConfig {
            games: 1,
            nodes: 150,
            seed: 9,
            opening_plies: 4,
            net: Some(net),
        };
        run(&v, &cfg, 1, &path, &mut io::sink()).unwrap();
        let mut reader = DataReader::new(File::open(&path).unwrap()).unwrap();
        let mut scores = Vec::new();
        while let Some(r) = reader.next_record().unwrap() {
            if let Record::Position(p) = r {
                scores.push(p.score);
            }
        }
        assert!(
            scores.iter().all(|s| [123, -123, 0].contains(s)),
            "{scores:?}"
        );
        assert!(scores.iter().any(|s| s.abs() == 123), "{scores:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
