//! Any string as FEN or move text yields a typed error, never a panic: arbitrary strings,
//! and fuzz-style mutations of valid FENs and move texts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use variant_engine::{Position, Registry};

const ALPHABET: &[u8] = b"pnbrqkwlcaufPNBRQKWLCAUF0123456789/[]- wb@,eE#xX=+\t";

fn mutate(base: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = base.as_bytes().to_vec();
    for &(pos, op, ch) in edits {
        let i = pos % (bytes.len() + 1);
        let c = ALPHABET[ch as usize % ALPHABET.len()];
        match op % 3 {
            0 if i < bytes.len() => bytes[i] = c,
            1 => bytes.insert(i, c),
            _ if i < bytes.len() => {
                bytes.remove(i);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Whatever parses must be a consistent position: printing and re-parsing is stable.
fn try_fen(text: &str) {
    let registry = Registry::builtin();
    for v in registry.iter() {
        if let Ok(pos) = Position::from_fen(v.clone(), text) {
            let again = Position::from_fen(v.clone(), &pos.fen()).unwrap();
            assert_eq!(again.fen(), pos.fen());
            let _ = pos.status();
            for m in pos.legal_moves().into_iter().take(5) {
                let _ = pos.san(m);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic_as_fen(s in ".{0,120}") {
        try_fen(&s);
    }

    #[test]
    fn mutated_start_fens_never_panic(which in 0usize..8, edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)) {
        let registry = Registry::builtin();
        let fens: Vec<String> = registry.iter().map(|v| v.start_fen().to_owned()).collect();
        try_fen(&mutate(&fens[which % fens.len()], &edits));
    }

    #[test]
    fn arbitrary_move_text_never_panics(s in ".{0,16}", which in 0usize..8) {
        let registry = Registry::builtin();
        let variants: Vec<_> = registry.iter().cloned().collect();
        let pos = Position::new(variants[which % variants.len()].clone());
        if let Ok(m) = pos.parse_move(&s) {
            prop_assert!(pos.legal_moves().contains(&m));
        }
    }

    #[test]
    fn mutated_move_text_never_panics(edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..4), which in 0usize..8) {
        let registry = Registry::builtin();
        let variants: Vec<_> = registry.iter().cloned().collect();
        let pos = Position::new(variants[which % variants.len()].clone());
        for base in ["e3e5", "h9h10n", "N@e4", "N@e3,c2", "Nf3", "O-O", "exd5=Q+"] {
            let text = mutate(base, &edits);
            if let Ok(m) = pos.parse_move(&text) {
                prop_assert!(pos.legal_moves().contains(&m));
            }
        }
    }
}

#[test]
fn malformed_fens_get_errors_that_name_the_problem() {
    let registry = Registry::builtin();
    let opulent = registry.get("opulent").unwrap();
    let cases = [
        ("", "empty"),
        ("rw6wr/clnbqkbnla w - - 0 1", "ranks"),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW7WR w - - 0 1",
            "rank 1",
        ),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLZ/RW6WR w - - 0 1",
            "'Z'",
        ),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR x - - 0 1",
            "side to move",
        ),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w KQ - 0 1",
            "rights",
        ),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - z9 0 1",
            "en-passant",
        ),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - - x 1",
            "half-move",
        ),
        (
            "rw6wr/clnbq1bnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - - 0 1",
            "kings",
        ),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR[Q] w - - 0 1",
            "pocket",
        ),
        (
            "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - - 0 1 extra",
            "fields",
        ),
    ];
    for (fen, needle) in cases {
        let err = Position::from_fen(opulent.clone(), fen)
            .expect_err(fen)
            .to_string();
        assert!(
            err.contains(needle),
            "error for {fen:?} is {err:?}, expected to mention {needle:?}"
        );
    }
    let chess = registry.get("chess").unwrap();
    let err = Position::from_fen(chess, "4k2R/8/8/8/8/8/8/4K3 w - - 0 1")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not to move is in check"), "{err}");
}

/// RULES.md, "Impossible positions are invalid FEN": one case per ruling, each with the words
/// its message must contain, and a valid neighbour that must still be accepted.
#[test]
fn impossible_positions_are_invalid_fen() {
    let registry = Registry::builtin();
    let rejected = [
        // A pawn on its own first rank (chess, Decima, Orphic).
        (
            "chess",
            "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            "a1 stands behind",
        ),
        (
            "chess",
            "p3k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "a8 stands behind",
        ),
        (
            "decima",
            "p9/10/10/10/10/10/10/10/10/K9 w - - 0 1",
            "a10 stands behind",
        ),
        (
            "orphic",
            "8/8/8/8/8/8/8/P7[QRRBBNNKqrrbbnnk] w LDld - 0 1",
            "a1 stands behind",
        ),
        // Opulent and SOHO: the first two ranks.
        (
            "opulent",
            "9k/10/10/10/10/10/10/10/4P5/K9 w - - 0 1",
            "e2 stands behind",
        ),
        (
            "soho",
            "9k/4p5/10/10/10/10/10/10/10/K9 w - - 0 1",
            "e9 stands behind",
        ),
        // The forced promotion rank (Opulent's is the tenth).
        (
            "opulent",
            "4P4k/10/10/10/10/10/10/10/10/K9 w - - 0 1",
            "last rank at e10",
        ),
        // Orphic: bishop-drop rights must match the bishops in hand.
        (
            "orphic",
            "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRBNNKqrrbbnnk] w LDld - 0 1",
            "White has 1 bishops in the pocket but 2",
        ),
        (
            "orphic",
            "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRBBNNKqrrbbnnk] w LDl - 0 1",
            "Black has 2 bishops in the pocket but 1",
        ),
        // Decima: no unit on either side.
        (
            "decima",
            "10/10/10/10/10/10/10/10/10/10 w - - 0 1",
            "neither side",
        ),
    ];
    for (variant, fen, needle) in rejected {
        let err = Position::from_fen(registry.get(variant).unwrap(), fen)
            .expect_err(fen)
            .to_string();
        assert!(err.contains(needle), "{variant} {fen}: {err}");
    }
    let accepted = [
        ("chess", "4k3/8/8/8/8/8/P7/4K3 w - - 0 1"),
        ("opulent", "9k/10/10/10/10/10/10/4P5/10/K9 w - - 0 1"),
        ("orphic", "8/8/8/8/8/8/P7/8[QRRBBNNKqrrbbnnk] w LDld - 0 1"),
        (
            "orphic",
            "8/8/pppppppp/8/8/PPPPPPPP/2B5/8[QRRBNNKqrrbbnnk] w Dld - 0 1",
        ),
        ("decima", "10/10/10/10/10/10/10/10/10/K9 w - - 0 1"),
    ];
    for (variant, fen) in accepted {
        assert!(
            Position::from_fen(registry.get(variant).unwrap(), fen).is_ok(),
            "{variant} {fen}"
        );
    }
}
