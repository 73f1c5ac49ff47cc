//! `LegalMovesResponse`, written by hand so that a server can encode its moves straight from
//! borrowed text.
//!
//! Why: an answer lists 20-700 moves of four short strings each. Building a [`Move`] per move
//! (four `String`s) and then encoding them with prost (a length pass, then a copy pass) was
//! most of a `LegalMoves` call's server CPU: allocation, `memmove` of two-byte strings, and
//! varint work per field. Here each move is written once, as protobuf bytes, into one buffer
//! ([`EncodedMoves`], [`EncodedTexts`]).
//!
//! The type replaces the generated one (`build.rs` maps it with `extern_path`), so client and
//! server share it. The wire format is the `.proto`'s, byte for byte (tests compare it with
//! prost's own encoding of the same moves), and a client reads a decoded answer through
//! [`LegalMovesResponse::moves`] and its siblings; the fields stay private so that the two
//! forms of the moves (encoded by a server, decoded by a client) cannot be mixed up.

use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{DecodeContext, WireType, encode_varint, message, skip_field, string};

use crate::fields::{legal_moves_response as response, move_message as field};
use crate::{GameStatus, Move};

/// Response of `LegalMoves` (see `proto/chessvariants/engine/v1/engine.proto`).
///
/// A server builds it with [`LegalMovesResponse::encoded`]; decoding fills the plain fields
/// that the accessors read.
#[derive(Clone, PartialEq, Default, Debug)]
pub struct LegalMovesResponse {
    /// Every legal move, as decoded.
    moves: Vec<Move>,
    /// FEN of the position after replaying position.moves.
    fen: String,
    /// Status of that position.
    status: Option<GameStatus>,
    /// Every legal move's text (with `MOVE_DETAIL_UCI`), as decoded.
    uci_moves: Vec<String>,
    /// Moves already encoded as field-1 records, written before `moves`.
    encoded_moves: EncodedMoves,
    /// Move texts already encoded as field-4 records, written after `uci_moves`.
    encoded_uci_moves: EncodedTexts,
}

impl LegalMovesResponse {
    /// A server's answer: the moves (or only their texts) already encoded, the position's FEN
    /// and its status.
    pub fn encoded(
        fen: String,
        status: GameStatus,
        moves: EncodedMoves,
        uci_moves: EncodedTexts,
    ) -> Self {
        Self {
            fen,
            status: Some(status),
            encoded_moves: moves,
            encoded_uci_moves: uci_moves,
            ..Self::default()
        }
    }

    /// An answer with its moves as messages, the shape the generated type would have had (what
    /// decoding produces; for tests and fakes that build one by hand).
    pub fn from_messages(
        moves: Vec<Move>,
        fen: String,
        status: Option<GameStatus>,
        uci_moves: Vec<String>,
    ) -> Self {
        Self {
            moves,
            fen,
            status,
            uci_moves,
            ..Self::default()
        }
    }

    /// The moves of a decoded answer (empty with `MOVE_DETAIL_UCI`, and when the game is over).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The moves of a decoded answer, by value.
    pub fn into_moves(self) -> Vec<Move> {
        self.moves
    }

    /// The move texts of a decoded `MOVE_DETAIL_UCI` answer.
    pub fn uci_moves(&self) -> &[String] {
        &self.uci_moves
    }

    /// FEN of the position after replaying `position.moves`.
    pub fn fen(&self) -> &str {
        &self.fen
    }

    /// Status of that position.
    pub fn status(&self) -> Option<&GameStatus> {
        self.status.as_ref()
    }
}

/// One move's fields, borrowed: what [`EncodedMoves::push`] writes as a `Move` record. Empty
/// strings and false flags are left out, as proto3 does.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct MoveRecord<'a> {
    /// Move text.
    pub uci: &'a str,
    /// SAN.
    pub san: &'a str,
    /// Origin square; empty for a drop.
    pub from: &'a str,
    /// Destination square.
    pub to: &'a str,
    /// Promotion piece letter, or empty.
    pub promotion: &'a str,
    /// Dropped piece letter, or empty.
    pub drop: &'a str,
    /// Where a pawn under a drop goes, or empty.
    pub relocation: &'a str,
    /// Whether the move captures.
    pub capture: bool,
    /// Whether the move gives check.
    pub check: bool,
}

