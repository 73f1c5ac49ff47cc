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
    #[error("the side not to move is in check")]
    OpponentInCheck,
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
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.is_empty() {
            return Err(FenError::Empty);
        }
        if fields.len() > 6 {
            return Err(FenError::TooManyFields {
                found: fields.len(),
            });
        }
        let mut pos = Self::empty(variant);
        let variant = Arc::clone(&pos.variant);
        let (board, pocket) = match fields[0].find('[') {
            Some(i) => {
                let rest = &fields[0][i + 1..];
                let Some(inner) = rest.strip_suffix(']') else {
                    return Err(FenError::BadPocket(fields[0][i..].to_owned()));
                };
                (&fields[0][..i], Some(inner))
            }
            None => (fields[0], None),
        };
        parse_board(&mut pos, &variant, board)?;
        if let Some(pocket) = pocket {
            parse_pocket(&mut pos, &variant, pocket)?;
        }
        pos.side = match fields.get(1).copied().unwrap_or("w") {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSide(other.to_owned())),
        };
        parse_rights(&mut pos, &variant, fields.get(2).copied().unwrap_or("-"))?;
        let clock = |i: usize, field: &'static str, default: u32| -> Result<u32, FenError> {
            fields.get(i).map_or(Ok(default), |s| {
                s.parse::<u32>().map_err(|_| FenError::BadClock {
                    field,
                    value: (*s).to_owned(),
                })
            })
        };
        pos.halfmove = clock(4, "half-move clock", 0)?;
        pos.fullmove = clock(5, "full-move number", 1)?.max(1);
        validate(&pos, &variant)?;
        if let Some(ep) = fields.get(3).copied().filter(|s| *s != "-") {
            let sq = variant
                .size()
                .parse_square(ep)
                .map_err(|_| FenError::BadEnPassant(ep.to_owned()))?;
            if en_passant_valid(&pos, &variant, sq) {
                pos.en_passant = Some(sq);
            }
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
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

fn parse_board(pos: &mut Position, v: &Variant, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != v.ranks() as usize {
        return Err(FenError::RankCount {
            variant: v.name().to_owned(),
            expected: v.ranks(),
            found: ranks.len(),
        });
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = v.ranks() - 1 - i as u8;
        let width_error = |found: u32| FenError::RankWidth {
            variant: v.name().to_owned(),
            rank: rank + 1,
            expected: v.files(),
            found,
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
                let piece = piece_from_char(v, ch).ok_or_else(|| FenError::BadPiece {
                    variant: v.name().to_owned(),
                    letter: ch,
                })?;
                if file < u32::from(v.files()) {
                    pos.put(Square::new(rank * STRIDE + file as u8), piece);
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
    }
    Ok(())
}

fn parse_pocket(pos: &mut Position, v: &Variant, pocket: &str) -> Result<(), FenError> {
    if !v.has_drops() {
        return Err(FenError::BadPocket(pocket.to_owned()));
    }
    if pocket == "-" {
        return Ok(());
    }
    let mut counts = [[0u8; MAX_KINDS]; 2];
    for ch in pocket.chars() {
        let piece = piece_from_char(v, ch)
            .filter(|p| v.pocket_kinds >> p.kind().0 & 1 != 0)
            .ok_or_else(|| FenError::BadPocket(pocket.to_owned()))?;
        let slot = &mut counts[piece.color().index()][piece.kind().index()];
        *slot += 1;
        if usize::from(*slot) >= MAX_POCKET {
            return Err(FenError::BadPocket(pocket.to_owned()));
        }
    }
    pos.pocket = crate::piece::ByColor(counts);
    Ok(())
}

fn parse_rights(pos: &mut Position, v: &Variant, text: &str) -> Result<(), FenError> {
    if text == "-" {
        return Ok(());
    }
    let bad = || FenError::BadRights(text.to_owned());
    for ch in text.chars() {
        let castle = match ch {
            'K' => Some((Color::White, 1)),
            'Q' => Some((Color::White, 0)),
            'k' => Some((Color::Black, 1)),
            'q' => Some((Color::Black, 0)),
            _ => None,
        };
        if let (Some((color, wing)), Some(castling)) = (castle, &v.castling) {
            {
                let bit = castling_bit(color, wing);
                if pos.castling & bit != 0 {
                    return Err(bad());
                }
                let c = castling[color];
                let royal = v.royal.expect("castling needs a royal king");
                if pos.board[c.king_from.index()] != Some(Piece::new(color, royal)) {
                    return Err(FenError::CastlingWithoutPieces {
                        right: ch,
                        piece: "king",
                    });
                }
                let rook = v
                    .kind_by_letter(v.spec().castling.as_ref().map_or('R', |c| c.rook_letter))
                    .expect("validated castling partner");
                if pos.board[c.rook_from[wing].index()] != Some(Piece::new(color, rook)) {
                    return Err(FenError::CastlingWithoutPieces {
                        right: ch,
                        piece: "rook",
                    });
                }
                pos.castling |= bit;
            }
        } else {
            let bit = v.rules().drop_right_bit(ch).ok_or_else(bad)?;
            if pos.drop_rights & bit != 0 {
                return Err(bad());
            }
            pos.drop_rights |= bit;
        }
    }
    Ok(())
}

fn validate(pos: &Position, v: &Variant) -> Result<(), FenError> {
    if let Some(royal) = v.royal {
        for color in Color::ALL {
            let on_board = pos.pieces_of(color, royal).count();
            let in_pocket = u32::from(pos.pocket[color][royal.index()]);
            if on_board + in_pocket != 1 {
                return Err(FenError::KingCount {
                    color,
                    count: on_board + in_pocket,
                });
            }
        }
    }
    if let (Some(pawn), Some(promotion)) = (v.pawn, &v.promotion) {
        for color in Color::ALL {
            if let Some(sq) = (pos.pieces_of(color, pawn) & promotion.forced[color]).first() {
                return Err(FenError::PawnOnLastRank(sq));
            }
        }
    }
    if let Some(pawn) = v.pawn {
        for color in Color::ALL {
            if let Some(sq) = (pos.pieces_of(color, pawn) & v.pawn_unreachable[color]).first() {
                return Err(FenError::PawnBehindStart(sq));
            }
        }
    }
    // Orphic's colour-bound bishops: a right per bishop in hand, both used up once both are
    // on the board (a captured bishop keeps its right used, and is not returned to a pocket).
    if let Some(kind) = v.drops.as_ref().and_then(|d| d.colour_bound) {
        for color in Color::ALL {
            let bishops = u32::from(pos.pocket[color][kind.index()]);
            let rights = [true, false]
                .iter()
                .filter(|&&light| pos.drop_rights & colour_right_bit(color, light) != 0)
                .count() as u32;
            if bishops != rights {
                return Err(FenError::BishopRightsMismatch {
                    color,
                    bishops,
                    rights,
                });
            }
        }
    }
    // Without a royal king (Decima) the king count above cannot catch an empty board.
    if v.royal.is_none()
        && pos.occupied().is_empty()
        && pos.pocket.0.iter().flatten().all(|&n| n == 0)
    {
        return Err(FenError::NoUnits);
    }
    if let Some(k) = pos.royal_square(!pos.side)
        && pos.is_attacked(k, pos.occupied(), pos.by_color[pos.side], pos.side)
    {
        return Err(FenError::OpponentInCheck);
    }
    Ok(())
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
