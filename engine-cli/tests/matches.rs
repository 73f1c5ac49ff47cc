//! `variant-engine match` end to end, with the built program and small shell-script engines
//! that misbehave on purpose: each kind of failure loses its game and the match goes on to
//! the end; the SPRT stops early for a clearly stronger and for an identical opponent; the
//! PGN replays under our rules; a results file resumes; a `book` of balanced openings feeds a
//! match.
//!
//! Everything is bounded by node or depth limits and a ply cap, never by the clock, so the
//! outcomes are deterministic and the tests fast. The fake engines need a POSIX `sh`.
#![cfg(unix)]
// Test helpers outside `#[test]` functions: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use variant_engine::{GameStatus, Position, Registry};

/// Our engine program, built by cargo for these tests.
const ENGINE: &str = env!("CARGO_BIN_EXE_variant-engine");

/// A well-behaved opponent: this program at a small fixed node count and a small table.
const GOOD: &[&str] = &["name=good", "cmd=self", "nodes=200", "option.Hash=1"];

/// Two copies of this program with small tables, as `--a` and `--b`.
const SELF_PAIR: &[&str] = &[
    "--a",
    "cmd=self",
    "option.Hash=1",
    "--b",
    "cmd=self",
    "option.Hash=1",
];

/// A directory of its own for one test, removed afterwards.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "variant-engine-matches-{}-{n}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes a fake UCI engine: a shell script that does the handshake and answers its first
/// `after - 1` moves by asking our engine for a depth-1 move in the same position (so they
/// are legal), then runs `misbehave` on every later `go`.
fn fake_engine(dir: &TempDir, name: &str, after: u32, misbehave: &str) -> PathBuf {
    let path = dir.path(name);
    let script = format!(
        r#"#!/bin/sh
n=0
variant=chess
pos="position startpos"
while read -r line; do
  case "$line" in
    uci) echo "id name {name}"; echo uciok ;;
    isready) echo readyok ;;
    "setoption name UCI_Variant value "*) variant=${{line#setoption name UCI_Variant value }} ;;
    position*) pos=$line ;;
    go*)
      n=$((n + 1))
      if [ "$n" -ge {after} ]; then
        {misbehave}
      else
        printf 'setoption name Hash value 1\nsetoption name UCI_Variant value %s\n%s\ngo depth 1\n' "$variant" "$pos" | "{ENGINE}" | grep '^bestmove'
      fi ;;
    quit) exit 0 ;;
  esac
done
"#
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs `variant-engine match ARGS` and returns its output; fails the test if it fails.
fn run_match(args: &[&str]) -> String {
    let out = Command::new(ENGINE)
        .arg("match")
        .args(args)
        .output()
        .expect("runs the program");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// A match of `games` games between the good engine and `fake`, with short openings.
fn against(fake: &Path, games: usize, extra: &[&str]) -> String {
    let cmd = format!("cmd={}", fake.display());
    let games = games.to_string();
    let mut args = vec!["--a"];
    args.extend_from_slice(GOOD);
    args.extend_from_slice(&["--b", "name=fake", &cmd]);
    // A node limit for the fake too: under a time limit its slow proxied moves could lose on
    // time on a loaded machine, which would make the outcome depend on the clock.
    args.extend_from_slice(&["--games", &games, "--plies", "2", "--max-plies", "60"]);
    args.extend_from_slice(&["--nodes", "200"]);
    args.extend_from_slice(extra);
    run_match(&args)
}

/// The summary line `KEY: ...` of the engine called `name`.
fn engine_line<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(&format!("{name}: moves")))
        .unwrap_or_else(|| panic!("no line for {name}:\n{out}"))
}

