//! A learned evaluation (NNUE): a small network per variant, trained on our own self-play
//! (`variant-engine datagen`, then `nnue-train`), evaluated with integer arithmetic and an
//! accumulator the search updates incrementally from the squares each move touches.
//!
//! The network, for one variant with `K` piece kinds:
//! - **inputs**, per perspective (White's and Black's): one per (relative colour, kind,
//!   square), `2 * K * 100` in all (squares in the engine's 10x10 index space; the board is
//!   mirrored top to bottom for Black, so both perspectives see their own pieces moving up),
//!   plus, for variants with pockets, `2 * K` count inputs (pieces in hand, each counted as
//!   often as it is held);
//! - with **king windows** (flag bit 1), a second block of inputs per perspective: one per
//!   (relative colour, kind, offset from the perspective's own royal king) for the pieces
//!   within [`WINDOW_RADIUS`] files and ranks of that king (`2 * K * 49`), so what a piece
//!   does to a king's safety is learnt once for every square the king may stand on. A king
//!   move recomputes its perspective's accumulator from scratch, since every offset changes;
//!   a king off the board (in hand) has no window. The inputs are laid out board block,
//!   window block, then pocket counts;
//! - **one hidden layer** of `H` neurons per perspective, shared weights, squared clipped
//!   linear activation (`clamp(x, 0, 1)^2`);
//! - **output**: one neuron over the side to move's `H` activations followed by the other
//!   side's, times [`SCALE`] centipawns;
//! - a **residual** network (flag bit 0) is a correction: the evaluation is the hand-written
//!   one plus the network's output, and the trainer fits the output to what the hand-written
//!   evaluation misses. It learns from far fewer positions than a network that must find
//!   material and king safety by itself.
//!
//! Quantisation: first-layer weights and biases are `i16` in units of `1/QA` ([`QA`] = 255),
//! so the accumulator holds `QA * x`; output weights are `i16` in units of `1/QB` ([`QB`] =
//! 64), at most 127 in size (the trainer clips them to ±1.98), and the output bias is an
//! `i32` in units of `1/(QA * QB)`. The squared activations are summed in `i32` per block of
//! 128 neurons (at most `128 * 255² * 127 < 2³¹`) and the blocks in `i64`, so no input
//! overflows. The quantised output equals the float network's within the bound tested in
//! `tests` (rounding of each weight to its grid).
//!
//! File format (little-endian), written by `nnue-train` and read by [`Network::from_bytes`]:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `VNNUE001` |
//! | 2 + n | variant name length, name (UTF-8) |
//! | 1, 1, 1, 1, 1 | files, ranks, kinds `K`, pocket inputs (0 or 1), flags (bit 0: residual, bit 1: king windows) |
//! | 2 | hidden size `H` |
//! | 2 · inputs · H | first-layer weights, input-major (`i16`) |
//! | 2 · H | first-layer biases (`i16`) |
//! | 2 · 2H | output weights, side to move's half first (`i16`) |
//! | 4 | output bias (`i32`) |

pub(crate) mod data;

use crate::geometry::{SQUARE_COUNT, Square};
use crate::piece::{Color, Piece};
use crate::position::Position;
use crate::variant::Variant;
use std::sync::OnceLock;

/// Scale of the first layer's quantisation.
pub const QA: i32 = 255;
/// Scale of the output layer's quantisation.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's output.
pub const SCALE: i32 = 400;
/// Largest hidden layer a file may declare.
pub(crate) const MAX_HIDDEN: usize = 1024;
/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"VNNUE001";

/// Squares per input block (the engine's 10x10 index space).
const SQUARES: usize = SQUARE_COUNT;

/// The board input of a piece of `color` and kind index `kind` on `sq`, seen from
/// `perspective`, for a variant with `kinds` kinds on a board of `ranks` ranks.
#[inline]
pub fn board_feature(
    perspective: Color,
    color: Color,
    kind: usize,
    sq: Square,
    ranks: u8,
    kinds: usize,
) -> usize {
    let rel = usize::from(color != perspective);
    let oriented = match perspective {
        Color::White => sq.index(),
        Color::Black => usize::from(ranks - 1 - sq.rank()) * 10 + usize::from(sq.file()),
    };
    (rel * kinds + kind) * SQUARES + oriented
}

/// Number of inputs per perspective of a plain network (no king windows) for a variant with
/// `kinds` kinds; [`Inputs::count`] counts any network's.
pub fn input_count(kinds: usize, pocket: bool) -> usize {
    2 * kinds * SQUARES + if pocket { 2 * kinds } else { 0 }
}

/// Reach of a king window: inputs see pieces up to this many files and ranks from the king.
pub const WINDOW_RADIUS: i8 = 3;
/// Squares of a king window (`(2 · WINDOW_RADIUS + 1)²`).
pub const WINDOW_SQUARES: usize = ((2 * WINDOW_RADIUS + 1) * (2 * WINDOW_RADIUS + 1)) as usize;

