//! Nodes needed to reach a fixed depth on the bench positions, per search configuration: shows
//! how much each selectivity feature shrinks the tree.
//!
//! `cargo run --release -p variant-engine --example feature_nodes -- [depth] [config ...]`
//! where a config is a [`SearchOptions`] string such as `null=off,lmr=off` (as `match --a` takes).

use std::sync::atomic::AtomicBool;

use variant_engine::{Limits, Registry, SearchOptions, Searcher, SearcherConfig, bench_positions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth = args.first().and_then(|d| d.parse().ok()).unwrap_or(9);
    let mut configs: Vec<String> = args.iter().skip(1).cloned().collect();
    if configs.is_empty() {
        configs = ["", "null=off", "lmr=off", "prune=off", "tt=off", "ext=off"]
            .map(String::from)
            .to_vec();
    }
    let registry = Registry::builtin();
    let positions = bench_positions(&registry);
    for c in &configs {
        let Ok(options) = c.parse::<SearchOptions>() else {
            eprintln!("bad config {c:?}");
            continue;
        };
        let mut nodes = 0;
        let mut time = std::time::Duration::ZERO;
        for pos in &positions {
            let searcher = Searcher::new(SearcherConfig { hash_mb: 16 });
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            let r = searcher.search(pos, &limits, &options, &AtomicBool::new(false), &mut |_| {});
            nodes += r.nodes;
            time += r.time;
        }
        println!(
            "{:<24} depth {depth} nodes {nodes:>10} time {:>6} ms",
            if c.is_empty() { "default" } else { c },
            time.as_millis()
        );
    }
}
