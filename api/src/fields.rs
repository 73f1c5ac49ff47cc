//! Field numbers of the messages read and written by hand ([`LegalMovesResponse`] and its
//! [`Move`] records), as `proto/` defines them; a test compares each with the descriptor set.
//!
//! [`LegalMovesResponse`]: crate::LegalMovesResponse
//! [`Move`]: crate::Move

/// Fields of `LegalMovesResponse`.
pub mod legal_moves_response {
    /// `repeated Move moves`.
    pub const MOVES: u32 = 1;
    /// `string fen`.
    pub const FEN: u32 = 2;
    /// `GameStatus status`.
    pub const STATUS: u32 = 3;
    /// `repeated string uci_moves`.
    pub const UCI_MOVES: u32 = 4;
}

/// Fields of `Move`.
pub mod move_message {
    /// `string uci`.
    pub const UCI: u32 = 1;
    /// `string san`.
    pub const SAN: u32 = 2;
    /// `string from`.
    pub const FROM: u32 = 3;
    /// `string to`.
    pub const TO: u32 = 4;
    /// `string promotion`.
    pub const PROMOTION: u32 = 5;
    /// `string drop`.
    pub const DROP: u32 = 6;
    /// `string relocation`.
    pub const RELOCATION: u32 = 7;
    /// `bool capture`.
    pub const CAPTURE: u32 = 8;
    /// `bool check`.
    pub const CHECK: u32 = 9;
}

#[cfg(test)]
mod tests {
    use prost::Message as _;
    use prost_types::FileDescriptorSet;

    use super::*;

    /// The number `proto/` gives field `field` of message `message`.
    fn number(set: &FileDescriptorSet, message: &str, field: &str) -> u32 {
        let found = set
            .file
            .iter()
            .flat_map(|f| &f.message_type)
            .find(|m| m.name() == message)
            .unwrap_or_else(|| panic!("no message {message}"))
            .field
            .iter()
            .find(|f| f.name() == field)
            .unwrap_or_else(|| panic!("no field {message}.{field}"));
        u32::try_from(found.number()).expect("positive field number")
    }

    #[test]
    fn field_numbers_are_those_of_the_descriptor_set() {
        let set = FileDescriptorSet::decode(crate::FILE_DESCRIPTOR_SET).expect("descriptor set");
        let response = [
            ("moves", legal_moves_response::MOVES),
            ("fen", legal_moves_response::FEN),
            ("status", legal_moves_response::STATUS),
            ("uci_moves", legal_moves_response::UCI_MOVES),
        ];
        for (field, ours) in response {
            assert_eq!(number(&set, "LegalMovesResponse", field), ours, "{field}");
        }
        let moves = [
            ("uci", move_message::UCI),
            ("san", move_message::SAN),
            ("from", move_message::FROM),
            ("to", move_message::TO),
            ("promotion", move_message::PROMOTION),
            ("drop", move_message::DROP),
            ("relocation", move_message::RELOCATION),
            ("capture", move_message::CAPTURE),
            ("check", move_message::CHECK),
        ];
        for (field, ours) in moves {
            assert_eq!(number(&set, "Move", field), ours, "{field}");
        }
        // Every field of both messages is covered: a new one needs its number here too.
        let count = |message: &str| {
            set.file
                .iter()
                .flat_map(|f| &f.message_type)
                .find(|m| m.name() == message)
                .map_or(0, |m| m.field.len())
        };
        assert_eq!(count("LegalMovesResponse"), response.len());
        assert_eq!(count("Move"), moves.len());
    }
}
