//! The float network the trainer optimises, with its forward pass, its gradient and its
//! export to the engine's quantised [`Network`].
//!
//! The architecture is the engine's (see `engine/src/nnue/mod.rs`): per perspective a hidden
//! layer `h = b1 + Σ W1[f]` over the active inputs `f`, activation `a = clamp(h, 0, 1)²`, and
//! one output `out = w2[..H]·a_stm + w2[H..]·a_other + b2`; the evaluation is `out · 400`
//! centipawns from the side to move's view. All parameters live in one flat `Vec<f32>` so
//! that the optimiser, the checkpoint and the gradient reduction are single loops over it.

use variant_engine::{NET_SCALE, NetError, NetInputs, Network, QA, QB, SplitMix64, Variant};

/// Largest size of a first-layer weight or bias and of an output weight after each step:
/// `1.98 · QB` rounds to 127 (the engine refuses larger output weights) and `1.98 · QA` keeps
/// every `i16` first-layer value at most 505 in size.
pub const CLIP: f32 = 1.98;

/// Lanes of the manual reductions: wide enough for 256-bit vectors, and the compiler keeps
/// the eight partial sums in registers without needing to reorder float additions itself.
const LANES: usize = 8;

/// The float parameters of a network: `W1` (input-major, `inputs · H`), `b1` (`H`), `w2`
/// (`2H`, the side to move's half first) and `b2`, in that order in one vector.
#[derive(Debug, Clone, PartialEq)]
pub struct FloatNet {
    inputs: usize,
    hidden: usize,
    params: Vec<f32>,
}

/// Per-thread buffers of one forward and backward pass, so that no position allocates.
#[derive(Debug, Clone)]
pub struct Scratch {
    h_stm: Vec<f32>,
    h_other: Vec<f32>,
    a_stm: Vec<f32>,
    a_other: Vec<f32>,
}

impl Scratch {
    /// Buffers for a network of `hidden` neurons.
    pub fn new(hidden: usize) -> Self {
        Self {
            h_stm: vec![0.0; hidden],
            h_other: vec![0.0; hidden],
            a_stm: vec![0.0; hidden],
            a_other: vec![0.0; hidden],
        }
    }
}

/// A gradient in the layout of [`FloatNet`]'s parameters. The first layer is sparse in
/// practice (a position touches a few dozen of the inputs' columns), so the columns written
/// since the last [`Gradient::clear`] are listed and only they are reduced and zeroed.
#[derive(Debug, Clone)]
pub struct Gradient {
    hidden: usize,
    inputs: usize,
    values: Vec<f32>,
    touched: Vec<bool>,
    touched_list: Vec<u16>,
}

impl Gradient {
    /// A zero gradient for `net`.
    pub fn new(net: &FloatNet) -> Self {
        Self {
            hidden: net.hidden,
            inputs: net.inputs,
            values: vec![0.0; net.params.len()],
            touched: vec![false; net.inputs],
            touched_list: Vec::new(),
        }
    }

    /// The gradient values, in the parameters' layout.
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Start of the dense part (`b1`, `w2`, `b2`).
    fn dense_start(&self) -> usize {
        self.inputs * self.hidden
    }

    #[inline]
    fn touch(&mut self, f: u16) {
        let slot = &mut self.touched[usize::from(f)];
        if !*slot {
            *slot = true;
            self.touched_list.push(f);
        }
    }

    /// Adds `other` into `self` and leaves `other` zero (the reduction of the per-thread
    /// gradients of a minibatch into the first thread's).
    pub fn absorb(&mut self, other: &mut Self) {
        let h = self.hidden;
        let start = self.dense_start();
        for i in 0..other.touched_list.len() {
            let f = other.touched_list[i];
            let at = usize::from(f) * h;
            let (dst, src) = (&mut self.values[at..at + h], &mut other.values[at..at + h]);
            for (d, s) in dst.iter_mut().zip(src.iter_mut()) {
                *d += *s;
                *s = 0.0;
            }
            other.touched[usize::from(f)] = false;
            self.touch(f);
        }
        other.touched_list.clear();
        for (d, s) in self.values[start..]
            .iter_mut()
            .zip(other.values[start..].iter_mut())
        {
            *d += *s;
            *s = 0.0;
        }
    }

