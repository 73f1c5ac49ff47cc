//! FEN in Fairy-Stockfish style: ranks top-down with multi-digit empty runs, an optional
//! pocket in brackets after the board, side, rights (castling and variant drop rights),
//! en-passant square, half-move clock and full-move number.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::geometry::{STRIDE, Square};
use crate::piece::{Color, MAX_KINDS, Piece};
use crate::position::{Position, castling_bit};
use crate::quote::quote;
use crate::variant::{Variant, colour_right_bit};
use crate::zobrist::MAX_POCKET;

/// Why a FEN was rejected. Each message names the offending field and text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Nothing but whitespace.
    #[error("empty FEN")]
    Empty,
    /// Too many fields.
    #[error("FEN has {found} fields, at most 6 expected")]
    TooManyFields {
        /// Fields found.
        found: usize,
    },
    /// Wrong number of ranks.
    #[error("board has {found} ranks, variant {variant} has {expected}")]
    RankCount {
        /// Variant name.
        variant: String,
        /// Ranks expected.
        expected: u8,
        /// Ranks found.
        found: usize,
    },
    /// A rank describes too many or too few squares.
    #[error("rank {rank} describes {found} squares, variant {variant} has {expected} files")]
    RankWidth {
        /// Variant name.
        variant: String,
        /// Rank number as on the board (1 = bottom).
        rank: u8,
        /// Files expected.
        expected: u8,
        /// Squares described.
        found: u32,
    },
    /// A character that is no piece of this variant.
    #[error("invalid piece letter {letter:?} for variant {variant}")]
    BadPiece {
        /// Variant name.
        variant: String,
        /// The letter.
        letter: char,
    },
    /// A pocket in a variant without drops, or a malformed pocket.
    #[error("invalid pocket {}", quote(.0))]
    BadPocket(String),
    /// Side-to-move field other than `w`/`b`.
    #[error("invalid side to move {} (expected \"w\" or \"b\")", quote(.0))]
    BadSide(String),
    /// Unknown or duplicated rights letter.
    #[error("invalid rights field {}", quote(.0))]
    BadRights(String),
    /// A castling right whose king or rook is not at home.
    #[error("castling right {right:?} but the {piece} is not on its home square")]
    CastlingWithoutPieces {
        /// The right letter.
        right: char,
        /// "king" or "rook".
        piece: &'static str,
    },
    /// An en-passant field that is not a square of the board.
    #[error("invalid en-passant square {}", quote(.0))]
    BadEnPassant(String),
    /// A clock that is not a number.
    #[error("invalid {field} {}", quote(.value))]
    BadClock {
        /// "half-move clock" or "full-move number".
        field: &'static str,
        /// The text.
        value: String,
    },
    /// Not exactly one royal king per side.
    #[error("{color:?} has {count} kings on the board (exactly one expected)")]
    KingCount {
        /// The side.
        color: Color,
        /// Kings found on the board (and in the pocket).
        count: u32,
    },
    /// A pawn on its last rank.
    #[error("pawn on its last rank at {0}")]
    PawnOnLastRank(Square),
    /// A pawn behind its start rank, where no move can ever bring it.
    #[error("pawn at {0} stands behind its start rank, which no pawn can reach")]
    PawnBehindStart(Square),
    /// Orphic: bishop-drop rights that do not match the bishops in that side's pocket (one
    /// right per bishop in hand).
    #[error(
        "{color:?} has {bishops} bishops in the pocket but {rights} bishop-drop rights in the \
         rights field (they must be equal)"
    )]
    BishopRightsMismatch {
        /// The side.
        color: Color,
        /// Bishops in its pocket.
        bishops: u32,
        /// Its bishop-drop rights (`L`/`D`, `l`/`d`).
        rights: u32,
    },
    /// Decima: neither side has a unit on the board.
    #[error("neither side has a unit on the board")]
    NoUnits,
    /// The side not to move is in check: its king could be captured.
    #[error("the side not to move is in check (its king on {king} is attacked)")]
    OpponentInCheck {
        /// The attacked king's square.
        king: Square,
    },
}

