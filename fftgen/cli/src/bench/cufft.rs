//! A small safe wrapper around cuFFT for the benchmark: one batched 1-D, 2-D
//! or 3-D plan (`cufftPlanMany`, dense interleaved layout) bound to a
//! stream, on the same buffers our kernels use: complex to complex forward
//! (C2C for f32, Z2Z for f64), or for real transforms real to the half
//! spectrum (R2C, D2Z) and back (C2R, Z2D). cuFFT allocates the work area it
//! needs itself (its default). cudarc's own safe `CudaFft` wants buffers of
//! its `float2`/`double2` types and panics when a plan fails to be destroyed;
//! this goes through cudarc's `result` layer instead, takes the interleaved
//! real buffers as they are, and turns every failure into an error value.
//! cuFFT is loaded at run time: [`available`] says whether it can be.

use fftgen_runtime::cudarc::cufft::result::{self as cufft, CufftError};
use fftgen_runtime::cudarc::cufft::sys::{
    cufftComplex, cufftDoubleComplex, cufftDoubleReal, cufftHandle, cufftReal, cufftType,
};
use fftgen_runtime::cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};
use fftgen_runtime::{Direction, Precision, Real, TransformKind};
use std::ffi::c_int;
use std::sync::{Arc, OnceLock};

/// cuFFT's forward direction (`CUFFT_FORWARD`).
const CUFFT_FORWARD: c_int = -1;

/// Whether libcufft can be loaded (checked once per process). Calling cuFFT
/// without it would panic inside cudarc.
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the library by its usual names.
    *PRESENT.get_or_init(|| unsafe { fftgen_runtime::cudarc::cufft::sys::is_culib_present() })
}

/// What to tell the user when libcufft cannot be loaded.
pub const MISSING: &str = "libcufft.so was not found; put the folder holding libcufft.so.12 \
     (pip's nvidia-cufft: .../site-packages/nvidia/cu13/lib, or the CUDA toolkit's lib64) on LD_LIBRARY_PATH";

/// cuFFT's version number (e.g. 12000 for 12.0.0), if it can be loaded.
pub fn version() -> Option<i32> {
    if available() {
        cufft::get_version().ok()
    } else {
        None
    }
}

/// A failed cuFFT call, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call} failed: {status}")]
pub struct CufftFailure {
    pub call: &'static str,
    pub status: String,
}

fn failure(call: &'static str) -> impl Fn(CufftError) -> CufftFailure {
    move |e| CufftFailure {
        call,
        status: format!("{:?}", e.0),
    }
}

/// What a plan computes: cuFFT's transform type and direction, for our
/// kind and direction of transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CufftTransform {
    /// Complex to complex, forward: C2C (f32) or Z2Z (f64).
    Complex,
    /// Real to the half spectrum: R2C (f32) or D2Z (f64).
    RealToHalf,
    /// Half spectrum to real, unnormalised: C2R (f32) or Z2D (f64). cuFFT
    /// overwrites its input (out of place too).
    HalfToReal,
}

impl CufftTransform {
    /// cuFFT's counterpart of our `kind` in `direction` (a C2C plan runs
    /// forward only: the benchmark times cuFFT's forward C2C).
    pub fn of(kind: TransformKind, direction: Direction) -> CufftTransform {
        match (kind, direction) {
            (TransformKind::C2c, _) => CufftTransform::Complex,
            (TransformKind::R2c, Direction::Forward) => CufftTransform::RealToHalf,
            (TransformKind::R2c, Direction::Inverse) => CufftTransform::HalfToReal,
        }
    }

    /// The `cufftType` cufftPlanMany takes for `precision`.
    pub fn plan_type(self, precision: Precision) -> cufftType {
        match (self, precision) {
            (CufftTransform::Complex, Precision::F32) => cufftType::CUFFT_C2C,
            (CufftTransform::Complex, Precision::F64) => cufftType::CUFFT_Z2Z,
            (CufftTransform::RealToHalf, Precision::F32) => cufftType::CUFFT_R2C,
            (CufftTransform::RealToHalf, Precision::F64) => cufftType::CUFFT_D2Z,
            (CufftTransform::HalfToReal, Precision::F32) => cufftType::CUFFT_C2R,
            (CufftTransform::HalfToReal, Precision::F64) => cufftType::CUFFT_Z2D,
        }
    }

