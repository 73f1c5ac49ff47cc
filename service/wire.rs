//! `LegalMovesResponse`, written by hand so the server can encode its moves straight from the
//! engine's borrowed move descriptions.
//!
//! Why: an answer lists 20-700 moves of four short strings each. Building a `pb::Move` per move
//! (four `String`s) and then encoding them with prost (a length pass, then a copy pass) was
//! most of a `LegalMoves` call's server CPU: allocation, `memmove` of two-byte strings, and
//! varint work per field. Here each move is written once, as protobuf bytes, into one buffer.
//!
//! The type replaces the generated one (`build.rs` maps it with `extern_path`) and keeps its
//! public fields, so clients decode it exactly as before: [`LegalMovesResponse::moves`] is
//! filled by decoding, and the wire format is the `.proto`'s, byte for byte (tests compare it
//! with prost's own encoding of the same moves).

use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{DecodeContext, WireType, encode_varint, message, skip_field, string};
use variant_engine::MoveDescriptionRef;

use crate::proto as pb;

/// Field numbers of `LegalMovesResponse` and `Move`, as in `proto/`.
const RESPONSE_MOVES: u32 = 1;
const RESPONSE_FEN: u32 = 2;
const RESPONSE_STATUS: u32 = 3;
const RESPONSE_UCI_MOVES: u32 = 4;
const MOVE_UCI: u32 = 1;
const MOVE_SAN: u32 = 2;
const MOVE_FROM: u32 = 3;
const MOVE_TO: u32 = 4;
const MOVE_PROMOTION: u32 = 5;
const MOVE_DROP: u32 = 6;
const MOVE_RELOCATION: u32 = 7;
const MOVE_CAPTURE: u32 = 8;
const MOVE_CHECK: u32 = 9;

/// Response of `LegalMoves` (see `proto/chessvariants/engine/v1/engine.proto`).
#[derive(Clone, PartialEq, Default, Debug)]
pub struct LegalMovesResponse {
    /// Every legal move; empty when the game is over by checkmate or stalemate. Filled when a
    /// client decodes an answer; a server writes [`EncodedMoves`] instead.
    pub moves: Vec<pb::Move>,
    /// FEN of the position after replaying position.moves.
    pub fen: String,
    /// Status of that position.
    pub status: Option<pb::GameStatus>,
    /// Every legal move's text (with `MOVE_DETAIL_UCI`). Filled when a client decodes an
    /// answer; a server writes [`EncodedTexts`] instead.
    pub uci_moves: Vec<String>,
    /// Moves already encoded as field-1 records, written before [`Self::moves`].
    pub encoded_moves: EncodedMoves,
    /// Move texts already encoded as field-4 records, written after [`Self::uci_moves`].
    pub encoded_uci_moves: EncodedTexts,
}

/// Records of one repeated length-delimited field (number `FIELD`) of `LegalMovesResponse`,
/// already encoded.
#[derive(Clone, PartialEq, Default, Debug)]
pub struct EncodedRecords<const FIELD: u32> {
    bytes: Vec<u8>,
    count: usize,
}

/// `Move` messages encoded as repeated field 1 (`moves`).
pub type EncodedMoves = EncodedRecords<RESPONSE_MOVES>;

/// Strings encoded as repeated field 4 (`uci_moves`).
pub type EncodedTexts = EncodedRecords<RESPONSE_UCI_MOVES>;

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
        write_str(RESPONSE_UCI_MOVES, text, &mut self.bytes);
        self.count += 1;
    }
}