/// The part of a FEN a [`FenProblem`] concerns.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FenField {
    /// The FEN as a whole (empty, too many fields).
    Whole,
    /// The board (piece placement), and the position it sets up.
    Board,
    /// The pocket in brackets after the board (drop variants).
    Pocket,
    /// The side to move.
    Side,
    /// The rights field: castling rights and the variant's drop rights (Orphic `LDld`).
    Rights,
    /// The en-passant square.
    EnPassant,
    /// The half-move clock.
    HalfmoveClock,
    /// The full-move number.
    FullmoveNumber,
}

impl FenField {
    /// A stable lowercase name (`"board"`, `"en_passant"`, ...), for protocols.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Whole => "fen",
            Self::Board => "board",
            Self::Pocket => "pocket",
            Self::Side => "side",
            Self::Rights => "castling",
            Self::EnPassant => "en_passant",
            Self::HalfmoveClock => "halfmove",
            Self::FullmoveNumber => "fullmove",
        }
    }
}

/// One problem found in a FEN: what is wrong, in which field, and on which square when a
/// single square is at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct FenProblem {
    /// What is wrong (the error [`Position::from_fen`] would return were it the first).
    pub error: FenError,
    /// The field it concerns.
    pub field: FenField,
    /// The square it concerns, if one square is at fault.
    pub square: Option<Square>,
}

/// Everything [`validate_fen`] found: every problem, in the order the fields are read, or the
/// normalised FEN when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenReport {
    /// The problems found; empty when the FEN is valid.
    pub problems: Vec<FenProblem>,
    /// The FEN as [`Position::fen`] writes it, when the FEN is valid.
    pub normalized: Option<String>,
}

impl FenReport {
    /// True when the FEN has no problem.
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks a FEN for `variant` and reports every problem, not just the first: independent
/// fields are each checked (a bad side field does not hide a bad rights field), and the
/// position's own checks (kings, pawns, rights against pocket, check) run whenever the board
/// and pocket could be read. [`Position::from_fen`] fails with the first problem reported here.
///
/// # Examples
/// ```
/// use variant_engine::{FenField, Registry, validate_fen};
/// let chess = Registry::builtin().get("chess").unwrap();
/// let report = validate_fen(&chess, "KK5k/8/8/8/8/8/8/P7 x Z - 0 1");
/// let fields: Vec<FenField> = report.problems.iter().map(|p| p.field).collect();
/// assert_eq!(
///     fields,
///     [FenField::Side, FenField::Rights, FenField::Board, FenField::Board]
/// );
/// assert!(report.normalized.is_none());
/// let fine = validate_fen(&chess, "8/8/8/8/8/8/8/K6k");
/// assert_eq!(fine.normalized.as_deref(), Some("8/8/8/8/8/8/8/K6k w - - 0 1"));
/// ```
pub fn validate_fen(variant: &Arc<Variant>, fen: &str) -> FenReport {
    let mut problems = Problems {
        list: Vec::new(),
        all: true,
    };
    let pos = parse_fen(Arc::clone(variant), fen, &mut problems);
    let normalized = problems.list.is_empty().then(|| pos.fen());
    FenReport {
        problems: problems.list,
        normalized,
    }
}

/// The problems found so far, and whether the caller wants them all or just the first.
struct Problems {
    list: Vec<FenProblem>,
    all: bool,
}

impl Problems {
    fn push(&mut self, error: FenError, field: FenField, square: Option<Square>) {
        if self.all || self.list.is_empty() {
            self.list.push(FenProblem {
                error,
                field,
                square,
            });
        }
    }

    /// True when reading may stop: only the first problem is wanted and it is found.
    fn enough(&self) -> bool {
        !self.all && !self.list.is_empty()
    }
}

// Written here, beside the FEN printer they use.
impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Position")
            .field("variant", &self.variant.name())
            .field("fen", &self.fen())
            .finish_non_exhaustive()
    }
}

