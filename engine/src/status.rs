//! The game status of a position, and the check tests the search and SAN ask for.
//!
//! The status comes from the rules' verdict before any move (Decima's ten points), then from the
//! legal moves (none: checkmate or the variant's equivalent, or stalemate), then from the draws
//! by the fifty-move rule, by repetition and by insufficient material (RULES.md's order of
//! endings). With draw claims, threefold repetition and the fifty-move rule only make a draw
//! claimable, and the fifth repetition and the 150th half-move end the game.

use crate::geometry::Square;
use crate::movement::Mode;
use crate::moves::{Move, MoveKind};
use crate::outcome::{GameStatus, Termination};
use crate::position::Position;
use crate::variant::DeadMaterial;

impl Position {
    /// The game status, counting repetitions over the moves played since setup.
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Color, GameStatus, Position, Registry, Termination};
    /// let mut pos = Position::new(Registry::builtin().get("chess").unwrap());
    /// for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
    ///     let mv = pos.parse_move(m).unwrap();
    ///     pos.play(mv);
    /// }
    /// assert_eq!(
    ///     pos.status(),
    ///     GameStatus::Finished { winner: Some(Color::Black), reason: Termination::Checkmate }
    /// );
    /// ```
    pub fn status(&self) -> GameStatus {
        self.status_inner(|| self.count_legal_moves())
    }

    /// [`Position::status`] for a caller that already generated this position's legal moves
    /// (`legal_moves` is their number), so they are not generated again.
    pub fn status_with_legal_moves(&self, legal_moves: usize) -> GameStatus {
        self.status_inner(|| legal_moves as u64)
    }

    /// The status; `legal_moves` is asked only when the rules need the move count.
    ///
    /// The order is RULES.md's: the variant's own verdict, then mate and stalemate (so a mate
    /// that also completes a repetition or the hundredth half-move is a mate), then the draws
    /// by rule in [`Position::draw_by_rule`]'s order.
    fn status_inner(&self, legal_moves: impl FnOnce() -> u64) -> GameStatus {
        let rules = self.variant.rules();
        if let Some(status) = rules.status_before_moves(self) {
            return status;
        }
        if legal_moves() == 0 {
            return if self.in_check() {
                GameStatus::Finished {
                    winner: Some(!self.side),
                    reason: rules.unanswered_check(),
                }
            } else {
                GameStatus::Finished {
                    winner: None,
                    reason: Termination::Stalemate,
                }
            };
        }
        match self.draw_by_rule() {
            Some(reason) => GameStatus::Finished {
                winner: None,
                reason,
            },
            None => GameStatus::Ongoing,
        }
    }

    /// The draw by rule that ends the game in this position, ignoring mate and stalemate:
    /// the fifty-move rule, then repetition, then insufficient material. With draw claims
    /// ([`Position::set_draw_claims`]) the first two end the game only at the 150th half-move
    /// and the fifth occurrence.
    fn draw_by_rule(&self) -> Option<Termination> {
        let (half_moves, occurrences, by_moves, by_repetition) = if self.draw_claims {
            (
                150,
                5,
                Termination::SeventyFiveMoveRule,
                Termination::FivefoldRepetition,
            )
        } else {
            (
                100,
                3,
                Termination::FiftyMoveRule,
                Termination::ThreefoldRepetition,
            )
        };
        if self.variant.rules().fifty_move_rule() && self.halfmove >= half_moves {
            Some(by_moves)
        } else if self.repetitions() >= occurrences {
            Some(by_repetition)
        } else if self.insufficient_material() {
            Some(Termination::InsufficientMaterial)
        } else {
            None
        }
    }

    /// True when the game is surely over without looking at the moves: the variant's verdict
    /// or a draw by rule. Cheap (no move generation), so a replay can ask it before every
    /// move; a position without legal moves answers false here (unless a draw by rule holds
    /// too), and its moves fail anyway.
    pub fn draw_or_verdict_without_moves(&self) -> bool {
        self.variant.rules().game_over_before_moves(self) || self.draw_by_rule().is_some()
    }

    /// With draw claims in force, the draw the side to move may claim in an ongoing game:
    /// the fifty-move rule (100 half-moves), else threefold repetition. `None` without draw
    /// claims (those draws then end the game) and when nothing can be claimed.
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Position, Registry, Termination};
    /// let mut pos = Position::new(Registry::builtin().get("chess").unwrap());
    /// pos.set_draw_claims(true);
    /// pos.replay(["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]).unwrap();
    /// assert_eq!(pos.claimable_draw(), Some(Termination::ThreefoldRepetition));
    /// assert!(!pos.status().is_finished());
    /// ```
    pub fn claimable_draw(&self) -> Option<Termination> {
        if !self.draw_claims {
            return None;
        }
        if self.variant.rules().fifty_move_rule() && self.halfmove >= 100 {
            Some(Termination::FiftyMoveRule)
        } else if self.repetitions() >= 3 {
            Some(Termination::ThreefoldRepetition)
        } else {
            None
        }
    }

    /// True when neither side can ever win (a dead position), as the variant defines it:
    /// see [`DeadMaterial`].
    pub fn insufficient_material(&self) -> bool {
        let v = &*self.variant;
        let dead_material = v.dead_material();
        if dead_material == DeadMaterial::Never {
            return false;
        }
        let Some(king) = v.royal_kind() else {
            return false;
        };
        let pockets_empty = self.pocket.0.iter().all(|p| p.iter().all(|&n| n == 0));
        // Both kings must stand on the board: a king still in the pocket is a pocket piece.
        let kings = self.pieces_by_kind(king);
        if !pockets_empty || kings.count() != 2 {
            return false;
        }
        let others = self.occupied() & !kings;
        if others.is_empty() {
            return true;
        }
        if dead_material != DeadMaterial::Orthodox {
            return false;
        }
        let kind_bb = |letter| {
            v.kind_by_letter(letter)
                .map_or(crate::bitboard::Bitboard::EMPTY, |k| self.pieces_by_kind(k))
        };
        let (knights, bishops) = (kind_bb('N'), kind_bb('B'));
        if others == knights {
            return knights.count() == 1;
        }
        if others != bishops {
            return false;
        }
        // Bishops never change square colour, so all on one colour can never mate.
        let colour = |sq: Square| (sq.file() + sq.rank()) % 2;
        let mut squares = bishops.into_iter();
        let first = squares.next().map(colour);
        squares.all(|sq| Some(colour(sq)) == first)
    }

    /// How often the current position has occurred (1 = only now), looking back over the
    /// moves played since setup and no further than the last irreversible move.
    pub fn repetitions(&self) -> usize {
        let window = (self.halfmove as usize).min(self.history.len());
        let len = self.history.len();
        1 + (2..=window)
            .step_by(2)
            .filter(|&back| self.history[len - back].hash == self.hash)
            .count()
    }

    /// True when the side to move is in check, in the variant's sense.
    pub fn in_check(&self) -> bool {
        self.variant.rules().in_check(self)
    }

    /// [`Position::in_check`] right after the plain piece move `from` -> `to` (normal or
    /// promotion) was played, usually without scanning every attacker.
    ///
    /// Why it can be cheaper: the position before the move was legal, so the mover attacked
    /// nothing royal then (FEN reading refuses a side not to move in check). Without hopping
    /// pieces, whose screens make any occupancy change matter, only two things can make a check:
    /// the moved piece itself, and a rider of the mover behind the vacated `from` square
    /// (the destination's occupancy does not change, a capture replaces a piece). Each is
    /// tested only when the geometry allows it; everything else falls back to the full test.
    #[inline]
    pub(crate) fn in_check_after_piece_move(&self, from: Square, to: Square) -> bool {
        let v = &*self.variant;
        if !v.rules().check_is_king_attack() || v.hoppers != 0 {
            return self.in_check();
        }
        let Some(k) = self.royal_square(self.side) else {
            return false;
        };
        let mover = !self.side;
        let Some(piece) = self.board[to.index()].filter(|p| p.color() == mover) else {
            return self.in_check();
        };
        let kind = piece.kind();
        let info = &v.kinds[kind.index()];
        let occupied = self.occupied();
        let (df, dr) = (k.file().abs_diff(to.file()), k.rank().abs_diff(to.rank()));
        // The moved piece: a pawn or leaper attack is unblockable, a rider's needs a clear ray.
        if Some(kind) == v.pawn {
            if v.pawn_attacks[self.side][k.index()].contains(to) {
                return true;
            }
        } else if info.leap_attacks[to.index()].contains(k)
            || (info.orthogonal.is_some_and(Mode::captures)
                && (df == 0 || dr == 0)
                && v.tables.rook_attacks(k, occupied).contains(to))
            || (info.diagonal.is_some_and(Mode::captures)
                && df == dr
                && v.tables.bishop_attacks(k, occupied).contains(to))
        {
            return true;
        }
        // A rider uncovered on the line from the king through `from`.
        let (ff, fr) = (
            k.file().abs_diff(from.file()),
            k.rank().abs_diff(from.rank()),
        );
        if ff == 0 || fr == 0 {
            let riders = self.kinds_bb(v.orthogonal_attackers) & self.by_color[mover];
            riders.any() && (v.tables.rook_attacks(k, occupied) & riders).any()
        } else if ff == fr {
            let riders = self.kinds_bb(v.diagonal_attackers) & self.by_color[mover];
            riders.any() && (v.tables.bishop_attacks(k, occupied) & riders).any()
        } else {
            false
        }
    }

    /// False when playing `m` (a legal move of the side to move) surely does not give check;
    /// true when it might. Decided from the geometry alone, without playing the move, so the
    /// search can prune a futile quiet move without making and unmaking it (most moves it
    /// prunes there could never check).
    ///
    /// Conservative: only rule families whose check is an attack on a royal king are judged,
    /// and only plain piece moves (promotions included); anything else answers true. A move might check when the piece
    /// lands a pawn or leaper attack on the enemy king, or lands on one of the king's lines
    /// while it rides or hops along it, or when it leaves a king line the mover has riders or
    /// hoppers for (a discovered check), or, with hoppers, lands on a king's rank or file
    /// (a new screen).
    ///
    /// # Examples
    /// ```
    /// use variant_engine::{Position, Registry};
    /// let chess = Registry::builtin().get("chess").unwrap();
    /// let pos = Position::new(chess);
    /// let m = |t| pos.parse_uci(t).unwrap();
    /// assert!(!pos.move_may_give_check(m("a2a3")));
    /// // The e-pawn leaves the black king's file, which rooks ride: the geometry alone cannot
    /// // rule out a discovered check.
    /// assert!(pos.move_may_give_check(m("e2e4")));
    /// ```
    pub fn move_may_give_check(&self, m: Move) -> bool {
        let v = &*self.variant;
        if !v.rules().check_is_king_attack() {
            return true;
        }
        // A king still in the pocket cannot be checked, nor brought in by the opponent.
        let Some(k) = self.royal_square(!self.side) else {
            return false;
        };
        let (from, to, kind) = match m.kind() {
            MoveKind::Normal { from, to } => match self.board[from.index()] {
                Some(p) => (from, to, p.kind()),
                None => return true,
            },
            MoveKind::Promotion { from, to, kind } => (from, to, kind),
            _ => return true,
        };
        let rook_line = |sq: Square| sq.file() == k.file() || sq.rank() == k.rank();
        let bishop_line = |sq: Square| k.file().abs_diff(sq.file()) == k.rank().abs_diff(sq.rank());
        let info = &v.kinds[kind.index()];
        let direct = if Some(kind) == v.pawn {
            v.pawn_attacks[!self.side][k.index()].contains(to)
        } else {
            info.leap_attacks[to.index()].contains(k)
                || ((info.hop || info.orthogonal.is_some_and(Mode::captures)) && rook_line(to))
                || (info.diagonal.is_some_and(Mode::captures) && bishop_line(to))
        };
        let discovered = ((v.orthogonal_attackers | v.hoppers) != 0 && rook_line(from))
            || (v.diagonal_attackers != 0 && bishop_line(from));
        let screen = v.hoppers != 0 && rook_line(to);
        direct || discovered || screen
    }
}

