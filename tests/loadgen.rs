//! The load generator (`tools/loadgen`) against a real in-process server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// The load generator against a real server: every `LegalMoves` answer is read and checked,
/// by both ways of reading (`--decode lean|full`), for both details, and none is wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loadgen_checks_every_legal_moves_answer() {
    use clap::Parser as _;
    let server = common::start().await;
    for (decode, detail) in [
        ("lean", "full"),
        ("full", "full"),
        ("lean", "uci"),
        ("full", "uci"),
    ] {
        let args = variant_loadgen::LoadgenArgs::parse_from([
            "variant-loadgen",
            "--target",
            &server.handle.url(),
            "--rpc",
            "legal_moves",
            "--decode",
            decode,
            "--legal-detail",
            detail,
            "--variants",
            "chess,orphic",
            "--walk-plies",
            "4",
            "--concurrency",
            "4",
            "--duration",
            "30",
            "--max-requests",
            "200",
            "--seed",
            "3",
        ]);
        let summary = variant_loadgen::run(&args).await.expect("loadgen runs");
        let legal = &summary.json["per_rpc"]["legal_moves"];
        eprintln!("{decode}/{detail}: {}", summary.text);
        assert_eq!(
            legal["codes"]["OK"], 200,
            "{decode}/{detail}: {}",
            summary.text
        );
        assert_eq!(legal["legal_moves_answers"], 200, "{decode}/{detail}");
        assert_eq!(legal["legal_moves_wrong"], 0, "{decode}/{detail}");
    }
}
