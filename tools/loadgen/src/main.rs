//! `variant-loadgen`: parses [`LoadgenArgs`], runs the load and prints the summary, then the
//! `LOADGEN_JSON {...}` line scripts read. Exit code 0 when the run happened (whatever the
//! server answered), 1 on a setup failure.

use std::process::ExitCode;

use clap::Parser as _;
use variant_loadgen::{LoadgenArgs, run};

/// mimalloc instead of the system allocator, as in the server: decoding an answer builds
/// hundreds of small strings, and glibc's malloc/free was a large share of the generator's CPU
/// in profiles, which would measure the client's allocator instead of the server.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let args = LoadgenArgs::parse();
    match run(&args).await {
        Ok(summary) => {
            print!("{}", summary.text);
            println!("LOADGEN_JSON {}", summary.json);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}
