//! `variant-engine`: the command-line front ends to the engine library.
//!
//! With no arguments it speaks UCI on stdin/stdout ([`uci`]). Subcommands: `perft` (move-path
//! counts), `bench` (the search signature, [`bench`](mod@bench)) and `match` (self-play between two
//! configurations, [`selfplay`]). The library itself never prints; everything that talks to a
//! terminal or a protocol lives in this package.

mod bench;
mod selfplay;
mod uci;

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use variant_engine::{Registry, SearchOptions};

use crate::selfplay::{MatchConfig, MoveLimit, run_match};
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
    /// Plays a self-play match between two engine configurations.
    Match(MatchArgs),
}

/// Arguments of `match`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("limit").multiple(false))]
struct MatchArgs {
    /// Variant name.
    #[arg(long, default_value = "chess")]
    variant: String,
    /// Games (rounded up to an even number: each opening is played with both colours).
    #[arg(long, default_value_t = 20)]
    games: u64,
    /// Configuration A, e.g. `null=off,lmr=off,skill=5` (empty = defaults).
    #[arg(long = "a", default_value = "")]
    config_a: String,
    /// Configuration B.
    #[arg(long = "b", default_value = "")]
    config_b: String,
    /// Time per move in milliseconds (the default limit, 50 ms).
    #[arg(long, group = "limit")]
    movetime: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, group = "limit")]
    depth: Option<u64>,
    /// Fixed nodes per move.
    #[arg(long, group = "limit")]
    nodes: Option<u64>,
    /// Seed for openings and skill choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at the same time (1..=64).
    #[arg(long, default_value_t = 1)]
    concurrency: u64,
    /// Random plies from the start position that make an opening.
    #[arg(long, default_value_t = 4)]
    plies: u64,
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
    let parsed = (|| -> Result<_, String> {
        let variant = Registry::builtin()
            .get(&args.variant)
            .map_err(|e| e.to_string())?;
        let a: SearchOptions = args.config_a.parse().map_err(|e| format!("--a: {e}"))?;
        let b: SearchOptions = args.config_b.parse().map_err(|e| format!("--b: {e}"))?;
        let limit = match (args.depth, args.nodes) {
            (Some(depth), _) => MoveLimit::Depth(depth.clamp(1, 100) as u32),
            (None, Some(nodes)) => MoveLimit::Nodes(nodes.max(1)),
            (None, None) => {
                MoveLimit::Time(Duration::from_millis(args.movetime.unwrap_or(50).max(1)))
            }
        };
        let cfg = MatchConfig {
            games: args.games as usize,
            limit,
            opening_plies: args.plies as usize,
            seed: args.seed,
            concurrency: args.concurrency.clamp(1, 64) as usize,
            max_plies: 400,
        };
        Ok((variant, a, b, cfg))
    })();
    let (variant, a, b, cfg) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let mut out = io::stdout();
    match run_match(&variant, &a, &b, &cfg, &mut out) {
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
            "null=off",
            "--b",
            "",
            "--nodes",
            "500",
            "--seed",
            "7",
            "--concurrency",
            "2",
            "--plies",
            "6",
        ])
        .unwrap()
        .command
        else {
            panic!("not match");
        };
        assert_eq!(
            (m.variant.as_str(), m.games, m.config_a.as_str(), m.nodes),
            ("soho", 4, "null=off", Some(500))
        );
        assert_eq!((m.seed, m.concurrency, m.plies), (7, 2, 6));
        assert!(parse(&["match", "--depth", "3", "--nodes", "9"]).is_err());
        assert!(parse(&["frobnicate"]).is_err());
    }
}
