//! Match statistics: W/D/L with an Elo estimate and its 95% interval, per game (trinomial) and
//! per game pair (pentanomial), the likelihood of superiority, and the sequential probability
//! ratio test that stops a match as soon as it has decided between two Elo hypotheses.
//!
//! The SPRT is the generalised one of fishtest and fastchess (M. Van den Bergh, "A practical
//! introduction to the GSPRT"): for each hypothesis, the distribution of results closest in
//! likelihood to the observed frequencies whose expected score is the hypothesis's (logistic
//! Elo), and `LLR` = the log of the ratio of the two likelihoods of the sample. For Elo
//! differences near the hypotheses it equals the normal approximation `LLR = N (s1 - s0)
//! (2 m - s0 - s1) / (2 v)` (`m`, `v` the mean and variance of the observed scores, `s0`, `s1`
//! the hypotheses' expected scores; a test checks the two agree). Wald's bounds
//! `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)` decide.
//!
//! Game pairs (the same opening with colours swapped) are the unit when the match has them:
//! the pentanomial count (pairs scoring 0, 1/2, 1, 3/2 or 2 points) accounts for the
//! correlation between the two games of a pair, which the per-game (trinomial) variance
//! ignores.

/// One game's result from the first engine's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The first engine won.
    Win,
    /// A draw.
    Draw,
    /// The first engine lost.
    Loss,
}

impl Outcome {
    /// Half-points scored by the first engine (0, 1 or 2).
    pub const fn half_points(self) -> usize {
        match self {
            Self::Win => 2,
            Self::Draw => 1,
            Self::Loss => 0,
        }
    }
}

/// An Elo estimate with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloInterval {
    /// Point estimate.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl std::fmt::Display for EloInterval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:+.1} ± {:.1} (95%: {:+.1} .. {:+.1})",
            self.elo,
            (self.high - self.low) / 2.0,
            self.low,
            self.high
        )
    }
}

/// The parameters of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of the null hypothesis (no gain).
    pub elo0: f64,
    /// Elo of the alternative hypothesis (the gain worth having).
    pub elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// False-negative rate (accepting H0 when H1 holds).
    pub beta: f64,
}

impl Sprt {
    /// The LLR bounds: at or below the first H0 is accepted, at or above the second H1.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision for a log-likelihood ratio, if it has crossed a bound.
    pub fn decision(&self, llr: f64) -> Option<SprtDecision> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(SprtDecision::AcceptH1)
        } else if llr <= lower {
            Some(SprtDecision::AcceptH0)
        } else {
            None
        }
    }
}

/// Which hypothesis an SPRT accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// The gain is at least `elo1` (the change passes).
    AcceptH1,
    /// The gain is at most `elo0` (the change fails).
    AcceptH0,
}

/// Wins, draws and losses of the first engine, plus the pentanomial count of game pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
    /// Completed game pairs by the first engine's half-points in the pair: `pairs[k]` counts
    /// pairs in which it scored `k / 2` points (0 = lost both, 4 = won both).
    pub pairs: [u64; 5],
}

/// Half of the 95% two-sided normal quantile range.
const Z95: f64 = 1.959_964;
/// Pseudo-count given to empty cells of a distribution before its variance is taken, so that
/// a sample with (say) only drawn pairs does not have zero variance (fishtest does the same).
const REGULARISE: f64 = 1e-3;

/// Expected score of a player `elo` points stronger (logistic model).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference that gives the expected score `score` (logistic model), clamped so that a
/// perfect score gives a large finite number instead of infinity.
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    // Adding zero turns the -0 of an even score into 0, so that it prints as `+0`.
    -400.0 * (1.0 / s - 1.0).log10() + 0.0
}

/// Mean and variance of a discrete distribution given as `(value, count)` cells.
fn moments(cells: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = cells.iter().map(|c| c.1).sum();
    if n <= 0.0 {
        return None;
    }
    let mean = cells.iter().map(|(x, c)| x * c).sum::<f64>() / n;
    let var = cells
        .iter()
        .map(|(x, c)| c * (x - mean).powi(2))
        .sum::<f64>()
        / n;
    Some((n, mean, var))
}