impl Position {
    /// The start position of `variant`.
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Position, Registry};
    /// let pos = Position::new(Registry::builtin().get("soho").unwrap());
    /// assert_eq!(pos.legal_moves().len(), 48);
    /// ```
    pub fn new(variant: Arc<Variant>) -> Self {
        let fen = variant.start_fen().to_owned();
        Self::from_fen(variant, &fen).expect("built-in start positions are valid")
    }

    /// Parses and validates a FEN for `variant`.
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Position, Registry};
    /// let chess = Registry::builtin().get("chess").unwrap();
    /// let pos = Position::from_fen(chess.clone(), "8/8/8/8/8/8/8/K6k w - - 0 1").unwrap();
    /// assert_eq!(pos.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
    /// assert!(Position::from_fen(chess, "8/8/8 w - - 0 1").is_err());
    /// ```
    ///
    /// # Errors
    /// [`FenError`] naming the field that is wrong.
    pub fn from_fen(variant: Arc<Variant>, fen: &str) -> Result<Self, FenError> {
        let mut problems = Problems {
            list: Vec::new(),
            all: false,
        };
        let pos = parse_fen(variant, fen, &mut problems);
        match problems.list.into_iter().next() {
            Some(problem) => Err(problem.error),
            None => Ok(pos),
        }
    }

    /// The FEN of this position.
    pub fn fen(&self) -> String {
        let v = &*self.variant;
        let mut out = String::new();
        for rank in (0..v.ranks()).rev() {
            let mut empty = 0;
            for file in 0..v.files() {
                let sq = Square::new(rank * STRIDE + file);
                match self.board[sq.index()] {
                    Some(p) => {
                        if empty > 0 {
                            let _ = write!(out, "{empty}");
                            empty = 0;
                        }
                        out.push(piece_char(v, p));
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                let _ = write!(out, "{empty}");
            }
            if rank > 0 {
                out.push('/');
            }
        }
        if let Some(drops) = &v.spec().drops {
            out.push('[');
            for color in Color::ALL {
                for &letter in &drops.pocket_letters {
                    if let Some(kind) = v.kind_by_letter(letter) {
                        let piece = Piece::new(color, kind);
                        for _ in 0..self.pocket[color][kind.index()] {
                            out.push(piece_char(v, piece));
                        }
                    }
                }
            }
            out.push(']');
        }
        let _ = write!(out, " {} {} ", self.side.fen_char(), self.rights_text());
        match self.en_passant {
            Some(sq) => {
                let _ = write!(out, "{sq}");
            }
            None => out.push('-'),
        }
        let _ = write!(out, " {} {}", self.halfmove, self.fullmove);
        out
    }

    fn rights_text(&self) -> String {
        let mut s = String::new();
        for (color, letters) in [(Color::White, ['K', 'Q']), (Color::Black, ['k', 'q'])] {
            for (letter, wing) in letters.into_iter().zip([1, 0]) {
                if self.castling & castling_bit(color, wing) != 0 {
                    s.push(letter);
                }
            }
        }
        s.push_str(&self.variant.rules().drop_rights_text(self.drop_rights));
        if s.is_empty() { "-".to_owned() } else { s }
    }
}

fn piece_char(v: &Variant, p: Piece) -> char {
    let letter = v.piece(p.kind()).letter;
    match p.color() {
        Color::White => letter,
        Color::Black => letter.to_ascii_lowercase(),
    }
}

fn piece_from_char(v: &Variant, ch: char) -> Option<Piece> {
    let kind = v.kind_by_letter(ch)?;
    let color = if ch.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    Some(Piece::new(color, kind))
}

/// Reads a FEN into a position, reporting its problems to `problems`; the position is
/// meaningful only when none was reported. Fields are read in order (board, pocket, side,
/// rights, clocks, the position's checks, en passant), so the first problem is the one a
/// reader stopping at the first would meet. A field that cannot be read does not stop the
/// others; checks that need a field read correctly skip it when it was not.
fn parse_fen(variant: Arc<Variant>, fen: &str, problems: &mut Problems) -> Position {
    let mut pos = Position::empty(variant);
    let variant = Arc::clone(&pos.variant);
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let Some(&first) = fields.first() else {
        problems.push(FenError::Empty, FenField::Whole, None);
        return pos;
    };
    if fields.len() > 6 {
        problems.push(
            FenError::TooManyFields {
                found: fields.len(),
            },
            FenField::Whole,
            None,
        );
        if problems.enough() {
            return pos;
        }
    }
    let mut pocket_ok = true;
    let (board, pocket) = match first.find('[') {
        Some(i) => {
            if let Some(inner) = first[i + 1..].strip_suffix(']') {
                (&first[..i], Some(inner))
            } else {
                problems.push(
                    FenError::BadPocket(first[i..].to_owned()),
                    FenField::Pocket,
                    None,
                );
                pocket_ok = false;
                (&first[..i], None)
            }
        }
        None => (first, None),
    };
    if problems.enough() {
        return pos;
    }
    let board_ok = parse_board(&mut pos, &variant, board, problems);
    if problems.enough() {
        return pos;
    }
    if let Some(pocket) = pocket {
        pocket_ok &= parse_pocket(&mut pos, &variant, pocket, problems);
    }
    if problems.enough() {
        return pos;
    }
    let side_ok = match fields.get(1).copied().unwrap_or("w") {
        "w" => true,
        "b" => {
            pos.side = Color::Black;
            true
        }
        other => {
            problems.push(FenError::BadSide(other.to_owned()), FenField::Side, None);
            false
        }
    };
    if problems.enough() {
        return pos;
    }
    let rights_ok = parse_rights(
        &mut pos,
        &variant,
        fields.get(2).copied().unwrap_or("-"),
        board_ok,
        problems,
    );
    if problems.enough() {
        return pos;
    }
    let mut clock = |i: usize, field: FenField, name: &'static str, default: u32| {
        fields.get(i).map_or(default, |s| {
            s.parse::<u32>().unwrap_or_else(|_| {
                problems.push(
                    FenError::BadClock {
                        field: name,
                        value: (*s).to_owned(),
                    },
                    field,
                    None,
                );
                default
            })
        })
    };
    pos.halfmove = clock(4, FenField::HalfmoveClock, "half-move clock", 0);
    pos.fullmove = clock(5, FenField::FullmoveNumber, "full-move number", 1).max(1);
    if problems.enough() {
        return pos;
    }
    if board_ok && pocket_ok {
        validate(&pos, &variant, side_ok, rights_ok, problems);
    }
    if problems.enough() {
        return pos;
    }
    if let Some(ep) = fields.get(3).copied().filter(|s| *s != "-") {
        match variant.size().parse_square(ep) {
            Err(_) => problems.push(
                FenError::BadEnPassant(ep.to_owned()),
                FenField::EnPassant,
                None,
            ),
            Ok(sq) => {
                if board_ok && en_passant_valid(&pos, &variant, sq) {
                    pos.en_passant = Some(sq);
                }
            }
        }
    }
    pos.hash = pos.compute_hash();
    pos
}

