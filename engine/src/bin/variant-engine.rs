//! `variant-engine`: a std-only command-line front end to the engine library.
//!
//! With no arguments it speaks UCI on stdin/stdout. Subcommands:
//! `perft --variant <V> --depth <N> [--fen <FEN>]`.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use variant_engine::Registry;
use variant_engine::uci::{Flow, UciSession, perft_command};

const USAGE: &str = "usage: variant-engine [perft --variant <V> --depth <N> [--fen <FEN>]]\n\
                     \x20      variant-engine bench [--depth <N>]\n\
                     With no arguments, speaks UCI on stdin/stdout.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => uci_loop(),
        Some("perft") => perft_main(&args[1..]),
        Some("bench") => bench_main(&args[1..]),
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
    let stdout = io::stdout();
    let mut session = UciSession::new(Registry::builtin(), stdout.lock());
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match session.handle(&line) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) | Err(_) => break,
        }
    }
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
