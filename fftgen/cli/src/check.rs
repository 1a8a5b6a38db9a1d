//! `fftgen check`: runs generated kernels on a real backend with random data
//! and measures their error against the f64 reference. Buffers follow the
//! manifest's sides of each direction (their element types, shapes and
//! layouts): random values fill the whole input buffer (its gaps too), the
//! output buffer starts full of a sentinel, the error is measured at the
//! output layout's positions, every other element of the output buffer must
//! keep what it held, and out of place the input buffer must come back from
//! the device as it went (the kernels run on device buffers, so that a pass
//! that writes its input is caught).
//!
//! - `c2c`: both directions transform the same random complex input; the
//!   reference is the N-D DFT of it, gathered through its layout.
//! - `r2c`: the forward (R2C) transforms random reals; its reference is
//!   their complex DFT, each row cut to the half spectrum (numpy's
//!   `rfftn`). The inverse (C2R) is fed that f64 spectrum rounded to the
//!   precision (the gaps of its buffer random); its reference is the f64 C2R
//!   of what it was fed (numpy's `irfftn`, unnormalised), which is `n` times
//!   the reals up to the spectrum's rounding, times the normalisation's scale.
//!
//! Buffers are held as their reals (a complex value's two parts in turn) and
//! handed to the runtime as the type of their side.

use crate::accuracy::{
    random_input, random_reals, real_forward_reference, real_inverse_reference, reference_nd,
    relative_l2, tolerance,
};
use crate::strided::{covered_reals, real_offsets, reals_per};
use fftgen::{Direction, Element, Generated, Normalization, Placement, Precision, TransformKind};
use fftgen_runtime::cuda::{CudaDevice, CudaFft};
use fftgen_runtime::opencl::{OpenClDevice, OpenClFft};
use fftgen_runtime::opencl3::command_queue::CommandQueue;
use fftgen_runtime::opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use fftgen_runtime::opencl3::types::CL_BLOCKING;
use fftgen_runtime::{Error, Manifest, Real, Side, Value};
use num_complex::Complex;

/// The outcome of one direction.
#[derive(Debug, Clone)]
pub struct DirectionCheck {
    pub direction: Direction,
    pub error: f64,
    pub tolerance: f64,
    /// Reals of the output buffer (a complex value counts its two parts)
    /// outside the output layout's positions that the transform changed (in
    /// place: outside both sides' positions); 0 passes.
    pub gaps_written: usize,
    /// Reals of the input buffer an out-of-place transform changed (it must
    /// leave its input intact); 0 passes, and always 0 in place.
    pub input_written: usize,
    /// What the output holds: complex values, or the reals of the C2R.
    pub output_element: Element,
    /// The shape of one transform's output: the half spectrum of the R2C.
    pub output_shape: Vec<usize>,
    /// The kernel's output gathered through the output layout (logical,
    /// `batch` transforms of `output_shape`), widened to f64; reals have
    /// imaginary parts 0.
    pub output: Vec<Complex<f64>>,
}

impl DirectionCheck {
    pub fn passed(&self) -> bool {
        self.error <= self.tolerance && self.gaps_written == 0 && self.input_written == 0
    }
}

/// The forward direction's input (as the kernel saw it, gathered through
/// the input layout and widened to f64; for `r2c` reals with imaginary
/// parts 0), the shape of one transform (of the reals, for `r2c`), and each
/// direction's result.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub shape: Vec<usize>,
    pub kind: TransformKind,
    pub input: Vec<Complex<f64>>,
    pub directions: Vec<DirectionCheck>,
}

/// Runs every direction of `generated` on an OpenCL `device` for `batch`
/// random transforms from `seed`.
pub fn check_opencl(
    generated: &Generated,
    device: &OpenClDevice,
    batch: usize,
    seed: u64,
) -> Result<CheckReport, Error> {
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest)?;
    check_with(generated, &Runner::OpenCl(&fft), batch, seed)
}

