//! Helpers shared by the rule tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use variant_engine::{Position, Registry};

/// Parses `fen` for `variant`, panicking with the error.
pub fn pos(variant: &str, fen: &str) -> Position {
    let v = Registry::builtin().get(variant).unwrap();
    Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The start position of `variant`.
pub fn start(variant: &str) -> Position {
    Position::new(Registry::builtin().get(variant).unwrap())
}

/// Every legal move's text.
pub fn all_moves(p: &Position) -> BTreeSet<String> {
    p.legal_moves().into_iter().map(|m| p.uci(m)).collect()
}

/// Legal move texts starting at square `from` (board moves only).
pub fn moves_from(p: &Position, from: &str) -> BTreeSet<String> {
    p.legal_moves()
        .into_iter()
        .filter(|m| m.from().is_some_and(|f| f.to_string() == from))
        .map(|m| p.uci(m))
        .collect()
}

/// A set of move texts.
pub fn set(texts: &[&str]) -> BTreeSet<String> {
    texts.iter().map(|s| (*s).to_owned()).collect()
}

/// True when `text` is a legal move here.
pub fn legal(p: &Position, text: &str) -> bool {
    p.parse_uci(text).is_ok()
}

/// Plays the moves given as text, panicking on an illegal one.
pub fn play(p: &mut Position, texts: &[&str]) {
    for t in texts {
        let m = p.parse_move(t).unwrap_or_else(|e| panic!("{t}: {e}"));
        p.play(m);
    }
}
