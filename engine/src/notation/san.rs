//! Standard algebraic notation (SAN), output and lenient input.
//!
//! Pieces use their variant letters; files and ranks as on the board (`a10`); promotions
//! `=Q`; castling `O-O` / `O-O-O`; drops `N@e4` (with `,c2` for a relocated pawn); `+` for
//! check and `#` for mate.

use crate::bitboard::Bitboard;
use crate::geometry::{SQUARE_COUNT, Square};
use crate::moves::{Move, MoveKind};
use crate::notation::lenient::{SUFFIX_MARKS, parse_castling, san_parts};
use crate::notation::refusal::Intent;
use crate::notation::text::{MoveError, MoveText, MoveTextError, UCI_MAX_LEN};
use crate::outcome::{GameStatus, Termination};
use crate::piece::Piece;
use crate::position::Position;

/// For every destination square, the origins of the plain (not promotion, castling or en
/// passant) legal moves landing there: SAN disambiguation reads a move's rivals from here
/// instead of scanning the whole move list once per move, which was quadratic in the move count
/// (Orphic positions have hundreds of drops).
struct Rivals {
    origins: [Bitboard; SQUARE_COUNT],
}

impl Rivals {
    fn new(legal: &[Move]) -> Self {
        let mut origins = [Bitboard::EMPTY; SQUARE_COUNT];
        for m in legal {
            if let MoveKind::Normal { from, to } = m.kind() {
                origins[to.index()] = origins[to.index()].with(from);
            }
        }
        Rivals { origins }
    }

    /// Origins of the other pieces like `piece` (same colour and kind) that can also move
    /// plainly to `to`.
    fn of(&self, pos: &Position, piece: Piece, from: Square, to: Square) -> Bitboard {
        self.origins[to.index()].without(from) & pos.pieces_of(piece.color(), piece.kind())
    }
}

/// The file letter of `sq` (the first character of its name).
fn file_str(sq: Square) -> &'static str {
    &sq.name()[..1]
}

/// The rank number of `sq` (its name after the file letter).
fn rank_str(sq: Square) -> &'static str {
    &sq.name()[1..]
}

/// Longest SAN in practice: a fully disambiguated capture with promotion and mate on a 10x10
/// board, `Qa10xb10=Q#` (a capacity hint only).
const SAN_MAX_LEN: usize = 12;

impl Position {
    /// SAN of the legal move `m`, with check or mate suffix.
    pub fn san(&self, m: Move) -> String {
        let legal = self.legal_moves();
        let mut s = String::with_capacity(SAN_MAX_LEN);
        self.write_san_body(m, &Rivals::new(&legal), &mut s);
        s.push_str(self.clone().check_suffix(m));
        s
    }

