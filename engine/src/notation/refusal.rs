//! Why a move text names no legal move: the reasons in words ([`IllegalReason`]'s messages)
//! and as stable codes ([`MoveRefusal`]), and the analysis that finds them.
//!
//! The analysis runs only after a text has failed to match a legal move, so a legal move
//! parses exactly as fast as before; what it costs (a FEN, a move list, a few simulated
//! moves) is paid by refused moves alone.

use crate::bitboard::Bitboard;
use crate::geometry::Square;
use crate::moves::{Move, MoveKind};
use crate::outcome::{GameStatus, Termination};
use crate::piece::{Color, Piece};
use crate::position::{Position, castling_bit};
use crate::rules::RuleRefusal;

use super::lenient::SanParts;

/// A machine-readable code for why a move was refused, with a stable text form
/// ([`MoveRefusal::as_str`]) for protocols: codes are added, never renamed.
///
/// # Examples
/// ```
/// use variant_engine::{MoveRefusal, Position, Registry};
/// let pos = Position::new(Registry::builtin().get("chess").unwrap());
/// let err = pos.parse_move("e2e5").unwrap_err();
/// assert_eq!(err.reason(), MoveRefusal::PieceCannotMoveThere);
/// assert_eq!(err.reason().as_str(), "PIECE_CANNOT_MOVE_THERE");
/// assert_eq!(pos.parse_move("zz9").unwrap_err().reason().as_str(), "UNPARSABLE_MOVE");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MoveRefusal {
    /// The text has no move's shape.
    Unparsable,
    /// The move is illegal for a reason not named more precisely.
    Illegal,
    /// The game is over: the position has no legal moves.
    GameOver,
    /// No piece of the side to move stands on the origin square.
    NoPieceToMove,
    /// The piece letter written does not name the piece on the origin square.
    WrongPiece,
    /// The piece cannot move that way (or no piece of that kind can reach the square).
    PieceCannotMoveThere,
    /// The move would leave or put the mover's own king in check.
    LeavesKingInCheck,
    /// The SAN fits several legal moves.
    Ambiguous,
    /// The move ends where a pawn must promote, and no promotion piece was written.
    PromotionRequired,
    /// A promotion piece was written for a move that cannot promote, or none is available.
    PromotionNotAllowed,
    /// The promotion piece written is not one allowed here.
    InvalidPromotion,
    /// A drop onto a friendly pawn needs the square the pawn is relocated to.
    RelocationRequired,
    /// The relocation written is not allowed (no pawn to relocate, a bad square, or in check).
    InvalidRelocation,
    /// Orphic: until a side's king is dropped, its board pieces may only capture.
    CapturesOnlyBeforeKing,
    /// Castling written as the king taking its own rook; write the king's destination.
    CastlingAsKingTakesRook,
    /// Castling is not possible here.
    CastlingNotAllowed,
    /// The piece to drop is not in the side's pocket.
    PieceNotInHand,
    /// The drop is not allowed on that square (or the variant has no drops).
    DropNotAllowed,
    /// Decima: in "check" only a capture bringing the opponent's score below ten is allowed.
    CheckNotAnswered,
    /// Decima: a suicide capture with one's own last unit that does not take the opponent's.
    LastUnitSuicide,
}

impl MoveRefusal {
    /// Every code, in declaration order.
    pub const ALL: [MoveRefusal; 20] = [
        Self::Unparsable,
        Self::Illegal,
        Self::GameOver,
        Self::NoPieceToMove,
        Self::WrongPiece,
        Self::PieceCannotMoveThere,
        Self::LeavesKingInCheck,
        Self::Ambiguous,
        Self::PromotionRequired,
        Self::PromotionNotAllowed,
        Self::InvalidPromotion,
        Self::RelocationRequired,
        Self::InvalidRelocation,
        Self::CapturesOnlyBeforeKing,
        Self::CastlingAsKingTakesRook,
        Self::CastlingNotAllowed,
        Self::PieceNotInHand,
        Self::DropNotAllowed,
        Self::CheckNotAnswered,
        Self::LastUnitSuicide,
    ];

