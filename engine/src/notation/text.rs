//! Move text in the RULES.md notation (UCI style): `e3e5`, `h9h10n`, `N@e4`, `N@e3,c2`;
//! castling is written as the king's move (`f2h2`).

use crate::geometry::{BoardSize, ParseSquareError, Square};
use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::quote::quote;

use super::refusal::{IllegalReason, Intent, MoveRefusal};

/// Longest move text: a relocation drop on a 10x10 board, `N@a10,b10`.
pub(crate) const UCI_MAX_LEN: usize = 9;

/// Move text, parsed but not yet matched against a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveText {
    /// `from` `to` and an optional promotion letter.
    Board {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
        /// Promotion letter, lowercase.
        promotion: Option<char>,
    },
    /// `X@sq` with an optional `,relocation`.
    Drop {
        /// Piece letter, uppercase.
        letter: char,
        /// Drop square.
        to: Square,
        /// Where the friendly pawn on `to` goes.
        relocation: Option<Square>,
    },
}

/// Why move text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// Empty text.
    #[error("empty move text")]
    Empty,
    /// Text of the wrong shape.
    #[error(
        "unparsable move text {} (expected e.g. e3e5, h9h10n, N@e4 or N@e3,c2, or SAN)",
        quote(.0)
    )]
    Syntax(String),
    /// A square outside the board.
    #[error("move text {}: {source}", quote(.text))]
    Square {
        /// The whole text.
        text: String,
        /// The square error.
        source: ParseSquareError,
    },
}

/// Why a move was rejected in a position.
///
/// The message says why in words; [`MoveError::reason`] gives the same as a stable code.
///
/// # Examples
/// ```
/// use variant_engine::{IllegalReason, MoveError, MoveRefusal, Position, Registry};
/// let pos = Position::new(Registry::builtin().get("chess").unwrap());
/// let err = pos.parse_move("Ng1g3").unwrap_err();
/// assert_eq!(err.reason(), MoveRefusal::PieceCannotMoveThere);
/// assert!(err.to_string().ends_with("the knight on g1 cannot move to g3"), "{err}");
/// assert!(matches!(
///     pos.parse_move("Bg1f3").unwrap_err(),
///     MoveError::Illegal { reason: IllegalReason::WrongPiece { .. }, .. }
/// ));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text does not parse.
    #[error(transparent)]
    Syntax(#[from] MoveTextError),
    /// The text parses but names no legal move here.
    #[error("illegal move {} in position {fen}: {reason}", quote(.text))]
    Illegal {
        /// The move text.
        text: String,
        /// The position's FEN.
        fen: String,
        /// Why it is not legal.
        reason: IllegalReason,
    },
}

impl MoveError {
    /// The machine-readable reason: [`MoveRefusal::Unparsable`] for text of no move's shape,
    /// else the code of the [`IllegalReason`].
    pub fn reason(&self) -> MoveRefusal {
        match self {
            Self::Syntax(_) => MoveRefusal::Unparsable,
            Self::Illegal { reason, .. } => reason.code(),
        }
    }
}

/// Splits leading `[a-z][0-9]{1,2}` off `s`.
fn split_square(s: &str) -> Option<(&str, &str)> {
    let bytes = s.as_bytes();
    if bytes.is_empty() || !bytes[0].is_ascii_lowercase() {
        return None;
    }
    let digits = bytes[1..]
        .iter()
        .take(2)
        .take_while(|b| b.is_ascii_digit())
        .count();
    (digits > 0).then(|| s.split_at(1 + digits))
}

impl MoveText {
    /// Parses move text for a board of `size`.
    ///
    /// # Errors
    /// [`MoveTextError`] when the text has the wrong shape or names squares off the board.
    pub fn parse(text: &str, size: BoardSize) -> Result<Self, MoveTextError> {
        let syntax = || MoveTextError::Syntax(text.to_owned());
        let square = |s: &str| {
            size.parse_square(s)
                .map_err(|source| MoveTextError::Square {
                    text: text.to_owned(),
                    source,
                })
        };
        if text.is_empty() {
            return Err(MoveTextError::Empty);
        }
        if !text.is_ascii() {
            return Err(syntax());
        }
        if let Some((head, rest)) = text.split_once('@') {
            let mut letters = head.chars();
            let letter = match (letters.next(), letters.next()) {
                (Some(l), None) if l.is_ascii_alphabetic() => l.to_ascii_uppercase(),
                _ => return Err(syntax()),
            };
            let (to, relocation) = match rest.split_once(',') {
                Some((to, r)) => (to, Some(r)),
                None => (rest, None),
            };
            return Ok(Self::Drop {
                letter,
                to: square(to)?,
                relocation: relocation.map(square).transpose()?,
            });
        }
        let (from, rest) = split_square(text).ok_or_else(syntax)?;
        let (to, rest) = split_square(rest).ok_or_else(syntax)?;
        let promotion = match rest.len() {
            0 => None,
            1 if rest.as_bytes()[0].is_ascii_alphabetic() => {
                Some(rest.as_bytes()[0].to_ascii_lowercase() as char)
            }
            _ => return Err(syntax()),
        };
        Ok(Self::Board {
            from: square(from)?,
            to: square(to)?,
            promotion,
        })
    }
}