/// The input space of a network: the variant's board and kinds, its pockets, and whether it
/// has king-window inputs (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inputs {
    files: u8,
    ranks: u8,
    kinds: usize,
    pocket: bool,
    /// The royal kind's index when the network has king-window inputs.
    royal: Option<usize>,
}

impl Inputs {
    /// The plain inputs of `variant` (one block of board inputs).
    pub fn plain(variant: &Variant) -> Self {
        Self {
            files: variant.files(),
            ranks: variant.ranks(),
            kinds: variant.kind_count(),
            pocket: variant.has_drops(),
            royal: None,
        }
    }

    /// The inputs of `variant` with king windows, `None` when it has no royal kind (Decima).
    pub fn king_window(variant: &Variant) -> Option<Self> {
        let royal = variant.royal_kind()?.index();
        Some(Self {
            royal: Some(royal),
            ..Self::plain(variant)
        })
    }

    /// True when the network has king-window inputs.
    pub fn windowed(&self) -> bool {
        self.royal.is_some()
    }

    /// Inputs of the board block (`2 · K · 100`).
    fn block(&self) -> usize {
        2 * self.kinds * SQUARES
    }

    /// Inputs of the king-window block (`2 · K · 49`, or none).
    fn window_block(&self) -> usize {
        if self.windowed() {
            2 * self.kinds * WINDOW_SQUARES
        } else {
            0
        }
    }

    /// Inputs per perspective.
    pub fn count(&self) -> usize {
        self.block() + self.window_block() + if self.pocket { 2 * self.kinds } else { 0 }
    }

    /// The square of `perspective`'s king in `pos` that its window is centred on (`None`:
    /// no window inputs, or the king is not on the board).
    #[inline]
    pub fn window_king(&self, pos: &Position, perspective: Color) -> Option<Square> {
        self.royal?;
        pos.royal_square(perspective)
    }

    /// The rank of `sq` as `perspective` sees it (Black's board is mirrored).
    #[inline]
    fn oriented_rank(&self, perspective: Color, sq: Square) -> i8 {
        match perspective {
            Color::White => sq.rank() as i8,
            Color::Black => (self.ranks - 1 - sq.rank()) as i8,
        }
    }

    /// The inputs of a piece of `color` and kind index `kind` on `sq`, seen from
    /// `perspective` whose king (its window's centre) is on `king`: the board input, and the
    /// king-window input when the piece is within [`WINDOW_RADIUS`] of that king.
    #[inline]
    pub fn piece(
        &self,
        perspective: Color,
        king: Option<Square>,
        color: Color,
        kind: usize,
        sq: Square,
    ) -> (usize, Option<usize>) {
        let board = board_feature(perspective, color, kind, sq, self.ranks, self.kinds);
        let window = king.and_then(|k| {
            let dx = sq.file() as i8 - k.file() as i8;
            let dy = self.oriented_rank(perspective, sq) - self.oriented_rank(perspective, k);
            let r = WINDOW_RADIUS;
            if dx.abs() > r || dy.abs() > r {
                return None;
            }
            let side = (2 * r + 1) as usize;
            let cell = (dy + r) as usize * side + (dx + r) as usize;
            let rel = usize::from(color != perspective);
            Some(self.block() + (rel * self.kinds + kind) * WINDOW_SQUARES + cell)
        });
        (board, window)
    }

    /// The pocket-count input of `color`'s pieces of kind index `kind` in hand, seen from
    /// `perspective` (after the board and king-window inputs).
    #[inline]
    pub fn pocket(&self, perspective: Color, color: Color, kind: usize) -> usize {
        let rel = usize::from(color != perspective);
        self.block() + self.window_block() + rel * self.kinds + kind
    }

    /// The royal kind's index, when the network has king-window inputs.
    pub fn royal(&self) -> Option<usize> {
        self.royal
    }
}

/// Why a network file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// The file does not start with [`MAGIC`].
    #[error("not a network file (no VNNUE001 header)")]
    Magic,
    /// The file ends before its declared contents.
    #[error("network file truncated: {0} bytes short")]
    Truncated(usize),
    /// The file has bytes after its declared contents.
    #[error("network file has {0} trailing bytes")]
    Trailing(usize),
    /// A header field is out of range.
    #[error("network header: {0}")]
    Header(String),
    /// The network was made for another variant or board.
    #[error("network is for {found}, not {expected}")]
    Variant {
        /// What the file says.
        found: String,
        /// The variant it was loaded for.
        expected: String,
    },
    /// An output weight is too large for the overflow-free sum.
    #[error("output weight {0} out of range (|w| <= 127)")]
    OutputWeight(i16),
    /// The file names a variant the registry does not have.
    #[error("network is for variant {0:?}, which this engine does not know")]
    UnknownVariant(String),
}

