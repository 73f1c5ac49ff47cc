//! What the tuner needs from the evaluation: for one position, how much each parameter
//! contributes (its coefficient), recorded by the same code that evaluates.
//!
//! Every term is written once, generic over a [`Trace`]: the search's evaluation passes
//! [`NoTrace`], whose methods are empty and compile away, and the tuner passes a
//! [`Recorder`], which notes each `(parameter, colour, count)` as the term adds its weight.
//! So the tuner's model of a position is the evaluation itself, not a second copy of it.
//!
//! Almost every term is linear in its weights: the evaluation is
//! `taper(sum of weight * coefficient)`. King danger is not: its inputs (the `safety.*`
//! scalars) are summed into a danger `d` per king, which costs `d * d / KING_DANGER_MG_DIV`
//! in the middlegame and `d / KING_DANGER_EG_DIV` in the endgame once positive. The recorder
//! keeps that sum's coefficients apart so the tuner can differentiate through it (chain rule).

use crate::piece::Color;

/// King danger's middlegame cost is `d * d / KING_DANGER_MG_DIV` for a danger sum `d > 0`.
pub(crate) const KING_DANGER_MG_DIV: i32 = 256;
/// King danger's endgame cost is `d / KING_DANGER_EG_DIV`.
pub(crate) const KING_DANGER_EG_DIV: i32 = 16;

/// Receives what the evaluation adds, as it adds it.
pub(crate) trait Trace {
    /// True when anything is recorded (the evaluation may skip its caches then).
    const ON: bool;
    /// `color` gains `coef` times parameter `id`'s weight (middlegame and endgame).
    fn linear(&mut self, color: Color, id: usize, coef: i32);
    /// The danger sum against `king`'s king gains `coef` times scalar parameter `id`.
    fn danger(&mut self, king: Color, id: usize, coef: i32);
}

/// The search's trace: records nothing.
#[derive(Debug)]
pub(crate) struct NoTrace;

impl Trace for NoTrace {
    const ON: bool = false;
    #[inline(always)]
    fn linear(&mut self, _: Color, _: usize, _: i32) {}
    #[inline(always)]
    fn danger(&mut self, _: Color, _: usize, _: i32) {}
}

/// The tuner's trace: every coefficient, White's minus Black's for the linear terms and per
/// king for the danger sums.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recorder {
    /// `(parameter, coefficient)` of the linear terms, White's view, merged by parameter.
    pub linear: Vec<(u32, i32)>,
    /// Per king (White's, Black's): the danger sum's `(parameter, coefficient)` pairs, and
    /// whether the danger applies at all (some piece attacks the king zone).
    pub danger: [Vec<(u32, i32)>; 2],
    /// Whether each king's danger term is on.
    pub danger_on: [bool; 2],
}

impl Trace for Recorder {
    const ON: bool = true;

    fn linear(&mut self, color: Color, id: usize, coef: i32) {
        if coef != 0 {
            let sign = if color == Color::White { 1 } else { -1 };
            self.linear.push((id as u32, sign * coef));
        }
    }

    fn danger(&mut self, king: Color, id: usize, coef: i32) {
        self.danger_on[king.index()] = true;
        if coef != 0 {
            self.danger[king.index()].push((id as u32, coef));
        }
    }
}

impl Recorder {
    /// Merges repeated parameters and drops zero coefficients.
    pub(crate) fn compact(&mut self) {
        fn merge(v: &mut Vec<(u32, i32)>) {
            v.sort_unstable_by_key(|e| e.0);
            let mut out: Vec<(u32, i32)> = Vec::with_capacity(v.len());
            for &(id, c) in v.iter() {
                match out.last_mut() {
                    Some(last) if last.0 == id => last.1 += c,
                    _ => out.push((id, c)),
                }
            }
            out.retain(|e| e.1 != 0);
            *v = out;
        }
        merge(&mut self.linear);
        for d in &mut self.danger {
            merge(d);
        }
    }
}

#[cfg(test)]
impl Recorder {
    /// The recorded coefficient of parameter `id` among `entries` (0 when absent).
    fn find(entries: &[(u32, i32)], id: usize) -> i32 {
        entries
            .iter()
            .find(|&&(p, _)| p as usize == id)
            .map_or(0, |&(_, c)| c)
    }

    /// White's coefficient of linear parameter `id` (White's minus Black's).
    pub(crate) fn linear_coefficient(&self, id: usize) -> i32 {
        Self::find(&self.linear, id)
    }

    /// The coefficient of scalar parameter `id` in the danger sum against `king`'s king.
    pub(crate) fn danger_coefficient(&self, king: Color, id: usize) -> i32 {
        Self::find(&self.danger[king.index()], id)
    }
}
