//! `cargo bench --bench gpu_fft`: our CUDA kernels against cuFFT and a
//! device-to-device copy on the GPU, through the same library code as
//! `fftgen bench` (see `fftgen::bench`). It prints the table and writes
//! `gpu_fft_<precision>.json`, `.svg` and `.md` under `target/fftgen-bench/`.
//!
//! Settings come from the environment, since `cargo bench` owns the command
//! line: `FFTGEN_BENCH_PRECISION` (`f32`, the default, or `f64`),
//! `FFTGEN_BENCH_SIZES` (e.g. `256,1000,4096`; default every supported size),
//! `FFTGEN_BENCH_NO_OPENCL=1` to skip the OpenCL column. Without a CUDA
//! driver it prints `SKIPPED: ...` and succeeds; built as a test (`cargo test
//! --benches`) it does nothing.

use fftgen::Precision;
use fftgen::TransformKind;
use fftgen_cli::bench::{self, BenchCase, BenchConfig, Outputs};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("gpu_fft: not run as a test; run `cargo bench --bench gpu_fft` on a machine with an NVIDIA GPU");
        return ExitCode::SUCCESS;
    }
    if !fftgen_runtime::driver_available() {
        println!("SKIPPED: gpu_fft needs the CUDA driver (libcuda.so) and an NVIDIA GPU");
        return ExitCode::SUCCESS;
    }
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Runs the benchmark; `Ok(false)` when one of our kernels failed its check.
fn run() -> Result<bool, String> {
    let precision: Precision = match std::env::var("FFTGEN_BENCH_PRECISION") {
        Ok(text) if !text.is_empty() => text.parse()?,
        _ => Precision::F32,
    };
    let mut config = BenchConfig::new(precision);
    if let Ok(text) = std::env::var("FFTGEN_BENCH_SIZES") {
        let shapes: Vec<_> = text
            .split(',')
            .map(|s| {
                fftgen_cli::shape::parse_shape(s.trim())
                    .map_err(|e| format!("FFTGEN_BENCH_SIZES: `{s}`: {e}"))
            })
            .collect::<Result<_, _>>()?;
        config.cases = BenchCase::listed(&shapes, precision, TransformKind::C2c);
    }
    config.opencl = std::env::var_os("FFTGEN_BENCH_NO_OPENCL").is_none();
    config.command = format!(
        "cargo bench --bench gpu_fft (FFTGEN_BENCH_PRECISION={precision}{})",
        std::env::var("FFTGEN_BENCH_SIZES")
            .map(|s| format!(", FFTGEN_BENCH_SIZES={s}"))
            .unwrap_or_default()
    );

    let report = bench::run(&config, |row| {
        let ms = row
            .ours
            .as_ref()
            .map_or("-".to_string(), |t| format!("{:.4}", t.median_ms));
        eprintln!("  N = {:>4}: ours {ms} ms", row.n);
    })
    .map_err(|e| e.to_string())?;
    print!("{}", report.to_text());

    let dir = PathBuf::from(std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into()))
        .join("fftgen-bench");
    let stem = dir.join(format!("gpu_fft_{precision}"));
    let outputs = Outputs {
        json: Some(stem.with_extension("json")),
        svg: Some(stem.with_extension("svg")),
        markdown: Some(stem.with_extension("md")),
    };
    for path in outputs.write(&report).map_err(|e| e.to_string())? {
        println!("wrote {}", path.display());
    }
    Ok(report.rows.iter().all(|row| row.ours_passed()))
}
