//! Standard algebraic notation (SAN), output and lenient input.
//!
//! Pieces use their variant letters; files and ranks as on the board (`a10`); promotions
//! `=Q`; castling `O-O` / `O-O-O`; drops `N@e4` (with `,c2` for a relocated pawn); `+` for
//! check and `#` for mate.

use crate::moves::{Move, MoveKind};
use crate::notation::text::{MoveError, MoveTextError};
use crate::position::Position;
use crate::status::{GameStatus, Termination};

impl Position {
    /// SAN of the legal move `m`, with check or mate suffix.
    pub fn san(&self, m: Move) -> String {
        let legal = self.legal_moves();
        let mut s = self.san_body(m, &legal);
        s.push_str(self.clone().check_suffix(m));
        s
    }

    /// `"#"`, `"+"` or `""` for the legal move `m`, found by playing it on `self` and taking
    /// it back.
    fn check_suffix(&mut self, m: Move) -> &'static str {
        self.play_unchecked(m);
        let suffix = match self.status() {
            GameStatus::Finished {
                reason: Termination::Checkmate | Termination::CheckUnanswered,
                ..
            } => "#",
            _ if self.in_check() => "+",
            _ => "",
        };
        self.unmake();
        suffix
    }

    fn san_without_suffix(&self, m: Move) -> String {
        self.san_body(m, &self.legal_moves())
    }

    /// SAN without suffix; `legal` is this position's legal move list (for disambiguation).
    fn san_body(&self, m: Move, legal: &[Move]) -> String {
        let v = &*self.variant;
        match m.kind() {
            MoveKind::Castle { from, to } => if to > from { "O-O" } else { "O-O-O" }.to_owned(),
            MoveKind::Drop { .. } => self.uci(m),
            MoveKind::EnPassant { from, to } => format!("{}x{to}", file_char(from.file())),
            MoveKind::Normal { from, to } | MoveKind::Promotion { from, to, .. } => {
                let Some(piece) = self.piece_at(from) else {
                    return self.uci(m);
                };
                let capture = self.piece_at(to).is_some();
                let mut s = String::new();
                if Some(piece.kind()) == v.pawn {
                    if capture {
                        s.push(file_char(from.file()));
                        s.push('x');
                    }
                    s.push_str(&to.to_string());
                } else {
                    s.push(v.piece(piece.kind()).letter);
                    let rivals: Vec<_> = legal
                        .iter()
                        .filter_map(|o| match o.kind() {
                            MoveKind::Normal { from: f, to: t } if t == to && f != from => Some(f),
                            _ => None,
                        })
                        .filter(|f| self.piece_at(*f) == Some(piece))
                        .collect();
                    if !rivals.is_empty() {
                        if rivals.iter().all(|f| f.file() != from.file()) {
                            s.push(file_char(from.file()));
                        } else if rivals.iter().all(|f| f.rank() != from.rank()) {
                            s.push_str(&(from.rank() + 1).to_string());
                        } else {
                            s.push_str(&from.to_string());
                        }
                    }
                    if capture {
                        s.push('x');
                    }
                    s.push_str(&to.to_string());
                }
                if let Some(kind) = m.promotion_kind() {
                    s.push('=');
                    s.push(v.piece(kind).letter);
                }
                s
            }
        }
    }

    /// Parses SAN leniently (check marks, annotations, `=` and `0-0` optional) and checks
    /// legality.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when the text has no SAN shape, [`MoveError::Illegal`] when no
    /// legal move has this SAN.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let normalize = |s: &str| -> String {
            s.trim_end_matches(['+', '#', '!', '?'])
                .replace("0-0", "O-O")
                .chars()
                .filter(|&c| c != '=')
                .collect()
        };
        let wanted = normalize(text);
        let shaped = !wanted.is_empty()
            && wanted.is_ascii()
            && wanted
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "x-@,".contains(c));
        if !shaped {
            return Err(MoveError::Syntax(MoveTextError::Syntax(text.to_owned())));
        }
        self.legal_moves()
            .into_iter()
            .find(|&m| normalize(&self.san_without_suffix(m)) == wanted)
            .ok_or_else(|| MoveError::Illegal {
                text: text.to_owned(),
                fen: self.fen(),
            })
    }
}

fn file_char(file: u8) -> char {
    (b'a' + file) as char
}

/// A move spelled out for clients: text, SAN and its parts.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MoveDescription {
    /// Move text in RULES.md notation.
    pub uci: String,
    /// SAN with check/mate suffix.
    pub san: String,
    /// Origin square; `None` for drops.
    pub from: Option<String>,
    /// Destination (drop square for drops).
    pub to: String,
    /// Promotion letter (lowercase), if any.
    pub promotion: Option<char>,
    /// Dropped piece letter (uppercase), if a drop.
    pub drop: Option<char>,
    /// Where a displaced friendly pawn goes, for relocation drops.
    pub relocation: Option<String>,
    /// True when the move captures (en passant included).
    pub capture: bool,
    /// True when the move gives check (or mates).
    pub check: bool,
}

impl Position {
    /// Describes the legal move `m`.
    pub fn describe(&self, m: Move) -> MoveDescription {
        let legal = self.legal_moves();
        self.describe_with(m, &legal, &mut self.clone())
    }

    /// Every legal move with its description, computed with one move list and one scratch
    /// copy of the position (`describe` on each move would redo both per move).
    pub fn describe_moves(&self) -> Vec<(Move, MoveDescription)> {
        let legal = self.legal_moves();
        let mut scratch = self.clone();
        legal
            .iter()
            .map(|&m| (m, self.describe_with(m, &legal, &mut scratch)))
            .collect()
    }

    fn describe_with(&self, m: Move, legal: &[Move], scratch: &mut Self) -> MoveDescription {
        let v = &*self.variant;
        let mut san = self.san_body(m, legal);
        san.push_str(scratch.check_suffix(m));
        let (drop, relocation) = match m.kind() {
            MoveKind::Drop {
                kind, relocation, ..
            } => (
                Some(v.piece(kind).letter),
                relocation.map(|r| r.to_string()),
            ),
            _ => (None, None),
        };
        MoveDescription {
            uci: self.uci(m),
            check: san.ends_with('+') || san.ends_with('#'),
            san,
            from: m.from().map(|f| f.to_string()),
            to: m.to().to_string(),
            promotion: m
                .promotion_kind()
                .map(|k| v.piece(k).letter.to_ascii_lowercase()),
            drop,
            relocation,
            capture: self.is_capture(m),
        }
    }

    /// True when `m` captures something.
    pub fn is_capture(&self, m: Move) -> bool {
        match m.kind() {
            MoveKind::EnPassant { .. } => true,
            MoveKind::Normal { to, .. } | MoveKind::Promotion { to, .. } => {
                self.piece_at(to).is_some()
            }
            MoveKind::Castle { .. } | MoveKind::Drop { .. } => false,
        }
    }
}
