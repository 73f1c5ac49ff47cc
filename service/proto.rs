//! The API types of `chessvariants.engine.v1`, from the `variant-api` crate (generated code,
//! the descriptor set and the hand-written `LegalMovesResponse`), re-exported under the name the
//! service and its tests use for them.
//!
//! Only `convert.rs` (and the thin handlers in `api.rs`) touch these types; the rest of the
//! service works with engine types.

pub use variant_api::*;
