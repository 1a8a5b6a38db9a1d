//! `fftgen check`: runs the transform (of any shape and kind, through any
//! layouts) on a backend with random data and prints its relative L2 error
//! against the f64 reference, whether the output buffer's gaps kept their
//! values and whether an out-of-place transform left its input intact;
//! `--save DIR` writes the logical input and outputs, of shape `(batch, n1,
//! n2, ...)` (for `r2c` the reals, and the half spectrum whose last axis is
//! `n / 2 + 1`), as .npy files for numpy to cross-check.

use super::args::{MeasureArgs, TransformArgs};
use crate::Failure;
use clap::{Args, ValueEnum};
use fftgen::{Element, Normalization, Precision, Target, TransformKind};
use fftgen_cli::check::{check_cuda, check_opencl, host_bytes_available, host_bytes_needed};
use fftgen_cli::measured::measured_spec;
use fftgen_cli::npy;
use fftgen_cli::shape::shape_text;
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
    /// Write input.npy and output.npy (or output_forward.npy and
    /// output_inverse.npy) here, of shape (batch, n1, n2, ...): the logical
    /// arrays, gathered from the layouts. For r2c the input and the inverse's
    /// output are real and the forward's output is the half spectrum (last
    /// axis n/2 + 1); the inverse was fed the f64 spectrum of the input.
    #[arg(long)]
    save: Option<PathBuf>,
    #[command(flatten)]
    measure: MeasureArgs,
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
    let spec = args.transform.spec()?;
    fftgen::plan::plan(&spec)?;
    check_host_memory(&spec, args.batch)?;
    // Planned for the backend and GPU it runs on, as the runtime plans it.
    let generate = |target: Target| -> Result<fftgen::Generated, Failure> {
        let spec = for_target(&spec, target);
        let generated = fftgen::generate(&spec, &spec.emit_command())?;
        planned_as_asked(&spec, &generated.manifest)?;
        Ok(generated)
    };
    if args.measure.measure && matches!(args.backend, CheckBackend::Opencl) {
        return Err(Failure::Usage(
            "--measure times plans through CUDA: add --backend cuda".into(),
        ));
    }
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
            let generated = match args.measure.budget() {
                Some(budget) => {
                    let (measured, lines) = measured_spec(&device, &spec, budget)?;
                    lines.iter().for_each(|line| println!("{line}"));
                    let generated = fftgen::generate(&measured, &measured.emit_command())?;
                    planned_as_asked(&measured, &generated.manifest)?;
                    generated
                }
                None => generate(device.target())?,
            };
            let report = check_cuda(&generated, &device, args.batch, args.seed)?;
            (generated, report, format!("CUDA {}", device.name()))
        }
    };
    let plan = &generated.plan;
    if report.shape.len() > 1 {
        print!("shape = {}, ", shape_text(&report.shape));
    }
    let kind = match report.kind {
        TransformKind::C2c => String::new(),
        kind => format!("{kind}, "),
    };
    println!(
        "n = {}, batch = {}, {kind}{}, radices {:?}, device: {}",
        plan.n,
        args.batch,
        plan.precision,
        plan.passes[0].radices(),
        device_name
    );
    let mut all_passed = true;
    for check in &report.directions {
        let verdict = if check.passed() { "ok" } else { "FAILED" };
        let label = match report.kind {
            TransformKind::C2c => check.direction.to_string(),
            kind => format!("{} ({})", check.direction, kind.name(check.direction)),
        };
        println!(
            "  {label:<8} relative L2 error {:.3e} (tolerance {:.3e}) {verdict}",
            check.error, check.tolerance
        );
        if check.gaps_written > 0 {
            println!(
                "  {label:<8} FAILED: wrote {} real(s) of the output buffer outside the output \
                 layout's positions",
                check.gaps_written
            );
        }
        if check.input_written > 0 {
            println!(
                "  {label:<8} FAILED: changed {} real(s) of its input buffer, which an \
                 out-of-place transform must leave intact",
                check.input_written
            );
        }
        all_passed &= check.passed();
    }
    if let Some(dir) = &args.save {
        save(dir, &report, plan.precision, args.batch, plan.normalization)?;
    }
    if all_passed {
        Ok(())
    } else {
        Err(Failure::Inaccurate)
    }
}

/// Refuses to check kernels whose manifest describes another shape or other
/// layouts than the spec asked for (a generator that cannot plan them yet),
/// rather than measure the wrong transform.
fn planned_as_asked(spec: &fftgen::FftSpec, manifest: &fftgen::Manifest) -> Result<(), Failure> {
    let asked = (
        &spec.shape,
        spec.planned_input_layout(),
        spec.planned_output_layout(),
    );
    let planned = (
        &manifest.shape,
        manifest.input.clone(),
        manifest.output.clone(),
    );
    if asked == planned {
        return Ok(());
    }
    Err(Failure::Usage(format!(
        "the generator planned shape {} with layouts {:?} -> {:?}, but shape {} with layouts \
         {:?} -> {:?} was asked for (a bug in fftgen, please report it)",
        shape_text(planned.0),
        planned.1,
        planned.2,
        shape_text(asked.0),
        asked.1,
        asked.2
    )))
}

