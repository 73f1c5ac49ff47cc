//! `variant-engine`: the command-line front ends to the engine library.
//!
//! With no arguments it speaks UCI on stdin/stdout ([`uci`]). Subcommands: `perft` (move-path
//! counts), `bench` (the search signature, [`bench`](mod@bench)), `match` (a refereed match
//! between two UCI engines, this one included, [`matches`]), `tune-data` (labelled positions
//! for the tuner, [`tunedata`]), `datagen` (scored positions for training a network,
//! [`datagen`](mod@datagen)), `rescore` (relabels such positions with a deeper search,
//! [`rescore`](mod@rescore)) and `tune` (fits a variant's evaluation weights to such
//! positions and writes them as a parameter file). The library itself never prints;
//! everything that talks to a terminal or a protocol lives in this package.

mod bench;
mod book;
mod datagen;
mod gamefile;
mod matches;
mod rescore;
mod tunedata;
mod uci;

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use variant_engine::{
    DataError, DataReader, EvalParams, Network, Record, Registry, TuneConfig, TuneProgress,
    TuningSet, Variant,
};

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
        /// Compare the speed of this network with the hand-written evaluation on its
        /// variant's bench positions instead.
        #[arg(long)]
        eval_file: Option<std::path::PathBuf>,
    },
    /// Plays a match between two UCI engines (`cmd=self` is this program), refereed by our
    /// rules; see docs/MATCHES.md.
    Match(Box<MatchArgs>),
    /// Writes quiet self-play positions labelled with the game result, for `tune`
    /// (resumable: run it again with the same arguments to continue).
    TuneData(TuneDataArgs),
    /// Writes scored quiet self-play positions with their game results in the binary format
    /// the network trainer reads (resumable: run it again with the same arguments).
    Datagen(DatagenArgs),
    /// Relabels the positions of a `datagen` file with a deeper search, dropping those that
    /// are no longer quiet (resumable: run it again with the same arguments).
    Rescore(RescoreArgs),
    /// Fits a variant's evaluation weights to labelled positions (Texel's method) and writes
    /// them as a parameter file.
    Tune(TuneArgs),
    /// Writes a book of balanced openings for `match --openings`: seeded random openings that
    /// a fixed-node search scores near level.
    Book(BookArgs),
}

/// Arguments of `book`.
#[derive(Debug, Args)]
struct BookArgs {
    /// Variant name.
    #[arg(long)]
    variant: String,
    /// Openings to write (a match of N games plays N / 2 of them, each with both colours).
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    count: u64,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 4)]
    plies: usize,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Nodes of the search that scores each opening.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Largest score, in centipawns for either side, an opening may have.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(i32).range(0..))]
    max_score: i32,
    /// Random openings searched per opening wanted before giving up.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    tries: u64,
    /// Openings searched at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Score with this network (for the variant); default: the variant's shipped network if it
    /// has one, else the hand-written evaluation.
    #[arg(long)]
    eval_file: Option<std::path::PathBuf>,
    /// Output file (FEN lines with EPD comments).
    #[arg(long)]
    out: std::path::PathBuf,
}

