//! Move text as people and other programs write it, beyond the strict RULES.md form: long
//! algebraic (`Ng1f3`, `Ng1-f3`, `e2-e4`, `Qd8xh4`, `e7xd8=Q`), promotion letters with `=` or
//! in either case, uppercase coordinates (`E2E4`), castling as `O-O`/`0-0`/`O-O-O`/`0-0-0`,
//! and trailing check and annotation marks (`+`, `#`, `!`, `?`) on any of them. Also the parts
//! of a SAN text, which the refusal analysis and the SAN shape test share.
//!
//! Every parser here only reads shapes; matching against a position is the caller's job.

use crate::geometry::{BoardSize, Square};

/// The marks a move text may end with (check, mate, annotations), ignored when reading.
pub(crate) const SUFFIX_MARKS: [char; 4] = ['+', '#', '!', '?'];

/// A board move in long algebraic notation (or coordinates in any case).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct LongMove {
    /// The piece letter written before the origin (uppercase), if any.
    pub(crate) piece: Option<char>,
    /// Origin.
    pub(crate) from: Square,
    /// Destination.
    pub(crate) to: Square,
    /// Promotion letter, lowercase.
    pub(crate) promotion: Option<char>,
}

/// Splits a leading square off `s`: a file letter of the board (either case) and its rank,
/// one or two digits without a leading zero. Returns the square, whether its file letter was
/// uppercase, and the rest.
///
/// Taking every digit is never ambiguous: what follows a square is a letter, `-`, `x` or `=`,
/// so `a10a9` can only be a10 then a9.
fn take_square(s: &str, size: BoardSize) -> Option<(Square, bool, &str)> {
    let bytes = s.as_bytes();
    let first = *bytes.first()?;
    let file = first.to_ascii_lowercase().wrapping_sub(b'a');
    if !first.is_ascii_alphabetic() || file >= size.files {
        return None;
    }
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 2 || bytes[1] == b'0' {
        return None;
    }
    let rank: u8 = s[1..=digits].parse().ok()?;
    if !(1..=size.ranks).contains(&rank) {
        return None;
    }
    let sq = Square::from_coords(file, rank - 1)?;
    Some((sq, first.is_ascii_uppercase(), &s[1 + digits..]))
}

/// Parses long algebraic notation on a board of `size`: `[Piece]from[-|x]to[=][promotion]`
/// with optional suffix marks. Coordinates may be uppercase (`E2E4`, `E7E8=Q`) when both
/// squares are: `B1d3` is SAN (the bishop on rank 1 to d3), not the square b1.
pub(crate) fn parse_long(text: &str, size: BoardSize) -> Option<LongMove> {
    let s = text.trim_end_matches(SUFFIX_MARKS);
    if !s.is_ascii() {
        return None;
    }
    let bytes = s.as_bytes();
    // A square starts with a letter and a digit, so a leading uppercase letter followed by a
    // letter can only be a piece letter.
    let (piece, rest) = match bytes {
        [p, next, ..] if p.is_ascii_uppercase() && next.is_ascii_alphabetic() => {
            (Some(char::from(*p)), &s[1..])
        }
        _ => (None, s),
    };
    let (from, from_upper, rest) = take_square(rest, size)?;
    let rest = rest.strip_prefix(['-', 'x']).unwrap_or(rest);
    let (to, to_upper, rest) = take_square(rest, size)?;
    if from_upper != to_upper {
        return None;
    }
    let promotion = match rest.strip_prefix('=').unwrap_or(rest).as_bytes() {
        [] if !rest.starts_with('=') => None,
        [letter] if letter.is_ascii_alphabetic() => Some(char::from(letter.to_ascii_lowercase())),
        _ => return None,
    };
    Some(LongMove {
        piece,
        from,
        to,
        promotion,
    })
}

/// Castling text: `Some(true)` for the king side (`O-O`, `0-0`), `Some(false)` for the queen
/// side (`O-O-O`, `0-0-0`), with optional suffix marks.
pub(crate) fn parse_castling(text: &str) -> Option<bool> {
    match text.trim_end_matches(SUFFIX_MARKS) {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    }
}

/// The parts of a SAN board move (not castling, not a drop).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct SanParts {
    /// Piece letter (uppercase); `None` for a pawn.
    pub(crate) piece: Option<char>,
    /// The origin's file, when written.
    pub(crate) from_file: Option<u8>,
    /// The origin's rank (0-based), when written.
    pub(crate) from_rank: Option<u8>,
    /// Destination.
    pub(crate) to: Square,
    /// Promotion letter (uppercase), if written.
    pub(crate) promotion: Option<char>,
}

