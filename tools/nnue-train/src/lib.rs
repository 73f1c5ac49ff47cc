//! `nnue-train`: trains the engine's NNUE evaluation for one variant on the CPU, from the
//! self-play data files `variant-engine datagen` writes, and exports the quantised network
//! the engine loads.
//!
//! ```text
//! nnue-train --variant opulent --data a.bin [--data b.bin ...] --out opulent.nnue \
//!     [--hidden 128] [--epochs 30] [--batch 16384] [--lr 0.001] [--lambda 0.7] \
//!     [--validation 0.05] [--threads 2] [--seed 1] [--checkpoint FILE] [--resume] \
//!     [--loss-csv FILE] [--max-positions N] [--residual] [--king-window] [--qat-epochs N] \
//!     [--init NET]
//! ```
//!
//! **Data.** Every position of every file is loaded into memory (the files must all be of
//! `--variant`); a hash of (seed, block of [`data::SPLIT_BLOCK`] consecutive positions, so
//! whole games) holds out the `--validation` share.
//!
//! **Loss.** The network's prediction is `sigmoid(out)`, where `out · 400` is its evaluation
//! in centipawns from the side to move's view; the target is
//! `λ · sigmoid(score / 400) + (1 - λ) · result`, the search score and the game's result
//! (0, ½, 1) both from the side to move's view, `λ` = `--lambda`. The loss is the mean
//! squared difference.
//!
//! **Optimisation.** Adam (β₁ 0.9, β₂ 0.999, ε 1e-8) with dense moments, on minibatches of
//! `--batch` positions in an order shuffled per epoch, each minibatch's gradient computed
//! over `--threads` threads. The learning rate follows a cosine decay per epoch from `--lr`
//! to 5 % of it. After each step the first-layer weights and biases and the output weights
//! are clipped to ±1.98, which keeps the quantised output weights within the engine's ±127.
//! A first-layer value is then at most 505 in size, so a plain network's `i16` accumulator
//! (at most about 53 active inputs and the bias on a 10x10 board) cannot overflow. With king
//! windows up to about 70 inputs are active, so only weights near the clip, all of one sign,
//! could overflow it; trained weights stay far below (the engine's sums wrap rather than
//! panic, and the trainer's quantisation check would show such a mismatch).
//!
//! **Quantisation-aware epochs.** `--qat-epochs N` adds N epochs at the last epoch's learning
//! rate in which the output weights are rounded to the export's grid of `1/QB` and held
//! there, while the first layer and the output bias train on, so that they fit the output
//! weights the engine will use (rounding the output weights is most of the exported network's
//! loss; the first layer's finer grid of `1/QA` costs little).
//!
//! **Output files**, all rewritten after every epoch, so an interrupted run leaves a usable
//! network and can be resumed:
//! - `--out`: the quantised network (the engine's `VNNUE001` format);
//! - `--checkpoint` (default `OUT.ckpt`): float weights, Adam state and epochs done, which
//!   `--resume` continues from;
//! - `--loss-csv` (optional): one line per epoch, `epoch,lr,train_loss,validation_loss,
//!   seconds,positions_per_second`, after a header line.
//!
//! At the end the run reports the validation loss of the float network and of the exported
//! one (every weight rounded as the export rounds it), and the quantisation error: over up to
//! 2000 validation positions, the largest and the mean difference in centipawns between the
//! engine's integer evaluation of the exported network and the float network's.

pub mod checkpoint;
pub mod data;
pub mod net;
pub mod train;

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use variant_engine::{
    DataError, HandEval, NetError, NetInputs, Network, Registry, SplitMix64, UnknownVariant,
    Variant,
};

use crate::checkpoint::{Checkpoint, CheckpointError, write_atomically};
use crate::data::{Dataset, Split};
use crate::net::{FloatNet, Scratch};
use crate::train::{Adam, Trainer, learning_rate};

/// Validation positions kept whole for the quantisation check.
const QUANTISATION_SAMPLES: usize = 2000;

