//! `variant-engine`: the command-line front ends to the engine library.
//!
//! With no arguments it speaks UCI on stdin/stdout ([`uci`]). Subcommands: `perft` (move-path
//! counts), `bench` (the search signature, [`bench`](mod@bench)) and `match` (a refereed match
//! between two UCI engines, this one included, [`matches`]). The library itself never prints;
//! everything that talks to a terminal or a protocol lives in this package.

mod bench;
mod matches;
mod uci;

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use variant_engine::Registry;

use crate::matches::args::MatchArgs;
use crate::matches::run_match;
use crate::uci::{Flow, UciSession, perft_command};

/// Exit code for bad arguments (clap uses the same for its own usage errors).
const USAGE_ERROR: u8 = 2;

/// Command line of `variant-engine`.
#[derive(Debug, Parser)]
#[command(
    name = "variant-engine",
    version,
    about = "Chess-variant engine: UCI on stdin/stdout when run without a subcommand"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Counts move paths to a depth, split by first move.
    Perft {
        /// Variant name.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
        /// Start from this FEN instead of the variant's start position.
        #[arg(long)]
        fen: Option<String>,
    },
    /// Searches the fixed bench positions; the total node count is the search signature.
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = bench::BENCH_DEPTH, value_parser = clap::value_parser!(u32).range(1..))]
        depth: u32,
    },
    /// Plays a match between two UCI engines (`cmd=self` is this program), refereed by our
    /// rules; see docs/MATCHES.md.
    Match(Box<MatchArgs>),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        None => uci_loop(),
        Some(Command::Perft {
            variant,
            depth,
            fen,
        }) => perft_main(&variant, depth, fen.as_deref()),
        Some(Command::Bench { depth }) => bench_main(depth),
        Some(Command::Match(args)) => match_main(&args),
    }
}

fn uci_loop() -> ExitCode {
    let mut session = UciSession::new(Registry::builtin(), io::stdout());
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match session.handle(&line) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) | Err(_) => return ExitCode::SUCCESS,
        }
    }
    session.finish();
    ExitCode::SUCCESS
}

fn perft_main(variant: &str, depth: u32, fen: Option<&str>) -> ExitCode {
    let mut out = io::stdout().lock();
    match perft_command(&Registry::builtin(), variant, depth, fen, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            eprintln!("error: {e}");
            ExitCode::from(USAGE_ERROR)
        }
    }
}

fn bench_main(depth: u32) -> ExitCode {
    let mut out = io::stdout().lock();
    match bench::run(&Registry::builtin(), depth, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn match_main(args: &MatchArgs) -> ExitCode {
    let config = match args.to_config(&Registry::builtin()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let mut out = io::stdout();
    match run_match(&config, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("variant-engine").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn subcommands_keep_their_flags_and_defaults() {
        assert!(parse(&[]).unwrap().command.is_none());
        let Some(Command::Perft {
            variant,
            depth,
            fen,
        }) = parse(&["perft", "--variant", "opulent", "--depth", "3"])
            .unwrap()
            .command
        else {
            panic!("not perft");
        };
        assert_eq!((variant.as_str(), depth, fen), ("opulent", 3, None));
        assert!(parse(&["perft"]).is_err(), "perft needs --depth");
        let Some(Command::Bench { depth }) = parse(&["bench"]).unwrap().command else {
            panic!("not bench");
        };
        assert_eq!(depth, bench::BENCH_DEPTH);
        assert!(parse(&["bench", "--depth", "0"]).is_err());
        let Some(Command::Match(m)) = parse(&[
            "match",
            "--variant",
            "soho",
            "--games",
            "4",
            "--a",
            "name=new",
            "cmd=self",
            "--b",
            "cmd=self",
            "option.Features=null=off",
            "nodes=20",
            "--nodes",
            "500",
            "--sprt",
            "0,10",
            "--concurrency",
            "2",
        ])
        .unwrap()
        .command
        else {
            panic!("not match");
        };
        assert_eq!(
            (m.variant.as_str(), m.games, m.nodes, m.sprt),
            ("soho", 4, Some(500), Some((0.0, 10.0)))
        );
        assert_eq!(m.a, ["name=new", "cmd=self"]);
        assert_eq!(m.b, ["cmd=self", "option.Features=null=off", "nodes=20"]);
        assert_eq!(
            (m.seed, m.concurrency, m.plies, m.max_plies),
            (1, 2, 4, 600)
        );
        let config = m.to_config(&Registry::builtin()).unwrap();
        assert_eq!(
            [&config.entrants[0].name, &config.entrants[1].name],
            ["new", "self"]
        );
        assert_eq!(
            config.entrants[1].command.variant.as_deref(),
            Some("soho"),
            "the engine is told the match's variant"
        );
        let both = |extra: &[&str]| {
            let mut v = vec!["match", "--a", "cmd=x", "--b", "cmd=y"];
            v.extend_from_slice(extra);
            parse(&v)
        };
        assert!(both(&["--depth", "3", "--nodes", "9"]).is_err());
        assert!(both(&["--tc", "nonsense"]).is_err());
        assert!(both(&["--sprt", "5,0"]).is_err());
        assert!(both(&["--games", "0"]).is_err());
        assert!(
            parse(&["match", "--a", "cmd=x"]).is_err(),
            "--b is required"
        );
        assert!(parse(&["frobnicate"]).is_err());
    }
}
