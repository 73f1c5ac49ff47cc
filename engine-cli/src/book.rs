//! `variant-engine book`: a file of balanced openings for `match --openings`.
//!
//! Random plies from the start make an opening in one line of code, but a random move often
//! hangs a piece, and such an opening decides its game pair by itself: each engine wins it
//! with the side that gets the piece, the pair is level whatever the engines' strength, and a
//! real difference between them shows as a smaller Elo figure. In a drop variant the captured
//! piece also goes into the captor's hand, and the effect is larger. A book keeps only the
//! random openings that a fixed-node search of this engine scores near level, as engine
//! testers' opening books do.
//!
//! Candidate `i` is the `i`-th of the seeded random openings `datagen` plays from; each is
//! searched from empty tables, so the book depends only on the arguments (and the engine's
//! evaluation), whatever `--threads` is. Openings that transpose into one another (the same
//! FEN but for its move counters) are kept once. Each line is a FEN followed by an EPD-style
//! comment with the candidate's number and score (White's view), which `match --openings`
//! skips.

use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use variant_engine::{
    Color, GameStatus, Limits, Network, Position, Score, SearchOptions, Searcher, SearcherConfig,
    Variant,
};

use crate::tunedata::random_opening;

/// What makes a book.
#[derive(Clone, Copy, Debug)]
pub struct BookConfig {
    /// Openings to write.
    pub count: usize,
    /// Random plies of each opening.
    pub plies: usize,
    /// Seed of the random playouts.
    pub seed: u64,
    /// Nodes of the search that scores an opening.
    pub nodes: u64,
    /// Largest score (centipawns, either side) an opening may have.
    pub max_score: i32,
    /// Candidates tried per opening wanted before giving up.
    pub tries_per_opening: usize,
    /// Evaluate with this network; `None` is the hand-written evaluation.
    pub net: Option<&'static Network>,
}

/// One opening of a book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// The candidate's number (its index among the seed's random openings).
    pub candidate: usize,
    /// The position.
    pub fen: String,
    /// The search score, centipawns from White's view.
    pub white_cp: i32,
}

/// Why a book could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// Too few candidates were level enough.
    #[error(
        "only {found} of {wanted} openings scored within {max_score} cp after {tried} random openings; \
         raise --max-score or lower --plies"
    )]
    TooFew {
        /// Openings found.
        found: usize,
        /// Openings wanted.
        wanted: usize,
        /// The score bound.
        max_score: i32,
        /// Candidates searched.
        tried: usize,
    },
}

/// Candidate `i`'s opening (the `i`-th of `tune-data`'s and `datagen`'s random openings for
/// the seed), or `None` when every try of it ended the game.
fn candidate(variant: &Arc<Variant>, cfg: &BookConfig, i: usize) -> Option<Position> {
    let pos = random_opening(variant, cfg.seed, i as u64, cfg.plies);
    (pos.status() == GameStatus::Ongoing).then_some(pos)
}

/// Candidates searched between two looks at how many openings the book has: enough to keep
/// every thread busy, few enough that little is searched past the last opening needed.
const CHUNK: usize = 32;

/// Scores candidate `i` with `searcher`: its book entry when it is level enough, with the
/// position's Zobrist hash, which (like the engine's repetition check) leaves out the move
/// counters, so that openings transposing into one another are kept once.
fn score_candidate(
    variant: &Arc<Variant>,
    cfg: &BookConfig,
    searcher: &Searcher,
    i: usize,
) -> Option<(u64, BookEntry)> {
    let pos = candidate(variant, cfg, i)?;
    let limits = Limits {
        nodes: Some(cfg.nodes),
        ..Limits::default()
    };
    let mut options = SearchOptions::default();
    options.features.eval.net = cfg.net;
    // Each candidate from empty tables: its score must not depend on which thread searched
    // which candidates before it.
    searcher.clear();
    let stop = AtomicBool::new(false);
    let r = searcher.search(&pos, &limits, &options, &stop, &mut |_| {});
    let Score::Centipawns(cp) = r.score else {
        return None;
    };
    // A search that finished no iteration has no score worth the name.
    if r.best_move.is_none() || r.depth == 0 || cp.abs() > cfg.max_score {
        return None;
    }
    let white_cp = if pos.side_to_move() == Color::White {
        cp
    } else {
        -cp
    };
    let entry = BookEntry {
        candidate: i,
        fen: pos.fen(),
        white_cp,
    };
    Some((pos.hash(), entry))
}

