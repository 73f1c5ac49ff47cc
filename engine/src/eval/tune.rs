//! The Texel tuner: fits a variant's evaluation weights to the results of its own games.
//!
//! Each labelled position is traced once (`trace.rs`): the coefficient of every parameter in
//! its evaluation, the game phase and the king-danger inputs. The model of a position is then
//! `e = taper(sum of weight * coefficient) - king danger`, exactly the evaluation's formula in
//! floating point, and its predicted score for White is `sigmoid(K * e)`. The loss is the mean
//! squared difference between that prediction and the game's result (1, 0.5 or 0 for White).
//! `K` is fitted first, with the starting weights, so the weights keep the centipawn scale.
//! Then Adam minimises the loss over all the weights (or those named by prefix), with the
//! exact gradient: most terms are linear in their weights, and king danger's square is
//! differentiated by the chain rule.
//!
//! The data is the text `tune-data` writes: `FEN;result` lines, `#` comments, and `# game N`
//! lines closing each game, which the tuner uses to keep whole games on one side of the
//! training/validation split (positions of one game are alike, so a split inside games would
//! flatter the validation loss).

use std::sync::Arc;

use crate::eval::params::{EvalParams, Layout, Shape};
use crate::eval::trace::{KING_DANGER_EG_DIV, KING_DANGER_MG_DIV, Recorder};
use crate::eval::{EvalTerms, Evaluator};
use crate::notation::FenError;
use crate::position::Position;
use crate::variant::Variant;

/// The `(parameter, coefficient)` pairs of one sum, as the trace recorded them.
type Coefficients = Box<[(u32, i32)]>;

/// One traced position.
#[derive(Clone, Debug)]
struct Entry {
    /// `(parameter, coefficient)` of the linear terms, White's view.
    linear: Coefficients,
    /// Per king (White's, Black's), when on: the danger sum's inputs.
    danger: [Option<Coefficients>; 2],
    /// Middlegame share, 0..=1.
    mg: f64,
    /// White's result.
    result: f64,
    /// The search score recorded with the position, White's view, in centipawns (binary
    /// training data has one; the text format does not).
    score: Option<f64>,
    /// Game number in the file (for the split).
    game: u64,
}

/// Why tuning data was refused or tuning could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A line that is not `FEN;result`.
    #[error("line {line}: expected \"FEN;result\", found {text:?}")]
    Syntax {
        /// The line (1-based).
        line: usize,
        /// What it says.
        text: String,
    },
    /// A result other than 1, 0.5 or 0 (or 1-0, 1/2-1/2, 0-1).
    #[error("line {line}: result {text:?} is not 1, 0.5 or 0")]
    Result {
        /// The line.
        line: usize,
        /// The result text.
        text: String,
    },
    /// A FEN that does not parse for the variant.
    #[error("line {line}: {source}")]
    Fen {
        /// The line.
        line: usize,
        /// Why.
        source: FenError,
    },
    /// The starting weights are for another variant or another layout.
    #[error("the starting parameters are for {found:?}, not this variant's evaluation")]
    Params {
        /// The variant the parameters name.
        found: String,
    },
    /// No position to tune on.
    #[error("no positions to tune on")]
    Empty,
}

/// Settings of a tuning run.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// Adam steps (each over the whole training set).
    pub iterations: usize,
    /// Adam step size, in centipawns.
    pub learning_rate: f64,
    /// The sigmoid's scale; `None` fits it to the data with the starting weights.
    pub k: Option<f64>,
    /// Every `n`-th game (by its number in the file) is held out for validation; 0 = none.
    pub validation_every: u64,
    /// Tune only the parameters whose names start with one of these (empty = all).
    pub only: Vec<String>,
    /// Weight of the recorded search score in the target (the game's result has the rest):
    /// the target is `lambda * sigmoid(K * score) + (1 - lambda) * result` for positions that
    /// carry a score. A game's result labels all its positions alike, whatever happened
    /// between them; the search score labels each one, which lets a few thousand games fit
    /// hundreds of weights without fitting their noise.
    pub lambda: f64,
    /// L2 penalty on the distance from the starting weights, per parameter slot, in units of
    /// 100 centipawns squared: the loss gains `l2 * sum(((w - w0) / 100)^2)`. It keeps the
    /// weights that the data hardly sees (the far ends of the mobility tables) near their
    /// geometric start.
    pub l2: f64,
}

