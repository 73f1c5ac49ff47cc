//! Property tests over random playouts, for every variant in the registry:
//! make/unmake restores position and hash, the incremental hash equals a recomputed one, FEN
//! round-trips, every generated move's text (and SAN) parses back to the same move, nothing
//! else parses as legal, `is_legal` agrees with the move list, and no generated move leaves the mover's royal king attacked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use proptest::prelude::*;
use variant_engine::{Move, PieceKind, Position, Registry, SplitMix64, Square};

fn check_position(pos: &Position, rng: &mut SplitMix64, full: bool) {
    assert_eq!(
        pos.hash(),
        pos.compute_hash(),
        "incremental hash of {}",
        pos.fen()
    );
    let fen = pos.fen();
    let reparsed =
        Position::from_fen(pos.variant().clone(), &fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(reparsed.fen(), fen);
    assert_eq!(&reparsed, pos, "FEN round-trip changes the position {fen}");
    let moves = pos.legal_moves();
    assert_eq!(
        moves.len() as u64,
        pos.count_legal_moves(),
        "count vs list at {fen}"
    );
    let texts: HashSet<String> = moves.iter().map(|&m| pos.uci(m)).collect();
    assert_eq!(texts.len(), moves.len(), "two moves share a text at {fen}");
    let mover = pos.side_to_move();
    for &m in &moves {
        let text = pos.uci(m);
        assert_eq!(pos.parse_move(&text).unwrap(), m, "text {text} at {fen}");
        let mut after = pos.clone();
        after.play(m);
        if let Some(k) = after.royal_square(mover) {
            assert!(
                after.attackers_to(k, after.occupied(), !mover).is_empty(),
                "{text} leaves the king attacked at {fen}"
            );
        }
        after.unmake();
        assert_eq!(&after, pos, "unmake of {text} at {fen}");
        assert_eq!(after.hash(), pos.hash());
    }
    if full {
        let described = pos.describe_moves();
        assert_eq!(described.iter().map(|(m, _)| *m).collect::<Vec<_>>(), moves);
        for (m, d) in described {
            let san = pos.san(m);
            assert_eq!(
                d,
                pos.describe(m),
                "batch and single descriptions differ at {fen}"
            );
            assert_eq!(d.san, san);
            assert_eq!(d.uci, pos.uci(m));
            assert_eq!(d.capture, pos.is_capture(m));
            assert_eq!(pos.parse_move(&san).unwrap(), m, "SAN {san} at {fen}");
        }
    }
    // `is_legal` (which takes a one-piece shortcut for piece moves) agrees with the list, for
    // every legal move and for plain moves from every friendly piece to random squares.
    let size = pos.variant().size();
    let squares: Vec<Square> = size.squares().collect();
    for &m in &moves {
        assert!(
            pos.is_legal(m),
            "{} not legal by is_legal at {fen}",
            pos.uci(m)
        );
    }
    let own: Vec<Square> = squares
        .iter()
        .copied()
        .filter(|&s| pos.piece_at(s).is_some_and(|p| p.color() == mover))
        .collect();
    let kinds = pos.variant().kind_count();
    for &from in &own {
        for i in 0..12 {
            let to = squares[rng.below(squares.len() as u64) as usize];
            // Mostly plain moves; also the special kinds, which only pawns and kings make.
            let m = match i {
                8 => Move::en_passant(from, to),
                9 => Move::castle(from, to),
                10 | 11 => Move::promotion(from, to, PieceKind(rng.below(kinds as u64) as u8)),
                _ => Move::normal(from, to),
            };
            assert_eq!(
                pos.is_legal(m),
                moves.contains(&m),
                "is_legal({m:?}) disagrees with the list at {fen}"
            );
        }
    }
    // The same for drops: random kinds onto random squares, with or without a relocation.
    if pos.variant().has_drops() {
        for _ in 0..40 {
            let kind = PieceKind(rng.below(kinds as u64) as u8);
            let to = squares[rng.below(squares.len() as u64) as usize];
            let relocation =
                (rng.below(2) == 0).then(|| squares[rng.below(squares.len() as u64) as usize]);
            let m = Move::drop(kind, to, relocation);
            assert_eq!(
                pos.is_legal(m),
                moves.contains(&m),
                "is_legal({m:?}) disagrees with the list at {fen}"
            );
        }
    }
    // Random board-move texts that are not generated must not parse as legal.
    for _ in 0..40 {
        let from = squares[rng.below(squares.len() as u64) as usize];
        let to = squares[rng.below(squares.len() as u64) as usize];
        let suffix = [
            "", "q", "n", "r", "b", "c", "a", "w", "l", "u", "f", "k", "p",
        ][rng.below(13) as usize];
        let text = format!("{from}{to}{suffix}");
        if !texts.contains(&text) {
            assert!(
                pos.parse_uci(&text).is_err(),
                "{text} parsed as legal at {fen}"
            );
        }
    }
}

fn playout(variant_index: usize, seed: u64, plies: usize, full: bool) {
    let registry = Registry::builtin();
    let variants: Vec<_> = registry.iter().cloned().collect();
    let variant = variants[variant_index % variants.len()].clone();
    // The engine's generator, seeded by the case: a failing case replays from its seed.
    let mut rng = SplitMix64(seed);
    let mut pos = Position::new(variant);
    for _ in 0..plies {
        check_position(&pos, &mut rng, full);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play(moves[rng.below(moves.len() as u64) as usize]);
    }
    // Unwinding the whole game returns to the start.
    let start_fen = pos.variant().start_fen().to_owned();
    while pos.ply_count() > 0 {
        pos.unmake();
    }
    assert_eq!(pos.fen(), start_fen);
    assert_eq!(pos.hash(), pos.compute_hash());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_playouts_keep_every_invariant(variant in 0usize..16, seed in any::<u64>()) {
        playout(variant, seed, 60, false);
    }

    #[test]
    fn san_round_trips_on_random_playouts(variant in 0usize..16, seed in any::<u64>()) {
        playout(variant, seed, 12, true);
    }
}

#[test]
fn long_playouts_reach_the_endgame_in_every_variant() {
    let n = Registry::builtin().iter().count();
    for v in 0..n {
        for seed in 1..4 {
            playout(v, seed * 7919, 300, false);
        }
    }
}
