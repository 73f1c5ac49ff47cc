//! The optimisation: Adam over all parameters, the learning-rate schedule, and minibatch
//! gradients computed data-parallel over a few threads (each with its own gradient buffer,
//! reduced into the first thread's before the step).

use std::f64::consts::PI;

use crate::data::Dataset;
use crate::net::{FloatNet, Gradient, Scratch};

/// Adam's first-moment decay.
const BETA1: f32 = 0.9;
/// Adam's second-moment decay.
const BETA2: f32 = 0.999;
/// Adam's denominator guard.
const EPSILON: f32 = 1e-8;
/// The learning rate of the last epoch as a share of the first's.
const FINAL_LR_SHARE: f64 = 0.05;

/// The learning rate of epoch `epoch` (0-based) of `epochs`: cosine decay from `base` at the
/// first epoch towards `5 %` of it, constant within an epoch. Smooth decay needs no tuned
/// step epochs, and it depends on the epoch alone, so a resumed run continues on the curve.
pub fn learning_rate(base: f32, epoch: usize, epochs: usize) -> f32 {
    let progress = epoch as f64 / epochs.max(1) as f64;
    let share = FINAL_LR_SHARE + (1.0 - FINAL_LR_SHARE) * 0.5 * (1.0 + (PI * progress).cos());
    (f64::from(base) * share) as f32
}

/// Adam's state: dense first and second moments for every parameter and the step count.
#[derive(Debug, Clone, PartialEq)]
pub struct Adam {
    /// First moments.
    pub m: Vec<f32>,
    /// Second moments.
    pub v: Vec<f32>,
    /// Steps taken (for the bias correction).
    pub step: u64,
}

impl Adam {
    /// Zero moments for `n` parameters.
    pub fn new(n: usize) -> Self {
        Self {
            m: vec![0.0; n],
            v: vec![0.0; n],
            step: 0,
        }
    }

    /// One step on `net` with gradient `grad · scale` and learning rate `lr`, then clips the
    /// weights (see [`crate::net::CLIP`]). The parameters in `frozen` keep their values
    /// (their moments still follow the gradient, which is never used while they are frozen).
    pub fn update(
        &mut self,
        net: &mut FloatNet,
        grad: &[f32],
        scale: f32,
        lr: f32,
        frozen: Option<std::ops::Range<usize>>,
    ) {
        let kept: Option<Vec<f32>> = frozen.clone().map(|r| net.params()[r].to_vec());
        self.step += 1;
        let t = self.step.min(i32::MAX as u64) as i32;
        let correction1 = 1.0 - f64::from(BETA1).powi(t);
        let correction2 = 1.0 - f64::from(BETA2).powi(t);
        let step_size = (f64::from(lr) * correction2.sqrt() / correction1) as f32;
        for (((p, &g), m), v) in net
            .params_mut()
            .iter_mut()
            .zip(grad)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            let g = g * scale;
            *m = BETA1 * *m + (1.0 - BETA1) * g;
            *v = BETA2 * *v + (1.0 - BETA2) * g * g;
            *p -= step_size * *m / (v.sqrt() + EPSILON);
        }
        net.clip();
        if let (Some(range), Some(kept)) = (frozen, kept) {
            net.params_mut()[range].copy_from_slice(&kept);
        }
    }
}

/// One thread's buffers.
#[derive(Debug, Clone)]
struct Worker {
    grad: Gradient,
    scratch: Scratch,
    loss: f64,
}

/// The network, its optimiser and the per-thread buffers.
#[derive(Debug)]
pub struct Trainer {
    /// The network being trained.
    pub net: FloatNet,
    /// Its optimiser state.
    pub adam: Adam,
    workers: Vec<Worker>,
    /// Whether the output weights are held (see [`Self::hold_output_weights`]).
    output_held: bool,
}

/// Sum of the losses of `indices` (and their gradient into `grad`, when given).
fn pass(
    net: &FloatNet,
    data: &Dataset,
    lambda: f32,
    indices: &[u32],
    scratch: &mut Scratch,
    mut grad: Option<&mut Gradient>,
) -> f64 {
    let mut loss = 0.0f64;
    for &i in indices {
        let i = i as usize;
        let (stm, other) = data.features(i);
        let target = data.target(i, lambda);
        let base = data.base(i);
        loss += f64::from(if let Some(g) = grad.as_deref_mut() {
            net.backward(stm, other, target, base, scratch, g)
        } else {
            let e = crate::net::sigmoid(base + net.forward(stm, other, scratch)) - target;
            e * e
        });
    }
    loss
}