    /// The cufftExec call that runs it in `precision`, as errors name it.
    pub fn exec_name(self, precision: Precision) -> &'static str {
        match (self, precision) {
            (CufftTransform::Complex, Precision::F32) => "cufftExecC2C",
            (CufftTransform::Complex, Precision::F64) => "cufftExecZ2Z",
            (CufftTransform::RealToHalf, Precision::F32) => "cufftExecR2C",
            (CufftTransform::RealToHalf, Precision::F64) => "cufftExecD2Z",
            (CufftTransform::HalfToReal, Precision::F32) => "cufftExecC2R",
            (CufftTransform::HalfToReal, Precision::F64) => "cufftExecZ2D",
        }
    }

    /// Elements one transform of `shape` reads and writes in cuFFT's dense
    /// layouts, each of its side's type: `n` complex values each way for
    /// C2C; for real transforms `n` reals on the real side and the half
    /// spectrum's complex values (the last axis `n / 2 + 1`) on the other.
    pub fn elements_per_transform(self, shape: &[usize]) -> (usize, usize) {
        let points: usize = shape.iter().product();
        let half: usize = TransformKind::R2c.complex_shape(shape).iter().product();
        match self {
            CufftTransform::Complex => (points, points),
            CufftTransform::RealToHalf => (points, half),
            CufftTransform::HalfToReal => (half, points),
        }
    }

    /// [`CufftTransform::elements_per_transform`] in reals (`T`s), complex
    /// values being pairs of them.
    pub fn reals_per_transform(self, shape: &[usize]) -> (usize, usize) {
        let (input, output) = self.elements_per_transform(shape);
        match self {
            CufftTransform::Complex => (2 * input, 2 * output),
            CufftTransform::RealToHalf => (input, 2 * output),
            CufftTransform::HalfToReal => (2 * input, output),
        }
    }
}

/// A batched plan of rank 1 to 3 on one stream: complex to complex
/// forward, real to complex or complex to real.
#[derive(Debug)]
pub struct CufftPlan {
    handle: cufftHandle,
    transform: CufftTransform,
    /// Reals one transform reads and writes.
    reals: (usize, usize),
    batch: usize,
    precision: Precision,
    stream: Arc<CudaStream>,
}

impl CufftPlan {
    /// Plans `batch` dense complex-to-complex transforms of `shape`
    /// (row-major, the last axis contiguous, 1 to 3 axes) of interleaved
    /// complex values of `precision` (transform `b` starts at element
    /// `b * n`, `n` the product of the shape), executed on `stream`.
    pub fn new(
        stream: &Arc<CudaStream>,
        shape: &[usize],
        batch: usize,
        precision: Precision,
    ) -> Result<Self, CufftFailure> {
        Self::with_transform(stream, shape, batch, precision, CufftTransform::Complex)
    }

    /// Plans `batch` dense real transforms of `shape` (the real side's),
    /// R2C forward (D2Z in f64) or C2R inverse (Z2D), in cuFFT's basic
    /// layout: `n` reals per transform one after another, and the half
    /// spectrum (last axis `n / 2 + 1`) likewise, as our out-of-place r2c
    /// kernels lay them out.
    pub fn real(
        stream: &Arc<CudaStream>,
        shape: &[usize],
        batch: usize,
        precision: Precision,
        direction: Direction,
    ) -> Result<Self, CufftFailure> {
        let transform = CufftTransform::of(TransformKind::R2c, direction);
        Self::with_transform(stream, shape, batch, precision, transform)
    }

