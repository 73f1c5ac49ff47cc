//! Self-play matches between two engine configurations ([`SearchOptions`]), for measuring what a
//! feature is worth.
//!
//! Games start from varied openings (a few seeded random legal plies), and each opening is
//! played twice with colours swapped so an unbalanced opening cancels out. Games end by the
//! rules ([`Position::status`]), by adjudication when both sides agree the score is decisive
//! for several moves, or as a draw at a ply cap. The result is W/D/L from A's point of view
//! with an Elo estimate and its 95% confidence interval.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use variant_engine::{
    Color, GameStatus, Limits, Position, Score, SearchOptions, Searcher, SearcherConfig, Variant,
    random_playout,
};

/// Per-move limit for both sides.
#[derive(Clone, Copy, Debug)]
pub enum MoveLimit {
    /// Fixed time per move.
    Time(Duration),
    /// Fixed depth.
    Depth(u32),
    /// Fixed nodes (deterministic and independent of machine load).
    Nodes(u64),
}

/// Match settings.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Games (rounded up to an even number: each opening is played with both colours).
    pub games: usize,
    /// Per-move limit.
    pub limit: MoveLimit,
    /// Random plies from the start position to make an opening.
    pub opening_plies: usize,
    /// Seed for openings and skill choices.
    pub seed: u64,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Draw after this many plies.
    pub max_plies: usize,
}

/// A match outcome, from A's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchResult {
    /// A's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// A's losses.
    pub losses: u32,
}

impl MatchResult {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Elo difference A - B and the half-width of its 95% confidence interval (from the
    /// per-game score variance; infinite when one side scored everything).
    pub fn elo(&self) -> (f64, f64) {
        let n = f64::from(self.games().max(1));
        let p = (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / n;
        let var = (f64::from(self.wins) * (1.0 - p).powi(2)
            + f64::from(self.draws) * (0.5 - p).powi(2)
            + f64::from(self.losses) * p.powi(2))
            / n;
        let se = (var / n).sqrt();
        let elo = |p: f64| {
            let p = p.clamp(1e-6, 1.0 - 1e-6);
            -400.0 * (1.0 / p - 1.0).log10()
        };
        let lo = elo(p - 1.96 * se);
        let hi = elo(p + 1.96 * se);
        (elo(p), (hi - lo) / 2.0)
    }
}

/// How one game ended, from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
}

/// Plies both engines must agree on a decisive score before adjudication.
const ADJUDICATE_PLIES: usize = 8;
/// Centipawns counted as decisive for adjudication.
const ADJUDICATE_CP: i32 = 1500;

fn play_game(
    opening: &Position,
    white: &SearchOptions,
    black: &SearchOptions,
    cfg: &MatchConfig,
    seed: u64,
) -> Outcome {
    let searchers = [
        Searcher::new(SearcherConfig { hash_mb: 16 }),
        Searcher::new(SearcherConfig { hash_mb: 16 }),
    ];
    let stop = AtomicBool::new(false);
    let mut pos = opening.clone();
    let mut decisive_streak = 0usize;
    let mut last_sign = 0;
    for ply in 0..cfg.max_plies {
        if let GameStatus::Finished { winner, .. } = pos.status() {
            return match winner {
                Some(Color::White) => Outcome::WhiteWins,
                Some(Color::Black) => Outcome::BlackWins,
                None => Outcome::Draw,
            };
        }
        let side = pos.side_to_move();
        let conf = if side == Color::White { white } else { black };
        let options = SearchOptions {
            seed: seed.wrapping_add(ply as u64),
            ..*conf
        };
        let mut limits = Limits::default();
        match cfg.limit {
            MoveLimit::Time(t) => limits.movetime = Some(t),
            MoveLimit::Depth(d) => limits.depth = Some(d),
            MoveLimit::Nodes(n) => limits.nodes = Some(n),
        }
        let r = searchers[side.index()].search(&pos, &limits, &options, &stop, &mut |_| {});
        let Some(m) = r.best_move else {
            return Outcome::Draw;
        };
        // Adjudicate when both sides have agreed for a while that one side is winning.
        let white_view = match r.score {
            Score::Mate(n) => n.signum() * 100_000,
            Score::Centipawns(c) => c,
        } * if side == Color::White { 1 } else { -1 };
        let sign = if white_view >= ADJUDICATE_CP {
            1
        } else if white_view <= -ADJUDICATE_CP {
            -1
        } else {
            0
        };
        if sign != 0 && sign == last_sign {
            decisive_streak += 1;
        } else {
            decisive_streak = usize::from(sign != 0);
        }
        last_sign = sign;
        if decisive_streak >= ADJUDICATE_PLIES
            && white.skill_level.is_none()
            && black.skill_level.is_none()
        {
            return if sign > 0 {
                Outcome::WhiteWins
            } else {
                Outcome::BlackWins
            };
        }
        pos.play(m);
    }
    Outcome::Draw
}

/// Plays the match, writing one line per finished game pair and a summary to `out`.
///
/// # Errors
/// Only when writing fails.
pub fn run_match(
    variant: &Arc<Variant>,
    a: &SearchOptions,
    b: &SearchOptions,
    cfg: &MatchConfig,
    out: &mut (impl Write + Send),
) -> io::Result<MatchResult> {
    let pairs = cfg.games.div_ceil(2);
    let next = AtomicUsize::new(0);
    let result = Mutex::new(MatchResult::default());
    let out = Mutex::new(out);
    let write_err: Mutex<Option<io::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..cfg.concurrency.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pairs {
                        break;
                    }
                    let seed = cfg.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
                    let opening = opening(variant, cfg.opening_plies, seed);
                    // A plays White in the first game of the pair and Black in the second.
                    let g1 = play_game(&opening, a, b, cfg, seed);
                    let g2 = play_game(&opening, b, a, cfg, seed ^ 0x55);
                    let mut r = result.lock().unwrap_or_else(PoisonError::into_inner);
                    for (o, a_white) in [(g1, true), (g2, false)] {
                        match (o, a_white) {
                            (Outcome::Draw, _) => r.draws += 1,
                            (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => {
                                r.wins += 1;
                            }
                            _ => r.losses += 1,
                        }
                    }
                    let line = format!(
                        "pair {:>3}: {:?} / {:?}  running W {} D {} L {}",
                        i + 1,
                        g1,
                        g2,
                        r.wins,
                        r.draws,
                        r.losses
                    );
                    drop(r);
                    let mut o = out.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Err(e) = writeln!(o, "{line}").and_then(|()| o.flush()) {
                        *write_err.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                    }
                }
            });
        }
    });
    if let Some(e) = write_err
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(e);
    }
    let r = result.into_inner().unwrap_or_else(PoisonError::into_inner);
    let (elo, err) = r.elo();
    let o = out.into_inner().unwrap_or_else(PoisonError::into_inner);
    writeln!(
        o,
        "games {} W {} D {} L {} score {:.1}% elo {:+.0} +/- {:.0} (95%)",
        r.games(),
        r.wins,
        r.draws,
        r.losses,
        100.0 * (f64::from(r.wins) + 0.5 * f64::from(r.draws)) / f64::from(r.games().max(1)),
        elo,
        err
    )?;
    Ok(r)
}

