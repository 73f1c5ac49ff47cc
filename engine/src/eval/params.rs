//! The evaluation's weights as data: which parameters a variant's evaluation has (its
//! [`Layout`], derived from the variant's pieces, board and rule family), their untuned
//! geometric defaults, and the text format they are kept in.
//!
//! The tuned values ship as one file per built-in variant under `engine/eval-params/`, embedded
//! with `include_str!`; a variant without a file (a custom spec) evaluates with the defaults.
//! The format, one parameter a line:
//!
//! ```text
//! # comment
//! variant opulent
//! value.N 350 350
//! safety.attacker.Q 96
//! ```
//!
//! The first non-comment line names the variant. Every other line is a parameter's name and
//! its middlegame and endgame weights, or a single weight for the few untapered parameters
//! (the `safety.*` inputs of the king-danger sum). Every parameter of the layout must appear
//! exactly once: a file written for another version of the evaluation is refused, with the
//! line and the reason, rather than read half-way.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::bitboard::Bitboard;
use crate::geometry::Square;
use crate::piece::MAX_KINDS;
use crate::rules::EvalFamily;
use crate::variant::{Role, Variant};

/// Whether a parameter has a middlegame and an endgame weight or a single one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Middlegame and endgame weights, tapered by the game phase.
    Pair,
    /// One weight (kept in the middlegame slot).
    Scalar,
}

/// One parameter: its name, shape and untuned default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParamDef {
    /// The name in the parameter file.
    pub name: String,
    /// Tapered pair or single weight.
    pub shape: Shape,
    /// The geometric default, middlegame and endgame (equal for a scalar).
    pub default: [i32; 2],
}

/// Unused index: the parameter does not exist in this variant's layout.
pub(crate) const NONE: usize = usize::MAX;

/// Where each group of parameters starts in a variant's parameter vector. Tables (`pawn_rank`,
/// `mobility`, ...) are runs of consecutive parameters; [`NONE`] marks a group the variant's
/// evaluation does not have.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Every parameter, in file order.
    pub defs: Vec<ParamDef>,
    /// Material per kind (not the royal king).
    pub value: [usize; MAX_KINDS],
    /// Piece-square: weight of closeness to the centre, per piece kind.
    pub pst_centre: [usize; MAX_KINDS],
    /// Piece-square: weight of the squares reached from a square beyond the kind's average.
    pub pst_reach: [usize; MAX_KINDS],
    /// Pawn piece-square weight by relative rank (a table over every rank).
    pub pawn_rank: usize,
    /// Pawn centralisation on the first ranks of its advance.
    pub pawn_centre: usize,
    /// King rank above its home rank (table of [`KING_RANKS`] entries).
    pub king_rank: usize,
    /// King closeness to the centre files.
    pub king_file: usize,
    /// King closeness to the centre.
    pub king_centre: usize,
    /// Side to move.
    pub tempo: usize,
    /// Pawn in hand (drops): extra value per kind over the same piece on the board.
    pub hand: [usize; MAX_KINDS],
    /// Doubled pawns (per extra pawn on a file).
    pub doubled: usize,
    /// Isolated pawns.
    pub isolated: usize,
    /// Passed pawns by relative rank (a table over every rank).
    pub passed: usize,
    /// Passed pawn whose stop square is empty and not attacked, times its relative rank.
    pub passed_free: usize,
    /// Pawn on the last rank before promotion that cannot promote: nothing lost to regain
    /// (promotion by replacement only).
    pub passed_stuck: usize,
    /// Own pawns in the king's shield (at most 3 counted).
    pub shield: usize,
    /// Mobility per kind: a table indexed by safe reachable squares, `mobility_len[k]` long.
    pub mobility: [usize; MAX_KINDS],
    /// Length of each kind's mobility table (the kind's most reachable squares plus one).
    pub mobility_len: [usize; MAX_KINDS],
    /// King danger (scalar): weight of each attacking kind that reaches the king zone.
    pub safety_attacker: [usize; MAX_KINDS],
    /// King danger (scalar): per attacked king-zone square (counted once per attacker).
    pub safety_hits: usize,
    /// King danger (scalar): a constant added once any piece attacks the zone.
    pub safety_offset: usize,
    /// King danger (scalar): per own pawn in the shield (subtracted).
    pub safety_shield: usize,
    /// King danger (scalar), per attacking kind: the squares (at most
    /// [`SAFE_CHECKS_COUNTED`]) from which a piece of the kind could give check next move
    /// without being taken there.
    pub safety_check: [usize; MAX_KINDS],
    /// King danger (scalar): king-zone squares the enemy attacks and only the king defends.
    pub safety_weak: usize,
    /// Threat: a piece of this kind attacked by an enemy pawn.
    pub threat_pawn: [usize; MAX_KINDS],
    /// Threat: a piece of this kind attacked by a cheaper enemy piece.
    pub threat_lesser: [usize; MAX_KINDS],
    /// Threat: a piece attacked and not defended.
    pub hanging: usize,
    /// A piece of this kind (one that rides orthogonally) on a file without pawns.
    pub file_open: [usize; MAX_KINDS],
    /// A piece of this kind (one that rides orthogonally) on a file with enemy pawns only.
    pub file_semi: [usize; MAX_KINDS],
    /// Decima: points on the tenth rank (table 0..=10).
    pub decima_score: usize,
    /// Decima: value of the points the side to move can reach next move (table 0..=10; the
    /// term is the reachable total's entry minus the current score's).
    pub decima_to_move: usize,
    /// Decima: the same for the side that waits.
    pub decima_waiting: usize,
    /// Decima: per missing first-rank defender and opponent point (current or reachable).
    pub decima_defender: usize,
    /// Drops: per board piece while the side's king is still in hand.
    pub drops_frozen: usize,
    /// Drops: per empty square next to the king, per 150 centipawns of enemy pocket material.
    pub drops_danger: usize,
}