/// Checks that the good engine won all `games` games against a fake that lost by `ending`.
fn assert_fake_lost_everything(out: &str, games: usize, ending: &str) {
    assert!(
        out.contains(&format!("games {games}  good: W {games} D 0 L 0")),
        "every game is lost by the fake and the match completes:\n{out}"
    );
    assert!(
        out.contains(&format!("endings: {ending} {games}\n")),
        "{out}"
    );
    assert!(
        engine_line(out, "fake").ends_with(&format!("losses by fault {games}")),
        "{out}"
    );
    assert!(
        engine_line(out, "good").ends_with("losses by fault 0"),
        "{out}"
    );
}

#[test]
fn an_illegal_move_loses_and_the_match_goes_on() {
    let dir = TempDir::new("illegal");
    // One legal move, then a pawn three squares forward (never legal, whoever is to move).
    let fake = fake_engine(&dir, "illegal.sh", 2, "echo 'bestmove e2e5'");
    let pgn = dir.path("games.pgn");
    let out = against(&fake, 4, &["--pgn", pgn.to_str().unwrap()]);
    assert_fake_lost_everything(&out, 4, "illegal move");
    assert!(out.contains("illegal move \"e2e5\""), "{out}");
    let pgn = std::fs::read_to_string(pgn).unwrap();
    assert_eq!(pgn.matches("[Termination \"rules infraction\"]").count(), 4);
}

#[test]
fn an_engine_that_never_answers_loses_on_the_hang_timeout() {
    let dir = TempDir::new("hang");
    let fake = fake_engine(&dir, "hang.sh", 1, ":");
    // Each hung game costs the timeout: one pair is enough.
    let out = against(&fake, 2, &["--hang-timeout", "1"]);
    assert_fake_lost_everything(&out, 2, "time forfeit");
}

#[test]
fn an_engine_that_exits_mid_game_loses_and_is_started_again() {
    let dir = TempDir::new("crash");
    // The process dies at its second move of every game; each game needs a fresh one.
    let fake = fake_engine(&dir, "crash.sh", 2, "exit 3");
    let out = against(&fake, 4, &[]);
    assert_fake_lost_everything(&out, 4, "engine crashed");
    assert!(
        engine_line(&out, "fake").starts_with("fake: moves 4 "),
        "{out}"
    );
}

#[test]
fn an_engine_without_a_move_loses() {
    for answer in ["(none)", "0000"] {
        let dir = TempDir::new("nomove");
        let fake = fake_engine(&dir, "nomove.sh", 1, &format!("echo 'bestmove {answer}'"));
        let out = against(&fake, 2, &[]);
        assert_fake_lost_everything(&out, 2, "no move");
    }
}

#[test]
fn sprt_accepts_h1_early_against_a_much_weaker_engine() {
    let out = run_match(&[
        "--a",
        "name=strong",
        "cmd=self",
        "nodes=2000",
        "option.Hash=1",
        "--b",
        "name=weak",
        "cmd=self",
        "nodes=20",
        "option.Hash=1",
        "--games",
        "100",
        "--sprt",
        "0,400",
        "--resign",
        "2,600",
        "--max-plies",
        "200",
        "--concurrency",
        "2",
    ]);
    assert!(out.contains("H1 accepted"), "{out}");
    let games: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("games "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no games line:\n{out}"));
    // Won pairs add at most ln 2 each to the LLR: five pairs at least, and far fewer than
    // the hundred games asked for (the games still running when it decides, one per worker,
    // finish after the decision).
    assert!((10..=24).contains(&games), "{games} games:\n{out}");
}

#[test]
fn sprt_accepts_h0_for_identical_engines() {
    // Two copies of one deterministic engine play the same game with colours swapped, so
    // every pair is even; two even pairs already reject a 400 Elo gain.
    let out = run_match(
        &[
            SELF_PAIR,
            &[
                "--nodes",
                "300",
                "--games",
                "40",
                "--sprt",
                "0,400",
                "--max-plies",
                "120",
            ],
        ]
        .concat(),
    );
    assert!(out.contains("H0 accepted"), "{out}");
    assert!(out.contains("games 4 "), "stops after two pairs:\n{out}");
    assert!(
        out.contains("pentanomial [0, 0.5, 1, 1.5, 2] = [0, 0, 2, 0, 0]"),
        "{out}"
    );
    assert!(out.contains("self-a: moves") && out.contains("self-b: moves"));
}

/// One game of a PGN file: its tags and its moves (SAN, without numbers and comments).
struct PgnGame {
    tags: Vec<(String, String)>,
    moves: Vec<String>,
    result: String,
}

impl PgnGame {
    fn tag(&self, name: &str) -> &str {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| panic!("no {name} tag"), |(_, v)| v.as_str())
    }
}

