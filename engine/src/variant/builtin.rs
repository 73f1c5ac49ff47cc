//! The built-in variants, one builder function each.
//!
//! Piece values are centipawn starting points for evaluation, taken from the rule pages'
//! estimates where they give them (SOHO) and from the usual 10x10 values otherwise.

use crate::geometry::BoardSize;
use crate::variant::RuleSet;
use crate::variant::spec::{
    CastlingRules, DeadMaterial, DropRules, PawnRelocation, PawnRules, PieceDef, PromotionLimit,
    PromotionRules, Role, VariantSpec,
};

/// Opulent Chess start position (the seed page's new array; see RULES.md §1).
pub(crate) const OPULENT_START: &str =
    "rw6wr/clnbqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - - 0 1";
/// SOHO Chess start position (RULES.md §3 ruling: the original diagram is lost).
pub(crate) const SOHO_START: &str =
    "cwf4fwc/rnbuqkubnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBUQKUBNR/CWF4FWC w KQkq - 0 1";
/// Orphic Chess start position (RULES.md §4): pawns on the third rank, everything else in the
/// pocket, all four bishop drop rights.
pub(crate) const ORPHIC_START: &str =
    "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRBBNNKqrrbbnnk] w LDld - 0 1";
/// Decima start position (RULES.md §2 ruling: the original diagram is lost; this one follows
/// the author's comments: a knight in front of each rook, kings in the centre of the second
/// rank). The one place to change when a better reconstruction turns up.
pub(crate) const DECIMA_START: &str =
    "rbmaqsodbr/npppkkpppn/10/10/10/10/10/10/NPPPKKPPPN/RBMAQSODBR w - - 0 1";
/// Orthodox chess start position.
pub(crate) const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn king() -> PieceDef {
    PieceDef::new('K', "King", "K", Role::RoyalKing, 0)
}

fn pawn(value: i32) -> PieceDef {
    PieceDef::new('P', "Pawn", "fmWfcFifmnD", Role::Pawn, value)
}

fn piece(letter: char, name: &str, betza: &str, value: i32) -> PieceDef {
    PieceDef::new(letter, name, betza, Role::Piece, value)
}

/// The orthodox army on 8x8 (chess and Orphic), with the usual centipawn values.
fn orthodox_pieces() -> Vec<PieceDef> {
    vec![
        pawn(100),
        piece('N', "Knight", "N", 320),
        piece('B', "Bishop", "B", 330),
        piece('R', "Rook", "R", 500),
        piece('Q', "Queen", "Q", 950),
        king(),
    ]
}

/// Orthodox chess, kept as a validation variant: its perft numbers are public.
pub(crate) fn chess() -> VariantSpec {
    VariantSpec {
        name: "chess".into(),
        size: BoardSize::EIGHT,
        pieces: orthodox_pieces(),
        start_fen: CHESS_START.into(),
        pawns: Some(PawnRules {
            double_step_ranks: vec![1],
            en_passant: true,
        }),
        promotion: Some(PromotionRules {
            optional_ranks: vec![],
            choices: vec!['Q', 'R', 'B', 'N'],
            limit: PromotionLimit::Unlimited,
        }),
        castling: Some(CastlingRules {
            rank: 0,
            king_file: 4,
            rook_files: [0, 7],
            rook_letter: 'R',
        }),
        drops: None,
        rules: RuleSet::Standard,
        dead_material: DeadMaterial::Orthodox,
        summary: "Orthodox chess (FIDE rules), included as a validation variant.".into(),
    }
}

/// Opulent Chess (Greg Strong): Grand Chess rules on 10x10 with Lion, Wizard and an augmented
/// Knight.
pub(crate) fn opulent() -> VariantSpec {
    VariantSpec {
        name: "opulent".into(),
        size: BoardSize::TEN,
        pieces: vec![
            pawn(100),
            piece('N', "Knight", "NW", 350),
            piece('B', "Bishop", "B", 350),
            piece('R', "Rook", "R", 550),
            piece('Q', "Queen", "Q", 1000),
            piece('W', "Wizard", "CF", 340),
            piece('L', "Lion", "FDH", 340),
            piece('C', "Chancellor", "RN", 900),
            piece('A', "Archbishop", "BN", 800),
            king(),
        ],
        start_fen: OPULENT_START.into(),
        pawns: Some(PawnRules {
            double_step_ranks: vec![2],
            en_passant: true,
        }),
        promotion: Some(PromotionRules {
            optional_ranks: vec![7, 8],
            choices: vec!['Q', 'C', 'A', 'R', 'B', 'N', 'W', 'L'],
            limit: PromotionLimit::OnlyLost,
        }),
        castling: None,
        drops: None,
        rules: RuleSet::Standard,
        dead_material: DeadMaterial::BareKings,
        summary: "10x10, Grand Chess rules: no castling; pawns double-step from their start rank \
                  with en passant; promotion optional on ranks 8-9 and forced on 10, only to a \
                  piece type already lost. Knight = N+W, Wizard = C+F, Lion = F+D+H, \
                  Chancellor = R+N, Archbishop = B+N."
            .into(),
    }
}

