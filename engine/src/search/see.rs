//! Static exchange evaluation: the material a move wins or loses when both sides then keep
//! capturing on its destination with their least valuable piece, each free to stop.
//!
//! Exact for every piece kind we have because the attackers are recomputed from the board
//! after every capture ([`Position::attackers_to`] with the current occupancy): a rider
//! uncovered behind a capturer joins in, and a cannon's screen changes as pieces leave the
//! line, so a cannon that had no screen (or two) may gain or lose its capture. A drop is a
//! quiet move from nowhere; an en-passant capture takes the pawn beside the square; a
//! promotion puts the new piece on the square; a Decima capture on the capturer's suicide
//! rank removes the capturer too, so nothing can recapture. Like every SEE it ignores pins,
//! checks and the move-legality rules of the variants (a royal king only ever captures last).

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::piece::{Color, MAX_KINDS};
use crate::position::Position;

/// Piece values and the order in which captures are tried (cheapest first).
#[derive(Clone, Debug)]
pub(crate) struct SeeValues {
    value: [i32; MAX_KINDS],
    /// Non-royal kinds by ascending value, then the royal kind.
    order: Vec<usize>,
    royal: Option<usize>,
}

impl SeeValues {
    /// The exchange values of a variant's kinds (`value[k]`; the royal kind is never lost, so
    /// it counts as more than everything else).
    pub(crate) fn new(values: &[i32], royal: Option<usize>) -> Self {
        let kinds = values.len().min(MAX_KINDS);
        let mut value = [0; MAX_KINDS];
        value[..kinds].copy_from_slice(&values[..kinds]);
        if let Some(k) = royal {
            value[k] = 100_000;
        }
        let mut order: Vec<usize> = (0..kinds).filter(|&k| Some(k) != royal).collect();
        order.sort_by_key(|&k| value[k]);
        order.extend(royal);
        Self {
            value,
            order,
            royal,
        }
    }

    /// The exchange value of a kind.
    #[inline]
    pub(crate) fn value(&self, kind: usize) -> i32 {
        self.value[kind]
    }

    /// The cheapest of `attackers`, with its kind.
    #[inline]
    fn least_valuable(&self, pos: &Position, attackers: Bitboard) -> Option<(usize, Bitboard)> {
        self.order.iter().find_map(|&k| {
            let bb = attackers & pos.by_kind[k];
            bb.first().map(|sq| (k, Bitboard::from_square(sq)))
        })
    }
}

/// What a move puts on its destination, takes there, and vacates, for the exchange.
struct Exchange {
    /// Value taken by the move itself.
    gain: i32,
    /// Kind standing on the destination afterwards.
    piece: usize,
    /// Occupancy after the move.
    occupied: Bitboard,
}

fn first_exchange(pos: &Position, m: Move, values: &SeeValues) -> Option<Exchange> {
    let occupied = pos.occupied();
    let pawn = pos.variant.pawn.map(crate::PieceKind::index);
    match m.kind() {
        MoveKind::Castle { .. } => None,
        MoveKind::Drop {
            kind,
            to,
            relocation,
        } => {
            let mut occ = occupied.with(to);
            if let Some(r) = relocation {
                occ = occ.with(r);
            }
            Some(Exchange {
                gain: 0,
                piece: kind.index(),
                occupied: occ,
            })
        }
        MoveKind::EnPassant { from, to } => {
            let victim = crate::position::ep_victim(to, pos.side);
            Some(Exchange {
                gain: pawn.map_or(0, |p| values.value(p)),
                piece: pawn?,
                occupied: occupied.without(from).without(victim).with(to),
            })
        }
        MoveKind::Normal { from, to } | MoveKind::Promotion { from, to, .. } => {
            let mover = pos.board[from.index()]?.kind().index();
            let captured = pos.board[to.index()].map_or(0, |p| values.value(p.kind().index()));
            let (piece, promotion_gain) = match m.promotion_kind() {
                Some(k) => (k.index(), values.value(k.index()) - values.value(mover)),
                None => (mover, 0),
            };
            Some(Exchange {
                gain: captured + promotion_gain,
                piece,
                occupied: occupied.without(from).with(to),
            })
        }
    }
}

