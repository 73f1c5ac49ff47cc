//! `variant-loadgen`: parses [`LoadgenArgs`], runs the load and prints the summary, then the
//! `LOADGEN_JSON {...}` line scripts read. Exit code 0 when the run happened (whatever the
//! server answered), 1 on a setup failure.

use std::io::{self, Write};
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
        Ok(summary) => match emit(&mut io::stdout().lock(), &summary.text, &summary.json) {
            // `variant-loadgen ... | head` closes the pipe early: the run happened, and the
            // reader chose to see less of it. Not a failure, and never a panic.
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("loadgen: cannot write the summary: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the summary and the `LOADGEN_JSON` line (`print!` would panic on a closed pipe).
fn emit(out: &mut impl Write, text: &str, json: &impl std::fmt::Display) -> io::Result<()> {
    write!(out, "{text}")?;
    writeln!(out, "LOADGEN_JSON {json}")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that went away after `room` bytes, like `head`.
    struct ClosedAfter {
        room: usize,
    }

    impl Write for ClosedAfter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from(io::ErrorKind::BrokenPipe));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_is_an_error_value_not_a_panic() {
        let err = emit(&mut ClosedAfter { room: 10 }, "a long summary\n", &"{}").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        let mut all = Vec::new();
        emit(&mut all, "summary\n", &"{\"x\":1}").unwrap();
        assert_eq!(
            String::from_utf8(all).unwrap(),
            "summary\nLOADGEN_JSON {\"x\":1}\n"
        );
    }
}
