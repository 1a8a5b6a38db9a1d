//! Shared helpers of the workspace tests: random inputs with fixed seeds, the
//! f64 reference transform, relative L2 errors and the tolerance rule, and
//! access to the OpenCL (PoCL) device and NVRTC that fail loudly in CI.
#![allow(dead_code)]

pub mod manifest_client;

use fftgen::Direction;
use fftgen_runtime::opencl::OpenClDevice;
use num_complex::Complex;

#[allow(unused_imports)]
pub use fftgen_cli::accuracy::{random_input, relative_l2, tolerance, TOLERANCE_C};

/// The unnormalised f64 reference (RustFFT) of a batch of length-`n` transforms.
pub fn reference(input: &[Complex<f64>], n: usize, direction: Direction) -> Vec<Complex<f64>> {
    fftgen_cli::accuracy::reference(input, n, direction, fftgen::Normalization::None)
}

/// Textbook O(n^2) DFT in f64, to check the reference itself.
pub fn naive_dft(input: &[Complex<f64>], direction: Direction) -> Vec<Complex<f64>> {
    let n = input.len();
    (0..n)
        .map(|k| {
            input
                .iter()
                .enumerate()
                .map(|(j, x)| {
                    let angle =
                        direction.sign() as f64 * std::f64::consts::TAU * ((j * k) % n) as f64
                            / n as f64;
                    x * Complex::new(angle.cos(), angle.sin())
                })
                .sum()
        })
        .collect()
}

pub fn in_ci() -> bool {
    matches!(std::env::var("CI").as_deref(), Ok("true") | Ok("1"))
}

/// The shared PoCL device, or `None` (with a visible message) outside CI when
/// PoCL is missing; in CI a missing PoCL fails the test.
pub fn pocl() -> Option<&'static OpenClDevice> {
    match OpenClDevice::shared_pocl() {
        Ok(device) => Some(device),
        Err(e) if in_ci() => panic!("CI=true but PoCL is unavailable: {e}"),
        Err(e) => {
            skip(&format!("PoCL unavailable: {e}"));
            None
        }
    }
}

/// True when NVRTC can be used; false (with a visible message) outside CI.
pub fn nvrtc() -> bool {
    if fftgen_runtime::cuda::nvrtc_available() {
        true
    } else if in_ci() {
        panic!(
            "CI=true but NVRTC is unavailable: install nvidia-cuda-nvrtc and set LD_LIBRARY_PATH"
        );
    } else {
        skip("NVRTC unavailable (pip install nvidia-cuda-nvrtc, set LD_LIBRARY_PATH)");
        false
    }
}

/// CUDA device 0, or `None` (with a visible message naming `test`) where
/// there is no driver or no device: CI has no GPU, so this always skips.
pub fn gpu(test: &str) -> Option<fftgen_runtime::cuda::CudaDevice> {
    if !fftgen_runtime::driver_available() {
        skip(&format!("{test}: no CUDA driver"));
        return None;
    }
    match fftgen_runtime::cuda::CudaDevice::new(0) {
        Ok(device) => Some(device),
        Err(e) => {
            skip(&format!("{test}: {e}"));
            None
        }
    }
}

/// Prints a skip notice that survives the test harness's output capture.
pub fn skip(reason: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {reason}");
}

/// Widens a batch of f32 or f64 values to f64.
pub fn widen<T: Into<f64> + Copy>(values: &[Complex<T>]) -> Vec<Complex<f64>> {
    values
        .iter()
        .map(|c| Complex::new(c.re.into(), c.im.into()))
        .collect()
}

/// Asserts every direction of `report` is within tolerance, left the
/// output buffer's gaps and (out of place) its input as they were, naming
/// the transform by `label`; returns the worst error over its tolerance.
pub fn assert_accurate(report: &fftgen_cli::check::CheckReport, label: &str) -> f64 {
    let mut worst: f64 = 0.0;
    for check in &report.directions {
        assert!(
            check.passed(),
            "{label} {} ({}): relative L2 error {:.3e} (tolerance {:.3e}), {} real(s) of the \
             output's gaps and {} of the input written",
            check.direction,
            report.kind.name(check.direction),
            check.error,
            check.tolerance,
            check.gaps_written,
            check.input_written
        );
        worst = worst.max(check.error / check.tolerance);
    }
    worst
}

/// Generates `spec` (of either kind: for `r2c` the forward R2C is checked
/// on random reals and the inverse C2R on their f64 spectrum, see
/// `fftgen_cli::check`), runs it on PoCL for `batch` transforms of random
/// data (seeded by its size) and asserts every direction is within the
/// tolerance; returns the worst error over its tolerance (0 when PoCL is
/// missing outside CI). `origin` names the test in the generated headers.
pub fn check_spec_on_pocl(spec: &fftgen::FftSpec, batch: usize, origin: &str) -> f64 {
    if pocl().is_none() {
        return 0.0;
    }
    let generated =
        fftgen::generate(spec, origin).unwrap_or_else(|e| panic!("shape {:?}: {e}", spec.shape));
    check_generated_on_pocl(&generated, batch)
}

