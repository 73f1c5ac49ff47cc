//! Variants: the data that describes one ([`VariantSpec`], with its [`RuleSet`] tag) and its
//! validated, table-carrying form ([`Variant`]); the built-in specs are in `builtin.rs`.
//!
//! Deriving the tables happens here. The last step of [`VariantSpec::validate`], setting up the
//! start position, needs the position and FEN code above this module, so it is written in
//! `registry.rs` beside the registry of built-ins.

pub(crate) mod builtin;
mod spec;

pub use spec::{
    CastlingRules, DeadMaterial, DropRules, PawnRelocation, PawnRules, PieceDef, PromotionLimit,
    PromotionRules, Role, RuleSet, VariantSpec, VariantSpecError,
};

use crate::bitboard::Bitboard;
use crate::geometry::{SQUARE_COUNT, STRIDE, Square};
use crate::movement::attacks::SquareTable;
use crate::movement::{Atom, Mode, Movement, Tables};
use crate::piece::{ByColor, Color, MAX_KINDS, PieceKind};
use crate::zobrist::Zobrist;

/// Kind set as a bit mask over kind indices.
pub(crate) type KindMask = u16;

/// Derived, per-kind move data.
#[derive(Debug)]
pub(crate) struct KindInfo {
    pub role: Role,
    /// Leaps that move and capture.
    pub leap_both: SquareTable,
    /// Leaps that only move.
    pub leap_move: SquareTable,
    /// Leaps that only capture.
    pub leap_capture: SquareTable,
    pub orthogonal: Option<Mode>,
    pub diagonal: Option<Mode>,
    pub hop: bool,
    /// All capture leaps (both + capture-only), for attack detection.
    pub leap_attacks: SquareTable,
}

/// Promotion data resolved to kinds and squares.
#[derive(Debug)]
pub(crate) struct Promotion {
    /// Squares where promotion is optional, per side.
    pub optional: ByColor<Bitboard>,
    /// The last rank, where promotion is forced, per side.
    pub forced: ByColor<Bitboard>,
    pub choices: Vec<PieceKind>,
    pub only_lost: bool,
}

/// Castling data resolved to squares, per side.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CastlingSquares {
    pub king_from: Square,
    /// Per wing (0 = queen side, 1 = king side).
    pub rook_from: [Square; 2],
    pub king_to: [Square; 2],
    pub rook_to: [Square; 2],
    /// Squares that must be empty (between king and rook, except themselves), per wing.
    pub empty: [Bitboard; 2],
}

/// The drop-rights bit that lets `color` drop its colour-bound piece (see
/// [`DropRules::colour_bound`]) on a light (`light == true`) or a dark square.
///
/// Bits: White light 1, White dark 2, Black light 4, Black dark 8. The rights field's letters
/// for these bits are the rule family's business (Orphic writes them `LDld`).
///
/// # Examples
/// ```
/// use variant_engine::{Color, Position, Registry, colour_right_bit};
/// let mut pos = Position::new(Registry::builtin().get("orphic").unwrap());
/// let bishop_on_c4 = pos.parse_move("B@c4").unwrap(); // c4 is a light square
/// pos.play(bishop_on_c4);
/// assert_eq!(pos.drop_rights() & colour_right_bit(Color::White, true), 0);
/// assert!(pos.fen().ends_with("[QRRBNNKqrrbbnnk] b Dld - 0 1"));
/// ```
pub const fn colour_right_bit(color: Color, light: bool) -> u8 {
    1 << (color.index() * 2 + if light { 0 } else { 1 })
}

/// Drop rules resolved to kinds and squares.
#[derive(Debug)]
pub(crate) struct DropInfo {
    /// Where a pawn displaced by a drop may go, per side; empty when drops onto pawns are not
    /// allowed.
    pub relocation: ByColor<Bitboard>,
    /// Whether relocation drops are allowed while in check.
    pub relocate_in_check: bool,
    /// The kind whose drops need and use up square-colour rights.
    pub colour_bound: Option<PieceKind>,
    /// The light squares of the board.
    pub light: Bitboard,
    /// Where the royal king may be dropped while other pocket pieces remain, per side.
    pub royal_ranks: Option<ByColor<Bitboard>>,
}

