//! Plans used from many threads at once, on PoCL: one plan run by 8
//! threads together, each on its own data, and 8 different plans built and
//! run at once; every result against the f64 reference. `OpenClFft` and
//! `CudaFft` are `Send + Sync` (checked at compile time): their kernel
//! arguments are bound under a lock, everything else OpenCL and CUDA make
//! thread-safe.

mod common;

use common::*;
use fftgen::{Direction, FftSpec, Precision};
use fftgen_runtime::opencl::OpenClFft;
use num_complex::Complex;
use std::sync::Arc;

const THREADS: usize = 8;

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn plans_are_send_and_sync() {
    assert_send_sync::<OpenClFft>();
    assert_send_sync::<fftgen_runtime::cuda::CudaFft>();
}

/// Runs `fft` (a plan of `n` f32 points) forward on `batch` transforms of
/// the data seeded by `seed`, three times, and checks each result.
fn run_and_check(fft: &OpenClFft, n: usize, batch: usize, seed: u64) {
    let input = random_input(n * batch, seed);
    let narrow: Vec<Complex<f32>> = input
        .iter()
        .map(|c| Complex::new(c.re as f32, c.im as f32))
        .collect();
    let want = reference(&input, n, Direction::Forward);
    for round in 0..3 {
        let mut output = vec![Complex::new(f32::NAN, f32::NAN); n * batch];
        fft.run(Direction::Forward, &narrow, &mut output, batch)
            .unwrap_or_else(|e| panic!("n = {n}, seed {seed}, round {round}: {e}"));
        let error = relative_l2(&widen(&output), &want);
        assert!(
            error <= tolerance(n, Precision::F32),
            "n = {n}, seed {seed}, round {round}: relative L2 error {error:.3e}"
        );
    }
}

fn load(device: &fftgen_runtime::opencl::OpenClDevice, n: usize) -> OpenClFft {
    let generated = fftgen::generate(&FftSpec::new(n), "tests/threads.rs").unwrap();
    OpenClFft::new(device, &generated.opencl_source, &generated.manifest).unwrap()
}

/// One plan, eight threads at once (a one-kernel and a two-pass plan).
#[test]
fn one_plan_from_eight_threads() {
    let Some(device) = pocl() else { return };
    for n in [1000, 8192] {
        let fft = Arc::new(load(device, n));
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let fft = Arc::clone(&fft);
                scope.spawn(move || run_and_check(&fft, n, 3, 100 + t as u64));
            }
        });
    }
}

/// Eight different plans built and run at once.
#[test]
fn eight_plans_at_once() {
    let Some(device) = pocl() else { return };
    let sizes = [64, 100, 243, 1000, 1331, 2048, 3125, 4096];
    std::thread::scope(|scope| {
        for (t, n) in sizes.into_iter().enumerate() {
            scope.spawn(move || run_and_check(&load(device, n), n, 2, 200 + t as u64));
        }
    });
}