impl Tally {
    /// Games counted.
    pub const fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Game pairs counted.
    pub fn pair_count(&self) -> u64 {
        self.pairs.iter().sum()
    }

    /// Counts one game.
    pub fn add_game(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Win => self.wins += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::Loss => self.losses += 1,
        }
    }

    /// Counts a completed pair (its two games must be counted with [`Tally::add_game`] too).
    pub fn add_pair(&mut self, first: Outcome, second: Outcome) {
        self.pairs[first.half_points() + second.half_points()] += 1;
    }

    /// The first engine's score, 0..=1 (0.5 with no games).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + self.draws as f64 / 2.0) / n as f64
    }

    fn trinomial_cells(&self, regularise: bool) -> [(f64, f64); 3] {
        let r = |c: u64| {
            if regularise && c == 0 {
                REGULARISE
            } else {
                c as f64
            }
        };
        [
            (1.0, r(self.wins)),
            (0.5, r(self.draws)),
            (0.0, r(self.losses)),
        ]
    }

    fn pentanomial_cells(&self, regularise: bool) -> [(f64, f64); 5] {
        std::array::from_fn(|k| {
            let c = self.pairs[k];
            let count = if regularise && c == 0 {
                REGULARISE
            } else {
                c as f64
            };
            (k as f64 / 4.0, count)
        })
    }

    fn interval(cells: &[(f64, f64)]) -> Option<EloInterval> {
        let (n, mean, var) = moments(cells)?;
        let half = Z95 * (var / n).sqrt();
        Some(EloInterval {
            elo: elo_from_score(mean),
            low: elo_from_score(mean - half),
            high: elo_from_score(mean + half),
        })
    }

    /// Elo of the first engine with a 95% interval from the per-game (trinomial) variance.
    pub fn elo_trinomial(&self) -> Option<EloInterval> {
        Self::interval(&self.trinomial_cells(false))
    }

    /// Elo of the first engine with a 95% interval from the per-pair (pentanomial) variance.
    pub fn elo_pentanomial(&self) -> Option<EloInterval> {
        Self::interval(&self.pentanomial_cells(false))
    }

    /// Likelihood of superiority: the probability that the first engine is the stronger,
    /// from wins and losses (draws carry no information on it).
    pub fn los(&self) -> f64 {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }

    /// The SPRT log-likelihood ratio: over pairs when any pair is complete, else over games.
    ///
    /// The generalised SPRT of fishtest: for each hypothesis the maximum-likelihood
    /// distribution of results whose expected score is the hypothesis's, and the ratio of
    /// their likelihoods of the observed (regularised) frequencies.
    pub fn llr(&self, sprt: &Sprt) -> f64 {
        let (cells, n): (Vec<(f64, f64)>, f64) = if self.pair_count() > 0 {
            (
                self.pentanomial_cells(true).to_vec(),
                self.pair_count() as f64,
            )
        } else {
            (self.trinomial_cells(true).to_vec(), self.games() as f64)
        };
        if n == 0.0 {
            return 0.0;
        }
        let total: f64 = cells.iter().map(|c| c.1).sum();
        let p: Vec<(f64, f64)> = cells.iter().map(|&(x, c)| (x, c / total)).collect();
        let (s0, s1) = (score_from_elo(sprt.elo0), score_from_elo(sprt.elo1));
        let (Some(q0), Some(q1)) = (constrained_mle(&p, s0), constrained_mle(&p, s1)) else {
            return 0.0;
        };
        n * p
            .iter()
            .zip(q0.iter().zip(&q1))
            .map(|(&(_, pi), (&a, &b))| pi * (b / a).ln())
            .sum::<f64>()
    }
}

