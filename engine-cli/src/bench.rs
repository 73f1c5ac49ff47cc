//! The bench signature: the library's sample positions ([`bench_positions`]) searched to a
//! fixed depth on one thread with a fresh table, with the evaluation the engine plays by
//! default (a variant's shipped network where it has one, as UCI `Use NNUE` and the service's
//! `--use-nnue` default to; the hand-written evaluation elsewhere). The total node count
//! identifies the search's behaviour (commits that change search or evaluation quote it in a
//! `Bench:` trailer); nodes per second is the speed figure. With a network (`bench --eval-file
//! NET`) it searches the network's variant's positions twice, hand-written evaluation then
//! network, and prints both speeds and their ratio: the two runs' node counts differ (the
//! evaluations differ), so only the speeds compare.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use variant_engine::{
    Limits, Network, Registry, SearchOptions, Searcher, SearcherConfig, bench_positions,
};

/// Default bench depth.
pub const BENCH_DEPTH: u32 = 11;

/// Runs the bench at `depth`, writing one line per position and the totals to `out`; returns
/// the signature (the total node count).
///
/// # Errors
/// When writing fails, or a shipped network does not load (a library test checks that every
/// one does).
pub fn run(registry: &Registry, depth: u32, out: &mut impl Write) -> io::Result<u64> {
    let stop = AtomicBool::new(false);
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    for (i, pos) in bench_positions(registry).iter().enumerate() {
        let mut options = SearchOptions::default();
        options.features.eval.net = Network::shipped(pos.variant()).map_err(io::Error::other)?;
        let searcher = Searcher::new(SearcherConfig { hash_mb: 16 });
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let r = searcher.search(pos, &limits, &options, &stop, &mut |_| {});
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

/// Nodes and nodes per second of `positions` searched to `depth` with `options`.
fn speed(
    positions: &[variant_engine::Position],
    depth: u32,
    options: &SearchOptions,
) -> (u64, u64) {
    let stop = AtomicBool::new(false);
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    for pos in positions {
        let searcher = Searcher::new(SearcherConfig { hash_mb: 16 });
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let r = searcher.search(pos, &limits, options, &stop, &mut |_| {});
        nodes += r.nodes;
        time += r.time;
    }
    let nps = (u128::from(nodes) * 1_000_000_000 / time.as_nanos().max(1)) as u64;
    (nodes, nps)
}

/// The speed of the hand-written evaluation and of `net` on the bench positions of the net's
/// variant, side by side; returns the ratio (network speed / hand-written speed).
///
/// # Errors
/// Only when writing fails.
pub fn run_with_net(
    registry: &Registry,
    depth: u32,
    net: &'static Network,
    out: &mut impl Write,
) -> io::Result<f64> {
    let positions: Vec<_> = bench_positions(registry)
        .into_iter()
        .filter(|p| p.variant().name() == net.variant_name())
        .collect();
    let hce = speed(&positions, depth, &SearchOptions::default());
    let mut options = SearchOptions::default();
    options.features.eval.net = Some(net);
    let nnue = speed(&positions, depth, &options);
    let ratio = nnue.1 as f64 / hce.1.max(1) as f64;
    writeln!(
        out,
        "{} positions of {}: hand-written nodes {} nps {}; network nodes {} nps {}; speed ratio {ratio:.3}",
        positions.len(),
        net.variant_name(),
        hce.0,
        hce.1,
        nnue.0,
        nnue.1
    )?;
    Ok(ratio)
}
