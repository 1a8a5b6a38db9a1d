//! GPU correctness on the device machine: every supported size (2..=4096 in
//! f32 and in f64), forward and inverse, against the f64 reference,
//! through CUDA and through the NVIDIA OpenCL driver. Without a CUDA driver
//! (CI has no GPU) each test prints SKIPPED and passes: CI checks the same
//! kernels on PoCL and compiles them with NVRTC instead.
//!
//! `sanitizer_set` is the representative set that compute-sanitizer runs:
//! each radix, the smallest and largest sizes, and f64.

mod common;

use common::{assert_accurate, skip};
use fftgen::plan::factor::supported_sizes;
use fftgen::plan::pass_planner::max_size;
use fftgen::{FftSpec, Generated, Placement, Precision, Target};
use fftgen_cli::check::{check_cuda, check_opencl, CheckReport};
use fftgen_runtime::cuda::CudaDevice;
use fftgen_runtime::opencl::OpenClDevice;

fn cuda() -> Option<CudaDevice> {
    match CudaDevice::new(0) {
        Ok(device) => Some(device),
        Err(e) => {
            skip(&format!("no CUDA device: {e}"));
            None
        }
    }
}

fn nvidia_opencl() -> Option<OpenClDevice> {
    match OpenClDevice::find(Some("NVIDIA")) {
        Ok(device) => Some(device),
        Err(e) => {
            skip(&format!("no NVIDIA OpenCL platform: {e}"));
            None
        }
    }
}

fn batch_for(spec: &FftSpec) -> usize {
    let per_block = fftgen::plan::plan(spec).map_or(1, |p| p.passes[0].ffts_per_block);
    2 * per_block + 1
}

/// Checks every supported size of `precision` as planned for `target` (a
/// ragged batch, seeded by the size), on 8 threads so that the run-time
/// compilations overlap.
fn sweep(
    precision: Precision,
    target: Target,
    check: impl Fn(&Generated, usize, u64) -> CheckReport + Sync,
    backend: &str,
) {
    const THREADS: usize = 8;
    let sizes = supported_sizes(max_size(precision));
    let worst = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|part| {
                let (sizes, check, target) = (&sizes, &check, &target);
                scope.spawn(move || {
                    let mut worst: f64 = 0.0;
                    for &n in sizes.iter().skip(part).step_by(THREADS) {
                        let spec = FftSpec::new(n).precision(precision).target(target.clone());
                        let generated = fftgen::generate(&spec, &spec.emit_command()).unwrap();
                        worst = worst.max(assert_accurate(
                            &check(&generated, batch_for(&spec), n as u64),
                            &format!("{backend} n = {n} {precision}"),
                        ));
                    }
                    worst
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a sweep thread panicked"))
            .fold(0.0, f64::max)
    });
    println!(
        "{backend} {precision}: {} sizes, worst error / tolerance = {worst:.3}",
        sizes.len()
    );
}

/// The result of one backend's check of generated kernels on `device`.
type Check<D> = fn(&Generated, &D, usize, u64) -> Result<CheckReport, fftgen_runtime::Error>;

/// Every size in both precisions on `device`, planned for its target.
fn every_size<D: Sync>(device: &D, target: Target, check: Check<D>, backend: &str) {
    for precision in [Precision::F32, Precision::F64] {
        let run = |generated: &Generated, batch, seed| {
            check(generated, device, batch, seed)
                .unwrap_or_else(|e| panic!("n = {}: {e}", generated.plan.n))
        };
        sweep(precision, target.clone(), run, backend);
    }
}

#[test]
fn cuda_every_size() {
    let Some(device) = cuda() else { return };
    every_size(&device, device.target(), check_cuda, "CUDA");
}

#[test]
fn nvidia_opencl_every_size() {
    let Some(device) = nvidia_opencl() else {
        return;
    };
    every_size(&device, device.target(), check_opencl, "NVIDIA OpenCL");
}

/// Each radix, the smallest and largest sizes, in-place, f64: small batches,
/// so compute-sanitizer's memcheck and racecheck finish quickly.
#[test]
fn sanitizer_set() {
    let Some(device) = cuda() else { return };
    let mut specs = vec![
        FftSpec::new(2),
        FftSpec::new(4096),
        FftSpec::new(4096).radices(&[8, 8, 8, 8]),
        FftSpec::new(4096).placement(Placement::InPlace),
        FftSpec::new(2).precision(Precision::F64),
        FftSpec::new(2048).precision(Precision::F64),
        FftSpec::new(4096).precision(Precision::F64),
        FftSpec::new(143),
        FftSpec::new(1000),
        // The CUDA-only shape of 2401: 343 threads, one radix-7 butterfly each.
        FftSpec::new(2401).target(Target::CUDA),
        // Input loads through L2 only (the measured shapes of 1331 and 64).
        FftSpec::new(1331).target(Target::CUDA),
        FftSpec::new(64).target(Target::CUDA),
        FftSpec::new(4).precision(Precision::F64),
    ];
    // The H200's measured shapes: the interleaved and one-part exchanges,
    // the odd-radix padding, no barrier before the first write, and the
    // staged sizes in blocks of 64 threads.
    for (n, precision) in [
        (2, Precision::F64),
        (4, Precision::F64),
        (8, Precision::F64),
        (4, Precision::F32),
        (32, Precision::F32),
        (1000, Precision::F32),
        (1331, Precision::F32),
        (2187, Precision::F32),
        (2401, Precision::F32),
        (4000, Precision::F32),
        (4096, Precision::F64),
    ] {
        specs.push(FftSpec::new(n).precision(precision).target(Target::H200));
    }
    for radix in [2, 3, 4, 5, 7, 8, 11, 13, 16, 32] {
        specs.push(FftSpec::new(radix * radix).radices(&[radix, radix]));
    }
    for spec in &specs {
        let generated = fftgen::generate(spec, &spec.emit_command()).unwrap();
        let report = check_cuda(&generated, &device, batch_for(spec), 3)
            .unwrap_or_else(|e| panic!("n = {}: {e}", spec.n()));
        assert_accurate(
            &report,
            &format!("sanitizer set n = {} {:?}", spec.n(), spec.choices.radices),
        );
    }
}
