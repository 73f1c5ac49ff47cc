//! Move text as people and programs write it (`Position::parse_move`): every accepted form,
//! and every reason a move is refused, across chess, the 10x10 variants and Orphic's drops.

mod common;

use common::{pos, start};
use variant_engine::{IllegalReason, MoveError, MoveRefusal, Position, Termination};

/// The move text of what `text` parses to.
fn parsed(p: &Position, text: &str) -> String {
    let m = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", p.fen()));
    p.uci(m)
}

/// The reason `text` is refused, checking that the code agrees with it.
fn refused(p: &Position, text: &str) -> IllegalReason {
    match p.parse_move(text) {
        Err(err @ MoveError::Illegal { .. }) => {
            let MoveError::Illegal { reason, .. } = &err else {
                unreachable!()
            };
            assert_eq!(err.reason(), reason.code());
            reason.clone()
        }
        other => panic!("{text} in {}: expected a refusal, got {other:?}", p.fen()),
    }
}

/// The refusal message of `text`.
fn message(p: &Position, text: &str) -> String {
    match p.parse_move(text) {
        Err(err) => err.to_string(),
        Ok(m) => panic!("{text} parsed to {m:?}"),
    }
}

const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
const SOHO_CASTLING: &str =
    "cwf4fwc/rnbuqkubnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBUQK3R/CWF4FWC w KQkq - 0 1";
const PROMOTION: &str = "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1";

// ---- accepted forms ----

#[test]
fn uci_text_still_parses_as_before() {
    let chess = start("chess");
    assert_eq!(parsed(&chess, "e2e4"), "e2e4");
    assert_eq!(parsed(&chess, " g1f3 "), "g1f3");
    let opulent = start("opulent");
    assert_eq!(parsed(&opulent, "e3e5"), "e3e5");
    let orphic = start("orphic");
    assert_eq!(parsed(&orphic, "N@e4"), "N@e4");
    assert_eq!(parsed(&orphic, "N@e3,c2"), "N@e3,c2");
}

#[test]
fn long_algebraic_with_a_piece_letter() {
    let chess = start("chess");
    assert_eq!(parsed(&chess, "Ng1f3"), "g1f3");
    assert_eq!(parsed(&chess, "Ng1-f3"), "g1f3");
    assert_eq!(parsed(&chess, "Pe2-e4"), "e2e4");
    let opulent = start("opulent");
    // The lion leaps (0,2) over its own pawn.
    assert_eq!(parsed(&opulent, "Lb2-b4"), "b2b4");
    let decima = start("decima");
    assert_eq!(parsed(&decima, "Na2-b4"), "a2b4");
    assert_eq!(parsed(&decima, "Kf2f3"), "f2f3");
    assert_eq!(parsed(&decima, "KF2F3"), "f2f3");
}

#[test]
fn long_algebraic_pawn_moves_with_dash() {
    assert_eq!(parsed(&start("chess"), "e2-e4"), "e2e4");
    assert_eq!(parsed(&start("soho"), "e3-e5"), "e3e5");
}

