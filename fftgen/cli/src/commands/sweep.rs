//! `fftgen sweep`: `fftgen check` over every length of a range (1D C2C,
//! both directions, the default layouts), one line per length, for the
//! accuracy page (scripts/accuracy_page.py writes docs/accuracy.md from
//! it). Through CUDA the kernels of the coming lengths compile on every
//! core (NVRTC, into the compile cache) while the GPU checks the current
//! one, and cuFFT's error on the same input is measured beside ours.
//! Through OpenCL (PoCL in CI) the lengths run one after another.

use crate::Failure;
use clap::{Args, ValueEnum};
use fftgen::{Direction, FftSpec, Generated, Normalization, Precision};
use fftgen_cli::accuracy::{random_input, reference, relative_l2, tolerance};
use fftgen_cli::check::{check_cuda, check_opencl, CheckReport};
use fftgen_runtime::cuda::{CubinCache, CudaDevice};
use fftgen_runtime::opencl::OpenClDevice;
use fftgen_runtime::planner::for_target;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

#[derive(Args)]
pub struct SweepArgs {
    /// First length.
    #[arg(long, default_value_t = 2)]
    from: usize,
    /// Last length (included).
    #[arg(long, default_value_t = 10_000)]
    to: usize,
    /// Every `step`-th length of the range (a sample).
    #[arg(long, default_value_t = 1)]
    step: usize,
    /// Precisions to sweep, in turn.
    #[arg(long, value_delimiter = ',', default_value = "f32,f64")]
    precision: Vec<Precision>,
    /// Where to run the kernels.
    #[arg(long, value_enum, default_value_t = SweepBackend::Opencl)]
    backend: SweepBackend,
    /// OpenCL platform to use (a substring of its name).
    #[arg(long)]
    platform: Option<String>,
    /// Transforms per check.
    #[arg(long, default_value_t = 2)]
    batch: usize,
    /// Threads that generate and compile ahead (CUDA); default: every core.
    #[arg(long)]
    jobs: Option<usize>,
    /// Also write the lines here.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy)]
enum SweepBackend {
    Opencl,
    Cuda,
}

/// The seed of every length's input (`fftgen check`'s default).
const SEED: u64 = 1;

pub fn run(args: SweepArgs) -> Result<(), Failure> {
    if args.from < 2 || args.to < args.from || args.step == 0 || args.batch == 0 {
        return Err(Failure::Usage(
            "give 2 <= --from <= --to, --step 1 or more and --batch 1 or more".into(),
        ));
    }
    let lengths: Vec<usize> = (args.from..=args.to).step_by(args.step).collect();
    let mut out = match &args.out {
        Some(path) => Some(std::fs::File::create(path)?),
        None => None,
    };
    println!("# n precision forward-error inverse-error tolerance cufft-forward-error verdict");
    let mut failed = 0;
    let mut line = |text: String, ok: bool| -> Result<(), Failure> {
        println!("{text}");
        if let Some(file) = &mut out {
            writeln!(file, "{text}")?;
        }
        failed += usize::from(!ok);
        Ok(())
    };
    match args.backend {
        SweepBackend::Opencl => {
            let device = match &args.platform {
                Some(name) => OpenClDevice::find(Some(name))?,
                None => OpenClDevice::from_env()?,
            };
            for &precision in &args.precision {
                for &n in &lengths {
                    let result = generate(n, precision, device.target())
                        .and_then(|g| Ok(check_opencl(&g, &device, args.batch, SEED)?));
                    let (text, ok) = verdict(n, precision, result, None);
                    line(text, ok)?;
                }
            }
        }
        SweepBackend::Cuda => {
            let device = CudaDevice::new(0)?;
            let jobs = args
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, |n| n.get()));
            for &precision in &args.precision {
                let next = AtomicUsize::new(0);
                let (sender, receiver) = mpsc::sync_channel(4 * jobs);
                let (target, arch) = (device.target(), device.arch().to_string());
                std::thread::scope(|scope| -> Result<(), Failure> {
                    for _ in 0..jobs {
                        let sender = sender.clone();
                        let (next, lengths, target, arch) =
                            (&next, &lengths, target.clone(), arch.clone());
                        scope.spawn(move || loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&n) = lengths.get(i) else { break };
                            let generated = generate(n, precision, target.clone()).and_then(|g| {
                                CubinCache::global()
                                    .get_or_compile(&g.cuda_source, &arch)
                                    .map_err(|e| Failure::Usage(e.to_string()))?;
                                Ok(g)
                            });
                            if sender.send((n, generated)).is_err() {
                                break;
                            }
                        });
                    }
                    drop(sender);
                    for (n, generated) in receiver {
                        let result =
                            generated.and_then(|g| Ok(check_cuda(&g, &device, args.batch, SEED)?));
                        let cufft = cufft_error(&device, n, precision, args.batch);
                        let (text, ok) = verdict(n, precision, result, cufft);
                        line(text, ok)?;
                    }
                    Ok(())
                })?;
            }
        }
    }
    eprintln!(
        "{} lengths, {failed} failed",
        lengths.len() * args.precision.len()
    );
    match failed {
        0 => Ok(()),
        _ => Err(Failure::Inaccurate),
    }
}