/// Most safe checking squares counted per attacking kind (more add nothing: one is enough
/// to give the check).
pub(crate) const SAFE_CHECKS_COUNTED: i32 = 2;

/// Entries of the king's rank table: 0, 1, 2 and 3 or more ranks above its home rank.
pub(crate) const KING_RANKS: usize = 4;

/// The squares a piece of `kind` reaches from `sq` on an empty board: every leap and ride,
/// moving or capturing (the cannon's rook moves included).
pub(crate) fn empty_board_reach(variant: &Variant, kind: usize, sq: Square) -> Bitboard {
    let info = &variant.kinds[kind];
    let t = &variant.tables;
    let i = sq.index();
    let mut bb = info.leap_both[i] | info.leap_move[i] | info.leap_capture[i];
    if info.orthogonal.is_some() || info.hop {
        bb |= t.rook_attacks(sq, Bitboard::EMPTY);
    }
    if info.diagonal.is_some() {
        bb |= t.bishop_attacks(sq, Bitboard::EMPTY);
    }
    bb
}

/// True when the kind rides (a slider), so its reach depends on the board around it.
fn is_slider(variant: &Variant, kind: usize) -> bool {
    let info = &variant.kinds[kind];
    info.orthogonal.is_some() || info.diagonal.is_some()
}

struct Builder {
    defs: Vec<ParamDef>,
}

impl Builder {
    fn pair(&mut self, name: String, mg: i32, eg: i32) -> usize {
        self.defs.push(ParamDef {
            name,
            shape: Shape::Pair,
            default: [mg, eg],
        });
        self.defs.len() - 1
    }

    fn scalar(&mut self, name: String, v: i32) -> usize {
        self.defs.push(ParamDef {
            name,
            shape: Shape::Scalar,
            default: [v, v],
        });
        self.defs.len() - 1
    }
}

