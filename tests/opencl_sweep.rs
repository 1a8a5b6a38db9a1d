//! The numerical sweep: every supported size (2..=4096 in f32, 2..=2048 in
//! f64), forward and inverse, a batch of several transforms that does not
//! fill the last block, random data, run as OpenCL on the CPU through PoCL and
//! compared with the f64 reference by relative L2 error against
//! `c * eps * log2(n)` (c in tests/common).

mod common;

use common::*;
use fftgen::plan::factor::supported_sizes;
use fftgen::plan::planner::max_size;
use fftgen::{Direction, FftSpec, Normalization, Placement, Precision};
use fftgen_runtime::opencl::OpenClFft;
use fftgen_runtime::Real;
use num_complex::Complex;

/// Runs `spec` on PoCL for `batch` transforms of random data and returns the
/// worst relative error over the directions, checked against the tolerance.
fn check_spec<T: Real + Into<f64>>(spec: &FftSpec, batch: usize, from_f64: fn(f64) -> T) -> f64 {
    let Some(device) = pocl() else { return 0.0 };
    let n = spec.n;
    let generated = fftgen::generate(spec, "tests/opencl_sweep.rs").unwrap_or_else(|e| panic!("n = {n}: {e}"));
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest)
        .unwrap_or_else(|e| panic!("n = {n}: {e}"));
    let mut worst: f64 = 0.0;
    for &direction in &spec.directions {
        let input = random_input(n * batch, n as u64 * 2 + direction as u64);
        let narrow: Vec<Complex<T>> = input.iter().map(|c| Complex::new(from_f64(c.re), from_f64(c.im))).collect();
        // The reference transforms the rounded input, so only the FFT's own error is measured.
        let exact_input = widen(&narrow);
        let scale = spec.normalization.scale(n, direction);
        let want: Vec<Complex<f64>> = exact_input
            .chunks(n)
            .flat_map(|x| reference(x, n, direction))
            .map(|c| c * scale)
            .collect();
        let got = match spec.placement {
            Placement::OutOfPlace => {
                let mut out = vec![Complex::new(from_f64(0.0), from_f64(0.0)); n * batch];
                fft.run(direction, &narrow, &mut out, batch).unwrap_or_else(|e| panic!("n = {n}: {e}"));
                out
            }
            Placement::InPlace => {
                let mut data = narrow.clone();
                fft.run_in_place(direction, &mut data, batch).unwrap_or_else(|e| panic!("n = {n}: {e}"));
                data
            }
        };
        let error = relative_l2(&widen(&got), &want);
        let limit = tolerance(n, spec.precision);
        assert!(
            error <= limit,
            "n = {n} {} {direction} {:?}: relative L2 error {error:.3e} > {limit:.3e}",
            spec.precision,
            generated.plan.passes[0].radices()
        );
        worst = worst.max(error);
    }
    worst
}

/// Every supported size in `range` (an index range into the size list, so the
/// sweep splits into tests that run in parallel).
fn sweep(precision: Precision, part: usize, parts: usize) {
    let sizes = supported_sizes(max_size(precision));
    let chunk: Vec<usize> = sizes.iter().copied().skip(part).step_by(parts).collect();
    for n in chunk {
        // 2 full blocks and a partial one for small sizes; 3 transforms for large.
        let batch = if n <= 64 { 2 * 256 / n.min(256) * 2 + 3 } else { 3 };
        let spec = FftSpec::new(n).precision(precision);
        match precision {
            Precision::F32 => check_spec::<f32>(&spec, batch, |x| x as f32),
            Precision::F64 => check_spec::<f64>(&spec, batch, |x| x),
        };
    }
}

macro_rules! sweep_tests {
    ($precision:expr, $parts:literal: $($name:ident = $part:literal),+) => {
        $(#[test] fn $name() { sweep($precision, $part, $parts) })+
    };
}

sweep_tests!(Precision::F32, 6: f32_sizes_part0 = 0, f32_sizes_part1 = 1, f32_sizes_part2 = 2,
    f32_sizes_part3 = 3, f32_sizes_part4 = 4, f32_sizes_part5 = 5);
sweep_tests!(Precision::F64, 4: f64_sizes_part0 = 0, f64_sizes_part1 = 1, f64_sizes_part2 = 2,
    f64_sizes_part3 = 3);

/// In-place execution and each normalisation, on sizes that cover both lane
/// layouts, guarded stages and multi-FFT blocks.
#[test]
fn placements_and_normalizations() {
    for n in [2, 16, 60, 143, 1000, 4096] {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            for normalization in [Normalization::None, Normalization::Inverse, Normalization::Unitary] {
                let spec = FftSpec::new(n).placement(placement).normalization(normalization);
                check_spec::<f32>(&spec, 5, |x| x as f32);
            }
        }
    }
    let spec = FftSpec::new(2048).precision(Precision::F64).placement(Placement::InPlace);
    check_spec::<f64>(&spec, 3, |x| x);
}

/// A user-given radix sequence is used as given and gives the same results.
#[test]
fn explicit_radix_sequences() {
    for (n, radices) in [(4096, vec![8, 8, 8, 8]), (4096, vec![4, 4, 4, 4, 4, 4]), (1000, vec![8, 5, 5, 5]), (1000, vec![2, 4, 5, 25])] {
        let spec = FftSpec::new(n).radices(&radices);
        check_spec::<f32>(&spec, 3, |x| x as f32);
    }
}

/// The reference itself agrees with the textbook DFT.
#[test]
fn reference_matches_naive_dft() {
    for n in [2, 3, 12, 17, 100, 243] {
        for direction in [Direction::Forward, Direction::Inverse] {
            let x = random_input(n, 7);
            let error = relative_l2(&reference(&x, n, direction), &naive_dft(&x, direction));
            assert!(error < 1e-13, "n = {n}: {error}");
        }
    }
}

/// An input that is one batch too short is refused and leaves the output untouched.
#[test]
fn wrong_lengths_are_refused() {
    let Some(device) = pocl() else { return };
    let generated = fftgen::generate(&FftSpec::new(64), "test").unwrap();
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest).unwrap();
    let input = vec![Complex::new(1.0f32, 0.5); 64 * 2];
    let mut output = vec![Complex::new(7.0f32, 7.0); 64 * 3];
    assert!(fft.run(Direction::Forward, &input, &mut output, 3).is_err());
    assert!(output.iter().all(|c| *c == Complex::new(7.0, 7.0)));
}