    /// The stable upper-case code (`"ILLEGAL_MOVE"`, `"AMBIGUOUS_MOVE"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Unparsable => "UNPARSABLE_MOVE",
            Self::Illegal => "ILLEGAL_MOVE",
            Self::GameOver => "GAME_OVER",
            Self::NoPieceToMove => "NO_PIECE_TO_MOVE",
            Self::WrongPiece => "WRONG_PIECE",
            Self::PieceCannotMoveThere => "PIECE_CANNOT_MOVE_THERE",
            Self::LeavesKingInCheck => "LEAVES_KING_IN_CHECK",
            Self::Ambiguous => "AMBIGUOUS_MOVE",
            Self::PromotionRequired => "PROMOTION_REQUIRED",
            Self::PromotionNotAllowed => "PROMOTION_NOT_ALLOWED",
            Self::InvalidPromotion => "INVALID_PROMOTION",
            Self::RelocationRequired => "RELOCATION_REQUIRED",
            Self::InvalidRelocation => "INVALID_RELOCATION",
            Self::CapturesOnlyBeforeKing => "CAPTURES_ONLY_BEFORE_KING",
            Self::CastlingAsKingTakesRook => "CASTLING_AS_KING_TAKES_ROOK",
            Self::CastlingNotAllowed => "CASTLING_NOT_ALLOWED",
            Self::PieceNotInHand => "PIECE_NOT_IN_HAND",
            Self::DropNotAllowed => "DROP_NOT_ALLOWED",
            Self::CheckNotAnswered => "CHECK_NOT_ANSWERED",
            Self::LastUnitSuicide => "LAST_UNIT_SUICIDE",
        }
    }
}