/// Reads the board field; false when it had a problem (then the board is incomplete).
fn parse_board(pos: &mut Position, v: &Variant, board: &str, problems: &mut Problems) -> bool {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != v.ranks() as usize {
        problems.push(
            FenError::RankCount {
                variant: v.name().to_owned(),
                expected: v.ranks(),
                found: ranks.len(),
            },
            FenField::Board,
            None,
        );
        return false;
    }
    let mut ok = true;
    for (i, text) in ranks.iter().enumerate() {
        let rank = v.ranks() - 1 - i as u8;
        if let Err((error, square)) = parse_rank(pos, v, rank, text) {
            problems.push(error, FenField::Board, square);
            ok = false;
            if problems.enough() {
                break;
            }
        }
    }
    ok
}

/// Reads one rank of the board field (`rank` 0-based); the error names the square of a bad
/// piece letter.
fn parse_rank(
    pos: &mut Position,
    v: &Variant,
    rank: u8,
    text: &str,
) -> Result<(), (FenError, Option<Square>)> {
    let width_error = |found: u32| {
        (
            FenError::RankWidth {
                variant: v.name().to_owned(),
                rank: rank + 1,
                expected: v.files(),
                found,
            },
            None,
        )
    };
    let mut file: u32 = 0;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if let Some(d) = ch.to_digit(10) {
            let mut run = d;
            while let Some(next) = chars.peek().and_then(|c| c.to_digit(10)) {
                run = run * 10 + next;
                chars.next();
                if run > u32::from(STRIDE) {
                    break;
                }
            }
            if run == 0 {
                return Err(width_error(file));
            }
            file += run;
        } else {
            let on_board = file < u32::from(v.files());
            let square = on_board.then(|| Square::new(rank * STRIDE + file as u8));
            let piece = piece_from_char(v, ch).ok_or_else(|| {
                (
                    FenError::BadPiece {
                        variant: v.name().to_owned(),
                        letter: ch,
                    },
                    square,
                )
            })?;
            if let Some(sq) = square {
                pos.put(sq, piece);
            }
            file += 1;
        }
        if file > u32::from(v.files()) {
            return Err(width_error(file));
        }
    }
    if file != u32::from(v.files()) {
        return Err(width_error(file));
    }
    Ok(())
}