/// The material the exchange started by `m` wins (negative: loses), in the values' units.
pub(crate) fn see(pos: &Position, m: Move, values: &SeeValues) -> i32 {
    let Some(ex) = first_exchange(pos, m, values) else {
        return 0;
    };
    let to = m.to();
    let rules = pos.variant.rules();
    let ranks = pos.variant.ranks();
    let us = pos.side;
    // A Decima capture on the suicide rank takes the capturer off too: nothing is left on the
    // square to win back.
    if m.from().is_some()
        && pos.board[to.index()].is_some()
        && rules.capture_removes_capturer(us, to, ranks)
    {
        return ex.gain - values.value(ex.piece);
    }
    // The swap list: gain[d] is what the side making the d-th capture has won if the
    // exchange stopped right after it.
    let mut gain = [0i32; SWAP_MAX];
    gain[0] = ex.gain;
    let mut on_square = values.value(ex.piece);
    let mut occupied = ex.occupied;
    let mut stm: Color = us;
    let mut d = 0;
    while d + 1 < SWAP_MAX {
        stm = !stm;
        let attackers = pos.attackers_to(to, occupied, stm);
        let Some((kind, from_bb)) = values.least_valuable(pos, attackers) else {
            break;
        };
        // A king may capture only onto a square the enemy no longer attacks.
        if Some(kind) == values.royal && pos.attackers_to(to, occupied & !from_bb, !stm).any() {
            break;
        }
        d += 1;
        if rules.capture_removes_capturer(stm, to, ranks) {
            // The capturer dies with its victim: the exchange ends on an empty square.
            gain[d] = on_square - values.value(kind) - gain[d - 1];
            break;
        }
        gain[d] = on_square - gain[d - 1];
        on_square = values.value(kind);
        occupied &= !from_bb;
    }
    // Each side may stop instead of capturing: fold the list back to the first move.
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Longest exchange considered (far more captures than can meet on one square).
const SWAP_MAX: usize = 64;

/// True when the exchange started by `m` wins at least `threshold`.
#[inline]
pub(crate) fn see_ge(pos: &Position, m: Move, threshold: i32, values: &SeeValues) -> bool {
    see(pos, m, values) >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;
    use crate::rng::SplitMix64;

    fn values_of(pos: &Position) -> SeeValues {
        let v = pos.variant();
        let values: Vec<i32> = v.pieces().iter().map(|p| p.value).collect();
        SeeValues::new(&values, v.royal_kind().map(crate::PieceKind::index))
    }

    /// The exchange value by brute force over the rules the SEE is defined by: each side may
    /// capture on `to` with one of its cheapest attackers (any of them, whichever square) or
    /// stop; kings capture only onto undefended squares; Decima's suicide rule applies.
    fn brute(
        pos: &Position,
        to: crate::geometry::Square,
        occupied: Bitboard,
        on: usize,
        stm: Color,
        values: &SeeValues,
    ) -> i32 {
        let rules = pos.variant.rules();
        let ranks = pos.variant.ranks();
        let mut best = 0; // stopping is always allowed
        let attackers = pos.attackers_to(to, occupied, stm);
        let kind_of =
            |sq: crate::geometry::Square| pos.board[sq.index()].map_or(0, |p| p.kind().index());
        let Some(cheapest) = attackers
            .into_iter()
            .map(|sq| values.value(kind_of(sq)))
            .min()
        else {
            return 0;
        };
        for sq in attackers {
            let kind = kind_of(sq);
            if values.value(kind) != cheapest {
                continue;
            }
            let occ = occupied.without(sq);
            if Some(kind) == values.royal && pos.attackers_to(to, occ, !stm).any() {
                continue;
            }
            let gain = values.value(on);
            let v = if rules.capture_removes_capturer(stm, to, ranks) {
                gain - values.value(kind)
            } else {
                gain - brute(pos, to, occ, kind, !stm, values)
            };
            best = best.max(v);
        }
        best
    }

    /// SEE of a capture by brute force: the first capture is forced, then best play.
    fn brute_move(pos: &Position, m: Move, values: &SeeValues) -> i32 {
        let ex = first_exchange(pos, m, values).unwrap();
        let to = m.to();
        if m.from().is_some()
            && pos.board[to.index()].is_some()
            && pos
                .variant
                .rules()
                .capture_removes_capturer(pos.side, to, pos.variant.ranks())
        {
            return ex.gain - values.value(ex.piece);
        }
        ex.gain - brute(pos, to, ex.occupied, ex.piece, !pos.side, values)
    }

    #[test]
    fn see_agrees_with_brute_force_in_random_positions_of_every_variant() {
        let registry = Registry::builtin();
        let mut rng = SplitMix64(11);
        let mut checked = 0;
        let mut nonzero = 0;
        for v in registry.iter() {
            for game in 0..40 {
                let mut pos = Position::new(v.clone());
                for _ in 0..(20 + game * 2) {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    // Prefer captures so the board gets busy with exchanges.
                    let m = moves[rng.below(moves.len() as u64) as usize];
                    pos.play(m);
                }
                let values = values_of(&pos);
                for m in pos.legal_moves() {
                    if m.is_castle() {
                        continue;
                    }
                    let exact = brute_move(&pos, m, &values);
                    assert_eq!(see(&pos, m, &values), exact, "{} {}", pos.fen(), pos.uci(m));
                    checked += 1;
                    if exact != 0 {
                        nonzero += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000 && nonzero > 1_000, "{checked} {nonzero}");
    }

    #[test]
    fn cannon_screens_change_during_the_exchange() {
        // SOHO: a white cannon on a1 behind a white rook on a5 aims at a black knight on a8
        // guarded by a black rook on a10. Rxa8 Rxa8: now the cannon has no screen (a2..a7
        // empty), so it cannot recapture; the exchange loses the rook for a knight.
        let v = Registry::builtin().get("soho").unwrap();
        let pos = Position::from_fen(v, "r4k4/10/n9/10/10/R9/10/10/5K4/C9 w - - 0 1").unwrap();
        let values = values_of(&pos);
        let m = pos.parse_uci("a5a8").unwrap();
        let knight = values.value(pos.variant().kind_by_letter('N').unwrap().index());
        let rook = values.value(pos.variant().kind_by_letter('R').unwrap().index());
        assert_eq!(brute_move(&pos, m, &values), knight - rook);
        assert!(see_ge(&pos, m, knight - rook, &values));
        assert!(!see_ge(&pos, m, knight - rook + 1, &values));
    }
}
