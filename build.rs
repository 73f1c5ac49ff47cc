//! Build script of the `variant-api` package (`api/Cargo.toml` names it with
//! `build = "../build.rs"`): compiles `proto/` with the pure-Rust `protox` compiler (no system
//! `protoc` needed) and generates the tonic server and client with `tonic-prost-build`.
//!
//! The encoded `FileDescriptorSet` is written to `OUT_DIR` by hand because
//! `file_descriptor_set_path` is ignored by `compile_fds`; server reflection serves it.

use std::{env, fs, path::PathBuf};

use prost::Message as _;

/// `proto/` and the files in it, relative to the repository root.
const PROTO_ROOT: &str = "proto";
const PROTO_FILES: &[&str] = &["proto/chessvariants/engine/v1/engine.proto"];
/// Name the API crate's `lib.rs` includes with `include_bytes!`.
const DESCRIPTOR_FILE: &str = "chessvariants_descriptor.bin";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Cargo runs a build script in its package's directory (api/); the protos are at the root.
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?).join("..");
    let proto_root = root.join(PROTO_ROOT);
    println!("cargo:rerun-if-changed={}", proto_root.display());
    let files: Vec<PathBuf> = PROTO_FILES.iter().map(|f| root.join(f)).collect();
    let fds = protox::compile(&files, [&proto_root])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join(DESCRIPTOR_FILE), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        // Hand-written so a server can encode its moves without building a message per move
        // (api/src/legal_moves.rs); same fields and wire format.
        .extern_path(
            ".chessvariants.engine.v1.LegalMovesResponse",
            "crate::legal_moves::LegalMovesResponse",
        )
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