/// Searches candidates, [`CHUNK`] at a time on `threads` threads, until `cfg.count` level
/// ones are found, printing progress to `progress`. The book is the first `count` level
/// candidates in candidate order (a transposition of an earlier one skipped), so the number
/// of threads cannot change it.
///
/// # Errors
/// [`BookError::TooFew`] when `count * tries_per_opening` candidates hold too few.
pub fn make(
    variant: &Arc<Variant>,
    cfg: &BookConfig,
    threads: usize,
    progress: &mut impl Write,
) -> Result<Vec<BookEntry>, BookError> {
    let limit = cfg.count.saturating_mul(cfg.tries_per_opening.max(1));
    let searchers: Vec<Searcher> = (0..threads.max(1))
        .map(|_| Searcher::new(SearcherConfig { hash_mb: 16 }))
        .collect();
    let mut seen = HashSet::new();
    let mut book = Vec::with_capacity(cfg.count);
    let mut tried = 0;
    while book.len() < cfg.count && tried < limit {
        let end = (tried + CHUNK).min(limit);
        let next = AtomicUsize::new(tried);
        let chunk: Mutex<Vec<Option<(u64, BookEntry)>>> = Mutex::new(vec![None; end - tried]);
        std::thread::scope(|s| {
            for searcher in &searchers {
                let (next, chunk) = (&next, &chunk);
                s.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= end {
                            break;
                        }
                        let entry = score_candidate(variant, cfg, searcher, i);
                        if let Ok(mut c) = chunk.lock() {
                            c[i - tried] = entry;
                        }
                    }
                });
            }
        });
        for entry in chunk.into_inner().unwrap_or_else(PoisonError::into_inner) {
            if book.len() < cfg.count
                && let Some((key, e)) = entry
                && seen.insert(key)
            {
                book.push(e);
            }
        }
        tried = end;
        let _ = writeln!(
            progress,
            "{} of {} openings from {tried} candidates",
            book.len(),
            cfg.count
        );
    }
    if book.len() < cfg.count {
        return Err(BookError::TooFew {
            found: book.len(),
            wanted: cfg.count,
            max_score: cfg.max_score,
            tried,
        });
    }
    Ok(book)
}

/// Writes `book` as `match --openings` reads it: a header comment, then one FEN per line with
/// its candidate number and score as an EPD comment.
///
/// # Errors
/// When writing fails.
pub fn write(
    out: &mut impl Write,
    variant: &Variant,
    cfg: &BookConfig,
    book: &[BookEntry],
) -> io::Result<()> {
    writeln!(
        out,
        "# book variant={} plies={} seed={} nodes={} max-score={} evaluation={}",
        variant.name(),
        cfg.plies,
        cfg.seed,
        cfg.nodes,
        cfg.max_score,
        cfg.net.map_or("hand-written", |_| "network")
    )?;
    for e in book {
        writeln!(
            out,
            "{} ; c0 \"candidate {}\"; ce {};",
            e.fen, e.candidate, e.white_cp
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use variant_engine::Registry;

    fn cfg(count: usize, max_score: i32) -> BookConfig {
        BookConfig {
            count,
            plies: 4,
            seed: 3,
            // At a few hundred nodes an Orphic search (every drop is a move) finishes no
            // iteration, and such a candidate is not scored.
            nodes: 3000,
            max_score,
            tries_per_opening: 20,
            net: None,
        }
    }

    #[test]
    fn a_book_is_level_distinct_and_the_same_on_any_number_of_threads() {
        let v = Registry::builtin().get("orphic").unwrap();
        let one = make(&v, &cfg(12, 60), 1, &mut io::sink()).unwrap();
        let two = make(&v, &cfg(12, 60), 2, &mut io::sink()).unwrap();
        assert_eq!(one, two);
        assert_eq!(one.len(), 12);
        assert!(one.iter().all(|e| e.white_cp.abs() <= 60), "{one:?}");
        let fens: HashSet<_> = one.iter().map(|e| &e.fen).collect();
        assert_eq!(fens.len(), one.len());
        assert!(one.windows(2).all(|w| w[0].candidate < w[1].candidate));
        // Some candidates were out of bounds and skipped: the filter did something.
        let all = make(&v, &cfg(12, 100_000), 1, &mut io::sink()).unwrap();
        assert_ne!(one, all);
        assert!(all.iter().any(|e| e.white_cp.abs() > 60), "{all:?}");
    }

    #[test]
    fn the_transposition_key_ignores_only_the_move_counters() {
        let orphic = Registry::builtin().get("orphic").unwrap();
        let key = |fen: &str| Position::from_fen(orphic.clone(), fen).unwrap().hash();
        let a = "8/8/8/8/8/8/8/K6k[Qq] w - - 0 3";
        assert_eq!(key(a), key("8/8/8/8/8/8/8/K6k[Qq] w - - 7 3"));
        assert_ne!(key(a), key("8/8/8/8/8/8/8/K6k[Qq] b - - 0 3"));
        assert_ne!(key(a), key("8/8/8/8/8/8/8/K6k[Q] w - - 0 3"));
    }

    #[test]
    fn the_file_reads_back_as_openings_and_an_impossible_bound_is_refused() {
        let v = Registry::builtin().get("chess").unwrap();
        let c = cfg(5, 80);
        let book = make(&v, &c, 1, &mut io::sink()).unwrap();
        let dir = std::env::temp_dir().join(format!("book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.epd");
        let mut file = std::fs::File::create(&path).unwrap();
        write(&mut file, &v, &c, &book).unwrap();
        drop(file);
        let read = crate::matches::read_openings(&path).unwrap();
        let fens: Vec<_> = book.iter().map(|e| e.fen.clone()).collect();
        assert_eq!(read, fens);
        let _ = std::fs::remove_dir_all(&dir);
        let err = make(
            &v,
            &BookConfig {
                max_score: -1,
                tries_per_opening: 2,
                ..c
            },
            1,
            &mut io::sink(),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                BookError::TooFew {
                    found: 0,
                    wanted: 5,
                    tried: 10,
                    ..
                }
            ),
            "{err}"
        );
    }
}
