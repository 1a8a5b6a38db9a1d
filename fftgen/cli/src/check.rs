//! `fftgen check`: runs generated kernels on a real backend with random data
//! and measures their error against the f64 reference.

use crate::accuracy::{random_input, reference, relative_l2, tolerance};
use fftgen::{Direction, Generated, Placement, Precision};
use fftgen_runtime::cuda::{CudaDevice, CudaFft};
use fftgen_runtime::opencl::{OpenClDevice, OpenClFft};
use fftgen_runtime::Real;
use num_complex::Complex;

/// The outcome of one direction.
#[derive(Debug, Clone)]
pub struct DirectionCheck {
    pub direction: Direction,
    pub error: f64,
    pub tolerance: f64,
    /// The kernel's output, widened to f64.
    pub output: Vec<Complex<f64>>,
}

impl DirectionCheck {
    pub fn passed(&self) -> bool {
        self.error <= self.tolerance
    }
}

/// The input (as the kernel saw it, widened to f64) and each direction's result.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub input: Vec<Complex<f64>>,
    pub directions: Vec<DirectionCheck>,
}

/// Runs every direction of `generated` on an OpenCL `device` for `batch`
/// random transforms from `seed`. Each direction transforms the same input.
pub fn check_opencl(
    generated: &Generated,
    device: &OpenClDevice,
    batch: usize,
    seed: u64,
) -> Result<CheckReport, fftgen_runtime::Error> {
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest)?;
    check_with(generated, &Runner::OpenCl(&fft), batch, seed)
}

/// The same as [`check_opencl`] through CUDA.
pub fn check_cuda(
    generated: &Generated,
    device: &CudaDevice,
    batch: usize,
    seed: u64,
) -> Result<CheckReport, fftgen_runtime::Error> {
    let fft = CudaFft::new(device, &generated.cuda_source, &generated.manifest)?;
    check_with(generated, &Runner::Cuda(&fft), batch, seed)
}

/// A loaded transform on either backend; both expose the same host-slice calls.
enum Runner<'a> {
    OpenCl(&'a OpenClFft),
    Cuda(&'a CudaFft),
}

impl Runner<'_> {
    fn run<T: Real>(
        &self,
        direction: Direction,
        input: &[Complex<T>],
        output: &mut [Complex<T>],
        batch: usize,
    ) -> fftgen_runtime::Result<()> {
        match self {
            Runner::OpenCl(fft) => fft.run(direction, input, output, batch),
            Runner::Cuda(fft) => fft.run(direction, input, output, batch),
        }
    }

    fn run_in_place<T: Real>(
        &self,
        direction: Direction,
        data: &mut [Complex<T>],
        batch: usize,
    ) -> fftgen_runtime::Result<()> {
        match self {
            Runner::OpenCl(fft) => fft.run_in_place(direction, data, batch),
            Runner::Cuda(fft) => fft.run_in_place(direction, data, batch),
        }
    }
}

/// Host memory a check of `batch` transforms of `n` points in `precision`
/// and `directions` directions holds at once, bytes (at least): the input in
/// its precision and widened to f64, and per direction the output in both
/// forms and the f64 reference. `None` when it does not even fit a `u64`.
pub fn host_bytes_needed(
    n: usize,
    batch: usize,
    precision: Precision,
    directions: usize,
) -> Option<u64> {
    let values = (n as u64).checked_mul(batch as u64)?;
    let complex = precision.complex_bytes() as u64;
    let per_value = (complex + 16) + directions as u64 * (complex + 16 + 16);
    values.checked_mul(per_value)
}

/// Host memory available for new allocations (Linux's MemAvailable), bytes.
pub fn host_bytes_available() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn check_with(
    generated: &Generated,
    fft: &Runner<'_>,
    batch: usize,
    seed: u64,
) -> Result<CheckReport, fftgen_runtime::Error> {
    match generated.plan.precision {
        Precision::F32 => run::<f32>(generated, fft, batch, seed, |x| x as f32),
        Precision::F64 => run::<f64>(generated, fft, batch, seed, |x| x),
    }
}

fn run<T: Real + Into<f64>>(
    generated: &Generated,
    fft: &Runner<'_>,
    batch: usize,
    seed: u64,
    narrow: fn(f64) -> T,
) -> Result<CheckReport, fftgen_runtime::Error> {
    let plan = &generated.plan;
    let n = plan.n;
    let values: Vec<Complex<T>> = random_input(n * batch, seed)
        .iter()
        .map(|c| Complex::new(narrow(c.re), narrow(c.im)))
        .collect();
    let widen = |v: &[Complex<T>]| -> Vec<Complex<f64>> {
        v.iter()
            .map(|c| Complex::new(c.re.into(), c.im.into()))
            .collect()
    };
    // The reference transforms the rounded input, so only the FFT's own error is measured.
    let input = widen(&values);
    let mut directions = Vec::new();
    for &direction in &plan.directions {
        let output = match plan.placement {
            Placement::OutOfPlace => {
                let mut out = vec![Complex::new(T::default(), T::default()); values.len()];
                fft.run(direction, &values, &mut out, batch)?;
                out
            }
            Placement::InPlace => {
                let mut data = values.clone();
                fft.run_in_place(direction, &mut data, batch)?;
                data
            }
        };
        let output = widen(&output);
        let want: Vec<Complex<f64>> = input
            .chunks(n)
            .flat_map(|x| reference(x, n, direction, plan.normalization))
            .collect();
        directions.push(DirectionCheck {
            direction,
            error: relative_l2(&output, &want),
            tolerance: tolerance(n, plan.precision),
            output,
        });
    }
    Ok(CheckReport { input, directions })
}

#[cfg(test)]
mod memory_tests {
    use super::*;

    #[test]
    fn host_memory_is_counted_before_anything_is_allocated() {
        // 4096 f32 points, both directions: 8 + 16 + 2 * (8 + 32) bytes a value.
        assert_eq!(
            host_bytes_needed(4096, 1, Precision::F32, 2),
            Some(4096 * 104)
        );
        assert_eq!(host_bytes_needed(usize::MAX, 2, Precision::F64, 2), None);
        assert!(host_bytes_available().is_some_and(|bytes| bytes > 0));
    }
}