/// The same as [`check_opencl`] through CUDA.
pub fn check_cuda(
    generated: &Generated,
    device: &CudaDevice,
    batch: usize,
    seed: u64,
) -> Result<CheckReport, Error> {
    let fft = CudaFft::new(device, &generated.cuda_source, &generated.manifest)?;
    check_with(generated, &Runner::Cuda(&fft), batch, seed)
}

/// A loaded transform on either backend.
enum Runner<'a> {
    OpenCl(&'a OpenClFft),
    Cuda(&'a CudaFft),
}

impl Runner<'_> {
    /// Runs out of place on device buffers holding `input` and `output`,
    /// writes the result into `output` and returns the reals of the device's
    /// input buffer afterwards.
    fn out_of_place<I: Value, O: Value<Real = I::Real>>(
        &self,
        direction: Direction,
        input: &[I],
        output: &mut [O],
        batch: usize,
    ) -> Result<Vec<I::Real>, Error> {
        match self {
            Runner::OpenCl(fft) => opencl_out_of_place(fft, direction, input, output, batch),
            Runner::Cuda(fft) => cuda_out_of_place(fft, direction, input, output, batch),
        }
    }

    fn in_place<V: Value>(
        &self,
        direction: Direction,
        data: &mut [V],
        batch: usize,
    ) -> Result<(), Error> {
        match self {
            Runner::OpenCl(fft) => fft.run_in_place(direction, data, batch),
            Runner::Cuda(fft) => fft.run_in_place(direction, data, batch),
        }
    }
}

/// [`Runner::out_of_place`] through OpenCL, on the device's queue.
fn opencl_out_of_place<I: Value, O: Value<Real = I::Real>>(
    fft: &OpenClFft,
    direction: Direction,
    input: &[I],
    output: &mut [O],
    batch: usize,
) -> Result<Vec<I::Real>, Error> {
    let device = fft.device();
    let queue = device.queue();
    let device_input = opencl_buffer(device, input)?;
    let mut device_output = opencl_buffer(device, output)?;
    fft.launch(queue, direction, &device_input, &mut device_output, batch)?;
    opencl_read(queue, &device_output, output)?;
    let mut after = vec![I::default(); input.len()];
    opencl_read(queue, &device_input, &mut after)?;
    Ok(I::as_reals(&after).to_vec())
}

/// A device buffer holding a copy of `values`.
fn opencl_buffer<V: Copy>(device: &OpenClDevice, values: &[V]) -> Result<Buffer<V>, Error> {
    let mut copy = values.to_vec();
    // SAFETY: COPY_HOST_PTR reads copy.len() values from a live vector
    // during the call and keeps no pointer to it.
    unsafe {
        Buffer::<V>::create(
            device.context(),
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            copy.len(),
            copy.as_mut_ptr().cast(),
        )
    }
    .map_err(|e| Error::OpenCl {
        call: "clCreateBuffer".into(),
        code: e.0,
    })
}

/// Reads the start of `buffer` into `values`, after the commands before it.
fn opencl_read<V>(queue: &CommandQueue, buffer: &Buffer<V>, values: &mut [V]) -> Result<(), Error> {
    // SAFETY: the read is blocking and the buffer holds values.len() values.
    unsafe { queue.enqueue_read_buffer(buffer, CL_BLOCKING, 0, values, &[]) }
        .map(|_| ())
        .map_err(|e| Error::OpenCl {
            call: "clEnqueueReadBuffer".into(),
            code: e.0,
        })
}

