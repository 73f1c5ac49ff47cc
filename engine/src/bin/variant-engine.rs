//! `variant-engine`: a std-only command-line front end to the engine library.
//!
//! With no arguments it speaks UCI on stdin/stdout. Subcommands:
//! `perft --variant <V> --depth <N> [--fen <FEN>]`, `bench [--depth <N>]` (the search signature)
//! and `match ...` (self-play between two configurations).

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use variant_engine::Registry;
use variant_engine::uci::{Flow, UciSession, perft_command};

const USAGE: &str = "usage: variant-engine [perft --variant <V> --depth <N> [--fen <FEN>]]\n\
                     \x20      variant-engine bench [--depth <N>]\n\
                     \x20      variant-engine match --variant <V> --games <N> [--a <config>] [--b <config>]\n\
                     \x20          [--movetime <ms> | --depth <d> | --nodes <n>] [--seed <s>] [--concurrency <c>]\n\
                     \x20          [--plies <opening plies>]   config: e.g. null=off,lmr=off,skill=5\n\
                     With no arguments, speaks UCI on stdin/stdout.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => uci_loop(),
        Some("perft") => perft_main(&args[1..]),
        Some("bench") => bench_main(&args[1..]),
        Some("match") => match_main(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("unknown subcommand {other:?}\n{USAGE}");
            ExitCode::from(2)
        }
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

/// Reads `--name value` pairs; the flag set is tiny and the binary must stay std-only.
fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn perft_main(args: &[String]) -> ExitCode {
    let known = ["--variant", "--depth", "--fen"];
    if let Some(bad) = args
        .iter()
        .step_by(2)
        .find(|a| !known.contains(&a.as_str()))
    {
        eprintln!("unknown perft argument {bad:?}\n{USAGE}");
        return ExitCode::from(2);
    }
    let variant = flag(args, "--variant").unwrap_or("chess");
    let Some(Ok(depth)) = flag(args, "--depth").map(str::parse::<u32>) else {
        eprintln!("perft needs --depth <N> (a non-negative integer)\n{USAGE}");
        return ExitCode::from(2);
    };
    let mut out = io::stdout().lock();
    match perft_command(
        &Registry::builtin(),
        variant,
        depth,
        flag(args, "--fen"),
        &mut out,
    ) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn bench_main(args: &[String]) -> ExitCode {
    let depth = match flag(args, "--depth").map(str::parse::<u32>) {
        None => variant_engine::bench::BENCH_DEPTH,
        Some(Ok(d)) if d >= 1 => d,
        Some(_) => {
            eprintln!("bench --depth needs a positive integer\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut out = io::stdout().lock();
    match variant_engine::bench::run(&Registry::builtin(), depth, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn match_main(args: &[String]) -> ExitCode {
    use variant_engine::selfplay::{EngineConfig, MatchConfig, MoveLimit, run_match};
    let known = [
        "--variant",
        "--games",
        "--a",
        "--b",
        "--movetime",
        "--depth",
        "--nodes",
        "--seed",
        "--concurrency",
        "--plies",
    ];
    if let Some(bad) = args
        .iter()
        .step_by(2)
        .find(|a| !known.contains(&a.as_str()))
    {
        eprintln!("unknown match argument {bad:?}\n{USAGE}");
        return ExitCode::from(2);
    }
    let number = |name: &str, default: u64| -> Result<u64, String> {
        flag(args, name).map_or(Ok(default), |v| {
            v.parse::<u64>()
                .map_err(|_| format!("{name} needs a non-negative integer"))
        })
    };
    let parsed = (|| -> Result<_, String> {
        let registry = Registry::builtin();
        let variant = registry
            .get(flag(args, "--variant").unwrap_or("chess"))
            .map_err(|e| e.to_string())?;
        let a: EngineConfig = flag(args, "--a")
            .unwrap_or("")
            .parse()
            .map_err(|e| format!("--a: {e}"))?;
        let b: EngineConfig = flag(args, "--b")
            .unwrap_or("")
            .parse()
            .map_err(|e| format!("--b: {e}"))?;
        let limit = if flag(args, "--depth").is_some() {
            MoveLimit::Depth(number("--depth", 4)?.clamp(1, 100) as u32)
        } else if flag(args, "--nodes").is_some() {
            MoveLimit::Nodes(number("--nodes", 10_000)?.max(1))
        } else {
            MoveLimit::Time(std::time::Duration::from_millis(
                number("--movetime", 50)?.max(1),
            ))
        };
        let cfg = MatchConfig {
            games: number("--games", 20)? as usize,
            limit,
            opening_plies: number("--plies", 4)? as usize,
            seed: number("--seed", 1)?,
            concurrency: number("--concurrency", 1)?.clamp(1, 64) as usize,
            max_plies: 400,
        };
        Ok((variant, a, b, cfg))
    })();
    let (variant, a, b, cfg) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut out = io::stdout();
    match run_match(&variant, &a, &b, &cfg, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
