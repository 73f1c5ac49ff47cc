//! Variants: the data that describes one ([`VariantSpec`]), its validated, table-carrying form
//! ([`Variant`]), and a [`Registry`] of the built-ins.

pub mod builtin;
pub(crate) mod decima;
pub mod rules;
pub mod spec;

use std::sync::Arc;

pub use rules::RuleSet;
pub use spec::{
    CastlingRules, DropRules, PawnRelocation, PawnRules, PieceDef, PromotionLimit, PromotionRules,
    Role, VariantSpec, VariantSpecError,
};

use crate::bitboard::Bitboard;
use crate::geometry::{SQUARE_COUNT, STRIDE, Square};
use crate::movement::attacks::SquareTable;
use crate::movement::{Atom, Mode, Movement, Tables};
use crate::piece::{ByColor, Color, MAX_KINDS, PieceKind};
use crate::position::zobrist::Zobrist;

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
/// for these bits are the rule set's business ([`RuleSet::drop_right_bit`]).
///
/// # Examples
/// ```
/// use variant_engine::variant::colour_right_bit;
/// use variant_engine::{Color, Position, Registry};
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

impl VariantSpec {
    /// Checks the spec and derives tables.
    ///
    /// # Errors
    /// [`VariantSpecError`] naming the first inconsistency.
    pub fn validate(self) -> Result<Arc<Variant>, VariantSpecError> {
        let size = self.size;
        if size.files == 0 || size.ranks == 0 || size.files > STRIDE || size.ranks > STRIDE {
            return Err(VariantSpecError::BoardSize {
                files: size.files,
                ranks: size.ranks,
            });
        }
        if self.pieces.is_empty() || self.pieces.len() > MAX_KINDS {
            return Err(VariantSpecError::KindCount(self.pieces.len()));
        }
        let mut letter_to_kind = [None; 26];
        for (i, def) in self.pieces.iter().enumerate() {
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
        for (i, def) in self.pieces.iter().enumerate() {
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
        if pawn.is_some() != self.pawns.is_some() || pawn.is_some() != self.promotion.is_some() {
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
        let (double_step, en_passant) = match &self.pawns {
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
        let promotion = match &self.promotion {
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
        let castling = match &self.castling {
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
        let pocket_kinds = match &self.drops {
            Some(d) => d
                .pocket_letters
                .iter()
                .map(|&l| kind_of("drops", l).map(|k| 1 << k.0))
                .sum::<Result<KindMask, _>>()?,
            None => 0,
        };
        let drops = match &self.drops {
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
        let zobrist = Zobrist::new(&self.name);
        let mut variant = Arc::new(Variant {
            tables,
            kinds,
            pawn,
            royal,
            pawn_attacks,
            double_step,
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
            spec: self,
        });
        let start = crate::Position::from_fen(variant.clone(), &variant.spec.start_fen)
            .map_err(|e| VariantSpecError::StartFen(e.to_string()))?;
        let mut counts = ByColor([[0u8; MAX_KINDS]; 2]);
        for color in Color::ALL {
            for k in 0..variant.kinds.len() {
                counts[color][k] = start.pieces_of(color, PieceKind(k as u8)).count() as u8;
            }
        }
        drop(start);
        Arc::get_mut(&mut variant)
            .expect("no other reference to a variant being built")
            .initial_counts = counts;
        Ok(variant)
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

    /// The attack tables.
    pub fn tables(&self) -> &Tables {
        &self.tables
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

/// Why a variant name was not found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {} (known: {known})", crate::notation::quote(.name))]
pub struct UnknownVariant {
    /// The name asked for.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
}

/// The set of variants a program offers. Built once at startup and shared; no globals.
///
/// # Examples
/// ```
/// use variant_engine::Registry;
/// let registry = Registry::builtin();
/// let opulent = registry.get("opulent").unwrap();
/// assert_eq!((opulent.files(), opulent.ranks()), (10, 10));
/// assert!(registry.get("xiangqi").is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Registry {
    variants: Vec<Arc<Variant>>,
    /// Each variant's start position, parsed once: most service requests start from it, and
    /// parsing the start FEN was about half of building a request's position.
    starts: Vec<crate::Position>,
}

impl Registry {
    /// The built-in variants.
    pub fn builtin() -> Self {
        let variants = builtin::all()
            .into_iter()
            .map(|spec| spec.validate().expect("built-in variant specs are valid"))
            .collect::<Vec<_>>();
        let starts = variants
            .iter()
            .map(|v| crate::Position::new(Arc::clone(v)))
            .collect();
        Self { variants, starts }
    }

    /// The start position of the variant called `name` (case-insensitive): the same as
    /// `Position::new(registry.get(name)?)`, without parsing the start FEN again.
    ///
    /// # Errors
    /// [`UnknownVariant`] listing the known names.
    pub fn start_position(&self, name: &str) -> Result<crate::Position, UnknownVariant> {
        self.index_of(name).map(|i| self.starts[i].clone())
    }

    /// The variant called `name` (case-insensitive).
    ///
    /// # Errors
    /// [`UnknownVariant`] listing the known names.
    pub fn get(&self, name: &str) -> Result<Arc<Variant>, UnknownVariant> {
        self.index_of(name).map(|i| Arc::clone(&self.variants[i]))
    }

    /// Where the variant called `name` (case-insensitive) is in the registry.
    fn index_of(&self, name: &str) -> Result<usize, UnknownVariant> {
        self.variants
            .iter()
            .position(|v| v.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownVariant {
                name: name.to_owned(),
                known: self.names().join(", "),
            })
    }

    /// Every variant, in registry order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Variant>> {
        self.variants.iter()
    }

    /// Every variant name.
    pub fn names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.name()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_spec_validates() {
        let r = Registry::builtin();
        assert!(r.names().contains(&"opulent") && r.names().contains(&"soho"));
        assert_eq!(r.get("OPULENT").unwrap().name(), "opulent");
        let err = r.get("nope").unwrap_err().to_string();
        assert!(err.contains("nope") && err.contains("opulent"), "{err}");
        let err = r.start_position("nope").unwrap_err().to_string();
        assert!(err.contains("nope") && err.contains("opulent"), "{err}");
        for v in r.iter() {
            let start = r.start_position(&v.name().to_uppercase()).unwrap();
            assert_eq!(start, crate::Position::new(Arc::clone(v)), "{}", v.name());
            assert_eq!(start.fen(), v.start_fen(), "{}", v.name());
        }
    }

    #[test]
    fn invalid_specs_are_rejected_with_a_reason() {
        let mut s = builtin::opulent();
        s.pieces[1].letter = 'B';
        assert_eq!(
            s.validate().unwrap_err(),
            VariantSpecError::DuplicateLetter('B')
        );

        let mut s = builtin::opulent();
        s.pieces[5].betza = "CFZ".into();
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::Betza { letter: 'W', .. }
        ));

        let mut s = builtin::chess();
        s.pieces.retain(|p| p.role != Role::RoyalKing);
        assert_eq!(
            s.validate().unwrap_err(),
            VariantSpecError::CastlingWithoutKing
        );

        let mut s = builtin::opulent();
        s.promotion.as_mut().unwrap().choices.push('X');
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::UnknownLetter { letter: 'X', .. }
        ));

        let mut s = builtin::opulent();
        s.size = crate::BoardSize {
            files: 11,
            ranks: 10,
        };
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::BoardSize { .. }
        ));

        let mut s = builtin::opulent();
        s.start_fen = "10/10 w - - 0 1".into();
        assert!(matches!(
            s.validate().unwrap_err(),
            VariantSpecError::StartFen(_)
        ));

        let mut s = builtin::opulent();
        s.pawns = None;
        assert_eq!(s.validate().unwrap_err(), VariantSpecError::PawnRules);
    }

    #[test]
    fn initial_counts_come_from_the_start_position() {
        let v = Registry::builtin().get("opulent").unwrap();
        let rook = v.kind_by_letter('R').unwrap();
        let queen = v.kind_by_letter('q').unwrap();
        assert_eq!(v.initial_count(Color::White, rook), 2);
        assert_eq!(v.initial_count(Color::Black, queen), 1);
    }
}
