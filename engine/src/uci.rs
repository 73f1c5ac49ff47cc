//! The UCI protocol adapter used by the `variant-engine` binary.
//!
//! The engine library never prints; this module turns protocol lines into library calls and
//! writes replies to the writer it is given, so tests can drive it with strings.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Arc;

use crate::geometry::{STRIDE, Square};
use crate::perft::{divide, perft};
use crate::position::Position;
use crate::variant::{Registry, Variant};

/// Engine name reported by `uci`.
pub const ENGINE_NAME: &str = concat!("variant-engine ", env!("CARGO_PKG_VERSION"));

/// Whether the session goes on after a command.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit` was received.
    Quit,
}

/// One UCI conversation.
#[derive(Debug)]
pub struct UciSession<W: Write> {
    registry: Registry,
    variant: Arc<Variant>,
    position: Position,
    out: W,
}

impl<W: Write> UciSession<W> {
    /// A session on orthodox chess, writing replies to `out`.
    ///
    /// # Panics
    /// If the registry has no `chess` variant (it always does).
    pub fn new(registry: Registry, out: W) -> Self {
        let variant = registry.get("chess").expect("chess is built in");
        let position = Position::new(variant.clone());
        Self {
            registry,
            variant,
            position,
            out,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Handles one command line.
    ///
    /// # Errors
    /// Only when writing to the output fails.
    pub fn handle(&mut self, line: &str) -> io::Result<Flow> {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else {
            return Ok(Flow::Continue);
        };
        let rest: Vec<&str> = words.collect();
        match command {
            "uci" => {
                let vars: String = self
                    .registry
                    .names()
                    .iter()
                    .fold(String::new(), |mut s, n| {
                        let _ = write!(s, " var {n}");
                        s
                    });
                writeln!(self.out, "id name {ENGINE_NAME}")?;
                writeln!(self.out, "id author the variant-engine authors")?;
                writeln!(
                    self.out,
                    "option name UCI_Variant type combo default chess{vars}"
                )?;
                writeln!(self.out, "uciok")?;
            }
            "isready" => writeln!(self.out, "readyok")?,
            "ucinewgame" => self.position = Position::new(self.variant.clone()),
            "setoption" => self.set_option(&rest)?,
            "position" => self.set_position(&rest)?,
            "go" => self.go(&rest)?,
            "d" => self.display()?,
            "quit" => return Ok(Flow::Quit),
            other => writeln!(self.out, "info string unknown command {other:?}")?,
        }
        self.out.flush()?;
        Ok(Flow::Continue)
    }

    fn set_option(&mut self, args: &[&str]) -> io::Result<()> {
        let value_at = args.iter().position(|w| *w == "value");
        let name = args
            .get(1..value_at.unwrap_or(args.len()))
            .map(|w| w.join(" "));
        let value = value_at.map(|i| args[i + 1..].join(" "));
        match (name.as_deref(), value) {
            (Some("UCI_Variant"), Some(value)) => match self.registry.get(&value) {
                Ok(v) => {
                    self.variant = v.clone();
                    self.position = Position::new(v);
                }
                Err(e) => writeln!(self.out, "info string {e}")?,
            },
            (name, _) => writeln!(
                self.out,
                "info string unknown option {:?}",
                name.unwrap_or("")
            )?,
        }
        Ok(())
    }

    fn set_position(&mut self, args: &[&str]) -> io::Result<()> {
        let moves_at = args
            .iter()
            .position(|w| *w == "moves")
            .unwrap_or(args.len());
        let mut pos = match args.first() {
            Some(&"startpos") => Position::new(self.variant.clone()),
            Some(&"fen") => {
                match Position::from_fen(self.variant.clone(), &args[1..moves_at].join(" ")) {
                    Ok(p) => p,
                    Err(e) => return writeln!(self.out, "info string invalid fen: {e}"),
                }
            }
            _ => {
                return writeln!(
                    self.out,
                    "info string expected position startpos|fen <fen> [moves ...]"
                );
            }
        };
        for (i, text) in args.iter().skip(moves_at + 1).enumerate() {
            match pos.parse_move(text) {
                Ok(m) => pos.play(m),
                Err(e) => return writeln!(self.out, "info string move {i} ({text}): {e}"),
            }
        }
        self.position = pos;
        Ok(())
    }

    fn go(&mut self, args: &[&str]) -> io::Result<()> {
        match args {
            ["perft", depth] => match depth.parse::<u32>() {
                Ok(d) if d >= 1 => {
                    let mut pos = self.position.clone();
                    let mut total = 0;
                    for (m, n) in divide(&mut pos, d) {
                        writeln!(self.out, "{}: {n}", pos.uci(m))?;
                        total += n;
                    }
                    writeln!(self.out)?;
                    writeln!(self.out, "Nodes searched: {total}")
                }
                _ => writeln!(self.out, "info string invalid perft depth {depth:?}"),
            },
            _ => writeln!(
                self.out,
                "info string unsupported go arguments {:?}",
                args.join(" ")
            ),
        }
    }

    fn display(&mut self) -> io::Result<()> {
        let text = board_diagram(&self.position);
        write!(self.out, "{text}")?;
        writeln!(self.out, "Fen: {}", self.position.fen())
    }
}

/// A text diagram of the board, White at the bottom.
pub fn board_diagram(pos: &Position) -> String {
    let v = pos.variant();
    let mut s = String::new();
    for rank in (0..v.ranks()).rev() {
        let _ = write!(s, "{:>3} ", rank + 1);
        for file in 0..v.files() {
            let c = pos
                .piece_at(Square::new(rank * STRIDE + file))
                .map_or('.', |p| {
                    let l = v.piece(p.kind()).letter;
                    if p.color() == crate::piece::Color::White {
                        l
                    } else {
                        l.to_ascii_lowercase()
                    }
                });
            let _ = write!(s, " {c}");
        }
        s.push('\n');
    }
    s.push_str("    ");
    for file in 0..v.files() {
        let _ = write!(s, " {}", (b'a' + file) as char);
    }
    s.push('\n');
    s
}

/// `perft` subcommand: prints the split and the total.
///
/// # Errors
/// A message naming the bad argument, or an I/O error text.
pub fn perft_command(
    registry: &Registry,
    variant: &str,
    depth: u32,
    fen: Option<&str>,
    out: &mut impl Write,
) -> Result<u64, String> {
    let v = registry.get(variant).map_err(|e| e.to_string())?;
    let mut pos = match fen {
        Some(f) => Position::from_fen(v, f).map_err(|e| format!("invalid fen: {e}"))?,
        None => Position::new(v),
    };
    let start = std::time::Instant::now();
    let mut total = 0;
    if depth == 0 {
        total = perft(&mut pos, 0);
    }
    for (m, n) in divide(&mut pos, depth) {
        writeln!(out, "{}: {n}", pos.uci(m)).map_err(|e| e.to_string())?;
        total += n;
    }
    let secs = start.elapsed().as_secs_f64();
    writeln!(out).map_err(|e| e.to_string())?;
    writeln!(out, "Nodes searched: {total}").map_err(|e| e.to_string())?;
    writeln!(
        out,
        "Time: {:.3} s ({:.0} nodes/s)",
        secs,
        total as f64 / secs.max(1e-9)
    )
    .map_err(|e| e.to_string())?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lines: &[&str]) -> String {
        let mut out = Vec::new();
        {
            let mut s = UciSession::new(Registry::builtin(), &mut out);
            for l in lines {
                s.handle(l).unwrap();
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn uci_advertises_every_variant() {
        let out = run(&["uci"]);
        let line = out
            .lines()
            .find(|l| l.starts_with("option name UCI_Variant"))
            .unwrap();
        for name in Registry::builtin().names() {
            assert!(line.contains(&format!(" var {name}")), "{line}");
        }
        assert!(out.ends_with("uciok\n"));
    }

    #[test]
    fn go_perft_prints_split_and_total() {
        let out = run(&[
            "setoption name UCI_Variant value opulent",
            "position startpos moves e3e5",
            "go perft 2",
        ]);
        assert!(out.contains("\nNodes searched: "), "{out}");
        let total: u64 = out
            .lines()
            .find_map(|l| l.strip_prefix("Nodes searched: "))
            .unwrap()
            .parse()
            .unwrap();
        let split: u64 = out
            .lines()
            .filter_map(|l| l.split_once(": "))
            .filter(|(m, _)| !m.contains(' '))
            .map(|(_, n)| n.parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, split);
        assert!(total > 0);
    }

    #[test]
    fn d_prints_fen_and_bad_input_is_reported() {
        let out = run(&["setoption name UCI_Variant value soho", "d"]);
        assert!(out.contains("Fen: cwf4fwc/"), "{out}");
        let out = run(&[
            "setoption name UCI_Variant value nosuch",
            "position fen garbage",
            "position startpos moves e2e5",
        ]);
        assert!(out.contains("unknown variant"), "{out}");
        assert!(out.contains("invalid fen"), "{out}");
        assert!(out.contains("move 0 (e2e5)"), "{out}");
    }
}