/// [`check_spec_on_pocl`] of kernels already generated.
pub fn check_generated_on_pocl(generated: &fftgen::Generated, batch: usize) -> f64 {
    let Some(device) = pocl() else { return 0.0 };
    let plan = &generated.plan;
    let n = plan.shape.iter().product::<usize>();
    let report = fftgen_cli::check::check_opencl(generated, device, batch, n as u64)
        .unwrap_or_else(|e| panic!("shape {:?} {}: {e}", plan.shape, plan.kind));
    let passes: Vec<String> = plan
        .passes
        .iter()
        .map(|p| format!("{:?}", p.radices()))
        .collect();
    let label = format!(
        "shape {:?} {} {} {:?} {}",
        plan.shape,
        plan.kind,
        plan.precision,
        plan.placement,
        passes.join(" then ")
    );
    assert_accurate(&report, &label)
}

/// Whether the exhaustive sweeps run every size: `FFTGEN_FULL_SWEEP=1`
/// (scripts/test.sh passes it through). Without it they run a fixed sample.
pub fn full_sweep() -> bool {
    matches!(
        std::env::var("FFTGEN_FULL_SWEEP").as_deref(),
        Ok("1") | Ok("true")
    )
}

/// Whether an exhaustive sweep that CI runs includes size `n`: every size
/// with [`full_sweep`], else every size to 16, every power of two, and a
/// fixed 64th of the rest (a multiplicative hash of the size, so the
/// sample is spread over every radix and length and the same from run to
/// run), of the sizes whose prime factors are at most 13; of those with a
/// prime factor from 17 to 31 (as many again, and alike: each such prime is
/// one radix, and tests/prime_radices.rs runs them in every combination) a
/// sixty-fourth; of those with a larger prime factor (Bluestein's) a 512th.
/// The rest take the same code paths (the generator is the
/// same for every length; what differs is the radix schedule, and the
/// sample holds every radix); the GPU sweep (tests/gpu_sweep.rs) runs them
/// all on the device.
pub fn in_sample(n: usize) -> bool {
    let hash = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if full_sweep() {
        return true;
    }
    match fftgen::codelet::largest_prime_factor(n) {
        // Bluestein's sizes: the same five kernels around FFTs of sizes
        // the other tiers sample (tests/bluestein.rs runs chosen ones).
        p if p > 31 => hash >> 55 == 0,
        p if p > 13 => hash >> 58 == 0,
        _ => n <= 16 || n.is_power_of_two() || hash >> 58 == 0,
    }
}

/// [`in_sample`] for sweeps run in both precisions: f64 takes an eighth of
/// the sampled lengths past 16 that are not powers of two (its kernels are
/// the f32 ones in another type; FFTGEN_FULL_SWEEP=1 runs them all).
pub fn in_sample_of(n: usize, precision: fftgen::Precision) -> bool {
    let hash = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    in_sample(n)
        && (precision == fftgen::Precision::F32
            || full_sweep()
            || n <= 16
            || n.is_power_of_two()
            || (hash >> 40) & 7 == 0)
}

/// The sizes of `sizes` [`in_sample`].
pub fn sampled(sizes: impl IntoIterator<Item = usize>) -> Vec<usize> {
    sizes.into_iter().filter(|&n| in_sample(n)).collect()
}

/// Spill stores an NVRTC-compiled kernel may have. The planner's register
/// budget trades registers for occupancy from an estimate; where ptxas
/// needs a few more, it spills a handful of words to L1-resident local
/// memory, which costs little. More than this is a planning bug.
pub const MAX_SPILL_BYTES: usize = 32;

/// Compiles `spec`'s CUDA source with NVRTC for sm_90 (ptxas checks its
/// registers and shared memory) and asserts no kernel spills more than
/// [`MAX_SPILL_BYTES`]; `origin` names the test in the generated header.
pub fn compile_for_sm_90(spec: &fftgen::FftSpec, origin: &str) {
    let label = format!("n = {} {}", spec.n(), spec.precision);
    let generated = fftgen::generate(spec, origin).unwrap_or_else(|e| panic!("{label}: {e}"));
    compile_source_for_sm_90(&generated.cuda_source, &label);
}

/// Compiles a generated CUDA `source` with NVRTC for sm_90 as
/// [`compile_for_sm_90`] does, naming it by `label` when it fails.
pub fn compile_source_for_sm_90(source: &str, label: &str) {
    let (spilled, line) = spills_for_sm_90(source, label);
    assert!(
        spilled <= MAX_SPILL_BYTES,
        "{label}: registers spill: {line}"
    );
}

