//! Training positions for the network: a compact binary file of quiet self-play positions,
//! each with its search score and its game's result (`variant-engine datagen` writes it,
//! `nnue-train` reads it).
//!
//! File format (little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `VDATA001` |
//! | 2 + n | variant name length, name (UTF-8) |
//! | then | a sequence of records, each starting with a tag byte |
//!
//! - tag `1`, a **position**: `u8` side to move (0 White, 1 Black); `u8` result from White's
//!   view (0 loss, 1 draw, 2 win); `i16` search score in centipawns from White's view;
//!   `u8` piece count `n`, then `n` pairs (`u8` square index in the 10x10 space, `u8` piece
//!   = colour · 16 + kind); `u8` pocket entries `m`, then `m` pairs (`u8` colour · 16 + kind,
//!   `u8` count). About 2 bytes per piece: 70-100 bytes for a 10x10 middlegame.
//! - tag `2`, **end of game**: `u32` game number. A writer emits a game's positions and then
//!   its end record in one write, so a file cut short resumes after its last end record
//!   ([`scan`]).

use std::io::{self, Read, Write};

use super::Inputs;
use crate::geometry::{SQUARE_COUNT, Square};
use crate::piece::{Color, MAX_KINDS, Piece, PieceKind};
use crate::position::Position;

/// The file's first eight bytes.
pub(crate) const DATA_MAGIC: &[u8; 8] = b"VDATA001";
const TAG_POSITION: u8 = 1;
const TAG_GAME_END: u8 = 2;

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PackedPosition {
    /// The side to move.
    pub side: u8,
    /// The game's result from White's view: 0 loss, 1 draw, 2 win.
    pub result: u8,
    /// The search score in centipawns, White's view.
    pub score: i16,
    /// Board pieces: (square index, colour · 16 + kind).
    pub pieces: Vec<(u8, u8)>,
    /// Pieces in hand: (colour · 16 + kind, count).
    pub pocket: Vec<(u8, u8)>,
}

/// Why a data file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The file does not start with `VDATA001`.
    #[error("not a training data file (no VDATA001 header)")]
    Magic,
    /// A record is malformed.
    #[error("corrupt record at byte {0}: {1}")]
    Corrupt(u64, &'static str),
}

fn code(color: Color, kind: usize) -> u8 {
    (color.index() as u8) * 16 + kind as u8
}

/// Colour and kind index of a piece code.
pub fn decode_piece(code: u8) -> (Color, usize) {
    let color = if code >= 16 {
        Color::Black
    } else {
        Color::White
    };
    (color, usize::from(code % 16))
}

impl PackedPosition {
    /// Packs `pos` with a score (White's view, clamped to ±32000) and a result.
    pub fn from_position(pos: &Position, white_score: i32, result: u8) -> Self {
        let mut pieces = Vec::with_capacity(64);
        for sq in pos.occupied() {
            if let Some(p) = pos.board[sq.index()] {
                pieces.push((sq.index() as u8, code(p.color(), p.kind().index())));
            }
        }
        let mut pocket = Vec::new();
        for c in Color::ALL {
            for k in 0..pos.variant().kind_count() {
                let n = pos.pocket[c][k];
                if n > 0 {
                    pocket.push((code(c, k), n));
                }
            }
        }
        Self {
            side: pos.side.index() as u8,
            result,
            score: white_score.clamp(-32000, 32000) as i16,
            pieces,
            pocket,
        }
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        if self.side == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Sets up the board, pockets and side to move of this record on a position of its
    /// variant (castling, en passant and clocks are not recorded: they are left empty).
    pub fn to_position(&self, variant: &std::sync::Arc<crate::variant::Variant>) -> Position {
        let mut pos = Position::empty(variant.clone());
        for &(sq, code) in &self.pieces {
            let (c, k) = decode_piece(code);
            if usize::from(sq) < SQUARE_COUNT && k < MAX_KINDS {
                pos.put(Square::new(sq), Piece::new(c, PieceKind(k as u8)));
            }
        }
        for &(code, n) in &self.pocket {
            let (c, k) = decode_piece(code);
            if k < MAX_KINDS {
                pos.set_pocket(c, PieceKind(k as u8), n);
            }
        }
        pos.side = self.side_to_move();
        pos.hash = pos.compute_hash();
        pos
    }

    /// Appends the record's bytes to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.push(TAG_POSITION);
        out.push(self.side);
        out.push(self.result);
        out.extend_from_slice(&self.score.to_le_bytes());
        out.push(self.pieces.len() as u8);
        for &(sq, p) in &self.pieces {
            out.extend_from_slice(&[sq, p]);
        }
        out.push(self.pocket.len() as u8);
        for &(p, n) in &self.pocket {
            out.extend_from_slice(&[p, n]);
        }
    }
}