/// A quantised network for one variant (see the module documentation).
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    variant: String,
    inputs: Inputs,
    residual: bool,
    hidden: usize,
    w1: Vec<i16>,
    b1: Vec<i16>,
    w2: Vec<i16>,
    b2: i32,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("variant", &self.variant)
            .field("inputs", &self.inputs)
            .field("residual", &self.residual)
            .field("hidden", &self.hidden)
            .finish_non_exhaustive()
    }
}

/// A little-endian reader over a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NetError> {
        let end = self.at + n;
        if end > self.bytes.len() {
            return Err(NetError::Truncated(end - self.bytes.len()));
        }
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, NetError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, NetError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, NetError> {
        let b = self.take(2 * n)?;
        Ok(b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

impl Network {
    /// Builds a network from its parts (the trainer's export and the tests). `inputs` are
    /// `variant`'s, plain or with king windows; `residual`: the output is a correction added to the
    /// hand-written evaluation instead of the whole evaluation.
    ///
    /// # Errors
    /// [`NetError::Header`] when a size does not match, [`NetError::OutputWeight`] when an
    /// output weight exceeds 127 in size.
    #[allow(clippy::too_many_arguments, reason = "the file's fields, in order")]
    pub fn from_parts(
        variant: &Variant,
        inputs: Inputs,
        hidden: usize,
        w1: Vec<i16>,
        b1: Vec<i16>,
        w2: Vec<i16>,
        b2: i32,
        residual: bool,
    ) -> Result<Self, NetError> {
        if inputs != Inputs::plain(variant) && Some(inputs) != Inputs::king_window(variant) {
            return Err(NetError::Header(format!(
                "inputs {inputs:?} are not {}'s",
                variant.name()
            )));
        }
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(NetError::Header(format!("hidden size {hidden}")));
        }
        if w1.len() != inputs.count() * hidden || b1.len() != hidden || w2.len() != 2 * hidden {
            return Err(NetError::Header("layer sizes do not match".into()));
        }
        if let Some(&w) = w2.iter().find(|w| w.unsigned_abs() > 127) {
            return Err(NetError::OutputWeight(w));
        }
        Ok(Self {
            variant: variant.name().to_owned(),
            inputs,
            residual,
            hidden,
            w1,
            b1,
            w2,
            b2,
        })
    }

    /// The variant a network file names (to pick the variant to load it for).
    ///
    /// # Errors
    /// [`NetError::Magic`] or [`NetError::Truncated`] when the header is not there.
    pub fn peek_variant(bytes: &[u8]) -> Result<String, NetError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8).map_err(|_| NetError::Magic)? != MAGIC {
            return Err(NetError::Magic);
        }
        let name_len = usize::from(r.u16()?);
        Ok(String::from_utf8_lossy(r.take(name_len)?).into_owned())
    }

    /// Reads a network file for the variant it names, looked up in `registry`: the one way the
    /// front ends (UCI `EvalFile`, `bench --eval-file`, the service's `--eval-file`) load a file.
    ///
    /// # Errors
    /// [`NetError::UnknownVariant`] when the registry lacks the variant, else as [`Self::from_bytes`].
    pub fn load(bytes: &[u8], registry: &crate::Registry) -> Result<Self, NetError> {
        let name = Self::peek_variant(bytes)?;
        let variant = registry
            .get(&name)
            .map_err(|_| NetError::UnknownVariant(name.chars().take(100).collect()))?;
        Self::from_bytes(bytes, &variant)
    }

    /// Reads a network file made for `variant`.
    ///
    /// # Errors
    /// [`NetError`] naming what is wrong with the file.
    pub fn from_bytes(bytes: &[u8], variant: &Variant) -> Result<Self, NetError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8).map_err(|_| NetError::Magic)? != MAGIC {
            return Err(NetError::Magic);
        }
        let name_len = usize::from(r.u16()?);
        let name = String::from_utf8_lossy(r.take(name_len)?).into_owned();
        let (files, ranks, kinds, pocket, flags) = (r.u8()?, r.u8()?, r.u8()?, r.u8()?, r.u8()?);
        if flags > 3 {
            return Err(NetError::Header(format!("unknown flags {flags:#x}")));
        }
        let expected = format!(
            "{} ({}x{}, {} kinds)",
            variant.name(),
            variant.files(),
            variant.ranks(),
            variant.kind_count()
        );
        if name != variant.name()
            || files != variant.files()
            || ranks != variant.ranks()
            || usize::from(kinds) != variant.kind_count()
            || (pocket != 0) != variant.has_drops()
        {
            return Err(NetError::Variant {
                found: format!("{name} ({files}x{ranks}, {kinds} kinds)"),
                expected,
            });
        }
        let hidden = usize::from(r.u16()?);
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(NetError::Header(format!("hidden size {hidden}")));
        }
        let inputs = if flags & 2 != 0 {
            Inputs::king_window(variant)
                .ok_or_else(|| NetError::Header("king windows without a royal king".into()))?
        } else {
            Inputs::plain(variant)
        };
        let w1 = r.i16s(inputs.count() * hidden)?;
        let b1 = r.i16s(hidden)?;
        let w2 = r.i16s(2 * hidden)?;
        let b = r.take(4)?;
        let b2 = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if r.at != bytes.len() {
            return Err(NetError::Trailing(bytes.len() - r.at));
        }
        Self::from_parts(variant, inputs, hidden, w1, b1, w2, b2, flags & 1 != 0)
    }

    /// A network for `variant` that scores every position `cp` centipawns for the side to
    /// move (only its output bias is non-zero): the tests' probe for where a network is in
    /// use. The bias is rounded up because the output truncates toward zero.
    #[doc(hidden)]
    pub fn constant(variant: &Variant, cp: i32, residual: bool) -> Self {
        let hidden = 8;
        let inputs = Inputs::plain(variant);
        Self {
            variant: variant.name().to_owned(),
            inputs,
            residual,
            hidden,
            w1: vec![0; inputs.count() * hidden],
            b1: vec![0; hidden],
            w2: vec![0; 2 * hidden],
            b2: (cp * QA * QB + SCALE - 1) / SCALE,
        }
    }

    /// True when the network's output is added to the hand-written evaluation.
    pub fn residual(&self) -> bool {
        self.residual
    }

    /// The file form of the network ([`Network::from_bytes`] reads it back).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + 2 * self.w1.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.variant.len() as u16).to_le_bytes());
        out.extend_from_slice(self.variant.as_bytes());
        out.extend_from_slice(&[
            self.inputs.files,
            self.inputs.ranks,
            self.inputs.kinds as u8,
            u8::from(self.inputs.pocket),
            u8::from(self.residual) | u8::from(self.inputs.windowed()) << 1,
        ]);
        out.extend_from_slice(&(self.hidden as u16).to_le_bytes());
        for w in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        out
    }

    /// The variant the network was trained for.
    pub fn variant_name(&self) -> &str {
        &self.variant
    }

    /// Hidden neurons per perspective.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The quantised layers `(W1, b1, w2, b2)` in the file's order and scales (the trainer
    /// starts a run from them).
    pub fn layers(&self) -> (&[i16], &[i16], &[i16], i32) {
        (&self.w1, &self.b1, &self.w2, self.b2)
    }

    /// Adds (`sign` = 1) or removes (`sign` = -1) input `feature`'s column to `acc`.
    #[inline]
    fn column(&self, acc: &mut [i16], feature: usize, sign: i16) {
        let col = &self.w1[feature * self.hidden..(feature + 1) * self.hidden];
        if sign > 0 {
            for (a, &w) in acc.iter_mut().zip(col) {
                *a = a.wrapping_add(w);
            }
        } else {
            for (a, &w) in acc.iter_mut().zip(col) {
                *a = a.wrapping_sub(w);
            }
        }
    }

    /// Adds `count` times input `feature`'s column to `acc` (a pocket count input).
    #[inline]
    fn column_times(&self, acc: &mut [i16], feature: usize, count: i16) {
        let col = &self.w1[feature * self.hidden..(feature + 1) * self.hidden];
        for (a, &w) in acc.iter_mut().zip(col) {
            *a = a.wrapping_add(w.wrapping_mul(count));
        }
    }

    /// The network's input space.
    pub fn inputs(&self) -> Inputs {
        self.inputs
    }

    /// The centres of `pos`'s king windows from White's and Black's perspectives (`None`
    /// for plain inputs).
    #[inline]
    pub(crate) fn kings(&self, pos: &Position) -> [Option<Square>; 2] {
        Color::ALL.map(|c| self.inputs.window_king(pos, c))
    }

    /// Adds or removes `piece` on `sq` in `perspective`'s half `half` of an accumulator, whose
    /// king window is centred on `king`.
    #[inline]
    fn update_half(
        &self,
        half: &mut [i16],
        perspective: Color,
        king: Option<Square>,
        piece: Piece,
        sq: Square,
        sign: i16,
    ) {
        let (board, window) =
            self.inputs
                .piece(perspective, king, piece.color(), piece.kind().index(), sq);
        self.column(half, board, sign);
        if let Some(w) = window {
            self.column(half, w, sign);
        }
    }

    /// `perspective`'s half of the accumulator of `pos` from scratch, its window on `king`.
    fn refresh_half(
        &self,
        pos: &Position,
        half: &mut [i16],
        perspective: Color,
        king: Option<Square>,
    ) {
        half.copy_from_slice(&self.b1);
        for sq in pos.occupied() {
            if let Some(p) = pos.board[sq.index()] {
                self.update_half(half, perspective, king, p, sq, 1);
            }
        }
    }

    /// The accumulator of `pos` from scratch: both perspectives, White's first, board pieces
    /// only (pockets are added at evaluation time).
    pub(crate) fn refresh(&self, pos: &Position, acc: &mut [i16]) {
        let kings = self.kings(pos);
        let (white, black) = acc.split_at_mut(self.hidden);
        self.refresh_half(pos, white, Color::White, kings[0]);
        self.refresh_half(pos, black, Color::Black, kings[1]);
    }

    /// Brings `acc`, the accumulator of the position before a move whose king windows were
    /// centred on `before_kings`, to `pos`, the position after it: `changes` lists each square
    /// the move touched with its piece before the move (the piece after is read from `pos`).
    /// A perspective whose king moved is recomputed from scratch, since every piece's offset
    /// from it changed. Returns the window centres of `pos`.
    pub(crate) fn apply_move(
        &self,
        acc: &mut [i16],
        before_kings: [Option<Square>; 2],
        pos: &Position,
        changes: &[(Square, Option<Piece>)],
    ) -> [Option<Square>; 2] {
        let kings = self.kings(pos);
        let (white, black) = acc.split_at_mut(self.hidden);
        for (i, (half, perspective)) in [(white, Color::White), (black, Color::Black)]
            .into_iter()
            .enumerate()
        {
            if kings[i] != before_kings[i] {
                self.refresh_half(pos, half, perspective, kings[i]);
                continue;
            }
            for &(sq, before) in changes {
                if let Some(p) = before {
                    self.update_half(half, perspective, kings[i], p, sq, -1);
                }
                if let Some(p) = pos.board[sq.index()] {
                    self.update_half(half, perspective, kings[i], p, sq, 1);
                }
            }
        }
        kings
    }

    /// The evaluation of `pos` in centipawns from the side to move's view, given its board
    /// accumulator `acc` (as [`Network::refresh`] or incremental updates leave it). A drop
    /// variant's pocket inputs are added in `scratch` (at least `2 * hidden` long, its contents
    /// overwritten), which the caller keeps so that no evaluation allocates or clears memory.
    pub(crate) fn evaluate(&self, pos: &Position, acc: &[i16], scratch: &mut [i16]) -> i32 {
        let h = self.hidden;
        let (white, black) = acc.split_at(h);
        let (us, them) = match pos.side {
            Color::White => (white, &black[..h]),
            Color::Black => (&black[..h], white),
        };
        if !self.inputs.pocket {
            return self.output(us, them);
        }
        // Pocket inputs: a count input, so each kind in hand adds its column times the count.
        let (mine, theirs) = scratch[..2 * h].split_at_mut(h);
        mine.copy_from_slice(us);
        theirs.copy_from_slice(them);
        for (slot, perspective) in [(&mut *mine, pos.side), (&mut *theirs, !pos.side)] {
            for c in Color::ALL {
                for k in 0..self.inputs.kinds {
                    let n = pos.pocket[c][k];
                    if n > 0 {
                        let feature = self.inputs.pocket(perspective, c, k);
                        self.column_times(slot, feature, i16::from(n));
                    }
                }
            }
        }
        self.output(mine, theirs)
    }

    /// The output neuron over the side to move's and the other side's accumulators.
    fn output(&self, us: &[i16], them: &[i16]) -> i32 {
        let (w_us, w_them) = self.w2.split_at(self.hidden);
        let mut total: i64 = 0;
        for (acc, w) in [(us, w_us), (them, w_them)] {
            for (a, w) in acc.chunks(128).zip(w.chunks(128)) {
                let mut block: i32 = 0;
                for (&x, &w) in a.iter().zip(w) {
                    let c = i32::from(x).clamp(0, QA);
                    block += c * i32::from(w) * c;
                }
                total += i64::from(block);
            }
        }
        let raw = total / i64::from(QA) + i64::from(self.b2);
        (raw * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// The evaluation of `pos` from scratch (the tests' and the tools' entry point).
    pub fn evaluate_position(&self, pos: &Position) -> i32 {
        let mut acc = vec![0i16; 2 * self.hidden];
        self.refresh(pos, &mut acc);
        self.evaluate(pos, &acc, &mut vec![0; 2 * self.hidden])
    }
}

/// The networks shipped in the binary (`engine/nets/`, recipe and hashes in docs/NNUE.md):
/// `(variant, file)`. One is listed here once it has won its match against the hand-written
/// evaluation: front ends use them by default (UCI `Use NNUE`, the service's `--use-nnue`).
const BUILTIN: &[(&str, &[u8])] = &[
    ("opulent", include_bytes!("../../nets/opulent-r12.nnue")),
    ("soho", include_bytes!("../../nets/soho-r15.nnue")),
    ("decima", include_bytes!("../../nets/decima-r3.nnue")),
];

impl Network {
    /// The network shipped for `variant`, loaded on first use and kept for the rest of the
    /// process, so every caller (bench, UCI, the service) shares one copy that searches can
    /// borrow as `'static`. The first variant of a name to ask decides the load check.
    ///
    /// # Errors
    /// [`NetError`] when the shipped file does not load (a test checks every one does; a
    /// failed load is not kept: the next call tries again).
    pub fn shipped(variant: &Variant) -> Result<Option<&'static Self>, NetError> {
        static SHIPPED: [OnceLock<Network>; BUILTIN.len()] =
            [const { OnceLock::new() }; BUILTIN.len()];
        let Some(i) = BUILTIN.iter().position(|(name, _)| *name == variant.name()) else {
            return Ok(None);
        };
        if let Some(net) = SHIPPED[i].get() {
            return Ok(Some(net));
        }
        let net = Self::from_bytes(BUILTIN[i].1, variant)?;
        Ok(Some(SHIPPED[i].get_or_init(|| net)))
    }
}