/// Why training could not run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// The variant is not built in.
    #[error(transparent)]
    Variant(#[from] UnknownVariant),
    /// A file could not be opened, read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A data file is malformed.
    #[error("{}: {source}", path.display())]
    Data {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: DataError,
    },
    /// A data file is for another variant.
    #[error("{}: the data is for {found}, not {expected}", path.display())]
    WrongVariant {
        /// The file.
        path: PathBuf,
        /// The variant its header names.
        found: String,
        /// `--variant`.
        expected: String,
    },
    /// A record does not fit the variant.
    #[error("{}: record ending at byte {offset}: {why}", path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// Byte offset after the record.
        offset: u64,
        /// What is wrong.
        why: &'static str,
    },
    /// The variant's inputs do not fit `u16` indices.
    #[error("{0} inputs per perspective is more than the trainer's u16 indices hold")]
    TooManyInputs(usize),
    /// No training positions.
    #[error("no training positions (the data files hold {0} positions in all)")]
    NoData(usize),
    /// A checkpoint could not be read, or does not fit this run.
    #[error("checkpoint {}: {why}", path.display())]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The network could not be exported.
    #[error("export: {0}")]
    Export(#[from] NetError),
    /// The `--init` network cannot be read or does not fit this run.
    #[error("--init {}: {why}", path.display())]
    Init {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// An option is out of range.
    #[error("{0}")]
    Option(String),
}

/// The command line.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "nnue-train",
    version,
    about = "Train an NNUE network for a chess variant"
)]
pub struct Options {
    /// The variant (a built-in name, e.g. `opulent`).
    #[arg(long)]
    pub variant: String,
    /// A training data file (repeat for several).
    #[arg(long = "data", required = true)]
    pub data: Vec<PathBuf>,
    /// Where to write the quantised network.
    #[arg(long)]
    pub out: PathBuf,
    /// Hidden neurons per perspective.
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// Epochs to train.
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Quantisation-aware epochs after `--epochs`: the output weights are rounded to the
    /// export's grid and held there while the first layer and the output bias train on at
    /// the last epoch's learning rate.
    #[arg(long, default_value_t = 0)]
    pub qat_epochs: usize,
    /// Positions per minibatch.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Initial learning rate.
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Weight of the search score in the target (the game's result has the rest).
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f32,
    /// Share of positions held out for validation.
    #[arg(long, default_value_t = 0.05)]
    pub validation: f64,
    /// Threads computing each minibatch's gradient.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Seed of the initialisation, the validation split and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Checkpoint file (default: OUT with `.ckpt` appended).
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint.
    #[arg(long)]
    pub resume: bool,
    /// Start from this exported network (its weights as the export holds them) instead of
    /// random weights: a next generation fine-tuned on new data. It must be for
    /// `--variant`, with the same inputs (`--king-window`), the same `--residual` and at
    /// most `--hidden` neurons: a smaller network is widened, its new neurons' output
    /// weights 0 so that training starts from the same evaluation.
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    pub init: Option<PathBuf>,
    /// Append per-epoch losses to this CSV file.
    #[arg(long)]
    pub loss_csv: Option<PathBuf>,
    /// Load at most this many positions.
    #[arg(long)]
    pub max_positions: Option<usize>,
    /// Train a residual network: a correction added to the hand-written evaluation (the
    /// loss sees their sum), flagged as such in the file.
    #[arg(long)]
    pub residual: bool,
    /// Add king-window inputs: each piece near a perspective's own king also by its offset
    /// from that king (the engine's `WINDOW_RADIUS`).
    #[arg(long)]
    pub king_window: bool,
}

impl Options {
    fn check(&self) -> Result<(), TrainError> {
        let bad = |s: &str| Err(TrainError::Option(s.to_owned()));
        if self.hidden == 0 || self.hidden > 1024 {
            return bad("--hidden must be 1..=1024 (the engine's limit)");
        }
        if self.batch == 0 || self.threads == 0 || self.epochs == 0 {
            return bad("--batch, --threads and --epochs must be positive");
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad("--lambda must be in [0, 1]");
        }
        if !(0.0..1.0).contains(&self.validation) {
            return bad("--validation must be in [0, 1)");
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return bad("--lr must be positive");
        }
        Ok(())
    }