impl From<MoveRecord<'_>> for Move {
    fn from(r: MoveRecord<'_>) -> Self {
        let MoveRecord {
            uci,
            san,
            from,
            to,
            promotion,
            drop,
            relocation,
            capture,
            check,
        } = r;
        Move {
            uci: uci.to_owned(),
            san: san.to_owned(),
            from: from.to_owned(),
            to: to.to_owned(),
            promotion: promotion.to_owned(),
            drop: drop.to_owned(),
            relocation: relocation.to_owned(),
            capture,
            check,
        }
    }
}

/// Records of one repeated length-delimited field (number `FIELD`) of `LegalMovesResponse`,
/// already encoded.
#[derive(Clone, PartialEq, Default, Debug)]
pub struct EncodedRecords<const FIELD: u32> {
    bytes: Vec<u8>,
    count: usize,
}

/// `Move` messages encoded as repeated field 1 (`moves`).
pub type EncodedMoves = EncodedRecords<{ response::MOVES }>;

/// Strings encoded as repeated field 4 (`uci_moves`).
pub type EncodedTexts = EncodedRecords<{ response::UCI_MOVES }>;

impl<const FIELD: u32> EncodedRecords<FIELD> {
    /// An empty list with room for `bytes` bytes.
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(bytes),
            count: 0,
        }
    }

    /// Number of records written.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when no record was written.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl EncodedTexts {
    /// Appends one text (an empty one too: a repeated string keeps its empty elements).
    pub fn push(&mut self, text: &str) {
        write_str(response::UCI_MOVES, text, &mut self.bytes);
        self.count += 1;
    }
}

impl EncodedMoves {
    /// Appends one move, encoded as `Move` would be (fields in number order, empty strings and
    /// false flags left out, as proto3 does).
    ///
    /// Written straight into the buffer with one-byte keys (fields 1-9) and, in practice,
    /// one-byte lengths; the record's length byte is filled in afterwards. Going through
    /// prost's generic key and varint writers per field was about a tenth of a `LegalMoves`
    /// call's server CPU.
    pub fn push(&mut self, r: &MoveRecord<'_>) {
        let buf = &mut self.bytes;
        // Keys and lengths of up to seven strings and two flags, and the strings.
        buf.reserve(
            22 + r.uci.len()
                + r.san.len()
                + r.from.len()
                + r.to.len()
                + r.promotion.len()
                + r.drop.len()
                + r.relocation.len(),
        );
        buf.push(key_byte(response::MOVES, WireType::LengthDelimited));
        let len_at = buf.len();
        buf.push(0);
        put_str(buf, field::UCI, r.uci);
        put_str(buf, field::SAN, r.san);
        put_str(buf, field::FROM, r.from);
        put_str(buf, field::TO, r.to);
        put_str(buf, field::PROMOTION, r.promotion);
        put_str(buf, field::DROP, r.drop);
        put_str(buf, field::RELOCATION, r.relocation);
        for (tag, on) in [(field::CAPTURE, r.capture), (field::CHECK, r.check)] {
            if on {
                buf.push(key_byte(tag, WireType::Varint));
                buf.push(1);
            }
        }
        let len = buf.len() - len_at - 1;
        if let Ok(byte) = u8::try_from(len)
            && byte < 0x80
        {
            buf[len_at] = byte;
        } else {
            // A record of 128 bytes or more (no real move): its length needs more varint bytes.
            let body = buf.split_off(len_at + 1);
            buf.truncate(len_at);
            encode_varint(len as u64, buf);
            buf.extend_from_slice(&body);
        }
        self.count += 1;
    }
}

/// The one-byte key of field `tag` (below 16) with `wire_type`.
#[inline]
const fn key_byte(tag: u32, wire_type: WireType) -> u8 {
    ((tag << 3) | wire_type as u32) as u8
}

/// Writes a string field of a message, left out when empty as proto3 does.
#[inline]
fn put_str(buf: &mut Vec<u8>, tag: u32, s: &str) {
    if !s.is_empty() {
        write_str(tag, s, buf);
    }
}