/// Arguments of `tune`.
#[derive(Debug, Args)]
struct TuneArgs {
    /// Variant name.
    #[arg(long)]
    variant: String,
    /// Labelled positions: `FEN;result` lines as `tune-data` writes them, or a `datagen`
    /// file (repeatable: the files' positions are tuned on together).
    #[arg(long, required = true)]
    data: Vec<std::path::PathBuf>,
    /// Starting weights (a parameter file); the variant's shipped ones when absent.
    #[arg(long)]
    start: Option<std::path::PathBuf>,
    /// Start from the untuned geometric defaults instead of the shipped weights.
    #[arg(long, conflicts_with = "start")]
    defaults: bool,
    /// Adam steps over the whole training set.
    #[arg(long, default_value_t = 400)]
    iterations: usize,
    /// Adam step size, in centipawns.
    #[arg(long, default_value_t = 1.0)]
    learning_rate: f64,
    /// The sigmoid's scale; fitted to the data with the starting weights when absent.
    #[arg(long)]
    k: Option<f64>,
    /// Every n-th game is held out for validation (0 = none).
    #[arg(long, default_value_t = 10)]
    validation_every: u64,
    /// Tune only parameters whose names start with this (repeatable; default: all).
    #[arg(long)]
    only: Vec<String>,
    /// Weight of the recorded search score in the target, 0..=1 (`datagen` files only; the
    /// game's result has the rest).
    #[arg(long, default_value_t = 0.0)]
    lambda: f64,
    /// L2 penalty on the distance from the starting weights (per weight, in units of 100
    /// centipawns squared).
    #[arg(long, default_value_t = 0.0)]
    l2: f64,
    /// Where the tuned parameter file goes.
    #[arg(long)]
    out: std::path::PathBuf,
}

/// Arguments of `datagen`.
#[derive(Debug, Args)]
struct DatagenArgs {
    /// Variant name.
    #[arg(long)]
    variant: String,
    /// Games the output file should hold.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Nodes per move.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 8)]
    plies: usize,
    /// Output file (binary; see engine/src/nnue/data.rs).
    #[arg(long)]
    out: std::path::PathBuf,
    /// Play with this network (for the variant; e.g. `engine/nets/opulent-r4.nnue`), so the
    /// data of a next generation comes from the last one. Default: the hand-written
    /// evaluation alone. A resumed file should keep the network it was started with.
    #[arg(long)]
    eval_file: Option<std::path::PathBuf>,
}

/// Arguments of `rescore`.
#[derive(Debug, Args)]
struct RescoreArgs {
    /// The `datagen` file to relabel (its variant is the file's).
    #[arg(long = "in")]
    input: std::path::PathBuf,
    /// Output file, in the same format.
    #[arg(long)]
    out: std::path::PathBuf,
    /// Nodes per position.
    #[arg(long, default_value_t = 20000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Rescore only the first this many games of the input.
    #[arg(long)]
    games: Option<usize>,
    /// Positions searched at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Search with this network (for the file's variant); default: the hand-written
    /// evaluation alone.
    #[arg(long)]
    eval_file: Option<std::path::PathBuf>,
}