/// Refuses a batch whose check would not fit the host's memory, before
/// anything is allocated (without /proc/meminfo, the allocation decides).
/// Buffers are counted by their layouts.
fn check_host_memory(spec: &fftgen::FftSpec, batch: usize) -> Result<(), Failure> {
    let Some(available) = host_bytes_available() else {
        return Ok(());
    };
    // Elements of a layout, without overflow: (batch - 1) * distance + span.
    let elements = |layout: &fftgen::Layout, shape: &[usize]| -> Option<usize> {
        let span = 1 + shape
            .iter()
            .zip(&layout.strides)
            .try_fold(0usize, |sum, (&n, &s)| {
                sum.checked_add((n - 1).checked_mul(s)?)
            })?;
        (batch - 1).checked_mul(layout.distance)?.checked_add(span)
    };
    let needed = (|| {
        host_bytes_needed(
            elements(&spec.planned_input_layout(), &spec.shape)?,
            elements(&spec.planned_output_layout(), &spec.complex_shape())?,
            spec.points().checked_mul(batch)?,
            spec.precision,
            spec.directions.len(),
        )
    })();
    if needed.is_some_and(|bytes| bytes <= available) {
        return Ok(());
    }
    let gib = |bytes: u64| format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30));
    Err(Failure::Usage(format!(
        "checking {batch} transforms of shape {} needs {} of host memory (input, outputs and \
         the f64 reference) with the buffers as their layouts lay them out, but {} are \
         available; use a smaller --batch",
        shape_text(&spec.shape),
        needed.map_or("more than 2^64 bytes".to_string(), gib),
        gib(available)
    )))
}

fn save(
    dir: &Path,
    report: &fftgen_cli::check::CheckReport,
    precision: Precision,
    batch: usize,
    normalization: Normalization,
) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", dir.display())))?;
    let batched = |shape: &[usize]| -> Vec<usize> {
        std::iter::once(batch)
            .chain(shape.iter().copied())
            .collect()
    };
    let real_input = report.kind == TransformKind::R2c;
    let mut files = vec![(
        "input.npy".to_string(),
        &report.input,
        batched(&report.shape),
        real_input,
    )];
    let single = report.directions.len() == 1;
    let name = |direction: fftgen::Direction| match single {
        true => "output.npy".to_string(),
        false => format!("output_{direction}.npy"),
    };
    for check in &report.directions {
        files.push((
            name(check.direction),
            &check.output,
            batched(&check.output_shape),
            check.output_element == Element::Real,
        ));
    }
    for (name, values, shape, real) in files {
        let path = dir.join(&name);
        write_npy(&path, values, &shape, precision, real)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?;
        println!("  saved {}", path.display());
    }
    let axes: Vec<String> = (1..=report.shape.len()).map(|a| a.to_string()).collect();
    let axes = axes.join(",");
    let load = |file: &str| format!("np.load('{}/{file}')", dir.display());
    let error = "print(np.linalg.norm(y - f) / np.linalg.norm(f))";
    let unnormalised = match normalization {
        Normalization::None => "",
        _ => " (numpy's side is unnormalised: scale f by the kernels' normalisation)",
    };
    for check in &report.directions {
        let file = name(check.direction);
        let reference = match (report.kind, check.direction) {
            (TransformKind::C2c, fftgen::Direction::Forward) => format!("np.fft.fftn(x, axes=({axes},))"),
            (TransformKind::C2c, fftgen::Direction::Inverse) => format!(
                "np.fft.ifftn(x, axes=({axes},)) * {}",
                report.shape.iter().product::<usize>()
            ),
            (TransformKind::R2c, fftgen::Direction::Forward) => format!("np.fft.rfftn(x, axes=({axes},))"),
            // The C2R was fed the spectrum of the input: n times the input.
            (TransformKind::R2c, fftgen::Direction::Inverse) => format!(
                "np.fft.irfftn(np.fft.rfftn(x, axes=({axes},)), s=x.shape[1:], axes=({axes},)) * {}",
                report.shape.iter().product::<usize>()
            ),
        };
        println!(
            "  cross-check {}{unnormalised}: python3 -c \"import numpy as np; x = {}; y = {}; f = {reference}; {error}\"",
            check.direction,
            load("input.npy"),
            load(&file),
        );
    }
    Ok(())
}

/// Writes `values` to `path` as an array of `shape` in `precision`: their
/// real parts when `real`, else complex values.
fn write_npy(
    path: &Path,
    values: &[Complex<f64>],
    shape: &[usize],
    precision: Precision,
    real: bool,
) -> std::io::Result<()> {
    let writer = std::io::BufWriter::new(std::fs::File::create(path)?);
    match (precision, real) {
        (Precision::F32, false) => {
            let narrow: Vec<Complex<f32>> = values
                .iter()
                .map(|c| Complex::new(c.re as f32, c.im as f32))
                .collect();
            npy::write(writer, &narrow, shape)
        }
        (Precision::F64, false) => npy::write(writer, values, shape),
        (Precision::F32, true) => {
            let reals: Vec<f32> = values.iter().map(|c| c.re as f32).collect();
            npy::write(writer, &reals, shape)
        }
        (Precision::F64, true) => {
            let reals: Vec<f64> = values.iter().map(|c| c.re).collect();
            npy::write(writer, &reals, shape)
        }
    }
}