impl Layout {
    /// The parameters of `variant`'s evaluation, for its rule family.
    pub(crate) fn new(variant: &Variant, family: EvalFamily) -> Self {
        let mut b = Builder { defs: Vec::new() };
        let kinds = variant.kind_count();
        let ranks = usize::from(variant.ranks());
        let letter = |k: usize| variant.pieces()[k].letter;
        let role = |k: usize| variant.kinds[k].role;
        let pieces: Vec<usize> = (0..kinds).filter(|&k| role(k) == Role::Piece).collect();
        let mut l = Self {
            defs: Vec::new(),
            value: [NONE; MAX_KINDS],
            pst_centre: [NONE; MAX_KINDS],
            pst_reach: [NONE; MAX_KINDS],
            pawn_rank: NONE,
            pawn_centre: NONE,
            king_rank: NONE,
            king_file: NONE,
            king_centre: NONE,
            tempo: NONE,
            hand: [NONE; MAX_KINDS],
            doubled: NONE,
            isolated: NONE,
            passed: NONE,
            passed_free: NONE,
            passed_stuck: NONE,
            shield: NONE,
            mobility: [NONE; MAX_KINDS],
            mobility_len: [0; MAX_KINDS],
            safety_attacker: [NONE; MAX_KINDS],
            safety_hits: NONE,
            safety_offset: NONE,
            safety_shield: NONE,
            safety_check: [NONE; MAX_KINDS],
            safety_weak: NONE,
            threat_pawn: [NONE; MAX_KINDS],
            threat_lesser: [NONE; MAX_KINDS],
            hanging: NONE,
            file_open: [NONE; MAX_KINDS],
            file_semi: [NONE; MAX_KINDS],
            decima_score: NONE,
            decima_to_move: NONE,
            decima_waiting: NONE,
            decima_defender: NONE,
            drops_frozen: NONE,
            drops_danger: NONE,
        };
        // Material: the spec's values.
        for k in 0..kinds {
            if role(k) != Role::RoyalKing {
                let v = variant.pieces()[k].value;
                l.value[k] = b.pair(format!("value.{}", letter(k)), v, v);
            }
        }
        l.tempo = b.pair("tempo".into(), 12, 12);
        // Piece-square terms: leapers gain most from the centre, sliders a little.
        for &k in &pieces {
            let (mg, eg) = if is_slider(variant, k) {
                (2, 1)
            } else {
                (4, 2)
            };
            l.pst_centre[k] = b.pair(format!("pst.centre.{}", letter(k)), 1, 1);
            l.pst_reach[k] = b.pair(format!("pst.reach.{}", letter(k)), mg, eg);
        }
        let promotion_rank = (ranks as i32 - 1).max(1);
        if variant.pawn.is_some() {
            // Advancing: a little in the middlegame, quadratically towards promotion in the
            // endgame, on any board size.
            l.pawn_rank = b.defs.len();
            for r in 0..ranks as i32 {
                let adv = r * r * 60 / (promotion_rank * promotion_rank);
                b.pair(format!("pawn.rank.{}", r + 1), 3 * r, adv);
            }
            l.pawn_centre = b.pair("pawn.centre".into(), 1, 0);
        }
        if variant.royal.is_some() {
            l.king_rank = b.defs.len();
            for r in 0..KING_RANKS as i32 {
                b.pair(format!("king.rank.{r}"), -25 * r, 0);
            }
            l.king_file = b.pair("king.file".into(), -3, 0);
            l.king_centre = b.pair("king.centre".into(), 0, 3);
        }
        if variant.pocket_kinds != 0 {
            for k in 0..kinds {
                if role(k) == Role::Piece && variant.pocket_kinds & (1 << k) != 0 {
                    // A piece in hand goes anywhere: a flat bonus and a share of its value.
                    let v = 10 + variant.pieces()[k].value / 16;
                    l.hand[k] = b.pair(format!("hand.{}", letter(k)), v, v);
                }
            }
        }
        if family.has_orthodox_terms() {
            // The orthodox terms first, then the family's own.
            l.orthodox(&mut b, variant, &pieces);
        }
        match family {
            EvalFamily::Decima => {
                // Steeper near ten: at nine points any further unit wins or forces a capture.
                const SCORE: [i32; 11] = [0, 15, 35, 60, 90, 125, 165, 210, 260, 320, 520];
                l.decima_score = b.defs.len();
                for (s, v) in SCORE.iter().enumerate() {
                    b.pair(format!("decima.score.{s}"), *v, *v);
                }
                // The threat is worth half the points' value to the side to move, which can
                // carry it out now, and a quarter to the side that waits.
                l.decima_to_move = b.defs.len();
                for (s, v) in SCORE.iter().enumerate() {
                    b.pair(format!("decima.to_move.{s}"), v / 2, v / 2);
                }
                l.decima_waiting = b.defs.len();
                for (s, v) in SCORE.iter().enumerate() {
                    b.pair(format!("decima.waiting.{s}"), v / 4, v / 4);
                }
                l.decima_defender = b.pair("decima.defender".into(), -5, -5);
            }
            EvalFamily::Drops => {
                l.drops_frozen = b.pair("drops.frozen".into(), -10, -10);
                l.drops_danger = b.pair("drops.danger".into(), -1, -1);
            }
            EvalFamily::Orthodox | EvalFamily::Generic => {}
        }
        l.defs = b.defs;
        l
    }