/// A validated variant with its attack tables, Zobrist keys and derived data.
#[derive(Debug)]
pub struct Variant {
    spec: VariantSpec,
    pub(crate) tables: Tables,
    pub(crate) kinds: Vec<KindInfo>,
    pub(crate) pawn: Option<PieceKind>,
    pub(crate) royal: Option<PieceKind>,
    pub(crate) pawn_attacks: ByColor<SquareTable>,
    pub(crate) double_step: ByColor<Bitboard>,
    /// Ranks a pawn can never stand on because they lie behind its lowest start rank (the
    /// lowest double-step rank): rank 1 in chess, Decima and Orphic, ranks 1-2 in Opulent
    /// and SOHO. A FEN with a pawn there is an impossible position.
    pub(crate) pawn_unreachable: ByColor<Bitboard>,
    pub(crate) en_passant: bool,
    pub(crate) promotion: Option<Promotion>,
    pub(crate) castling: Option<ByColor<CastlingSquares>>,
    pub(crate) pocket_kinds: KindMask,
    /// Resolved drop rules; `Some` exactly when the variant has drops.
    pub(crate) drops: Option<DropInfo>,
    pub(crate) zobrist: Zobrist,
    /// Piece kinds whose capture leaps share a table, for attack detection.
    pub(crate) leap_groups: Vec<(KindMask, usize)>,
    pub(crate) orthogonal_attackers: KindMask,
    pub(crate) diagonal_attackers: KindMask,
    pub(crate) hoppers: KindMask,
    /// Count of each kind per side in the start position (for promotion by replacement).
    pub(crate) initial_counts: ByColor<[u8; MAX_KINDS]>,
    letter_to_kind: [Option<PieceKind>; 26],
}

