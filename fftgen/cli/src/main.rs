//! The `fftgen` command: `emit` writes kernel sources and their manifest,
//! `plan` prints how a size will be computed, `check` runs the kernels on a
//! real backend and measures their error, `bench` times the CUDA kernels
//! against cuFFT on a GPU, `tune` times shapes around the plan against each
//! other there. Errors are one line on stderr and exit code 2; a
//! check above tolerance exits with 1.

mod commands;

use clap::{Parser, Subcommand};
use commands::{bench, check, emit, fit, plan, sweep, tune};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fftgen",
    version,
    about = "Generate GPU FFT kernels (CUDA and OpenCL C)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write .cu and .cl sources and a JSON launch manifest for one size.
    Emit(emit::EmitArgs),
    /// Print the plan for one size: radices, threads, shared memory, operations.
    Plan(plan::PlanArgs),
    /// Run the transform on a backend with random data and report its error.
    Check(check::CheckArgs),
    /// Check every length of a range (1D C2C, f32 and f64) and write one line per length.
    Sweep(sweep::SweepArgs),
    /// Time the CUDA kernels against cuFFT and a device copy on a GPU; write JSON, SVG, Markdown.
    Bench(bench::BenchArgs),
    /// Time each size's planned shape and its neighbours against each other and cuFFT on a GPU.
    Tune(tune::TuneArgs),
    /// Fit the one-kernel cost model to tune reports (no GPU) and write it into a wisdom file.
    Fit(fit::FitArgs),
}

/// What a subcommand reports when it fails.
pub enum Failure {
    /// Bad input or an unavailable backend: exit code 2.
    Usage(String),
    /// The transform ran but was less accurate than the tolerance: exit code 1.
    Inaccurate,
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure::Usage(error.to_string())
    }
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`fftgen plan
    // --n 65536 | head`) would panic; end quietly instead, as Unix tools do.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any
    // thread starts has no other effect on this process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Emit(args) => emit::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Check(args) => check::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Fit(args) => fit::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Inaccurate) => ExitCode::from(1),
    }
}
