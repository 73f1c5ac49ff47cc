//! `VariantSpec`: a variant described as data, validated into a [`Variant`](super::Variant).
//!
//! The fields are grouped by concern (pieces, pawns, promotion, castling, drops, rule family) so
//! that the combinations that make no sense cannot be written down: there is no flag bag. What
//! cannot be data is named by the [`RuleSet`] tag; its behaviour is in `rules/`.

use crate::geometry::BoardSize;
use crate::movement::BetzaError;

/// The rule family of a variant: the behaviour that is not data.
///
/// The tag is part of the spec; what each family does is written in `rules/` (one file per
/// family, reached through one exhaustive `match` per hook), and nothing outside `rules/`
/// branches on it. A new family is a new variant here plus its file there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RuleSet {
    /// Orthodox-style rules: checkmate wins, stalemate draws, repetition and fifty-move draws.
    Standard,
    /// Decima (RULES.md §2): no royal piece; ten points on one's tenth rank win, reaching them
    /// is "check", suicide captures on the enemy's tenth rank, last-unit rules.
    Decima,
    /// Orphic Chess (RULES.md §4): standard results, but a side whose king is not yet on the
    /// board may only capture with its board pieces, and the rights field carries the bishop
    /// drop rights `LDld`. The drop rules themselves are data ([`DropRules`]).
    Orphic,
}

/// What a piece kind is, beyond its movement.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// A royal king: may not be left in check; castles when the variant allows.
    RoyalKing,
    /// A pawn: moves by the spec's [`PawnRules`], promotes by its [`PromotionRules`].
    Pawn,
    /// Any other piece, moving by its Betza description.
    Piece,
}

/// One piece kind of a variant.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PieceDef {
    /// FEN letter (uppercase; Black uses the lowercase letter).
    pub letter: char,
    /// English name.
    pub name: String,
    /// Movement in the Betza subset; for pawns a descriptive string (not parsed).
    pub betza: String,
    /// Role of the kind.
    pub role: Role,
    /// Material value in centipawns, a starting point for evaluation.
    pub value: i32,
    /// Points for variants that score pieces (Decima); 0 elsewhere.
    pub points: u8,
}

impl PieceDef {
    /// A piece definition.
    pub fn new(letter: char, name: &str, betza: &str, role: Role, value: i32) -> Self {
        Self {
            letter,
            name: name.to_owned(),
            betza: betza.to_owned(),
            role,
            value,
            points: 0,
        }
    }
}

/// How pawns move.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PawnRules {
    /// Ranks (counted from the owner's side, 0-based) from which a pawn may double-step.
    pub double_step_ranks: Vec<u8>,
    /// Whether en passant capture exists.
    pub en_passant: bool,
}

/// Which pieces a promotion may choose.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PromotionLimit {
    /// Any listed type, any number of times.
    Unlimited,
    /// Only a type whose count on the board is below its count in the start position
    /// ("promotion by replacement": Grand Chess, Opulent, Decima).
    OnlyLost,
}

/// How pawns promote.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PromotionRules {
    /// Ranks (from the owner's side, 0-based) where promotion is optional; the last rank is
    /// always forced.
    pub optional_ranks: Vec<u8>,
    /// Letters of the types a pawn may become.
    pub choices: Vec<char>,
    /// Whether choices are limited to lost types.
    pub limit: PromotionLimit,
}

/// Castling: the king moves two squares toward a rook on the same rank, and the rook lands on
/// the square the king crossed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CastlingRules {
    /// Rank (from the owner's side, 0-based) where king and rooks stand.
    pub rank: u8,
    /// File of the king's home square.
    pub king_file: u8,
    /// Files of the queen-side and king-side rooks' home squares.
    pub rook_files: [u8; 2],
    /// Letter of the castling partner.
    pub rook_letter: char,
}

