//! Compiles `proto/` with the pure-Rust `protox` compiler (no system `protoc` needed) and
//! generates the tonic server and client with `tonic-prost-build`.
//!
//! The encoded `FileDescriptorSet` is written to `OUT_DIR` by hand because
//! `file_descriptor_set_path` is ignored by `compile_fds`; server reflection serves it.

use std::{env, fs, path::PathBuf};

use prost::Message as _;

const PROTO_ROOT: &str = "proto";
const PROTO_FILES: &[&str] = &["proto/chessvariants/engine/v1/engine.proto"];
/// Name the service's `proto.rs` includes with `include_bytes!`.
const DESCRIPTOR_FILE: &str = "chessvariants_descriptor.bin";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed={PROTO_ROOT}");
    let fds = protox::compile(PROTO_FILES, [PROTO_ROOT])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join(DESCRIPTOR_FILE), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        // Hand-written so the server can encode its moves without building a message per move
        // (service/wire.rs); same fields and wire format.
        .extern_path(
            ".chessvariants.engine.v1.LegalMovesResponse",
            "crate::wire::LegalMovesResponse",
        )
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
