//! `fftgen check`: runs generated kernels on a real backend with random data
//! and measures their error against the f64 reference. Buffers follow the
//! manifest's layouts: random values fill the whole input buffer (its gaps
//! too), the output buffer starts full of a sentinel, the reference is the
//! N-D DFT of the input gathered through its layout, the error is measured at
//! the output layout's positions, and every other element of the output
//! buffer must keep what it held.

use crate::accuracy::{random_input, reference_nd, relative_l2, tolerance};
use crate::strided::{covered, gather};
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
    /// Elements of the output buffer outside the output layout's positions
    /// that the transform changed (in place: the data's gaps); 0 passes.
    pub gaps_written: usize,
    /// The kernel's output gathered through the output layout (logical,
    /// `batch` transforms of the shape), widened to f64.
    pub output: Vec<Complex<f64>>,
}

impl DirectionCheck {
    pub fn passed(&self) -> bool {
        self.error <= self.tolerance && self.gaps_written == 0
    }
}

/// The input (as the kernel saw it, gathered through the input layout and
/// widened to f64), the shape of one transform, and each direction's result.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub shape: Vec<usize>,
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

/// Host memory a check holds at once, bytes (at least): the input buffer of
/// `input_elements` in its precision and, for the `batch * points` logical
/// values, widened to f64, and per direction the output buffer of
/// `output_elements` and the logical output and f64 reference. `None` when it
/// does not even fit a `u64`.
pub fn host_bytes_needed(
    input_elements: usize,
    output_elements: usize,
    logical: usize,
    precision: Precision,
    directions: usize,
) -> Option<u64> {
    let complex = precision.complex_bytes() as u64;
    let input = (input_elements as u64).checked_mul(complex)?;
    let output = (output_elements as u64).checked_mul(complex)?;
    let logical = logical as u64;
    let per_direction = output.checked_add(logical.checked_mul(32)?)?;
    input
        .checked_add(logical.checked_mul(16)?)?
        .checked_add(per_direction.checked_mul(directions as u64)?)
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
    let manifest = &generated.manifest;
    let shape = &manifest.shape;
    let narrow_all = |v: &[Complex<f64>]| -> Vec<Complex<T>> {
        v.iter()
            .map(|c| Complex::new(narrow(c.re), narrow(c.im)))
            .collect()
    };
    let widen = |v: &[Complex<T>]| -> Vec<Complex<f64>> {
        v.iter()
            .map(|c| Complex::new(c.re.into(), c.im.into()))
            .collect()
    };
    // Bit for bit: a NaN written into a gap counts as a change.
    let same = |a: Complex<T>, b: Complex<T>| {
        let bits = |c: Complex<T>| (c.re.into().to_bits(), c.im.into().to_bits());
        bits(a) == bits(b)
    };
    // Random values in the whole buffer: the kernels must read the layout's
    // positions only, and leave the gaps (in place) as they were.
    let values = narrow_all(&random_input(manifest.input_elements(fftgen::Direction::Forward, batch), seed));
    // The reference transforms the rounded input, so only the FFT's own error is measured.
    let input = widen(&gather(&manifest.input, shape, &values, batch));
    let sentinel = narrow_all(&[Complex::new(-7.25, 7.25)])[0];
    let out_len = manifest.output_elements(fftgen::Direction::Forward, batch);
    let positions = covered(&manifest.output, shape, batch, out_len);
    let mut directions = Vec::new();
    for &direction in &plan.directions {
        let (buffer, before) = match plan.placement {
            Placement::OutOfPlace => {
                let mut out = vec![sentinel; out_len];
                fft.run(direction, &values, &mut out, batch)?;
                (out, vec![sentinel; out_len])
            }
            Placement::InPlace => {
                let mut data = values.clone();
                fft.run_in_place(direction, &mut data, batch)?;
                (data, values.clone())
            }
        };
        let gaps_written = buffer
            .iter()
            .zip(&before)
            .zip(&positions)
            .filter(|&((after, before), &position)| !position && !same(*after, *before))
            .count();
        let output = widen(&gather(&manifest.output, shape, &buffer, batch));
        let want = reference_nd(shape, &input, direction, plan.normalization);
        directions.push(DirectionCheck {
            direction,
            error: relative_l2(&output, &want),
            tolerance: tolerance(manifest.n, plan.precision),
            gaps_written,
            output,
        });
    }
    Ok(CheckReport {
        shape: shape.clone(),
        input,
        directions,
    })
}

#[cfg(test)]
mod memory_tests {
    use super::*;

    #[test]
    fn host_memory_is_counted_before_anything_is_allocated() {
        // 4096 f32 points, both directions: 8 + 16 + 2 * (8 + 32) bytes a value.
        assert_eq!(
            host_bytes_needed(4096, 4096, 4096, Precision::F32, 2),
            Some(4096 * 104)
        );
        // A padded output layout counts its gaps.
        assert_eq!(
            host_bytes_needed(4096, 8192, 4096, Precision::F32, 1),
            Some(4096 * (8 + 16) + 8192 * 8 + 4096 * 32)
        );
        assert_eq!(
            host_bytes_needed(usize::MAX, usize::MAX, usize::MAX, Precision::F64, 2),
            None
        );
        assert!(host_bytes_available().is_some_and(|bytes| bytes > 0));
    }
}