/// Drops from a reserve ("pocket").
///
/// A drop always goes to an empty square; the optional parts below widen or narrow that. Each
/// part is data read by the generic drop generator and make-move, so a drop variant needs no
/// code of its own for them.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DropRules {
    /// Letters of the kinds that may stand in a pocket, in the order the FEN pocket lists them.
    pub pocket_letters: Vec<char>,
    /// Drops onto a friendly pawn, which moves elsewhere in the same move (Orphic).
    pub pawn_relocation: Option<PawnRelocation>,
    /// Letter of a kind whose drops are limited by square-colour drop rights (Orphic bishops):
    /// a drop needs the right of its square's colour and uses it up for good.
    pub colour_bound: Option<char>,
    /// Ranks (from the owner's side, 0-based) where the royal king may be dropped while other
    /// pieces remain in its side's pocket; as the last pocket piece it may go anywhere a drop
    /// may go. `None`: no restriction.
    pub royal_drop_ranks: Option<Vec<u8>>,
}

/// Drops onto a friendly pawn that is relocated in the same move.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PawnRelocation {
    /// Ranks (from the owner's side, 0-based) the displaced pawn may go to; any empty square of
    /// these ranks (empty before the move) qualifies.
    pub ranks: Vec<u8>,
    /// Whether such drops are allowed while the dropping side is in check. Orphic forbids them
    /// (the author counts the relocation as a second move), even when the pawn would block.
    pub allowed_in_check: bool,
}

/// Which positions are dead (drawn by insufficient material): the rulings of RULES.md's last
/// section, per variant. Data rather than a rule-family hook because variants of one family
/// differ (chess's minor-piece endings are dead, Opulent's are not ruled so).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DeadMaterial {
    /// No position is dead (Decima: a bare king can still walk to the tenth rank).
    Never,
    /// Only bare kings on both sides, with empty pockets.
    BareKings,
    /// Orthodox chess: bare kings, a lone knight (`N`) against a bare king, or kings and
    /// bishops (`B`) only with every bishop on squares of one colour.
    Orthodox,
}

/// A variant described as data. Validate it with [`VariantSpec::validate`].
#[derive(Clone, Debug)]
pub struct VariantSpec {
    /// Lowercase name used to select the variant (`"opulent"`).
    pub name: String,
    /// Board size.
    pub size: BoardSize,
    /// Piece kinds; at most 16.
    pub pieces: Vec<PieceDef>,
    /// Start position.
    pub start_fen: String,
    /// Pawn movement, when the variant has pawns.
    pub pawns: Option<PawnRules>,
    /// Promotion, when the variant has pawns.
    pub promotion: Option<PromotionRules>,
    /// Castling, if any.
    pub castling: Option<CastlingRules>,
    /// Drops, if any.
    pub drops: Option<DropRules>,
    /// Behaviour that is not data.
    pub rules: RuleSet,
    /// Which positions are drawn by insufficient material.
    pub dead_material: DeadMaterial,
    /// One-paragraph rule summary for clients.
    pub summary: String,
}

/// Why a spec was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantSpecError {
    /// Board larger than the index space or empty.
    #[error("board size {files}x{ranks} unsupported (1..=10 each)")]
    BoardSize {
        /// Files.
        files: u8,
        /// Ranks.
        ranks: u8,
    },
    /// Too many or too few piece kinds.
    #[error("{0} piece kinds (1..=16 supported)")]
    KindCount(usize),
    /// Two kinds share a letter.
    #[error("duplicate piece letter {0:?}")]
    DuplicateLetter(char),
    /// A letter that is not an ASCII uppercase letter.
    #[error("piece letter {0:?} must be an ASCII uppercase letter")]
    BadLetter(char),
    /// Unparsable movement.
    #[error("piece {letter:?}: {source}")]
    Betza {
        /// The piece.
        letter: char,
        /// The parse error.
        source: BetzaError,
    },
    /// A letter referenced by a rule that names no piece.
    #[error("{context} names unknown piece letter {letter:?}")]
    UnknownLetter {
        /// Where it was referenced.
        context: &'static str,
        /// The letter.
        letter: char,
    },
    /// Pawn rules without a pawn kind or vice versa.
    #[error("pawn kind and pawn rules must come together")]
    PawnRules,
    /// More than one royal kind.
    #[error("more than one royal king kind")]
    TwoRoyals,
    /// Castling declared without a royal king.
    #[error("castling needs a royal king")]
    CastlingWithoutKing,
    /// Drop rules that name kinds the variant cannot use that way.
    #[error("drop rules: {0}")]
    DropRules(&'static str),
    /// The start FEN does not parse.
    #[error("start position: {0}")]
    StartFen(String),
}