    fn checkpoint_path(&self) -> PathBuf {
        self.checkpoint.clone().unwrap_or_else(|| {
            let mut p = self.out.as_os_str().to_owned();
            p.push(".ckpt");
            PathBuf::from(p)
        })
    }
}

/// The training order of an epoch: the training positions shuffled (Fisher-Yates) by a
/// generator seeded from the run's seed and the epoch.
pub fn shuffled(indices: &[u32], seed: u64, epoch: usize) -> Vec<u32> {
    let mut order = indices.to_vec();
    let mut rng = SplitMix64(seed ^ (epoch as u64 + 1).wrapping_mul(0xa076_1d64_78bd_642f));
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
}

/// The largest and the mean difference, in centipawns, between the engine's evaluation of
/// `net`'s export and `net`'s float evaluation over `samples`.
///
/// # Errors
/// [`TrainError::Export`] when the network cannot be exported or read back.
pub fn quantisation_error(
    net: &FloatNet,
    variant: &std::sync::Arc<Variant>,
    inputs: NetInputs,
    samples: &[variant_engine::PackedPosition],
) -> Result<(f64, f64), TrainError> {
    // Through the file form, as the engine will load it.
    let quantised = Network::from_bytes(&net.export(variant, inputs, false)?.to_bytes(), variant)?;
    let mut data = Dataset::new(variant, inputs)?;
    let mut scratch = Scratch::new(net.hidden());
    let (mut max, mut sum, mut n) = (0.0f64, 0.0f64, 0usize);
    for p in samples {
        if data.push(p).is_err() {
            continue;
        }
        let (stm, other) = data.features(data.len() - 1);
        let float = f64::from(net.evaluate(stm, other, &mut scratch));
        let engine = f64::from(quantised.evaluate_position(&p.to_position(variant)));
        let diff = (engine - float).abs();
        max = max.max(diff);
        sum += diff;
        n += 1;
    }
    Ok((max, if n == 0 { 0.0 } else { sum / n as f64 }))
}

fn io_error(path: &std::path::Path) -> impl FnOnce(io::Error) -> TrainError + '_ {
    move |source| TrainError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Quantises `net` and writes it to `--out` (atomically, so a stopped run leaves a whole file).
fn write_network(
    net: &FloatNet,
    variant: &Variant,
    inputs: NetInputs,
    opts: &Options,
) -> Result<(), TrainError> {
    let bytes = net.export(variant, inputs, opts.residual)?.to_bytes();
    write_atomically(&opts.out, &bytes).map_err(io_error(&opts.out))
}

/// Opens the loss CSV: appended to on a resumed run, started afresh otherwise, with the
/// header line whenever the file is empty.
fn open_csv(path: &std::path::Path, resume: bool) -> Result<File, TrainError> {
    let mut file = OpenOptions::new()
        .create(true)
        .append(resume)
        .write(true)
        .truncate(!resume)
        .open(path)
        .map_err(io_error(path))?;
    let empty = file.metadata().map_err(io_error(path))?.len() == 0;
    if empty {
        writeln!(
            file,
            "epoch,lr,train_loss,validation_loss,seconds,positions_per_second"
        )
        .map_err(io_error(path))?;
    }
    Ok(file)
}

/// The `--init` network's float image, refused unless it is `variant`'s with the run's
/// inputs and residual flag and at most `--hidden` neurons (a smaller one is widened when
/// training starts).
fn initial_network(
    path: &std::path::Path,
    variant: &Variant,
    inputs: NetInputs,
    opts: &Options,
) -> Result<FloatNet, TrainError> {
    let refuse = |why: String| TrainError::Init {
        path: path.to_path_buf(),
        why,
    };
    let bytes = std::fs::read(path).map_err(|e| refuse(e.to_string()))?;
    let net = Network::from_bytes(&bytes, variant).map_err(|e| refuse(e.to_string()))?;
    let with = |windows: bool| if windows { "king-window" } else { "plain" };
    if net.inputs() != inputs || net.hidden() > opts.hidden || net.residual() != opts.residual {
        return Err(refuse(format!(
            "it has {} inputs, {} hidden neurons and residual {}; this run {}, at most {} and {}",
            with(net.inputs().windowed()),
            net.hidden(),
            net.residual(),
            with(inputs.windowed()),
            opts.hidden,
            opts.residual
        )));
    }
    Ok(FloatNet::from_network(&net))
}

/// The trainer to start from: the checkpoint's on `--resume`, the `--init` network
/// (`initial`) or a fresh one otherwise.
fn start(
    opts: &Options,
    variant: &Variant,
    inputs: usize,
    initial: Option<FloatNet>,
    mean_active: f32,
) -> Result<(Trainer, usize), TrainError> {
    let path = opts.checkpoint_path();
    if !opts.resume {
        let net = match initial {
            // Checked against `--hidden` when it was read.
            Some(net) => net
                .widen(opts.hidden, opts.seed, mean_active)
                .ok_or_else(|| {
                    TrainError::Option(format!("--init: cannot widen to {}", opts.hidden))
                })?,
            None => FloatNet::new(inputs, opts.hidden, opts.seed, mean_active),
        };
        let adam = Adam::new(net.params().len());
        return Ok((Trainer::new(net, adam, opts.threads), 0));
    }
    let refuse = |why: String| TrainError::Checkpoint {
        path: path.clone(),
        why,
    };
    let ckpt = Checkpoint::load(&path).map_err(|e| match e {
        CheckpointError::Io(e) => refuse(e.to_string()),
        CheckpointError::Format => refuse(e.to_string()),
    })?;
    if ckpt.variant != variant.name()
        || ckpt.net.inputs() != inputs
        || ckpt.net.hidden() != opts.hidden
    {
        return Err(refuse(format!(
            "made for {} with {} inputs and {} hidden neurons, not {} with {inputs} and {}",
            ckpt.variant,
            ckpt.net.inputs(),
            ckpt.net.hidden(),
            variant.name(),
            opts.hidden
        )));
    }
    println!("resuming after epoch {}", ckpt.epochs_done);
    Ok((
        Trainer::new(ckpt.net, ckpt.adam, opts.threads),
        ckpt.epochs_done as usize,
    ))
}

/// Runs the whole command: load, train, write the files, report.
///
/// # Errors
/// [`TrainError`] for bad options, unreadable or mismatched data, or a file that cannot be
/// written.
pub fn run(opts: &Options) -> Result<(), TrainError> {
    opts.check()?;
    let variant = Registry::builtin().get(&opts.variant)?;
    let net_inputs = if opts.king_window {
        NetInputs::king_window(&variant).ok_or_else(|| {
            TrainError::Option(format!(
                "--king-window: {} has no royal king",
                variant.name()
            ))
        })?
    } else {
        NetInputs::plain(&variant)
    };
    // Checked before the data is loaded, which can take a while.
    let initial = opts
        .init
        .as_ref()
        .map(|path| initial_network(path, &variant, net_inputs, opts))
        .transpose()?;
    let split = Split {
        seed: opts.seed,
        fraction: opts.validation,
    };
    let started = Instant::now();
    let loaded = data::load(
        &opts.data,
        &variant,
        opts.max_positions,
        split,
        QUANTISATION_SAMPLES,
        opts.residual.then(|| HandEval::new(&variant)).as_ref(),
        net_inputs,
    )?;
    let data = loaded.data;
    let (valid, train): (Vec<u32>, Vec<u32>) =
        (0..data.len() as u32).partition(|&i| split.is_validation(i as usize));
    println!(
        "loaded {} positions ({} training, {} validation, {:.1} inputs active per side) in {:.1} s",
        data.len(),
        train.len(),
        valid.len(),
        data.mean_active(),
        started.elapsed().as_secs_f64()
    );
    if train.is_empty() {
        return Err(TrainError::NoData(data.len()));
    }
    let (mut trainer, first_epoch) = start(
        opts,
        &variant,
        net_inputs.count(),
        initial,
        data.mean_active(),
    )?;
    let ckpt_path = opts.checkpoint_path();
    let mut csv = match &opts.loss_csv {
        Some(p) => Some((open_csv(p, opts.resume)?, p)),
        None => None,
    };
    if first_epoch == 0 {
        println!(
            "epoch 0: validation loss {:.6} (initial)",
            trainer.loss(&data, opts.lambda, &valid)
        );
    }
    let total_epochs = opts.epochs + opts.qat_epochs;
    for epoch in first_epoch..total_epochs {
        let t0 = Instant::now();
        let aware = epoch >= opts.epochs;
        let lr = learning_rate(opts.lr, epoch.min(opts.epochs - 1), opts.epochs);
        let order = shuffled(&train, opts.seed, epoch);
        if aware {
            trainer.hold_output_weights();
        }
        let train_loss = trainer.epoch(&data, opts.lambda, &order, opts.batch, lr);
        let train_secs = t0.elapsed().as_secs_f64();
        let valid_loss = trainer.loss(&data, opts.lambda, &valid);
        let secs = t0.elapsed().as_secs_f64();
        let rate = train.len() as f64 / train_secs.max(1e-9);
        println!(
            "epoch {}{}: lr {lr:.6} train loss {train_loss:.6} validation loss {valid_loss:.6} \
             {secs:.1} s {rate:.0} positions/s",
            epoch + 1,
            if aware { " (quantisation-aware)" } else { "" }
        );
        if let Some((file, path)) = &mut csv {
            writeln!(
                file,
                "{},{lr},{train_loss},{valid_loss},{secs:.3},{rate:.0}",
                epoch + 1
            )
            .map_err(io_error(path))?;
        }
        Checkpoint {
            variant: variant.name().to_owned(),
            net: trainer.net.clone(),
            adam: trainer.adam.clone(),
            epochs_done: (epoch + 1) as u32,
        }
        .save(&ckpt_path)
        .map_err(io_error(&ckpt_path))?;
        write_network(&trainer.net, &variant, net_inputs, opts)?;
    }
    if first_epoch >= total_epochs {
        // Nothing left to train: still leave the checkpoint's network at --out.
        write_network(&trainer.net, &variant, net_inputs, opts)?;
    }
    // The loss the exported network itself has: the rounding's cost in the loss's terms,
    // to weigh against the gain of a generation.
    let float_loss = trainer.loss(&data, opts.lambda, &valid);
    let quantised_loss = trainer.quantised_loss(&data, opts.lambda, &valid);
    println!("validation loss {float_loss:.6}, of the quantised network {quantised_loss:.6}");
    let (max, mean) = quantisation_error(&trainer.net, &variant, net_inputs, &loaded.samples)?;
    println!(
        "quantisation error over {} validation positions: max {max:.2} cp, mean {mean:.2} cp",
        loaded.samples.len()
    );
    println!("wrote {}", opts.out.display());
    Ok(())
}