/// [`Runner::out_of_place`] through CUDA, on the device's default stream.
fn cuda_out_of_place<I: Value, O: Value<Real = I::Real>>(
    fft: &CudaFft,
    direction: Direction,
    input: &[I],
    output: &mut [O],
    batch: usize,
) -> Result<Vec<I::Real>, Error> {
    let failed = |call: &str| {
        let call = call.to_string();
        move |e: fftgen_runtime::cudarc::driver::DriverError| Error::CudaDriver {
            call,
            status: format!("{e:?}"),
        }
    };
    let stream = fft.device().stream();
    let device_input = stream
        .clone_htod(I::as_reals(input))
        .map_err(failed("cuMemcpyHtoDAsync"))?;
    let mut device_output = stream
        .clone_htod(O::as_reals(output))
        .map_err(failed("cuMemcpyHtoDAsync"))?;
    fft.launch(stream, direction, &device_input, &mut device_output, batch)?;
    let result = stream
        .clone_dtoh(&device_output)
        .map_err(failed("cuMemcpyDtoHAsync"))?;
    let after = stream
        .clone_dtoh(&device_input)
        .map_err(failed("cuMemcpyDtoHAsync"))?;
    stream
        .synchronize()
        .map_err(failed("cuStreamSynchronize"))?;
    O::as_reals_mut(output).copy_from_slice(&result);
    Ok(after)
}

/// Host memory a check holds at once, bytes (at least): the input buffer of
/// `input_elements` in its precision and, for the `batch * points` logical
/// values, widened to f64, and per direction the output buffer of
/// `output_elements`, the input buffer fed and read back, and the logical
/// output and f64 reference. Elements count as complex values. `None` when
/// it does not even fit a `u64`.
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
    let per_direction = output
        .checked_add(input.checked_mul(2)?)?
        .checked_add(logical.checked_mul(32)?)?;
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
) -> Result<CheckReport, Error> {
    match generated.plan.precision {
        Precision::F32 => run::<f32>(generated, fft, batch, seed, |x| x as f32),
        Precision::F64 => run::<f64>(generated, fft, batch, seed, |x| x),
    }
}

/// What one direction is fed and must give.
struct Case<T> {
    direction: Direction,
    /// The input buffer, as reals (in place, the data).
    feed: Vec<T>,
    /// The f64 reference of the output, logical.
    want: Vec<Complex<f64>>,
    /// What the output buffer starts full of (out of place).
    sentinel: T,
}

fn run<T: Real + Into<f64>>(
    generated: &Generated,
    fft: &Runner<'_>,
    batch: usize,
    seed: u64,
    narrow: fn(f64) -> T,
) -> Result<CheckReport, Error> {
    let plan = &generated.plan;
    let manifest = &generated.manifest;
    let shape = &manifest.shape;
    let normalization = plan.normalization;
    // Random values in the whole buffer: the kernels must read the layout's
    // positions only, and leave the gaps (in place) as they were.
    let len = buffer_reals(manifest, Direction::Forward, batch);
    let buffer: Vec<T> = match manifest.kind {
        TransformKind::C2c => random_input(len / 2, seed)
            .iter()
            .flat_map(|c| [narrow(c.re), narrow(c.im)])
            .collect(),
        TransformKind::R2c => random_reals(len, seed).into_iter().map(narrow).collect(),
    };
    // The reference transforms the rounded input, so only the FFT's own error is measured.
    let input = gather_side(&manifest.input_side(Direction::Forward), &buffer, batch);
    let reals = || -> Vec<f64> { input.iter().map(|c| c.re).collect() };
    // Exact in either precision.
    let sentinel = narrow(-7.25);
    let mut directions = Vec::new();
    for &direction in &plan.directions {
        let case = match (manifest.kind, direction) {
            (TransformKind::C2c, _) => Case {
                direction,
                feed: buffer.clone(),
                want: reference_nd(shape, &input, direction, normalization),
                sentinel,
            },
            (TransformKind::R2c, Direction::Forward) => Case {
                direction,
                feed: buffer.clone(),
                want: real_forward_reference(shape, &reals(), normalization),
                sentinel,
            },
            (TransformKind::R2c, Direction::Inverse) => {
                let spectrum = real_forward_reference(shape, &reals(), Normalization::None);
                c2r_case(manifest, &spectrum, batch, seed, narrow)
            }
        };
        directions.push(check_direction(manifest, fft, case, batch)?);
    }
    Ok(CheckReport {
        shape: shape.clone(),
        kind: manifest.kind,
        input,
        directions,
    })
}

