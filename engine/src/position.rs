//! `Position`: the state of a game of one variant (board, pockets, rights, clocks, hash and the
//! history of moves played) and the attack queries on it.
//!
//! This file knows no rules beyond the variant's data. The code that applies them is above it:
//! positions come only from [`Position::new`] (the variant's start) or [`Position::from_fen`],
//! which validates (`notation/fen.rs`); moves are generated in `movegen.rs`, applied with
//! [`Position::play`] and taken back with [`Position::unmake`] (`make.rs`), and the game status
//! is in `status.rs`. The history of applied moves is kept for unmake and repetition.

use std::sync::Arc;

use crate::bitboard::Bitboard;
use crate::geometry::{SQUARE_COUNT, Square};
use crate::movement::Direction;
use crate::moves::Move;
use crate::piece::{ByColor, Color, MAX_KINDS, Piece, PieceKind};
use crate::variant::{KindMask, Variant};

/// Castling-right bit for `color` and `wing` (0 = queen side, 1 = king side).
pub(crate) const fn castling_bit(color: Color, wing: usize) -> u8 {
    1 << (color as usize * 2 + wing)
}

/// What `unmake` needs to restore, and the hash history for repetition.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Undo {
    pub mv: Move,
    pub captured: Option<Piece>,
    /// The capturer, when it was removed with its victim (Decima suicide capture).
    pub capturer_removed: Option<Piece>,
    pub castling: u8,
    pub en_passant: Option<Square>,
    pub halfmove: u32,
    pub drop_rights: u8,
    /// Hash of the position before the move.
    pub hash: u64,
}

/// A position of some variant.
#[derive(Clone)]
pub struct Position {
    pub(crate) variant: Arc<Variant>,
    pub(crate) board: [Option<Piece>; SQUARE_COUNT],
    pub(crate) by_color: ByColor<Bitboard>,
    pub(crate) by_kind: [Bitboard; MAX_KINDS],
    pub(crate) side: Color,
    /// Bits from [`castling_bit`].
    pub(crate) castling: u8,
    /// Set only when an enemy pawn stands ready to capture en passant.
    pub(crate) en_passant: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) pocket: ByColor<[u8; MAX_KINDS]>,
    /// Variant-defined drop rights (Orphic bishop colours).
    pub(crate) drop_rights: u8,
    pub(crate) hash: u64,
    pub(crate) history: Vec<Undo>,
    /// FIDE-style draw claims: threefold repetition and the fifty-move rule only make a draw
    /// claimable, and the game ends by itself at the fifth repetition or the 150th half-move.
    /// A setting of the game, not part of the FEN (so not in the hash or in `eq`).
    pub(crate) draw_claims: bool,
}

impl PartialEq for Position {
    /// Same variant, same FEN state and same hash; history is not compared.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.variant, &other.variant)
            && self.board == other.board
            && self.side == other.side
            && self.castling == other.castling
            && self.en_passant == other.en_passant
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.pocket == other.pocket
            && self.drop_rights == other.drop_rights
            && self.hash == other.hash
    }
}

impl Position {
    pub(crate) fn empty(variant: Arc<Variant>) -> Self {
        Self {
            variant,
            board: [None; SQUARE_COUNT],
            by_color: ByColor::default(),
            by_kind: [Bitboard::EMPTY; MAX_KINDS],
            side: Color::White,
            castling: 0,
            en_passant: None,
            halfmove: 0,
            fullmove: 1,
            pocket: ByColor([[0; MAX_KINDS]; 2]),
            drop_rights: 0,
            hash: 0,
            history: Vec::new(),
            draw_claims: false,
        }
    }

    /// Chooses between draws by rule that end the game at once (`false`, the default) and
    /// FIDE-style claims (`true`): see [`Position::claimable_draw`] and RULES.md's section on
    /// draw claims.
    pub fn set_draw_claims(&mut self, claims: bool) {
        self.draw_claims = claims;
    }

    /// Whether FIDE-style draw claims are in force (see [`Position::set_draw_claims`]).
    pub fn draw_claims(&self) -> bool {
        self.draw_claims
    }

