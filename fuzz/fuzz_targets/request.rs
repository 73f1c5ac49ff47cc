//! Fuzz target: arbitrary bytes as every request message the server decodes (LegalMoves,
//! ApplyMove, BestMove, Perft), run through the service's own validation, conversion and
//! engine calls (`variant_service::fuzz::handle_request`). Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = variant_service::fuzz::handle_request(data);
});
