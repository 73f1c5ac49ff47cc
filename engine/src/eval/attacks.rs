//! The terms that need every piece's attacks: mobility, king danger and threats, in one pass.
//!
//! Pieces are data, so a piece's attacks come from its kind's tables (`KindInfo`): leaps, rook
//! and bishop rides, and the SOHO cannon's hop (`mRcpR`): it moves like a rook but attacks only
//! beyond a screen, so its attack set along each rook line is the stretch after the first
//! piece up to and including the next one, which is also what `Position::attackers_to` finds.
//! One pass over the pieces gives, per side, what each kind attacks and what all of them do;
//! the terms are then a few bitboard operations each:
//! - **mobility**: safe reachable squares (not own-occupied, not attacked by an enemy pawn;
//!   moves onto empty squares and captures of enemy pieces, so a cannon counts its rook
//!   moves and its hop captures), looked up in a per-kind table as long as the kind's largest
//!   reach on the board;
//! - **king danger**: per enemy piece that attacks the king zone, its kind's weight plus a
//!   weight per attacked zone square; per enemy kind, the safe checks it has (squares it can
//!   reach and check from where the king's side does not attack it); zone squares only the
//!   king defends; the sum (less a shield credit) costs quadratically. In a drop game a
//!   piece in hand checks safely from any empty safe square it attacks the king from;
//! - **threats**: pieces attacked by enemy pawns, by cheaper enemy pieces, and pieces attacked
//!   but not defended (hanging).

use crate::bitboard::Bitboard;
use crate::eval::params::{Layout, NONE, SAFE_CHECKS_COUNTED};
use crate::eval::sum::Sum;
use crate::eval::terms::EvalTerms;
use crate::eval::trace::{KING_DANGER_EG_DIV, KING_DANGER_MG_DIV, Trace};
use crate::geometry::{SQUARE_COUNT, Square};
use crate::movement::{Direction, Mode};
use crate::piece::{ByColor, Color, MAX_KINDS};
use crate::position::Position;
use crate::variant::{KindMask, Role, Variant};

/// A victim counts as threatened by a cheaper piece when the attacker's value is below the
/// victim's by more than this (so a knight does not "threaten" a bishop of about its value).
const CHEAPER_MARGIN: i32 = 50;

/// The kinds that move by their own pattern (neither pawns nor a royal king): the attackers
/// and victims whose attacks the threat terms compare.
pub(crate) fn piece_kinds(variant: &Variant) -> Vec<usize> {
    (0..variant.kind_count())
        .filter(|&k| variant.kinds[k].role == Role::Piece)
        .collect()
}

/// Per victim kind among `pieces`: the kinds of `pieces` cheaper than it by more than
/// [`CHEAPER_MARGIN`] under `value`. The evaluation compares the spec's values and the move
/// ordering the search's exchange values, so the value is the caller's.
pub(crate) fn cheaper_masks(
    pieces: &[usize],
    value: impl Fn(usize) -> i32,
) -> [KindMask; MAX_KINDS] {
    let mut cheaper = [0; MAX_KINDS];
    for &v in pieces {
        for &k in pieces {
            if value(k) + CHEAPER_MARGIN < value(v) {
                cheaper[v] |= 1 << k;
            }
        }
    }
    cheaper
}

/// The squares `color`'s pawns (of kind `pawn`, if the variant has pawns) attack.
#[inline]
pub(crate) fn pawn_attack_map(pos: &Position, pawn: Option<usize>, color: Color) -> Bitboard {
    let mut attacks = Bitboard::EMPTY;
    if let Some(p) = pawn {
        for sq in pos.by_kind[p] & pos.by_color[color] {
            attacks |= pos.variant.pawn_attacks[color][sq.index()];
        }
    }
    attacks
}