impl EncodedMoves {
    /// Appends one move, encoded as `pb::Move` would be (fields in number order, empty
    /// strings and false flags left out, as proto3 does).
    ///
    /// Written straight into the buffer with one-byte keys (fields 1-9) and, in practice,
    /// one-byte lengths; the record's length byte is filled in afterwards. Going through
    /// prost's generic key and varint writers per field was about a tenth of a `LegalMoves`
    /// call's server CPU.
    pub fn push(&mut self, d: &MoveDescriptionRef<'_>) {
        let (mut promotion_buf, mut drop_buf) = ([0u8; 4], [0u8; 4]);
        let promotion = d
            .promotion
            .map_or("", |c| &*c.encode_utf8(&mut promotion_buf));
        let drop = d.drop.map_or("", |c| &*c.encode_utf8(&mut drop_buf));
        let from = d.from.unwrap_or("");
        let relocation = d.relocation.unwrap_or("");
        let buf = &mut self.bytes;
        // Keys and lengths of up to seven strings and two flags, and the strings.
        buf.reserve(
            22 + d.uci.len()
                + d.san.len()
                + from.len()
                + d.to.len()
                + promotion.len()
                + drop.len()
                + relocation.len(),
        );
        buf.push(key_byte(RESPONSE_MOVES, WireType::LengthDelimited));
        let len_at = buf.len();
        buf.push(0);
        put_str(buf, MOVE_UCI, d.uci);
        put_str(buf, MOVE_SAN, d.san);
        put_str(buf, MOVE_FROM, from);
        put_str(buf, MOVE_TO, d.to);
        put_str(buf, MOVE_PROMOTION, promotion);
        put_str(buf, MOVE_DROP, drop);
        put_str(buf, MOVE_RELOCATION, relocation);
        for (tag, on) in [(MOVE_CAPTURE, d.capture), (MOVE_CHECK, d.check)] {
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
            message::encode(RESPONSE_MOVES, m, buf);
        }
        if !self.fen.is_empty() {
            string::encode(RESPONSE_FEN, &self.fen, buf);
        }
        if let Some(status) = &self.status {
            message::encode(RESPONSE_STATUS, status, buf);
        }
        string::encode_repeated(RESPONSE_UCI_MOVES, &self.uci_moves, buf);
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
            RESPONSE_MOVES => message::merge_repeated(wire_type, &mut self.moves, buf, ctx),
            RESPONSE_FEN => string::merge(wire_type, &mut self.fen, buf, ctx),
            RESPONSE_STATUS => message::merge(
                wire_type,
                self.status.get_or_insert_with(Default::default),
                buf,
                ctx,
            ),
            RESPONSE_UCI_MOVES => string::merge_repeated(wire_type, &mut self.uci_moves, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        self.encoded_moves.bytes.len()
            + message::encoded_len_repeated(RESPONSE_MOVES, &self.moves)
            + if self.fen.is_empty() {
                0
            } else {
                string::encoded_len(RESPONSE_FEN, &self.fen)
            }
            + self
                .status
                .as_ref()
                .map_or(0, |s| message::encoded_len(RESPONSE_STATUS, s))
            + string::encoded_len_repeated(RESPONSE_UCI_MOVES, &self.uci_moves)
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
    use variant_engine::SplitMix64;
    use variant_engine::{Position, Registry};

    use super::*;
    use crate::convert;

    /// The answer as the generated code would have built it: one `pb::Move` per move, encoded
    /// by prost.
    fn reference(pos: &Position) -> LegalMovesResponse {
        let moves: Vec<pb::Move> = pos
            .describe_moves()
            .into_iter()
            .map(|(_, d)| pb::Move::from(d))
            .collect();
        LegalMovesResponse {
            status: Some(convert::status_with_legal_moves(pos, moves.len())),
            fen: pos.fen(),
            moves,
            ..LegalMovesResponse::default()
        }
    }

    fn check(pos: &Position, seen: &mut [usize; 6]) {
        // The text-only answer: the same texts, in the same order, as the full one.
        let texts = convert::legal_moves_response(pos, pb::MoveDetail::Uci);
        let full = reference(pos);
        let expected = LegalMovesResponse {
            uci_moves: full.moves.iter().map(|m| m.uci.clone()).collect(),
            moves: Vec::new(),
            ..full.clone()
        };
        let bytes = texts.encode_to_vec();
        assert_eq!(
            bytes,
            expected.encode_to_vec(),
            "texts differ at {}",
            pos.fen()
        );
        assert_eq!(bytes.len(), texts.encoded_len());
        assert_eq!(
            LegalMovesResponse::decode(bytes.as_slice()).expect("decodes"),
            expected
        );

        let fast = convert::legal_moves_response(pos, pb::MoveDetail::Full);
        let slow = reference(pos);
        let bytes = fast.encode_to_vec();
        assert_eq!(
            bytes,
            slow.encode_to_vec(),
            "encodings differ at {}",
            pos.fen()
        );
        assert_eq!(bytes.len(), fast.encoded_len());
        let decoded = LegalMovesResponse::decode(bytes.as_slice()).expect("decodes");
        assert_eq!(decoded.moves, slow.moves);
        assert_eq!((decoded.fen, decoded.status), (slow.fen, slow.status));
        assert!(decoded.encoded_moves.is_empty() && decoded.uci_moves.is_empty());
        for m in &slow.moves {
            seen[0] += usize::from(m.capture);
            seen[1] += usize::from(m.check);
            seen[2] += usize::from(!m.promotion.is_empty());
            seen[3] += usize::from(!m.drop.is_empty());
            seen[4] += usize::from(!m.relocation.is_empty());
            seen[5] += 1;
        }
    }

    /// Byte for byte the same as prost's encoding of the same moves, over random games of
    /// every variant (drops, relocations, promotions, captures and checks all occur).
    #[test]
    fn direct_encoding_matches_prost() {
        let mut seen = [0usize; 6];
        for variant in Registry::builtin().iter() {
            for seed in 1..=3 {
                let mut rng = SplitMix64(seed);
                let mut pos = Position::new(variant.clone());
                for _ in 0..120 {
                    check(&pos, &mut seen);
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play(moves[rng.below(moves.len() as u64) as usize]);
                }
            }
        }
        // A promotion with capture and check, to be sure the rarest fields are covered.
        let chess = Registry::builtin().get("chess").expect("chess");
        let pos = Position::from_fen(chess, "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1").expect("fen");
        check(&pos, &mut seen);
        assert!(
            seen.iter().all(|&n| n > 0),
            "a field never occurred: {seen:?}"
        );
    }

    /// A record too long for one length byte (no real move is) takes the general path and
    /// still encodes as prost does; one just short enough takes the fast path.
    #[test]
    fn long_records_match_prost_too() {
        for san_len in [1, 90, 100, 110, 126, 127, 128, 200, 300] {
            let san = "N".repeat(san_len);
            let d = MoveDescriptionRef {
                uci: "a1b3",
                san: &san,
                from: Some("a1"),
                to: "b3",
                promotion: Some('q'),
                drop: None,
                relocation: None,
                capture: true,
                check: true,
            };
            let mut encoded = EncodedMoves::default();
            encoded.push(&d);
            let ours = LegalMovesResponse {
                encoded_moves: encoded,
                ..LegalMovesResponse::default()
            };
            let theirs = LegalMovesResponse {
                moves: vec![pb::Move::from(variant_engine::MoveDescription::from(d))],
                ..LegalMovesResponse::default()
            };
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
        let chess = Registry::builtin().get("chess").expect("chess");
        let mut bytes =
            convert::legal_moves_response(&Position::new(chess), pb::MoveDetail::Unspecified)
                .encode_to_vec();
        string::encode(15, &"future".to_owned(), &mut bytes);
        let decoded = LegalMovesResponse::decode(bytes.as_slice()).expect("decodes");
        assert_eq!(decoded.moves.len(), 20);
    }
}
