#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Search behaviour: forced mates, legality under tiny limits, prompt stopping, determinism.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use variant_engine::{
    Limits, Score, SearchOptions, SearchResult, Searcher, SearcherConfig, StopReason,
};
use variant_engine::{Position, Registry};

fn searcher() -> Searcher {
    Searcher::new(SearcherConfig { hash_mb: 4 })
}

/// A search of `pos` within `limits` by a fresh searcher, with default options and no stop.
fn search(pos: &Position, limits: &Limits) -> SearchResult {
    searcher().search(
        pos,
        limits,
        &SearchOptions::default(),
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

/// Forced mates: (variant, FEN, moves to mate, the mating first move if unique).
/// Decima and Orphic rows are added here when those variants land.
/// Each is a back-rank pattern: the black king is boxed in by its own pawns, the white rooks
/// (or queen / chancellor) check along the back rank, and every black rook can only capture the
/// checker, which the next white rook recaptures.
const MATES: &[(&str, &str, i32, Option<&str>)] = &[
    // Chess. 1. Ra8#.
    (
        "chess",
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
        1,
        Some("a1a8"),
    ),
    // 1. Re8+ Rxe8 2. Rxe8#.
    (
        "chess",
        "1r4k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1",
        2,
        Some("e2e8"),
    ),
    // 1. Re8+ Rbxe8 (the a8 rook is blocked) 2. Rxe8+ Rxe8 3. Rxe8#.
    (
        "chess",
        "rr4k1/5ppp/8/8/8/4R3/4RPPP/4R1K1 w - - 0 1",
        3,
        Some("e3e8"),
    ),
    // Black to move mates: 1... Ra1#.
    (
        "chess",
        "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1",
        1,
        Some("a8a1"),
    ),
    // The 10x10 rows mate on the ninth rank: a pawn never stands on its own second rank
    // there (RULES.md), so the black king on g9 is boxed by its pawns on rank 8 and by a white
    // rook on b10 that holds the tenth rank.
    // Opulent. 1. Ra9#.
    (
        "opulent",
        "1R8/6k3/5ppp2/10/10/10/10/10/10/R5K3 w - - 0 1",
        1,
        Some("a1a9"),
    ),
    // The chancellor (R+N) mates the same way: 1. Ca9#.
    (
        "opulent",
        "1R8/6k3/5ppp2/10/10/10/10/10/10/C5K3 w - - 0 1",
        1,
        Some("a1a9"),
    ),
    // 1. Re9+ Rxe9 2. Rxe9# (1. Rxb9+ mates in two as well).
    (
        "opulent",
        "1R8/1r4k3/5ppp2/10/10/10/10/10/4R5/4R1K3 w - - 0 1",
        2,
        None,
    ),
    // 1. Re9+ Rbxe9 (the a9 rook is blocked) 2. Rxe9+ Rxe9 3. Rxe9#.
    (
        "opulent",
        "1R8/rr4k3/5ppp2/10/10/10/10/4R5/4R5/4R1K3 w - - 0 1",
        3,
        None,
    ),
    // SOHO. 1. Qa9#.
    (
        "soho",
        "1R8/6k3/5ppp2/10/10/10/10/10/10/Q5K3 w - - 0 1",
        1,
        None,
    ),
    // 1. Re9+ Rxe9 2. Rxe9# (1. Rxb9+ mates in two as well).
    (
        "soho",
        "1R8/1r4k3/5ppp2/10/10/10/10/10/4R5/4R1K3 w - - 0 1",
        2,
        None,
    ),
    // 1. Re9+ Rbxe9 2. Rxe9+ Rxe9 3. Rxe9#.
    (
        "soho",
        "1R8/rr4k3/5ppp2/10/10/10/10/4R5/4R5/4R1K3 w - - 0 1",
        3,
        None,
    ),
    // Decima: the white king (10 points) steps onto the tenth rank; Black has no capture there
    // to answer the "check" and loses (h10, i10 and j10 all win).
    (
        "decima",
        "10/8K1/10/10/10/10/10/10/k9/10 w - - 0 1",
        1,
        None,
    ),
    // Orphic with both kings on the board and empty pockets: 1. Ra8#.
    (
        "orphic",
        "6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1",
        1,
        Some("a1a8"),
    ),
];

#[test]
fn finds_forced_mates() {
    for &(variant, fen, n, first) in MATES {
        let pos = common::pos(variant, fen);
        let limits = Limits {
            depth: Some((2 * n + 2) as u32),
            ..Limits::default()
        };
        for threads in [1, 2] {
            let limits = Limits {
                threads,
                ..limits.clone()
            };
            let r = search(&pos, &limits);
            assert_eq!(r.score, Score::Mate(n), "{variant} {fen}: {r:?}");
            assert_eq!(r.stop_reason, StopReason::Mate, "{variant} {fen}");
            if let Some(first) = first {
                assert_eq!(pos.uci(r.best_move.unwrap()), first, "{variant} {fen}");
            }
        }
        // Being mated is reported as a negative mate from the loser's side.
        let mut after = pos.clone();
        let r = search(&pos, &limits);
        after.play(r.best_move.unwrap());
        let r2 = search(&after, &limits);
        if n == 1 {
            assert_eq!(r2.best_move, None, "{variant} {fen}");
            assert_eq!(r2.stop_reason, StopReason::NoMoves);
            assert_eq!(r2.score, Score::Mate(0));
        } else {
            assert_eq!(r2.score, Score::Mate(-(n - 1)), "{variant} {fen}: {r2:?}");
        }
    }
}

/// The quiescence search skips the later quiet evasions of a check once one has shown the side
/// is not mated; the first must still be searched, or every quiet-only escape reads as mate.
#[test]
fn a_check_with_only_quiet_evasions_is_not_taken_for_mate() {
    // 1. Ra8+ (or Re1+ after a king move) leaves black only king moves, none of them a capture.
    for (variant, fen) in [
        ("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"),
        ("opulent", "5k4/10/10/10/10/10/10/10/10/R4K4 w - - 0 1"),
    ] {
        let pos = common::pos(variant, fen);
        // Without check extensions the checked side's reply is searched by quiescence alone.
        let options: SearchOptions = "ext=off".parse().unwrap();
        for depth in 1..=3 {
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            let r = searcher().search(
                &pos,
                &limits,
                &options,
                &AtomicBool::new(false),
                &mut |_| {},
            );
            assert!(
                matches!(r.score, Score::Centipawns(_)),
                "{variant} depth {depth}: {r:?}"
            );
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
    let searcher = searcher();
    let (r, latency) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            searcher.search(&pos, &limits, &SearchOptions::default(), &stop, &mut |_| {})
        });
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

#[test]
fn fixed_depth_single_thread_search_is_deterministic() {
    for v in Registry::builtin().iter() {
        let pos = Position::new(v.clone());
        let limits = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let run = || search(&pos, &limits);
        let (a, b) = (run(), run());
        assert_eq!(a.nodes, b.nodes, "{}", v.name());
        assert_eq!(a.best_move, b.best_move, "{}", v.name());
        assert_eq!(a.pv, b.pv, "{}", v.name());
        assert_eq!(a.stop_reason, StopReason::Depth);
        assert_eq!(a.depth, 6);
    }
}

/// What one search of a searcher passes to the next (its move-ordering histories) is
/// forgotten by `clear()` and by a search that asks for a fresh table: after either, a
/// searcher that has searched elsewhere answers exactly as a new one. (That it is passed on
/// at all is a unit test of the search module, which can clear the table alone.)
#[test]
fn clear_and_fresh_table_forget_what_earlier_searches_learned() {
    let v = Registry::builtin().get("opulent").unwrap();
    let first = Position::new(v.clone());
    let mut second = first.clone();
    second.play(second.legal_moves()[7]);
    let limits = Limits {
        depth: Some(6),
        ..Limits::default()
    };
    let run = |s: &Searcher, pos: &Position, options: &SearchOptions| {
        s.search(pos, &limits, options, &AtomicBool::new(false), &mut |_| {})
    };
    let defaults = SearchOptions::default();
    let fresh = run(&searcher(), &second, &defaults);

    let s = searcher();
    run(&s, &first, &defaults);
    s.clear();
    let after_clear = run(&s, &second, &defaults);
    assert_eq!(
        (after_clear.nodes, after_clear.pv),
        (fresh.nodes, fresh.pv.clone())
    );

    let s = searcher();
    run(&s, &first, &defaults);
    let reproducible = SearchOptions {
        fresh_table: true,
        ..defaults
    };
    let seeded = run(&s, &second, &reproducible);
    let new_seeded = run(&searcher(), &second, &reproducible);
    assert_eq!((seeded.nodes, seeded.pv), (new_seeded.nodes, new_seeded.pv));
}

#[test]
fn reports_one_info_per_iteration_and_line() {
    let pos = Position::new(Registry::builtin().get("soho").unwrap());
    let limits = Limits {
        depth: Some(4),
        multipv: 3,
        ..Limits::default()
    };
    let mut infos = Vec::new();
    let r = searcher().search(
        &pos,
        &limits,
        &SearchOptions::default(),
        &AtomicBool::new(false),
        &mut |i| {
            infos.push(i.clone());
        },
    );
    assert_eq!(infos.len(), 4 * 3);
    for (i, info) in infos.iter().enumerate() {
        assert_eq!(info.depth as usize, i / 3 + 1);
        assert_eq!(info.multipv, i % 3 + 1);
        assert!(!info.pv.is_empty());
    }
    assert_eq!(r.lines.len(), 3);
    let firsts: Vec<_> = r.lines.iter().map(|l| l.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert_eq!(r.best_move, Some(firsts[0]));
    let score = |s: Score| match s {
        Score::Centipawns(c) => c,
        Score::Mate(m) => 100_000 * m.signum(),
    };
    assert!(score(r.lines[0].score) >= score(r.lines[1].score));
    assert!(score(r.lines[1].score) >= score(r.lines[2].score));
}

#[test]
fn node_and_time_limits_end_the_search() {
    let pos = Position::new(Registry::builtin().get("opulent").unwrap());
    let r = search(
        &pos,
        &Limits {
            nodes: Some(5_000),
            ..Limits::default()
        },
    );
    assert_eq!(r.stop_reason, StopReason::Nodes);
    assert!(r.nodes >= 5_000 && r.nodes < 5_000 + 2_048, "{}", r.nodes);
    let t = Instant::now();
    let r = search(
        &pos,
        &Limits {
            movetime: Some(Duration::from_millis(100)),
            ..Limits::default()
        },
    );
    assert_eq!(r.stop_reason, StopReason::Time);
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(pos.legal_moves().contains(&r.best_move.unwrap()));
}

#[test]
fn a_stop_flag_set_before_the_search_still_yields_a_legal_move() {
    for v in Registry::builtin().iter() {
        let pos = Position::new(v.clone());
        let r = searcher().search(
            &pos,
            &Limits::default(),
            &SearchOptions::default(),
            &AtomicBool::new(true),
            &mut |_| {},
        );
        assert!(
            pos.legal_moves().contains(&r.best_move.unwrap()),
            "{}",
            v.name()
        );
        assert_eq!(r.stop_reason, StopReason::Stopped);
    }
}

#[test]
fn skill_levels_are_deterministic_given_the_seed() {
    let pos = Position::new(Registry::builtin().get("opulent").unwrap());
    let options = |seed| SearchOptions {
        skill_level: Some(3),
        seed,
        ..SearchOptions::default()
    };
    let run = |seed| {
        searcher()
            .search(
                &pos,
                &Limits::default(),
                &options(seed),
                &AtomicBool::new(false),
                &mut |_| {},
            )
            .best_move
    };
    assert_eq!(run(7), run(7));
    let moves: std::collections::HashSet<_> = (0..12).map(run).collect();
    assert!(
        moves.len() > 1,
        "a weak level should vary its choice with the seed"
    );
}

#[test]
fn a_skill_level_completes_its_first_iteration_on_a_tiny_node_budget() {
    // The pick needs every candidate line scored; a tiny node cap must not cut depth 1 short.
    let pos = Position::new(Registry::builtin().get("opulent").unwrap());
    let limits = Limits {
        nodes: Some(10),
        ..Limits::default()
    };
    let weak = SearchOptions {
        skill_level: Some(0),
        seed: 3,
        ..SearchOptions::default()
    };
    let r = searcher().search(&pos, &limits, &weak, &AtomicBool::new(false), &mut |_| {});
    assert!(r.depth >= 1, "depth {}", r.depth);
    assert!(
        r.nodes > 10,
        "the first iteration ran past the cap: {}",
        r.nodes
    );
    // Without a skill level the node limit holds from the first node.
    let full = search(&pos, &limits);
    assert!(full.nodes < 10 + 2_048, "{}", full.nodes);
    assert!(full.nodes < r.nodes, "{} vs {}", full.nodes, r.nodes);
}

mod random_positions {
    use super::*;
    use proptest::prelude::*;
    use variant_engine::random_playout;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Whatever the position and however little the search may do, the move is legal.
        #[test]
        fn never_returns_an_illegal_move(
            variant in 0usize..16,
            plies in 0usize..60,
            seed in any::<u64>(),
            nodes in 1u64..3_000,
            threads in 1usize..=2,
        ) {
            let registry = Registry::builtin();
            let variants: Vec<_> = registry.iter().cloned().collect();
            let v = variants[variant % variants.len()].clone();
            let pos = random_playout(Position::new(v), plies, seed);
            let limits = Limits { nodes: Some(nodes), threads, ..Limits::default() };
            let r = search(&pos, &limits);
            let legal = pos.legal_moves();
            match r.best_move {
                Some(m) => {
                    prop_assert!(legal.contains(&m));
                    let mut p = pos.clone();
                    for &m in &r.pv {
                        prop_assert!(p.is_legal(m), "pv move {:?} illegal in {}", m, p.fen());
                        p.play(m);
                    }
                }
                None => prop_assert!(legal.is_empty()),
            }
        }
    }
}

#[test]
fn the_searcher_can_be_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Searcher>();
    // Two searches on one shared searcher from two threads: the second waits for the first.
    let searcher = std::sync::Arc::new(searcher());
    let pos = Position::new(Registry::builtin().get("chess").unwrap());
    let limits = Limits {
        depth: Some(5),
        ..Limits::default()
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let searcher = searcher.clone();
                let (pos, limits) = (pos.clone(), limits.clone());
                s.spawn(move || {
                    searcher.search(
                        &pos,
                        &limits,
                        &SearchOptions::default(),
                        &AtomicBool::new(false),
                        &mut |_| {},
                    )
                })
            })
            .collect();
        for h in handles {
            let r = h.join().unwrap();
            assert!(pos.legal_moves().contains(&r.best_move.unwrap()));
        }
    });
}

#[test]
fn search_moves_restrict_the_root() {
    // White can take a loose queen with the rook; restricted to a king move, the search must
    // answer with that king move, and with only illegal moves named it searches everything.
    let chess = Registry::builtin().get("chess").unwrap();
    let pos = Position::from_fen(chess, "3qk3/8/8/8/8/8/8/3RK3 w - - 0 1").unwrap();
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    let free = search(&pos, &limits);
    assert_eq!(pos.uci(free.best_move.unwrap()), "d1d8");

    let king = pos.parse_move("e1f2").unwrap();
    let restricted = search(
        &pos,
        &Limits {
            search_moves: vec![king],
            ..limits.clone()
        },
    );
    assert_eq!(restricted.best_move, Some(king));
    assert!(restricted.lines.iter().all(|l| l.pv.first() == Some(&king)));

    let other = Position::from_fen(
        Registry::builtin().get("chess").unwrap(),
        "4k3/8/8/8/8/8/8/3RK3 b - - 0 1",
    )
    .unwrap();
    let illegal_here = search(
        &other,
        &Limits {
            search_moves: vec![king],
            ..limits
        },
    );
    assert!(
        other
            .legal_moves()
            .contains(&illegal_here.best_move.unwrap())
    );
}
