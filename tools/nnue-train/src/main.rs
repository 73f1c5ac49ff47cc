//! The `nnue-train` program: parses the command line and runs the trainer (see the library's
//! documentation for the options, the loss and the files it writes).

use clap::Parser;

fn main() -> std::process::ExitCode {
    let opts = nnue_train::Options::parse();
    match nnue_train::run(&opts) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nnue-train: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