#[test]
fn long_algebraic_captures_with_x() {
    let p = pos(
        "chess",
        "rnb1kbnr/pppp1ppp/8/4p3/7q/5PP1/PPPPP2P/RNBQKBNR b KQkq - 0 3",
    );
    assert_eq!(parsed(&p, "Qh4xg3"), "h4g3");
    assert_eq!(parsed(&p, "Qh4xg3+"), "h4g3");
    let p = pos(
        "chess",
        "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    );
    assert_eq!(parsed(&p, "e4xd5"), "e4d5");
}

#[test]
fn long_algebraic_without_separator() {
    let p = pos(
        "chess",
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
    );
    assert_eq!(parsed(&p, "Qd8h4"), "d8h4");
    assert_eq!(parsed(&p, "Qd8h4#"), "d8h4");
}

#[test]
fn promotion_with_equals_sign_or_either_case() {
    let p = pos("chess", PROMOTION);
    assert_eq!(parsed(&p, "e7e8q"), "e7e8q");
    assert_eq!(parsed(&p, "e7e8Q"), "e7e8q");
    assert_eq!(parsed(&p, "e7e8=q"), "e7e8q");
    assert_eq!(parsed(&p, "e7e8=N"), "e7e8n");
    assert_eq!(parsed(&p, "e7xd8=Q+"), "e7d8q");
    assert_eq!(parsed(&p, "e7-e8=R"), "e7e8r");
}

#[test]
fn promotion_on_ten_ranks_with_two_digit_squares() {
    let p = pos("opulent", "10/7P2/10/10/10/10/10/10/10/K8k w - - 0 1");
    assert_eq!(parsed(&p, "h9h10n"), "h9h10n");
    assert_eq!(parsed(&p, "h9-h10=N"), "h9h10n");
    assert_eq!(parsed(&p, "H9H10Q"), "h9h10q");
}

#[test]
fn uppercase_coordinates() {
    let chess = start("chess");
    assert_eq!(parsed(&chess, "E2E4"), "e2e4");
    assert_eq!(parsed(&chess, "G1F3"), "g1f3");
    assert_eq!(parsed(&chess, "E2-E4"), "e2e4");
    assert_eq!(parsed(&pos("chess", PROMOTION), "E7E8=Q"), "e7e8q");
}

#[test]
fn two_digit_ranks_are_read_without_ambiguity() {
    let p = pos("opulent", "R9/10/10/10/10/10/10/10/10/n4K2k1 w - - 0 1");
    assert_eq!(parsed(&p, "a10a9"), "a10a9");
    assert_eq!(parsed(&p, "A10A9"), "a10a9");
    assert_eq!(parsed(&p, "Ra10-a2"), "a10a2");
    assert_eq!(parsed(&p, "Ra10xa1"), "a10a1");
    assert_eq!(parsed(&p, "Ra1"), "a10a1");
}

#[test]
fn castling_in_every_spelling() {
    let p = pos("chess", CASTLING);
    for (text, uci) in [
        ("O-O", "e1g1"),
        ("0-0", "e1g1"),
        ("O-O-O", "e1c1"),
        ("0-0-0", "e1c1"),
        ("O-O+", "e1g1"),
        ("0-0-0!?", "e1c1"),
        ("e1g1", "e1g1"),
        ("Ke1-g1", "e1g1"),
    ] {
        assert_eq!(parsed(&p, text), uci, "{text}");
    }
    let soho = pos("soho", SOHO_CASTLING);
    assert_eq!(parsed(&soho, "O-O"), "f2h2");
    assert_eq!(parsed(&soho, "0-0"), "f2h2");
}

#[test]
fn san_with_more_disambiguation_than_needed_or_no_capture_mark() {
    let chess = start("chess");
    assert_eq!(parsed(&chess, "Ngf3"), "g1f3");
    assert_eq!(parsed(&chess, "N1f3"), "g1f3");
    let p = pos(
        "chess",
        "rnb1kbnr/pppp1ppp/8/4p3/7q/5PP1/PPPPP2P/RNBQKBNR b KQkq - 0 3",
    );
    assert_eq!(parsed(&p, "Qg3"), "h4g3");
}

#[test]
fn drops_with_check_marks() {
    let orphic = start("orphic");
    assert_eq!(parsed(&orphic, "N@e4!"), "N@e4");
    assert_eq!(parsed(&orphic, "N@e3,c2?"), "N@e3,c2");
}

// ---- refusals ----

#[test]
fn unparsable_text_is_a_syntax_error() {
    let chess = start("chess");
    let err = chess.parse_move("zz9").unwrap_err();
    assert!(matches!(err, MoveError::Syntax(_)));
    assert_eq!(err.reason(), MoveRefusal::Unparsable);
    // A long text is quoted only in part.
    let long = format!("e2{}", "-".repeat(5000));
    let shown = chess.parse_move(&long).unwrap_err().to_string();
    assert!(shown.len() < 300, "{shown}");
}

#[test]
fn no_piece_of_the_side_to_move_on_the_origin() {
    let chess = start("chess");
    assert!(matches!(
        refused(&chess, "e3e4"),
        IllegalReason::NoPieceToMove { occupant: None, .. }
    ));
    assert!(message(&chess, "e3e4").ends_with("e3 is empty: no White piece to move"));
    let reason = refused(&chess, "e7e5");
    assert!(
        matches!(&reason, IllegalReason::NoPieceToMove { occupant: Some(o), .. } if o == "black pawn")
    );
    assert_eq!(refused(&chess, "Nc3d5").code(), MoveRefusal::NoPieceToMove);
    // On ten ranks too.
    let opulent = start("opulent");
    assert_eq!(refused(&opulent, "a9a8").code(), MoveRefusal::NoPieceToMove);
}

#[test]
fn long_algebraic_letter_must_match_the_piece() {
    let chess = start("chess");
    let reason = refused(&chess, "Bg1f3");
    assert_eq!(reason.code(), MoveRefusal::WrongPiece);
    assert!(message(&chess, "Bg1f3").contains("the piece on g1 is a knight (N), not 'B'"));
    assert_eq!(refused(&chess, "Ne2e4").code(), MoveRefusal::WrongPiece);
    assert_eq!(
        refused(&start("opulent"), "Nb2b4").code(),
        MoveRefusal::WrongPiece
    );
}

#[test]
fn piece_cannot_move_that_way() {
    let chess = start("chess");
    assert_eq!(
        refused(&chess, "e2e5").code(),
        MoveRefusal::PieceCannotMoveThere
    );
    assert!(message(&chess, "Ng1g3").ends_with("the knight on g1 cannot move to g3"));
    assert!(message(&chess, "Nd4").ends_with("no knight can move to d4"));
    assert_eq!(
        refused(&start("decima"), "b1b3").code(),
        MoveRefusal::PieceCannotMoveThere
    );
}

#[test]
fn pinned_piece_would_leave_the_king_in_check() {
    let p = pos("chess", "4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1");
    assert_eq!(
        refused(&p, "e2c3"),
        IllegalReason::LeavesKingInCheck { in_check: false }
    );
    assert_eq!(
        refused(&p, "Nc3"),
        IllegalReason::LeavesKingInCheck { in_check: false }
    );
    // The king itself stepping into an attack.
    let p = pos("chess", "4k3/8/8/8/8/8/8/3rK3 w - - 0 1");
    assert_eq!(
        refused(&p, "e1f1"),
        IllegalReason::LeavesKingInCheck { in_check: true }
    );
}

#[test]
fn a_move_that_ignores_a_check_is_refused() {
    let p = pos("chess", "4k3/8/8/8/8/8/8/r3K2N w - - 0 1");
    assert_eq!(
        refused(&p, "h1g3"),
        IllegalReason::LeavesKingInCheck { in_check: true }
    );
    assert!(message(&p, "h1g3").ends_with("it does not get the king out of check"));
}

#[test]
fn ambiguous_san_lists_the_candidates() {
    let p = pos("chess", "4k3/8/8/8/8/2N3N1/8/4K3 w - - 0 1");
    assert_eq!(
        refused(&p, "Ne4"),
        IllegalReason::Ambiguous {
            candidates: vec!["c3e4".to_owned(), "g3e4".to_owned()]
        }
    );
    assert!(message(&p, "Ne4").ends_with("ambiguous, it could be any of c3e4, g3e4"));
    assert_eq!(parsed(&p, "Nce4"), "c3e4");
    let opulent = pos("opulent", "10/10/10/10/10/10/10/R9/10/R1K4k2 w - - 0 1");
    assert!(matches!(
        refused(&opulent, "Ra2"),
        IllegalReason::Ambiguous { candidates } if candidates.len() == 2
    ));
}

#[test]
fn promotion_piece_required() {
    let p = pos("chess", PROMOTION);
    assert_eq!(
        refused(&p, "e7e8"),
        IllegalReason::PromotionRequired {
            to: common::sq("e8"),
            allowed: vec!['q', 'r', 'b', 'n']
        }
    );
    assert!(message(&p, "e8").ends_with("the pawn must promote on e8: append one of q, r, b, n"));
    let opulent = pos("opulent", "10/7P2/10/10/10/10/10/10/10/K8k w - - 0 1");
    assert_eq!(
        refused(&opulent, "h9h10").code(),
        MoveRefusal::PromotionRequired
    );
}

#[test]
fn promotion_not_allowed_here() {
    let chess = start("chess");
    assert_eq!(
        refused(&chess, "e2e4q"),
        IllegalReason::PromotionNotAllowed {
            to: common::sq("e4"),
            unavailable: false
        }
    );
    assert_eq!(
        refused(&chess, "e2-e4=Q").code(),
        MoveRefusal::PromotionNotAllowed
    );
    // Opulent: every piece type is still on the board, so the pawn on d9 may not step to the
    // tenth rank at all.
    let opulent = pos(
        "opulent",
        "rw6wr/clnPqkbnla/pppppppppp/10/10/10/10/PPPPPPPPPP/CLNBQKBNLA/RW6WR w - - 0 1",
    );
    for text in ["d9d10", "d9d10q"] {
        assert_eq!(
            refused(&opulent, text),
            IllegalReason::PromotionNotAllowed {
                to: common::sq("d10"),
                unavailable: true
            },
            "{text}"
        );
    }
}

#[test]
fn promotion_to_a_piece_not_allowed() {
    let p = pos("chess", PROMOTION);
    assert_eq!(
        refused(&p, "e7e8k"),
        IllegalReason::InvalidPromotion {
            letter: 'k',
            allowed: vec!['q', 'r', 'b', 'n']
        }
    );
    // Decima promotes only to types worth 6 or less that were lost: here the queen only.
    let decima = pos("decima", "4k5/P9/10/10/10/10/10/10/10/RBMA1SODBR w - - 0 1");
    assert_eq!(
        refused(&decima, "a9a10d"),
        IllegalReason::InvalidPromotion {
            letter: 'd',
            allowed: vec!['q']
        }
    );
}

#[test]
fn drop_onto_a_pawn_needs_its_relocation() {
    let orphic = start("orphic");
    let reason = refused(&orphic, "N@e3");
    let IllegalReason::RelocationRequired { square, example } = &reason else {
        panic!("{reason:?}");
    };
    assert_eq!(*square, common::sq("e3"));
    let example = example.as_deref().unwrap();
    assert!(example.starts_with("N@e3,"), "{example}");
    assert!(orphic.parse_move(example).is_ok());
    assert!(message(&orphic, "N@e3").contains("write where it goes, e.g. N@e3,"));
}

#[test]
fn relocation_must_be_possible() {
    let orphic = start("orphic");
    let reason = refused(&orphic, "N@e3,e5");
    assert_eq!(reason.code(), MoveRefusal::InvalidRelocation);
    assert!(message(&orphic, "N@e3,e5").ends_with("an empty square on ranks 2-4"));
    assert!(message(&orphic, "N@e4,c2").ends_with("there is no pawn of yours on e4 to relocate"));
    assert_eq!(
        refused(&orphic, "N@e3,d3").code(),
        MoveRefusal::InvalidRelocation
    );
}

#[test]
fn board_pieces_only_capture_until_the_king_is_dropped() {
    let orphic = start("orphic");
    assert_eq!(
        refused(&orphic, "e3e4"),
        IllegalReason::CapturesOnlyBeforeKing
    );
    assert_eq!(
        refused(&orphic, "e4"),
        IllegalReason::CapturesOnlyBeforeKing
    );
    assert!(message(&orphic, "e3e4").contains("may only capture"));
}

#[test]
fn castling_written_as_king_takes_rook() {
    let p = pos("chess", CASTLING);
    assert_eq!(
        refused(&p, "e1h1"),
        IllegalReason::CastlingAsKingTakesRook {
            write: "e1g1".to_owned()
        }
    );
    assert_eq!(
        refused(&p, "Ke1xa1"),
        IllegalReason::CastlingAsKingTakesRook {
            write: "e1c1".to_owned()
        }
    );
    let soho = pos("soho", SOHO_CASTLING);
    assert!(message(&soho, "f2j2").ends_with("castling is written as the king's move: f2h2"));
}

#[test]
fn castling_that_is_not_possible() {
    assert_eq!(
        refused(&start("opulent"), "O-O"),
        IllegalReason::CastlingNotAllowed {
            detail: "this variant has no castling"
        }
    );
    assert_eq!(
        refused(&start("chess"), "O-O").code(),
        MoveRefusal::CastlingNotAllowed
    );
    let no_right = pos("chess", "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1");
    assert!(message(&no_right, "0-0").contains("no castling right"));
    let through_check = pos("chess", "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1");
    assert_eq!(
        refused(&through_check, "O-O"),
        IllegalReason::CastlingNotAllowed {
            detail: "the king would cross or land on an attacked square"
        }
    );
}

#[test]
fn drop_of_a_piece_not_in_hand() {
    let no_queen = pos(
        "orphic",
        "8/8/pppppppp/8/8/PPPPPPPP/8/8[RRBBNNKqrrbbnnk] w LDld - 0 1",
    );
    assert_eq!(
        refused(&no_queen, "Q@e4"),
        IllegalReason::PieceNotInHand {
            letter: 'Q',
            known: true
        }
    );
    assert_eq!(
        refused(&no_queen, "P@e4"),
        IllegalReason::PieceNotInHand {
            letter: 'P',
            known: false
        }
    );
}

#[test]
fn drops_the_rules_forbid() {
    assert!(message(&start("chess"), "N@e4").ends_with("this variant has no drops"));
    let orphic = start("orphic");
    assert!(message(&orphic, "N@e6").ends_with("e6 is occupied by a black pawn"));
    assert!(message(&orphic, "K@e4").ends_with("the king may only be dropped on rank 1"));
    let light_used = pos(
        "orphic",
        "8/8/pppppppp/8/8/PPPPPPPP/8/8[QRRBNNKqrrbbnnk] w Dld - 0 1",
    );
    let reason = refused(&light_used, "B@c4");
    assert_eq!(reason.code(), MoveRefusal::DropNotAllowed);
    assert!(
        reason
            .to_string()
            .contains("light squares has been dropped already")
    );
    assert!(light_used.parse_move("B@d4").is_ok());
}

#[test]
fn a_dropped_king_may_not_stand_in_check() {
    let p = pos("orphic", "8/8/pppppppp/8/3q4/PPP1PPPP/8/8[Kk] w - - 0 1");
    assert_eq!(
        refused(&p, "K@d1"),
        IllegalReason::LeavesKingInCheck { in_check: false }
    );
}

#[test]
fn decima_check_must_be_answered_by_a_relieving_capture() {
    // White's king on a10 scores ten points; the knight can take it (a suicide capture).
    let p = pos("decima", "K4k4/10/1n8/10/10/10/10/10/10/10 b - - 0 1");
    assert_eq!(refused(&p, "f10f9"), IllegalReason::CheckNotAnswered);
    assert_eq!(refused(&p, "b8c6"), IllegalReason::CheckNotAnswered);
    assert!(p.parse_move("b8a10").is_ok());
}

#[test]
fn decima_suicide_capture_with_the_last_unit() {
    let p = pos("decima", "3R6/1n8/10/10/4K5/10/10/10/10/10 b - - 0 1");
    assert_eq!(refused(&p, "b9d10"), IllegalReason::LastUnitSuicide);
    assert_eq!(refused(&p, "Nxd10").code(), MoveRefusal::LastUnitSuicide);
}

#[test]
fn no_move_once_the_game_is_over() {
    let p = pos(
        "chess",
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    );
    assert_eq!(
        refused(&p, "a2a3"),
        IllegalReason::GameOver {
            termination: Termination::Checkmate
        }
    );
}

#[test]
fn refusal_codes_are_stable_and_distinct() {
    let codes: std::collections::BTreeSet<&str> =
        MoveRefusal::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes.len(), MoveRefusal::ALL.len());
    for code in [
        "UNPARSABLE_MOVE",
        "ILLEGAL_MOVE",
        "AMBIGUOUS_MOVE",
        "PROMOTION_REQUIRED",
        "RELOCATION_REQUIRED",
        "LEAVES_KING_IN_CHECK",
    ] {
        assert!(codes.contains(code), "{code}");
    }
}
