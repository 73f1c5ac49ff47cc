//! The training positions in memory: for each position its side to move, its score and
//! result from the side to move's view, and its active inputs from both perspectives as
//! `u16` indices in one flat vector (the side to move's list first). About 170 bytes per
//! 10x10 middlegame position (about 60 more with king windows), so a few million positions
//! fit comfortably, and an epoch reads them without decoding records again.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use variant_engine::{
    Color, DataError, DataReader, HandEval, NET_SCALE, NetInputs, PackedPosition, Record,
    SplitMix64, Variant, data_features, decode_piece,
};

use crate::TrainError;

/// Positions with their inputs and labels (see the module documentation).
#[derive(Debug, Clone)]
pub struct Dataset {
    ranks: u8,
    files: u8,
    kinds: usize,
    /// The engine network's input space.
    net_inputs: NetInputs,
    /// Inputs per perspective (`net_inputs.count()`).
    inputs: usize,
    sides: Vec<u8>,
    scores: Vec<i16>,
    results: Vec<u8>,
    /// Per position, what the output is added to before the sigmoid: 0, or for a residual
    /// network the hand-written evaluation in output units (centipawns / 400).
    bases: Vec<f32>,
    /// Position `i`'s side-to-move inputs are `features[offsets[2i]..offsets[2i+1]]`, the
    /// other side's `features[offsets[2i+1]..offsets[2i+2]]`.
    offsets: Vec<u32>,
    features: Vec<u16>,
    /// Reused by [`Dataset::push`], so that loading does not allocate per position.
    scratch: Vec<usize>,
}

/// Why a record cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A piece's square or kind is outside the variant's board or kinds.
    OutOfRange,
    /// The flat feature vector would exceed `u32` offsets.
    TooMany,
}

impl Dataset {
    /// An empty set for the network inputs `net_inputs` of `variant`.
    ///
    /// # Errors
    /// [`TrainError::TooManyInputs`] when the trainer's inputs exceed `u16` indices.
    pub fn new(variant: &Variant, net_inputs: NetInputs) -> Result<Self, TrainError> {
        let inputs = net_inputs.count();
        if inputs > usize::from(u16::MAX) + 1 {
            return Err(TrainError::TooManyInputs(inputs));
        }
        Ok(Self {
            ranks: variant.ranks(),
            files: variant.files(),
            kinds: variant.kind_count(),
            net_inputs,
            inputs,
            sides: Vec::new(),
            scores: Vec::new(),
            results: Vec::new(),
            bases: Vec::new(),
            offsets: vec![0],
            features: Vec::new(),
            scratch: Vec::with_capacity(128),
        })
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.sides.len()
    }

    /// True when there are no positions.
    pub fn is_empty(&self) -> bool {
        self.sides.is_empty()
    }

    /// Inputs per perspective of the network.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The engine network's input space.
    pub fn net_inputs(&self) -> NetInputs {
        self.net_inputs
    }

    /// Adds a record.
    ///
    /// # Errors
    /// [`Refused`] when a piece lies outside the board or has no kind of the variant (the
    /// record was not written for this variant), or the set is full.
    pub fn push(&mut self, p: &PackedPosition) -> Result<(), Refused> {
        let (files, ranks, kinds, net_inputs) =
            (self.files, self.ranks, self.kinds, self.net_inputs);
        let on_board = |sq: u8| sq / 10 < ranks && sq % 10 < files;
        if p.side > 1
            || p.result > 2
            || p.pieces
                .iter()
                .any(|&(sq, code)| !on_board(sq) || decode_piece(code).1 >= kinds)
            || p.pocket
                .iter()
                .any(|&(code, _)| decode_piece(code).1 >= kinds)
        {
            return Err(Refused::OutOfRange);
        }
        let stm = p.side_to_move();
        let before = self.features.len();
        for perspective in [stm, !stm] {
            data_features(p, perspective, &net_inputs, &mut self.scratch);
            // Pocket entries in a variant without pockets land past the last input.
            if self.scratch.iter().any(|&f| f >= self.inputs) {
                self.features.truncate(before);
                self.offsets.truncate(2 * self.sides.len() + 1);
                return Err(Refused::OutOfRange);
            }
            // Below `inputs`, which `new` checked fits `u16`.
            self.features.extend(self.scratch.iter().map(|&f| f as u16));
            let Ok(end) = u32::try_from(self.features.len()) else {
                self.features.truncate(before);
                self.offsets.truncate(2 * self.sides.len() + 1);
                return Err(Refused::TooMany);
            };
            self.offsets.push(end);
        }
        let (score, result) = match stm {
            Color::White => (p.score, p.result),
            Color::Black => (p.score.saturating_neg(), 2 - p.result),
        };
        self.sides.push(p.side);
        self.scores.push(score);
        self.results.push(result);
        self.bases.push(0.0);
        Ok(())
    }

    /// Sets the last position's base (see [`Dataset::base`]) to `cp` centipawns.
    pub fn set_last_base(&mut self, cp: i32) {
        if let Some(b) = self.bases.last_mut() {
            *b = cp as f32 / NET_SCALE as f32;
        }
    }

    /// What position `i`'s output is added to before the sigmoid: 0, or for a residual
    /// network the hand-written evaluation (side to move's view) in output units.
    #[inline]
    pub fn base(&self, i: usize) -> f32 {
        self.bases[i]
    }