    fn orthodox(&mut self, b: &mut Builder, variant: &Variant, pieces: &[usize]) {
        let ranks = usize::from(variant.ranks());
        let letter = |k: usize| variant.pieces()[k].letter;
        let promotion_rank = (ranks as i32 - 1).max(1);
        if variant.pawn.is_some() {
            self.doubled = b.pair("pawn.doubled".into(), -10, -20);
            self.isolated = b.pair("pawn.isolated".into(), -10, -15);
            self.passed = b.defs.len();
            for r in 0..ranks as i32 {
                let scale = r * r * 100 / (promotion_rank * promotion_rank);
                b.pair(format!("passed.rank.{}", r + 1), scale / 3 + 5, scale + 10);
            }
            self.passed_free = b.pair("passed.free".into(), 1, 4);
            if variant.promotion.as_ref().is_some_and(|p| p.only_lost) {
                // A pawn that cannot promote is a pawn, not a passer.
                let r = promotion_rank - 1;
                let scale = r * r * 100 / (promotion_rank * promotion_rank);
                self.passed_stuck = b.pair("passed.stuck".into(), -scale / 3, -scale);
            }
        }
        for &k in pieces {
            let reach: Vec<usize> = variant
                .size()
                .squares()
                .map(|sq| empty_board_reach(variant, k, sq).count() as usize)
                .collect();
            let max = reach.iter().copied().max().unwrap_or(0);
            let avg = reach.iter().sum::<usize>() as i32 / reach.len().max(1) as i32;
            // Safe squares are fewer than the empty board's: centre the table at half the
            // average, a few centipawns a square (less for riders, which have many).
            let w = if is_slider(variant, k) {
                [3, 4]
            } else {
                [4, 4]
            };
            self.mobility[k] = b.defs.len();
            self.mobility_len[k] = max + 1;
            for n in 0..=max as i32 {
                let d = n - avg / 2;
                b.pair(format!("mobility.{}.{n}", letter(k)), w[0] * d, w[1] * d);
            }
        }
        if variant.royal.is_some() {
            if variant.pawn.is_some() {
                self.shield = b.pair("king.shield".into(), 12, 0);
            }
            for &k in pieces {
                // An attacker's weight grows with its value (a queen near the king is worth
                // four knights' worth of danger on the old proximity scale).
                let v = variant.pieces()[k].value;
                self.safety_attacker[k] =
                    b.scalar(format!("safety.attacker.{}", letter(k)), 16 + v / 20);
            }
            self.safety_hits = b.scalar("safety.hits".into(), 8);
            self.safety_offset = b.scalar("safety.offset".into(), -30);
            if variant.pawn.is_some() {
                self.safety_shield = b.scalar("safety.shield".into(), 10);
            }
            for &k in pieces {
                // A safe check is the most direct threat a piece makes on the king: worth
                // about as much as the piece attacking the zone.
                let v = variant.pieces()[k].value;
                self.safety_check[k] = b.scalar(format!("safety.check.{}", letter(k)), 16 + v / 20);
            }
            self.safety_weak = b.scalar("safety.weak".into(), 6);
        }
        for &k in pieces {
            let v = variant.pieces()[k].value;
            if variant.pawn.is_some() {
                self.threat_pawn[k] = b.pair(format!("threat.pawn.{}", letter(k)), v / 8, v / 10);
            }
            self.threat_lesser[k] = b.pair(format!("threat.lesser.{}", letter(k)), v / 12, v / 15);
        }
        self.hanging = b.pair("threat.hanging".into(), 20, 25);
        if variant.pawn.is_some() {
            for &k in pieces {
                if variant.kinds[k].orthogonal.is_some() {
                    // A rook line no pawn blocks reaches the enemy camp.
                    self.file_open[k] = b.pair(format!("file.open.{}", letter(k)), 20, 10);
                    self.file_semi[k] = b.pair(format!("file.semi.{}", letter(k)), 10, 5);
                }
            }
        }
    }