    /// Zeroes the gradient (the touched columns and the dense part only).
    pub fn clear(&mut self) {
        let h = self.hidden;
        for &f in &self.touched_list {
            let at = usize::from(f) * h;
            self.values[at..at + h].fill(0.0);
            self.touched[usize::from(f)] = false;
        }
        self.touched_list.clear();
        let start = self.dense_start();
        self.values[start..].fill(0.0);
    }
}

/// `x` rounded to the nearest multiple of `1/scale` (the export's rounding, in float).
#[inline]
fn snap(x: f32, scale: f32) -> f32 {
    (x * scale).round() / scale
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// `acc = bias + Σ` the columns of `features`.
#[inline]
fn accumulate(w1: &[f32], bias: &[f32], features: &[u16], acc: &mut [f32]) {
    let h = bias.len();
    acc.copy_from_slice(bias);
    for &f in features {
        let at = usize::from(f) * h;
        for (a, &w) in acc.iter_mut().zip(&w1[at..at + h]) {
            *a += w;
        }
    }
}

/// Writes the activations of `acc` into `act` and returns their dot product with `w2`.
#[inline]
fn activate(acc: &[f32], w2: &[f32], act: &mut [f32]) -> f32 {
    for (a, &x) in act.iter_mut().zip(acc) {
        let c = x.clamp(0.0, 1.0);
        *a = c * c;
    }
    let mut lanes = [0.0f32; LANES];
    let (act_chunks, w_chunks) = (act.chunks_exact(LANES), w2.chunks_exact(LANES));
    let (act_rest, w_rest) = (act_chunks.remainder(), w_chunks.remainder());
    for (a, w) in act_chunks.zip(w_chunks) {
        for k in 0..LANES {
            lanes[k] += a[k] * w[k];
        }
    }
    let mut sum: f32 = lanes.iter().sum();
    for (a, w) in act_rest.iter().zip(w_rest) {
        sum += a * w;
    }
    sum
}

/// Turns the hidden values `acc` into `dL/dh` in place, given `dL/dout = g`: `2 g w2 h`
/// inside the activation's linear range, 0 where it is clipped.
#[inline]
fn hidden_delta(acc: &mut [f32], w2: &[f32], g: f32) {
    for (x, &w) in acc.iter_mut().zip(w2) {
        *x = if *x > 0.0 && *x < 1.0 {
            2.0 * g * w * *x
        } else {
            0.0
        };
    }
}

impl FloatNet {
    /// Number of parameters of a network with `inputs` inputs and `hidden` neurons.
    pub fn param_count(inputs: usize, hidden: usize) -> usize {
        inputs * hidden + 3 * hidden + 1
    }

    /// A fresh network, deterministic in `seed`. `typical_active` is the usual number of
    /// active inputs per perspective: first-layer weights are uniform in `±0.5/√n` and biases
    /// uniform in `[0.25, 0.75]`, so a hidden value is about `0.5 ± 0.3` and mostly inside the
    /// activation's linear range `(0, 1)` (a network whose neurons all sit clipped would
    /// have a zero gradient). Output weights are uniform in `±0.5/√H`, giving an initial
    /// output of some tens of centipawns; `b2` is 0.
    pub fn new(inputs: usize, hidden: usize, seed: u64, typical_active: f32) -> Self {
        let mut rng = SplitMix64(seed ^ 0x6e6e_7565_5f69_6e69);
        let mut uniform = |lo: f32, hi: f32| {
            // 24 random bits: every float in [0, 1) this produces is exact.
            let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            lo + (hi - lo) * unit
        };
        let w1_scale = 0.5 / typical_active.max(1.0).sqrt();
        let w2_scale = 0.5 / (hidden.max(1) as f32).sqrt();
        let mut params = Vec::with_capacity(Self::param_count(inputs, hidden));
        params.extend((0..inputs * hidden).map(|_| uniform(-w1_scale, w1_scale)));
        params.extend((0..hidden).map(|_| uniform(0.25, 0.75)));
        params.extend((0..2 * hidden).map(|_| uniform(-w2_scale, w2_scale)));
        params.push(0.0);
        Self {
            inputs,
            hidden,
            params,
        }
    }

    /// A network from its flat parameters (a checkpoint), `None` when the length does not
    /// match the sizes.
    pub fn from_params(inputs: usize, hidden: usize, params: Vec<f32>) -> Option<Self> {
        (params.len() == Self::param_count(inputs, hidden)).then_some(Self {
            inputs,
            hidden,
            params,
        })
    }

    /// The float image of an exported network: every quantised parameter divided by its
    /// export scale, so that exporting it again gives back the same file.
    pub fn from_network(net: &Network) -> Self {
        let (w1, b1, w2, b2) = net.layers();
        let (qa, qb) = (QA as f32, QB as f32);
        let mut params = Vec::with_capacity(w1.len() + b1.len() + w2.len() + 1);
        params.extend(w1.iter().map(|&w| f32::from(w) / qa));
        params.extend(b1.iter().map(|&b| f32::from(b) / qa));
        params.extend(w2.iter().map(|&w| f32::from(w) / qb));
        params.push((f64::from(b2) / (f64::from(QA) * f64::from(QB))) as f32);
        Self {
            inputs: net.inputs().count(),
            hidden: net.hidden(),
            params,
        }
    }

    /// This network with `hidden` neurons per perspective (at least its own), computing the
    /// same function: the new neurons' first-layer weights and biases are drawn as
    /// [`Self::new`] draws them (deterministic in `seed`), and their output weights are 0,
    /// so they change nothing until training moves those. A trained network given room to
    /// learn more, instead of a wider one started from random weights. `None` when `hidden`
    /// is smaller than the network's (or the network has no neurons).
    pub fn widen(&self, hidden: usize, seed: u64, typical_active: f32) -> Option<Self> {
        let old = self.hidden;
        if hidden < old || old == 0 {
            return None;
        }
        let fresh = Self::new(self.inputs, hidden, seed, typical_active);
        let (w1, b1, w2, b2) = self.layers();
        let (fw1, fb1, _, _) = fresh.layers();
        let mut params = Vec::with_capacity(Self::param_count(self.inputs, hidden));
        for (row, fresh_row) in w1.chunks_exact(old).zip(fw1.chunks_exact(hidden)) {
            params.extend_from_slice(row);
            params.extend_from_slice(&fresh_row[old..]);
        }
        params.extend_from_slice(b1);
        params.extend_from_slice(&fb1[old..]);
        // Output weights per perspective: the side to move's, then the other side's.
        for half in w2.chunks_exact(old) {
            params.extend_from_slice(half);
            params.extend(std::iter::repeat_n(0.0, hidden - old));
        }
        params.push(b2);
        Self::from_params(self.inputs, hidden, params)
    }

    /// Inputs per perspective.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Hidden neurons per perspective.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// All parameters, flat (`W1`, `b1`, `w2`, `b2`).
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// All parameters, flat, for the optimiser and the tests.
    pub fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }

    /// Index of the first `b1` parameter (after `W1`).
    pub fn b1_offset(&self) -> usize {
        self.inputs * self.hidden
    }

    /// Index of the first `w2` parameter.
    pub fn w2_offset(&self) -> usize {
        self.b1_offset() + self.hidden
    }

    /// Index of `b2`, the last parameter.
    pub fn b2_offset(&self) -> usize {
        self.w2_offset() + 2 * self.hidden
    }

    /// The layers as slices: `(W1, b1, w2, b2)`.
    fn layers(&self) -> (&[f32], &[f32], &[f32], f32) {
        let (w1, rest) = self.params.split_at(self.b1_offset());
        let (b1, rest) = rest.split_at(self.hidden);
        let (w2, b2) = rest.split_at(2 * self.hidden);
        (w1, b1, w2, b2[0])
    }

    /// The output `out` (before the `× 400`) of the position whose active inputs are `stm`
    /// (the side to move's perspective) and `other`. Inputs must be below [`Self::inputs`].
    pub fn forward(&self, stm: &[u16], other: &[u16], s: &mut Scratch) -> f32 {
        let (w1, b1, w2, b2) = self.layers();
        let (w_stm, w_other) = w2.split_at(self.hidden);
        accumulate(w1, b1, stm, &mut s.h_stm);
        accumulate(w1, b1, other, &mut s.h_other);
        activate(&s.h_stm, w_stm, &mut s.a_stm) + activate(&s.h_other, w_other, &mut s.a_other) + b2
    }

    /// The evaluation in centipawns from the side to move's view (`out · 400`).
    pub fn evaluate(&self, stm: &[u16], other: &[u16], s: &mut Scratch) -> f32 {
        self.forward(stm, other, s) * NET_SCALE as f32
    }

    /// The loss `(sigmoid(base + out) - target)²` of one position; adds its gradient to
    /// `grad`. `base` is 0, or a residual network's hand-written evaluation in output units.
    pub fn backward(
        &self,
        stm: &[u16],
        other: &[u16],
        target: f32,
        base: f32,
        s: &mut Scratch,
        grad: &mut Gradient,
    ) -> f32 {
        let out = base + self.forward(stm, other, s);
        let p = sigmoid(out);
        let e = p - target;
        // d(e²)/d out = 2 e · p (1 - p).
        let g = 2.0 * e * p * (1.0 - p);
        let h = self.hidden;
        let (_, _, w2, _) = self.layers();
        let (w_stm, w_other) = w2.split_at(h);
        let b1_at = self.b1_offset();
        let w2_at = self.w2_offset();
        let b2_at = self.b2_offset();
        {
            let (gw2_stm, gw2_other) = grad.values[w2_at..b2_at].split_at_mut(h);
            for (gw, &a) in gw2_stm.iter_mut().zip(&s.a_stm) {
                *gw += g * a;
            }
            for (gw, &a) in gw2_other.iter_mut().zip(&s.a_other) {
                *gw += g * a;
            }
        }
        grad.values[b2_at] += g;
        hidden_delta(&mut s.h_stm, w_stm, g);
        hidden_delta(&mut s.h_other, w_other, g);
        for ((gb, &ds), &d_o) in grad.values[b1_at..w2_at]
            .iter_mut()
            .zip(&s.h_stm)
            .zip(&s.h_other)
        {
            *gb += ds + d_o;
        }
        for (features, delta) in [(stm, &s.h_stm), (other, &s.h_other)] {
            for &f in features {
                grad.touch(f);
                let at = usize::from(f) * h;
                for (gw, &d) in grad.values[at..at + h].iter_mut().zip(delta.iter()) {
                    *gw += d;
                }
            }
        }
        e * e
    }

    /// Clips every parameter except `b2` to `±CLIP` (see [`CLIP`]).
    pub fn clip(&mut self) {
        let b2 = self.b2_offset();
        for p in &mut self.params[..b2] {
            *p = p.clamp(-CLIP, CLIP);
        }
    }

    /// This network with every parameter moved to the nearest value the export can
    /// represent (`W1` and `b1` to multiples of `1/QA`, `w2` to `1/QB`, `b2` to
    /// `1/(QA · QB)`): the float image of the exported network, whose evaluation equals the
    /// engine's up to the engine's one integer division, so its loss is the exported
    /// network's loss.
    #[must_use]
    pub fn quantised(&self) -> Self {
        let mut q = self.clone();
        let qa = QA as f32;
        let (w2_at, b2_at) = (self.w2_offset(), self.b2_offset());
        q.params[..w2_at].iter_mut().for_each(|x| *x = snap(*x, qa));
        q.snap_output_weights();
        q.params[b2_at] = snap(q.params[b2_at], qa * QB as f32);
        q
    }

    /// Moves the output weights `w2` to the export's grid (multiples of `1/QB`), leaving
    /// the rest: the start of the quantisation-aware phase, in which they stay there.
    pub fn snap_output_weights(&mut self) {
        let range = self.w2_offset()..self.b2_offset();
        for x in &mut self.params[range] {
            *x = snap(*x, QB as f32);
        }
    }

    /// The quantised network for `variant` with the inputs `inputs`: `W1` and `b1` times
    /// [`QA`], `w2` times [`QB`], `b2` times `QA · QB`, each rounded to the nearest integer;
    /// `residual` flags it as a correction to the hand-written evaluation.
    ///
    /// # Errors
    /// [`NetError`] when the sizes do not fit `variant` or `inputs`, or an output weight is
    /// out of range (the clipping after every step keeps them in range).
    pub fn export(
        &self,
        variant: &Variant,
        inputs: NetInputs,
        residual: bool,
    ) -> Result<Network, NetError> {
        let (w1, b1, w2, b2) = self.layers();
        let qa = QA as f32;
        let to_i16 = |x: f32, scale: f32| (x * scale).round() as i16;
        Network::from_parts(
            variant,
            inputs,
            self.hidden,
            w1.iter().map(|&w| to_i16(w, qa)).collect(),
            b1.iter().map(|&b| to_i16(b, qa)).collect(),
            w2.iter().map(|&w| to_i16(w, QB as f32)).collect(),
            (f64::from(b2) * f64::from(QA) * f64::from(QB)).round() as i32,
            residual,
        )
    }
}