impl std::fmt::Display for MoveRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a move text that parses names no legal move, with what a person needs to fix it. The
/// message is the `Display` text; [`IllegalReason::code`] is the machine-readable part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalReason {
    /// Nothing more precise is known.
    #[error("it is not a legal move here")]
    Unspecified,
    /// The game is over.
    #[error("the game is over ({termination:?}), no move can be played")]
    GameOver {
        /// How it ended.
        termination: Termination,
    },
    /// No piece of the side to move on the origin square.
    #[error("{}", no_piece_text(*.square, *.side, .occupant.as_deref()))]
    NoPieceToMove {
        /// The origin square.
        square: Square,
        /// The side to move.
        side: Color,
        /// What stands there instead (`"black knight"`), if anything.
        occupant: Option<String>,
    },
    /// The piece letter of long algebraic notation does not match the piece.
    #[error("the piece on {square} is a {found} ({found_letter}), not {written:?}")]
    WrongPiece {
        /// The origin square.
        square: Square,
        /// The letter written.
        written: char,
        /// The name of the piece there.
        found: String,
        /// Its letter.
        found_letter: char,
    },
    /// The piece cannot make this move.
    #[error("{}", cannot_move_text(.piece, *.from, *.to))]
    CannotMoveThere {
        /// The piece's name.
        piece: String,
        /// Its square; `None` when no piece of that kind can reach `to` (SAN).
        from: Option<Square>,
        /// The destination.
        to: Square,
    },
    /// The move leaves (or puts) the mover's king in check.
    #[error("{}", if *.in_check {
        "it does not get the king out of check"
    } else {
        "it would leave the king in check"
    })]
    LeavesKingInCheck {
        /// Whether the king was in check before the move.
        in_check: bool,
    },
    /// SAN that fits several legal moves.
    #[error("ambiguous, it could be any of {}", .candidates.join(", "))]
    Ambiguous {
        /// The moves it fits, as move text.
        candidates: Vec<String>,
    },
    /// A pawn move to a square where it must promote, written without a piece.
    #[error("the pawn must promote on {to}: append one of {}", letters(.allowed))]
    PromotionRequired {
        /// The destination.
        to: Square,
        /// The promotion letters allowed (lowercase, as move text writes them).
        allowed: Vec<char>,
    },
    /// A promotion written for a move that cannot promote, or a pawn move to the last rank
    /// when no piece type can be chosen (Opulent and Decima promote only to lost types).
    #[error("{}", if *.unavailable {
        format!("the pawn cannot move to {}: no piece type it may promote to has been lost", .to)
    } else {
        format!("a move to {} does not promote", .to)
    })]
    PromotionNotAllowed {
        /// The destination.
        to: Square,
        /// True when the pawn would have to promote but has nothing to promote to.
        unavailable: bool,
    },
    /// A promotion piece that is not allowed.
    #[error("the pawn cannot promote to {letter:?} here: allowed are {}", letters(.allowed))]
    InvalidPromotion {
        /// The letter written (lowercase).
        letter: char,
        /// The letters allowed (lowercase).
        allowed: Vec<char>,
    },
    /// A drop onto a friendly pawn without its relocation square.
    #[error("{}", match .example {
        Some(e) => format!(
            "a drop on {square} displaces the pawn there: write where it goes, e.g. {e}"
        ),
        None => format!(
            "a drop on {square} displaces the pawn there, and no relocation square is legal now"
        ),
    })]
    RelocationRequired {
        /// The drop square.
        square: Square,
        /// A legal full move text for this drop (`N@e3,c2`), if there is one.
        example: Option<String>,
    },
    /// A relocation that is not allowed.
    #[error("cannot relocate a pawn to {square}: {detail}")]
    InvalidRelocation {
        /// The relocation square written.
        square: Square,
        /// Why (`"there is no friendly pawn on e4"`, ...).
        detail: String,
    },
    /// Orphic: board moves must capture until the king is dropped.
    #[error(
        "until the king has been dropped, pieces and pawns on the board may only capture \
         (drops are always allowed)"
    )]
    CapturesOnlyBeforeKing,
    /// Castling written as the king taking its own rook.
    #[error("castling is written as the king's move: {write}")]
    CastlingAsKingTakesRook {
        /// The move text to write instead.
        write: String,
    },
    /// Castling that is not possible.
    #[error("cannot castle: {detail}")]
    CastlingNotAllowed {
        /// Why.
        detail: &'static str,
    },
    /// A drop of a piece that is not in hand.
    #[error("{}", if *.known {
        format!("no {letter} in the pocket")
    } else {
        format!("{letter:?} is no piece that can be dropped in this variant")
    })]
    PieceNotInHand {
        /// The letter written (uppercase).
        letter: char,
        /// False when the letter names no pocket piece of the variant at all.
        known: bool,
    },
    /// A drop the drop rules forbid.
    #[error("cannot drop there: {detail}")]
    DropNotAllowed {
        /// Why.
        detail: String,
    },
    /// Decima: in check, the move does not relieve it.
    #[error(
        "the opponent has ten points on its tenth rank: only a capture that brings it below ten \
         is allowed"
    )]
    CheckNotAnswered,
    /// Decima: suicide capture with the last unit.
    #[error(
        "a capture on the enemy's tenth rank removes the capturer, and it is your last unit \
         (allowed only when it takes the opponent's last unit)"
    )]
    LastUnitSuicide,
}

fn no_piece_text(square: Square, side: Color, occupant: Option<&str>) -> String {
    let side = match side {
        Color::White => "White",
        Color::Black => "Black",
    };
    match occupant {
        None => format!("{square} is empty: no {side} piece to move"),
        Some(o) => format!("{square} holds a {o}: no {side} piece to move"),
    }
}

fn cannot_move_text(piece: &str, from: Option<Square>, to: Square) -> String {
    match from {
        Some(from) => format!("the {piece} on {from} cannot move to {to}"),
        None => format!("no {piece} can move to {to}"),
    }
}