/// The C2R's case: a buffer of random reals (its gaps keep them) with the
/// f64 `spectrum` rounded at the half spectrum's positions, and the f64 C2R
/// of what the buffer holds there.
fn c2r_case<T: Real + Into<f64>>(
    manifest: &Manifest,
    spectrum: &[Complex<f64>],
    batch: usize,
    seed: u64,
    narrow: fn(f64) -> T,
) -> Case<T> {
    let side = manifest.input_side(Direction::Inverse);
    let len = buffer_reals(manifest, Direction::Inverse, batch);
    // Another stream than the forward's, so that the gaps differ from its input.
    let mut feed: Vec<T> = random_reals(len, seed.wrapping_add(0x9e37_79b9))
        .into_iter()
        .map(narrow)
        .collect();
    for (o, value) in real_offsets(side.layout, &side.shape, side.element, batch)
        .into_iter()
        .zip(spectrum)
    {
        feed[o] = narrow(value.re);
        feed[o + 1] = narrow(value.im);
    }
    let fed = gather_side(&side, &feed, batch);
    let normalization = manifest.normalization;
    let want = real_inverse_reference(&manifest.shape, &fed, normalization)
        .into_iter()
        .map(|x| Complex::new(x, 0.0))
        .collect();
    Case {
        direction: Direction::Inverse,
        feed,
        want,
        sentinel: narrow(-7.25),
    }
}

/// Runs one direction on `case.feed` and measures it.
fn check_direction<T: Real + Into<f64>>(
    manifest: &Manifest,
    fft: &Runner<'_>,
    case: Case<T>,
    batch: usize,
) -> Result<DirectionCheck, Error> {
    let Case {
        direction,
        feed,
        want,
        sentinel,
    } = case;
    let input_side = manifest.input_side(direction);
    let output_side = manifest.output_side(direction);
    // Bit for bit: a NaN written into a gap counts as a change.
    let same = |a: T, b: T| a.into().to_bits() == b.into().to_bits();
    let changed = |after: &[T], before: &[T], skip: &[bool]| {
        after
            .iter()
            .zip(before)
            .zip(skip)
            .filter(|&((&a, &b), &skip)| !skip && !same(a, b))
            .count()
    };
    let (buffer, before, input_written) = match manifest.placement {
        Placement::OutOfPlace => {
            let out_len = output_side.elements(batch) * reals_per(output_side.element);
            let mut out = vec![sentinel; out_len];
            let after = run_out_of_place(fft, manifest, direction, &feed, &mut out, batch)?;
            let written = changed(&after, &feed, &vec![false; feed.len()]);
            (out, vec![sentinel; out_len], written)
        }
        Placement::InPlace => {
            let mut data = feed.clone();
            run_in_place(fft, manifest.kind, direction, &mut data, batch)?;
            (data, feed, 0)
        }
    };
    let positions = |side: &Side<'_>| {
        covered_reals(side.layout, &side.shape, side.element, batch, buffer.len())
    };
    let mut covered = positions(&output_side);
    if manifest.placement == Placement::InPlace {
        // The input's positions are the transform's to overwrite.
        for (c, i) in covered.iter_mut().zip(positions(&input_side)) {
            *c |= i;
        }
    }
    let gaps_written = changed(&buffer, &before, &covered);
    let output = gather_side(&output_side, &buffer, batch);
    Ok(DirectionCheck {
        direction,
        error: relative_l2(&output, &want),
        tolerance: tolerance(manifest.n, manifest.precision),
        gaps_written,
        input_written,
        output_element: output_side.element,
        output_shape: output_side.shape.clone(),
        output,
    })
}

/// Reals of the input buffer of `direction`: its side's, in place the
/// larger of both sides' (one buffer holds both).
fn buffer_reals(manifest: &Manifest, direction: Direction, batch: usize) -> usize {
    let reals = |side: Side<'_>| side.elements(batch) * reals_per(side.element);
    let input = reals(manifest.input_side(direction));
    match manifest.placement {
        Placement::OutOfPlace => input,
        Placement::InPlace => input.max(reals(manifest.output_side(direction))),
    }
}