    fn with_transform(
        stream: &Arc<CudaStream>,
        shape: &[usize],
        batch: usize,
        precision: Precision,
        transform: CufftTransform,
    ) -> Result<Self, CufftFailure> {
        if !available() {
            return Err(CufftFailure {
                call: "loading libcufft",
                status: MISSING.to_string(),
            });
        }
        let too_large = |what: &str| CufftFailure {
            call: "cufftPlanMany",
            status: format!("{what} does not fit cuFFT's 32-bit int (use cufftMakePlanMany64)"),
        };
        if !(1..=3).contains(&shape.len()) {
            return Err(CufftFailure {
                call: "cufftPlanMany",
                status: format!("cuFFT plans 1 to 3 axes, not {}", shape.len()),
            });
        }
        let (input_elements, output_elements) = transform.elements_per_transform(shape);
        let distance = |elements: usize| {
            c_int::try_from(elements).map_err(|_| too_large("the points of one transform"))
        };
        let (input_distance, output_distance) =
            (distance(input_elements)?, distance(output_elements)?);
        let batch_int = c_int::try_from(batch).map_err(|_| too_large("batch"))?;
        let mut dims = shape
            .iter()
            .map(|&len| c_int::try_from(len).map_err(|_| too_large("an axis")))
            .collect::<Result<Vec<c_int>, _>>()?;
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| CufftFailure {
                call: "cuCtxSetCurrent",
                status: e.to_string(),
            })?;
        // SAFETY: `dims` holds rank (1 to 3) sizes. Null embeds select the
        // basic layout, which ignores the strides and distances (given as
        // that layout's anyway): dense transforms one after another, for
        // real transforms `n` reals and the half spectrum's values (no
        // padding out of place).
        let handle = unsafe {
            cufft::plan_many(
                dims.len() as c_int,
                dims.as_mut_ptr(),
                std::ptr::null_mut(),
                1,
                input_distance,
                std::ptr::null_mut(),
                1,
                output_distance,
                transform.plan_type(precision),
                batch_int,
            )
        }
        .map_err(failure("cufftPlanMany"))?;
        let plan = CufftPlan {
            handle,
            transform,
            reals: transform.reals_per_transform(shape),
            batch,
            precision,
            stream: Arc::clone(stream),
        };
        // SAFETY: the handle is live; the stream belongs to the current context.
        unsafe { cufft::set_stream(plan.handle, stream.cu_stream() as _) }
            .map_err(failure("cufftSetStream"))?;
        Ok(plan)
    }

    /// What the plan computes.
    pub fn transform(&self) -> CufftTransform {
        self.transform
    }

    /// Reals of the input and of the output one execution reads and
    /// writes: the whole batch.
    pub fn buffer_reals(&self) -> (usize, usize) {
        (self.reals.0 * self.batch, self.reals.1 * self.batch)
    }

    /// Enqueues the forward transform of a complex-to-complex plan
    /// ([`CufftPlan::execute`]).
    pub fn forward<T: Real>(
        &self,
        input: &mut CudaSlice<T>,
        output: &mut CudaSlice<T>,
    ) -> Result<(), CufftFailure> {
        self.execute(input, output)
    }

    /// Enqueues the plan's transform of the batch from `input` into
    /// `output` (out of place). Both buffers hold reals, complex values
    /// interleaved, at least [`CufftPlan::buffer_reals`] long. cuFFT takes
    /// the input as a mutable pointer: its C2R overwrites the input, and
    /// the others do not promise to leave it alone for every size, so the
    /// input is borrowed mutably (the benchmark checks or refills it after).
    pub fn execute<T: Real>(
        &self,
        input: &mut CudaSlice<T>,
        output: &mut CudaSlice<T>,
    ) -> Result<(), CufftFailure> {
        let call = self.transform.exec_name(self.precision);
        if T::PRECISION != self.precision {
            return Err(CufftFailure {
                call,
                status: format!(
                    "the plan is {} but the buffers hold {}",
                    self.precision,
                    T::PRECISION
                ),
            });
        }
        let (needed_in, needed_out) = self.buffer_reals();
        if input.len() < needed_in || output.len() < needed_out {
            return Err(CufftFailure {
                call,
                status: format!(
                    "buffers of {} and {} reals are shorter than the batch's {needed_in} and \
                     {needed_out}",
                    input.len(),
                    output.len()
                ),
            });
        }
        let (idata, _read) = input.device_ptr_mut(&self.stream);
        let (odata, _write) = output.device_ptr_mut(&self.stream);
        // SAFETY: both pointers are live device allocations at least as long
        // as the plan's batch reads and writes (checked above), of the
        // plan's precision (checked above), so each cast names the element
        // type the plan's exec call takes.
        let result = unsafe {
            match (self.transform, self.precision) {
                (CufftTransform::Complex, Precision::F32) => cufft::exec_c2c(
                    self.handle,
                    idata as *mut cufftComplex,
                    odata as *mut cufftComplex,
                    CUFFT_FORWARD,
                ),
                (CufftTransform::Complex, Precision::F64) => cufft::exec_z2z(
                    self.handle,
                    idata as *mut cufftDoubleComplex,
                    odata as *mut cufftDoubleComplex,
                    CUFFT_FORWARD,
                ),
                (CufftTransform::RealToHalf, Precision::F32) => cufft::exec_r2c(
                    self.handle,
                    idata as *mut cufftReal,
                    odata as *mut cufftComplex,
                ),
                (CufftTransform::RealToHalf, Precision::F64) => cufft::exec_d2z(
                    self.handle,
                    idata as *mut cufftDoubleReal,
                    odata as *mut cufftDoubleComplex,
                ),
                (CufftTransform::HalfToReal, Precision::F32) => cufft::exec_c2r(
                    self.handle,
                    idata as *mut cufftComplex,
                    odata as *mut cufftReal,
                ),
                (CufftTransform::HalfToReal, Precision::F64) => cufft::exec_z2d(
                    self.handle,
                    idata as *mut cufftDoubleComplex,
                    odata as *mut cufftDoubleReal,
                ),
            }
        };
        result.map_err(failure(call))
    }
}