    /// The variant.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// Side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// All pieces of `color`.
    #[inline]
    pub fn pieces_by_color(&self, color: Color) -> Bitboard {
        self.by_color[color]
    }

    /// All pieces of `kind` (both colours).
    #[inline]
    pub fn pieces_by_kind(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    /// Pieces of `color` and `kind`.
    #[inline]
    pub fn pieces_of(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()] & self.by_color[color]
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color.0[0] | self.by_color.0[1]
    }

    /// How many of `kind` are in `color`'s pocket.
    pub fn pocket_count(&self, color: Color, kind: PieceKind) -> u8 {
        self.pocket[color][kind.index()]
    }

    /// The variant's drop rights (Orphic: bishop square colours still open, bits from
    /// [`colour_right_bit`](crate::variant::colour_right_bit)); 0 in variants without them.
    pub fn drop_rights(&self) -> u8 {
        self.drop_rights
    }

    /// The en-passant target square, when a capture there is possible.
    pub fn en_passant_square(&self) -> Option<Square> {
        self.en_passant
    }

    /// Half-moves since the last capture, pawn move or drop.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    /// Full-move number.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Number of moves played since this position was set up.
    pub fn ply_count(&self) -> usize {
        self.history.len()
    }

    /// The moves played since setup, oldest first.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }

    /// The incremental Zobrist hash.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The score of `color`: the sum of the [`points`](crate::PieceDef::points) of its pieces
    /// standing on its own last rank (Decima's tenth rank: rank 10 for White, rank 1 for
    /// Black). Always 0 in variants whose pieces have no points.
    ///
    /// Computed from the board on each call (at most one rank of squares), so it can never
    /// disagree with it.
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Color, Position, Registry};
    /// let decima = Registry::builtin().get("decima").unwrap();
    /// // White: king (10) on rank 10 scores; Black: knight (9) on rank 1 scores, its king on
    /// // rank 10 does not.
    /// let pos = Position::from_fen(decima, "K4k4/10/10/10/10/10/10/10/10/n9 b - - 0 1").unwrap();
    /// assert_eq!((pos.score(Color::White), pos.score(Color::Black)), (10, 9));
    /// ```
    pub fn score(&self, color: Color) -> u32 {
        let v = &*self.variant;
        let last_rank = Bitboard::rank(color.relative_rank(v.ranks() - 1, v.ranks()), v.files());
        (last_rank & self.by_color[color])
            .into_iter()
            .filter_map(|sq| self.board[sq.index()])
            .map(|p| u32::from(v.piece(p.kind()).points))
            .sum()
    }

    /// The royal king of `color`, if the variant has one and it is on the board.
    #[inline]
    pub fn royal_square(&self, color: Color) -> Option<Square> {
        let k = self.variant.royal?;
        (self.by_kind[k.index()] & self.by_color[color]).first()
    }

    pub(crate) fn kinds_bb(&self, mask: KindMask) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        let mut m = mask;
        while m != 0 {
            bb |= self.by_kind[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        bb
    }

    /// True when any piece in `attackers` (a subset of `by`'s pieces) attacks `sq` with the
    /// board occupied as `occupied`.
    pub(crate) fn is_attacked(
        &self,
        sq: Square,
        occupied: Bitboard,
        attackers: Bitboard,
        by: Color,
    ) -> bool {
        self.attackers_masked(sq, occupied, attackers, by, true)
            .any()
    }

    /// Pieces of `by` attacking `sq` with the board occupied as `occupied`.
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard, by: Color) -> Bitboard {
        self.attackers_masked(sq, occupied, self.by_color[by] & occupied, by, false)
    }

    #[inline]
    fn attackers_masked(
        &self,
        sq: Square,
        occupied: Bitboard,
        attackers: Bitboard,
        by: Color,
        early: bool,
    ) -> Bitboard {
        let v = &*self.variant;
        let t = &v.tables;
        let mut found = Bitboard::EMPTY;
        if let Some(p) = v.pawn {
            found |= v.pawn_attacks[!by][sq.index()] & self.by_kind[p.index()] & attackers;
            if early && found.any() {
                return found;
            }
        }
        for &(mask, table) in &v.leap_groups {
            found |= v.kinds[table].leap_attacks[sq.index()] & self.kinds_bb(mask) & attackers;
            if early && found.any() {
                return found;
            }
        }
        if v.orthogonal_attackers != 0 {
            let riders = self.kinds_bb(v.orthogonal_attackers) & attackers;
            if riders.any() {
                found |= t.rider_attackers(Direction::ORTHOGONAL, sq, occupied, riders);
            }
        }
        if v.diagonal_attackers != 0 {
            let riders = self.kinds_bb(v.diagonal_attackers) & attackers;
            if riders.any() {
                found |= t.rider_attackers(Direction::DIAGONAL, sq, occupied, riders);
            }
        }
        if v.hoppers != 0 {
            let hoppers = self.kinds_bb(v.hoppers) & attackers;
            if hoppers.any() {
                found |= t.hop_targets(sq, occupied) & hoppers;
            }
        }
        found
    }

    /// Recomputes the Zobrist hash from scratch (tests compare it with the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let z = &self.variant.zobrist;
        let mut h = 0;
        for sq in self.occupied() {
            if let Some(p) = self.board[sq.index()] {
                h ^= z.piece(p, sq.index());
            }
        }
        if self.side == Color::Black {
            h ^= z.side;
        }
        h ^= z.castling(self.castling);
        if let Some(ep) = self.en_passant {
            h ^= z.en_passant(ep.index());
        }
        for color in Color::ALL {
            for k in 0..self.variant.kind_count() {
                h ^= z.pocket(color, k, self.pocket[color][k]);
            }
        }
        h ^ z.drop_rights(self.drop_rights)
    }

    #[inline]
    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = Some(piece);
        self.by_color[piece.color()] |= bb;
        self.by_kind[piece.kind().index()] |= bb;
        self.hash ^= self.variant.zobrist.piece(piece, sq.index());
    }

    #[inline]
    pub(crate) fn remove(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.board[sq.index()].take()?;
        let bb = Bitboard::from_square(sq);
        self.by_color[piece.color()] ^= bb;
        self.by_kind[piece.kind().index()] ^= bb;
        self.hash ^= self.variant.zobrist.piece(piece, sq.index());
        Some(piece)
    }

    pub(crate) fn set_pocket(&mut self, color: Color, kind: PieceKind, count: u8) {
        let z = &self.variant.zobrist;
        let old = self.pocket[color][kind.index()];
        self.hash ^= z.pocket(color, kind.index(), old) ^ z.pocket(color, kind.index(), count);
        self.pocket[color][kind.index()] = count;
    }

    /// True when the pawns of `color` may capture en passant on `ep` (an enemy pawn is ready).
    pub(crate) fn en_passant_capturable(&self, ep: Square, capturer: Color) -> bool {
        let v = &*self.variant;
        match v.pawn {
            Some(p) if v.en_passant => {
                (v.pawn_attacks[!capturer][ep.index()] & self.pieces_of(capturer, p)).any()
            }
            _ => false,
        }
    }

    /// True when the side to move has a royal king that is attacked.
    pub(crate) fn king_attacked(&self) -> bool {
        match self.royal_square(self.side) {
            Some(k) => self.is_attacked(k, self.occupied(), self.by_color[!self.side], !self.side),
            None => false,
        }
    }

    /// Rook squares (from, to) for a castling king move.
    pub(crate) fn castling_rook(
        &self,
        color: Color,
        king_from: Square,
        king_to: Square,
    ) -> (Square, Square) {
        let c = self
            .variant
            .castling
            .as_ref()
            .expect("castling move in a variant with castling")[color];
        let wing = usize::from(king_to > king_from);
        (c.rook_from[wing], c.rook_to[wing])
    }
}

/// The square of the pawn captured en passant by `capturer` landing on `to`.
#[inline]
pub(crate) fn ep_victim(to: Square, capturer: Color) -> Square {
    Square::new((to.index() as i32 - 10 * i32::from(capturer.forward())) as u8)
}