/// Compiles `source` with NVRTC for sm_90 (panicking, with `label`, where
/// it does not compile) and returns the most bytes a kernel spills, less
/// what [`spill_allowance`] grants it beyond [`MAX_SPILL_BYTES`], with the
/// kernel's name and ptxas's line for it.
pub fn spills_for_sm_90(source: &str, label: &str) -> (usize, String) {
    let compiled = fftgen_runtime::cuda::compile_to_cubin_check(source, "sm_90")
        .unwrap_or_else(|e| panic!("{label}: NVRTC failed: {e}"));
    assert!(!compiled.cubin.is_empty());
    // ptxas reports "Compiling entry function 'NAME'", then "N bytes spill
    // stores, M bytes spill loads", per kernel.
    let mut worst = (0, String::new());
    let mut kernel = "";
    for line in compiled.log.lines() {
        if let Some(name) = line.split("entry function '").nth(1) {
            kernel = name.split('\'').next().unwrap_or("");
        }
        if !line.contains("spill stores") {
            continue;
        }
        let bytes: usize = line
            .split("bytes spill stores")
            .next()
            .and_then(|head| head.split(',').next_back())
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(usize::MAX);
        let over = bytes.saturating_sub(spill_allowance(kernel) - MAX_SPILL_BYTES);
        if over > worst.0 {
            worst = (over, format!("{kernel}: {line}"));
        }
    }
    worst
}

/// The spills a kernel named `kernel` may have: [`MAX_SPILL_BYTES`], and
/// [`C2R_MERGED_RUN_SPILL_BYTES`] for a C2R of odd f32 rows, whose paired
/// rows read both half spectra as one run and merge them in the first
/// stage: ptxas hoists the merge's shared-memory loads and spills 4-156
/// bytes whatever registers it is given (243 at 128), and the kernels
/// still ran faster than the row-by-row loads that spill nothing (H200:
/// C2R 125 0.66 -> 0.99x cuFFT, 243 0.60 -> 1.03x;
/// docs/bench/h200_c2r_half_spectra_run.txt).
///
/// An f32 block alone on its SM that exchanges interleaved values (`_wi_`)
/// may spill [`LONE_INTERLEAVED_SPILL_BYTES`]: ptxas spills 4-76 bytes of
/// some where both parts spill 0-64, and they still ran faster (H200,
/// cuFFT/ours, docs/bench/h200_ab_middle_axis_and_lone_interleaved.log:
/// 21000 1.62 -> 2.08x at 76 bytes, 13608 0.89 -> 0.95x at 76, 18225 0.60
/// -> 0.66x at 56, 15840 0.76 -> 0.85x at 8).
fn spill_allowance(kernel: &str) -> usize {
    if kernel.contains("_f32_") && kernel.contains("_wi_") && kernel.contains("_b1_") {
        return LONE_INTERLEAVED_SPILL_BYTES;
    }
    let odd_c2r_f32 = kernel.contains("_f32_")
        && kernel
            .strip_prefix("fftgen_c2r_n")
            .and_then(|rest| rest.split('_').next())
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n % 2 == 1);
    match odd_c2r_f32 {
        true => C2R_MERGED_RUN_SPILL_BYTES,
        false => MAX_SPILL_BYTES,
    }
}

/// The most bytes a C2R of odd f32 rows may spill ([`spill_allowance`]).
pub const C2R_MERGED_RUN_SPILL_BYTES: usize = 160;

/// The most bytes an f32 lone block of interleaved exchanges may spill
/// ([`spill_allowance`]).
pub const LONE_INTERLEAVED_SPILL_BYTES: usize = 80;

/// Runs a C2C `spec` through the manifest client on PoCL (the way to run
/// kernels planned for a CUDA target's opt-in shared memory, which the
/// runtime refuses on OpenCL), `batch` transforms both ways, against the
/// f64 reference; `origin` names the test in the generated header.
pub fn check_c2c_through_the_manifest_on_pocl(spec: &fftgen::FftSpec, batch: usize, origin: &str) {
    let Some(device) = pocl() else { return };
    let generated =
        fftgen::generate(spec, origin).unwrap_or_else(|e| panic!("{:?}: {e}", spec.shape));
    let points: usize = spec.shape.iter().product();
    let input = random_input(points * batch, points as u64);
    for direction in [Direction::Forward, Direction::Inverse] {
        let want = fftgen_cli::accuracy::reference_nd(
            &spec.shape,
            &input,
            direction,
            fftgen::Normalization::None,
        );
        let got = manifest_client::run_generated(device, &generated, direction, &input, batch);
        let error = relative_l2(&got, &want);
        let limit = tolerance(points, spec.precision);
        assert!(
            error <= limit,
            "{:?} {} {direction}: error {error} over {limit}",
            spec.shape,
            spec.precision
        );
    }
}