impl Default for TuneConfig {
    fn default() -> Self {
        Self {
            iterations: 400,
            learning_rate: 1.0,
            k: None,
            validation_every: 10,
            only: Vec::new(),
            lambda: 0.0,
            l2: 0.0,
        }
    }
}

/// Progress of a tuning run, reported every few iterations.
#[derive(Clone, Debug)]
pub struct TuneProgress {
    /// Iterations done.
    pub iteration: usize,
    /// Loss on the training positions.
    pub training_loss: f64,
    /// Loss on the held-out positions (`NaN` when none are held out).
    pub validation_loss: f64,
    /// The sigmoid's scale in use.
    pub k: f64,
    /// True when these weights have the lowest validation loss seen so far (the ones the
    /// run returns; every report when nothing is held out).
    pub best: bool,
}

/// Labelled positions of one variant, traced for tuning.
///
/// # Examples
/// ```
/// use variant_engine::{EvalParams, Registry, TuneConfig, TuningSet};
/// let v = Registry::builtin().get("opulent").unwrap();
/// let data = format!("{};1\n# game 1\n", v.start_fen());
/// let set = TuningSet::parse(&v, &data).unwrap();
/// assert_eq!(set.len(), 1);
/// let cfg = TuneConfig { iterations: 2, validation_every: 0, ..TuneConfig::default() };
/// let (tuned, _) = set.tune(&EvalParams::defaults(&v), &cfg, &mut |_| {}).unwrap();
/// assert_eq!(tuned.variant_name(), "opulent");
/// ```
#[derive(Debug)]
pub struct TuningSet {
    variant: Arc<Variant>,
    layout: Layout,
    entries: Vec<Entry>,
}

/// Mean loss and gradient (per parameter: middlegame, endgame) over `entries`.
fn loss_and_gradient(
    entries: &[&Entry],
    theta: &[[f64; 2]],
    k: f64,
    lambda: f64,
    grad: Option<&mut [[f64; 2]]>,
) -> f64 {
    let mut loss = 0.0;
    let mut grad = grad;
    if let Some(g) = grad.as_deref_mut() {
        g.fill([0.0; 2]);
    }
    for e in entries {
        let (eval, danger) = model(e, theta);
        let p = 1.0 / (1.0 + (-k * eval).exp());
        let target = match e.score {
            Some(score) if lambda > 0.0 => {
                lambda / (1.0 + (-k * score).exp()) + (1.0 - lambda) * e.result
            }
            _ => e.result,
        };
        let diff = target - p;
        loss += diff * diff;
        let Some(g) = grad.as_deref_mut() else {
            continue;
        };
        // d loss / d eval.
        let de = -2.0 * diff * p * (1.0 - p) * k;
        let (wm, we) = (de * e.mg, de * (1.0 - e.mg));
        for &(id, c) in &*e.linear {
            let slot = &mut g[id as usize];
            slot[0] += wm * f64::from(c);
            slot[1] += we * f64::from(c);
        }
        for (side, d) in danger.iter().enumerate() {
            let (Some(list), Some(d)) = (&e.danger[side], d) else {
                continue;
            };
            // White's view: White's king danger counts against, Black's for.
            let sign = if side == 0 { -1.0 } else { 1.0 };
            // d eval / d d: the square's slope in the middlegame, the line's in the endgame.
            let slope = sign
                * (e.mg * 2.0 * d / f64::from(KING_DANGER_MG_DIV)
                    + (1.0 - e.mg) / f64::from(KING_DANGER_EG_DIV));
            for &(id, c) in &**list {
                g[id as usize][0] += de * slope * f64::from(c);
            }
        }
    }
    let n = entries.len().max(1) as f64;
    if let Some(g) = grad {
        for x in g.iter_mut() {
            x[0] /= n;
            x[1] /= n;
        }
    }
    loss / n
}