    /// The active inputs of position `i`: the side to move's, then the other side's.
    #[inline]
    pub fn features(&self, i: usize) -> (&[u16], &[u16]) {
        let (a, b, c) = (
            self.offsets[2 * i] as usize,
            self.offsets[2 * i + 1] as usize,
            self.offsets[2 * i + 2] as usize,
        );
        (&self.features[a..b], &self.features[b..c])
    }

    /// The side to move of position `i`.
    pub fn side(&self, i: usize) -> Color {
        if self.sides[i] == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The training target of position `i`: `λ · sigmoid(score / 400) + (1 - λ) · result`,
    /// both from the side to move's view (result 0, ½ or 1).
    #[inline]
    pub fn target(&self, i: usize, lambda: f32) -> f32 {
        let score = crate::net::sigmoid(f32::from(self.scores[i]) / 400.0);
        let result = f32::from(self.results[i]) / 2.0;
        lambda * score + (1.0 - lambda) * result
    }

    /// Mean number of active inputs per perspective (the initialisation's scale).
    pub fn mean_active(&self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        self.features.len() as f32 / (2 * self.len()) as f32
    }
}

/// Consecutive positions held out or kept together. A data file holds each game's positions
/// one after another (`datagen` writes a game at a time), and the positions of one game are
/// near-copies of each other: split one by one, nearly every validation position would have
/// its neighbours in the training set, and the validation loss would keep falling while the
/// network learns the games by heart. Blocks of 512 (four to six games) leak only at their
/// edges.
pub const SPLIT_BLOCK: usize = 512;

/// The deterministic split of positions into training and validation sets: position `i` is
/// a validation position when a hash of (`seed`, `i / SPLIT_BLOCK`) falls below `fraction`,
/// so the split does not depend on the order of epochs or threads, is the same on a resumed
/// run, and holds out whole games (see [`SPLIT_BLOCK`]).
#[derive(Debug, Clone, Copy)]
pub struct Split {
    /// Seed of the hash.
    pub seed: u64,
    /// Share of positions held out.
    pub fraction: f64,
}

impl Split {
    /// True when position `i` is held out for validation.
    pub fn is_validation(&self, i: usize) -> bool {
        let block = (i / SPLIT_BLOCK) as u64;
        let mut h = SplitMix64(self.seed.wrapping_mul(0x0100_0000_01b3) ^ block);
        h.next_f64() < self.fraction
    }
}

/// What [`load`] read.
#[derive(Debug)]
pub struct Loaded {
    /// All positions, training and validation.
    pub data: Dataset,
    /// The first validation positions as records, for the quantisation check.
    pub samples: Vec<PackedPosition>,
}

/// Reads every position of `paths`, which must all be data files of `variant`, up to
/// `max_positions`, keeping up to `keep_samples` validation records (by `split`) whole. A
/// file cut inside a record (one still being written) is read up to its last whole record.
/// With `hand`, every position's base is its hand-written evaluation (a residual network).
///
/// # Errors
/// [`TrainError`] naming the file that cannot be opened or read, is not a data file, is for
/// another variant or holds a record that does not fit the variant.
pub fn load(
    paths: &[PathBuf],
    variant: &std::sync::Arc<Variant>,
    max_positions: Option<usize>,
    split: Split,
    keep_samples: usize,
    hand: Option<&HandEval>,
    net_inputs: NetInputs,
) -> Result<Loaded, TrainError> {
    let mut data = Dataset::new(variant, net_inputs)?;
    let mut samples = Vec::new();
    let limit = max_positions.unwrap_or(usize::MAX);
    for path in paths {
        if data.len() >= limit {
            break;
        }
        let file = File::open(path).map_err(|source| TrainError::Io {
            path: path.clone(),
            source,
        })?;
        read_file(
            path,
            BufReader::with_capacity(1 << 20, file),
            variant,
            limit,
            split,
            keep_samples,
            hand,
            &mut data,
            &mut samples,
        )?;
    }
    Ok(Loaded { data, samples })
}

#[allow(
    clippy::too_many_arguments,
    reason = "the loader's state, threaded through"
)]
fn read_file<R: Read>(
    path: &Path,
    reader: R,
    variant: &std::sync::Arc<Variant>,
    limit: usize,
    split: Split,
    keep_samples: usize,
    hand: Option<&HandEval>,
    data: &mut Dataset,
    samples: &mut Vec<PackedPosition>,
) -> Result<(), TrainError> {
    let data_error = |source| TrainError::Data {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = DataReader::new(reader).map_err(data_error)?;
    if reader.variant_name() != variant.name() {
        return Err(TrainError::WrongVariant {
            path: path.to_path_buf(),
            found: reader.variant_name().to_owned(),
            expected: variant.name().to_owned(),
        });
    }
    while data.len() < limit {
        let record = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            // A file still being appended to ends inside a record: use what is whole.
            Err(DataError::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(data_error(e)),
        };
        let Record::Position(p) = record else {
            continue;
        };
        let index = data.len();
        data.push(&p).map_err(|why| TrainError::Record {
            path: path.to_path_buf(),
            offset: reader.offset(),
            why: match why {
                Refused::OutOfRange => "a piece is outside the variant's board or kinds",
                Refused::TooMany => "too many inputs in all (use --max-positions)",
            },
        })?;
        if let Some(hand) = hand {
            data.set_last_base(hand.evaluate(&p.to_position(variant)));
        }
        if samples.len() < keep_samples && split.is_validation(index) {
            samples.push(p);
        }
    }
    Ok(())
}
