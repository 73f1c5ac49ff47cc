//! PGN text of a finished game: the seven-tag roster, the variant and start position, the
//! termination, and SAN moves with the mover's score and depth as comments.
//!
//! The `FEN` tag is written for every game, the variant's own start included: other programs
//! know some of our variants under the same name with a different start array, and a reader
//! that replays from the tag's FEN gets our game whatever its own idea of the start is.

use variant_engine::write_pgn;

use super::game::GameRecord;
use super::uci::MATE_SCORE;

/// What the PGN header needs besides the game itself.
#[derive(Clone, Debug)]
pub struct PgnHeader<'a> {
    /// `Event` tag.
    pub event: &'a str,
    /// `Round` tag (1-based game number).
    pub round: usize,
    /// Name of the engine playing White.
    pub white: &'a str,
    /// Name of the engine playing Black.
    pub black: &'a str,
    /// Variant name (`Variant` tag).
    pub variant: &'a str,
    /// `TimeControl` tag.
    pub time_control: &'a str,
    /// `Date` tag (`YYYY.MM.DD`).
    pub date: &'a str,
}

/// Writes a score the way PGN comments from engines usually do (`+0.35`, `+M3`).
fn score_text(score: i32) -> String {
    if score >= MATE_SCORE - 1000 {
        format!("+M{}", (MATE_SCORE - score + 1) / 2)
    } else if score <= -MATE_SCORE + 1000 {
        // Being mated in n moves is stored as `2 n` plies above `-MATE_SCORE`.
        let plies = score + MATE_SCORE;
        format!("-M{}", plies / 2)
    } else {
        format!("{:+.2}", f64::from(score) / 100.0)
    }
}

/// The game as PGN (ending with a blank line).
pub fn to_pgn(header: &PgnHeader<'_>, game: &GameRecord) -> String {
    let result = game.result_text();
    let round = header.round.to_string();
    let plies = (game.opening.len() + game.moves.len()).to_string();
    let tags = [
        ("Event", header.event),
        ("Site", "?"),
        ("Date", header.date),
        ("Round", &round),
        ("White", header.white),
        ("Black", header.black),
        ("Result", result),
        ("Variant", header.variant),
        ("SetUp", "1"),
        ("FEN", &game.start_fen),
        ("TimeControl", header.time_control),
        ("Termination", game.ending.pgn_termination()),
        ("PlyCount", &plies),
    ];
    let opening = game.opening_san.iter().map(|m| (m.as_str(), None));
    let played = game.moves.iter().map(|m| {
        let comment = m.thought.score.map(|sc| {
            format!(
                "{}/{} {}ms",
                score_text(sc),
                m.thought.depth,
                m.elapsed.as_millis()
            )
        });
        (m.san.as_str(), comment)
    });
    write_pgn(
        &tags,
        &game.start_fen,
        opening.chain(played),
        Some(&game.ending.describe()),
        result,
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use variant_engine::{Color, Termination};

    use super::*;
    use crate::matches::game::{Ending, GameRecord, PlayedMove};
    use crate::matches::uci::Thought;

    fn played(mover: Color, san: &str, score: i32) -> PlayedMove {
        PlayedMove {
            mover,
            san: san.to_owned(),
            uci: String::new(),
            thought: Thought {
                best: String::new(),
                depth: 7,
                seldepth: 9,
                nodes: 100,
                score: Some(score),
            },
            elapsed: Duration::from_millis(12),
        }
    }

    #[test]
    fn fools_mate_in_pgn() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let game = GameRecord {
            start_fen: start.to_owned(),
            opening: vec!["f2f3".to_owned()],
            opening_san: vec!["f3".to_owned()],
            moves: vec![
                played(Color::Black, "e5", 50),
                played(Color::White, "g4", -300),
                played(Color::Black, "Qh4#", MATE_SCORE - 1),
            ],
            winner: Some(Color::Black),
            ending: Ending::Rules(Termination::Checkmate),
        };
        let header = PgnHeader {
            event: "test",
            round: 3,
            white: "A",
            black: "B",
            variant: "chess",
            time_control: "0.2/move",
            date: "2026.12.01",
        };
        let pgn = to_pgn(&header, &game);
        assert!(pgn.contains("[Result \"0-1\"]\n"), "{pgn}");
        assert!(pgn.contains("[Termination \"normal\"]\n"), "{pgn}");
        assert!(pgn.contains("[PlyCount \"4\"]\n"), "{pgn}");
        assert!(
            pgn.contains(&format!("[SetUp \"1\"]\n[FEN \"{start}\"]\n")),
            "the start position is written too: {pgn}"
        );
        assert!(
            pgn.contains(
                "1. f3 e5 {+0.50/7 12ms} 2. g4 {-3.00/7 12ms} Qh4# {+M1/7 12ms} {checkmate} 0-1"
            ),
            "{pgn}"
        );
    }

    #[test]
    fn black_to_move_starts_with_an_ellipsis_and_tags_are_escaped() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40";
        let game = GameRecord {
            start_fen: fen.to_owned(),
            opening: vec![],
            opening_san: vec![],
            moves: vec![
                played(Color::Black, "Kd7", 0),
                played(Color::White, "e4", 0),
            ],
            winner: None,
            ending: Ending::MaxPlies,
        };
        let header = PgnHeader {
            event: "e",
            round: 1,
            white: "A \"quoted\"",
            black: "B",
            variant: "chess",
            time_control: "-",
            date: "2026.12.01",
        };
        let pgn = to_pgn(&header, &game);
        assert!(pgn.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]"));
        assert!(pgn.contains("[White \"A \\\"quoted\\\"\"]"), "{pgn}");
        assert!(pgn.contains("[Termination \"adjudication\"]"), "{pgn}");
        assert!(pgn.contains("40... Kd7 {+0.00/7 12ms} 41. e4"), "{pgn}");
        assert!(pgn.trim_end().ends_with("{ply limit} 1/2-1/2"), "{pgn}");
    }
}