impl Variant {
    /// Checks `spec` and derives its tables, all but the start position's piece counts
    /// (see [`VariantSpec::validate`], which finishes the job).
    ///
    /// # Errors
    /// [`VariantSpecError`] naming the first inconsistency.
    pub(crate) fn derive(spec: VariantSpec) -> Result<Self, VariantSpecError> {
        let size = spec.size;
        if size.files == 0 || size.ranks == 0 || size.files > STRIDE || size.ranks > STRIDE {
            return Err(VariantSpecError::BoardSize {
                files: size.files,
                ranks: size.ranks,
            });
        }
        if spec.pieces.is_empty() || spec.pieces.len() > MAX_KINDS {
            return Err(VariantSpecError::KindCount(spec.pieces.len()));
        }
        let mut letter_to_kind = [None; 26];
        for (i, def) in spec.pieces.iter().enumerate() {
            if !def.letter.is_ascii_uppercase() {
                return Err(VariantSpecError::BadLetter(def.letter));
            }
            let slot = &mut letter_to_kind[(def.letter as u8 - b'A') as usize];
            if slot.is_some() {
                return Err(VariantSpecError::DuplicateLetter(def.letter));
            }
            *slot = Some(PieceKind(i as u8));
        }
        let kind_of = |context: &'static str, letter: char| {
            letter
                .is_ascii_uppercase()
                .then(|| letter_to_kind[(letter as u8 - b'A') as usize])
                .flatten()
                .ok_or(VariantSpecError::UnknownLetter { context, letter })
        };
        let tables = Tables::new(size);
        let mut kinds = Vec::new();
        let mut pawn = None;
        let mut royal = None;
        let mut leap_groups: Vec<(KindMask, usize)> = Vec::new();
        let mut group_keys: Vec<Vec<Atom>> = Vec::new();
        let (mut orthogonal_attackers, mut diagonal_attackers, mut hoppers) = (0, 0, 0);
        for (i, def) in spec.pieces.iter().enumerate() {
            let bit: KindMask = 1 << i;
            let movement = match def.role {
                Role::Pawn => {
                    if pawn.replace(PieceKind(i as u8)).is_some() {
                        return Err(VariantSpecError::PawnRules);
                    }
                    Movement::default()
                }
                Role::RoyalKing => {
                    if royal.replace(PieceKind(i as u8)).is_some() {
                        return Err(VariantSpecError::TwoRoyals);
                    }
                    Movement::from_betza(&def.betza).map_err(|source| VariantSpecError::Betza {
                        letter: def.letter,
                        source,
                    })?
                }
                Role::Piece => {
                    Movement::from_betza(&def.betza).map_err(|source| VariantSpecError::Betza {
                        letter: def.letter,
                        source,
                    })?
                }
            };
            let atoms = |want: fn(Mode) -> bool| -> Vec<Atom> {
                movement
                    .leaps
                    .iter()
                    .filter(|(_, m)| want(*m))
                    .map(|(a, _)| *a)
                    .collect()
            };
            let capture_atoms = atoms(Mode::captures);
            if !capture_atoms.is_empty() {
                if let Some(g) = group_keys.iter().position(|k| *k == capture_atoms) {
                    leap_groups[g].0 |= bit;
                } else {
                    group_keys.push(capture_atoms.clone());
                    leap_groups.push((bit, i));
                }
            }
            if movement.orthogonal.is_some_and(Mode::captures) {
                orthogonal_attackers |= bit;
            }
            if movement.diagonal.is_some_and(Mode::captures) {
                diagonal_attackers |= bit;
            }
            if movement.orthogonal_hop_capture {
                hoppers |= bit;
            }
            kinds.push(KindInfo {
                role: def.role,
                leap_both: tables.leap_table(&atoms(|m| m == Mode::Both)),
                leap_move: tables.leap_table(&atoms(|m| m == Mode::MoveOnly)),
                leap_capture: tables.leap_table(&atoms(|m| m == Mode::CaptureOnly)),
                leap_attacks: tables.leap_table(&capture_atoms),
                orthogonal: movement.orthogonal,
                diagonal: movement.diagonal,
                hop: movement.orthogonal_hop_capture,
            });
        }
        if pawn.is_some() != spec.pawns.is_some() || pawn.is_some() != spec.promotion.is_some() {
            return Err(VariantSpecError::PawnRules);
        }
        let rank_mask = |color: Color, relative: u8| -> Bitboard {
            if relative >= size.ranks {
                Bitboard::EMPTY
            } else {
                Bitboard::rank(color.relative_rank(relative, size.ranks), size.files)
            }
        };
        let by_color = |f: &dyn Fn(Color) -> Bitboard| ByColor([f(Color::White), f(Color::Black)]);
        let (double_step, en_passant) = match &spec.pawns {
            Some(p) => (
                by_color(&|c| {
                    p.double_step_ranks
                        .iter()
                        .fold(Bitboard::EMPTY, |acc, &r| acc | rank_mask(c, r))
                }),
                p.en_passant,
            ),
            None => (ByColor::default(), false),
        };
        let lowest_start = spec
            .pawns
            .as_ref()
            .and_then(|p| p.double_step_ranks.iter().min().copied())
            .unwrap_or(0);
        let pawn_unreachable =
            by_color(&|c| (0..lowest_start).fold(Bitboard::EMPTY, |acc, r| acc | rank_mask(c, r)));
        let promotion = match &spec.promotion {
            Some(p) => Some(Promotion {
                optional: by_color(&|c| {
                    p.optional_ranks
                        .iter()
                        .fold(Bitboard::EMPTY, |acc, &r| acc | rank_mask(c, r))
                }),
                forced: by_color(&|c| rank_mask(c, size.ranks - 1)),
                choices: p
                    .choices
                    .iter()
                    .map(|&l| kind_of("promotion", l))
                    .collect::<Result<_, _>>()?,
                only_lost: p.limit == PromotionLimit::OnlyLost,
            }),
            None => None,
        };
        let castling = match &spec.castling {
            Some(c) => {
                if royal.is_none() {
                    return Err(VariantSpecError::CastlingWithoutKing);
                }
                kind_of("castling", c.rook_letter)?;
                let side = |color: Color| {
                    let rank = color.relative_rank(c.rank, size.ranks);
                    let at = |file: u8| Square::new(rank * STRIDE + file);
                    let king_from = at(c.king_file);
                    let mut out = CastlingSquares {
                        king_from,
                        rook_from: [at(c.rook_files[0]), at(c.rook_files[1])],
                        king_to: [king_from; 2],
                        rook_to: [king_from; 2],
                        empty: [Bitboard::EMPTY; 2],
                    };
                    for wing in 0..2 {
                        let toward: i8 = if wing == 0 { -1 } else { 1 };
                        let kt = (c.king_file as i8 + 2 * toward) as u8;
                        let rt = (c.king_file as i8 + toward) as u8;
                        out.king_to[wing] = at(kt);
                        out.rook_to[wing] = at(rt);
                        let rook_from = out.rook_from[wing];
                        let span =
                            |a: u8, b: u8| (a.min(b)..=a.max(b)).map(at).collect::<Bitboard>();
                        out.empty[wing] = (span(c.king_file, c.rook_files[wing]) | span(kt, rt))
                            .without(king_from)
                            .without(rook_from);
                    }
                    out
                };
                Some(ByColor([side(Color::White), side(Color::Black)]))
            }
            None => None,
        };
        let pocket_kinds = match &spec.drops {
            Some(d) => d
                .pocket_letters
                .iter()
                .map(|&l| kind_of("drops", l).map(|k| 1 << k.0))
                .sum::<Result<KindMask, _>>()?,
            None => 0,
        };
        let drops = match &spec.drops {
            Some(d) => {
                let relocation = match &d.pawn_relocation {
                    Some(r) => {
                        if pawn.is_none() {
                            return Err(VariantSpecError::DropRules(
                                "pawn relocation without a pawn kind",
                            ));
                        }
                        by_color(&|c| {
                            r.ranks
                                .iter()
                                .fold(Bitboard::EMPTY, |acc, &rank| acc | rank_mask(c, rank))
                        })
                    }
                    None => ByColor::default(),
                };
                let colour_bound = d.colour_bound.map(|l| kind_of("drops", l)).transpose()?;
                if colour_bound.is_some_and(|k| pocket_kinds >> k.0 & 1 == 0) {
                    return Err(VariantSpecError::DropRules(
                        "colour-bound kind is not a pocket kind",
                    ));
                }
                let royal_ranks = match &d.royal_drop_ranks {
                    Some(ranks) => {
                        if royal.is_none_or(|k| pocket_kinds >> k.0 & 1 == 0) {
                            return Err(VariantSpecError::DropRules(
                                "royal drop ranks without a royal pocket kind",
                            ));
                        }
                        Some(by_color(&|c| {
                            ranks
                                .iter()
                                .fold(Bitboard::EMPTY, |acc, &rank| acc | rank_mask(c, rank))
                        }))
                    }
                    None => None,
                };
                Some(DropInfo {
                    relocation,
                    relocate_in_check: d
                        .pawn_relocation
                        .as_ref()
                        .is_some_and(|r| r.allowed_in_check),
                    colour_bound,
                    light: size
                        .squares()
                        .filter(|s| s.is_light())
                        .collect::<Bitboard>(),
                    royal_ranks,
                })
            }
            None => None,
        };
        let pawn_attacks = ByColor([tables.pawn_attack_table(1), tables.pawn_attack_table(-1)]);
        let zobrist = Zobrist::new(&spec.name);
        Ok(Variant {
            tables,
            kinds,
            pawn,
            royal,
            pawn_attacks,
            double_step,
            pawn_unreachable,
            en_passant,
            promotion,
            castling,
            pocket_kinds,
            drops,
            zobrist,
            leap_groups,
            orthogonal_attackers,
            diagonal_attackers,
            hoppers,
            initial_counts: ByColor([[0; MAX_KINDS]; 2]),
            letter_to_kind,
            spec,
        })
    }
}

