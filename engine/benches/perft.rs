//! Perft speed: leaves per second, single thread, counted like Fairy-Stockfish (legal moves,
//! last ply bulk-counted). Node counts are asserted so a speed-up can't come from a bug.
//!
//! Run: `cargo bench -p variant-engine --bench perft`. Criterion's "thrpt" is leaves/s.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use variant_engine::{Position, Registry, perft};

/// (name, variant, FEN, depth, expected leaves) — the Opulent rows of tests/data/opulent.tsv.
const CASES: &[(&str, &str, &str, u32, u64)] = &[
    (
        "opulent start d4",
        "opulent",
        "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - - 0 1",
        4,
        8_072_542,
    ),
    (
        "opulent middlegame 1 d4",
        "opulent",
        "1w4c1wr/rlnn2k1la/pp1p3pp1/Nbp2pp3/4pq3p/4AW4/6PPPW/PPPPbPKL1P/1L1BQ1B3/R1C2N3R w - - 0 19",
        4,
        30_050_844,
    ),
    (
        "opulent middlegame 2 d4",
        "opulent",
        "2rk4nr/1ln3qw2/3p1pp1pp/1p4l1b1/pPpPp2L2/5PP1p1/CPP2P1P2/2W1NB3b/1L2Q4A/RWB1K1N2R w - - 0 38",
        4,
        24_050_120,
    ),
    (
        "soho start d4",
        "soho",
        "cwf4fwc/rnbuqkubnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBUQKUBNR/CWF4FWC w KQkq - 0 1",
        4,
        5_731_558,
    ),
];

fn perft_speed(c: &mut Criterion) {
    let registry = Registry::builtin();
    let mut group = c.benchmark_group("perft");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .warm_up_time(Duration::from_secs(1));
    for &(name, variant, fen, depth, nodes) in CASES {
        let v = registry.get(variant).expect("built-in variant");
        let mut pos = Position::from_fen(v, fen).expect("valid FEN");
        assert_eq!(perft(&mut pos, depth), nodes, "{name}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| perft(black_box(&mut pos), depth)));
    }
    group.finish();
}

fn movegen(c: &mut Criterion) {
    let registry = Registry::builtin();
    let pos = Position::new(registry.get("opulent").expect("built-in variant"));
    c.bench_function("opulent start legal_moves", |b| {
        b.iter(|| black_box(&pos).legal_moves());
    });
    c.bench_function("opulent start fen parse", |b| {
        let v = pos.variant().clone();
        let fen = pos.fen();
        b.iter(|| Position::from_fen(v.clone(), black_box(&fen)));
    });
}

criterion_group!(benches, perft_speed, movegen);
criterion_main!(benches);
