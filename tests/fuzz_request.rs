//! The `request` fuzz target's request handling (`fuzz/src/request.rs`) on fixed inputs: garbage
//! is refused without a panic and each valid request kind reaches the engine. Included here
//! because the fuzz crate is outside the workspace, so its own tests would not run with
//! `cargo test --workspace`.

#[path = "../fuzz/src/request.rs"]
mod request;