/// Arguments of `tune-data`.
#[derive(Debug, Args)]
struct TuneDataArgs {
    /// Variant name.
    #[arg(long)]
    variant: String,
    /// Games the output file should hold.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Nodes per move.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 8)]
    plies: usize,
    /// Output file (`FEN;result` lines; see `tunedata.rs`).
    #[arg(long)]
    out: std::path::PathBuf,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        None => uci_loop(),
        Some(Command::Perft {
            variant,
            depth,
            fen,
        }) => perft_main(&variant, depth, fen.as_deref()),
        Some(Command::Bench { depth, eval_file }) => match eval_file {
            Some(path) => bench_net_main(depth, &path),
            None => bench_main(depth),
        },
        Some(Command::Match(args)) => match_main(&args),
        Some(Command::TuneData(args)) => tune_data_main(&args),
        Some(Command::Tune(args)) => tune_main(&args),
        Some(Command::Datagen(args)) => datagen_main(&args),
        Some(Command::Rescore(args)) => rescore_main(&args),
        Some(Command::Book(args)) => book_main(&args),
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

fn bench_net_main(depth: u32, path: &std::path::Path) -> ExitCode {
    let registry = Registry::builtin();
    let loaded = (|| -> Result<_, String> {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        Network::load(&bytes, &registry).map_err(|e| e.to_string())
    })();
    let net: &'static Network = match loaded {
        Ok(n) => Box::leak(Box::new(n)),
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(USAGE_ERROR);
        }
    };
    match bench::run_with_net(&registry, depth, net, &mut io::stdout().lock()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The labelled positions of `path` as `tune` reads them: a `tune-data` text file, or a
/// `datagen` binary file traced directly (no text in between), so the network's training data
/// can also fit the hand-written weights. Positions take their game number as in the text
/// format (one more than the last game ended before them). The binary format keeps no
/// castling rights or move counters, which no weight depends on.
fn tuning_set(path: &std::path::Path, variant: &Arc<Variant>) -> Result<TuningSet, String> {
    let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let bytes = std::fs::read(path).map_err(|e| failed(&e))?;
    let Ok(mut reader) = DataReader::new(&bytes[..]) else {
        let text =
            String::from_utf8(bytes).map_err(|_| failed(&"neither text nor a datagen file"))?;
        return TuningSet::parse(variant, &text).map_err(|e| failed(&e));
    };
    if reader.variant_name() != variant.name() {
        return Err(failed(&format!(
            "holds {} positions, not {}",
            reader.variant_name(),
            variant.name()
        )));
    }
    let mut game = 1;
    let mut error = None;
    let positions = std::iter::from_fn(|| {
        loop {
            match reader.next_record() {
                Ok(Some(Record::Position(p))) => {
                    let Some(&result) = [0.0, 0.5, 1.0].get(usize::from(p.result)) else {
                        error = Some(format!(
                            "result code {} at byte {}",
                            p.result,
                            reader.offset()
                        ));
                        return None;
                    };
                    return Some((
                        p.to_position(variant),
                        result,
                        game,
                        Some(i32::from(p.score)),
                    ));
                }
                Ok(Some(Record::GameEnd(g))) => game = u64::from(g) + 1,
                Ok(None) => return None,
                // A file still being written ends inside a record: use what is whole.
                Err(DataError::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof => return None,
                Err(e) => {
                    error = Some(e.to_string());
                    return None;
                }
            }
        }
    });
    let set = TuningSet::from_scored_positions(variant, positions);
    match error {
        Some(e) => Err(failed(&e)),
        None => Ok(set),
    }
}

fn tune_main(args: &TuneArgs) -> ExitCode {
    let prepared = (|| -> Result<_, String> {
        let variant = Registry::builtin()
            .get(&args.variant)
            .map_err(|e| e.to_string())?;
        let start = match (&args.start, args.defaults) {
            (Some(path), _) => EvalParams::load(&variant, path).map_err(|e| e.to_string())?,
            (None, true) => EvalParams::defaults(&variant),
            (None, false) => EvalParams::builtin(&variant).map_err(|e| e.to_string())?,
        };
        let mut set: Option<TuningSet> = None;
        for path in &args.data {
            let more = tuning_set(path, &variant)?;
            match set.as_mut() {
                Some(set) => set.append(more).map_err(|e| e.to_string())?,
                None => set = Some(more),
            }
        }
        let set = set.ok_or("no --data file")?;
        Ok((start, set))
    })();
    let (start, set) = match prepared {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let names: Vec<String> = args
        .data
        .iter()
        .map(|p| {
            p.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        })
        .collect();
    let names = names.join(", ");
    eprintln!("{} positions from {names}", set.len());
    let cfg = TuneConfig {
        iterations: args.iterations,
        learning_rate: args.learning_rate,
        k: args.k,
        validation_every: args.validation_every,
        only: args.only.clone(),
        lambda: args.lambda,
        l2: args.l2,
    };
    let mut first = None;
    let tuned = set.tune(&start, &cfg, &mut |p: &TuneProgress| {
        first.get_or_insert_with(|| p.clone());
        eprintln!(
            "iteration {:4}  training {:.6}  validation {:.6}  K {:.6}{}",
            p.iteration,
            p.training_loss,
            p.validation_loss,
            p.k,
            if p.best { "  (best)" } else { "" }
        );
    });
    let (tuned, last) = match tuned {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let before = first.unwrap_or_else(|| last.clone());
    // The header records how the file was made, so a run can be repeated.
    let header = format!(
        "tuned by `variant-engine tune` on {names} ({} positions), {} iterations (kept: {}), step {}, \
         lambda {}, l2 {}, K {:.6}\n\
         loss: training {:.6} -> {:.6}, validation {:.6} -> {:.6}",
        set.len(),
        args.iterations,
        last.iteration,
        args.learning_rate,
        args.lambda,
        args.l2,
        last.k,
        before.training_loss,
        last.training_loss,
        before.validation_loss,
        last.validation_loss,
    );
    if let Err(e) = std::fs::write(&args.out, tuned.to_text_with_header(&header)) {
        eprintln!("error: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    eprintln!("wrote {}", args.out.display());
    ExitCode::SUCCESS
}

fn tune_data_main(args: &TuneDataArgs) -> ExitCode {
    let cfg = tunedata::TuneDataConfig {
        games: args.games,
        nodes: args.nodes,
        seed: args.seed,
        opening_plies: args.plies,
        net: None,
    };
    write_games(&args.variant, &args.out, |variant| {
        tunedata::run(variant, &cfg, &args.out, &mut io::stderr())
    })
}

fn datagen_main(args: &DatagenArgs) -> ExitCode {
    let net = match args
        .eval_file
        .as_deref()
        .map(|path| datagen_net(path, &args.variant))
    {
        None => None,
        Some(Ok(net)) => Some(net),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let cfg = tunedata::TuneDataConfig {
        games: args.games,
        nodes: args.nodes,
        seed: args.seed,
        opening_plies: args.plies,
        net,
    };
    write_games(&args.variant, &args.out, |variant| {
        datagen::run(
            variant,
            &cfg,
            args.threads as usize,
            &args.out,
            &mut io::stderr(),
        )
    })
}

fn book_main(args: &BookArgs) -> ExitCode {
    let variant = match Registry::builtin().get(&args.variant) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let net = match args.eval_file.as_deref() {
        Some(path) => match datagen_net(path, &args.variant) {
            Ok(net) => Some(net),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(USAGE_ERROR);
            }
        },
        None => match Network::shipped(&variant) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("error: {}'s shipped network: {e}", args.variant);
                return ExitCode::FAILURE;
            }
        },
    };
    let cfg = book::BookConfig {
        count: usize::try_from(args.count).unwrap_or(usize::MAX),
        plies: args.plies,
        seed: args.seed,
        nodes: args.nodes,
        max_score: args.max_score,
        tries_per_opening: usize::try_from(args.tries).unwrap_or(usize::MAX),
        net,
    };
    let book = match book::make(&variant, &cfg, args.threads as usize, &mut io::stderr()) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let written = std::fs::File::create(&args.out).and_then(|f| {
        let mut w = io::BufWriter::new(f);
        book::write(&mut w, &variant, &cfg, &book)?;
        w.flush()
    });
    match written {
        Ok(()) => {
            eprintln!("wrote {} openings to {}", book.len(), args.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.out.display());
            ExitCode::FAILURE
        }
    }
}

fn rescore_main(args: &RescoreArgs) -> ExitCode {
    let net = match args.eval_file.as_deref().map(load_net) {
        None => None,
        Some(Ok(net)) => Some(net),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let cfg = rescore::RescoreConfig {
        nodes: args.nodes,
        games: args.games,
        threads: args.threads as usize,
        net,
    };
    match rescore::run(&args.input, &args.out, &cfg, &mut io::stderr()) {
        Ok(s) => {
            eprintln!(
                "searched {} positions of {} games, wrote {} to {} (mean score change {:.1} cp)",
                s.searched,
                s.games,
                s.kept,
                args.out.display(),
                s.mean_change
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A network file, kept for the process's life (searches borrow it as `'static`).
fn load_net(path: &std::path::Path) -> Result<&'static Network, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let net = Network::load(&bytes, &Registry::builtin())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Box::leak(Box::new(net)))
}

/// The network of `datagen --eval-file` or `book --eval-file`, which must be for `variant`
/// (kept for the process's life: searches borrow it as `'static`).
fn datagen_net(path: &std::path::Path, variant: &str) -> Result<&'static Network, String> {
    let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let net = load_net(path)?;
    if !net.variant_name().eq_ignore_ascii_case(variant) {
        return Err(failed(&format!(
            "is a network for {}, not {variant}",
            net.variant_name()
        )));
    }
    Ok(net)
}

/// The shared frame of `tune-data` and `datagen`: looks the variant up, runs `play` (which
/// writes the positions to `out`) and reports how many it wrote.
fn write_games<E: std::fmt::Display>(
    variant: &str,
    out: &std::path::Path,
    play: impl FnOnce(&std::sync::Arc<variant_engine::Variant>) -> Result<u64, E>,
) -> ExitCode {
    let variant = match Registry::builtin().get(variant) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    match play(&variant) {
        Ok(n) => {
            eprintln!("wrote {n} positions to {}", out.display());
            ExitCode::SUCCESS
        }
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

    #[test]
    fn tune_reads_datagen_files_like_the_same_text() {
        use variant_engine::{EvalParams, PackedPosition, Position, data_header, write_game};
        let registry = Registry::builtin();
        let v = registry.get("soho").unwrap();
        let start = Position::new(v.clone());
        let mut after = start.clone();
        after.play(start.parse_uci("e3e5").unwrap());
        let dir = std::env::temp_dir().join(format!("tune-set-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.bin");
        let mut bytes = data_header("soho");
        let win = PackedPosition::from_position(&start, 30, 2);
        let loss = PackedPosition::from_position(&after, -30, 0);
        write_game(&mut bytes, 7, &[win, loss]).unwrap();
        // A record cut short (a file still being written) is left out.
        bytes.extend_from_slice(&[1, 0, 2]);
        std::fs::write(&path, &bytes).unwrap();
        let from_binary = tuning_set(&path, &v).unwrap();
        assert_eq!(from_binary.len(), 2);
        // The same positions as text give the same loss (under the shipped weights).
        let epd = dir.join("d.epd");
        std::fs::write(
            &epd,
            format!("{};1\n{};0\n# game 7\n", start.fen(), after.fen()),
        )
        .unwrap();
        let from_text = tuning_set(&epd, &v).unwrap();
        let params = EvalParams::builtin(&v).unwrap();
        let (a, b) = (
            from_binary.loss(&params, 0.01).unwrap(),
            from_text.loss(&params, 0.01).unwrap(),
        );
        assert!(a > 0.0 && (a - b).abs() < 1e-12, "{a} against {b}");
        // Another variant's file is refused.
        let opulent = registry.get("opulent").unwrap();
        let err = tuning_set(&path, &opulent).unwrap_err();
        assert!(err.contains("holds soho positions, not opulent"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

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
        let Some(Command::Bench { depth, .. }) = parse(&["bench"]).unwrap().command else {
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
        let Some(Command::Tune(t)) = parse(&[
            "tune",
            "--variant",
            "soho",
            "--data",
            "d.epd",
            "--out",
            "o.txt",
            "--only",
            "value.",
            "--only",
            "safety.",
        ])
        .unwrap()
        .command
        else {
            panic!("not tune");
        };
        assert_eq!((t.iterations, t.validation_every, t.k), (400, 10, None));
        assert_eq!(t.only, ["value.", "safety."]);
        assert!(
            parse(&[
                "tune",
                "--variant",
                "soho",
                "--data",
                "d",
                "--out",
                "o",
                "--defaults",
                "--start",
                "s"
            ])
            .is_err()
        );
        assert!(parse(&["frobnicate"]).is_err());
    }
}
