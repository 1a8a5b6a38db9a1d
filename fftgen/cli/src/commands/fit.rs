//! `fftgen fit`: fits the one-kernel cost model to `fftgen tune --vary
//! factorization` reports, without a GPU. It prints how the model fitted
//! on one half of the sizes picked on the other half (beside the planner's
//! own shapes), then writes the model fitted on all of them into a wisdom
//! file (`--write-wisdom FILE`, created for the reports' GPU model or
//! updated: its entries stay), citing the reports.

use super::args::PrecisionArg;
use crate::Failure;
use clap::Args;
use fftgen::plan::WisdomFile;
use fftgen::Precision;
use fftgen_cli::bench::fit::{fit_all, fit_on_half, samples, HeldOut};
use std::path::PathBuf;

#[derive(Args)]
pub struct FitArgs {
    /// `fftgen tune --vary factorization` JSON reports, all of one GPU model.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    precision: PrecisionArg,
    /// Threads of a warp on the GPU the reports were measured on.
    #[arg(long, default_value_t = 32)]
    warp_size: usize,
    /// The fewest blocks per SM of the planner's choice for which the model
    /// ranks schedules (sizes whose choice holds an SM alone keep the
    /// planner's rules below it).
    #[arg(long, default_value_t = 2)]
    min_resident_blocks: usize,
    /// Write the model fitted on every size into this wisdom file.
    #[arg(long)]
    write_wisdom: Option<PathBuf>,
}

pub fn run(args: FitArgs) -> Result<(), Failure> {
    let precision = match args.precision {
        PrecisionArg::F32 => Precision::F32,
        PrecisionArg::F64 => Precision::F64,
    };
    let mut all = Vec::new();
    let mut gpu = None;
    for path in &args.reports {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?;
        let report: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Failure::Usage(format!("{} is not JSON: {e}", path.display())))?;
        gpu = gpu.or_else(|| report["model"].as_str().map(str::to_string));
        all.extend(samples(&report, precision).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let unfit = || {
        Failure::Usage(format!(
            "the reports hold too few {precision} one-kernel schedules past 4096 to fit a \
             model: time more sizes with fftgen tune --vary factorization"
        ))
    };
    let (_, held) = fit_on_half(&all, precision, args.warp_size).ok_or_else(unfit)?;
    println!(
        "{} schedules of {} sizes; fitted on half the sizes, on the other {}: the model's pick \
         {:.1}% slower than the fastest on average ({:.1}% at worst), the planner's shape {:.1}% ({:.1}%)",
        all.len(),
        held.sizes.len() * 2,
        held.sizes.len(),
        100.0 * HeldOut::mean(&held.model_loss),
        100.0 * HeldOut::worst(&held.model_loss),
        100.0 * HeldOut::mean(&held.planner_loss),
        100.0 * HeldOut::worst(&held.planner_loss),
    );
    let mut model = fit_all(&all, precision, args.warp_size).ok_or_else(unfit)?;
    model.min_resident_blocks = args.min_resident_blocks;
    model.evidence = args
        .reports
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    println!(
        "on every size: time over the copy's = {:.5} + {:.5} x stages + {:.5} x 1024 / threads resident per SM",
        model.intercept, model.per_stage, model.per_thread_scarcity
    );
    if let Some(path) = &args.write_wisdom {
        let mut file = match path.exists() {
            true => WisdomFile::load(path)?,
            false => WisdomFile {
                gpu: gpu.unwrap_or_else(|| "unknown".into()),
                fallback: false,
                about: "A cost model `fftgen fit` fitted.".into(),
                model: None,
                plan_model: None,
                entries: Vec::new(),
            },
        };
        file.model = Some(model);
        std::fs::write(path, file.to_json())
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
