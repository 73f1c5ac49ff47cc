//! Fuzz target: any bytes as move text (UCI-style or SAN) in the start position of every
//! variant. Parsing must never panic, and whatever parses must be a legal move.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use variant_engine::{Position, Registry};

static STARTS: LazyLock<Vec<Position>> =
    LazyLock::new(|| Registry::builtin().iter().map(|v| Position::new(v.clone())).collect());

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for pos in STARTS.iter() {
        if let Ok(m) = pos.parse_move(&text) {
            assert!(pos.legal_moves().contains(&m), "{text:?} parsed to an illegal move");
        }
    }
});