/// Reads `s` (normalised SAN: no suffix marks, no `=`) as
/// `[Piece][file][rank][x]<square>[Promotion]` on a board of `size`.
pub(crate) fn san_parts(s: &str, size: BoardSize) -> Option<SanParts> {
    if !s.is_ascii() {
        return None;
    }
    let is_file = |c: u8| c.is_ascii_lowercase() && c - b'a' < size.files;
    let rank_of = |digits: &str| -> Option<u8> {
        if digits.starts_with('0') {
            return None;
        }
        digits
            .parse::<u8>()
            .ok()
            .filter(|r| (1..=size.ranks).contains(r))
            .map(|r| r - 1)
    };
    let piece = s.chars().next().filter(char::is_ascii_uppercase);
    let mut core = if piece.is_some() { &s[1..] } else { s };
    let promotion = core.chars().last().filter(char::is_ascii_uppercase);
    if promotion.is_some() {
        core = &core[..core.len() - 1];
    }
    // The destination square ends the core: a file followed by one or two digits.
    let digits = core.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 2 || core.len() < digits + 1 {
        return None;
    }
    let (head, rank) = core.split_at(core.len() - digits);
    let (head, file) = head.split_at(head.len() - 1);
    let file = file.as_bytes()[0];
    if !is_file(file) {
        return None;
    }
    let to = Square::from_coords(file - b'a', rank_of(rank)?)?;
    // What precedes it: an optional origin file and/or rank, then an optional 'x'.
    let head = head.strip_suffix('x').unwrap_or(head);
    let (from_file, head) = match head.as_bytes().first() {
        Some(&c) if is_file(c) => (Some(c - b'a'), &head[1..]),
        _ => (None, head),
    };
    let from_rank = if head.is_empty() {
        None
    } else {
        Some(rank_of(head)?)
    };
    Some(SanParts {
        piece,
        from_file,
        from_rank,
        to,
        promotion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn long_algebraic_shapes() {
        let ten = BoardSize::TEN;
        let long = |piece, from, to, promotion| {
            Some(LongMove {
                piece,
                from: sq(from),
                to: sq(to),
                promotion,
            })
        };
        assert_eq!(parse_long("Ng1f3", ten), long(Some('N'), "g1", "f3", None));
        assert_eq!(
            parse_long("Ng1-f3+", ten),
            long(Some('N'), "g1", "f3", None)
        );
        assert_eq!(parse_long("e2-e4", ten), long(None, "e2", "e4", None));
        assert_eq!(
            parse_long("Qd8xh4#", ten),
            long(Some('Q'), "d8", "h4", None)
        );
        assert_eq!(
            parse_long("e7xd8=Q", ten),
            long(None, "e7", "d8", Some('q'))
        );
        assert_eq!(parse_long("E7E8=q", ten), long(None, "e7", "e8", Some('q')));
        assert_eq!(parse_long("E2E4", ten), long(None, "e2", "e4", None));
        assert_eq!(parse_long("a10a9", ten), long(None, "a10", "a9", None));
        assert_eq!(
            parse_long("Ra1-a10", ten),
            long(Some('R'), "a1", "a10", None)
        );
        assert_eq!(
            parse_long("h9-h10N", ten),
            long(None, "h9", "h10", Some('n'))
        );
        for not_long in [
            "Nbd7", "exd5", "R1d5", "B1d3", "e2", "e2-", "e2e4=", "e2e4qq", "a11a1", "a0a1",
            "Nxf3", "O-O", "N@e4", "é2e4",
        ] {
            assert_eq!(parse_long(not_long, ten), None, "{not_long}");
        }
        assert_eq!(parse_long("i1i2", BoardSize::EIGHT), None);
    }

    #[test]
    fn castling_shapes() {
        assert_eq!(parse_castling("O-O"), Some(true));
        assert_eq!(parse_castling("0-0+"), Some(true));
        assert_eq!(parse_castling("O-O-O!?"), Some(false));
        assert_eq!(parse_castling("0-0-0#"), Some(false));
        assert_eq!(parse_castling("O-0"), None);
    }

    #[test]
    fn san_parts_read_the_origin_hints() {
        let parts = san_parts("Nbxd7", BoardSize::EIGHT).unwrap();
        assert_eq!(
            (parts.piece, parts.from_file, parts.from_rank, parts.to),
            (Some('N'), Some(1), None, sq("d7"))
        );
        let parts = san_parts("R10a5", BoardSize::TEN).unwrap();
        assert_eq!((parts.from_file, parts.from_rank), (None, Some(9)));
        let parts = san_parts("exd8Q", BoardSize::EIGHT).unwrap();
        assert_eq!((parts.piece, parts.promotion), (None, Some('Q')));
    }
}
