//! The board field of a FEN from a list of pieces on squares, so that a test's squares can be
//! read off directly instead of being counted out of digit runs.
//!
//! Std only: the engine's unit tests include this same file (`#[path]` in `src/eval/mod.rs`),
//! as do the integration tests (through `common/mod.rs`).

/// The board field for a `files` x `ranks` board with `pieces` (`("e4", 'N')`: square, FEN
/// letter; uppercase is White) and every other square empty.
pub fn board_fen(files: usize, ranks: usize, pieces: &[(&str, char)]) -> String {
    let mut grid = vec![vec![None; files]; ranks];
    for &(sq, piece) in pieces {
        let file = usize::from(sq.as_bytes()[0] - b'a');
        let rank: usize = sq[1..].parse().expect("a rank number");
        let cell = &mut grid[rank - 1][file];
        assert!(cell.is_none(), "{sq}: square used twice");
        *cell = Some(piece);
    }
    let mut rows = Vec::new();
    for row in grid.iter().rev() {
        let mut text = String::new();
        let mut empty = 0;
        for cell in row {
            match cell {
                Some(p) => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push(*p);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        rows.push(text);
    }
    rows.join("/")
}