/// A seeded opening: random legal plies from the start, retried until the game is still on.
fn opening(variant: &Arc<Variant>, plies: usize, seed: u64) -> Position {
    for attempt in 0..16 {
        let pos = random_playout(
            Position::new(variant.clone()),
            plies,
            seed.wrapping_add(attempt * 7919),
        );
        if pos.status() == GameStatus::Ongoing {
            return pos;
        }
    }
    Position::new(variant.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_is_symmetric_and_zero_for_even_scores() {
        let even = MatchResult {
            wins: 10,
            draws: 5,
            losses: 10,
        };
        assert!(even.elo().0.abs() < 1e-9);
        let plus = MatchResult {
            wins: 30,
            draws: 10,
            losses: 10,
        };
        let minus = MatchResult {
            wins: 10,
            draws: 10,
            losses: 30,
        };
        assert!((plus.elo().0 + minus.elo().0).abs() < 1e-9);
        assert!(plus.elo().0 > 100.0 && plus.elo().1 > 0.0);
    }

    #[test]
    fn a_tiny_match_completes() {
        let v = variant_engine::Registry::builtin().get("chess").unwrap();
        let cfg = MatchConfig {
            games: 2,
            limit: MoveLimit::Nodes(200),
            opening_plies: 4,
            seed: 1,
            concurrency: 1,
            max_plies: 40,
        };
        let mut out = Vec::new();
        let r = run_match(
            &v,
            &SearchOptions::default(),
            &SearchOptions::default(),
            &cfg,
            &mut out,
        )
        .unwrap();
        assert_eq!(r.games(), 2);
        assert!(String::from_utf8(out).unwrap().contains("elo"));
    }
}
