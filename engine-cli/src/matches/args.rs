//! The command line of `variant-engine match`: clap arguments, the engine specs
//! (`name=X cmd=PATH ...`), and their translation into a [`MatchConfig`].
//!
//! Flags that parse on their own (`--tc`, `--sprt`, `--resign`, `--draw`) are clap value
//! parsers, so a bad one is a usage error naming the flag; the engine specs and the variant
//! are checked when the config is built.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use variant_engine::{Registry, UnknownVariant};

use super::game::{Adjudication, GameSettings, TimeControl};
use super::stats::Sprt;
use super::uci::UciCommand;
use super::{Entrant, MatchConfig, MatchError, Openings, read_openings};

/// `cmd=self`: this very program, speaking UCI.
const SELF_COMMAND: &str = "self";
/// `variant=none`: send no `UCI_Variant` (for an engine without the option).
const NO_VARIANT: &str = "none";
/// Per-move time when no limit is given, in milliseconds.
const DEFAULT_MOVETIME_MS: u64 = 100;

/// Arguments of `variant-engine match`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("limit").multiple(false))]
pub struct MatchArgs {
    /// Variant (our name; each engine is sent it as `UCI_Variant` unless its spec says
    /// otherwise).
    #[arg(long, default_value = "chess")]
    pub variant: String,
    /// The first engine; results are from its view. Items: `name=N cmd=PATH|self [arg=A]...
    /// [init=LINE]... [option.NAME=VALUE]... [variant=NAME|none]
    /// [movetime=MS|nodes=N|depth=D|tc=CLOCK]`.
    #[arg(long, num_args = 1.., required = true, value_name = "ITEM")]
    pub a: Vec<String>,
    /// The second engine, same items.
    #[arg(long, num_args = 1.., required = true, value_name = "ITEM")]
    pub b: Vec<String>,
    /// Games (rounded up to whole pairs: each opening is played with both colours).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Fixed time per move, in milliseconds (the default, 100 ms).
    #[arg(long, group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
    /// Fixed nodes per move.
    #[arg(long, group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, group = "limit", value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
    /// Game clock `[MOVES/]BASE[+INC]` in seconds, e.g. `10+0.1` or `40/60`: sent as
    /// wtime/btime/winc/binc (and movestogo).
    #[arg(long, group = "limit", value_parser = parse_clock, value_name = "CLOCK")]
    pub tc: Option<TimeControl>,
    /// Random plies from the variant's start that make an opening (without --openings).
    #[arg(long, default_value_t = 4)]
    pub plies: u64,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// FEN/EPD file of openings, one per line, used in order (instead of random plies).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Games played at once (each with its own two engine processes).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub concurrency: u64,
    /// Stop early once an SPRT of `ELO0,ELO1` decides.
    #[arg(long, value_parser = parse_pair, value_name = "ELO0,ELO1")]
    pub sprt: Option<(f64, f64)>,
    /// SPRT false-positive rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05, value_parser = parse_rate)]
    pub alpha: f64,
    /// SPRT false-negative rate (accepting H0 when H1 holds).
    #[arg(long, default_value_t = 0.05, value_parser = parse_rate)]
    pub beta: f64,
    /// Resign adjudication `MOVES,CP`: both engines' scores agree for MOVES moves each that
    /// one side is CP centipawns ahead.
    #[arg(long, value_parser = parse_resign, value_name = "MOVES,CP")]
    pub resign: Option<(u32, i32)>,
    /// Draw adjudication `PLY,MOVES,CP`: from PLY on, both engines' scores stay within CP of
    /// zero for MOVES moves each.
    #[arg(long, value_parser = parse_draw, value_name = "PLY,MOVES,CP")]
    pub draw: Option<(usize, u32, i32)>,
    /// Draw at this many plies (opening plies included).
    #[arg(long, default_value_t = 600)]
    pub max_plies: usize,
    /// Overrun past a move's allowance (movetime or clock) before it loses on time, in
    /// milliseconds.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub time_margin: u64,
    /// Seconds a fixed-node or fixed-depth move may take before the engine counts as hung
    /// (and loses on time).
    #[arg(long, default_value_t = 60.0, value_parser = parse_seconds, value_name = "SECONDS")]
    pub hang_timeout: f64,
    /// Append every game's PGN to this file.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Results file, one tab-separated line per game; a rerun with the same arguments skips
    /// the games it lists (resume).
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Event name (PGN `Event` tag and the summary's title).
    #[arg(long, default_value = "match")]
    pub event: String,
}

/// Why the command line does not describe a match.
#[derive(Debug, thiserror::Error)]
pub enum ArgsError {
    /// The variant is not built in.
    #[error(transparent)]
    Variant(#[from] UnknownVariant),
    /// An engine spec item is not `key=value`.
    #[error("--{engine}: item {item:?} is not key=value")]
    NotKeyValue {
        /// `a` or `b`.
        engine: char,
        /// The item.
        item: String,
    },
    /// An engine spec item has an unknown key.
    #[error(
        "--{engine}: unknown item {key:?} (expected name, cmd, arg, init, option.NAME, variant, movetime, nodes, depth or tc)"
    )]
    UnknownItem {
        /// `a` or `b`.
        engine: char,
        /// The key.
        key: String,
    },
    /// An engine spec item has a bad value.
    #[error("--{engine}: {key}={value:?}: {reason}")]
    BadValue {
        /// `a` or `b`.
        engine: char,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An engine spec has no `cmd`.
    #[error("--{0}: an engine needs cmd=PATH (or cmd=self)")]
    NoCommand(char),
    /// `cmd=self`, but the path of this program is unknown.
    #[error("cmd=self: cannot find this program: {0}")]
    CurrentExe(std::io::Error),
    /// The openings file is unusable.
    #[error(transparent)]
    Openings(#[from] MatchError),
}

/// Parses a clock `[MOVES/]BASE[+INC]` in seconds.
///
/// # Errors
/// A message for clap when the text is not a clock.
pub fn parse_clock(text: &str) -> Result<TimeControl, String> {
    let bad = || format!("invalid clock {text:?} (expected [MOVES/]BASE[+INC] in seconds)");
    let (moves, rest) = match text.split_once('/') {
        Some((m, r)) => (Some(m.parse::<u32>().map_err(|_| bad())?), r),
        None => (None, text),
    };
    let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
    let base = parse_seconds(base).map_err(|_| bad())?;
    let inc = parse_seconds(inc).map_err(|_| bad())?;
    if base <= 0.0 {
        return Err(bad());
    }
    Ok(TimeControl::Clock {
        base: Duration::from_secs_f64(base),
        increment: Duration::from_secs_f64(inc),
        moves_per_period: moves.filter(|&m| m > 0),
    })
}

/// Longest accepted duration in seconds (about four months): keeps `Duration` arithmetic far
/// from overflow.
const MAX_SECONDS: f64 = 1e7;

/// Parses a non-negative number of seconds.
///
/// # Errors
/// A message for clap when the text is not one.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if (0.0..MAX_SECONDS).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected seconds in 0..{MAX_SECONDS}, got {text:?}"
        )),
    }
}

