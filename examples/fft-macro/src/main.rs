//! A 4096-point FFT whose kernels `fft_kernel!` generates while this example
//! compiles, and its real-input counterpart (`kind = r2c`: R2C forward, C2R
//! inverse), run through OpenCL on whatever device the environment names
//! (`FFTGEN_OPENCL_PLATFORM`, else an NVIDIA platform, else any; PoCL runs it
//! on the CPU) and through CUDA where a GPU and its driver exist (skipped with
//! a message otherwise, an error with `FFTGEN_REQUIRE_CUDA` set). Each
//! transforms a random batch forward and inverse, checks both
//! against a direct O(n^2) DFT computed in f64 on the CPU (the R2C against
//! its first n/2 + 1 values, the C2R of those against n times the reals),
//! and prints the relative L2 errors next to the tolerance c * eps * log2(n)
//! that the test suite uses. Exits with status 1 and a message when anything
//! fails.
//!
//! Run with `cargo run -p fft-macro-example --release`.

use fftgen_macros::fft_kernel;
use fftgen_runtime::{
    CudaDevice, CudaFft, Direction, OpenClDevice, OpenClFft, Precision, StaticKernels,
};
use num_complex::Complex;
use std::process::ExitCode;

// Defines `pub struct Fft4096F32` with the CUDA and OpenCL sources and the manifest.
#[rustfmt::skip]
fft_kernel!(n = 4096, radix = [8,8,8,8]);

// Defines `pub struct Fft4096R2cF32`: 4096 reals to their 2049-value half
// spectrum (forward) and back (inverse, n times the reals).
fft_kernel!(n = 4096, kind = r2c);

/// Transforms in the batch.
const BATCH: usize = 16;

/// c in the tolerance c * eps * log2(n), as in the workspace tests.
const TOLERANCE_C: f64 = 1.0;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let n = Fft4096F32::N;
    println!(
        "kernels: {}-point, radices {:?}, f32, batch {BATCH}",
        n,
        Fft4096F32::RADICES
    );
    let input = random_batch(n * BATCH, 0x5eed);

    // OpenCL: the same type, built for whichever platform the environment names.
    let device = OpenClDevice::from_env().map_err(|e| {
        format!(
            "{e}\n({} picks the platform by a part of its name; unset it to take any)",
            fftgen_runtime::opencl::PLATFORM_ENV
        )
    })?;
    let label = format!(
        "OpenCL on {} ({})",
        device.info().name,
        device.info().platform_name
    );
    let fft = OpenClFft::new(&device, Fft4096F32::OPENCL_SOURCE, &Fft4096F32::manifest())
        .map_err(|e| format!("loading the OpenCL kernels failed: {e}"))?;
    check(&label, &input, |direction, x, y| {
        fft.run(direction, x, y, BATCH)
    })?;
    let real = OpenClFft::new(
        &device,
        Fft4096R2cF32::OPENCL_SOURCE,
        &Fft4096R2cF32::manifest(),
    )
    .map_err(|e| format!("loading the OpenCL r2c kernels failed: {e}"))?;
    check_real(
        &label,
        &input,
        |x, y| real.run(Direction::Forward, x, y, BATCH),
        |x, y| real.run(Direction::Inverse, x, y, BATCH),
    )?;

    // CUDA: the same type again, compiled by NVRTC (cached) for the GPU found.
    match CudaDevice::new(0) {
        Ok(device) => {
            let label = format!("CUDA on {} ({})", device.name(), device.arch());
            let fft = CudaFft::from_static::<Fft4096F32>(&device)
                .map_err(|e| format!("loading the CUDA kernels failed: {e}"))?;
            check(&label, &input, |direction, x, y| {
                fft.run(direction, x, y, BATCH)
            })?;
            let real = CudaFft::from_static::<Fft4096R2cF32>(&device)
                .map_err(|e| format!("loading the CUDA r2c kernels failed: {e}"))?;
            check_real(
                &label,
                &input,
                |x, y| real.run(Direction::Forward, x, y, BATCH),
                |x, y| real.run(Direction::Inverse, x, y, BATCH),
            )?;
        }
        Err(e) if std::env::var_os(REQUIRE_CUDA_ENV).is_some() => {
            return Err(format!("CUDA: {e} (and {REQUIRE_CUDA_ENV} is set)"));
        }
        Err(e) => println!("CUDA: skipped: {e}"),
    }
    println!(
        "OK: the macro-generated kernels match the direct DFT in both directions, c2c and r2c"
    );
    Ok(())
}

/// Set to make a missing CUDA device an error instead of a skip.
const REQUIRE_CUDA_ENV: &str = "FFTGEN_REQUIRE_CUDA";

