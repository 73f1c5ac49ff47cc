//! `validate_fen`: every problem of a FEN with its field and square, the impossible positions
//! of RULES.md ("Game end, draw claims and impossible positions"), one test each, and the
//! normalised FEN of valid positions of every variant.

mod common;

use common::{sq, variant};
use variant_engine::{
    FenError, FenField, FenReport, Position, Registry, Square, bench_positions, validate_fen,
};

fn report(variant_name: &str, fen: &str) -> FenReport {
    validate_fen(&variant(variant_name), fen)
}

/// The single problem of `fen`: its field, square and message; `from_fen` fails with it too.
fn only_problem(variant_name: &str, fen: &str) -> (FenField, Option<Square>, String) {
    let report = report(variant_name, fen);
    assert_eq!(report.problems.len(), 1, "{fen}: {:?}", report.problems);
    assert!(report.normalized.is_none());
    let problem = &report.problems[0];
    match Position::from_fen(variant(variant_name), fen) {
        Err(first) => assert_eq!(first, problem.error),
        Ok(_) => panic!("{fen} was accepted"),
    }
    (problem.field, problem.square, problem.to_string())
}

#[test]
fn independent_problems_are_all_reported() {
    // Side "x", rights "Z", two white kings (b8 the extra one), a pawn on the first rank and a
    // bad half-move clock.
    let report = report("chess", "KK5k/8/8/8/8/8/8/P7 x Z - y 1");
    let found: Vec<(FenField, Option<Square>)> = report
        .problems
        .iter()
        .map(|p| (p.field, p.square))
        .collect();
    assert_eq!(
        found,
        [
            (FenField::Side, None),
            (FenField::Rights, None),
            (FenField::HalfmoveClock, None),
            (FenField::Board, Some(sq("b8"))),
            (FenField::Board, Some(sq("a1"))),
        ]
    );
    assert!(matches!(report.problems[0].error, FenError::BadSide(_)));
    assert!(matches!(
        report.problems[3].error,
        FenError::KingCount { count: 2, .. }
    ));
    assert!(report.normalized.is_none());
    // `from_fen` stops at the first of them.
    let first = Position::from_fen(variant("chess"), "KK5k/8/8/8/8/8/8/P7 x Z - y 1").unwrap_err();
    assert_eq!(first, report.problems[0].error);
}

#[test]
fn every_bad_rank_and_letter_is_reported_with_its_square() {
    let report = report(
        "opulent",
        "rw6wr/clnbqkbnla/pppppppppp/11/10/10/10/PPPPPPPPPP/CLNBQKBNLZ/RW7WR w - - 0 1",
    );
    let found: Vec<(FenField, Option<Square>)> = report
        .problems
        .iter()
        .map(|p| (p.field, p.square))
        .collect();
    assert_eq!(
        found,
        [
            (FenField::Board, None),
            (FenField::Board, Some(sq("j2"))),
            (FenField::Board, None),
        ]
    );
    assert!(report.problems[1].to_string().contains("'Z'"));
}

#[test]
fn problems_in_pocket_rights_clocks_and_en_passant_are_each_named() {
    let report = report(
        "orphic",
        "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRBBNNKqrrbbnnkX] w LDlq z9 x y",
    );
    let fields: Vec<FenField> = report.problems.iter().map(|p| p.field).collect();
    assert_eq!(
        fields,
        [
            FenField::Pocket,
            FenField::Rights,
            FenField::HalfmoveClock,
            FenField::FullmoveNumber,
            FenField::EnPassant,
        ]
    );
}

#[test]
fn castling_rights_without_their_pieces_name_the_home_square() {
    let report = report("chess", "4k3/8/8/8/8/8/8/R5K1 w KQ - 0 1");
    let found: Vec<(FenField, Option<Square>)> = report
        .problems
        .iter()
        .map(|p| (p.field, p.square))
        .collect();
    assert_eq!(
        found,
        [
            (FenField::Rights, Some(sq("e1"))),
            (FenField::Rights, Some(sq("h1"))),
            (FenField::Rights, Some(sq("e1"))),
        ]
    );
}

#[test]
fn field_names_are_stable() {
    let names: Vec<&str> = [
        FenField::Whole,
        FenField::Board,
        FenField::Pocket,
        FenField::Side,
        FenField::Rights,
        FenField::EnPassant,
        FenField::HalfmoveClock,
        FenField::FullmoveNumber,
    ]
    .iter()
    .map(|f| f.as_str())
    .collect();
    assert_eq!(
        names,
        [
            "fen",
            "board",
            "pocket",
            "side",
            "castling",
            "en_passant",
            "halfmove",
            "fullmove"
        ]
    );
}

// ---- RULES.md impossible positions, one test each ----