    /// Number of parameters.
    pub(crate) fn len(&self) -> usize {
        self.defs.len()
    }
}

/// The weights of one variant's evaluation.
///
/// Read from the text format of this module's documentation ([`EvalParams::parse`]), written
/// back with [`EvalParams::to_text`]; [`EvalParams::builtin`] gives the shipped file of a
/// built-in variant and [`EvalParams::defaults`] the untuned geometric starting point.
///
/// # Examples
/// ```
/// use variant_engine::{EvalParams, Registry};
/// let v = Registry::builtin().get("soho").unwrap();
/// let defaults = EvalParams::defaults(&v);
/// let text = defaults.to_text();
/// assert_eq!(EvalParams::parse(&v, &text).unwrap(), defaults);
/// assert!(EvalParams::parse(&v, "variant soho\nvalue.Q 1000\n").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalParams {
    variant: String,
    /// The layout's parameters (names, shapes, defaults), in order.
    pub(crate) defs: Vec<ParamDef>,
    /// Middlegame and endgame weight per parameter (a scalar's second slot repeats the
    /// first).
    pub(crate) values: Vec<[i32; 2]>,
}

/// Why a parameter file was refused: the line (1-based) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// The first line that is not a comment must be `variant NAME`.
    #[error("line {line}: expected \"variant NAME\" first, found {found:?}")]
    NoVariantLine {
        /// The line.
        line: usize,
        /// What it says.
        found: String,
    },
    /// The file is for another variant.
    #[error("line {line}: the file is for variant {found:?}, not {expected:?}")]
    WrongVariant {
        /// The line.
        line: usize,
        /// The variant the file names.
        found: String,
        /// The variant it was read for.
        expected: String,
    },
    /// A name that this variant's evaluation does not have.
    #[error("line {line}: unknown parameter {name:?}")]
    UnknownName {
        /// The line.
        line: usize,
        /// The name.
        name: String,
    },
    /// A parameter given twice.
    #[error("line {line}: parameter {name:?} is given twice")]
    Duplicate {
        /// The line.
        line: usize,
        /// The name.
        name: String,
    },
    /// A weight that is not an integer.
    #[error("line {line}: {text:?} is not an integer weight")]
    BadValue {
        /// The line.
        line: usize,
        /// The text.
        text: String,
    },
    /// The wrong number of weights for the parameter's shape.
    #[error("line {line}: parameter {name:?} takes {expected} weight(s), found {found}")]
    Arity {
        /// The line.
        line: usize,
        /// The name.
        name: String,
        /// Weights it takes.
        expected: usize,
        /// Weights found.
        found: usize,
    },
    /// The file's `variant` line names no variant of the registry it was read against.
    #[error("line {line}: unknown variant {name:?}")]
    UnknownVariant {
        /// The line.
        line: usize,
        /// The name, as written (at most 100 characters).
        name: String,
    },
    /// A parameter of the layout that the file does not give.
    #[error("parameter {name:?} is missing")]
    Missing {
        /// The first missing name.
        name: String,
    },
    /// Reading a parameter file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
}

/// Bound on a weight's magnitude, so no sum of weights overflows `i32`.
const MAX_WEIGHT: i64 = 100_000;

/// The shipped parameter file of a built-in variant, if it has one.
fn embedded(name: &str) -> Option<&'static str> {
    match name {
        "chess" => Some(include_str!("../../eval-params/chess.txt")),
        "opulent" => Some(include_str!("../../eval-params/opulent.txt")),
        "soho" => Some(include_str!("../../eval-params/soho.txt")),
        "decima" => Some(include_str!("../../eval-params/decima.txt")),
        "orphic" => Some(include_str!("../../eval-params/orphic.txt")),
        _ => None,
    }
}

impl EvalParams {
    /// The untuned geometric defaults of `variant`'s evaluation (the tuner's starting point).
    pub fn defaults(variant: &Variant) -> Self {
        let layout = Layout::new(variant, variant.rules().eval_family(variant));
        Self::from_layout(variant, &layout)
    }

    pub(crate) fn from_layout(variant: &Variant, layout: &Layout) -> Self {
        Self {
            variant: variant.name().to_owned(),
            defs: layout.defs.clone(),
            values: layout.defs.iter().map(|d| d.default).collect(),
        }
    }