/// A stack of accumulators, one per position on the search's current line, in one flat
/// allocation (a push copies the parent's `2 H` values, then the move's updates apply), with
/// each position's king-window centres.
#[derive(Debug, Clone)]
pub(crate) struct AccStack {
    net: &'static Network,
    data: Vec<i16>,
    kings: Vec<[Option<Square>; 2]>,
    len: usize,
    /// Room for the pocket inputs of a drop variant's evaluation (see [`Network::evaluate`]).
    scratch: Vec<i16>,
}

impl AccStack {
    /// An empty stack for `net` with room for `depth` positions.
    pub(crate) fn new(net: &'static Network, depth: usize) -> Self {
        let width = 2 * net.hidden;
        Self {
            data: vec![0; width * depth],
            kings: Vec::with_capacity(depth),
            len: 0,
            scratch: vec![0; width],
            net,
        }
    }

    fn width(&self) -> usize {
        2 * self.net.hidden
    }

    /// Starts over with `pos`'s accumulator, computed from scratch.
    pub(crate) fn reset(&mut self, pos: &Position) {
        let w = self.width();
        if self.data.len() < w {
            self.data.resize(w, 0);
        }
        self.len = 1;
        self.net.refresh(pos, &mut self.data[..w]);
        self.kings.clear();
        self.kings.push(self.net.kings(pos));
    }

