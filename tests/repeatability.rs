//! Bitwise repeatability: the same input through the same plan gives the
//! same bits from run to run and at every position in the batch (every pass
//! computes each transform alone, in a fixed order of operations; nothing
//! depends on where a transform sits or on timing). Checked on PoCL for one
//! kernel, two passes, a 2D shape and a real transform in both precisions,
//! and through CUDA where a GPU is present (README's promise).

mod common;

use common::*;
use fftgen::{Direction, FftSpec, Precision, Target, TransformKind};
use fftgen_runtime::planner::{cuda_fft, opencl_fft};
use num_complex::Complex;

/// Copies of one signal at every position of the batch.
const BATCH: usize = 5;

/// The shapes: one kernel, two passes, 2D, and a real transform.
fn specs() -> Vec<FftSpec> {
    let mut specs = Vec::new();
    for precision in [Precision::F32, Precision::F64] {
        for spec in [
            FftSpec::new(1000),
            FftSpec::new(1 << 16),
            FftSpec::with_shape(&[48, 40]),
            FftSpec::new(768).kind(TransformKind::R2c),
        ] {
            specs.push(spec.precision(precision));
        }
    }
    specs
}

/// The batch of `BATCH` copies of one random signal of `points` values,
/// complex (interleaved reals) or real, as raw bits of `precision`.
fn repeated_signal(points: usize, complex: bool) -> Vec<f64> {
    let one: Vec<f64> = random_input(points, 3)
        .into_iter()
        .flat_map(|c| {
            if complex {
                vec![c.re, c.im]
            } else {
                vec![c.re]
            }
        })
        .collect();
    one.repeat(BATCH)
}

/// Runs `run` twice on BATCH copies of one signal and checks that every
/// transform of both runs has the same bits as the first of the first run
/// (the output starts as NaN, which equals nothing: every value is written).
fn check<T: Copy + PartialEq + std::fmt::Debug>(
    label: &str,
    output_per_transform: usize,
    mut run: impl FnMut() -> Vec<T>,
) {
    let first = run();
    let second = run();
    assert!(first == second, "{label}: two runs differ");
    let chunks: Vec<&[T]> = first.chunks(output_per_transform).collect();
    assert_eq!(chunks.len(), BATCH, "{label}");
    for (position, chunk) in chunks.iter().enumerate() {
        assert!(
            chunk == &chunks[0],
            "{label}: transform {position} differs from the first"
        );
    }
}

/// Checks `spec` forward with `fft` (an OpenClFft or a CudaFft).
macro_rules! check_spec {
    ($label:expr, $spec:expr, $fft:expr) => {{
        let spec: &FftSpec = $spec;
        let points: usize = spec.shape.iter().product();
        let real = spec.kind == TransformKind::R2c;
        let half = spec.complex_shape().iter().product::<usize>();
        let out_len = if real { half } else { points };
        let signal = repeated_signal(points, !real);
        match spec.precision {
            Precision::F32 => {
                let input: Vec<f32> = signal.iter().map(|&x| x as f32).collect();
                check($label, 2 * out_len, || {
                    let mut output = vec![f32::NAN; 2 * out_len * BATCH];
                    let input: &[f32] = &input;
                    run_reals(&$fft, real, input, &mut output);
                    output
                });
            }
            Precision::F64 => {
                check($label, 2 * out_len, || {
                    let mut output = vec![f64::NAN; 2 * out_len * BATCH];
                    run_reals(&$fft, real, &signal, &mut output);
                    output
                });
            }
        }
    }};
}

/// The forward transform of `input` (reals, or complex values as pairs of
/// reals where `real` is false) into `output` (complex values as pairs).
macro_rules! define_run_reals {
    ($name:ident, $fft:ty) => {
        fn $name<T: fftgen_runtime::Real>(fft: &$fft, real: bool, input: &[T], output: &mut [T]) {
            let output = as_complex_mut(output);
            let result = match real {
                true => fft.run(Direction::Forward, input, output, BATCH),
                false => fft.run(Direction::Forward, as_complex(input), output, BATCH),
            };
            result.unwrap_or_else(|e| panic!("{e}"));
        }
    };
}

fn as_complex<T>(reals: &[T]) -> &[Complex<T>] {
    // SAFETY: Complex<T> is repr(C) of two T.
    unsafe { std::slice::from_raw_parts(reals.as_ptr().cast(), reals.len() / 2) }
}

fn as_complex_mut<T>(reals: &mut [T]) -> &mut [Complex<T>] {
    // SAFETY: Complex<T> is repr(C) of two T.
    unsafe { std::slice::from_raw_parts_mut(reals.as_mut_ptr().cast(), reals.len() / 2) }
}

mod opencl_runs {
    use super::*;
    define_run_reals!(run_reals, fftgen_runtime::opencl::OpenClFft);

    #[test]
    fn the_same_input_gives_the_same_bits_on_pocl() {
        let Some(device) = pocl() else { return };
        for spec in specs() {
            let spec = spec.target(Target::POCL);
            let label = spec.emit_command();
            let fft = opencl_fft(device, &spec).unwrap_or_else(|e| panic!("{label}: {e}"));
            check_spec!(&label, &spec, fft);
        }
    }
}

mod cuda_runs {
    use super::*;
    define_run_reals!(run_reals, fftgen_runtime::cuda::CudaFft);

    #[test]
    fn the_same_input_gives_the_same_bits_on_a_gpu() {
        let Some(device) = gpu("the_same_input_gives_the_same_bits_on_a_gpu") else {
            return;
        };
        // The GPU's own plans, and one long enough for opt-in shared memory.
        for spec in specs().into_iter().chain([FftSpec::new(6561)]) {
            let label = spec.emit_command();
            let fft = cuda_fft(&device, &spec).unwrap_or_else(|e| panic!("{label}: {e}"));
            check_spec!(&label, &spec, fft);
        }
    }
}
