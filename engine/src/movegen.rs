//! Fully legal move generation.
//!
//! One generator serves both listing and counting: it hands whole target sets to a
//! [`MoveSink`], which either expands them into moves or just counts them (perft's bulk count
//! at the last ply). Legality is decided up front where that is cheap (checkers, pins, evasion
//! masks) and by simulating the move only where it is not: king moves, en passant, castling,
//! and anything touching an enemy cannon's line to our king (a cannon's screen can be any
//! piece, so moving onto or off its line can create or remove a check).

use crate::bitboard::Bitboard;
use crate::geometry::Square;
use crate::movement::Mode;
use crate::moves::{Move, MoveKind};
use crate::piece::{Color, PieceKind};
use crate::position::{Position, castling_bit, ep_victim};
use crate::variant::{DropInfo, KindInfo, Role, colour_right_bit};

/// A list of moves.
pub type MoveList = Vec<Move>;

/// Receives generated moves.
pub(crate) trait MoveSink {
    /// One move.
    fn push(&mut self, m: Move);

    /// Plain moves from `from` to every square of `targets`.
    #[inline]
    fn push_targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::normal(from, to));
        }
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
}

/// Counts moves without building them.
#[derive(Debug, Default)]
pub(crate) struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }

    #[inline]
    fn push_targets(&mut self, _: Square, targets: Bitboard) {
        self.0 += u64::from(targets.count());
    }
}

/// Passes on only the moves a rule hook allows.
struct Filtered<'a, S> {
    pos: &'a Position,
    inner: &'a mut S,
}

impl<S: MoveSink> MoveSink for Filtered<'_, S> {
    #[inline]
    fn push(&mut self, m: Move) {
        if self.pos.variant.rules().allows(self.pos, m) {
            self.inner.push(m);
        }
    }
}

/// Looks for one move among the generated ones.
struct Find {
    want: Move,
    found: bool,
}

impl MoveSink for Find {
    #[inline]
    fn push(&mut self, m: Move) {
        self.found |= m == self.want;
    }

    #[inline]
    fn push_targets(&mut self, from: Square, targets: Bitboard) {
        if let MoveKind::Normal { from: f, to } = self.want.kind() {
            self.found |= f == from && targets.contains(to);
        }
    }
}

/// Collects the generated moves from one square to another.
struct Between {
    from: Square,
    to: Square,
    moves: MoveList,
}

impl MoveSink for Between {
    fn push(&mut self, m: Move) {
        if m.from() == Some(self.from) && m.to() == self.to {
            self.moves.push(m);
        }
    }
}

/// Per-node legality context.
struct Ctx {
    us: Color,
    them: Color,
    own: Bitboard,
    enemy: Bitboard,
    occupied: Bitboard,
    empty: Bitboard,
    king: Option<Square>,
    /// Where non-king moves may land (evasion mask when in check).
    target: Bitboard,
    /// Moves from or to these squares are verified by simulation.
    slow: Bitboard,
    pinned: Bitboard,
    pins: [(Square, Bitboard); 16],
    pin_count: usize,
    in_check: bool,
    only_king: bool,
    quiet_allowed: bool,
}

impl Ctx {
    #[inline]
    fn pin_ray(&self, sq: Square) -> Bitboard {
        self.pins[..self.pin_count]
            .iter()
            .find(|(s, _)| *s == sq)
            .map_or(Bitboard::EMPTY, |(_, r)| *r)
    }
}

#[inline]
fn by_mode(
    attacks: Bitboard,
    mode: Mode,
    own: Bitboard,
    enemy: Bitboard,
    empty: Bitboard,
) -> Bitboard {
    match mode {
        Mode::Both => attacks & !own,
        Mode::MoveOnly => attacks & empty,
        Mode::CaptureOnly => attacks & enemy,
    }
}

