//! `variant-api`: the gRPC API of the chess-variant service, package `chessvariants.engine.v1`,
//! for the server and for Rust clients alike.
//!
//! It holds the tonic/prost code generated from `proto/` by the repository's root `build.rs`
//! (every message, `game_engine_client` and `game_engine_server`), the encoded descriptor set
//! that server reflection serves ([`FILE_DESCRIPTOR_SET`]), and one hand-written message,
//! [`LegalMovesResponse`], whose codec lets a server write hundreds of moves without building a
//! message per move. Its field numbers, and those of [`Move`], are written once in [`fields`]
//! and checked against the descriptor set.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fields;
mod legal_moves;

/// The generated code: messages, enums, client and server.
mod generated {
    #![allow(
        missing_docs,
        unreachable_pub,
        clippy::all,
        clippy::pedantic,
        reason = "generated code"
    )]

    tonic::include_proto!("chessvariants.engine.v1");
}

pub use generated::*;
pub use legal_moves::{EncodedMoves, EncodedRecords, EncodedTexts, LegalMovesResponse, MoveRecord};

/// Encoded `FileDescriptorSet` of `proto/`, written by `build.rs`, served by reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/chessvariants_descriptor.bin"));