/// Runs `transform` forward and inverse on `input` (rounded to f32) and
/// compares both with the direct DFT in f64.
fn check(
    label: &str,
    input: &[Complex<f64>],
    transform: impl Fn(Direction, &[Complex<f32>], &mut [Complex<f32>]) -> fftgen_runtime::Result<()>,
) -> Result<(), String> {
    let n = Fft4096F32::N;
    let narrow: Vec<Complex<f32>> = input
        .iter()
        .map(|c| Complex::new(c.re as f32, c.im as f32))
        .collect();
    let tolerance = TOLERANCE_C * Precision::F32.epsilon() * (n as f64).log2();
    let mut failed = Vec::new();
    for direction in [Direction::Forward, Direction::Inverse] {
        let mut output = vec![Complex::new(0.0f32, 0.0); input.len()];
        transform(direction, &narrow, &mut output)
            .map_err(|e| format!("{label}: the {direction} transform failed: {e}"))?;
        let want: Vec<Complex<f64>> = input
            .chunks(n)
            .flat_map(|x| direct_dft(x, direction))
            .collect();
        let got: Vec<Complex<f64>> = output
            .iter()
            .map(|c| Complex::new(c.re as f64, c.im as f64))
            .collect();
        let error = relative_l2(&got, &want);
        let verdict = if error <= tolerance {
            "ok"
        } else {
            "TOO LARGE"
        };
        println!(
            "{label}, {direction}: relative L2 error {error:.2e} (tolerance {tolerance:.2e}) {verdict}"
        );
        if error > tolerance {
            failed.push(direction.to_string());
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{label}: the {} transform(s) differ from the direct DFT by more than the tolerance; \
             the generated kernels or the device's compiler are wrong",
            failed.join(" and ")
        ))
    }
}

/// Runs the R2C (`forward`) on the real parts of `input` (rounded to f32)
/// and the C2R (`inverse`) on their half spectra from the direct DFT, and
/// compares the R2C with the DFT's first n/2 + 1 values and the C2R with n
/// times the reals.
fn check_real(
    label: &str,
    input: &[Complex<f64>],
    forward: impl Fn(&[f32], &mut [Complex<f32>]) -> fftgen_runtime::Result<()>,
    inverse: impl Fn(&[Complex<f32>], &mut [f32]) -> fftgen_runtime::Result<()>,
) -> Result<(), String> {
    let (n, half) = (Fft4096R2cF32::N, Fft4096R2cF32::COMPLEX_SHAPE[0]);
    let reals: Vec<f32> = input.iter().map(|c| c.re as f32).collect();
    let spectra: Vec<Complex<f64>> = reals
        .chunks(n)
        .flat_map(|x| {
            let x: Vec<Complex<f64>> = x.iter().map(|&v| Complex::new(v.into(), 0.0)).collect();
            direct_dft(&x, Direction::Forward)[..half].to_vec()
        })
        .collect();
    let mut spectrum = vec![Complex::new(0.0f32, 0.0); half * BATCH];
    forward(&reals, &mut spectrum).map_err(|e| format!("{label}: the R2C failed: {e}"))?;
    let narrow: Vec<Complex<f32>> = spectra
        .iter()
        .map(|c| Complex::new(c.re as f32, c.im as f32))
        .collect();
    let mut back = vec![0.0f32; n * BATCH];
    inverse(&narrow, &mut back).map_err(|e| format!("{label}: the C2R failed: {e}"))?;
    let widen = |v: &[f32]| -> Vec<Complex<f64>> {
        v.iter().map(|&x| Complex::new(x.into(), 0.0)).collect()
    };
    let scaled: Vec<f32> = reals.iter().map(|&x| x * n as f32).collect();
    let tolerance = TOLERANCE_C * Precision::F32.epsilon() * (n as f64).log2();
    let errors = [
        ("R2C", relative_l2(&widen_complex(&spectrum), &spectra)),
        ("C2R", relative_l2(&widen(&back), &widen(&scaled))),
    ];
    for (name, error) in errors {
        let verdict = if error <= tolerance {
            "ok"
        } else {
            "TOO LARGE"
        };
        println!(
            "{label}, {name}: relative L2 error {error:.2e} (tolerance {tolerance:.2e}) {verdict}"
        );
        if error > tolerance {
            return Err(format!(
                "{label}: the {name} differs from the direct DFT by more than the tolerance"
            ));
        }
    }
    Ok(())
}

/// Complex f32 values widened to f64.
fn widen_complex(values: &[Complex<f32>]) -> Vec<Complex<f64>> {
    values
        .iter()
        .map(|c| Complex::new(c.re.into(), c.im.into()))
        .collect()
}

/// `len` complex values uniform in [-1, 1)^2 from a fixed seed (xorshift64*,
/// so the example needs no random-number crate).
fn random_batch(len: usize, seed: u64) -> Vec<Complex<f64>> {
    let mut state = seed | 1;
    let mut uniform = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let bits = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
        bits as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..len)
        .map(|_| Complex::new(uniform(), uniform()))
        .collect()
}

/// The DFT by its definition, in f64: X[k] = sum_j x[j] exp(sign 2 pi i jk / n).
fn direct_dft(x: &[Complex<f64>], direction: Direction) -> Vec<Complex<f64>> {
    let n = x.len();
    let sign = direction.sign() as f64;
    let roots: Vec<Complex<f64>> = (0..n)
        .map(|m| Complex::from_polar(1.0, sign * std::f64::consts::TAU * m as f64 / n as f64))
        .collect();
    (0..n)
        .map(|k| {
            x.iter()
                .enumerate()
                .map(|(j, &v)| v * roots[(j * k) % n])
                .sum()
        })
        .collect()
}

/// ||got - want|| / ||want||.
fn relative_l2(got: &[Complex<f64>], want: &[Complex<f64>]) -> f64 {
    let diff: f64 = got.iter().zip(want).map(|(a, b)| (a - b).norm_sqr()).sum();
    let norm: f64 = want.iter().map(|b| b.norm_sqr()).sum();
    (diff / norm).sqrt()
}
