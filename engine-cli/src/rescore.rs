//! `variant-engine rescore`: relabels the positions of a `datagen` file with a deeper search.
//!
//! `datagen` must search every move of its games, so the depth of its labels is what a whole
//! game at that node count costs. Rescoring searches only the positions the file kept (about
//! half the moves of a game), so the same core-hours buy labels about twice as deep, on
//! positions whose spread the earlier run already chose.
//!
//! Each position is searched afresh at `--nodes` (the transposition table is kept within a
//! game and cleared between games, as in `datagen`). The position keeps its game's result; its
//! score becomes the new search's. The selection rule of `datagen` is applied again to the new
//! search: a position whose best move is now a capture or promotion, or whose score is a mate
//! or beyond [`MAX_ABS_SCORE`], is dropped, so the output holds quiet positions only.
//!
//! The output is written game by game in the same format, so an interrupted run resumes:
//! run the same command again and only the games the output lacks are searched.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use variant_engine::{
    Color, DataError, DataReader, Limits, MoveKind, Network, PackedPosition, Record, Registry,
    Score, SearchOptions, Searcher, SearcherConfig, Variant,
};

use crate::gamefile::{GameOutput, OpenError};
use crate::tunedata::MAX_ABS_SCORE;

/// Why a `rescore` run failed.
#[derive(Debug, thiserror::Error)]
pub enum RescoreError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        source: io::Error,
    },
    /// A file is not a data file, is corrupt, or the two files disagree on the variant.
    #[error("{path}: {what}")]
    Data {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
}

/// Settings of one `rescore` run.
#[derive(Clone, Debug)]
pub struct RescoreConfig {
    /// Nodes per position.
    pub nodes: u64,
    /// Rescore only the first this many games of the input (in file order); `None`: all.
    pub games: Option<usize>,
    /// Positions searched at once (one searcher each, a game at a time).
    pub threads: usize,
    /// The network the search evaluates with; `None`: the hand-written evaluation alone.
    pub net: Option<&'static Network>,
}

/// What a finished run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RescoreSummary {
    /// Games this run searched (resumed games on file not counted).
    pub games: u64,
    /// Positions searched.
    pub searched: u64,
    /// Positions written (the rest were no longer quiet).
    pub kept: u64,
    /// Mean absolute change of the kept positions' scores, in centipawns.
    pub mean_change: f64,
}

/// One game of a data file: its number and its positions.
type Game = (u32, Vec<PackedPosition>);

