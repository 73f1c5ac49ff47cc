//! The running sums of an evaluation: middlegame/endgame pairs per colour, and the one helper
//! every term adds its weights through, so that a trace (`trace.rs`) sees exactly what the
//! score gets. Kept apart from the evaluator so that the term modules depend only on it.

use crate::eval::params::NONE;
use crate::eval::trace::Trace;
use crate::piece::{ByColor, Color};

/// Middlegame and endgame weights of one term.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pair {
    /// Middlegame weight.
    pub(crate) mg: i32,
    /// Endgame weight.
    pub(crate) eg: i32,
}

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Self) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for Pair {
    fn sub_assign(&mut self, o: Self) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

/// The running sums of an evaluation and the trace that watches them: every term adds
/// through [`Sum::add`], so the trace sees exactly what the score gets.
pub(crate) struct Sum<'a, T: Trace> {
    /// The weights, per parameter of the layout.
    pub(crate) weights: &'a [[i32; 2]],
    /// Per colour: middlegame and endgame sums.
    pub(crate) score: ByColor<Pair>,
    /// What watches the additions.
    pub(crate) trace: &'a mut T,
}

impl<T: Trace> Sum<'_, T> {
    /// `c` gains `coef` times parameter `id` (nothing when the layout lacks it).
    #[inline(always)]
    pub(crate) fn add(&mut self, c: Color, id: usize, coef: i32) {
        if id == NONE || coef == 0 {
            return;
        }
        let w = self.weights[id];
        let s = &mut self.score[c];
        s.mg += w[0] * coef;
        s.eg += w[1] * coef;
        self.trace.linear(c, id, coef);
    }

    /// `coef` times scalar parameter `id`, noted as an input of the danger sum against
    /// `king`'s king; returns the amount for the caller's sum.
    #[inline(always)]
    pub(crate) fn danger(&mut self, king: Color, id: usize, coef: i32) -> i32 {
        if id == NONE {
            return 0;
        }
        self.trace.danger(king, id, coef);
        self.weights[id][0] * coef
    }
}