/// The file header for `variant_name`.
pub fn header(variant_name: &str) -> Vec<u8> {
    let mut out = DATA_MAGIC.to_vec();
    out.extend_from_slice(&(variant_name.len() as u16).to_le_bytes());
    out.extend_from_slice(variant_name.as_bytes());
    out
}

/// Appends an end-of-game record for game `index`.
pub(crate) fn write_game_end(out: &mut Vec<u8>, index: u32) {
    out.push(TAG_GAME_END);
    out.extend_from_slice(&index.to_le_bytes());
}

/// One item of a data file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// A training position.
    Position(PackedPosition),
    /// The end of game `n`.
    GameEnd(u32),
}

/// Reads a data file record by record.
#[derive(Debug)]
pub struct DataReader<R> {
    inner: R,
    variant: String,
    offset: u64,
}

impl<R: Read> DataReader<R> {
    /// Reads the header.
    ///
    /// # Errors
    /// [`DataError::Magic`] when the header is missing, or an I/O error.
    pub fn new(mut inner: R) -> Result<Self, DataError> {
        let mut magic = [0u8; 8];
        inner.read_exact(&mut magic).map_err(|_| DataError::Magic)?;
        if &magic != DATA_MAGIC {
            return Err(DataError::Magic);
        }
        let mut len = [0u8; 2];
        inner.read_exact(&mut len)?;
        let mut name = vec![0u8; usize::from(u16::from_le_bytes(len))];
        inner.read_exact(&mut name)?;
        Ok(Self {
            offset: 10 + name.len() as u64,
            variant: String::from_utf8_lossy(&name).into_owned(),
            inner,
        })
    }

    /// The variant named in the header.
    pub fn variant_name(&self) -> &str {
        &self.variant
    }

    /// Byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn read_array<const N: usize>(&mut self) -> Result<[u8; N], DataError> {
        let mut b = [0u8; N];
        self.inner.read_exact(&mut b)?;
        self.offset += N as u64;
        Ok(b)
    }

    /// The next record; `None` at a clean end of file.
    ///
    /// # Errors
    /// [`DataError::Corrupt`] for an unknown tag, an I/O error (`UnexpectedEof` for a record
    /// cut short).
    pub fn next_record(&mut self) -> Result<Option<Record>, DataError> {
        let mut tag = [0u8; 1];
        match self.inner.read(&mut tag)? {
            0 => return Ok(None),
            _ => self.offset += 1,
        }
        match tag[0] {
            TAG_POSITION => {
                let [side, result, s0, s1, n] = self.read_array::<5>()?;
                if side > 1 || result > 2 {
                    return Err(DataError::Corrupt(self.offset, "side or result"));
                }
                let mut pieces = Vec::with_capacity(usize::from(n));
                for _ in 0..n {
                    let [sq, p] = self.read_array::<2>()?;
                    pieces.push((sq, p));
                }
                let [m] = self.read_array::<1>()?;
                let mut pocket = Vec::with_capacity(usize::from(m));
                for _ in 0..m {
                    let [p, c] = self.read_array::<2>()?;
                    pocket.push((p, c));
                }
                Ok(Some(Record::Position(PackedPosition {
                    side,
                    result,
                    score: i16::from_le_bytes([s0, s1]),
                    pieces,
                    pocket,
                })))
            }
            TAG_GAME_END => Ok(Some(Record::GameEnd(u32::from_le_bytes(
                self.read_array()?,
            )))),
            _ => Err(DataError::Corrupt(self.offset, "unknown tag")),
        }
    }
}