/// The distribution closest to `p` (in likelihood) whose mean is `s`: `q_i = p_i / (1 +
/// lambda (x_i - s))`, with `lambda` found by bisection (the constraint is monotone in it).
fn constrained_mle(p: &[(f64, f64)], s: f64) -> Option<Vec<f64>> {
    let min = p.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
    let max = p.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
    if !(min < s && s < max) {
        return None;
    }
    // 1 + lambda (x - s) > 0 for every cell.
    let (mut lo, mut hi) = (-1.0 / (max - s), 1.0 / (s - min));
    let f = |l: f64| {
        p.iter()
            .map(|&(x, pi)| pi * (x - s) / (1.0 + l * (x - s)))
            .sum::<f64>()
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let l = 0.5 * (lo + hi);
    Some(p.iter().map(|&(x, pi)| pi / (1.0 + l * (x - s))).collect())
}

/// The error function (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7), enough for
/// a likelihood of superiority.
fn erf(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(w: u64, d: u64, l: u64) -> Tally {
        Tally {
            wins: w,
            draws: d,
            losses: l,
            pairs: [0; 5],
        }
    }

    #[test]
    fn elo_of_a_known_score() {
        // 60-20-20 out of 100: score 0.7, Elo -400 log10(1/0.7 - 1) = +147.2.
        let t = tally(60, 20, 20);
        assert!((t.score() - 0.7).abs() < 1e-12);
        let e = t.elo_trinomial().unwrap();
        assert!((e.elo - 147.19).abs() < 0.01, "{e:?}");
        // Per-game variance: (0.6*0.09 + 0.2*0.04 + 0.2*0.49) = 0.16; se = 0.04;
        // interval on the score 0.7 -+ 0.0784 -> Elo +86.2 .. +218.3.
        assert!((e.low - 86.2).abs() < 0.1, "{e:?}");
        assert!((e.high - 218.3).abs() < 0.1, "{e:?}");
        assert!(e.low < e.elo && e.elo < e.high);
    }

    #[test]
    fn even_results_are_zero_elo() {
        let t = tally(10, 30, 10);
        let e = t.elo_trinomial().unwrap();
        assert!(e.elo.abs() < 1e-9);
        assert!((e.low + e.high).abs() < 1e-6, "symmetric: {e:?}");
        assert!((t.los() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn elo_and_score_invert() {
        for elo in [-400.0, -35.0, 0.0, 10.0, 250.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
    }

    #[test]
    fn pentanomial_interval_is_narrower_when_pairs_are_correlated() {
        // 40 pairs: every pair one win and one loss or two draws (score 1/2 each): the games
        // disagree within pairs, so the pentanomial variance is far below the trinomial.
        let mut t = Tally::default();
        for _ in 0..20 {
            t.add_game(Outcome::Win);
            t.add_game(Outcome::Loss);
            t.add_pair(Outcome::Win, Outcome::Loss);
        }
        for _ in 0..18 {
            t.add_game(Outcome::Win);
            t.add_game(Outcome::Draw);
            t.add_pair(Outcome::Win, Outcome::Draw);
        }
        for _ in 0..2 {
            t.add_game(Outcome::Draw);
            t.add_game(Outcome::Draw);
            t.add_pair(Outcome::Draw, Outcome::Draw);
        }
        assert_eq!(t.games(), 80);
        assert_eq!(t.pairs, [0, 0, 22, 18, 0]);
        let tri = t.elo_trinomial().unwrap();
        let penta = t.elo_pentanomial().unwrap();
        assert!((tri.elo - penta.elo).abs() < 1e-9, "same point estimate");
        assert!(
            penta.high - penta.low < tri.high - tri.low,
            "{tri:?} {penta:?}"
        );
    }

    #[test]
    fn sprt_bounds_and_decisions() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (lower, upper) = sprt.bounds();
        assert!((lower + 2.944).abs() < 1e-3 && (upper - 2.944).abs() < 1e-3);
        assert_eq!(sprt.decision(3.0), Some(SprtDecision::AcceptH1));
        assert_eq!(sprt.decision(-3.0), Some(SprtDecision::AcceptH0));
        assert_eq!(sprt.decision(0.1), None);
    }

    #[test]
    fn llr_grows_with_evidence_for_the_stronger_side() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let strong = |n: u64| {
            let mut t = Tally::default();
            for _ in 0..n {
                t.add_game(Outcome::Win);
                t.add_game(Outcome::Draw);
                t.add_pair(Outcome::Win, Outcome::Draw);
            }
            t
        };
        // One won pair is not evidence enough to stop.
        let one = strong(0).llr(&sprt);
        assert!(one.abs() < 1e-9, "{one}");
        let mut ww = Tally::default();
        ww.add_game(Outcome::Win);
        ww.add_game(Outcome::Win);
        ww.add_pair(Outcome::Win, Outcome::Win);
        assert_eq!(sprt.decision(ww.llr(&sprt)), None, "LLR {}", ww.llr(&sprt));
        let small = strong(5).llr(&sprt);
        let big = strong(50).llr(&sprt);
        assert!(small > 0.0 && big > small, "{small} {big}");
        assert_eq!(sprt.decision(big), Some(SprtDecision::AcceptH1));
        // Identical engines split every pair: strong evidence for H0 (regularised variance).
        let mut even = Tally::default();
        for _ in 0..30 {
            even.add_game(Outcome::Win);
            even.add_game(Outcome::Loss);
            even.add_pair(Outcome::Win, Outcome::Loss);
        }
        assert_eq!(sprt.decision(even.llr(&sprt)), Some(SprtDecision::AcceptH0));
    }

    fn pairs(counts: [u64; 5]) -> Tally {
        // The games behind the pairs do not matter to the pentanomial figures.
        Tally {
            pairs: counts,
            ..Tally::default()
        }
    }

    fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= tolerance
    }

    #[test]
    fn pentanomial_elo_and_interval_of_known_counts() {
        // 90 pairs [2, 10, 40, 30, 8]: mean pair score 53/90 = 0.5889, variance 0.047654,
        // se = sqrt(0.047654 / 90); Elo of 0.5889 -+ 1.96 se (computed by hand).
        let e = pairs([2, 10, 40, 30, 8]).elo_pentanomial().unwrap();
        assert!(close(e.elo, 62.43, 0.01), "{e:?}");
        assert!(close(e.low, 30.51, 0.01), "{e:?}");
        assert!(close(e.high, 95.44, 0.01), "{e:?}");
    }

    #[test]
    fn llr_of_known_counts() {
        let sprt = |elo0, elo1| Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        };
        // Near the hypotheses the GSPRT equals the normal approximation
        // N (s1 - s0) (2 m - s0 - s1) / (2 v): 1.2741 for 330-400-270 and elo 0 vs 5.
        let t = tally(330, 400, 270);
        let llr = t.llr(&sprt(0.0, 5.0));
        assert!(close(llr, 1.2671, 1e-3), "{llr}");
        assert!(close(llr, 1.2741, 0.01 * 1.2741), "{llr}");
        let llr = tally(300, 400, 300).llr(&sprt(0.0, 5.0));
        assert!(close(llr, -0.1726, 1e-3), "{llr}");
        // Pairs, far from both hypotheses (the normal approximation says 2.22 here).
        let llr = pairs([2, 10, 40, 30, 8]).llr(&sprt(0.0, 10.0));
        assert!(close(llr, 1.8059, 1e-3), "{llr}");
    }

    #[test]
    fn sprt_accepts_and_rejects_on_known_pairs() {
        let wide = Sprt {
            elo0: 0.0,
            elo1: 400.0,
            alpha: 0.05,
            beta: 0.05,
        };
        // Every pair won twice: ln 2 per pair at most, so five pairs are needed.
        assert_eq!(
            wide.decision(pairs([0, 0, 0, 0, 4]).llr(&wide)),
            None,
            "{}",
            pairs([0, 0, 0, 0, 4]).llr(&wide)
        );
        let five = pairs([0, 0, 0, 0, 5]).llr(&wide);
        assert!(close(five, 2.99, 0.01), "{five}");
        assert_eq!(wide.decision(five), Some(SprtDecision::AcceptH1));
        // Two even pairs reject a 400 Elo gain.
        let even = pairs([0, 0, 2, 0, 0]).llr(&wide);
        assert!(close(even, -3.40, 0.01), "{even}");
        assert_eq!(wide.decision(even), Some(SprtDecision::AcceptH0));
        // A narrow test needs far more evidence from the same two pairs.
        let narrow = Sprt { elo1: 5.0, ..wide };
        assert_eq!(narrow.decision(pairs([0, 0, 2, 0, 0]).llr(&narrow)), None);
    }

    #[test]
    fn los_favours_the_side_with_more_wins() {
        assert!(tally(30, 10, 10).los() > 0.99);
        assert!(tally(10, 10, 30).los() < 0.01);
    }
}