/// White's evaluation of `e` under `theta`, and each king's positive danger sum (`None`
/// when off or not positive).
fn model(e: &Entry, theta: &[[f64; 2]]) -> (f64, [Option<f64>; 2]) {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(id, c) in &*e.linear {
        let w = theta[id as usize];
        mg += w[0] * f64::from(c);
        eg += w[1] * f64::from(c);
    }
    let mut danger = [None; 2];
    for (side, list) in e.danger.iter().enumerate() {
        let Some(list) = list else { continue };
        let d: f64 = list
            .iter()
            .map(|&(id, c)| theta[id as usize][0] * f64::from(c))
            .sum();
        if d > 0.0 {
            let sign = if side == 0 { -1.0 } else { 1.0 };
            mg += sign * d * d / f64::from(KING_DANGER_MG_DIV);
            eg += sign * d / f64::from(KING_DANGER_EG_DIV);
            danger[side] = Some(d);
        }
    }
    (mg * e.mg + eg * (1.0 - e.mg), danger)
}

/// One line of the text format: a position with its result, or `None` for a comment or a
/// blank line (a `# game N` comment numbers the positions after it `N + 1`).
fn parse_line(
    variant: &Arc<Variant>,
    line: usize,
    raw: &str,
    game: &mut u64,
) -> Result<Option<(Position, f64, u64)>, TuneError> {
    let content = raw.trim();
    if let Some(rest) = content.strip_prefix('#') {
        if let Some(g) = rest.trim().strip_prefix("game ")
            && let Ok(g) = g.trim().parse::<u64>()
        {
            *game = g + 1;
        }
        return Ok(None);
    }
    if content.is_empty() {
        return Ok(None);
    }
    let Some((fen, result)) = content.rsplit_once(';') else {
        return Err(TuneError::Syntax {
            line,
            text: content.to_owned(),
        });
    };
    let result = parse_result(result).ok_or_else(|| TuneError::Result {
        line,
        text: result.to_owned(),
    })?;
    let pos = Position::from_fen(variant.clone(), fen.trim())
        .map_err(|source| TuneError::Fen { line, source })?;
    Ok(Some((pos, result, *game)))
}

fn parse_result(text: &str) -> Option<f64> {
    match text.trim() {
        "1" | "1.0" | "1-0" => Some(1.0),
        "0" | "0.0" | "0-1" => Some(0.0),
        "0.5" | "1/2-1/2" => Some(0.5),
        _ => None,
    }
}

impl TuningSet {
    /// Reads and traces labelled positions of `variant` (the format of this module's
    /// documentation).
    ///
    /// # Errors
    /// [`TuneError`] naming the first bad line.
    pub fn parse(variant: &Arc<Variant>, text: &str) -> Result<Self, TuneError> {
        let mut game = 1;
        let mut error = None;
        let positions = text
            .lines()
            .enumerate()
            .filter_map(|(n, raw)| parse_line(variant, n + 1, raw, &mut game).transpose())
            .map_while(|r| r.map_err(|e| error = Some(e)).ok());
        let set = Self::from_positions(variant, positions);
        match error {
            Some(e) => Err(e),
            None => Ok(set),
        }
    }

    /// Traces positions of `variant` already built, each with White's result (1, 0.5 or 0)
    /// and the number of its game (which picks the validation games): the path for readers
    /// of other formats, such as the network's binary data, that need no text in between.
    pub fn from_positions(
        variant: &Arc<Variant>,
        positions: impl IntoIterator<Item = (Position, f64, u64)>,
    ) -> Self {
        Self::from_scored_positions(
            variant,
            positions
                .into_iter()
                .map(|(pos, result, game)| (pos, result, game, None)),
        )
    }