    /// `"#"`, `"+"` or `""` for the legal move `m`, found by playing it on `self` and taking
    /// it back.
    fn check_suffix(&mut self, m: Move) -> &'static str {
        // Most moves cannot check by their geometry alone (nor any move while the enemy king
        // is still in the pocket); only the rest are played.
        if !self.move_may_give_check(m) {
            return "";
        }
        self.play_unchecked(m);
        // `status()` counts the legal replies, a whole move generation; a mate needs the side
        // to move in check, so only checking moves pay for it. Without this shortcut SAN for
        // every move was about half of a LegalMoves call (perf profile of the server).
        let suffix = if !self.in_check() {
            ""
        } else if let GameStatus::Finished {
            reason: Termination::Checkmate | Termination::CheckUnanswered,
            ..
        } = self.status()
        {
            "#"
        } else {
            "+"
        };
        self.unmake();
        suffix
    }

    /// Appends the SAN of `m` without suffix to `out`; `rivals` comes from this position's
    /// legal move list (for disambiguation).
    fn write_san_body(&self, m: Move, rivals: &Rivals, out: &mut String) {
        let v = &*self.variant;
        match m.kind() {
            MoveKind::Castle { from, to } => out.push_str(if to > from { "O-O" } else { "O-O-O" }),
            MoveKind::Drop { .. } => self.write_uci(m, out),
            MoveKind::EnPassant { from, to } => {
                out.push_str(file_str(from));
                out.push('x');
                out.push_str(to.name());
            }
            MoveKind::Normal { from, to } | MoveKind::Promotion { from, to, .. } => {
                let Some(piece) = self.piece_at(from) else {
                    self.write_uci(m, out);
                    return;
                };
                let capture = self.piece_at(to).is_some();
                if Some(piece.kind()) == v.pawn {
                    if capture {
                        out.push_str(file_str(from));
                        out.push('x');
                    }
                } else {
                    out.push(v.piece(piece.kind()).letter);
                    let rivals = rivals.of(self, piece, from, to);
                    if rivals.any() {
                        if rivals.into_iter().all(|f| f.file() != from.file()) {
                            out.push_str(file_str(from));
                        } else if rivals.into_iter().all(|f| f.rank() != from.rank()) {
                            out.push_str(rank_str(from));
                        } else {
                            out.push_str(from.name());
                        }
                    }
                    if capture {
                        out.push('x');
                    }
                }
                out.push_str(to.name());
                if let Some(kind) = m.promotion_kind() {
                    out.push('=');
                    out.push(v.piece(kind).letter);
                }
            }
        }
    }

    /// Parses SAN leniently (check marks, annotations, `=` and `0-0` optional; a missing `x`
    /// or more disambiguation than needed are accepted when exactly one legal move fits) and
    /// checks legality.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when the text has no SAN shape, [`MoveError::Illegal`] with the
    /// reason when no legal move has this SAN (or several fit it).
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let normalize = |s: &str| -> String {
            s.trim_end_matches(SUFFIX_MARKS)
                .chars()
                .filter(|&c| c != '=')
                .collect()
        };
        let wanted = match parse_castling(text) {
            Some(true) => "O-O".to_owned(),
            Some(false) => "O-O-O".to_owned(),
            None => normalize(text),
        };
        let size = self.variant.size();
        if !san_shaped(&wanted, size) {
            return Err(MoveError::Syntax(MoveTextError::Syntax(text.to_owned())));
        }
        let legal = self.legal_moves();
        let rivals = Rivals::new(&legal);
        let mut body = String::with_capacity(SAN_MAX_LEN);
        if let Some(m) = legal.iter().copied().find(|&m| {
            body.clear();
            self.write_san_body(m, &rivals, &mut body);
            normalize(&body) == wanted
        }) {
            return Ok(m);
        }
        // The failure path: read the text by its parts to accept what fits one move only, or
        // to say why it fits none.
        let intent = if let Some(king_side) = parse_castling(&wanted) {
            Intent::Castle { king_side }
        } else if let Ok(drop) = MoveText::parse(&wanted, size) {
            drop.intent()
        } else if let Some(parts) = san_parts(&wanted, size) {
            if let [m] = self.san_fits(parts, &legal)[..] {
                return Ok(m);
            }
            Intent::San(parts)
        } else {
            return Err(MoveError::Syntax(MoveTextError::Syntax(text.to_owned())));
        };
        Err(self.refuse(text, intent))
    }
}

/// True when `s` (normalised: no suffix, no `=`) has the shape of SAN on a board of `size`:
/// castling, a drop, or `[Piece][file][rank][x]<square>[Promotion]`, with files and ranks on
/// the board.
fn san_shaped(s: &str, size: crate::BoardSize) -> bool {
    if s == "O-O" || s == "O-O-O" {
        return true;
    }
    if s.contains('@') {
        // Drops are written the same in SAN and move text.
        return MoveText::parse(s, size).is_ok();
    }
    san_parts(s, size).is_some()
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

/// A move spelled out like [`MoveDescription`], but borrowing its text from the square-name
/// table and a scratch buffer, so a caller that copies it into its own type (the service's
/// protobuf `Move`) allocates each field once and builds no intermediate list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MoveDescriptionRef<'a> {
    /// Move text in RULES.md notation.
    pub uci: &'a str,
    /// SAN with check/mate suffix.
    pub san: &'a str,
    /// Origin square; `None` for drops.
    pub from: Option<&'static str>,
    /// Destination (drop square for drops).
    pub to: &'static str,
    /// Promotion letter (lowercase), if any.
    pub promotion: Option<char>,
    /// Dropped piece letter (uppercase), if a drop.
    pub drop: Option<char>,
    /// Where a displaced friendly pawn goes, for relocation drops.
    pub relocation: Option<&'static str>,
    /// True when the move captures (en passant included).
    pub capture: bool,
    /// True when the move gives check (or mates).
    pub check: bool,
}

impl From<MoveDescriptionRef<'_>> for MoveDescription {
    fn from(d: MoveDescriptionRef<'_>) -> Self {
        MoveDescription {
            uci: d.uci.to_owned(),
            san: d.san.to_owned(),
            from: d.from.map(str::to_owned),
            to: d.to.to_owned(),
            promotion: d.promotion,
            drop: d.drop,
            relocation: d.relocation.map(str::to_owned),
            capture: d.capture,
            check: d.check,
        }
    }
}