/// Parses an SPRT error rate, strictly between 0 and 0.5.
fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 0.5 => Ok(v),
        _ => Err(format!("expected a rate in (0, 0.5), got {text:?}")),
    }
}

/// Splits `text` into exactly `N` comma-separated numbers.
fn numbers<const N: usize>(text: &str) -> Result<[f64; N], String> {
    let bad = || format!("expected {N} comma-separated numbers, got {text:?}");
    let v: Vec<f64> = text
        .split(',')
        .map(|s| s.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    let v: [f64; N] = v.try_into().map_err(|_| bad())?;
    if v.iter().all(|x| x.is_finite()) {
        Ok(v)
    } else {
        Err(bad())
    }
}

/// A whole number that fits the target type, from one of the numbers of a flag.
fn whole<T: TryFrom<i64>>(x: f64, text: &str) -> Result<T, String> {
    let bad = || format!("expected whole numbers in range, got {text:?}");
    if x.fract() != 0.0 || x.abs() > i64::MAX as f64 {
        return Err(bad());
    }
    T::try_from(x as i64).map_err(|_| bad())
}

/// Parses `--sprt ELO0,ELO1` (ELO0 below ELO1).
fn parse_pair(text: &str) -> Result<(f64, f64), String> {
    let [e0, e1] = numbers::<2>(text)?;
    if e0 < e1 {
        Ok((e0, e1))
    } else {
        Err(format!("ELO0 must be below ELO1, got {text:?}"))
    }
}

/// Parses `--resign MOVES,CP`.
fn parse_resign(text: &str) -> Result<(u32, i32), String> {
    let [m, cp] = numbers::<2>(text)?;
    Ok((whole(m, text)?, whole(cp, text)?))
}

/// Parses `--draw PLY,MOVES,CP`.
fn parse_draw(text: &str) -> Result<(usize, u32, i32), String> {
    let [p, m, cp] = numbers::<3>(text)?;
    Ok((whole(p, text)?, whole(m, text)?, whole(cp, text)?))
}

/// Parses one engine spec (`engine` is `a` or `b`, for messages).
///
/// # Errors
/// [`ArgsError`] naming the bad item.
pub fn parse_entrant(engine: char, words: &[String]) -> Result<Entrant, ArgsError> {
    let mut name = None;
    let mut cmd_text = None;
    let mut command = UciCommand::default();
    let mut time_control = None;
    for w in words {
        let (key, value) = w.split_once('=').ok_or_else(|| ArgsError::NotKeyValue {
            engine,
            item: w.clone(),
        })?;
        let bad = |reason: String| ArgsError::BadValue {
            engine,
            key: key.to_owned(),
            value: value.to_owned(),
            reason,
        };
        let number = || {
            value
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| bad("expected a positive whole number".to_owned()))
        };
        match key {
            "name" => name = Some(value.to_owned()),
            "cmd" => {
                cmd_text = Some(value.to_owned());
                command.program = if value == SELF_COMMAND {
                    std::env::current_exe().map_err(ArgsError::CurrentExe)?
                } else {
                    PathBuf::from(value)
                };
            }
            "arg" => command.args.push(value.to_owned()),
            "init" => command.init.push(value.to_owned()),
            "variant" => command.variant = Some(value.to_owned()),
            "movetime" => {
                time_control = Some(TimeControl::MoveTime(Duration::from_millis(number()?)));
            }
            "nodes" => time_control = Some(TimeControl::Nodes(number()?)),
            "depth" => {
                let d = u32::try_from(number()?).map_err(|_| bad("too deep".to_owned()))?;
                time_control = Some(TimeControl::Depth(d));
            }
            "tc" => time_control = Some(parse_clock(value).map_err(bad)?),
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.is_empty() => command
                    .init
                    .push(format!("setoption name {option} value {value}")),
                _ => {
                    return Err(ArgsError::UnknownItem {
                        engine,
                        key: key.to_owned(),
                    });
                }
            },
        }
    }
    let cmd_text = cmd_text.ok_or(ArgsError::NoCommand(engine))?;
    Ok(Entrant {
        name: name.unwrap_or(cmd_text),
        command,
        time_control,
    })
}