impl Variant {
    /// The spec this variant was built from.
    pub fn spec(&self) -> &VariantSpec {
        &self.spec
    }

    /// Lowercase name (`"opulent"`).
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Number of files.
    pub fn files(&self) -> u8 {
        self.spec.size.files
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u8 {
        self.spec.size.ranks
    }

    /// The board size.
    pub fn size(&self) -> crate::BoardSize {
        self.spec.size
    }

    /// Start position FEN.
    pub fn start_fen(&self) -> &str {
        &self.spec.start_fen
    }

    /// The piece kinds.
    pub fn pieces(&self) -> &[PieceDef] {
        &self.spec.pieces
    }

    /// One-paragraph rule summary.
    pub fn summary(&self) -> &str {
        &self.spec.summary
    }

    /// True when pieces can be dropped from a pocket.
    pub fn has_drops(&self) -> bool {
        self.spec.drops.is_some()
    }

    /// The rule family.
    pub fn rules(&self) -> RuleSet {
        self.spec.rules
    }

    /// Which positions of this variant are drawn by insufficient material.
    pub fn dead_material(&self) -> DeadMaterial {
        self.spec.dead_material
    }

    /// The kind with the given FEN letter (either case).
    pub fn kind_by_letter(&self, letter: char) -> Option<PieceKind> {
        let upper = letter.to_ascii_uppercase();
        if upper.is_ascii_uppercase() {
            self.letter_to_kind[(upper as u8 - b'A') as usize]
        } else {
            None
        }
    }

    /// The definition of `kind`.
    pub fn piece(&self, kind: PieceKind) -> &PieceDef {
        &self.spec.pieces[kind.index()]
    }

    /// Number of piece kinds.
    pub fn kind_count(&self) -> usize {
        self.kinds.len()
    }

    /// The pawn kind, if the variant has pawns.
    pub fn pawn_kind(&self) -> Option<PieceKind> {
        self.pawn
    }

    /// The royal kind, if the variant has a royal king.
    pub fn royal_kind(&self) -> Option<PieceKind> {
        self.royal
    }

    /// Every square of the board.
    pub fn board_mask(&self) -> Bitboard {
        self.tables.board
    }

    /// Count of `kind` for `color` in the start position.
    pub fn initial_count(&self, color: Color, kind: PieceKind) -> u8 {
        self.initial_counts[color][kind.index()]
    }

    /// The drop-rights bits a drop of `kind` by `color` on `to` uses up (0 for none).
    #[inline]
    pub(crate) fn drop_rights_used(&self, color: Color, kind: PieceKind, to: Square) -> u8 {
        match &self.drops {
            Some(d) if d.colour_bound == Some(kind) => colour_right_bit(color, to.is_light()),
            _ => 0,
        }
    }

    pub(crate) fn kinds_in(mask: KindMask) -> impl Iterator<Item = PieceKind> {
        (0..MAX_KINDS as u8)
            .filter(move |k| mask >> k & 1 != 0)
            .map(PieceKind)
    }
}

/// Silence unused warnings for the index-space constant in this module.
const _: () = assert!(SQUARE_COUNT == 100);