    /// Pushes a copy of the top accumulator (and its window centres) and returns the copy.
    fn push_copy(&mut self) -> &mut [i16] {
        let w = self.width();
        if self.data.len() < (self.len + 1) * w {
            self.data.resize((self.len + 1) * w, 0);
        }
        let top = self.len.max(1);
        let (head, tail) = self.data.split_at_mut(top * w);
        if self.len > 0 {
            tail[..w].copy_from_slice(&head[(top - 1) * w..]);
        }
        self.len += 1;
        let kings = self.kings.last().copied().unwrap_or_default();
        self.kings.truncate(self.len - 1);
        self.kings.push(kings);
        &mut tail[..w]
    }

    /// Pushes the accumulator of a null move's position (the board unchanged).
    pub(crate) fn push_null(&mut self) {
        self.push_copy();
    }

    /// Pushes the accumulator of `pos`, the position after a move from the top one: `changes`
    /// lists the squares the move touched with their pieces before it.
    pub(crate) fn push_move(&mut self, pos: &Position, changes: &[(Square, Option<Piece>)]) {
        let before = self.kings.last().copied().unwrap_or_default();
        let net = self.net;
        let acc = self.push_copy();
        let after = net.apply_move(acc, before, pos, changes);
        debug_assert!(
            {
                let mut fresh = vec![0; acc.len()];
                net.refresh(pos, &mut fresh);
                fresh == acc
            },
            "incremental accumulator differs from a refresh in {}",
            pos.fen()
        );
        if let Some(top) = self.kings.last_mut() {
            *top = after;
        }
    }