/// A small PGN reader, enough for the runner's own output.
fn read_pgn(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix('[') {
            if !movetext.is_empty() {
                games.push(parse_movetext(std::mem::take(&mut tags), &movetext));
                movetext.clear();
            }
            let (name, value) = tag.split_once(' ').unwrap();
            let value = value.trim_end_matches(']').trim_matches('"');
            tags.push((name.to_owned(), value.to_owned()));
        } else if !line.trim().is_empty() {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    if !movetext.is_empty() {
        games.push(parse_movetext(tags, &movetext));
    }
    games
}

fn parse_movetext(tags: Vec<(String, String)>, text: &str) -> PgnGame {
    let mut words = Vec::new();
    let mut depth = 0;
    let mut word = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth > 0 => {}
            c if c.is_whitespace() => words.push(std::mem::take(&mut word)),
            c => word.push(c),
        }
    }
    words.push(word);
    let mut words: Vec<String> = words
        .into_iter()
        .filter(|w| !w.is_empty() && !w.ends_with('.'))
        .collect();
    let result = words.pop().unwrap();
    PgnGame {
        tags,
        moves: words,
        result,
    }
}

#[test]
fn the_pgn_replays_under_our_rules() {
    let registry = Registry::builtin();
    for variant in ["opulent", "orphic"] {
        let dir = TempDir::new("pgn");
        let pgn = dir.path("games.pgn");
        run_match(&[
            "--variant",
            variant,
            "--a",
            "name=one",
            "cmd=self",
            "nodes=300",
            "option.Hash=1",
            "--b",
            "name=two",
            "cmd=self",
            "nodes=100",
            "option.Hash=1",
            "--games",
            "2",
            "--max-plies",
            "50",
            "--event",
            "pgn check",
            "--pgn",
            pgn.to_str().unwrap(),
        ]);
        let games = read_pgn(&std::fs::read_to_string(&pgn).unwrap());
        assert_eq!(games.len(), 2, "{variant}");
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.tag("Event"), "pgn check");
            assert_eq!(g.tag("Round"), (i + 1).to_string());
            assert_eq!(g.tag("Variant"), variant);
            assert_eq!(g.tag("SetUp"), "1");
            let (white, black) = if i == 0 {
                ("one", "two")
            } else {
                ("two", "one")
            };
            assert_eq!((g.tag("White"), g.tag("Black")), (white, black));
            assert_eq!(g.tag("Result"), g.result, "the tag and the movetext agree");
            assert_eq!(g.tag("PlyCount"), g.moves.len().to_string());
            let mut pos = Position::from_fen(registry.get(variant).unwrap(), g.tag("FEN")).unwrap();
            assert_eq!(
                pos.fen(),
                registry.get(variant).unwrap().start_fen(),
                "random openings start from the variant's start, written out"
            );
            pos.replay(g.moves.iter().map(String::as_str))
                .unwrap_or_else(|e| panic!("{variant} game {}: {e}", i + 1));
            match (pos.status(), g.tag("Termination")) {
                (GameStatus::Finished { winner, .. }, "normal") => {
                    let expected = match winner {
                        Some(variant_engine::Color::White) => "1-0",
                        Some(variant_engine::Color::Black) => "0-1",
                        None => "1/2-1/2",
                    };
                    assert_eq!(g.result, expected, "{variant} game {}", i + 1);
                }
                (GameStatus::Ongoing, "adjudication") => {
                    assert_eq!(g.moves.len(), 50, "only the ply cap ends these games");
                    assert_eq!(g.result, "1/2-1/2");
                }
                (status, termination) => {
                    panic!("{variant} game {}: {status:?} with {termination}", i + 1)
                }
            }
        }
    }
}

