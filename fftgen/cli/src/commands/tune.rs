//! `fftgen tune`: on a GPU, times the shape each size is planned with and
//! its neighbours (launch bound, first write, exchange width, padding
//! search, input caching) against each other, cuFFT and the copy, all in
//! one process and in turn; prints them fastest first with the `fftgen bench`
//! arguments that run each again, and writes JSON; `--write-wisdom FILE`
//! records each size's winner in a wisdom file.

use super::args::{PrecisionArg, RunArgs};
use super::bench::command_line;
use crate::Failure;
use clap::Args;
use fftgen::plan::WisdomFile;
use fftgen::Precision;
use fftgen_cli::bench::runner::tune;
use fftgen_cli::bench::tune::{Dimension, TuneConfig, TuneRow};
use std::path::PathBuf;

#[derive(Args)]
pub struct TuneArgs {
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    precision: PrecisionArg,
    /// Transform lengths to search. A length that runs as several passes
    /// searches its splits into passes and its column I/O (tile or global)
    /// instead of the shape choices of one kernel.
    #[arg(long, value_delimiter = ',', required = true)]
    sizes: Vec<usize>,
    /// Choices to vary around each planned one-kernel shape: bound, first-write,
    /// exchange-width, padding-search, input-caching (the default: all five),
    /// radix-order, threads, factorization (other radix schedules, planned
    /// as the planner would). Every combination is timed.
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
    let config = TuneConfig {
        precision: match args.precision {
            PrecisionArg::F32 => Precision::F32,
            PrecisionArg::F64 => Precision::F64,
        },
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