#[cfg(test)]
mod tests {
    use crate::moves::MoveKind;
    use crate::rng::SplitMix64;
    use crate::{Position, Registry};

    /// The search's two geometric check shortcuts against playing each move and running the
    /// full attack test, over random games of every variant (cannons and drops included).
    #[test]
    fn check_shortcuts_agree_with_the_full_test() {
        let mut checks_seen = 0;
        for variant in Registry::builtin().iter() {
            for seed in 1..=6 {
                let mut rng = SplitMix64(seed);
                let mut pos = Position::new(variant.clone());
                for _ in 0..80 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for &m in &moves {
                        let may = pos.move_may_give_check(m);
                        let mut after = pos.clone();
                        after.play(m);
                        let check = after.in_check();
                        checks_seen += usize::from(check);
                        assert!(
                            may || !check,
                            "{} checks at {} but move_may_give_check says no",
                            pos.uci(m),
                            pos.fen()
                        );
                        if let MoveKind::Normal { from, to }
                        | MoveKind::Promotion { from, to, .. } = m.kind()
                        {
                            assert_eq!(
                                after.in_check_after_piece_move(from, to),
                                check,
                                "{} at {}",
                                pos.uci(m),
                                pos.fen()
                            );
                        }
                    }
                    pos.play(moves[rng.below(moves.len() as u64) as usize]);
                }
            }
        }
        // Random games check often; a run that saw few checks would prove little.
        assert!(checks_seen > 500, "only {checks_seen} checking moves seen");
    }
}