/// The kernels of the 1D C2C transform of `n` in `precision` for `target`,
/// both directions, unnormalised.
fn generate(n: usize, precision: Precision, target: fftgen::Target) -> Result<Generated, Failure> {
    let spec = for_target(&FftSpec::new(n).precision(precision), target);
    Ok(fftgen::generate(&spec, &spec.emit_command())?)
}

/// The line of one length, and whether it passed.
fn verdict(
    n: usize,
    precision: Precision,
    result: Result<CheckReport, Failure>,
    cufft: Option<f64>,
) -> (String, bool) {
    let cufft = cufft.map_or("-".to_string(), |e| format!("{e:.3e}"));
    match result {
        Ok(report) => {
            let errors: Vec<String> = report
                .directions
                .iter()
                .map(|d| format!("{:.3e}", d.error))
                .collect();
            let ok = report.directions.iter().all(|d| d.passed());
            (
                format!(
                    "{n} {precision} {} {:.3e} {cufft} {}",
                    errors.join(" "),
                    tolerance(n, precision),
                    if ok { "ok" } else { "FAILED" }
                ),
                ok,
            )
        }
        Err(Failure::Usage(why)) => (format!("{n} {precision} - - - {cufft} error: {why}"), false),
        Err(Failure::Inaccurate) => (format!("{n} {precision} - - - {cufft} FAILED"), false),
    }
}

/// cuFFT's relative L2 error on the forward transform of the same input as
/// ours, if cuFFT is there and plans it.
fn cufft_error(device: &CudaDevice, n: usize, precision: Precision, batch: usize) -> Option<f64> {
    use fftgen_cli::bench::cufft::{available, CufftPlan};
    if !available() {
        return None;
    }
    let stream = device.stream();
    let input = random_input(n * batch, SEED);
    // The reference of the input as the device holds it: rounded once.
    let rounded: Vec<num_complex::Complex<f64>> = match precision {
        Precision::F32 => input
            .iter()
            .map(|c| num_complex::Complex::new(c.re as f32 as f64, c.im as f32 as f64))
            .collect(),
        Precision::F64 => input.clone(),
    };
    let want: Vec<num_complex::Complex<f64>> = rounded
        .chunks(n)
        .flat_map(|row| reference(row, n, Direction::Forward, Normalization::None))
        .collect();
    let reals: Vec<f64> = rounded.iter().flat_map(|c| [c.re, c.im]).collect();
    let plan = CufftPlan::new(stream, &[n], batch, precision).ok()?;
    let got: Vec<f64> = match precision {
        Precision::F32 => {
            let host: Vec<f32> = reals.iter().map(|&x| x as f32).collect();
            let mut input = stream.clone_htod(&host).ok()?;
            let mut output = stream.alloc_zeros::<f32>(host.len()).ok()?;
            plan.execute(&mut input, &mut output).ok()?;
            stream
                .clone_dtoh(&output)
                .ok()?
                .into_iter()
                .map(f64::from)
                .collect()
        }
        Precision::F64 => {
            let mut input = stream.clone_htod(&reals).ok()?;
            let mut output = stream.alloc_zeros::<f64>(reals.len()).ok()?;
            plan.execute(&mut input, &mut output).ok()?;
            stream.clone_dtoh(&output).ok()?
        }
    };
    let got: Vec<num_complex::Complex<f64>> = got
        .chunks(2)
        .map(|pair| num_complex::Complex::new(pair[0], pair[1]))
        .collect();
    Some(relative_l2(&got, &want))
}
