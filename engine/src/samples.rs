//! Sample positions: the fixed set the bench signature searches, and seeded random playouts.
//!
//! The `variant-engine bench` command, self-play openings and tests build their positions here,
//! so that they all mean the same positions by the same seed. Nothing here prints.

use crate::position::Position;
use crate::registry::Registry;

/// Hand-picked positions per variant (start positions are added for every variant).
const POSITIONS: &[(&str, &str)] = &[
    (
        "chess",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ),
    (
        "chess",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    ),
    ("chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    (
        "opulent",
        "rw6wr/c1nbq1bnla/2lp1kpppp/p3P5/1pp7/8P1/4P1W3/PPPP1P1P1P/CLNB1KB1LA/RW1Q3N1R b - - 0 8",
    ),
    (
        "opulent",
        "rw5bwr/c4k1nla/3p2pppp/pl7b/1P7P/8P1/1PPpP1q3/4K2P2/CLNB2B1LA/1R1Q3N1R w - - 0 20",
    ),
    (
        "opulent",
        "cq2bbk2r/4l2n1w/2pp4pp/BrP1ppp3/N2Q2lp2/2P2P2La/4P1PWP1/PPL4P2/C6KNR/RW5B2 w - - 0 43",
    ),
    (
        "soho",
        "cw3kffwc/rn1q2ub1r/2pbpppNpp/pp6u1/3p1n4/8P1/2NU5P/PPPPPPPP2/RFBQ1K1BUR/CW3F2WC w KQ - 0 14",
    ),
    (
        "soho",
        "cwfbk2fwc/rn1u3unr/p2qp1p2p/8pb/1Pp2p1p2/4p1P1P1/10/PPFP1PBPWP/RN1UUK3R/CW1BQFN2C w KQ - 2 15",
    ),
];

/// The bench positions: for each registry variant its start position, the listed positions
/// and, for variants with none listed, two positions reached by seeded random playouts.
pub fn bench_positions(registry: &Registry) -> Vec<Position> {
    let mut out = Vec::new();
    for v in registry.iter() {
        out.push(Position::new(v.clone()));
        let mut listed = 0;
        for (name, fen) in POSITIONS {
            if *name == v.name()
                && let Ok(p) = Position::from_fen(v.clone(), fen)
            {
                out.push(p);
                listed += 1;
            }
        }
        if listed == 0 {
            for (plies, seed) in [(8, 1), (16, 2)] {
                out.push(random_playout(Position::new(v.clone()), plies, seed));
            }
        }
    }
    out
}

/// Plays up to `plies` pseudo-random legal moves (seeded), stopping early at a finished game.
pub fn random_playout(mut pos: Position, plies: usize, seed: u64) -> Position {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let m = moves[(state % moves.len() as u64) as usize];
        pos.play_unchecked(m);
    }
    pos
}
