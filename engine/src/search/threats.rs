//! Threats for quiet-move ordering: where a cheaper enemy piece attacks each of the mover's
//! piece kinds.
//!
//! A quiet move that takes a piece out of such an attack to a square where no cheaper enemy
//! piece attacks it is ordered before other quiet moves of equal history, and a move that puts
//! a piece where a cheaper one attacks it after them. The histories learn the same thing only
//! after the piece has been lost a few times in the tree; a 10x10 army has many pieces worth
//! far more than the pawn or minor piece that attacks them, and about 90 moves to sort.

use crate::bitboard::Bitboard;
use crate::eval::{cheaper_masks, pawn_attack_map, piece_kinds, piece_reach, union_of_kinds};
use crate::moves::MoveKind;
use crate::piece::MAX_KINDS;
use crate::position::Position;
use crate::search::see::SeeValues;
use crate::variant::{KindMask, Variant};

/// The ordering bonus (or penalty) per centipawn of the moving piece's value; quiet scores
/// are the histories' sum, within about ±49,000.
const PER_CP: i32 = 16;

/// Per-variant tables, built once per search.
#[derive(Debug)]
pub(crate) struct ThreatTables {
    /// The kinds that move by their own pattern (neither pawns nor a royal king): the
    /// attackers and victims of interest.
    pieces: Vec<usize>,
    /// Per victim kind: the kinds cheaper than it.
    cheaper: [KindMask; MAX_KINDS],
    /// Per kind: the ordering bonus of an escape (and penalty of a step into an attack).
    weight: [i32; MAX_KINDS],
    /// The pawn kind: its attacks threaten every piece.
    pawn: Option<usize>,
}

impl ThreatTables {
    /// Tables for `variant` with the search's exchange values.
    pub(crate) fn new(variant: &Variant, values: &SeeValues) -> Self {
        let pieces = piece_kinds(variant);
        let cheaper = cheaper_masks(&pieces, |k| values.value(k));
        let mut weight = [0; MAX_KINDS];
        for &v in &pieces {
            weight[v] = values.value(v) * PER_CP;
        }
        Self {
            pieces,
            cheaper,
            weight,
            pawn: variant.pawn.map(crate::PieceKind::index),
        }
    }

    /// The threats against the side to move in `pos`.
    pub(crate) fn compute(&self, pos: &Position) -> Threats {
        let v = &*pos.variant;
        let them = !pos.side;
        let occupied = pos.occupied();
        let pawn_attacks = pawn_attack_map(pos, self.pawn, them);
        let mut by_kind = [Bitboard::EMPTY; MAX_KINDS];
        for &k in &self.pieces {
            for sq in pos.by_kind[k] & pos.by_color[them] {
                by_kind[k] |= piece_reach(v, k, sq, occupied).0;
            }
        }
        let mut unsafe_for = [Bitboard::EMPTY; MAX_KINDS];
        let ours = pos.by_color[pos.side];
        for &k in &self.pieces {
            if (pos.by_kind[k] & ours).is_empty() {
                continue;
            }
            unsafe_for[k] = pawn_attacks | union_of_kinds(self.cheaper[k], |a| by_kind[a]);
        }
        Threats { unsafe_for }
    }

    /// The ordering adjustment of the quiet move `m` given `threats`: the piece's weight for
    /// an escape, minus it for a step into an attack, zero otherwise (pawns, kings, drops and
    /// castling included).
    #[inline]
    pub(crate) fn adjustment(&self, pos: &Position, threats: &Threats, m: crate::Move) -> i32 {
        let MoveKind::Normal { from, to } = m.kind() else {
            return 0;
        };
        let Some(piece) = pos.board[from.index()] else {
            return 0;
        };
        let k = piece.kind().index();
        let danger = threats.unsafe_for[k];
        match (danger.contains(from), danger.contains(to)) {
            (true, false) => self.weight[k],
            (false, true) => -self.weight[k],
            _ => 0,
        }
    }
}

/// Per kind of the side to move: the squares a cheaper enemy piece (or an enemy pawn)
/// attacks. Empty for pawns and kings, and for kinds the side does not have.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Threats {
    unsafe_for: [Bitboard; MAX_KINDS],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;

    fn tables(pos: &Position) -> ThreatTables {
        let v = pos.variant();
        let values: Vec<i32> = v.pieces().iter().map(|p| p.value).collect();
        ThreatTables::new(
            v,
            &SeeValues::new(&values, v.royal_kind().map(crate::PieceKind::index)),
        )
    }

    #[test]
    fn escapes_rank_up_and_steps_into_cheaper_attacks_rank_down() {
        let v = Registry::builtin().get("chess").unwrap();
        // The white knight on e4 is attacked by the pawn on d5; the queen on d1 is not
        // attacked; the black bishop on g7 attacks the long diagonal down to a1, the rook on
        // a8 the a-file.
        let pos = Position::from_fen(v, "r3k3/6b1/8/3p4/4N3/8/8/3QK3 w - - 0 1").unwrap();
        let t = tables(&pos);
        let threats = t.compute(&pos);
        let adj = |uci: &str| t.adjustment(&pos, &threats, pos.parse_uci(uci).unwrap());
        let knight = adj("e4g3");
        assert!(
            knight > 0,
            "the knight leaves the pawn's attack for a safe square: {knight}"
        );
        // c3 is on the bishop's diagonal, but a bishop is not cheaper than a knight.
        assert_eq!(adj("e4c3"), knight, "the same escape");
        assert_eq!(adj("d1c1"), 0, "nothing attacks c1");
        assert!(adj("d1d4") < 0, "d4 is on the bishop's diagonal");
        assert!(adj("d1a4") < 0, "a4 is on the rook's file");
        assert!(adj("d1a1") < 0, "a1 is on the rook's file");
        assert!(
            adj("d1a1") < -knight,
            "a queen's penalty outweighs a knight's escape"
        );
        // Pawns and kings are never adjusted.
        assert_eq!(adj("e1f1"), 0);
    }
}