impl Drop for CufftPlan {
    fn drop(&mut self) {
        // A failure to destroy cannot be acted on; the plan's memory is lost
        // either way, and a benchmark must not panic over it.
        // SAFETY: the handle was made by cufftPlanMany and is destroyed only here.
        let _ = unsafe { cufft::destroy(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_transforms_plan_cuffts_real_types() {
        use CufftTransform::{Complex, HalfToReal, RealToHalf};
        let of = CufftTransform::of;
        assert_eq!(of(TransformKind::C2c, Direction::Inverse), Complex);
        assert_eq!(of(TransformKind::R2c, Direction::Forward), RealToHalf);
        assert_eq!(of(TransformKind::R2c, Direction::Inverse), HalfToReal);
        let types = [
            (Complex, cufftType::CUFFT_C2C, cufftType::CUFFT_Z2Z),
            (RealToHalf, cufftType::CUFFT_R2C, cufftType::CUFFT_D2Z),
            (HalfToReal, cufftType::CUFFT_C2R, cufftType::CUFFT_Z2D),
        ];
        for (transform, f32_type, f64_type) in types {
            assert_eq!(transform.plan_type(Precision::F32), f32_type);
            assert_eq!(transform.plan_type(Precision::F64), f64_type);
        }
        assert_eq!(RealToHalf.exec_name(Precision::F64), "cufftExecD2Z");
        assert_eq!(HalfToReal.exec_name(Precision::F32), "cufftExecC2R");
        assert_eq!(Complex.exec_name(Precision::F32), "cufftExecC2C");
    }

    #[test]
    fn buffers_are_sized_by_side() {
        use CufftTransform::{Complex, HalfToReal, RealToHalf};
        // The reals, and the half spectrum of n / 2 + 1 per row.
        assert_eq!(RealToHalf.elements_per_transform(&[4096]), (4096, 2049));
        assert_eq!(RealToHalf.reals_per_transform(&[4096]), (4096, 4098));
        assert_eq!(HalfToReal.reals_per_transform(&[4096]), (4098, 4096));
        assert_eq!(
            HalfToReal.elements_per_transform(&[1024, 1024]),
            (1024 * 513, 1024 * 1024)
        );
        assert_eq!(RealToHalf.elements_per_transform(&[7]), (7, 4));
        assert_eq!(Complex.reals_per_transform(&[8, 8]), (128, 128));
    }

    #[test]
    fn a_missing_library_is_reported_not_called() {
        // Without libcufft (this machine may have no GPU at all) nothing is
        // called: plans fail with MISSING instead.
        if !available() {
            assert_eq!(version(), None);
        }
    }
}