/// Reads the pocket (the text inside the brackets); false when it had a problem.
fn parse_pocket(pos: &mut Position, v: &Variant, pocket: &str, problems: &mut Problems) -> bool {
    let mut bad = || {
        problems.push(
            FenError::BadPocket(pocket.to_owned()),
            FenField::Pocket,
            None,
        );
        false
    };
    if !v.has_drops() {
        return bad();
    }
    if pocket == "-" {
        return true;
    }
    let mut counts = [[0u8; MAX_KINDS]; 2];
    for ch in pocket.chars() {
        let Some(piece) = piece_from_char(v, ch).filter(|p| v.pocket_kinds >> p.kind().0 & 1 != 0)
        else {
            return bad();
        };
        let slot = &mut counts[piece.color().index()][piece.kind().index()];
        *slot += 1;
        if usize::from(*slot) >= MAX_POCKET {
            return bad();
        }
    }
    pos.pocket = crate::piece::ByColor(counts);
    true
}

/// Reads the rights field; false when a letter is unknown or repeated (one problem for the
/// field). A castling right whose king or rook is not at home is a problem of its own, checked
/// only when the board was read (`board_ok`).
fn parse_rights(
    pos: &mut Position,
    v: &Variant,
    text: &str,
    board_ok: bool,
    problems: &mut Problems,
) -> bool {
    if text == "-" {
        return true;
    }
    let bad = |problems: &mut Problems| {
        problems.push(FenError::BadRights(text.to_owned()), FenField::Rights, None);
        false
    };
    for ch in text.chars() {
        let castle = match ch {
            'K' => Some((Color::White, 1)),
            'Q' => Some((Color::White, 0)),
            'k' => Some((Color::Black, 1)),
            'q' => Some((Color::Black, 0)),
            _ => None,
        };
        if let (Some((color, wing)), Some(castling)) = (castle, &v.castling) {
            let bit = castling_bit(color, wing);
            if pos.castling & bit != 0 {
                return bad(problems);
            }
            pos.castling |= bit;
            if !board_ok {
                continue;
            }
            let c = castling[color];
            let king = v.royal.map(|royal| Piece::new(color, royal));
            let rook = v
                .spec()
                .castling
                .as_ref()
                .and_then(|c| v.kind_by_letter(c.rook_letter))
                .map(|rook| Piece::new(color, rook));
            // Validation gives castling a royal king and a rook kind, so both are `Some`.
            for (square, piece, name) in [
                (c.king_from, king, "king"),
                (c.rook_from[wing], rook, "rook"),
            ] {
                if piece.is_none_or(|p| pos.board[square.index()] != Some(p)) {
                    problems.push(
                        FenError::CastlingWithoutPieces {
                            right: ch,
                            piece: name,
                        },
                        FenField::Rights,
                        Some(square),
                    );
                    if problems.enough() {
                        return false;
                    }
                }
            }
        } else {
            let Some(bit) = v.rules().drop_right_bit(ch) else {
                return bad(problems);
            };
            if pos.drop_rights & bit != 0 {
                return bad(problems);
            }
            pos.drop_rights |= bit;
        }
    }
    true
}

