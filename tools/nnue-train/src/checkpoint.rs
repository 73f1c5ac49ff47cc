//! Checkpoints: the float network, Adam's moments and step count, and the number of epochs
//! done, so that `--resume` continues a run exactly where it stopped (the quantised `.nnue`
//! file alone cannot: it has lost the float weights and the optimiser state).
//!
//! Format (little-endian): magic `VNCKPT01`; `u16` variant name length and the name; `u32`
//! inputs, `u32` hidden size, `u32` epochs done, `u64` Adam steps; then the parameters, the
//! first moments and the second moments, each `f32` in the network's flat layout.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use crate::net::FloatNet;
use crate::train::Adam;

/// The file's first eight bytes.
const MAGIC: &[u8; 8] = b"VNCKPT01";

/// What a checkpoint holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// The variant's name.
    pub variant: String,
    /// The float network.
    pub net: FloatNet,
    /// The optimiser state.
    pub adam: Adam,
    /// Epochs completed.
    pub epochs_done: u32,
}

/// Why a checkpoint could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The file is not a checkpoint, or is cut short or too long.
    #[error("not a checkpoint file, or damaged")]
    Format,
}

impl Checkpoint {
    /// The file form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.net.params().len();
        let mut out = Vec::with_capacity(40 + self.variant.len() + 12 * n);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.variant.len() as u16).to_le_bytes());
        out.extend_from_slice(self.variant.as_bytes());
        out.extend_from_slice(&(self.net.inputs() as u32).to_le_bytes());
        out.extend_from_slice(&(self.net.hidden() as u32).to_le_bytes());
        out.extend_from_slice(&self.epochs_done.to_le_bytes());
        out.extend_from_slice(&self.adam.step.to_le_bytes());
        for x in self
            .net
            .params()
            .iter()
            .chain(&self.adam.m)
            .chain(&self.adam.v)
        {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// Reads the file form.
    ///
    /// # Errors
    /// [`CheckpointError::Format`] for anything but a whole checkpoint.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CheckpointError> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], CheckpointError> {
            let s = bytes.get(at..at + n).ok_or(CheckpointError::Format)?;
            at += n;
            Ok(s)
        };
        if take(8)? != MAGIC {
            return Err(CheckpointError::Format);
        }
        let name_len = u16::from_le_bytes(array(take(2)?)?);
        let variant = String::from_utf8(take(usize::from(name_len))?.to_vec())
            .map_err(|_| CheckpointError::Format)?;
        let inputs = u32::from_le_bytes(array(take(4)?)?) as usize;
        let hidden = u32::from_le_bytes(array(take(4)?)?) as usize;
        let epochs_done = u32::from_le_bytes(array(take(4)?)?);
        let step = u64::from_le_bytes(array(take(8)?)?);
        let n = inputs
            .checked_mul(hidden)
            .and_then(|x| x.checked_add(3 * hidden + 1))
            .ok_or(CheckpointError::Format)?;
        let mut floats = || -> Result<Vec<f32>, CheckpointError> {
            let raw = take(n.checked_mul(4).ok_or(CheckpointError::Format)?)?;
            Ok(raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect())
        };
        let params = floats()?;
        let m = floats()?;
        let v = floats()?;
        if at != bytes.len() {
            return Err(CheckpointError::Format);
        }
        let net = FloatNet::from_params(inputs, hidden, params).ok_or(CheckpointError::Format)?;
        Ok(Self {
            variant,
            net,
            adam: Adam { m, v, step },
            epochs_done,
        })
    }

    /// Writes the checkpoint to `path` through a temporary file and a rename, so that an
    /// interrupted write leaves the previous checkpoint whole.
    ///
    /// # Errors
    /// The file system's error.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        write_atomically(path, &self.to_bytes())
    }

    /// Reads the checkpoint at `path`.
    ///
    /// # Errors
    /// [`CheckpointError`].
    pub fn load(path: &Path) -> Result<Self, CheckpointError> {
        Self::from_bytes(&fs::read(path)?)
    }
}

fn array<const N: usize>(s: &[u8]) -> Result<[u8; N], CheckpointError> {
    s.try_into().map_err(|_| CheckpointError::Format)
}

/// Writes `bytes` to `path` via `path` + `.tmp` and a rename.
///
/// # Errors
/// The file system's error.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)
}