    /// The shipped (tuned) parameters of a built-in variant; the defaults for a variant that
    /// ships none.
    ///
    /// # Errors
    /// [`ParamsError`] when the shipped file does not fit the variant (a unit test checks
    /// that none does).
    pub fn builtin(variant: &Variant) -> Result<Self, ParamsError> {
        match embedded(variant.name()) {
            Some(text) => Self::parse(variant, text),
            None => Ok(Self::defaults(variant)),
        }
    }

    /// Reads a parameter file for `variant` (format: this module's documentation).
    ///
    /// # Errors
    /// [`ParamsError`] naming the line and the problem: another variant's file, an unknown
    /// or repeated name, a bad or missing weight, or a parameter left out.
    pub fn parse(variant: &Variant, text: &str) -> Result<Self, ParamsError> {
        let layout = Layout::new(variant, variant.rules().eval_family(variant));
        let index: HashMap<&str, usize> = layout
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.as_str(), i))
            .collect();
        let mut values: Vec<Option<[i32; 2]>> = vec![None; layout.len()];
        let (variant_at, named) = variant_line(text)?;
        // Names match as the registry matches them, so a file `parse_in` accepts parses here.
        if !named.eq_ignore_ascii_case(variant.name()) {
            return Err(ParamsError::WrongVariant {
                line: variant_at,
                found: named.to_owned(),
                expected: variant.name().to_owned(),
            });
        }
        // Line numbers are 1-based, so skipping `variant_at` lines starts after the variant line.
        for (n, raw) in text.lines().enumerate().skip(variant_at) {
            let line = n + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let mut words = content.split_whitespace();
            let name = words.next().unwrap_or("");
            let rest: Vec<&str> = words.collect();
            let Some(&i) = index.get(name) else {
                return Err(ParamsError::UnknownName {
                    line,
                    name: name.to_owned(),
                });
            };
            let expected = match layout.defs[i].shape {
                Shape::Pair => 2,
                Shape::Scalar => 1,
            };
            if rest.len() != expected {
                return Err(ParamsError::Arity {
                    line,
                    name: name.to_owned(),
                    expected,
                    found: rest.len(),
                });
            }
            let mut w = [0i32; 2];
            for (slot, text) in w.iter_mut().zip(&rest) {
                *slot = text
                    .parse::<i64>()
                    .ok()
                    .filter(|v| v.abs() <= MAX_WEIGHT)
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(|| ParamsError::BadValue {
                        line,
                        text: (*text).to_owned(),
                    })?;
            }
            if expected == 1 {
                w[1] = w[0];
            }
            if values[i].replace(w).is_some() {
                return Err(ParamsError::Duplicate {
                    line,
                    name: name.to_owned(),
                });
            }
        }
        let values = values
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                v.ok_or_else(|| ParamsError::Missing {
                    name: layout.defs[i].name.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            variant: variant.name().to_owned(),
            defs: layout.defs,
            values,
        })
    }

    /// Reads a parameter file for whichever variant of `registry` its `variant` line names
    /// (for a reader that does not know the variant beforehand, such as the UCI option).
    ///
    /// # Errors
    /// [`ParamsError::UnknownVariant`] when the named variant is not in `registry`, otherwise
    /// as [`EvalParams::parse`].
    pub fn parse_in(registry: &crate::Registry, text: &str) -> Result<Self, ParamsError> {
        let (line, name) = variant_line(text)?;
        let variant = registry
            .get(name)
            .map_err(|_| ParamsError::UnknownVariant {
                line,
                name: name.chars().take(100).collect(),
            })?;
        Self::parse(&variant, text)
    }

    /// Reads a parameter file from disk (see [`EvalParams::parse`]).
    ///
    /// # Errors
    /// [`ParamsError::Io`] when the file cannot be read, otherwise as [`EvalParams::parse`].
    pub fn load(variant: &Variant, path: &std::path::Path) -> Result<Self, ParamsError> {
        let text = std::fs::read_to_string(path).map_err(|e| ParamsError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(variant, &text)
    }

    /// The name of the variant these parameters are for.
    pub fn variant_name(&self) -> &str {
        &self.variant
    }

    /// The parameters in the text format, one a line, in the layout's order.
    pub fn to_text(&self) -> String {
        self.to_text_with_header("")
    }

    /// As [`EvalParams::to_text`], with `header` written first as `#` comment lines.
    pub fn to_text_with_header(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let _ = writeln!(out, "variant {}", self.variant);
        for (d, v) in self.defs.iter().zip(&self.values) {
            match d.shape {
                Shape::Pair => {
                    let _ = writeln!(out, "{} {} {}", d.name, v[0], v[1]);
                }
                Shape::Scalar => {
                    let _ = writeln!(out, "{} {}", d.name, v[0]);
                }
            }
        }
        out
    }
}

