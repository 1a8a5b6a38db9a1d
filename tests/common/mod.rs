//! Shared helpers of the workspace tests: random inputs with fixed seeds, the
//! f64 reference transform, relative L2 errors and the tolerance rule, and
//! access to the OpenCL (PoCL) device and NVRTC that fail loudly in CI.
#![allow(dead_code)]

use fftgen::{Direction, Precision};
use fftgen_runtime::opencl::OpenClDevice;
use num_complex::Complex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Tolerance constant c in `c * eps * log2(n)`. An FFT's relative L2 error
/// grows like eps * log2(n) with a small constant (Higham, Accuracy and
/// Stability, section 24.1); c = 1 leaves room for twiddles rounded once
/// while still catching a wrong twiddle or a lost sign, which give errors of
/// order one.
pub const TOLERANCE_C: f64 = 1.0;

pub fn tolerance(n: usize, precision: Precision) -> f64 {
    TOLERANCE_C * precision.epsilon() * (n as f64).log2().max(1.0)
}

/// `len` complex values uniform in [-1, 1)^2 from a fixed seed (never zeros).
pub fn random_input(len: usize, seed: u64) -> Vec<Complex<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len)
        .map(|_| Complex::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect()
}

/// The f64 reference: rustfft on each transform of the batch, unnormalised.
pub fn reference(input: &[Complex<f64>], n: usize, direction: Direction) -> Vec<Complex<f64>> {
    let mut planner = rustfft::FftPlanner::<f64>::new();
    let fft = match direction {
        Direction::Forward => planner.plan_fft_forward(n),
        Direction::Inverse => planner.plan_fft_inverse(n),
    };
    let mut out = input.to_vec();
    fft.process(&mut out);
    out
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

/// ||got - want|| / ||want||.
pub fn relative_l2(got: &[Complex<f64>], want: &[Complex<f64>]) -> f64 {
    let diff: f64 = got.iter().zip(want).map(|(a, b)| (a - b).norm_sqr()).sum();
    let norm: f64 = want.iter().map(|b| b.norm_sqr()).sum();
    (diff / norm).sqrt()
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