/// The union of `of(k)` over the kinds `k` in `mask`: for example the squares attacked by
/// any kind cheaper than a victim, given each kind's attacks.
#[inline]
pub(crate) fn union_of_kinds(mut mask: KindMask, of: impl Fn(usize) -> Bitboard) -> Bitboard {
    let mut union = Bitboard::EMPTY;
    while mask != 0 {
        union |= of(mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
    union
}

/// Per-variant tables of the attack pass, built once per search.
#[derive(Debug)]
pub(super) struct AttackTables {
    /// The non-pawn, non-royal kinds (the pieces that have mobility).
    pieces: Vec<usize>,
    /// Per victim kind: the kinds whose attacks on it count as a cheaper piece's.
    cheaper: [KindMask; MAX_KINDS],
    /// Per side and king square: the king zone (the king's square, the squares next to it
    /// and the three squares two ranks ahead).
    zone: Box<ByColor<[Bitboard; SQUARE_COUNT]>>,
    /// Per side and king square: own pawns there shield the king (up to two ranks ahead).
    pub(super) shield: Box<ByColor<[Bitboard; SQUARE_COUNT]>>,
    pawn: Option<usize>,
    royal: Option<usize>,
}

impl AttackTables {
    /// Tables for `variant`.
    pub(super) fn new(variant: &Variant) -> Self {
        let size = variant.size();
        let pieces = piece_kinds(variant);
        let cheaper = cheaper_masks(&pieces, |k| variant.pieces()[k].value);
        let mut zone = Box::new(ByColor([[Bitboard::EMPTY; SQUARE_COUNT]; 2]));
        let mut shield = Box::new(ByColor([[Bitboard::EMPTY; SQUARE_COUNT]; 2]));
        for sq in size.squares() {
            for c in Color::ALL {
                let fwd = c.forward();
                let mut z = Bitboard::from_square(sq);
                let mut sh = Bitboard::EMPTY;
                for df in -1..=1 {
                    for dr in -1..=2 {
                        if let Some(s) = sq.offset(df, dr * fwd, size) {
                            z = z.with(s);
                            if dr >= 1 {
                                sh = sh.with(s);
                            }
                        }
                    }
                }
                zone[c][sq.index()] = z;
                shield[c][sq.index()] = sh;
            }
        }
        Self {
            pieces,
            cheaper,
            zone,
            shield,
            pawn: variant.pawn.map(crate::PieceKind::index),
            royal: variant.royal.map(crate::PieceKind::index),
        }
    }
}

/// The squares `sq`'s piece of kind `kind` attacks (could capture on) and the squares it
/// moves to when they are empty.
#[inline]
pub(crate) fn piece_reach(
    v: &Variant,
    kind: usize,
    sq: Square,
    occupied: Bitboard,
) -> (Bitboard, Bitboard) {
    let info = &v.kinds[kind];
    let t = &v.tables;
    let i = sq.index();
    let mut attacks = info.leap_both[i] | info.leap_capture[i];
    let mut moves = info.leap_both[i] | info.leap_move[i];
    if let Some(mode) = info.orthogonal {
        let r = t.rook_attacks(sq, occupied);
        if mode.captures() {
            attacks |= r;
        }
        if mode != Mode::CaptureOnly {
            moves |= r;
        }
    }
    if let Some(mode) = info.diagonal {
        let r = t.bishop_attacks(sq, occupied);
        if mode.captures() {
            attacks |= r;
        }
        if mode != Mode::CaptureOnly {
            moves |= r;
        }
    }
    if info.hop {
        // The cannon attacks past its screen: the stretch after the first piece, up to and
        // including the next.
        for dir in Direction::ORTHOGONAL {
            if let Some(screen) = t.first_blocker(dir, sq, occupied) {
                attacks |= t.ray_attacks(dir, screen, occupied);
            }
        }
    }
    (attacks, moves)
}

/// What the pass found that later terms use: every square each side attacks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Attacked {
    /// All squares attacked, per side (pawns, pieces and king).
    pub all: ByColor<Bitboard>,
}

/// Mobility, king danger and threats for both sides, added to `sum`.
pub(super) fn piece_terms<T: Trace>(
    tables: &AttackTables,
    layout: &Layout,
    terms: EvalTerms,
    pos: &Position,
    sum: &mut Sum<'_, T>,
) -> Attacked {
    let v = &*pos.variant;
    let occupied = pos.occupied();
    let pawn_attacks = ByColor(Color::ALL.map(|c| pawn_attack_map(pos, tables.pawn, c)));
    let mut all = pawn_attacks;
    let mut by_kind = [ByColor([Bitboard::EMPTY; 2]); MAX_KINDS];
    // Where each side's pieces of a kind can move to an empty square (differs from the
    // attacks only for the cannon), for the safe checks.
    let mut moves_by_kind = [ByColor([Bitboard::EMPTY; 2]); MAX_KINDS];
    let kings = ByColor([
        pos.royal_square(Color::White),
        pos.royal_square(Color::Black),
    ]);
    let mut danger = ByColor([0i32; 2]);
    let mut defended = ByColor([Bitboard::EMPTY; 2]);
    let mut attacked_zone = ByColor([false; 2]);
    for c in Color::ALL {
        let own = pos.by_color[c];
        let enemy = pos.by_color[!c];
        let reachable = !own & !pawn_attacks[!c];
        let zone = kings[!c].map(|k| tables.zone[!c][k.index()]);
        for &k in &tables.pieces {
            let bb = pos.by_kind[k] & own;
            if bb.is_empty() {
                continue;
            }
            let mob = layout.mobility[k];
            let mob_max = layout.mobility_len[k].saturating_sub(1);
            for sq in bb {
                let (attacks, moves) = piece_reach(v, k, sq, occupied);
                by_kind[k][c] |= attacks;
                moves_by_kind[k][c] |= moves;
                if terms.mobility && mob != NONE {
                    let safe = ((moves & !occupied) | (attacks & enemy)) & reachable;
                    let n = (safe.count() as usize).min(mob_max);
                    sum.add(c, mob + n, 1);
                }
                if terms.king_safety
                    && let Some(z) = zone
                {
                    let hits = attacks & z;
                    if hits.any() && layout.safety_attacker[k] != NONE {
                        attacked_zone[!c] = true;
                        danger[!c] += sum.danger(!c, layout.safety_attacker[k], 1);
                        danger[!c] += sum.danger(!c, layout.safety_hits, hits.count() as i32);
                    }
                }
            }
            all[c] |= by_kind[k][c];
        }
        // What the side defends with its pawns and pieces, the king left out.
        defended[c] = all[c];
        if let (Some(r), Some(ksq)) = (tables.royal, kings[c]) {
            let king_attacks = v.kinds[r].leap_attacks[ksq.index()];
            by_kind[r][c] = king_attacks;
            all[c] |= king_attacks;
        }
    }
    if terms.king_safety {
        for c in Color::ALL {
            let Some(ksq) = kings[c] else { continue };
            // Safe checks: squares from which an enemy piece of a kind would attack the king
            // (every non-pawn kind attacks symmetrically, the cannon's hop over one screen
            // included, so they are the kind's attacks from the king's square) that such a
            // piece can reach and where the king's side does not attack it.
            let attacker = !c;
            let safe_for_attacker = !all[c] & !pos.by_color[attacker];
            for &k in &tables.pieces {
                let id = layout.safety_check[k];
                // A piece in hand can be dropped on any empty square.
                let in_hand = pos.pocket[attacker][k] > 0;
                if id == NONE || ((pos.by_kind[k] & pos.by_color[attacker]).is_empty() && !in_hand)
                {
                    continue;
                }
                let mut reach = (moves_by_kind[k][attacker] & !occupied)
                    | (by_kind[k][attacker] & pos.by_color[c]);
                if in_hand {
                    reach |= !occupied;
                }
                let checks = piece_reach(v, k, ksq, occupied).0 & reach & safe_for_attacker;
                let n = (checks.count() as i32).min(SAFE_CHECKS_COUNTED);
                if n > 0 {
                    attacked_zone[c] = true;
                    danger[c] += sum.danger(c, id, n);
                }
            }
            if !attacked_zone[c] {
                continue;
            }
            if layout.safety_weak != NONE {
                // Zone squares the enemy attacks that nothing but the king defends.
                let weak = tables.zone[c][ksq.index()] & all[attacker] & !defended[c];
                danger[c] += sum.danger(c, layout.safety_weak, weak.count() as i32);
            }
            let mut d = danger[c] + sum.danger(c, layout.safety_offset, 1);
            if let Some(p) = tables.pawn
                && layout.safety_shield != NONE
            {
                let shield = tables.shield[c][ksq.index()] & pos.by_kind[p] & pos.by_color[c];
                let n = (shield.count() as i32).min(3);
                d += sum.danger(c, layout.safety_shield, -n);
            }
            if d > 0 {
                sum.score[c].mg -= d * d / KING_DANGER_MG_DIV;
                sum.score[c].eg -= d / KING_DANGER_EG_DIV;
            }
        }
    }
    if terms.threats {
        for c in Color::ALL {
            // Threats by `c` against the other side's pieces.
            let their = pos.by_color[!c];
            for &k in &tables.pieces {
                let victims = pos.by_kind[k] & their;
                if victims.is_empty() {
                    continue;
                }
                let by_pawn = victims & pawn_attacks[c];
                if layout.threat_pawn[k] != NONE {
                    sum.add(c, layout.threat_pawn[k], by_pawn.count() as i32);
                }
                let cheaper = union_of_kinds(tables.cheaper[k], |a| by_kind[a][c]);
                let by_lesser = victims & cheaper & !by_pawn;
                sum.add(c, layout.threat_lesser[k], by_lesser.count() as i32);
            }
            let mut targets = their;
            if let Some(r) = tables.royal {
                targets &= !pos.by_kind[r];
            }
            let hanging = targets & all[c] & !all[!c];
            sum.add(c, layout.hanging, hanging.count() as i32);
        }
    }
    Attacked { all }
}