#[test]
fn a_results_file_resumes_the_match() {
    let dir = TempDir::new("resume");
    let results = dir.path("results.tsv");
    let results_arg = results.to_str().unwrap();
    let args = |games: &'static str| {
        [
            SELF_PAIR,
            &[
                "--depth",
                "2",
                "--max-plies",
                "30",
                "--games",
                games,
                "--results",
                results_arg,
            ],
        ]
        .concat()
    };
    let first = run_match(&args("2"));
    assert!(!first.contains("resuming"), "{first}");
    let second = run_match(&args("4"));
    assert!(
        second.contains("resuming: 2 games already played"),
        "{second}"
    );
    assert!(second.contains("game    3/4") && second.contains("game    4/4"));
    assert!(
        !second.contains("game    1/4"),
        "played games are skipped:\n{second}"
    );
    assert!(second.contains("games 4 "), "{second}");
    let text = std::fs::read_to_string(&results).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "a header and one line per game:\n{text}");
    assert!(lines[0].starts_with("game\tresult\tending"));
    for (i, line) in lines[1..].iter().enumerate() {
        assert!(line.starts_with(&format!("{i}\t")), "{text}");
    }
}

#[test]
fn an_engine_that_does_not_start_stops_the_match_before_any_game() {
    let out = Command::new(ENGINE)
        .args(["match", "--a", "cmd=self", "--b", "name=ghost"])
        .arg("cmd=/nonexistent/engine")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("engine ghost: could not run the engine"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).is_empty());
}

#[test]
fn a_book_feeds_a_match_and_bad_arguments_are_refused() {
    let dir = TempDir::new("book");
    let book = dir.path("book.epd");
    let book_arg = book.to_str().unwrap();
    let make = |max_score: &str, tries: &str| {
        Command::new(ENGINE)
            .args([
                "book",
                "--variant",
                "soho",
                "--count",
                "3",
                "--nodes",
                "3000",
            ])
            .arg(format!("--max-score={max_score}"))
            .args(["--tries", tries, "--out", book_arg])
            .output()
            .expect("runs the program")
    };
    let out = make("80", "20");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&book).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "a header and three openings:\n{text}");
    assert!(lines[0].starts_with("# book variant=soho"), "{text}");
    let v = Registry::builtin().get("soho").unwrap();
    for line in &lines[1..] {
        let (fen, comment) = line.split_once(" ; ").unwrap();
        let pos = Position::from_fen(v.clone(), fen).unwrap();
        assert_eq!(pos.status(), GameStatus::Ongoing, "{line}");
        let cp: i32 = comment
            .split("ce ")
            .nth(1)
            .and_then(|c| c.trim_end_matches(';').parse().ok())
            .unwrap();
        assert!(cp.abs() <= 80, "{line}");
    }
    let games = run_match(
        &[
            SELF_PAIR,
            &[
                "--variant",
                "soho",
                "--openings",
                book_arg,
                "--games",
                "6",
                "--nodes",
                "200",
                "--max-plies",
                "20",
            ],
        ]
        .concat(),
    );
    assert!(games.contains("games 6 "), "{games}");
    // A negative bound and an unknown variant are refused before any search.
    let out = make("-1", "20");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-score"));
    let out = Command::new(ENGINE)
        .args(["book", "--variant", "nosuch", "--out", book_arg])
        .output()
        .expect("runs the program");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nosuch"));
}