impl Position {
    /// The move text of `m` in RULES.md notation.
    pub fn uci(&self, m: Move) -> String {
        let mut s = String::with_capacity(UCI_MAX_LEN);
        self.write_uci(m, &mut s);
        s
    }

    /// Appends the move text of `m` to `out`, so callers describing many moves can reuse one
    /// buffer (square names come from a table; no formatting machinery).
    pub fn write_uci(&self, m: Move, out: &mut String) {
        let v = &*self.variant;
        match m.kind() {
            MoveKind::Normal { from, to }
            | MoveKind::EnPassant { from, to }
            | MoveKind::Castle { from, to } => {
                out.push_str(from.name());
                out.push_str(to.name());
            }
            MoveKind::Promotion { from, to, kind } => {
                out.push_str(from.name());
                out.push_str(to.name());
                out.push(v.piece(kind).letter.to_ascii_lowercase());
            }
            MoveKind::Drop {
                kind,
                to,
                relocation,
            } => {
                out.push(v.piece(kind).letter);
                out.push('@');
                out.push_str(to.name());
                if let Some(r) = relocation {
                    out.push(',');
                    out.push_str(r.name());
                }
            }
        }
    }

    /// Parses move text in RULES.md notation and matches it against the legal moves.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] for unparsable text, [`MoveError::Illegal`] when it names no
    /// legal move.
    pub fn parse_uci(&self, text: &str) -> Result<Move, MoveError> {
        let parsed = MoveText::parse(text, self.variant.size())?;
        self.find_text_move(parsed)
            .ok_or_else(|| self.refuse(text, parsed.intent()))
    }

    /// The legal move `parsed` names, if any.
    pub(crate) fn find_text_move(&self, parsed: MoveText) -> Option<Move> {
        let v = &*self.variant;
        // The text names its squares (and pieces) in full, so at most three moves can match it;
        // `is_legal` decides each without listing every legal move (replaying a request's move
        // list asks this for every move). Move texts are unique among the legal moves, so at
        // most one candidate is legal.
        let candidates: [Option<Move>; 3] = match parsed {
            MoveText::Board {
                from,
                to,
                promotion: Some(letter),
            } => [
                v.kind_by_letter(letter.to_ascii_uppercase())
                    .map(|kind| Move::promotion(from, to, kind)),
                None,
                None,
            ],
            MoveText::Board {
                from,
                to,
                promotion: None,
            } => [
                Some(Move::normal(from, to)),
                Some(Move::en_passant(from, to)),
                Some(Move::castle(from, to)),
            ],
            MoveText::Drop {
                letter,
                to,
                relocation,
            } => [
                v.kind_by_letter(letter)
                    .map(|kind| Move::drop(kind, to, relocation)),
                None,
                None,
            ],
        };
        candidates.into_iter().flatten().find(|&m| self.is_legal(m))
    }

    /// The error for `text`, which asked for `intent` and names no legal move: the failure
    /// path, where the reason is worked out.
    pub(crate) fn refuse(&self, text: &str, intent: Intent) -> MoveError {
        MoveError::Illegal {
            text: text.to_owned(),
            fen: self.fen(),
            reason: self.explain(intent),
        }
    }
}

impl MoveText {
    /// What this text asks for, for the refusal analysis.
    pub(crate) fn intent(self) -> Intent {
        match self {
            MoveText::Board {
                from,
                to,
                promotion,
            } => Intent::Board {
                piece: None,
                from,
                to,
                promotion,
            },
            MoveText::Drop {
                letter,
                to,
                relocation,
            } => Intent::Drop {
                letter,
                to,
                relocation,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        let ten = BoardSize::TEN;
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert_eq!(
            MoveText::parse("h9h10n", ten).unwrap(),
            MoveText::Board {
                from: sq("h9"),
                to: sq("h10"),
                promotion: Some('n')
            }
        );
        assert_eq!(
            MoveText::parse("a10a9", ten).unwrap(),
            MoveText::Board {
                from: sq("a10"),
                to: sq("a9"),
                promotion: None
            }
        );
        assert_eq!(
            MoveText::parse("N@e3,c2", BoardSize::EIGHT).unwrap(),
            MoveText::Drop {
                letter: 'N',
                to: sq("e3"),
                relocation: Some(sq("c2"))
            }
        );
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "", "e", "e2", "e2e", "e2e4qq", "e2-e4", "@e4", "NN@e4", "N@", "N@e4,", "é2e4", "z1a1",
            "a11a1",
        ] {
            assert!(MoveText::parse(bad, BoardSize::TEN).is_err(), "{bad}");
        }
        assert!(MoveText::parse("i1i2", BoardSize::EIGHT).is_err());
    }
}
