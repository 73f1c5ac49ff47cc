//! Fuzz target: arbitrary bytes as every request message the server decodes (LegalMoves,
//! ApplyMove, BestMove, Perft), run through the service's own validation, conversion and
//! engine calls (`fuzz/src/request.rs`). Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/request.rs"]
mod request;

fuzz_target!(|data: &[u8]| {
    let _ = request::handle_request(data);
});
