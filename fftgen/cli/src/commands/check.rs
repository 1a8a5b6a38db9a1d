//! `fftgen check`: runs the transform on a backend with random data and
//! prints its relative L2 error against the f64 reference; `--save DIR`
//! writes the input and outputs as .npy files for numpy to cross-check.

use super::args::TransformArgs;
use crate::Failure;
use clap::{Args, ValueEnum};
use fftgen::{Precision, Target};
use fftgen_cli::check::{check_cuda, check_opencl, host_bytes_available, host_bytes_needed};
use fftgen_cli::npy;
use fftgen_runtime::cuda::CudaDevice;
use fftgen_runtime::opencl::OpenClDevice;
use fftgen_runtime::planner::for_target;
use num_complex::Complex;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    transform: TransformArgs,
    /// Where to run the kernels.
    #[arg(long, value_enum, default_value_t = CheckBackend::Opencl)]
    backend: CheckBackend,
    /// Number of transforms in the batch.
    #[arg(long, default_value_t = 16)]
    batch: usize,
    /// Seed of the random input.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// OpenCL platform to use (a substring of its name); by default
    /// FFTGEN_OPENCL_PLATFORM, else NVIDIA, else the first one.
    #[arg(long)]
    platform: Option<String>,
    /// CUDA device ordinal (with --backend cuda).
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Write input.npy and output.npy (or output_forward.npy and output_inverse.npy) here.
    #[arg(long)]
    save: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy)]
enum CheckBackend {
    Opencl,
    Cuda,
}

pub fn run(args: CheckArgs) -> Result<(), Failure> {
    if args.batch == 0 {
        return Err(Failure::Usage(
            "--batch 0 is empty; give a batch of 1 or more transforms".into(),
        ));
    }
    // Bad input is reported before any device is opened.
    let spec = args.transform.spec();
    fftgen::plan::plan(&spec)?;
    check_host_memory(&spec, args.batch)?;
    // Planned for the backend and GPU it runs on, as the runtime plans it.
    let generate = |target: Target| {
        let spec = for_target(&args.transform.spec(), target);
        fftgen::generate(&spec, &spec.emit_command())
    };
    let (generated, report, device_name) = match args.backend {
        CheckBackend::Opencl => {
            let device = match &args.platform {
                Some(name) => OpenClDevice::find(Some(name))?,
                None => OpenClDevice::from_env()?,
            };
            let generated = generate(device.target())?;
            let report = check_opencl(&generated, &device, args.batch, args.seed)?;
            (generated, report, format!("OpenCL {}", device.info().name))
        }
        CheckBackend::Cuda => {
            let device = CudaDevice::new(args.device)?;
            let generated = generate(device.target())?;
            let report = check_cuda(&generated, &device, args.batch, args.seed)?;
            (generated, report, format!("CUDA {}", device.name()))
        }
    };
    let plan = &generated.plan;
    println!(
        "n = {}, batch = {}, {}, radices {:?}, device: {}",
        plan.n,
        args.batch,
        plan.precision,
        plan.passes[0].radices(),
        device_name
    );
    let mut all_passed = true;
    for check in &report.directions {
        let verdict = if check.passed() { "ok" } else { "FAILED" };
        println!(
            "  {:<8} relative L2 error {:.3e} (tolerance {:.3e}) {verdict}",
            check.direction.to_string(),
            check.error,
            check.tolerance
        );
        all_passed &= check.passed();
    }
    if let Some(dir) = &args.save {
        save(dir, &report, plan.precision, args.batch, plan.n)?;
    }
    if all_passed {
        Ok(())
    } else {
        Err(Failure::Inaccurate)
    }
}

/// Refuses a batch whose check would not fit the host's memory, before
/// anything is allocated (without /proc/meminfo, the allocation decides).
fn check_host_memory(spec: &fftgen::FftSpec, batch: usize) -> Result<(), Failure> {
    let Some(available) = host_bytes_available() else {
        return Ok(());
    };
    let needed = host_bytes_needed(spec.n(), batch, spec.precision, spec.directions.len());
    if needed.is_some_and(|bytes| bytes <= available) {
        return Ok(());
    }
    let gib = |bytes: u64| format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30));
    Err(Failure::Usage(format!(
        "checking {batch} transforms of n = {} needs {} of host memory (input, outputs and \
         the f64 reference), but {} are available; use a smaller --batch",
        spec.n(),
        needed.map_or("more than 2^64 bytes".to_string(), gib),
        gib(available)
    )))
}

fn save(
    dir: &Path,
    report: &fftgen_cli::check::CheckReport,
    precision: Precision,
    batch: usize,
    n: usize,
) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", dir.display())))?;
    let mut files = vec![("input.npy".to_string(), &report.input)];
    for check in &report.directions {
        let name = if report.directions.len() == 1 {
            "output.npy".to_string()
        } else {
            format!("output_{}.npy", check.direction)
        };
        files.push((name, &check.output));
    }
    for (name, values) in files {
        let path = dir.join(&name);
        let file = std::fs::File::create(&path)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        let writer = std::io::BufWriter::new(file);
        let shape = [batch, n];
        let result = match precision {
            Precision::F32 => {
                let narrow: Vec<Complex<f32>> = values
                    .iter()
                    .map(|c| Complex::new(c.re as f32, c.im as f32))
                    .collect();
                npy::write(writer, &narrow, &shape)
            }
            Precision::F64 => npy::write(writer, values, &shape),
        };
        result.map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        println!("  saved {}", path.display());
    }
    println!(
        "  cross-check: python3 -c \"import numpy as np; x = np.load('{0}/input.npy'); y = np.load('{0}/{1}'); print(np.linalg.norm(y - np.fft.fft(x, axis=1)) / np.linalg.norm(np.fft.fft(x, axis=1)))\"",
        dir.display(),
        if report.directions.len() == 1 { "output.npy" } else { "output_forward.npy" }
    );
    Ok(())
}