/// SOHO Chess (Kevin Pacey): 10x10 with Champion, FAD, Wizard and Cannon; castling on the
/// second rank.
pub(crate) fn soho() -> VariantSpec {
    VariantSpec {
        name: "soho".into(),
        size: BoardSize::TEN,
        pieces: vec![
            pawn(100),
            piece('N', "Knight", "N", 300),
            piece('B', "Bishop", "B", 350),
            piece('R', "Rook", "R", 550),
            piece('Q', "Queen", "Q", 1000),
            piece('U', "Champion", "WAD", 375),
            piece('F', "FAD", "FAD", 375),
            piece('W', "Wizard", "CF", 375),
            piece('C', "Cannon", "mRcpR", 275),
            king(),
        ],
        start_fen: SOHO_START.into(),
        pawns: Some(PawnRules {
            double_step_ranks: vec![2],
            en_passant: true,
        }),
        promotion: Some(PromotionRules {
            optional_ranks: vec![],
            choices: vec!['Q', 'R', 'B', 'N', 'U', 'F', 'W', 'C'],
            limit: PromotionLimit::Unlimited,
        }),
        castling: Some(CastlingRules {
            rank: 1,
            king_file: 5,
            rook_files: [0, 9],
            rook_letter: 'R',
        }),
        drops: None,
        rules: RuleSet::Standard,
        dead_material: DeadMaterial::BareKings,
        summary: "10x10 with Champion (WAD), FAD, Wizard (CF) and Cannon (moves as a rook, \
                  captures by hopping one screen). Castling on the 2nd rank: the king moves two \
                  squares toward the rook, which lands on the square crossed. Pawns double-step \
                  from rank 3, en passant; promotion forced on the last rank to any non-king \
                  piece type."
            .into(),
    }
}

/// A piece that scores `points` on its owner's tenth rank (Decima).
fn scored(def: PieceDef, points: u8) -> PieceDef {
    PieceDef { points, ..def }
}

/// Decima (Mike Nelson), contest version: ten piece types worth 10 down to 1 points; a side
/// wins by starting its turn with 10 or more points on its tenth rank (RULES.md §2).
///
/// Centipawn values follow mobility, not points: the compounds are the strong pieces (a
/// queen-like Q, chancellor M, archbishop A), the non-royal king is a commoner.
pub(crate) fn decima() -> VariantSpec {
    VariantSpec {
        name: "decima".into(),
        size: BoardSize::TEN,
        pieces: vec![
            scored(pawn(100), 0),
            scored(piece('K', "King", "K", 300), 10),
            scored(piece('N', "Knight", "N", 300), 9),
            scored(piece('B', "Bishop", "B", 350), 8),
            scored(piece('R', "Rook", "R", 550), 7),
            scored(piece('D', "Duke", "KN", 600), 6),
            scored(piece('O', "Pope", "KB", 600), 5),
            scored(piece('S', "Seneschal", "KR", 750), 4),
            scored(piece('A', "Palladin", "NB", 800), 3),
            scored(piece('M', "Marshall", "NR", 900), 2),
            scored(piece('Q', "Queen", "Q", 1000), 1),
        ],
        start_fen: DECIMA_START.into(),
        pawns: Some(PawnRules {
            double_step_ranks: vec![1],
            en_passant: true,
        }),
        promotion: Some(PromotionRules {
            optional_ranks: vec![],
            choices: vec!['D', 'O', 'S', 'A', 'M', 'Q'],
            limit: PromotionLimit::OnlyLost,
        }),
        castling: None,
        drops: None,
        rules: RuleSet::Decima,
        dead_material: DeadMaterial::Never,
        summary: "10x10, contest rules. Kings are not royal. Points: K10 N9 B8 R7 D6 (K+N) \
                  O5 (K+B) S4 (K+R) A3 (N+B) M2 (N+R) Q1 P0. A side starting its turn with 10+ \
                  points on its tenth rank wins; reaching 10+ is check, answered only by \
                  captures that bring the score to 9 or less. Capturing on the enemy's tenth \
                  rank removes the capturer too. Capturing the last enemy unit wins. Pawns \
                  double-step with en passant; promotion on the tenth rank only to a lost \
                  D, O, S, A, M or Q."
            .into(),
    }
}

/// Orphic Chess (M. Winther): orthodox pieces that start in the pocket and are dropped, also
/// onto a friendly pawn that is then relocated.
pub(crate) fn orphic() -> VariantSpec {
    VariantSpec {
        name: "orphic".into(),
        size: BoardSize::EIGHT,
        pieces: orthodox_pieces(),
        start_fen: ORPHIC_START.into(),
        // Pawns start on rank 3, so only a pawn relocated to rank 2 can double-step.
        pawns: Some(PawnRules {
            double_step_ranks: vec![1],
            en_passant: true,
        }),
        promotion: Some(PromotionRules {
            optional_ranks: vec![],
            choices: vec!['Q', 'R', 'B', 'N'],
            limit: PromotionLimit::Unlimited,
        }),
        castling: None,
        drops: Some(DropRules {
            // RULES.md fine points: the pocket is written Q R B N K per side.
            pocket_letters: vec!['Q', 'R', 'B', 'N', 'K'],
            pawn_relocation: Some(PawnRelocation {
                // Ranks 2-4 (Black 7-5), 0-based from the owner's side.
                ranks: vec![1, 2, 3],
                allowed_in_check: false,
            }),
            colour_bound: Some('B'),
            royal_drop_ranks: Some(vec![0]),
        }),
        rules: RuleSet::Orphic,
        dead_material: DeadMaterial::BareKings,
        summary: "8x8 drop variant: pawns start on the third rank, all other pieces in the \
                  pocket. A turn is a board move or a drop on an empty square or on a friendly \
                  pawn, which is relocated to an empty square on ranks 2-4 (not while in check). \
                  Bishops go on different colours; the king is dropped on the first rank while \
                  other pieces remain, anywhere as the last one. Until its king is down a side \
                  may only capture with board pieces. No castling; pawns double-step from rank \
                  2, en passant, promotion to Q, R, B or N."
            .into(),
    }
}

/// Every built-in spec, in registry order.
pub(crate) fn all() -> Vec<VariantSpec> {
    vec![chess(), opulent(), soho(), decima(), orphic()]
}