/// The games of a data file, in file order, and its variant name.
fn read_games(path: &Path) -> Result<(String, Vec<Game>), RescoreError> {
    let data_err = |what: String| RescoreError::Data {
        path: path.display().to_string(),
        what,
    };
    let file = File::open(path).map_err(|source| RescoreError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut reader = DataReader::new(BufReader::new(file)).map_err(|e| data_err(e.to_string()))?;
    let name = reader.variant_name().to_owned();
    let mut games = Vec::new();
    let mut pending = Vec::new();
    loop {
        match reader.next_record() {
            Ok(Some(Record::Position(p))) => pending.push(p),
            Ok(Some(Record::GameEnd(n))) => games.push((n, std::mem::take(&mut pending))),
            Ok(None) => break,
            // A file cut inside a game (a datagen run still going) is whole up to there.
            Err(DataError::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(data_err(e.to_string())),
        }
    }
    Ok((name, games))
}

/// Searches one position; the new record when it is still quiet, else `None`.
fn rescore_position(
    variant: &Arc<Variant>,
    old: &PackedPosition,
    searcher: &Searcher,
    limits: &Limits,
    options: &SearchOptions,
) -> Option<PackedPosition> {
    let pos = old.to_position(variant);
    let stop = AtomicBool::new(false);
    let r = searcher.search(&pos, limits, options, &stop, &mut |_| {});
    let m = r.best_move?;
    let Score::Centipawns(cp) = r.score else {
        return None;
    };
    let quiet = !pos.in_check()
        && !pos.is_capture(m)
        && !matches!(m.kind(), MoveKind::Promotion { .. })
        && cp.abs() <= MAX_ABS_SCORE;
    if !quiet {
        return None;
    }
    let white = if pos.side_to_move() == Color::White {
        cp
    } else {
        -cp
    };
    Some(PackedPosition::from_position(&pos, white, old.result))
}

/// Rescores `input` into `output` (resuming it when it exists), printing progress lines to
/// `progress`.
///
/// # Errors
/// [`RescoreError`] when a file cannot be read or written, is not a data file, or the output
/// holds another variant.
pub fn run(
    input: &Path,
    output: &Path,
    cfg: &RescoreConfig,
    progress: &mut (impl Write + Send),
) -> Result<RescoreSummary, RescoreError> {
    // The output is opened for appending after its whole games: were it the input, the run
    // would find every game done and leave the labels as they were.
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize())
        && a == b
    {
        return Err(RescoreError::Data {
            path: output.display().to_string(),
            what: "is the input file: write the relabelled positions to another --out".into(),
        });
    }
    let (name, mut games) = read_games(input)?;
    let variant = Registry::builtin()
        .get(&name)
        .map_err(|e| RescoreError::Data {
            path: input.display().to_string(),
            what: e.to_string(),
        })?;
    if let Some(net) = cfg.net
        && !net.variant_name().eq_ignore_ascii_case(variant.name())
    {
        return Err(RescoreError::Data {
            path: input.display().to_string(),
            what: format!(
                "holds {} positions; the network is for {}",
                variant.name(),
                net.variant_name()
            ),
        });
    }
    if let Some(n) = cfg.games {
        games.truncate(n);
    }
    let io_err = |source| RescoreError::Io {
        path: output.display().to_string(),
        source,
    };
    let out_file = GameOutput::open(output, variant.name()).map_err(|e| match e {
        OpenError::Io(source) => io_err(source),
        OpenError::Mismatch(what) => RescoreError::Data {
            path: output.display().to_string(),
            what,
        },
    })?;
    let done = out_file.done();
    let todo: Vec<&Game> = games.iter().filter(|(n, _)| !done.contains(n)).collect();
    if !done.is_empty() {
        let _ = writeln!(
            progress,
            "resuming: {} games on file, {} to search",
            done.len(),
            todo.len()
        );
    }
    let total_positions: u64 = todo.iter().map(|(_, p)| p.len() as u64).sum();
    let limits = Limits {
        nodes: Some(cfg.nodes),
        ..Limits::default()
    };
    let mut options = SearchOptions::default();
    options.features.eval.net = cfg.net;

    let progress = Mutex::new(progress);
    let next = AtomicUsize::new(0);
    let searched = AtomicU64::new(0);
    let kept = AtomicU64::new(0);
    let finished = AtomicU64::new(0);
    let change_sum = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..cfg.threads.max(1) {
            s.spawn(|| {
                let searcher = Searcher::new(SearcherConfig { hash_mb: 16 });
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(game, ref positions)) = todo.get(i).copied() else {
                        break;
                    };
                    if out_file.failed() {
                        break;
                    }
                    searcher.clear();
                    let mut out = Vec::with_capacity(positions.len());
                    for old in positions {
                        if let Some(new) =
                            rescore_position(&variant, old, &searcher, &limits, &options)
                        {
                            let delta = (i64::from(new.score) - i64::from(old.score)).unsigned_abs();
                            change_sum.fetch_add(delta, Ordering::Relaxed);
                            out.push(new);
                        }
                    }
                    if !out_file.write(game, &out) {
                        break;
                    }
                    kept.fetch_add(out.len() as u64, Ordering::Relaxed);
                    let n = searched.fetch_add(positions.len() as u64, Ordering::Relaxed)
                        + positions.len() as u64;
                    let g = finished.fetch_add(1, Ordering::Relaxed) + 1;
                    let secs = start.elapsed().as_secs_f64().max(1e-3);
                    if let Ok(mut p) = progress.lock() {
                        let _ = writeln!(
                            p,
                            "game {game} done {g}/{} positions {n}/{total_positions} ({:.1}/s) eta {:.0}s",
                            todo.len(),
                            n as f64 / secs,
                            secs / n.max(1) as f64 * total_positions.saturating_sub(n) as f64,
                        );
                    }
                }
            });
        }
    });
    out_file.finish().map_err(io_err)?;
    let kept = kept.into_inner();
    Ok(RescoreSummary {
        games: finished.into_inner(),
        searched: searched.into_inner(),
        kept,
        mean_change: change_sum.into_inner() as f64 / kept.max(1) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen;
    use crate::tunedata::TuneDataConfig;
    use std::fs::OpenOptions;

    fn records(path: &Path) -> (Vec<u32>, Vec<PackedPosition>) {
        let mut reader = DataReader::new(File::open(path).unwrap()).unwrap();
        let mut games = Vec::new();
        let mut positions = Vec::new();
        while let Some(r) = reader.next_record().unwrap() {
            match r {
                Record::GameEnd(n) => games.push(n),
                Record::Position(p) => positions.push(p),
            }
        }
        games.sort_unstable();
        (games, positions)
    }

    #[test]
    fn rescoring_relabels_keeps_results_and_resumes() {
        let v = Registry::builtin().get("chess").unwrap();
        let dir = std::env::temp_dir().join(format!("rescore-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("in.bin");
        let output = dir.join("out.bin");
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_file(&output);
        let source = TuneDataConfig {
            games: 3,
            nodes: 200,
            seed: 3,
            opening_plies: 4,
            net: None,
        };
        datagen::run(&v, &source, 1, &input, &mut io::sink()).unwrap();
        let (in_games, in_positions) = records(&input);

        // A network scoring every position +77 for the side to move: each new label is then
        // the network's (±77, or 0 for a repetition the search prefers), unlike the input's.
        let net: &'static Network = Box::leak(Box::new(Network::constant(&v, 77, false)));
        let cfg = |games| RescoreConfig {
            nodes: 300,
            games,
            threads: 2,
            net: Some(net),
        };
        let first = run(&input, &output, &cfg(Some(2)), &mut io::sink()).unwrap();
        assert_eq!(first.games, 2);
        // A cut-off record at the end is dropped on resume, and only the missing game runs.
        OpenOptions::new()
            .append(true)
            .open(&output)
            .unwrap()
            .write_all(&[1, 0])
            .unwrap();
        let second = run(&input, &output, &cfg(None), &mut io::sink()).unwrap();
        assert_eq!(second.games, 1);
        assert_eq!(first.searched + second.searched, in_positions.len() as u64);

        let (out_games, out_positions) = records(&output);
        assert_eq!(out_games, in_games);
        assert!(!out_positions.is_empty());
        assert!(out_positions.len() <= in_positions.len());
        for p in &out_positions {
            assert!([77, -77, 0].contains(&p.score), "{}", p.score);
            // The record is one of the input's positions, with its game's result.
            let same = in_positions
                .iter()
                .find(|q| q.pieces == p.pieces && q.side == p.side)
                .expect("an input position");
            assert_eq!(same.result, p.result);
        }
        // Another variant's network is refused.
        let orphic = Registry::builtin().get("orphic").unwrap();
        let other: &'static Network = Box::leak(Box::new(Network::constant(&orphic, 1, false)));
        let refused = run(
            &input,
            &dir.join("x.bin"),
            &RescoreConfig {
                net: Some(other),
                ..cfg(None)
            },
            &mut io::sink(),
        );
        assert!(matches!(refused, Err(RescoreError::Data { .. })));
        // So is writing over the input.
        let before = std::fs::read(&input).unwrap();
        let same = run(&input, &input, &cfg(None), &mut io::sink());
        assert!(matches!(same, Err(RescoreError::Data { .. })), "{same:?}");
        assert_eq!(std::fs::read(&input).unwrap(), before);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
