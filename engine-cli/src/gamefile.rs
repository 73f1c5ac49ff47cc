//! The output of `datagen` and `rescore`: a data file that worker threads append to a whole
//! game at a time, so that an interrupted run resumes where it stopped.
//!
//! Opening keeps the whole games already on file and cuts off a game left half-written by an
//! interruption; the caller then skips the games [`GameOutput::done`] lists. A failed write is
//! kept, stops the workers ([`GameOutput::failed`]), and is returned by
//! [`GameOutput::finish`].

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::Path;
use std::sync::Mutex;

use variant_engine::{DataError, DataReader, PackedPosition, data_header, scan_data, write_game};

use crate::tunedata::open_after;

/// Why an output cannot be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OpenError {
    /// Reading, cutting or writing the file failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The existing file is not a data file, is corrupt, or holds another variant.
    #[error("{0}")]
    Mismatch(String),
}

/// An output data file shared by worker threads.
#[derive(Debug)]
pub(crate) struct GameOutput {
    file: Mutex<File>,
    failure: Mutex<Option<io::Error>>,
    done: HashSet<u32>,
}

impl GameOutput {
    /// Opens `path` for appending games of `variant`, creating it with a header when absent.
    ///
    /// # Errors
    /// [`OpenError`] when the file cannot be read or written, is not a data file, or holds
    /// another variant's positions.
    pub(crate) fn open(path: &Path, variant: &str) -> Result<Self, OpenError> {
        let (keep, done) = match File::open(path) {
            Ok(f) => {
                let mut reader = DataReader::new(BufReader::new(f))
                    .map_err(|e| OpenError::Mismatch(e.to_string()))?;
                if reader.variant_name() != variant {
                    return Err(OpenError::Mismatch(format!(
                        "holds {} positions, not {variant}",
                        reader.variant_name()
                    )));
                }
                let (keep, games, _) = scan_data(&mut reader).map_err(|e| match e {
                    DataError::Io(e) => OpenError::Io(e),
                    other => OpenError::Mismatch(other.to_string()),
                })?;
                (keep, games.into_iter().collect())
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => (0, HashSet::new()),
            Err(e) => return Err(e.into()),
        };
        let mut file = open_after(path, keep)?;
        if keep == 0 {
            file.write_all(&data_header(variant))?;
        }
        Ok(Self {
            file: Mutex::new(file),
            failure: Mutex::new(None),
            done,
        })
    }

    /// The games that were on file, whole, when it was opened.
    pub(crate) fn done(&self) -> &HashSet<u32> {
        &self.done
    }

    /// True once a write has failed: workers stop taking games.
    pub(crate) fn failed(&self) -> bool {
        self.failure.lock().map_or(true, |f| f.is_some())
    }

    /// Appends game `game` whole and flushes it. On failure the error is kept for
    /// [`GameOutput::finish`] and `false` returned.
    pub(crate) fn write(&self, game: u32, positions: &[PackedPosition]) -> bool {
        let outcome = self.file.lock().map_or_else(
            |_| Err(io::Error::other("writer poisoned")),
            |mut f| write_game(&mut *f, game, positions).and_then(|()| f.flush()),
        );
        match outcome {
            Ok(()) => true,
            Err(e) => {
                if let Ok(mut f) = self.failure.lock()
                    && f.is_none()
                {
                    *f = Some(e);
                }
                false
            }
        }
    }

    /// The first write error, if any.
    ///
    /// # Errors
    /// The error of the first failed [`GameOutput::write`].
    pub(crate) fn finish(self) -> io::Result<()> {
        match self.failure.into_inner() {
            Ok(None) => Ok(()),
            Ok(Some(e)) => Err(e),
            Err(_) => Err(io::Error::other("writer poisoned")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use variant_engine::Registry;

    #[test]
    fn reopening_keeps_whole_games_cuts_a_torn_one_and_refuses_another_variant() {
        let pos = Registry::builtin().start_position("chess").unwrap();
        let record = |score| PackedPosition::from_position(&pos, score, 1);
        let path = std::env::temp_dir().join(format!("gamefile-{}.bin", std::process::id()));
        let _ = std::fs::remove_file(&path);

        let out = GameOutput::open(&path, "chess").unwrap();
        assert!(out.done().is_empty());
        assert!(out.write(7, &[record(10), record(-3)]));
        assert!(out.write(2, &[record(5)]));
        assert!(!out.failed());
        out.finish().unwrap();
        let whole = std::fs::metadata(&path).unwrap().len();

        // An interrupted run leaves part of a game behind.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[1, 2, 3]).unwrap();
        drop(f);
        let out = GameOutput::open(&path, "chess").unwrap();
        assert_eq!(out.done(), &HashSet::from([7, 2]));
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            whole,
            "torn game cut off"
        );
        assert!(out.write(3, &[record(1)]));
        out.finish().unwrap();
        let out = GameOutput::open(&path, "chess").unwrap();
        assert_eq!(out.done(), &HashSet::from([7, 2, 3]));
        drop(out);

        let other = GameOutput::open(&path, "orphic");
        assert!(
            matches!(&other, Err(OpenError::Mismatch(m)) if m.contains("chess")),
            "{other:?}"
        );
        std::fs::write(&path, b"not a data file").unwrap();
        assert!(matches!(
            GameOutput::open(&path, "chess"),
            Err(OpenError::Mismatch(_))
        ));
        let _ = std::fs::remove_file(&path);
    }
}