/// The first line with content (after comments are stripped) of a parameter file, which must
/// be `variant NAME`: its 1-based line number and the name.
fn variant_line(text: &str) -> Result<(usize, &str), ParamsError> {
    let first = text.lines().enumerate().find_map(|(n, raw)| {
        let content = raw.split('#').next().unwrap_or("").trim();
        (!content.is_empty()).then_some((n + 1, content))
    });
    let Some((line, content)) = first else {
        return Err(ParamsError::NoVariantLine {
            line: text.lines().count() + 1,
            found: String::new(),
        });
    };
    let mut words = content.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some("variant"), Some(name), None) => Ok((line, name)),
        _ => Err(ParamsError::NoVariantLine {
            line,
            found: content.chars().take(100).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;

    #[test]
    fn every_shipped_file_fits_its_variant() {
        // A file that does not parse would silently fall back to the defaults in the search.
        for v in Registry::builtin().iter() {
            let text = embedded(v.name()).unwrap_or_else(|| panic!("{}: no file", v.name()));
            let params = EvalParams::parse(v, text).unwrap_or_else(|e| panic!("{}: {e}", v.name()));
            assert_eq!(params.variant_name(), v.name());
            assert_eq!(EvalParams::parse(v, &params.to_text()).unwrap(), params);
        }
    }

    #[test]
    fn bad_files_name_the_line() {
        let v = Registry::builtin().get("chess").unwrap();
        let good = EvalParams::defaults(&v).to_text();
        assert!(matches!(
            EvalParams::parse(&v, "value.P 1 1\n"),
            Err(ParamsError::NoVariantLine { line: 1, .. })
        ));
        assert!(matches!(
            EvalParams::parse(&v, "# c\nvariant soho\n"),
            Err(ParamsError::WrongVariant { line: 2, .. })
        ));
        let extra = format!("{good}tempo 1 1\n");
        assert!(matches!(
            EvalParams::parse(&v, &extra),
            Err(ParamsError::Duplicate { .. })
        ));
        let scalar = good.replace("safety.hits 8", "safety.hits 8 9");
        assert!(matches!(
            EvalParams::parse(&v, &scalar),
            Err(ParamsError::Arity {
                expected: 1,
                found: 2,
                ..
            })
        ));
    }

    #[test]
    fn parse_in_finds_the_variant_its_file_names() {
        let registry = Registry::builtin();
        let soho = registry.get("soho").unwrap();
        let text = format!(
            "# a comment first\n{}",
            EvalParams::defaults(&soho).to_text()
        );
        let params = EvalParams::parse_in(&registry, &text).unwrap();
        assert_eq!(params.variant_name(), "soho");
        assert_eq!(params, EvalParams::defaults(&soho));
        // The variant line's name is matched without regard to case, by both readers.
        let shouted = text.replace("variant soho", "variant SOHO");
        assert_ne!(shouted, text);
        assert_eq!(EvalParams::parse_in(&registry, &shouted).unwrap(), params);
        assert_eq!(EvalParams::parse(&soho, &shouted).unwrap(), params);
        assert!(matches!(
            EvalParams::parse_in(&registry, "variant nosuch\ntempo 1 1\n"),
            Err(ParamsError::UnknownVariant { line: 1, .. })
        ));
        assert!(matches!(
            EvalParams::parse_in(&registry, "# only\n\ntempo 1 1\n"),
            Err(ParamsError::NoVariantLine { line: 3, .. })
        ));
        assert!(matches!(
            EvalParams::parse_in(&registry, ""),
            Err(ParamsError::NoVariantLine { line: 1, .. })
        ));
    }
}
