//! Helpers shared by the engine's integration tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

mod board;

pub use board::board_fen;

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

use variant_engine::{Color, Position, Registry, Square, Variant};

/// One registry for every test of a crate: positions compare equal only within the same
/// `Arc<Variant>`, and building the registry for each position would be slow.
static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::builtin);

/// The built-in variant called `name` (shared, see [`REGISTRY`]).
pub fn variant(name: &str) -> Arc<Variant> {
    REGISTRY.get(name).unwrap()
}

/// Parses `fen` for `variant`, panicking with the error.
pub fn pos(variant_name: &str, fen: &str) -> Position {
    Position::from_fen(variant(variant_name), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The start position of `variant`.
pub fn start(variant_name: &str) -> Position {
    Position::new(variant(variant_name))
}

/// The square called `text`.
pub fn sq(text: &str) -> Square {
    text.parse().unwrap()
}

/// The FEN letter on `square`, uppercase for White (`None` when empty).
pub fn letter_at(p: &Position, square: &str) -> Option<char> {
    p.piece_at(sq(square)).map(|piece| {
        let letter = p.variant().piece(piece.kind()).letter;
        match piece.color() {
            Color::White => letter,
            Color::Black => letter.to_ascii_lowercase(),
        }
    })
}

/// The board field of a FEN from a piece list such as `"Ka1 pe9"` (letter, then square;
/// uppercase is White): [`board_fen`] with the list written as text.
pub fn board(files: u8, ranks: u8, pieces: &str) -> String {
    let pieces: Vec<(&str, char)> = pieces
        .split_whitespace()
        .map(|token| {
            let letter = token.chars().next().unwrap();
            (&token[letter.len_utf8()..], letter)
        })
        .collect();
    board_fen(usize::from(files), usize::from(ranks), &pieces)
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
        let m = p
            .parse_move(t)
            .unwrap_or_else(|e| panic!("{t} in {}: {e}", p.fen()));
        p.play(m);
    }
}