/// What a (possibly interrupted) data file holds: the byte length up to its last end-of-game
/// record, the numbers of the games it holds whole (in file order: parallel writers finish
/// games out of order) and the positions of those games. A file cut inside a game is valid up
/// to the returned length.
///
/// # Errors
/// As [`DataReader::next_record`], except that a record cut short ends the scan.
pub fn scan<R: Read>(reader: &mut DataReader<R>) -> Result<(u64, Vec<u32>, u64), DataError> {
    let mut keep = reader.offset();
    let mut games = Vec::new();
    let mut positions = 0;
    let mut pending = 0;
    loop {
        match reader.next_record() {
            Ok(Some(Record::Position(_))) => pending += 1,
            Ok(Some(Record::GameEnd(n))) => {
                games.push(n);
                positions += pending;
                pending = 0;
                keep = reader.offset();
            }
            Ok(None) => break,
            Err(DataError::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        }
    }
    Ok((keep, games, positions))
}

/// Writes a game's records and its end record in one `write_all`.
///
/// # Errors
/// The writer's error.
pub fn write_game(out: &mut impl Write, game: u32, positions: &[PackedPosition]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(96 * positions.len() + 5);
    for p in positions {
        p.write_to(&mut buf);
    }
    write_game_end(&mut buf, game);
    out.write_all(&buf)
}

/// The active board and pocket inputs of a record from `perspective` in the input space
/// `inputs` (see [`super::Inputs`]); a piece in hand appears once per piece held.
pub fn features(p: &PackedPosition, perspective: Color, inputs: &Inputs, out: &mut Vec<usize>) {
    out.clear();
    let king = inputs.royal().and_then(|royal| {
        p.pieces.iter().find_map(|&(sq, code)| {
            (decode_piece(code) == (perspective, royal)).then(|| Square::new(sq))
        })
    });
    for &(sq, code) in &p.pieces {
        let (c, k) = decode_piece(code);
        let (board, window) = inputs.piece(perspective, king, c, k, Square::new(sq));
        out.push(board);
        out.extend(window);
    }
    for &(code, n) in &p.pocket {
        let (c, k) = decode_piece(code);
        for _ in 0..n {
            out.push(inputs.pocket(perspective, c, k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Registry, samples::random_playout};

    #[test]
    fn records_round_trip_and_resume_after_the_last_whole_game() {
        let registry = Registry::builtin();
        for v in registry.iter() {
            let mut bytes = header(v.name());
            let mut written = Vec::new();
            for game in 1..=3u32 {
                let mut recs = Vec::new();
                for plies in [4usize, 17, 40] {
                    let pos = random_playout(
                        Position::new(v.clone()),
                        plies,
                        u64::from(game) * 31 + plies as u64,
                    );
                    let rec = PackedPosition::from_position(&pos, plies as i32 * 7 - 100, 2);
                    // The record rebuilds the same board, pockets and side to move.
                    let back = rec.to_position(v);
                    assert_eq!(back.board, pos.board, "{}", pos.fen());
                    assert_eq!(back.pocket, pos.pocket, "{}", pos.fen());
                    assert_eq!(back.side, pos.side);
                    recs.push(rec);
                }
                write_game(&mut bytes, game, &recs).unwrap();
                written.extend(recs);
            }
            let mut reader = DataReader::new(&bytes[..]).unwrap();
            assert_eq!(reader.variant_name(), v.name());
            let mut read = Vec::new();
            while let Some(r) = reader.next_record().unwrap() {
                if let Record::Position(p) = r {
                    read.push(p);
                }
            }
            assert_eq!(read, written);
            // Cut inside the third game: the scan keeps two whole games.
            let cut = &bytes[..bytes.len() - 20];
            let (keep, games, positions) = scan(&mut DataReader::new(cut).unwrap()).unwrap();
            assert_eq!((games, positions), (vec![1, 2], 6));
            let (whole, _, _) = scan(&mut DataReader::new(&bytes[..]).unwrap()).unwrap();
            assert!(keep < whole && whole == bytes.len() as u64);
        }
    }

    #[test]
    fn garbage_is_refused() {
        assert!(matches!(
            DataReader::new(&b"VNNUE001xx"[..]),
            Err(DataError::Magic)
        ));
        let mut bytes = header("chess");
        bytes.push(9);
        let mut r = DataReader::new(&bytes[..]).unwrap();
        assert!(matches!(r.next_record(), Err(DataError::Corrupt(..))));
    }
}
