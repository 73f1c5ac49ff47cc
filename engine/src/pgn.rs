//! PGN text: the tag section and SAN movetext with move numbers, comments and line wrapping,
//! written once for the match runner's game records and the service's `ReplayGame`.

use std::fmt::Write as _;

/// Longest movetext line (PGN's export format asks for at most 79 characters).
const LINE_WIDTH: usize = 79;

/// Side to move and full-move number of a FEN (for numbering the first move).
fn fen_move_number(fen: &str) -> (bool, u32) {
    let mut fields = fen.split_whitespace().skip(1);
    let black = fields.next() == Some("b");
    let number = fields.nth(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    (black, number)
}

/// A game as PGN (ending with a blank line).
///
/// `tags` are written in order, their values escaped; `start_fen` numbers the first move (an
/// ellipsis when Black moves first); each move is its SAN with an optional comment (written in
/// braces after it); `closing` is an optional comment before the result, `result` the result
/// token (`1-0`, `0-1`, `1/2-1/2` or `*`).
///
/// # Examples
/// ```
/// let pgn = variant_engine::write_pgn(
///     &[("Result", "0-1")],
///     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
///     [("f3", None), ("e5", None), ("g4", None), ("Qh4#", Some("mate"))],
///     None,
///     "0-1",
/// );
/// assert_eq!(pgn, "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# {mate} 0-1\n\n");
/// ```
pub fn write_pgn<S: AsRef<str>, C: AsRef<str>>(
    tags: &[(&str, &str)],
    start_fen: &str,
    moves: impl IntoIterator<Item = (S, Option<C>)>,
    closing: Option<&str>,
    result: &str,
) -> String {
    let mut s = String::new();
    for (name, value) in tags {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(s, "[{name} \"{value}\"]");
    }
    s.push('\n');
    let mut line = String::new();
    let mut push = |word: &str, s: &mut String| {
        if !line.is_empty() && line.len() + 1 + word.len() > LINE_WIDTH {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    };
    let (mut black, mut number) = fen_move_number(start_fen);
    let mut first = true;
    for (san, comment) in moves {
        if !black {
            push(&format!("{number}."), &mut s);
        } else if first {
            push(&format!("{number}..."), &mut s);
        }
        first = false;
        push(san.as_ref(), &mut s);
        if let Some(c) = comment {
            push(&format!("{{{}}}", c.as_ref()), &mut s);
        }
        if black {
            number += 1;
        }
        black = !black;
    }
    if let Some(c) = closing {
        push(&format!("{{{c}}}"), &mut s);
    }
    push(result, &mut s);
    s.push_str(&line);
    s.push_str("\n\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn black_first_gets_an_ellipsis_and_long_games_wrap() {
        let pgn = write_pgn(
            &[("Event", "a \"quoted\" \\ name")],
            "8/8/8/8/8/8/8/8 b - - 0 12",
            std::iter::repeat_n(("Kd7", None::<&str>), 60),
            Some("fifty-move rule"),
            "1/2-1/2",
        );
        assert!(pgn.starts_with("[Event \"a \\\"quoted\\\" \\\\ name\"]\n\n12... Kd7 13. Kd7"));
        assert!(pgn.lines().all(|l| l.len() <= LINE_WIDTH), "{pgn}");
        assert!(pgn.ends_with("{fifty-move rule} 1/2-1/2\n\n"), "{pgn}");
        assert_eq!(fen_move_number("x w - - 0 7"), (false, 7));
        assert_eq!(fen_move_number("x"), (false, 1));
    }
}
