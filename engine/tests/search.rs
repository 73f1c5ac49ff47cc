#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Search behaviour: forced mates, legality under tiny limits, prompt stopping, determinism.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use variant_engine::search::{Limits, PoolConfig, Score, SearchPool, StopReason};
use variant_engine::{Position, Registry};

fn pool() -> SearchPool {
    SearchPool::new(PoolConfig { hash_mb: 4 })
}

fn position(variant: &str, fen: &str) -> Position {
    let v = Registry::builtin().get(variant).unwrap();
    Position::from_fen(v, fen).unwrap()
}

/// Forced mates: (variant, FEN, moves to mate, the mating first move if unique).
/// Decima and Orphic rows are added here when those variants land.
const MATES: &[(&str, &str, i32, Option<&str>)] = &[
    // Back-rank mate: Ra8#.
    (
        "chess",
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
        1,
        Some("a1a8"),
    ),
];

#[test]
fn finds_forced_mates() {
    for &(variant, fen, n, first) in MATES {
        let pos = position(variant, fen);
        let limits = Limits {
            depth: Some((2 * n + 2) as u32),
            ..Limits::default()
        };
        let r = pool().search(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
        assert_eq!(r.score, Score::Mate(n), "{variant} {fen}: {r:?}");
        if let Some(first) = first {
            assert_eq!(pos.uci(r.best_move.unwrap()), first, "{variant} {fen}");
        }
    }
}

#[test]
fn stops_promptly_and_still_returns_a_legal_move() {
    let pos = Position::new(Registry::builtin().get("opulent").unwrap());
    let stop = AtomicBool::new(false);
    let limits = Limits {
        infinite: true,
        threads: 2,
        ..Limits::default()
    };
    let pool = pool();
    let (r, latency) = std::thread::scope(|s| {
        let h = s.spawn(|| pool.search(&pos, &limits, &stop, &mut |_| {}));
        std::thread::sleep(Duration::from_millis(200));
        let t = Instant::now();
        stop.store(true, Ordering::Relaxed);
        let r = h.join().unwrap();
        (r, t.elapsed())
    });
    assert!(latency < Duration::from_secs(1), "{latency:?}");
    assert_eq!(r.stop_reason, StopReason::Stopped);
    assert!(pos.legal_moves().contains(&r.best_move.unwrap()));
}