impl Trainer {
    /// A trainer of `net` with `adam`'s state, computing on `threads` threads (at least 1).
    pub fn new(net: FloatNet, adam: Adam, threads: usize) -> Self {
        let worker = Worker {
            grad: Gradient::new(&net),
            scratch: Scratch::new(net.hidden()),
            loss: 0.0,
        };
        Self {
            workers: vec![worker; threads.max(1)],
            net,
            adam,
            output_held: false,
        }
    }

    /// Runs `work` on each worker with its share of `indices`, on scoped threads when there
    /// is more than one share; returns the workers' summed losses.
    fn parallel(
        workers: &mut [Worker],
        indices: &[u32],
        work: &(dyn Fn(&[u32], &mut Worker) -> f64 + Sync),
    ) -> f64 {
        let share = indices.len().div_ceil(workers.len()).max(1);
        if indices.len() <= share {
            return work(indices, &mut workers[0]);
        }
        std::thread::scope(|s| {
            for (w, chunk) in workers.iter_mut().zip(indices.chunks(share)) {
                s.spawn(move || w.loss = work(chunk, w));
            }
        });
        let n = indices.len().div_ceil(share);
        workers[..n].iter().map(|w| w.loss).sum()
    }

    /// The gradient of the summed loss of `indices`, reduced into the first worker's buffer,
    /// and the summed loss.
    fn gradient(&mut self, data: &Dataset, lambda: f32, indices: &[u32]) -> (f64, &Gradient) {
        let net = &self.net;
        let loss = Self::parallel(&mut self.workers, indices, &|chunk, w| {
            pass(net, data, lambda, chunk, &mut w.scratch, Some(&mut w.grad))
        });
        let (first, rest) = self.workers.split_at_mut(1);
        for w in rest {
            first[0].grad.absorb(&mut w.grad);
        }
        (loss, &self.workers[0].grad)
    }

    /// The summed loss of `indices` and its gradient (the gradient check's entry point); the
    /// buffers are cleared before the next call.
    pub fn loss_and_gradient(
        &mut self,
        data: &Dataset,
        lambda: f32,
        indices: &[u32],
    ) -> (f64, Vec<f32>) {
        let (loss, grad) = self.gradient(data, lambda, indices);
        let values = grad.values().to_vec();
        self.workers[0].grad.clear();
        (loss, values)
    }

    /// Moves the output weights to the export's grid and holds them there in every later
    /// epoch, so that the first layer and the output bias learn to fit the weights the engine
    /// will use (quantisation-aware training of the layer whose rounding costs most).
    pub fn hold_output_weights(&mut self) {
        self.net.snap_output_weights();
        self.output_held = true;
    }

    /// One epoch over `order` in minibatches of `batch` positions, each followed by an Adam
    /// step of the mean loss's gradient at learning rate `lr` (the output weights kept where
    /// they are once [`Self::hold_output_weights`] was called). Returns the mean loss (each
    /// batch's measured before its step).
    pub fn epoch(
        &mut self,
        data: &Dataset,
        lambda: f32,
        order: &[u32],
        batch: usize,
        lr: f32,
    ) -> f64 {
        let frozen = self
            .output_held
            .then(|| self.net.w2_offset()..self.net.b2_offset());
        let mut total = 0.0;
        for indices in order.chunks(batch.max(1)) {
            let (loss, _) = self.gradient(data, lambda, indices);
            total += loss;
            let grad = self.workers[0].grad.values();
            self.adam.update(
                &mut self.net,
                grad,
                1.0 / indices.len() as f32,
                lr,
                frozen.clone(),
            );
            self.workers[0].grad.clear();
        }
        total / order.len().max(1) as f64
    }

    /// [`Self::loss`] of the network as the engine will read it: every weight rounded as
    /// the export rounds it (see [`FloatNet::quantised`]).
    pub fn quantised_loss(&mut self, data: &Dataset, lambda: f32, indices: &[u32]) -> f64 {
        let quantised = self.net.quantised();
        let float = std::mem::replace(&mut self.net, quantised);
        let loss = self.loss(data, lambda, indices);
        self.net = float;
        loss
    }

    /// The mean loss of `indices` (no gradient), `NaN` when there are none.
    pub fn loss(&mut self, data: &Dataset, lambda: f32, indices: &[u32]) -> f64 {
        if indices.is_empty() {
            return f64::NAN;
        }
        let net = &self.net;
        let sum = Self::parallel(&mut self.workers, indices, &|chunk, w| {
            pass(net, data, lambda, chunk, &mut w.scratch, None)
        });
        sum / indices.len() as f64
    }
}