/// What describing a move needs beyond the position: computed once per position and shared by
/// all its moves.
struct Describer {
    rivals: Rivals,
    /// The position, for playing each move to find its check suffix.
    scratch: Position,
    /// SAN then move text of the current move.
    text: String,
}

impl Describer {
    fn new(pos: &Position, legal: &[Move]) -> Self {
        Describer {
            rivals: Rivals::new(legal),
            scratch: pos.clone(),
            text: String::with_capacity(SAN_MAX_LEN + UCI_MAX_LEN),
        }
    }
}

impl Position {
    /// Describes the legal move `m`.
    pub fn describe(&self, m: Move) -> MoveDescription {
        let legal = self.legal_moves();
        self.describe_with(m, &mut Describer::new(self, &legal))
            .into()
    }

    /// Every legal move with its description.
    pub fn describe_moves(&self) -> Vec<(Move, MoveDescription)> {
        self.describe_moves_with(|m, d| (m, d.into()))
    }

    /// Every legal move, described and handed to `f`; returns what `f` made of each, in
    /// move-generation order. One move list, rivals table, scratch position and text buffer
    /// serve all moves (`describe` on each move would redo all of them per move).
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Position, Registry};
    /// let pos = Position::new(Registry::builtin().get("chess").unwrap());
    /// let sans = pos.describe_moves_with(|_, d| d.san.to_owned());
    /// assert_eq!(sans.len(), 20);
    /// assert!(sans.iter().any(|san| san == "Nf3"));
    /// ```
    pub fn describe_moves_with<T>(
        &self,
        mut f: impl FnMut(Move, MoveDescriptionRef<'_>) -> T,
    ) -> Vec<T> {
        let legal = self.legal_moves();
        let mut describer = Describer::new(self, &legal);
        let mut out = Vec::with_capacity(legal.len());
        for &m in &legal {
            out.push(f(m, self.describe_with(m, &mut describer)));
        }
        out
    }

    /// Describes `m`, writing its SAN and move text into the describer's buffer.
    fn describe_with<'a>(&self, m: Move, describer: &'a mut Describer) -> MoveDescriptionRef<'a> {
        let v = &*self.variant;
        let text = &mut describer.text;
        text.clear();
        self.write_san_body(m, &describer.rivals, text);
        let suffix = describer.scratch.check_suffix(m);
        text.push_str(suffix);
        let san_len = text.len();
        self.write_uci(m, text);
        let (san, uci) = text.split_at(san_len);
        let (drop, relocation) = match m.kind() {
            MoveKind::Drop {
                kind, relocation, ..
            } => (Some(v.piece(kind).letter), relocation.map(Square::name)),
            _ => (None, None),
        };
        MoveDescriptionRef {
            uci,
            san,
            from: m.from().map(Square::name),
            to: m.to().name(),
            promotion: m
                .promotion_kind()
                .map(|k| v.piece(k).letter.to_ascii_lowercase()),
            drop,
            relocation,
            capture: self.is_capture(m),
            check: !suffix.is_empty(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BoardSize, Registry};

    #[test]
    fn san_shapes() {
        let ten = BoardSize::TEN;
        for ok in [
            "e4", "exd5", "Nf3", "Nbd7", "R1d5", "Qh4", "e8Q", "exd8Q", "O-O", "O-O-O", "a10",
            "Lj10", "Ca1xa10",
        ] {
            assert!(san_shaped(ok, ten), "{ok}");
        }
        for bad in [
            "", "zz9", "e0", "e11", "x", "Nf", "N", "e4e", "k1", "e4x", "NN", "Nxx4", "é4",
        ] {
            assert!(!san_shaped(bad, ten), "{bad}");
        }
        assert!(!san_shaped("i1", BoardSize::EIGHT));
    }

    #[test]
    fn garbage_is_a_syntax_error_and_wrong_san_is_illegal() {
        let pos = Position::new(Registry::builtin().get("chess").unwrap());
        assert!(matches!(pos.parse_move("zz9!"), Err(MoveError::Syntax(_))));
        assert!(matches!(
            pos.parse_move("Nf6"),
            Err(MoveError::Illegal { .. })
        ));
        assert_eq!(pos.uci(pos.parse_move("Nf3").unwrap()), "g1f3");
        assert_eq!(pos.uci(pos.parse_move("e4").unwrap()), "e2e4");
    }
}