impl MatchArgs {
    /// The match these arguments describe.
    ///
    /// # Errors
    /// [`ArgsError`] for an unknown variant, a bad engine spec or an unusable openings file.
    pub fn to_config(&self, registry: &Registry) -> Result<MatchConfig, ArgsError> {
        let variant = registry.get(&self.variant)?;
        let mut entrants = [parse_entrant('a', &self.a)?, parse_entrant('b', &self.b)?];
        // Every engine is told the variant (`UCI_Variant`) under our name unless its spec
        // named another, or `variant=none` for an engine without the option.
        for e in &mut entrants {
            match e.command.variant.as_deref() {
                None => e.command.variant = Some(variant.name().to_owned()),
                Some(NO_VARIANT) => e.command.variant = None,
                Some(_) => {}
            }
        }
        // Two engines of the same name could not be told apart in the PGN and the summary.
        if entrants[0].name == entrants[1].name {
            for (e, tag) in entrants.iter_mut().zip(["a", "b"]) {
                e.name = format!("{}-{tag}", e.name);
            }
        }
        let time_control = if let Some(t) = self.movetime {
            TimeControl::MoveTime(Duration::from_millis(t))
        } else if let Some(n) = self.nodes {
            TimeControl::Nodes(n)
        } else if let Some(d) = self.depth {
            TimeControl::Depth(d)
        } else if let Some(c) = self.tc {
            c
        } else {
            TimeControl::MoveTime(Duration::from_millis(DEFAULT_MOVETIME_MS))
        };
        let openings = match &self.openings {
            Some(p) => Openings::Positions(read_openings(p)?),
            None => Openings::Random {
                plies: usize::try_from(self.plies).unwrap_or(usize::MAX),
                seed: self.seed,
            },
        };
        Ok(MatchConfig {
            variant,
            entrants,
            games: usize::try_from(self.games).unwrap_or(usize::MAX),
            openings,
            settings: GameSettings {
                time_control,
                overrides: [None, None],
                time_margin: Duration::from_millis(self.time_margin),
                hang_timeout: Duration::from_secs_f64(self.hang_timeout),
                adjudication: Adjudication {
                    resign: self.resign,
                    draw: self.draw,
                    max_plies: self.max_plies,
                },
            },
            concurrency: usize::try_from(self.concurrency).unwrap_or(1),
            sprt: self.sprt.map(|(elo0, elo1)| Sprt {
                elo0,
                elo1,
                alpha: self.alpha,
                beta: self.beta,
            }),
            pgn: self.pgn.clone(),
            results: self.results.clone(),
            event: self.event.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn engine_specs_parse_every_item() {
        let e = parse_entrant(
            'a',
            &words("name=fsf cmd=/opt/fsf arg=-q init=load option.Hash=32 variant=none nodes=500"),
        )
        .unwrap();
        assert_eq!(e.name, "fsf");
        assert_eq!(e.command.program, PathBuf::from("/opt/fsf"));
        assert_eq!(e.command.args, ["-q"]);
        assert_eq!(e.command.init, ["load", "setoption name Hash value 32"]);
        assert_eq!(e.command.variant.as_deref(), Some("none"));
        assert_eq!(e.time_control, Some(TimeControl::Nodes(500)));
        let e = parse_entrant(
            'b',
            &words("cmd=self option.Features=null=off,lmr=off tc=40/6+0.5"),
        )
        .unwrap();
        assert_eq!(e.name, "self");
        assert_eq!(e.command.program, std::env::current_exe().unwrap());
        assert_eq!(
            e.command.init,
            ["setoption name Features value null=off,lmr=off"]
        );
        assert_eq!(
            e.time_control,
            Some(TimeControl::Clock {
                base: Duration::from_secs(6),
                increment: Duration::from_millis(500),
                moves_per_period: Some(40),
            })
        );
    }

    #[test]
    fn bad_engine_specs_name_the_item() {
        let err = |s: &str| parse_entrant('b', &words(s)).unwrap_err().to_string();
        assert!(err("name=x").contains("needs cmd"), "{}", err("name=x"));
        assert!(err("cmd=x nodes=0").contains("nodes=\"0\""));
        assert!(err("cmd=x speed=9").contains("unknown item \"speed\""));
        assert!(err("cmd=x option.=1").contains("unknown item \"option.\""));
        assert!(err("cmd=x junk").contains("\"junk\" is not key=value"));
        assert!(err("cmd=x tc=fast").contains("invalid clock"));
    }

    #[test]
    fn clocks_and_number_lists_parse() {
        assert_eq!(
            parse_clock("10+0.1"),
            Ok(TimeControl::Clock {
                base: Duration::from_secs(10),
                increment: Duration::from_millis(100),
                moves_per_period: None,
            })
        );
        assert!(parse_clock("0+1").is_err());
        assert!(parse_clock("x/10").is_err());
        assert_eq!(parse_pair("0,5"), Ok((0.0, 5.0)));
        assert!(parse_pair("5,0").is_err());
        assert!(parse_pair("0,nan").is_err());
        assert_eq!(parse_resign("3,600"), Ok((3, 600)));
        assert!(parse_resign("3.5,600").is_err());
        assert!(parse_resign("-1,600").is_err());
        assert_eq!(parse_draw("40,8,10"), Ok((40, 8, 10)));
        assert!(parse_draw("40,8").is_err());
        assert!(parse_rate("0.5").is_err() && parse_rate("0.05").is_ok());
    }
}
