//! Perft against reference counts read from `tests/data/*.tsv` (never pasted into code).
//!
//! Opulent and SOHO counts come from Fairy-Stockfish on the same FENs (see each file's
//! header); orthodox chess from the chessprogramming wiki. Rows up to [`QUICK_LIMIT`] nodes run
//! in the default test run; every row runs with `cargo test --release -- --ignored`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use variant_engine::{Position, Registry, divide, perft};

/// Largest node count checked in the default (debug-friendly) run.
const QUICK_LIMIT: u64 = 3_000_000;

struct Row {
    fen: String,
    depth: u32,
    nodes: u64,
}

fn rows(file: &str) -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows: Vec<Row> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("fen\t") && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 3, "bad row in {file}: {l}");
            Row {
                fen: cols[0].to_owned(),
                depth: cols[1].parse().expect("depth"),
                nodes: cols[2].parse().expect("nodes"),
            }
        })
        .collect();
    assert!(rows.len() >= 4, "{file} has too few rows");
    rows
}

fn check(variant: &str, file: &str, limit: u64) {
    let registry = Registry::builtin();
    let v = registry.get(variant).unwrap();
    let mut checked = 0;
    for row in rows(file).into_iter().filter(|r| r.nodes <= limit) {
        let mut pos =
            Position::from_fen(v.clone(), &row.fen).unwrap_or_else(|e| panic!("{}: {e}", row.fen));
        let got = perft(&mut pos, row.depth);
        assert_eq!(
            got, row.nodes,
            "{variant} perft({}) of {}",
            row.depth, row.fen
        );
        if row.depth <= 3 {
            let split: u64 = divide(&mut pos, row.depth).iter().map(|(_, n)| n).sum();
            assert_eq!(split, row.nodes, "divide sum, {}", row.fen);
        }
        checked += 1;
    }
    assert!(checked > 0, "no rows of {file} under the limit");
}

#[test]
fn chess_reference_counts() {
    check("chess", "chess.tsv", QUICK_LIMIT);
}

#[test]
fn opulent_reference_counts() {
    check("opulent", "opulent.tsv", QUICK_LIMIT);
}

#[test]
fn soho_reference_counts() {
    check("soho", "soho.tsv", QUICK_LIMIT);
}

#[test]
fn soho_pieces_reference_counts() {
    check("soho", "soho-pieces.tsv", QUICK_LIMIT);
}

#[test]
#[ignore = "deep rows: run with cargo test --release -- --ignored"]
fn all_reference_counts_deep() {
    check("chess", "chess.tsv", u64::MAX);
    check("opulent", "opulent.tsv", u64::MAX);
    check("soho", "soho.tsv", u64::MAX);
    check("soho", "soho-pieces.tsv", u64::MAX);
}