fn letters(list: &[char]) -> String {
    if list.is_empty() {
        return "none".to_owned();
    }
    list.iter()
        .map(char::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl IllegalReason {
    /// The machine-readable code.
    pub const fn code(&self) -> MoveRefusal {
        match self {
            Self::Unspecified => MoveRefusal::Illegal,
            Self::GameOver { .. } => MoveRefusal::GameOver,
            Self::NoPieceToMove { .. } => MoveRefusal::NoPieceToMove,
            Self::WrongPiece { .. } => MoveRefusal::WrongPiece,
            Self::CannotMoveThere { .. } => MoveRefusal::PieceCannotMoveThere,
            Self::LeavesKingInCheck { .. } => MoveRefusal::LeavesKingInCheck,
            Self::Ambiguous { .. } => MoveRefusal::Ambiguous,
            Self::PromotionRequired { .. } => MoveRefusal::PromotionRequired,
            Self::PromotionNotAllowed { .. } => MoveRefusal::PromotionNotAllowed,
            Self::InvalidPromotion { .. } => MoveRefusal::InvalidPromotion,
            Self::RelocationRequired { .. } => MoveRefusal::RelocationRequired,
            Self::InvalidRelocation { .. } => MoveRefusal::InvalidRelocation,
            Self::CapturesOnlyBeforeKing => MoveRefusal::CapturesOnlyBeforeKing,
            Self::CastlingAsKingTakesRook { .. } => MoveRefusal::CastlingAsKingTakesRook,
            Self::CastlingNotAllowed { .. } => MoveRefusal::CastlingNotAllowed,
            Self::PieceNotInHand { .. } => MoveRefusal::PieceNotInHand,
            Self::DropNotAllowed { .. } => MoveRefusal::DropNotAllowed,
            Self::CheckNotAnswered => MoveRefusal::CheckNotAnswered,
            Self::LastUnitSuicide => MoveRefusal::LastUnitSuicide,
        }
    }

    fn from_rule(refusal: RuleRefusal) -> Self {
        match refusal {
            RuleRefusal::CapturesOnlyBeforeKing => Self::CapturesOnlyBeforeKing,
            RuleRefusal::CheckNotAnswered => Self::CheckNotAnswered,
            RuleRefusal::LastUnitSuicide => Self::LastUnitSuicide,
        }
    }
}

/// What a refused text asked for, as far as its shape tells.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Intent {
    /// A board move from one square to another.
    Board {
        /// The piece letter written (long algebraic), if any.
        piece: Option<char>,
        from: Square,
        to: Square,
        /// Promotion letter, either case.
        promotion: Option<char>,
    },
    /// A drop.
    Drop {
        letter: char,
        to: Square,
        relocation: Option<Square>,
    },
    /// Castling by its SAN (`true` = king side).
    Castle { king_side: bool },
    /// A SAN board move.
    San(SanParts),
}

/// The rank numbers (1-based) of `bb`, as "rank 1" or "ranks 2-4".
fn ranks_text(bb: Bitboard) -> String {
    let mut ranks: Vec<u8> = bb.into_iter().map(|s| s.rank() + 1).collect();
    ranks.sort_unstable();
    ranks.dedup();
    match ranks.as_slice() {
        [] => "no rank".to_owned(),
        [one] => format!("rank {one}"),
        [first, .., last] if usize::from(last - first) + 1 == ranks.len() => {
            format!("ranks {first}-{last}")
        }
        more => format!(
            "ranks {}",
            more.iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl Position {
    /// The name and colour of `piece` (`"black knight"`).
    fn piece_words(&self, piece: Piece) -> String {
        let color = match piece.color() {
            Color::White => "white",
            Color::Black => "black",
        };
        format!(
            "{color} {}",
            self.variant.piece(piece.kind()).name.to_lowercase()
        )
    }

    /// Why `intent` names no legal move here.
    pub(crate) fn explain(&self, intent: Intent) -> IllegalReason {
        if self.count_legal_moves() == 0
            && let GameStatus::Finished { reason, .. } = self.status_with_legal_moves(0)
        {
            return IllegalReason::GameOver {
                termination: reason,
            };
        }
        match intent {
            Intent::Board {
                piece,
                from,
                to,
                promotion,
            } => self.explain_board(piece, from, to, promotion),
            Intent::Drop {
                letter,
                to,
                relocation,
            } => self.explain_drop(letter, to, relocation),
            Intent::Castle { king_side } => self.explain_castle(king_side),
            Intent::San(parts) => self.explain_san(parts),
        }
    }

    fn explain_board(
        &self,
        letter: Option<char>,
        from: Square,
        to: Square,
        promotion: Option<char>,
    ) -> IllegalReason {
        let v = &*self.variant;
        let us = self.side;
        let Some(piece) = self.piece_at(from).filter(|p| p.color() == us) else {
            return IllegalReason::NoPieceToMove {
                square: from,
                side: us,
                occupant: self.piece_at(from).map(|p| self.piece_words(p)),
            };
        };
        let def = v.piece(piece.kind());
        if let Some(written) = letter
            && written != def.letter
        {
            return IllegalReason::WrongPiece {
                square: from,
                written,
                found: def.name.to_lowercase(),
                found_letter: def.letter,
            };
        }
        if Some(piece.kind()) == v.royal
            && let Some(castling) = &v.castling
        {
            let c = castling[us];
            for wing in 0..2 {
                if c.king_from == from
                    && c.rook_from[wing] == to
                    && self.piece_at(to).is_some_and(|p| p.color() == us)
                {
                    return IllegalReason::CastlingAsKingTakesRook {
                        write: format!("{from}{}", c.king_to[wing]),
                    };
                }
                if c.king_from == from && c.king_to[wing] == to {
                    if self.castling & castling_bit(us, wing) == 0 {
                        return IllegalReason::CastlingNotAllowed {
                            detail: "the king or that rook has moved (no castling right)",
                        };
                    }
                    if (c.empty[wing] & self.occupied()).any() {
                        return IllegalReason::CastlingNotAllowed {
                            detail: "the squares between the king and the rook are not empty",
                        };
                    }
                }
            }
        }
        let moves = self.movement_moves_between(from, to);
        if moves.is_empty() {
            return self.explain_unreachable(piece, from, to);
        }
        let wanted = promotion.map(|l| v.kind_by_letter(l));
        let matching: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| match wanted {
                None => m.promotion_kind().is_none(),
                Some(kind) => kind.is_some() && m.promotion_kind() == kind,
            })
            .collect();
        if matching.is_empty() {
            let allowed: Vec<char> = moves
                .iter()
                .filter_map(|m| m.promotion_kind())
                .map(|k| v.piece(k).letter.to_ascii_lowercase())
                .collect();
            return match promotion {
                None => IllegalReason::PromotionRequired { to, allowed },
                Some(_) if allowed.is_empty() => IllegalReason::PromotionNotAllowed {
                    to,
                    unavailable: false,
                },
                Some(l) => IllegalReason::InvalidPromotion {
                    letter: l.to_ascii_lowercase(),
                    allowed,
                },
            };
        }
        self.explain_movable(&matching)
    }

    /// Why `piece` on `from` cannot reach `to` by its movement: usually it just cannot, but a
    /// pawn stepping or capturing onto its last rank is refused for want of a promotion piece
    /// (a type it may promote to must have been lost, in Opulent and Decima).
    fn explain_unreachable(&self, piece: Piece, from: Square, to: Square) -> IllegalReason {
        let v = &*self.variant;
        if Some(piece.kind()) == v.pawn
            && let Some(promotion) = &v.promotion
            && promotion.forced[piece.color()].contains(to)
        {
            let one_ahead = from.offset(0, piece.color().forward(), v.size());
            let steps = one_ahead == Some(to) && self.piece_at(to).is_none();
            let captures = v.pawn_attacks[piece.color()][from.index()].contains(to)
                && self
                    .piece_at(to)
                    .is_some_and(|p| p.color() != piece.color());
            if steps || captures {
                return IllegalReason::PromotionNotAllowed {
                    to,
                    unavailable: true,
                };
            }
        }
        IllegalReason::CannotMoveThere {
            piece: v.piece(piece.kind()).name.to_lowercase(),
            from: Some(from),
            to,
        }
    }

    /// Why none of `moves` (all allowed by the pieces' movement) is legal: a family rule, or
    /// the mover's king.
    fn explain_movable(&self, moves: &[Move]) -> IllegalReason {
        let rules = self.variant.rules();
        if !rules.quiet_moves_allowed(self)
            && moves.iter().all(|&m| !self.is_capture(m))
            && let Some(refusal) = rules.quiet_refusal()
        {
            return IllegalReason::from_rule(refusal);
        }
        if let Some(refusal) = moves.iter().find_map(|&m| rules.move_refusal(self, m)) {
            return IllegalReason::from_rule(refusal);
        }
        if moves.iter().any(|&m| self.is_legal(m)) {
            // Not reached for a text that failed to match; kept so that a caller's mistake
            // gives a vague message rather than a false one.
            return IllegalReason::Unspecified;
        }
        let in_check = self.in_check();
        if moves.iter().all(|m| m.is_castle()) {
            return IllegalReason::CastlingNotAllowed {
                detail: if in_check {
                    "the king is in check"
                } else {
                    "the king would cross or land on an attacked square"
                },
            };
        }
        IllegalReason::LeavesKingInCheck { in_check }
    }

    fn explain_castle(&self, king_side: bool) -> IllegalReason {
        let Some(castling) = &self.variant.castling else {
            return IllegalReason::CastlingNotAllowed {
                detail: "this variant has no castling",
            };
        };
        let c = castling[self.side];
        let wing = usize::from(king_side);
        if self
            .royal_square(self.side)
            .is_none_or(|k| k != c.king_from)
        {
            return IllegalReason::CastlingNotAllowed {
                detail: "the king is not on its home square",
            };
        }
        self.explain_board(None, c.king_from, c.king_to[wing], None)
    }

    fn explain_drop(&self, letter: char, to: Square, relocation: Option<Square>) -> IllegalReason {
        let v = &*self.variant;
        let us = self.side;
        let Some(rules) = &v.drops else {
            return IllegalReason::DropNotAllowed {
                detail: "this variant has no drops".to_owned(),
            };
        };
        let letter = letter.to_ascii_uppercase();
        let Some(kind) = v
            .kind_by_letter(letter)
            .filter(|k| v.pocket_kinds >> k.0 & 1 != 0)
        else {
            return IllegalReason::PieceNotInHand {
                letter,
                known: false,
            };
        };
        if self.pocket_count(us, kind) == 0 {
            return IllegalReason::PieceNotInHand {
                letter,
                known: true,
            };
        }
        let empty = v.tables.board & !self.occupied();
        let onto_pawn = v
            .pawn
            .is_some_and(|p| self.piece_at(to) == Some(Piece::new(us, p)))
            && rules.relocation[us].any();
        let in_check = self.in_check();
        if onto_pawn && in_check && !rules.relocate_in_check {
            return IllegalReason::InvalidRelocation {
                square: relocation.unwrap_or(to),
                detail: "a drop onto a pawn is not allowed while in check".to_owned(),
            };
        }
        match (self.piece_at(to), relocation) {
            (Some(p), _) if !onto_pawn => {
                return IllegalReason::DropNotAllowed {
                    detail: format!("{to} is occupied by a {}", self.piece_words(p)),
                };
            }
            (Some(_), None) => {
                let example = (rules.relocation[us] & empty)
                    .into_iter()
                    .map(|r| Move::drop(kind, to, Some(r)))
                    .find(|&m| self.is_legal(m))
                    .map(|m| self.uci(m));
                return IllegalReason::RelocationRequired {
                    square: to,
                    example,
                };
            }
            (Some(_), Some(r)) if !(rules.relocation[us] & empty).contains(r) => {
                return IllegalReason::InvalidRelocation {
                    square: r,
                    detail: format!(
                        "the pawn goes to an empty square on {}",
                        ranks_text(rules.relocation[us])
                    ),
                };
            }
            (None, Some(r)) => {
                return IllegalReason::InvalidRelocation {
                    square: r,
                    detail: format!("there is no pawn of yours on {to} to relocate"),
                };
            }
            _ => {}
        }
        let in_pocket: u32 = self.pocket[us].iter().map(|&n| u32::from(n)).sum();
        if !self.drop_squares(rules, us, kind, in_pocket).contains(to) {
            let detail = if rules.colour_bound == Some(kind) {
                let colour = if to.is_light() { "light" } else { "dark" };
                format!(
                    "the {} for {colour} squares has been dropped already (the rights field \
                     keeps one drop per square colour)",
                    v.piece(kind).name.to_lowercase()
                )
            } else {
                match &rules.royal_ranks {
                    Some(ranks) => format!(
                        "while other pieces remain in the pocket, the king may only be dropped \
                         on {}",
                        ranks_text(ranks[us])
                    ),
                    None => format!("{to} is not a drop square"),
                }
            };
            return IllegalReason::DropNotAllowed { detail };
        }
        if self.is_legal(Move::drop(kind, to, relocation)) {
            return IllegalReason::Unspecified;
        }
        IllegalReason::LeavesKingInCheck { in_check }
    }

    /// SAN that matched no legal move: ambiguous (several legal moves fit once the written
    /// disambiguation is read as a filter), or refused for each piece that could have meant it.
    fn explain_san(&self, parts: SanParts) -> IllegalReason {
        let legal = self.legal_moves();
        let fits = self.san_fits(parts, &legal);
        if fits.len() > 1 {
            return IllegalReason::Ambiguous {
                candidates: fits.iter().map(|&m| self.uci(m)).collect(),
            };
        }
        let v = &*self.variant;
        let kind = match parts.piece {
            None => v.pawn,
            Some(letter) => v.kind_by_letter(letter),
        };
        let name = kind.map_or_else(
            || {
                parts
                    .piece
                    .map_or("pawn".to_owned(), |l| format!("piece {l:?}"))
            },
            |k| v.piece(k).name.to_lowercase(),
        );
        let unreachable = IllegalReason::CannotMoveThere {
            piece: name,
            from: None,
            to: parts.to,
        };
        let Some(kind) = kind else {
            return unreachable;
        };
        let origins = self
            .pieces_of(self.side, kind)
            .into_iter()
            .filter(|&from| Self::origin_fits(parts, from, Some(kind) == v.pawn));
        origins
            .map(|from| self.explain_board(None, from, parts.to, parts.promotion))
            .find(|reason| !matches!(reason, IllegalReason::CannotMoveThere { .. }))
            .unwrap_or(unreachable)
    }

    /// True when a move from `from` fits the origin hints of `parts`; a pawn without a file
    /// hint moves straight ahead (SAN always names a capturing pawn's file).
    fn origin_fits(parts: SanParts, from: Square, pawn: bool) -> bool {
        parts.from_file.is_none_or(|f| f == from.file())
            && parts.from_rank.is_none_or(|r| r == from.rank())
            && (!pawn || parts.from_file.is_some() || from.file() == parts.to.file())
    }

    /// The moves of `legal` that fit the SAN `parts`, reading its disambiguation and capture
    /// mark as filters (so over-disambiguated SAN and a missing `x` still fit).
    pub(crate) fn san_fits(&self, parts: SanParts, legal: &[Move]) -> Vec<Move> {
        let v = &*self.variant;
        let kind = match parts.piece {
            None => v.pawn,
            Some(letter) => v.kind_by_letter(letter),
        };
        let Some(kind) = kind else {
            return Vec::new();
        };
        let promotion = parts.promotion.map(|l| v.kind_by_letter(l));
        legal
            .iter()
            .copied()
            .filter(|&m| {
                let (from, to) = match m.kind() {
                    MoveKind::Normal { from, to }
                    | MoveKind::Promotion { from, to, .. }
                    | MoveKind::EnPassant { from, to } => (from, to),
                    MoveKind::Castle { .. } | MoveKind::Drop { .. } => return false,
                };
                to == parts.to
                    && self.piece_at(from).is_some_and(|p| p.kind() == kind)
                    && Self::origin_fits(parts, from, Some(kind) == v.pawn)
                    && match promotion {
                        None => m.promotion_kind().is_none(),
                        Some(k) => k.is_some() && m.promotion_kind() == k,
                    }
            })
            .collect()
    }
}