/// The logical array of `batch` transforms that `buffer` (reals) holds on
/// `side`, widened to f64 (reals with imaginary parts 0).
fn gather_side<T: Into<f64> + Copy>(
    side: &Side<'_>,
    buffer: &[T],
    batch: usize,
) -> Vec<Complex<f64>> {
    real_offsets(side.layout, &side.shape, side.element, batch)
        .into_iter()
        .map(|o| match side.element {
            Element::Real => Complex::new(buffer[o].into(), 0.0),
            Element::Complex => Complex::new(buffer[o].into(), buffer[o + 1].into()),
        })
        .collect()
}

/// `reals` as values of `V`, which they fill (a whole number of them).
fn values<V: Value>(reals: &[V::Real]) -> Vec<V> {
    let per = std::mem::size_of::<V>() / std::mem::size_of::<V::Real>();
    let mut values = vec![V::default(); reals.len() / per];
    V::as_reals_mut(&mut values).copy_from_slice(reals);
    values
}

/// Runs `direction` out of place from `feed` into `out` (both reals), each
/// handed to the runtime as the type of its side, and returns the input
/// buffer's reals afterwards.
fn run_out_of_place<T: Real>(
    fft: &Runner<'_>,
    manifest: &Manifest,
    direction: Direction,
    feed: &[T],
    out: &mut [T],
    batch: usize,
) -> Result<Vec<T>, Error> {
    /// One pairing of element types.
    fn through<I: Value, O: Value<Real = I::Real>>(
        fft: &Runner<'_>,
        direction: Direction,
        feed: &[I::Real],
        out: &mut [I::Real],
        batch: usize,
    ) -> Result<Vec<I::Real>, Error> {
        let input: Vec<I> = values(feed);
        let mut output: Vec<O> = values(out);
        let after = fft.out_of_place(direction, &input, &mut output, batch)?;
        out.copy_from_slice(O::as_reals(&output));
        Ok(after)
    }
    let sides = (
        manifest.input_side(direction).element,
        manifest.output_side(direction).element,
    );
    match sides {
        (Element::Complex, Element::Complex) => {
            through::<Complex<T>, Complex<T>>(fft, direction, feed, out, batch)
        }
        (Element::Real, Element::Complex) => {
            through::<T, Complex<T>>(fft, direction, feed, out, batch)
        }
        (Element::Complex, Element::Real) => {
            through::<Complex<T>, T>(fft, direction, feed, out, batch)
        }
        (Element::Real, Element::Real) => through::<T, T>(fft, direction, feed, out, batch),
    }
}

/// Runs `direction` in place on `data` (reals): handed to the runtime as
/// reals for `r2c` (either type would do), as complex values for `c2c`.
fn run_in_place<T: Real>(
    fft: &Runner<'_>,
    kind: TransformKind,
    direction: Direction,
    data: &mut [T],
    batch: usize,
) -> Result<(), Error> {
    match kind {
        TransformKind::R2c => fft.in_place(direction, data, batch),
        TransformKind::C2c => {
            let mut complex: Vec<Complex<T>> = values(data);
            fft.in_place(direction, &mut complex, batch)?;
            data.copy_from_slice(Complex::as_reals(&complex));
            Ok(())
        }
    }
}

#[cfg(test)]
mod memory_tests {
    use super::*;

    #[test]
    fn host_memory_is_counted_before_anything_is_allocated() {
        // 4096 f32 points, both directions: 8 + 16 + 2 * (8 + 16 + 32) bytes a value.
        assert_eq!(
            host_bytes_needed(4096, 4096, 4096, Precision::F32, 2),
            Some(4096 * 136)
        );
        // A padded output layout counts its gaps.
        assert_eq!(
            host_bytes_needed(4096, 8192, 4096, Precision::F32, 1),
            Some(4096 * (8 + 16) + 8192 * 8 + 4096 * (16 + 32))
        );
        assert_eq!(
            host_bytes_needed(usize::MAX, usize::MAX, usize::MAX, Precision::F64, 2),
            None
        );
        assert!(host_bytes_available().is_some_and(|bytes| bytes > 0));
    }
}