/// The checks of the position a FEN sets up (RULES.md "impossible positions", the kings and
/// the side not to move's safety), each reported with its square where there is one. Checks
/// that read the side to move or the rights skip when those fields were bad.
fn validate(pos: &Position, v: &Variant, side_ok: bool, rights_ok: bool, problems: &mut Problems) {
    if let Some(royal) = v.royal {
        for color in Color::ALL {
            let kings = pos.pieces_of(color, royal);
            let count = kings.count() + u32::from(pos.pocket[color][royal.index()]);
            if count != 1 {
                // The second king on the board is the one too many.
                let square = kings.into_iter().nth(1);
                problems.push(
                    FenError::KingCount { color, count },
                    FenField::Board,
                    square,
                );
            }
        }
    }
    if let (Some(pawn), Some(promotion)) = (v.pawn, &v.promotion) {
        for color in Color::ALL {
            for sq in pos.pieces_of(color, pawn) & promotion.forced[color] {
                problems.push(FenError::PawnOnLastRank(sq), FenField::Board, Some(sq));
            }
        }
    }
    if let Some(pawn) = v.pawn {
        for color in Color::ALL {
            for sq in pos.pieces_of(color, pawn) & v.pawn_unreachable[color] {
                problems.push(FenError::PawnBehindStart(sq), FenField::Board, Some(sq));
            }
        }
    }
    // Orphic's colour-bound bishops: a right per bishop in hand, both used up once both are
    // on the board (a captured bishop keeps its right used, and is not returned to a pocket).
    if rights_ok && let Some(kind) = v.drops.as_ref().and_then(|d| d.colour_bound) {
        for color in Color::ALL {
            let bishops = u32::from(pos.pocket[color][kind.index()]);
            let rights = [true, false]
                .iter()
                .filter(|&&light| pos.drop_rights & colour_right_bit(color, light) != 0)
                .count() as u32;
            if bishops != rights {
                problems.push(
                    FenError::BishopRightsMismatch {
                        color,
                        bishops,
                        rights,
                    },
                    FenField::Rights,
                    None,
                );
            }
        }
    }
    // Without a royal king (Decima) the king count above cannot catch an empty board.
    if v.royal.is_none()
        && pos.occupied().is_empty()
        && pos.pocket.0.iter().flatten().all(|&n| n == 0)
    {
        problems.push(FenError::NoUnits, FenField::Board, None);
    }
    if side_ok
        && let Some(k) = pos.royal_square(!pos.side)
        && pos.is_attacked(k, pos.occupied(), pos.by_color[pos.side], pos.side)
    {
        problems.push(
            FenError::OpponentInCheck { king: k },
            FenField::Board,
            Some(k),
        );
    }
}

/// RULES.md fine points: the e.p. square counts only if it is empty, an enemy pawn stands just
/// beyond it after a double step from its start rank, and (our addition, so equal positions
/// hash equally) a pawn of the side to move can capture there.
fn en_passant_valid(pos: &Position, v: &Variant, sq: Square) -> bool {
    let Some(pawn) = v.pawn else {
        return false;
    };
    let them = !pos.side;
    let beyond = sq.offset(0, them.forward(), v.size());
    let origin = sq.offset(0, -them.forward(), v.size());
    let (Some(beyond), Some(origin)) = (beyond, origin) else {
        return false;
    };
    pos.board[sq.index()].is_none()
        && pos.board[origin.index()].is_none()
        && v.double_step[them].contains(origin)
        && pos.board[beyond.index()] == Some(Piece::new(them, pawn))
        && pos.en_passant_capturable(sq, pos.side)
}