#[test]
fn chess_pawn_on_its_first_rank() {
    let (field, square, message) = only_problem("chess", "4k3/8/8/8/8/8/8/P3K3 w - - 0 1");
    assert_eq!((field, square), (FenField::Board, Some(sq("a1"))));
    assert!(
        message.contains("a1 stands behind its start rank"),
        "{message}"
    );
    let (_, square, _) = only_problem("chess", "p3k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(square, Some(sq("a8")));
}

#[test]
fn decima_pawn_on_its_first_rank() {
    let (field, square, message) =
        only_problem("decima", "p9/10/10/10/10/10/10/10/10/K9 w - - 0 1");
    assert_eq!((field, square), (FenField::Board, Some(sq("a10"))));
    assert!(message.contains("a10 stands behind"), "{message}");
}

#[test]
fn orphic_pawn_on_its_first_rank() {
    let (field, square, _) =
        only_problem("orphic", "8/8/8/8/8/8/8/P7[QRRBBNNKqrrbbnnk] w LDld - 0 1");
    assert_eq!((field, square), (FenField::Board, Some(sq("a1"))));
}

#[test]
fn opulent_pawn_on_its_second_rank() {
    let (field, square, message) =
        only_problem("opulent", "9k/10/10/10/10/10/10/10/4P5/K9 w - - 0 1");
    assert_eq!((field, square), (FenField::Board, Some(sq("e2"))));
    assert!(message.contains("e2 stands behind"), "{message}");
    let (_, square, _) = only_problem("opulent", "9k/10/10/10/10/10/10/10/10/K3P5 w - - 0 1");
    assert_eq!(square, Some(sq("e1")));
}

#[test]
fn soho_pawn_on_its_second_rank() {
    let (field, square, message) = only_problem("soho", "9k/4p5/10/10/10/10/10/10/10/K9 w - - 0 1");
    assert_eq!((field, square), (FenField::Board, Some(sq("e9"))));
    assert!(message.contains("e9 stands behind"), "{message}");
}

#[test]
fn pawn_on_its_forced_promotion_rank() {
    for (name, fen, square) in [
        ("chess", "4P2k/8/8/8/8/8/8/K7 w - - 0 1", "e8"),
        ("chess", "7k/8/8/8/8/8/8/K3p3 w - - 0 1", "e1"),
        (
            "opulent",
            "4P4k/10/10/10/10/10/10/10/10/K9 w - - 0 1",
            "e10",
        ),
        ("soho", "4P4k/10/10/10/10/10/10/10/10/K9 w - - 0 1", "e10"),
        ("decima", "4P5/10/10/10/10/10/10/10/10/k9 w - - 0 1", "e10"),
        (
            "orphic",
            "4P3/8/pppppppp/8/8/PPPPPPP1/8/8[QRRBBNNKqrrbbnnk] w LDld - 0 1",
            "e8",
        ),
    ] {
        let (field, found, message) = only_problem(name, fen);
        assert_eq!(
            (field, found),
            (FenField::Board, Some(sq(square))),
            "{name}"
        );
        assert!(
            message.contains(&format!("last rank at {square}")),
            "{message}"
        );
    }
    // Opulent's ranks 8 and 9 promote optionally, so a pawn may stand there.
    assert!(report("opulent", "9k/4P5/10/10/10/10/10/10/10/K9 w - - 0 1").is_valid());
}

#[test]
fn orphic_bishop_rights_match_the_bishops_in_hand() {
    let (field, square, message) = only_problem(
        "orphic",
        "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRBNNKqrrbbnnk] w LDld - 0 1",
    );
    assert_eq!((field, square), (FenField::Rights, None));
    assert!(
        message.contains("White has 1 bishops in the pocket but 2 bishop-drop rights"),
        "{message}"
    );
    // Both sides wrong: both reported.
    let both = report(
        "orphic",
        "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRNNKqrrbbnnk] w L - 0 1",
    );
    assert_eq!(both.problems.len(), 2, "{:?}", both.problems);
    // No bishop in hand and no right: valid.
    assert!(
        report(
            "orphic",
            "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRNNKqrrnnk] w - - 0 1"
        )
        .is_valid()
    );
}

#[test]
fn decima_position_without_units() {
    let (field, square, message) =
        only_problem("decima", "10/10/10/10/10/10/10/10/10/10 w - - 0 1");
    assert_eq!((field, square), (FenField::Board, None));
    assert!(message.contains("neither side has a unit"), "{message}");
    // One unit on one side is a (finished) position, not an impossible one.
    assert!(report("decima", "10/10/10/10/10/10/10/10/10/K9 w - - 0 1").is_valid());
}

#[test]
fn side_not_to_move_in_check_names_its_king() {
    let (field, square, message) = only_problem("chess", "4k2R/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!((field, square), (FenField::Board, Some(sq("e8"))));
    assert!(
        message.contains("not to move is in check (its king on e8"),
        "{message}"
    );
}

// ---- valid FENs ----

#[test]
fn valid_fens_of_every_variant_give_the_normalised_fen() {
    let registry = Registry::builtin();
    for v in registry.iter() {
        let report = validate_fen(v, v.start_fen());
        assert_eq!(
            report.normalized.as_deref(),
            Some(v.start_fen()),
            "{}",
            v.name()
        );
        assert!(report.is_valid());
    }
    for p in bench_positions(&registry) {
        let fen = p.fen();
        let report = validate_fen(p.variant(), &fen);
        assert_eq!(report.normalized, Some(fen.clone()), "{fen}");
    }
}

#[test]
fn normalising_fills_defaults_and_drops_a_useless_en_passant_square() {
    assert_eq!(
        report("chess", "4k3/8/8/8/8/8/8/4K3").normalized.as_deref(),
        Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    );
    assert_eq!(
        report("chess", "4k3/8/8/8/4P3/8/8/4K3 b - e3 5 0")
            .normalized
            .as_deref(),
        Some("4k3/8/8/8/4P3/8/8/4K3 b - - 5 1")
    );
    assert_eq!(
        report("orphic", "4k3/8/pppppppp/8/8/PPPPPPPP/8/4K3[-] w - - 0 1")
            .normalized
            .as_deref(),
        Some("4k3/8/pppppppp/8/8/PPPPPPPP/8/4K3[] w - - 0 1")
    );
}
