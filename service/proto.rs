//! Generated protobuf and tonic types for `chessvariants.engine.v1`.
//!
//! Only `convert.rs` (and the thin handlers in `api.rs`) touch these types; the rest of the
//! service works with engine types.

#![allow(missing_docs, clippy::all, clippy::pedantic, reason = "generated code")]

tonic::include_proto!("chessvariants.engine.v1");

/// Written by hand for speed (see [`crate::wire`]); re-exported so it sits with its siblings.
pub use crate::wire::LegalMovesResponse;

/// Encoded `FileDescriptorSet` of `proto/`, written by `build.rs`, served by reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/chessvariants_descriptor.bin"));
