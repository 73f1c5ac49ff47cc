//! `describe_moves` speed: every legal move with its move text, SAN (check suffix included) and
//! parts, which is what `LegalMoves` answers. Move counts are asserted so a speed-up
//! can't come from dropping moves.
//!
//! Run: `cargo bench -p variant-engine --bench describe`. Criterion's "thrpt" is moves/s.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use variant_engine::{Position, Registry};

/// (name, variant, moves played from the start, expected legal moves). Orphic's start is the
/// drop phase (hundreds of drops, no check probes); the chess line reaches a middlegame with
/// a checking capture (Bxc6+).
const CASES: &[(&str, &str, &[&str], usize)] = &[
    ("chess start", "chess", &[], 20),
    ("soho start", "soho", &[], 48),
    ("orphic start", "orphic", &[], 712),
    (
        "chess middlegame",
        "chess",
        &[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6", "b1c3", "f8b4", "d2d3", "d7d6",
        ],
        32,
    ),
];

fn describe_speed(c: &mut Criterion) {
    let registry = Registry::builtin();
    let mut group = c.benchmark_group("describe_moves");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for &(name, variant, moves, count) in CASES {
        let mut pos = Position::new(registry.get(variant).expect("built-in variant"));
        for text in moves {
            let m = pos.parse_move(text).expect("legal move in the bench line");
            pos.play(m);
        }
        assert_eq!(pos.describe_moves().len(), count, "{name}");
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(name, |b| b.iter(|| black_box(&pos).describe_moves()));
    }
    group.finish();
}

criterion_group!(benches, describe_speed);
criterion_main!(benches);
