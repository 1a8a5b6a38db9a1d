//! `fftgen tune`: on a GPU, times the shape each size is planned with and
//! its neighbours (launch bound, first write, exchange width, padding
//! search, input caching) against each other, cuFFT and the copy, all in
//! one process and in turn; prints them fastest first with the `fftgen bench`
//! arguments that run each again, and writes JSON; `--write-wisdom FILE`
//! records each size's winner in a wisdom file. It tunes complex (`c2c`)
//! shapes only: the real axis of a real transform runs a complex FFT (of
//! N / 2 for even N, else of N) shaped from the C2C choices and wisdom of
//! that size, so `--kind r2c` is refused with the sizes to tune instead.

use super::args::{PrecisionArg, RunArgs};
use super::bench::command_line;
use crate::Failure;
use clap::Args;
use fftgen::plan::WisdomFile;
use fftgen::{FftSpec, Precision, TransformKind};
use fftgen_cli::bench::runner::tune;
use fftgen_cli::bench::tune::{Dimension, TuneConfig, TuneRow};
use std::path::PathBuf;

#[derive(Args)]
pub struct TuneArgs {
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    precision: PrecisionArg,
    /// Transform lengths to search. A length that runs as several passes
    /// searches its splits into passes and its column I/O (tile or global)
    /// instead of the shape choices of one kernel, or with `--vary
    /// column-passes` its column passes' block shapes.
    #[arg(long, value_delimiter = ',', required = true)]
    sizes: Vec<usize>,
    /// c2c only; for r2c, tune the complex size n/2 (the message says so).
    #[arg(long, default_value = "c2c")]
    kind: TransformKind,
    /// Choices to vary around each planned one-kernel shape: bound, first-write,
    /// exchange-width, padding-search, input-caching (the default: all five),
    /// twiddle-tables (direct, or fine x coarse for the large stages),
    /// radix-order, threads, factorization (other radix schedules, planned
    /// as the planner would), stage-graph (seed 004: the factorization's
    /// schedules give each stage its cost in place, and the cheapest path
    /// over them is timed against the plan). Every combination is timed.
    /// For lengths of several passes, column-passes: over the planned split,
    /// each column pass length's launch bound, FFTs per block and threads,
    /// one length at a time; the fastest is written as a column-pass entry.
    #[arg(long, value_delimiter = ',')]
    vary: Option<Vec<Dimension>>,
    #[command(flatten)]
    run: RunArgs,
    /// Where to write the JSON report.
    #[arg(long, default_value = "tune.json")]
    json: PathBuf,
    /// Write each size's fastest accurate shape into this wisdom file
    /// (created for this GPU model, or updated: entries of other sizes stay),
    /// citing the JSON report as the evidence; plan with it through
    /// FFTGEN_WISDOM=FILE or `--wisdom FILE`.
    #[arg(long)]
    write_wisdom: Option<PathBuf>,
}

pub fn run(args: TuneArgs) -> Result<(), Failure> {
    let precision = match args.precision {
        PrecisionArg::F32 => Precision::F32,
        PrecisionArg::F64 => Precision::F64,
    };
    refuse_real(args.kind, &args.sizes, precision)?;
    let config = TuneConfig {
        precision,
        sizes: args.sizes,
        dimensions: args.vary.unwrap_or_else(|| Dimension::DEFAULT.to_vec()),
        schedule: args.run.schedule(5)?,
        device: args.run.device,
        seed: args.run.seed,
        command: command_line(),
    };
    let report = tune(&config, |row: &TuneRow| eprint!("{}", row.to_text()))?;
    println!("{}", report.to_text());
    std::fs::write(&args.json, report.to_json())
        .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", args.json.display())))?;
    println!("wrote {}", args.json.display());
    if let Some(path) = &args.write_wisdom {
        let existing = path.exists().then(|| WisdomFile::load(path)).transpose()?;
        let wisdom = report.wisdom(existing, &args.json.display().to_string());
        std::fs::write(path, wisdom.to_json())
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        println!(
            "wrote {} ({} entries)",
            path.display(),
            wisdom.entries.len()
        );
    }
    Ok(())
}

/// Refuses `--kind r2c`, naming the complex sizes to tune instead: the
/// real axis's pass plans its complex FFT (of n / 2 on the half-length
/// route, of n on the full-length one) from the C2C shapes and wisdom of
/// that size.
fn refuse_real(kind: TransformKind, sizes: &[usize], precision: Precision) -> Result<(), Failure> {
    if kind == TransformKind::C2c {
        return Ok(());
    }
    let complex = sizes
        .iter()
        .map(|&n| {
            let spec = FftSpec::new(n).kind(kind).precision(precision);
            let plan = fftgen::plan::plan(&spec)?;
            let step = plan.passes.iter().find_map(|pass| pass.real);
            Ok(step.map_or(n, |step| step.real_side_len()).to_string())
        })
        .collect::<Result<Vec<String>, fftgen::Error>>()?;
    Err(Failure::Usage(format!(
        "fftgen tune measures complex (c2c) shapes only; the real axis of an r2c transform \
         runs a complex FFT (of n/2 for even n, else of n), shaped where one kernel computes it \
         from the c2c choices and wisdom of that size, so tune those: fftgen tune --sizes {}",
        complex.join(",")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_transforms_are_refused_with_the_complex_sizes_to_tune() {
        assert!(refuse_real(TransformKind::C2c, &[4096], Precision::F32).is_ok());
        let refused = refuse_real(TransformKind::R2c, &[4096, 1331, 65536], Precision::F32);
        let Err(Failure::Usage(message)) = refused else {
            panic!("r2c was not refused");
        };
        // Half length for even n (in one kernel, or in passes past one as
        // 65536), full length for odd n.
        assert!(message.contains("--sizes 2048,1331,32768"), "{message}");
    }
}