impl Position {
    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::with_capacity(128);
        self.generate(&mut list);
        list
    }

    /// Number of legal moves, without building them.
    pub fn count_legal_moves(&self) -> u64 {
        let mut counter = MoveCounter::default();
        self.generate(&mut counter);
        counter.0
    }

    /// True when `m` is legal here.
    ///
    /// Decided by running only the part of the move generator that could produce `m`, through
    /// the same masks: that one piece's moves, the pawns' moves, the king's moves (castling
    /// included) or the drops of that kind onto that square. The search asks this of every
    /// hash move and move parsing of every replayed move, so listing all 40-700 moves each time
    /// would be wasted. Either way the answer is exactly `legal_moves().contains(&m)`.
    pub fn is_legal(&self, m: Move) -> bool {
        /// Where `m` could come from.
        enum Source {
            Drop(PieceKind, Square),
            Board(Square, PieceKind),
        }
        let v = &*self.variant;
        // Checked before the (costlier) context: move parsing tries candidates that mostly
        // fail here.
        let source = if let MoveKind::Drop { kind, to, .. } = m.kind() {
            if v.drops.is_none() {
                return false;
            }
            Source::Drop(kind, to)
        } else {
            let Some(from) = m.from() else { return false };
            let Some(piece) = self.board[from.index()].filter(|p| p.color() == self.side) else {
                return false;
            };
            // Plain pieces make plain moves only.
            if v.kinds[piece.kind().index()].role == Role::Piece
                && !matches!(m.kind(), MoveKind::Normal { .. })
            {
                return false;
            }
            Source::Board(from, piece.kind())
        };
        let rules = v.rules();
        if rules.game_over_before_moves(self) {
            return false;
        }
        let ctx = self.context(rules.quiet_moves_allowed(self));
        let mut find = Find {
            want: m,
            found: false,
        };
        match source {
            // `generate` gives the king's moves only from the royal square, and nothing else
            // in double check.
            Source::Board(from, kind) if v.kinds[kind.index()].role == Role::RoyalKing => {
                if ctx.king != Some(from) {
                    return false;
                }
                self.king_moves(&ctx, from, &mut find);
            }
            _ if ctx.only_king => return false,
            Source::Drop(kind, to) => self.drops(&ctx, Some((kind, to)), &mut find),
            Source::Board(_, kind) if v.kinds[kind.index()].role == Role::Pawn => {
                self.pawn_moves(&ctx, kind, &mut find);
            }
            Source::Board(from, kind) => {
                self.piece_moves(&ctx, &v.kinds[kind.index()], from, &mut find);
            }
        }
        // What `generate`'s rule filter would have done to this one move.
        find.found && (!rules.filters_moves(self) || rules.allows(self, m))
    }

    /// Generates every legal move into `sink`.
    pub(crate) fn generate<S: MoveSink>(&self, sink: &mut S) {
        let rules = self.variant.rules();
        if rules.game_over_before_moves(self) {
            return;
        }
        let quiet_allowed = rules.quiet_moves_allowed(self);
        if rules.filters_moves(self) {
            let mut filtered = Filtered {
                pos: self,
                inner: sink,
            };
            self.generate_with(&mut filtered, quiet_allowed);
        } else {
            self.generate_with(sink, quiet_allowed);
        }
    }

    /// The context of the pieces' movement alone: no king, so no check, pins or simulated
    /// moves. `context` adds those; the failure analysis of move parsing uses it
    /// as it is, to tell "cannot move that way" from "leaves the king in check".
    #[inline]
    fn movement_context(&self, quiet_allowed: bool) -> Ctx {
        let t = &self.variant.tables;
        let us = self.side;
        let own = self.by_color[us];
        let enemy = self.by_color[!us];
        let occupied = own | enemy;
        Ctx {
            us,
            them: !us,
            own,
            enemy,
            occupied,
            empty: t.board & !occupied,
            king: None,
            target: t.board & !own,
            slow: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            pins: [(Square::new(0), Bitboard::EMPTY); 16],
            pin_count: 0,
            in_check: false,
            only_king: false,
            quiet_allowed,
        }
    }

    fn context(&self, quiet_allowed: bool) -> Ctx {
        let v = &*self.variant;
        let t = &v.tables;
        let mut ctx = self.movement_context(quiet_allowed);
        ctx.king = self.royal_square(ctx.us);
        let (own, enemy, occupied, them) = (ctx.own, ctx.enemy, ctx.occupied, ctx.them);
        let Some(k) = ctx.king else {
            return ctx;
        };
        let enemy_hoppers = self.kinds_bb(v.hoppers) & enemy;
        for h in enemy_hoppers {
            if h.file() == k.file() || h.rank() == k.rank() {
                ctx.slow |= t.between(k, h).with(h);
            }
        }
        let checkers = self.attackers_to(k, occupied, them);
        if checkers.any() {
            ctx.in_check = true;
            if (checkers & enemy_hoppers).any() {
                ctx.slow = t.board;
            } else if checkers.more_than_one() {
                ctx.only_king = true;
            } else {
                let c = checkers.lsb();
                let kind = self.board[c.index()].map(crate::piece::Piece::kind);
                let by_leap = kind.is_some_and(|kd| {
                    Some(kd) == v.pawn || v.kinds[kd.index()].leap_attacks[c.index()].contains(k)
                });
                ctx.target &= if by_leap {
                    Bitboard::from_square(c)
                } else {
                    t.between(k, c).with(c)
                };
            }
        }
        let snipers = (t.rook_attacks(k, Bitboard::EMPTY) & self.kinds_bb(v.orthogonal_attackers)
            | t.bishop_attacks(k, Bitboard::EMPTY) & self.kinds_bb(v.diagonal_attackers))
            & enemy;
        for s in snipers {
            let blockers = t.between(k, s) & occupied;
            if blockers.any() && !blockers.more_than_one() && (blockers & own).any() {
                ctx.pinned |= blockers;
                ctx.pins[ctx.pin_count] = (blockers.lsb(), t.between(k, s).with(s));
                ctx.pin_count += 1;
            }
        }
        ctx
    }

    fn generate_with<S: MoveSink>(&self, sink: &mut S, quiet_allowed: bool) {
        let v = &*self.variant;
        let ctx = self.context(quiet_allowed);
        if let Some(k) = ctx.king {
            self.king_moves(&ctx, k, sink);
        }
        if ctx.only_king {
            return;
        }
        for (i, info) in v.kinds.iter().enumerate() {
            if info.role != Role::Piece {
                continue;
            }
            for from in self.by_kind[i] & ctx.own {
                self.piece_moves(&ctx, info, from, sink);
            }
        }
        if let Some(p) = v.pawn {
            self.pawn_moves(&ctx, p, sink);
        }
        if v.pocket_kinds != 0 {
            self.drops(&ctx, None, sink);
        }
    }

    /// Emits the legal moves of the non-king, non-pawn piece of kind `info` on `from`.
    #[inline]
    fn piece_moves<S: MoveSink>(&self, ctx: &Ctx, info: &KindInfo, from: Square, sink: &mut S) {
        let mut targets = self.piece_targets(ctx, info, from);
        if info.hop {
            targets |= self.variant.tables.hop_targets(from, ctx.occupied) & ctx.enemy;
        }
        self.emit(ctx, sink, from, targets);
    }

    /// Emits plain moves from a non-king piece after applying the node's masks.
    #[inline]
    fn emit<S: MoveSink>(&self, ctx: &Ctx, sink: &mut S, from: Square, targets: Bitboard) {
        let mut targets = targets & ctx.target;
        if !ctx.quiet_allowed {
            targets &= ctx.enemy;
        }
        if ctx.pinned.contains(from) {
            targets &= ctx.pin_ray(from);
        }
        if ctx.slow.contains(from) {
            for to in targets {
                let m = Move::normal(from, to);
                if self.king_safe_after(ctx, m) {
                    sink.push(m);
                }
            }
        } else {
            sink.push_targets(from, targets & !ctx.slow);
            for to in targets & ctx.slow {
                let m = Move::normal(from, to);
                if self.king_safe_after(ctx, m) {
                    sink.push(m);
                }
            }
        }
    }

    /// Leap and ride targets of a piece of kind `info` on `from` (hops excluded), before the
    /// node's legality masks.
    #[inline]
    fn piece_targets(&self, ctx: &Ctx, info: &KindInfo, from: Square) -> Bitboard {
        let t = &self.variant.tables;
        let mut targets = info.leap_both[from.index()] & !ctx.own
            | info.leap_move[from.index()] & ctx.empty
            | info.leap_capture[from.index()] & ctx.enemy;
        if let Some(mode) = info.orthogonal {
            targets |= by_mode(
                t.rook_attacks(from, ctx.occupied),
                mode,
                ctx.own,
                ctx.enemy,
                ctx.empty,
            );
        }
        if let Some(mode) = info.diagonal {
            targets |= by_mode(
                t.bishop_attacks(from, ctx.occupied),
                mode,
                ctx.own,
                ctx.enemy,
                ctx.empty,
            );
        }
        targets
    }

    fn king_moves<S: MoveSink>(&self, ctx: &Ctx, k: Square, sink: &mut S) {
        let v = &*self.variant;
        let royal = v.royal.expect("a king square implies a royal kind");
        let info = &v.kinds[royal.index()];
        let mut targets = self.piece_targets(ctx, info, k);
        if !ctx.quiet_allowed {
            targets &= ctx.enemy;
        }
        let without_king = ctx.occupied.without(k);
        for to in targets {
            if !self.is_attacked(to, without_king, ctx.enemy.without(to), ctx.them) {
                sink.push(Move::normal(k, to));
            }
        }
        if ctx.in_check || !ctx.quiet_allowed {
            return;
        }
        let Some(castling) = &v.castling else {
            return;
        };
        let c = castling[ctx.us];
        if c.king_from != k {
            return;
        }
        for wing in 0..2 {
            if self.castling & castling_bit(ctx.us, wing) == 0
                || (c.empty[wing] & ctx.occupied).any()
            {
                continue;
            }
            let crossed = c.rook_to[wing];
            if self.is_attacked(crossed, ctx.occupied, ctx.enemy, ctx.them) {
                continue;
            }
            let m = Move::castle(k, c.king_to[wing]);
            if self.king_safe_after(ctx, m) {
                sink.push(m);
            }
        }
    }

    fn pawn_moves<S: MoveSink>(&self, ctx: &Ctx, pawn: PieceKind, sink: &mut S) {
        let v = &*self.variant;
        let promotion = v
            .promotion
            .as_ref()
            .expect("pawns come with promotion rules");
        let mut choices = [PieceKind(0); 16];
        let mut choice_count = 0;
        for &k in &promotion.choices {
            if !promotion.only_lost
                || self.pieces_of(ctx.us, k).count()
                    < u32::from(v.initial_counts[ctx.us][k.index()])
            {
                choices[choice_count] = k;
                choice_count += 1;
            }
        }
        let choices = &choices[..choice_count];
        let forced = promotion.forced[ctx.us];
        let optional = promotion.optional[ctx.us];
        let step = 10 * i32::from(ctx.us.forward());
        let ahead = |sq: Square| -> Option<Square> {
            let i = sq.index() as i32 + step;
            (0..100)
                .contains(&i)
                .then(|| Square::new(i as u8))
                .filter(|s| v.tables.board.contains(*s))
        };
        let pawns = self.pieces_of(ctx.us, pawn);
        for from in pawns {
            let pin_ray = if ctx.pinned.contains(from) {
                ctx.pin_ray(from)
            } else {
                v.tables.board
            };
            let mut targets = v.pawn_attacks[ctx.us][from.index()] & ctx.enemy;
            if ctx.quiet_allowed
                && let Some(one) = ahead(from)
                && ctx.empty.contains(one)
            {
                targets = targets.with(one);
                if v.double_step[ctx.us].contains(from)
                    && let Some(two) = ahead(one)
                    && ctx.empty.contains(two)
                {
                    targets = targets.with(two);
                }
            }
            targets &= ctx.target & pin_ray;
            for to in targets {
                if (ctx.slow.contains(from) || ctx.slow.contains(to))
                    && !self.king_safe_after(ctx, Move::normal(from, to))
                {
                    continue;
                }
                if forced.contains(to) {
                    for &k in choices {
                        sink.push(Move::promotion(from, to, k));
                    }
                } else {
                    sink.push(Move::normal(from, to));
                    if optional.contains(to) {
                        for &k in choices {
                            sink.push(Move::promotion(from, to, k));
                        }
                    }
                }
            }
            if let Some(ep) = self.en_passant
                && v.pawn_attacks[ctx.us][from.index()].contains(ep)
            {
                let m = Move::en_passant(from, ep);
                if self.king_safe_after(ctx, m) {
                    sink.push(m);
                }
            }
        }
    }

    /// Drops from the pocket, read from the variant's [`DropInfo`]: onto empty squares, and,
    /// where the variant allows it, onto a friendly pawn that is relocated to a square that was
    /// empty before the move.
    /// Pushes the legal drops, or with `only` just those of one kind onto one square (for
    /// [`Position::is_legal`]).
    fn drops<S: MoveSink>(&self, ctx: &Ctx, only: Option<(PieceKind, Square)>, sink: &mut S) {
        let v = &*self.variant;
        let Some(rules) = &v.drops else {
            return;
        };
        let pocket = &self.pocket[ctx.us];
        let in_pocket: u32 = pocket.iter().map(|&n| u32::from(n)).sum();
        let squares = only.map_or(v.tables.board, |(_, sq)| Bitboard::from_square(sq));
        let plain = ctx.empty & ctx.target & squares;
        // A relocation drop changes no occupancy on the drop square and only adds the pawn's
        // new square, so out of check it is safe unless that square screens a cannon; in check
        // (where a variant allows it at all) it is simulated.
        let relocation = if !ctx.in_check || rules.relocate_in_check {
            rules.relocation[ctx.us] & ctx.empty
        } else {
            Bitboard::EMPTY
        };
        // Friendly pawns a piece may be dropped onto (validation ties relocation to pawns).
        let under = match v.pawn {
            Some(p) if relocation.any() => self.pieces_of(ctx.us, p),
            _ => Bitboard::EMPTY,
        };
        for kind in crate::variant::Variant::kinds_in(v.pocket_kinds) {
            if pocket[kind.index()] == 0 || only.is_some_and(|(k, _)| k != kind) {
                continue;
            }
            let allowed = self.drop_squares(rules, ctx.us, kind, in_pocket) & squares;
            // A dropped king is checked on its own square after the whole move.
            let verify = Some(kind) == v.royal;
            for to in plain & allowed {
                let m = Move::drop(kind, to, None);
                if !(verify || ctx.slow.contains(to)) || self.king_safe_after(ctx, m) {
                    sink.push(m);
                }
            }
            let verify = verify || ctx.in_check;
            for to in under & allowed {
                for r in relocation {
                    let m = Move::drop(kind, to, Some(r));
                    if !(verify || ctx.slow.contains(r)) || self.king_safe_after(ctx, m) {
                        sink.push(m);
                    }
                }
            }
        }
    }

    /// Where `color` may drop `kind` as far as the drop rules go (before occupancy and check):
    /// colour-bound kinds only on square colours whose right remains; the royal king only on
    /// its ranks while `in_pocket` says other pieces remain.
    #[inline]
    pub(crate) fn drop_squares(
        &self,
        rules: &DropInfo,
        color: Color,
        kind: PieceKind,
        in_pocket: u32,
    ) -> Bitboard {
        let board = self.variant.tables.board;
        let mut allowed = board;
        if rules.colour_bound == Some(kind) {
            let mut colours = Bitboard::EMPTY;
            if self.drop_rights & colour_right_bit(color, true) != 0 {
                colours |= rules.light;
            }
            if self.drop_rights & colour_right_bit(color, false) != 0 {
                colours |= board & !rules.light;
            }
            allowed &= colours;
        }
        if in_pocket > 1
            && Some(kind) == self.variant.royal
            && let Some(ranks) = &rules.royal_ranks
        {
            allowed &= ranks[color];
        }
        allowed
    }

    /// The moves from `from` to `to` that the side to move's piece there could make if its own
    /// king's safety, the rule family's limits on quiet moves and its per-move filter were all
    /// ignored: castling counts when its right remains and its path is empty, whatever attacks
    /// it. Only the failure analysis of move parsing asks this (every legal move is among these,
    /// so a move found here but not legal is refused for its king or for a family rule).
    pub(crate) fn movement_moves_between(&self, from: Square, to: Square) -> MoveList {
        let v = &*self.variant;
        let mut between = Between {
            from,
            to,
            moves: MoveList::new(),
        };
        let Some(piece) = self.board[from.index()].filter(|p| p.color() == self.side) else {
            return between.moves;
        };
        let ctx = self.movement_context(true);
        let info = &v.kinds[piece.kind().index()];
        match info.role {
            Role::RoyalKing => {
                if self.piece_targets(&ctx, info, from).contains(to) {
                    between.push(Move::normal(from, to));
                }
                if let Some(castling) = &v.castling {
                    let c = castling[ctx.us];
                    for wing in 0..2 {
                        if c.king_from == from
                            && c.king_to[wing] == to
                            && self.castling & castling_bit(ctx.us, wing) != 0
                            && (c.empty[wing] & ctx.occupied).is_empty()
                        {
                            between.push(Move::castle(from, to));
                        }
                    }
                }
            }
            Role::Pawn => self.pawn_moves(&ctx, piece.kind(), &mut between),
            Role::Piece => self.piece_moves(&ctx, info, from, &mut between),
        }
        between.moves
    }

    /// True when our royal king (if any, including one dropped by `m`) is not attacked after
    /// `m`.
    fn king_safe_after(&self, ctx: &Ctx, m: Move) -> bool {
        let k = match (ctx.king, m.kind()) {
            (Some(k), _) => k,
            (None, MoveKind::Drop { kind, to, .. }) if Some(kind) == self.variant.royal => to,
            (None, _) => return true,
        };
        let (king, occupied, enemy) = match m.kind() {
            MoveKind::Normal { from, to } | MoveKind::Promotion { from, to, .. } => (
                if from == k { to } else { k },
                ctx.occupied.without(from).with(to),
                ctx.enemy.without(to),
            ),
            MoveKind::EnPassant { from, to } => {
                let victim = ep_victim(to, ctx.us);
                (
                    k,
                    ctx.occupied.without(from).without(victim).with(to),
                    ctx.enemy.without(victim),
                )
            }
            MoveKind::Castle { from, to } => {
                let (rook_from, rook_to) = self.castling_rook(ctx.us, from, to);
                (
                    to,
                    ctx.occupied
                        .without(from)
                        .without(rook_from)
                        .with(to)
                        .with(rook_to),
                    ctx.enemy,
                )
            }
            MoveKind::Drop { to, relocation, .. } => {
                let occupied = ctx.occupied.with(to);
                (
                    k,
                    relocation.map_or(occupied, |r| occupied.with(r)),
                    ctx.enemy,
                )
            }
        };
        !self.is_attacked(king, occupied, enemy, ctx.them)
    }
}
