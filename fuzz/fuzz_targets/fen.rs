//! Fuzz target: any bytes as a FEN for every variant. Parsing must never panic, and whatever
//! parses must print back to a FEN that parses to the same position.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use variant_engine::{Position, Registry};

static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::builtin);

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for variant in REGISTRY.iter() {
        if let Ok(pos) = Position::from_fen(variant.clone(), &text) {
            let fen = pos.fen();
            let again = Position::from_fen(variant.clone(), &fen).expect("printed FEN parses");
            assert_eq!(again.fen(), fen);
            assert_eq!(pos.hash(), pos.compute_hash());
            let moves = pos.legal_moves();
            assert_eq!(moves.len() as u64, pos.count_legal_moves());
            for m in moves.into_iter().take(8) {
                let _ = pos.san(m);
                assert_eq!(pos.parse_move(&pos.uci(m)).ok(), Some(m));
            }
            let _ = pos.status();
        }
    }
});