    /// True when the network corrects the hand-written evaluation.
    pub(crate) fn residual(&self) -> bool {
        self.net.residual
    }

    /// Drops the top accumulator.
    pub(crate) fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
        self.kings.truncate(self.len.max(1));
    }

    /// The evaluation of `pos` with the top accumulator.
    pub(crate) fn evaluate(&mut self, pos: &Position) -> i32 {
        let w = self.width();
        let top = self.len.max(1) - 1;
        self.net
            .evaluate(pos, &self.data[top * w..(top + 1) * w], &mut self.scratch)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::rng::SplitMix64;
    use crate::{Limits, Registry, SearchOptions, Searcher, SearcherConfig, random_playout};

    /// A network with random weights of the sizes a trained one has (first-layer weights
    /// up to ±0.25, biases near 0.3, output weights up to ±1.98 on their grids).
    pub(crate) fn random_net(variant: &Variant, hidden: usize, seed: u64) -> Network {
        random_net_with(variant, Inputs::plain(variant), hidden, seed)
    }

    /// [`random_net`] with the input space `inputs`.
    pub(crate) fn random_net_with(
        variant: &Variant,
        inputs: Inputs,
        hidden: usize,
        seed: u64,
    ) -> Network {
        let mut rng = SplitMix64(seed);
        let mut uniform = |scale: f64| {
            let unit = rng.next_f64();
            (2.0 * unit - 1.0) * scale
        };
        let w1 = (0..inputs.count() * hidden)
            .map(|_| (uniform(0.25) * f64::from(QA)).round() as i16)
            .collect();
        let b1 = (0..hidden)
            .map(|_| ((0.3 + uniform(0.1)) * f64::from(QA)).round() as i16)
            .collect();
        let w2 = (0..2 * hidden)
            .map(|_| (uniform(1.98) * f64::from(QB)).round() as i16)
            .collect();
        let b2 = (uniform(0.1) * f64::from(QA * QB)) as i32;
        Network::from_parts(variant, inputs, hidden, w1, b1, w2, b2, false).unwrap()
    }

    #[test]
    fn every_shipped_network_loads_for_its_variant() {
        let registry = Registry::builtin();
        for (name, _) in BUILTIN {
            let v = registry.get(name).unwrap();
            let net = Network::shipped(&v).unwrap().unwrap();
            assert_eq!(net.variant_name(), *name);
            // The start position is nearly balanced: the correction stays small.
            let e = net.evaluate_position(&Position::new(v.clone()));
            assert!(e.abs() < 100, "{name}: {e}");
        }
        assert!(
            Network::shipped(&registry.get("chess").unwrap())
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_shipped_network_is_loaded_once_and_shared() {
        let registry = Registry::builtin();
        let soho = registry.get("soho").unwrap();
        let a = Network::shipped(&soho).unwrap().unwrap();
        let b = Network::shipped(&soho).unwrap().unwrap();
        assert!(std::ptr::eq(a, b), "a second call loaded another copy");
        assert_eq!(a.variant_name(), "soho");
        assert!(
            Network::shipped(&registry.get("orphic").unwrap())
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn files_round_trip_and_bad_files_are_refused() {
        let registry = Registry::builtin();
        let opulent = registry.get("opulent").unwrap();
        let net = random_net(&opulent, 16, 3);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes, &opulent).unwrap(), net);
        assert_eq!(Network::load(&bytes, &registry).unwrap(), net);
        let mut renamed = bytes.clone();
        // The name follows the magic and its u16 length: "opulent" becomes "opulenx".
        renamed[8 + 2 + 6] = b'x';
        assert_eq!(
            Network::load(&renamed, &registry),
            Err(NetError::UnknownVariant("opulenx".into()))
        );
        let chess = registry.get("chess").unwrap();
        assert!(matches!(
            Network::from_bytes(&bytes, &chess),
            Err(NetError::Variant { .. })
        ));
        assert!(matches!(
            Network::from_bytes(&bytes[..bytes.len() - 3], &opulent),
            Err(NetError::Truncated(_))
        ));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            Network::from_bytes(&longer, &opulent),
            Err(NetError::Trailing(1))
        );
        assert_eq!(
            Network::from_bytes(b"VNNUE00", &opulent),
            Err(NetError::Magic)
        );
        let mut w2 = vec![0; 32];
        w2[5] = 128;
        assert_eq!(
            Network::from_parts(
                &opulent,
                Inputs::plain(&opulent),
                16,
                net.w1.clone(),
                net.b1.clone(),
                w2,
                0,
                false
            ),
            Err(NetError::OutputWeight(128))
        );
    }

    #[test]
    fn king_window_files_round_trip_and_windows_follow_the_king() {
        let registry = Registry::builtin();
        let opulent = registry.get("opulent").unwrap();
        let inputs = Inputs::king_window(&opulent).unwrap();
        let kinds = opulent.kind_count();
        assert_eq!(inputs.count(), 2 * kinds * (100 + WINDOW_SQUARES));
        let net = random_net_with(&opulent, inputs, 8, 4);
        let back = Network::from_bytes(&net.to_bytes(), &opulent).unwrap();
        assert_eq!(back, net);
        assert!(back.inputs().windowed());
        // Decima's kings are not royal: no windowed network for it, nor a file that says so.
        let decima = registry.get("decima").unwrap();
        assert!(Inputs::king_window(&decima).is_none());
        let mut bytes = random_net(&decima, 8, 4).to_bytes();
        let flags_at = 8 + 2 + "decima".len() + 4;
        bytes[flags_at] |= 2;
        assert!(matches!(
            Network::from_bytes(&bytes, &decima),
            Err(NetError::Header(_))
        ));
        let sq = |s: &str| opulent.size().parse_square(s).unwrap();
        let window = |perspective, king: &str, color, piece: &str| {
            inputs
                .piece(perspective, Some(sq(king)), color, 2, sq(piece))
                .1
        };
        // Within three files and ranks only, and the same input for the same offset.
        assert!(window(Color::White, "f2", Color::Black, "i5").is_some());
        assert!(window(Color::White, "f2", Color::Black, "j5").is_none());
        assert!(window(Color::White, "f2", Color::Black, "f6").is_none());
        assert_eq!(
            window(Color::White, "f2", Color::Black, "g4"),
            window(Color::White, "c6", Color::Black, "d8")
        );
        // Black sees the board mirrored: a piece in front of its king is as White's is.
        assert_eq!(
            window(Color::White, "f2", Color::Black, "g4"),
            window(Color::Black, "f9", Color::White, "g7")
        );
        assert_ne!(
            window(Color::White, "f2", Color::Black, "g4"),
            window(Color::White, "f2", Color::White, "g4")
        );
        // No window without a king on the board; the board input is the plain one.
        let (board, none) = inputs.piece(Color::White, None, Color::Black, 2, sq("e5"));
        assert_eq!(none, None);
        assert_eq!(
            board,
            board_feature(Color::White, Color::Black, 2, sq("e5"), 10, kinds)
        );
    }

    #[test]
    fn a_residual_network_corrects_the_hand_written_evaluation() {
        let registry = Registry::builtin();
        let v = registry.get("decima").unwrap();
        let net = Network::constant(&v, 123, true);
        let back = Network::from_bytes(&net.to_bytes(), &v).unwrap();
        assert!(back.residual());
        let hand = crate::HandEval::new(&v);
        let mut terms = crate::EvalTerms::default();
        let leaked: &'static Network = Box::leak(Box::new(back));
        terms.net = Some(leaked);
        let with = crate::eval::Evaluator::new(&v, terms);
        for seed in 1..=5 {
            let pos = random_playout(Position::new(v.clone()), 20, seed);
            assert_eq!(
                with.evaluate(&pos),
                hand.evaluate(&pos) + 123,
                "{}",
                pos.fen()
            );
        }
    }

    #[test]
    fn the_evaluation_is_colour_symmetric_in_its_inputs() {
        // A position and its mirror image (colours swapped, board flipped) give the two
        // perspectives each other's inputs, so the network's score must be the same.
        let registry = Registry::builtin();
        let chess = registry.get("chess").unwrap();
        let net = random_net(&chess, 32, 9);
        let a = Position::from_fen(chess.clone(), "4k3/8/8/3p4/8/2N5/8/4K2R w K - 0 1").unwrap();
        let b = Position::from_fen(chess, "4k2r/8/2n5/8/3P4/8/8/4K3 b k - 0 1").unwrap();
        assert_eq!(net.evaluate_position(&a), net.evaluate_position(&b));
    }

    #[test]
    fn a_search_keeps_the_accumulator_equal_to_a_refresh_in_every_variant() {
        // `ThreadData::play` checks (debug builds, as tests are) that the incrementally
        // updated accumulator equals a refresh after every move, null moves and every move
        // kind included; searches from random playouts reach captures, promotions, castling,
        // en passant, suicide captures and drops with relocation.
        // Variants with a royal king are searched with king windows too: king moves,
        // castling and Orphic's king drops refresh a perspective.
        let registry = Registry::builtin();
        let nets = registry.iter().flat_map(|v| {
            let windowed = Inputs::king_window(v);
            std::iter::once((v, Inputs::plain(v))).chain(windowed.map(|w| (v, w)))
        });
        for (i, (v, inputs)) in nets.enumerate() {
            // Every other network as a correction of the hand-written evaluation.
            let mut net = random_net_with(v, inputs, 16, 5);
            net.residual = i % 2 == 1;
            let net: &'static Network = Box::leak(Box::new(net));
            let searcher = Searcher::new(SearcherConfig { hash_mb: 1 });
            let mut options = SearchOptions::default();
            options.features.eval.net = Some(net);
            let limits = Limits {
                nodes: Some(1500),
                ..Limits::default()
            };
            for seed in 1..=6 {
                for plies in [0, 9, 30, 60] {
                    let pos = random_playout(Position::new(v.clone()), plies, seed);
                    if pos.legal_moves().is_empty() {
                        continue;
                    }
                    let r = searcher.search(
                        &pos,
                        &limits,
                        &options,
                        &AtomicBool::new(false),
                        &mut |_| {},
                    );
                    assert!(r.best_move.is_some(), "{}", pos.fen());
                }
            }
        }
    }
}
