//! Make and unmake. Every change goes through `put`/`remove`, which keep the hash current; the
//! one rule hook asked here is whether a capture also removes the capturer (Decima).

use crate::geometry::Square;
use crate::moves::{Move, MoveKind};
use crate::piece::{Color, Piece};
use crate::position::{Position, Undo, castling_bit, ep_victim};

impl Position {
    /// Plays `m`, which must be legal in this position (checked in debug builds).
    pub fn play(&mut self, m: Move) {
        debug_assert!(self.is_legal(m), "illegal move {m:?} in {self:?}");
        self.play_unchecked(m);
    }

    /// Plays a pseudo-legal `m` without checking legality.
    pub fn play_unchecked(&mut self, m: Move) {
        let us = self.side;
        let them = !us;
        let z_castling = self.variant.zobrist.castling(self.castling);
        let z_ep = self
            .en_passant
            .map_or(0, |e| self.variant.zobrist.en_passant(e.index()));
        self.history.push(Undo {
            mv: m,
            captured: None,
            capturer_removed: None,
            castling: self.castling,
            en_passant: self.en_passant,
            halfmove: self.halfmove,
            drop_rights: self.drop_rights,
            hash: self.hash,
        });
        self.hash ^= z_castling ^ z_ep;
        self.en_passant = None;
        self.halfmove += 1;
        let pawn = self.variant.pawn;
        let mut captured = None;
        match m.kind() {
            MoveKind::Normal { from, to } => {
                captured = self.remove(to);
                let piece = self.remove(from).expect("a piece on the origin square");
                self.put(to, piece);
                if captured.is_some()
                    && self
                        .variant
                        .rules()
                        .capture_removes_capturer(us, to, self.variant.ranks())
                {
                    self.remove(to);
                    self.history
                        .last_mut()
                        .expect("pushed above")
                        .capturer_removed = Some(piece);
                }
                if Some(piece.kind()) == pawn {
                    self.halfmove = 0;
                    if from.rank().abs_diff(to.rank()) == 2 {
                        let mid = Square::new(usize::midpoint(from.index(), to.index()) as u8);
                        if self.en_passant_capturable(mid, them) {
                            self.en_passant = Some(mid);
                        }
                    }
                }
                self.update_castling(from, to);
            }
            MoveKind::Promotion { from, to, kind } => {
                captured = self.remove(to);
                self.remove(from);
                self.put(to, Piece::new(us, kind));
                self.halfmove = 0;
                self.update_castling(from, to);
            }
            MoveKind::EnPassant { from, to } => {
                let victim = ep_victim(to, us);
                captured = self.remove(victim);
                let piece = self.remove(from).expect("a pawn on the origin square");
                self.put(to, piece);
                self.halfmove = 0;
            }
            MoveKind::Castle { from, to } => {
                let (rook_from, rook_to) = self.castling_rook(us, from, to);
                let king = self.remove(from).expect("a king on the origin square");
                let rook = self.remove(rook_from).expect("a rook on its home square");
                self.put(to, king);
                self.put(rook_to, rook);
                self.update_castling(from, rook_from);
            }
            MoveKind::Drop {
                kind,
                to,
                relocation,
            } => {
                if let Some(r) = relocation {
                    let displaced = self.remove(to).expect("a pawn under the drop square");
                    self.put(r, displaced);
                }
                self.put(to, Piece::new(us, kind));
                let n = self.pocket[us][kind.index()];
                self.set_pocket(us, kind, n - 1);
                // Colour-bound drops (Orphic bishops) use up their square colour's right for
                // good; unmake restores the rights (and hash) from the undo record.
                let used = self.variant.drop_rights_used(us, kind, to);
                if self.drop_rights & used != 0 {
                    let z = &self.variant.zobrist;
                    let old = self.drop_rights;
                    self.drop_rights &= !used;
                    self.hash ^= z.drop_rights(old) ^ z.drop_rights(self.drop_rights);
                }
                self.halfmove = 0;
            }
        }
        if let Some(victim) = captured {
            self.halfmove = 0;
            let undo = self.history.last_mut().expect("pushed above");
            undo.captured = Some(victim);
        }
        self.hash ^= self.variant.zobrist.castling(self.castling);
        if let Some(e) = self.en_passant {
            self.hash ^= self.variant.zobrist.en_passant(e.index());
        }
        self.side = them;
        self.hash ^= self.variant.zobrist.side;
        if us == Color::Black {
            self.fullmove += 1;
        }
    }

    /// Takes back the last move played. Does nothing when no move was played.
    pub fn unmake(&mut self) {
        let Some(undo) = self.history.pop() else {
            return;
        };
        let them = self.side;
        let us = !them;
        match undo.mv.kind() {
            MoveKind::Normal { from, to } => {
                let piece = match undo.capturer_removed {
                    Some(capturer) => capturer,
                    None => self.remove(to).expect("the moved piece"),
                };
                self.put(from, piece);
                if let Some(c) = undo.captured {
                    self.put(to, c);
                }
            }
            MoveKind::Promotion { from, to, .. } => {
                self.remove(to);
                let pawn = self.variant.pawn.expect("promotions need pawns");
                self.put(from, Piece::new(us, pawn));
                if let Some(c) = undo.captured {
                    self.put(to, c);
                }
            }
            MoveKind::EnPassant { from, to } => {
                let piece = self.remove(to).expect("the capturing pawn");
                self.put(from, piece);
                if let Some(c) = undo.captured {
                    self.put(ep_victim(to, us), c);
                }
            }
            MoveKind::Castle { from, to } => {
                let (rook_from, rook_to) = self.castling_rook(us, from, to);
                let king = self.remove(to).expect("the castled king");
                let rook = self.remove(rook_to).expect("the castled rook");
                self.put(from, king);
                self.put(rook_from, rook);
            }
            MoveKind::Drop {
                kind,
                to,
                relocation,
            } => {
                self.remove(to);
                if let Some(r) = relocation {
                    let displaced = self.remove(r).expect("the relocated pawn");
                    self.put(to, displaced);
                }
                let n = self.pocket[us][kind.index()];
                self.set_pocket(us, kind, n + 1);
            }
        }
        self.side = us;
        if us == Color::Black {
            self.fullmove -= 1;
        }
        self.castling = undo.castling;
        self.en_passant = undo.en_passant;
        self.halfmove = undo.halfmove;
        self.drop_rights = undo.drop_rights;
        self.hash = undo.hash;
    }

    fn update_castling(&mut self, from: Square, to: Square) {
        if self.castling == 0 {
            return;
        }
        let Some(castling) = &self.variant.castling else {
            return;
        };
        for color in Color::ALL {
            let c = castling[color];
            if from == c.king_from || to == c.king_from {
                self.castling &= !(castling_bit(color, 0) | castling_bit(color, 1));
            }
            for wing in 0..2 {
                if from == c.rook_from[wing] || to == c.rook_from[wing] {
                    self.castling &= !castling_bit(color, wing);
                }
            }
        }
    }
}