    /// As [`TuningSet::from_positions`], each position also with the search score recorded
    /// for it (White's view, centipawns), which [`TuneConfig::lambda`] blends into the target.
    pub fn from_scored_positions(
        variant: &Arc<Variant>,
        positions: impl IntoIterator<Item = (Position, f64, u64, Option<i32>)>,
    ) -> Self {
        let family = variant.rules().eval_family(variant);
        let layout = Layout::new(variant, family);
        let defaults = EvalParams::from_layout(variant, &layout);
        // The trace does not depend on the weights: any will do.
        let evaluator = Evaluator::with_params(variant, EvalTerms::default(), &defaults);
        let entries = positions
            .into_iter()
            .map(|(pos, result, game, score)| {
                Self::entry(&evaluator, &pos, result, game, score.map(f64::from))
            })
            .collect();
        Self {
            variant: variant.clone(),
            layout,
            entries,
        }
    }

    fn entry(
        evaluator: &Evaluator,
        pos: &Position,
        result: f64,
        game: u64,
        score: Option<f64>,
    ) -> Entry {
        let (rec, phase, _) = evaluator.trace(pos);
        let Recorder {
            linear,
            danger,
            danger_on,
        } = rec;
        let [dw, db] = danger;
        let on = |on: bool, list: Vec<(u32, i32)>| on.then(|| list.into_boxed_slice());
        Entry {
            linear: linear.into_boxed_slice(),
            danger: [on(danger_on[0], dw), on(danger_on[1], db)],
            mg: f64::from(phase) / 256.0,
            result,
            score,
            game,
        }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no positions.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds the positions of `other`, read from another file for the same variant (game
    /// numbers may repeat between files: they only pick the validation games).
    ///
    /// # Errors
    /// [`TuneError::Params`] when `other` is for another variant.
    pub fn append(&mut self, other: TuningSet) -> Result<(), TuneError> {
        if other.variant.name() != self.variant.name() {
            return Err(TuneError::Params {
                found: other.variant.name().to_owned(),
            });
        }
        self.entries.extend(other.entries);
        Ok(())
    }

    fn theta(&self, start: &EvalParams) -> Result<Vec<[f64; 2]>, TuneError> {
        if start.variant_name() != self.variant.name() || start.defs != self.layout.defs {
            return Err(TuneError::Params {
                found: start.variant_name().to_owned(),
            });
        }
        Ok(start
            .values
            .iter()
            .map(|v| [f64::from(v[0]), f64::from(v[1])])
            .collect())
    }

    fn split(&self, every: u64) -> (Vec<&Entry>, Vec<&Entry>) {
        self.entries
            .iter()
            .partition(|e| every == 0 || e.game % every != 0)
    }

    /// The loss of `params` on all positions with the sigmoid scale `k`.
    ///
    /// # Errors
    /// [`TuneError::Params`] when `params` are not this variant's.
    pub fn loss(&self, params: &EvalParams, k: f64) -> Result<f64, TuneError> {
        let theta = self.theta(params)?;
        let all: Vec<&Entry> = self.entries.iter().collect();
        Ok(loss_and_gradient(&all, &theta, k, 0.0, None))
    }

    /// The sigmoid scale `K` that fits the results best with `params` (a golden-section
    /// search on a log scale).
    ///
    /// # Errors
    /// [`TuneError::Params`] when `params` are not this variant's, [`TuneError::Empty`]
    /// without positions.
    pub fn fit_k(&self, params: &EvalParams) -> Result<f64, TuneError> {
        if self.entries.is_empty() {
            return Err(TuneError::Empty);
        }
        let theta = self.theta(params)?;
        let all: Vec<&Entry> = self.entries.iter().collect();
        let f = |lk: f64| loss_and_gradient(&all, &theta, lk.exp(), 0.0, None);
        // K between 1/10000 and 1/10 per centipawn.
        let (mut a, mut b) = (1e-4f64.ln(), 0.1f64.ln());
        let phi = (5f64.sqrt() - 1.0) / 2.0;
        let mut c = b - phi * (b - a);
        let mut d = a + phi * (b - a);
        let (mut fc, mut fd) = (f(c), f(d));
        for _ in 0..40 {
            if fc < fd {
                b = d;
                d = c;
                fd = fc;
                c = b - phi * (b - a);
                fc = f(c);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + phi * (b - a);
                fd = f(d);
            }
        }
        Ok(f64::midpoint(a, b).exp())
    }

    /// Tunes from `start`, reporting progress every few iterations; returns the tuned
    /// weights (rounded to integers) with the lowest validation loss of the reports (the
    /// last ones when nothing is held out), and that report.
    ///
    /// # Errors
    /// [`TuneError::Params`] when `start` is not this variant's, [`TuneError::Empty`] without
    /// training positions.
    pub fn tune(
        &self,
        start: &EvalParams,
        cfg: &TuneConfig,
        progress: &mut dyn FnMut(&TuneProgress),
    ) -> Result<(EvalParams, TuneProgress), TuneError> {
        let mut theta = self.theta(start)?;
        let (train, valid) = self.split(cfg.validation_every);
        if train.is_empty() {
            return Err(TuneError::Empty);
        }
        let k = match cfg.k {
            Some(k) => k,
            None => self.fit_k(start)?,
        };
        // Which slots move: a scalar's endgame slot never does (it mirrors the first).
        let free: Vec<[bool; 2]> = self
            .layout
            .defs
            .iter()
            .map(|d| {
                let on = cfg.only.is_empty() || cfg.only.iter().any(|p| d.name.starts_with(p));
                [on, on && d.shape == Shape::Pair]
            })
            .collect();
        let n = theta.len();
        let start_theta = theta.clone();
        let mut m = vec![[0.0f64; 2]; n];
        let mut v = vec![[0.0f64; 2]; n];
        let mut grad = vec![[0.0f64; 2]; n];
        let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-8);
        let lambda = cfg.lambda.clamp(0.0, 1.0);
        // The penalty per slot is l2 * ((w - w0) / 100)^2: its gradient 2 * l2 * (w - w0) / 1e4.
        let penalty = |theta: &[[f64; 2]]| -> f64 {
            if cfg.l2 <= 0.0 {
                return 0.0;
            }
            let mut sum = 0.0;
            for (i, (t, t0)) in theta.iter().zip(&start_theta).enumerate() {
                for j in 0..2 {
                    if free[i][j] {
                        let d = (t[j] - t0[j]) / 100.0;
                        sum += d * d;
                    }
                }
            }
            cfg.l2 * sum
        };
        let report = |iteration: usize, theta: &[[f64; 2]], training_loss: f64| TuneProgress {
            iteration,
            training_loss,
            validation_loss: if valid.is_empty() {
                f64::NAN
            } else {
                loss_and_gradient(&valid, theta, k, lambda, None)
            },
            k,
            best: false,
        };
        let mut last = report(
            0,
            &theta,
            loss_and_gradient(&train, &theta, k, lambda, None),
        );
        last.best = true;
        progress(&last);
        // The weights with the lowest validation loss so far: more steps can overfit the
        // training games, and then the earlier weights are the better ones.
        let mut best = (last.validation_loss, theta.clone(), last.clone());
        for it in 1..=cfg.iterations {
            let loss = loss_and_gradient(&train, &theta, k, lambda, Some(&mut grad));
            let (c1, c2) = (1.0 - beta1.powi(it as i32), 1.0 - beta2.powi(it as i32));
            for i in 0..n {
                for j in 0..2 {
                    if !free[i][j] {
                        continue;
                    }
                    let g =
                        grad[i][j] + 2.0 * cfg.l2 * (theta[i][j] - start_theta[i][j]) / 10_000.0;
                    m[i][j] = beta1 * m[i][j] + (1.0 - beta1) * g;
                    v[i][j] = beta2 * v[i][j] + (1.0 - beta2) * g * g;
                    let step = cfg.learning_rate * (m[i][j] / c1) / ((v[i][j] / c2).sqrt() + eps);
                    theta[i][j] -= step;
                }
                if self.layout.defs[i].shape == Shape::Scalar {
                    theta[i][1] = theta[i][0];
                }
            }
            if it % 25 == 0 || it == cfg.iterations {
                last = report(it, &theta, loss + penalty(&theta));
                // With nothing held out every report is the best so far (NaN compares false).
                last.best = valid.is_empty() || last.validation_loss < best.0;
                if last.best {
                    best = (last.validation_loss, theta.clone(), last.clone());
                }
                progress(&last);
            }
        }
        let (_, theta, mut last) = best;
        last.training_loss = loss_and_gradient(&train, &theta, k, lambda, None);
        let mut tuned = start.clone();
        for (dst, t) in tuned.values.iter_mut().zip(&theta) {
            *dst = [t[0].round() as i32, t[1].round() as i32];
        }
        Ok((tuned, last))
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::Registry;

    /// A few self-play-like positions: seeded random playouts, labelled by a rule that does
    /// not depend on the evaluation.
    fn sample(variant: &str, count: u64) -> (Arc<Variant>, String) {
        let v = Registry::builtin().get(variant).unwrap();
        let mut text = String::new();
        for seed in 0..count {
            let pos = crate::samples::random_playout(Position::new(v.clone()), 30, seed + 1);
            if pos.status().is_finished() || pos.in_check() {
                continue;
            }
            // Label: White wins when it has more pieces, a deterministic stand-in for a
            // game's result that the material weights can learn.
            let white = pos.by_color[crate::Color::White].count();
            let black = pos.by_color[crate::Color::Black].count();
            let result = match white.cmp(&black) {
                std::cmp::Ordering::Greater => "1",
                std::cmp::Ordering::Less => "0",
                std::cmp::Ordering::Equal => "0.5",
            };
            let _ = writeln!(text, "{};{result}\n# game {}", pos.fen(), seed + 1);
        }
        (v, text)
    }

    #[test]
    fn the_model_is_the_evaluation() {
        for name in ["opulent", "soho", "decima", "orphic", "chess"] {
            let (v, text) = sample(name, 40);
            let set = TuningSet::parse(&v, &text).unwrap();
            let params = EvalParams::defaults(&v);
            let theta = set.theta(&params).unwrap();
            let ev = Evaluator::with_params(&v, EvalTerms::default(), &params);
            for (line, e) in text
                .lines()
                .filter(|l| !l.starts_with('#'))
                .zip(&set.entries)
            {
                let pos = Position::from_fen(v.clone(), line.split(';').next().unwrap()).unwrap();
                let engine = ev.evaluate(&pos);
                let white = if pos.side == crate::Color::White {
                    engine
                } else {
                    -engine
                };
                let (model, _) = model(e, &theta);
                // The engine rounds its king danger and taper; the model does not.
                assert!(
                    (model - f64::from(white)).abs() <= 3.0,
                    "{name} {line}: model {model} engine {white}"
                );
            }
        }
    }

    #[test]
    fn the_gradient_is_the_numerical_gradient() {
        for name in ["soho", "opulent", "decima", "orphic"] {
            let (v, text) = sample(name, 24);
            let set = TuningSet::parse(&v, &text).unwrap();
            let mut theta = set.theta(&EvalParams::defaults(&v)).unwrap();
            // Make king danger bite, so its chain rule is exercised.
            for (i, d) in set.layout.defs.iter().enumerate() {
                if d.name.starts_with("safety.") {
                    theta[i][0] += 40.0;
                    theta[i][1] = theta[i][0];
                }
            }
            let all: Vec<&Entry> = set.entries.iter().collect();
            let k = 1.0 / 300.0;
            let mut grad = vec![[0.0; 2]; theta.len()];
            loss_and_gradient(&all, &theta, k, 0.0, Some(&mut grad));
            let mut checked = 0;
            for i in 0..theta.len() {
                for j in 0..2 {
                    if set.layout.defs[i].shape == Shape::Scalar && j == 1 {
                        continue;
                    }
                    let h = 0.01;
                    let mut up = theta.clone();
                    up[i][j] += h;
                    let mut down = theta.clone();
                    down[i][j] -= h;
                    let numeric = (loss_and_gradient(&all, &up, k, 0.0, None)
                        - loss_and_gradient(&all, &down, k, 0.0, None))
                        / (2.0 * h);
                    let analytic = grad[i][j];
                    assert!(
                        (numeric - analytic).abs() <= 1e-6 + 1e-3 * analytic.abs(),
                        "{name} {}[{j}]: numeric {numeric} analytic {analytic}",
                        set.layout.defs[i].name
                    );
                    checked += usize::from(analytic != 0.0);
                }
            }
            assert!(checked > 10, "{name}: only {checked} parameters seen");
        }
    }

    /// Random playouts of `variant` with their material balance as a stand-in search score
    /// (White's view, `scale` centipawns per piece) and a drawn result.
    fn scored_sample(variant: &str, count: u64, scale: i32) -> TuningSet {
        let v = Registry::builtin().get(variant).unwrap();
        let positions = (0..count).filter_map(|seed| {
            let pos = crate::samples::random_playout(Position::new(v.clone()), 30, seed + 1);
            if pos.status().is_finished() || pos.in_check() {
                return None;
            }
            let white = pos.by_color[crate::Color::White].count() as i32;
            let black = pos.by_color[crate::Color::Black].count() as i32;
            Some((pos, 0.5, seed, Some(scale * (white - black))))
        });
        TuningSet::from_scored_positions(&v, positions)
    }

    /// The mean material weight of the pieces (not pawns) in `params`.
    fn mean_piece_value(v: &Variant, params: &EvalParams) -> f64 {
        let l = Layout::new(v, v.rules().eval_family(v));
        let ids: Vec<usize> = (0..v.kind_count())
            .filter(|&k| v.kinds[k].role == crate::variant::Role::Piece)
            .map(|k| l.value[k])
            .collect();
        ids.iter()
            .map(|&i| f64::from(params.values[i][0]))
            .sum::<f64>()
            / ids.len() as f64
    }

    #[test]
    fn lambda_blends_the_search_score_into_the_target() {
        // Every game is drawn, but the scores say a piece is worth 3000 centipawns: with the
        // result alone the material weights have no reason to grow, with the score they must.
        let set = scored_sample("opulent", 80, 3000);
        let v = set.variant.clone();
        let start = EvalParams::defaults(&v);
        let cfg = |lambda| TuneConfig {
            iterations: 40,
            learning_rate: 10.0,
            k: Some(1.0 / 400.0),
            validation_every: 0,
            only: vec!["value.".into()],
            lambda,
            ..TuneConfig::default()
        };
        let (by_result, _) = set.tune(&start, &cfg(0.0), &mut |_| {}).unwrap();
        let (by_score, _) = set.tune(&start, &cfg(1.0), &mut |_| {}).unwrap();
        let base = mean_piece_value(&v, &start);
        let (s, r) = (
            mean_piece_value(&v, &by_score),
            mean_piece_value(&v, &by_result),
        );
        assert!(s > base + 50.0, "{base} -> {s}");
        assert!(r < base + 20.0, "{base} -> {r}");
    }

    #[test]
    fn l2_keeps_the_weights_near_the_start() {
        let set = scored_sample("opulent", 80, 3000);
        let v = set.variant.clone();
        let start = EvalParams::defaults(&v);
        let distance = |l2| {
            let cfg = TuneConfig {
                iterations: 40,
                learning_rate: 10.0,
                k: Some(1.0 / 400.0),
                validation_every: 0,
                lambda: 1.0,
                l2,
                ..TuneConfig::default()
            };
            let (tuned, _) = set.tune(&start, &cfg, &mut |_| {}).unwrap();
            tuned
                .values
                .iter()
                .zip(&start.values)
                .map(|(a, b)| f64::from((a[0] - b[0]).abs() + (a[1] - b[1]).abs()))
                .sum::<f64>()
        };
        let (free, held) = (distance(0.0), distance(50.0));
        assert!(held < free * 0.7, "{held} vs {free}");
    }

    #[test]
    fn the_weights_with_the_best_validation_loss_are_kept() {
        let (v, text) = sample("opulent", 120);
        let set = TuningSet::parse(&v, &text).unwrap();
        let start = EvalParams::defaults(&v);
        let cfg = TuneConfig {
            iterations: 100,
            learning_rate: 20.0,
            k: Some(1.0 / 250.0),
            validation_every: 3,
            ..TuneConfig::default()
        };
        let mut reports = Vec::new();
        let (tuned, kept) = set
            .tune(&start, &cfg, &mut |p| reports.push(p.clone()))
            .unwrap();
        let lowest = reports
            .iter()
            .map(|p| p.validation_loss)
            .fold(f64::INFINITY, f64::min);
        assert!(kept.best);
        assert!((kept.validation_loss - lowest).abs() < 1e-12);
        // The returned weights are that report's (up to rounding to integers).
        let (_, valid) = set.split(3);
        let theta = set.theta(&tuned).unwrap();
        let again = loss_and_gradient(&valid, &theta, 1.0 / 250.0, 0.0, None);
        assert!((again - lowest).abs() < 1e-3, "{again} vs {lowest}");
    }

    #[test]
    fn tuning_lowers_the_loss() {
        let (v, text) = sample("opulent", 60);
        let set = TuningSet::parse(&v, &text).unwrap();
        let start = EvalParams::defaults(&v);
        let cfg = TuneConfig {
            iterations: 60,
            learning_rate: 2.0,
            k: Some(1.0 / 250.0),
            validation_every: 0,
            ..TuneConfig::default()
        };
        let before = set.loss(&start, 1.0 / 250.0).unwrap();
        let (tuned, report) = set.tune(&start, &cfg, &mut |_| {}).unwrap();
        let after = set.loss(&tuned, 1.0 / 250.0).unwrap();
        assert!(after < before * 0.95, "loss {before} -> {after}");
        assert!((report.training_loss - after).abs() < 0.01);
        // Only the named parameters move.
        let cfg = TuneConfig {
            only: vec!["value.".into()],
            ..cfg
        };
        let (tuned, _) = set.tune(&start, &cfg, &mut |_| {}).unwrap();
        for (d, (a, b)) in set
            .layout
            .defs
            .iter()
            .zip(start.values.iter().zip(&tuned.values))
        {
            if !d.name.starts_with("value.") {
                assert_eq!(a, b, "{}", d.name);
            }
        }
        assert_ne!(start, tuned);
    }

    #[test]
    fn k_is_fitted_and_bad_data_is_refused() {
        let (v, text) = sample("soho", 40);
        let set = TuningSet::parse(&v, &text).unwrap();
        let k = set.fit_k(&EvalParams::defaults(&v)).unwrap();
        assert!(k > 1e-4 && k < 0.1, "{k}");
        let start = v.start_fen();
        assert!(matches!(
            TuningSet::parse(&v, &format!("{start};2\n")),
            Err(TuneError::Result { line: 1, .. })
        ));
        assert!(matches!(
            TuningSet::parse(&v, &format!("# c\n{start}\n")),
            Err(TuneError::Syntax { line: 2, .. })
        ));
        assert!(matches!(
            TuningSet::parse(&v, "x/y/z w - - 0 1;1\n"),
            Err(TuneError::Fen { line: 1, .. })
        ));
        let other = Registry::builtin().get("opulent").unwrap();
        assert!(matches!(
            set.fit_k(&EvalParams::defaults(&other)),
            Err(TuneError::Params { .. })
        ));
    }
}
