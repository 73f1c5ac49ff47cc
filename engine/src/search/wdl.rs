//! Win, draw and loss chances from a score: a win-rate model per variant, fitted to our own
//! self-play games.
//!
//! The model is the usual logistic pair: the side to move wins with chance
//! `1 / (1 + exp(-(x - a) / b))` and loses with chance `1 / (1 + exp(-(-x - a) / b))` for a
//! score of `x` centipawns; the rest is the draw. `a` is how far ahead a side must be to win
//! as often as not, `b` how quickly the chance grows; both are fitted per variant by maximum
//! likelihood to the scores our engine reported in self-play and the games' results
//! (`engine/scripts/wdl-fit.py`; the parameters, with the data size behind them, are data in
//! `engine/wdl/model.tsv`, embedded here).

use std::sync::OnceLock;

use super::score::Score;

/// Win, draw and loss chances in per mille, for the side to move; they add up to 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wdl {
    /// Chance that the side to move wins.
    pub win: u32,
    /// Chance of a draw.
    pub draw: u32,
    /// Chance that the side to move loses.
    pub loss: u32,
}

/// A variant's fitted win-rate model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WinRateModel {
    /// Centipawns at which a win is as likely as not.
    pub a: f64,
    /// Spread of the logistic, in centipawns.
    pub b: f64,
    /// Scored positions the fit used.
    pub positions: u64,
    /// Games they came from.
    pub games: u64,
}

/// The embedded model file: `variant a b positions games` rows.
const MODELS: &str = include_str!("../../wdl/model.tsv");

fn parse_models(text: &str) -> Option<Vec<(String, WinRateModel)>> {
    let mut rows = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.split_whitespace();
        let name = f.next()?.to_owned();
        let model = WinRateModel {
            a: f.next()?.parse().ok()?,
            b: f.next()?.parse().ok()?,
            positions: f.next()?.parse().ok()?,
            games: f.next()?.parse().ok()?,
        };
        if f.next().is_some() || !(model.a.is_finite() && model.b.is_finite() && model.b > 0.0) {
            return None;
        }
        rows.push((name, model));
    }
    Some(rows)
}

impl WinRateModel {
    /// The fitted model of `variant`, if one was fitted.
    pub fn of(variant: &str) -> Option<WinRateModel> {
        static ROWS: OnceLock<Vec<(String, WinRateModel)>> = OnceLock::new();
        ROWS.get_or_init(|| parse_models(MODELS).unwrap_or_default())
            .iter()
            .find(|(name, _)| name == variant)
            .map(|&(_, model)| model)
    }

    /// The chances for the side to move at `score`. A forced mate is a certain result.
    pub fn wdl(&self, score: Score) -> Wdl {
        let cp = match score {
            Score::Mate(moves) if moves > 0 => {
                return Wdl {
                    win: 1000,
                    draw: 0,
                    loss: 0,
                };
            }
            Score::Mate(_) => {
                return Wdl {
                    win: 0,
                    draw: 0,
                    loss: 1000,
                };
            }
            Score::Centipawns(cp) => f64::from(cp),
        };
        let logistic = |x: f64| 1.0 / (1.0 + f64::exp(-(x - self.a) / self.b));
        // Rounded separately, then the draw takes the rest so the three add up to 1000.
        let win = (1000.0 * logistic(cp)).round().clamp(0.0, 1000.0) as u32;
        let loss = ((1000.0 * logistic(-cp)).round() as u32).min(1000 - win);
        Wdl {
            win,
            draw: 1000 - win - loss,
            loss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_models_parse() {
        let rows = parse_models(MODELS).expect("model.tsv is well-formed");
        for (name, model) in rows {
            assert!(model.positions > 0 && model.games > 0, "{name}");
            assert_eq!(WinRateModel::of(&name), Some(model));
        }
        assert!(
            parse_models("chess 1 0 10 1").is_none(),
            "b must be positive"
        );
        assert!(parse_models("chess 1 x 10 1").is_none());
    }

    #[test]
    fn chances_add_up_and_follow_the_score() {
        let model = WinRateModel {
            a: 150.0,
            b: 60.0,
            positions: 1,
            games: 1,
        };
        let mut last_win = 0;
        for cp in (-2000..=2000).step_by(50) {
            let w = model.wdl(Score::Centipawns(cp));
            assert_eq!(w.win + w.draw + w.loss, 1000, "{cp}");
            assert!(w.win >= last_win, "win chance grows with the score");
            last_win = w.win;
        }
        let even = model.wdl(Score::Centipawns(0));
        assert_eq!(even.win, even.loss);
        assert!(even.draw > 800, "{even:?}");
        assert_eq!(model.wdl(Score::Centipawns(150)).win, 500);
        assert_eq!(model.wdl(Score::Mate(3)).win, 1000);
        assert_eq!(model.wdl(Score::Mate(-2)).loss, 1000);
    }
}