impl prost::Message for LegalMovesResponse {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.encoded_moves.bytes);
        for m in &self.moves {
            message::encode(response::MOVES, m, buf);
        }
        if !self.fen.is_empty() {
            string::encode(response::FEN, &self.fen, buf);
        }
        if let Some(status) = &self.status {
            message::encode(response::STATUS, status, buf);
        }
        string::encode_repeated(response::UCI_MOVES, &self.uci_moves, buf);
        buf.put_slice(&self.encoded_uci_moves.bytes);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            response::MOVES => message::merge_repeated(wire_type, &mut self.moves, buf, ctx),
            response::FEN => string::merge(wire_type, &mut self.fen, buf, ctx),
            response::STATUS => message::merge(
                wire_type,
                self.status.get_or_insert_with(Default::default),
                buf,
                ctx,
            ),
            response::UCI_MOVES => string::merge_repeated(wire_type, &mut self.uci_moves, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.encoded_moves.bytes.len()
            + message::encoded_len_repeated(response::MOVES, &self.moves)
            + if self.fen.is_empty() {
                0
            } else {
                string::encoded_len(response::FEN, &self.fen)
            }
            + self
                .status
                .as_ref()
                .map_or(0, |s| message::encoded_len(response::STATUS, s))
            + string::encoded_len_repeated(response::UCI_MOVES, &self.uci_moves)
            + self.encoded_uci_moves.bytes.len()
    }

    fn clear(&mut self) {
        self.moves.clear();
        self.fen.clear();
        self.status = None;
        self.uci_moves.clear();
        self.encoded_moves = EncodedMoves::default();
        self.encoded_uci_moves = EncodedTexts::default();
    }
}

/// Writes a string field, even an empty one (a repeated string keeps its empty elements): a
/// one-byte key (every field here is below 16), the length (one byte in practice) and the
/// bytes, what prost's `string::encode` writes, without needing a `String`.
#[inline]
fn write_str(tag: u32, s: &str, buf: &mut Vec<u8>) {
    buf.push(key_byte(tag, WireType::LengthDelimited));
    if s.len() < 0x80 {
        buf.push(s.len() as u8);
    } else {
        encode_varint(s.len() as u64, buf);
    }
    buf.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;

    /// A record too long for one length byte (no real move is) takes the general path and
    /// still encodes as prost does; one just short enough takes the fast path.
    #[test]
    fn long_records_match_prost_too() {
        for san_len in [1, 90, 100, 110, 126, 127, 128, 200, 300] {
            let san = "N".repeat(san_len);
            let record = MoveRecord {
                uci: "a1b3",
                san: &san,
                from: "a1",
                to: "b3",
                promotion: "q",
                drop: "",
                relocation: "",
                capture: true,
                check: true,
            };
            let mut encoded = EncodedMoves::default();
            encoded.push(&record);
            let ours = LegalMovesResponse {
                encoded_moves: encoded,
                ..LegalMovesResponse::default()
            };
            let theirs =
                LegalMovesResponse::from_messages(vec![record.into()], String::new(), None, vec![]);
            assert_eq!(
                ours.encode_to_vec(),
                theirs.encode_to_vec(),
                "san of {san_len}"
            );
            assert_eq!(ours.encoded_len(), theirs.encoded_len(), "san of {san_len}");
        }
    }

    /// Unknown fields are skipped, as in generated code (a newer server may add fields).
    #[test]
    fn unknown_fields_are_skipped() {
        let mut moves = EncodedMoves::default();
        let squares: Vec<String> = (1..=20).map(|i| format!("a{i}")).collect();
        for to in &squares {
            moves.push(&MoveRecord {
                uci: to,
                to,
                ..MoveRecord::default()
            });
        }
        let answer = LegalMovesResponse::encoded(
            "8/8 w - - 0 1".into(),
            GameStatus::default(),
            moves,
            EncodedTexts::default(),
        );
        let mut bytes = answer.encode_to_vec();
        string::encode(15, &"future".to_owned(), &mut bytes);
        let decoded = LegalMovesResponse::decode(bytes.as_slice()).expect("decodes");
        assert_eq!(decoded.moves().len(), 20);
        assert_eq!(decoded.fen(), "8/8 w - - 0 1");
    }
}
