//! The bench signature: the library's sample positions ([`bench_positions`]) searched to a
//! fixed depth on one thread with a fresh table. The total node count identifies the search's
//! behaviour (commits that change search or evaluation quote it in a `Bench:` trailer); nodes
//! per second is the speed figure.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use variant_engine::{Limits, Registry, SearchOptions, Searcher, SearcherConfig, bench_positions};

/// Default bench depth.
pub const BENCH_DEPTH: u32 = 11;

/// Runs the bench at `depth`, writing one line per position and the totals to `out`; returns
/// the signature (the total node count).
///
/// # Errors
/// Only when writing fails.
pub fn run(registry: &Registry, depth: u32, out: &mut impl Write) -> io::Result<u64> {
    let stop = AtomicBool::new(false);
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    for (i, pos) in bench_positions(registry).iter().enumerate() {
        let searcher = Searcher::new(SearcherConfig { hash_mb: 16 });
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let r = searcher.search(pos, &limits, &SearchOptions::default(), &stop, &mut |_| {});
        nodes += r.nodes;
        time += r.time;
        writeln!(
            out,
            "position {:>2} {:<8} nodes {:>10} depth {:>2} best {}",
            i + 1,
            pos.variant().name(),
            r.nodes,
            r.depth,
            r.best_move
                .map_or_else(|| "(none)".to_owned(), |m| pos.uci(m)),
        )?;
    }
    let nps = (u128::from(nodes) * 1_000_000_000 / time.as_nanos().max(1)) as u64;
    writeln!(out, "nodes {nodes} nps {nps}")?;
    Ok(nodes)
}
