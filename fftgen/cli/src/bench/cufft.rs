//! A small safe wrapper around cuFFT for the benchmark: one batched 1-D, 2-D
//! or 3-D complex-to-complex plan (`cufftPlanMany`, dense interleaved
//! layout, C2C for f32 and Z2Z for f64) bound to a stream, executed forward
//! on the same buffers our kernels use. cuFFT allocates the work area it
//! needs itself (its default). cudarc's own safe `CudaFft` wants buffers of
//! its `float2`/`double2` types and panics when a plan fails to be destroyed;
//! this goes through cudarc's `result` layer instead, takes the interleaved
//! real buffers as they are, and turns every failure into an error value.
//! cuFFT is loaded at run time: [`available`] says whether it can be.

use fftgen_runtime::cudarc::cufft::result::{self as cufft, CufftError};
use fftgen_runtime::cudarc::cufft::sys::{
    cufftComplex, cufftDoubleComplex, cufftHandle, cufftType,
};
use fftgen_runtime::cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};
use fftgen_runtime::{Precision, Real};
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

/// A batched complex-to-complex plan of rank 1 to 3 on one stream.
#[derive(Debug)]
pub struct CufftPlan {
    handle: cufftHandle,
    /// Points of one transform.
    n: usize,
    batch: usize,
    precision: Precision,
    stream: Arc<CudaStream>,
}

impl CufftPlan {
    /// Plans `batch` dense transforms of `shape` (row-major, the last axis
    /// contiguous, 1 to 3 axes) of interleaved complex values of `precision`
    /// (transform `b` starts at element `b * n`, `n` the product of the
    /// shape), executed on `stream`.
    pub fn new(
        stream: &Arc<CudaStream>,
        shape: &[usize],
        batch: usize,
        precision: Precision,
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
        let n: usize = shape.iter().product();
        let n_int = c_int::try_from(n).map_err(|_| too_large("the points of one transform"))?;
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
        let kind = match precision {
            Precision::F32 => cufftType::CUFFT_C2C,
            Precision::F64 => cufftType::CUFFT_Z2Z,
        };
        // SAFETY: `dims` holds rank (1 to 3) sizes; null embeds mean the
        // dense layout, for which strides and distances are as given.
        let handle = unsafe {
            cufft::plan_many(
                dims.len() as c_int,
                dims.as_mut_ptr(),
                std::ptr::null_mut(),
                1,
                n_int,
                std::ptr::null_mut(),
                1,
                n_int,
                kind,
                batch_int,
            )
        }
        .map_err(failure("cufftPlanMany"))?;
        let plan = CufftPlan {
            handle,
            n,
            batch,
            precision,
            stream: Arc::clone(stream),
        };
        // SAFETY: the handle is live; the stream belongs to the current context.
        unsafe { cufft::set_stream(plan.handle, stream.cu_stream() as _) }
            .map_err(failure("cufftSetStream"))?;
        Ok(plan)
    }

    /// Enqueues the forward transform of the first `n * batch` complex values
    /// of `input` into `output` (out-of-place). The buffers hold interleaved
    /// reals and must be at least `2 * n * batch` long. cuFFT takes the input
    /// as a mutable pointer and does not promise to leave it alone for every
    /// size, so the input is borrowed mutably (the benchmark checks it after).
    pub fn forward<T: Real>(
        &self,
        input: &mut CudaSlice<T>,
        output: &mut CudaSlice<T>,
    ) -> Result<(), CufftFailure> {
        if T::PRECISION != self.precision {
            return Err(CufftFailure {
                call: "cufftExec",
                status: format!(
                    "the plan is {} but the buffers hold {}",
                    self.precision,
                    T::PRECISION
                ),
            });
        }
        let needed = 2 * self.n * self.batch;
        if input.len() < needed || output.len() < needed {
            return Err(CufftFailure {
                call: "cufftExec",
                status: format!(
                    "buffers of {} and {} reals are shorter than 2 * n * batch = {needed}",
                    input.len(),
                    output.len()
                ),
            });
        }
        let (idata, _read) = input.device_ptr_mut(&self.stream);
        let (odata, _write) = output.device_ptr_mut(&self.stream);
        // SAFETY: both pointers are live device allocations of at least
        // n * batch complex values of the plan's precision (checked above).
        unsafe {
            match self.precision {
                Precision::F32 => cufft::exec_c2c(
                    self.handle,
                    idata as *mut cufftComplex,
                    odata as *mut cufftComplex,
                    CUFFT_FORWARD,
                )
                .map_err(failure("cufftExecC2C")),
                Precision::F64 => cufft::exec_z2z(
                    self.handle,
                    idata as *mut cufftDoubleComplex,
                    odata as *mut cufftDoubleComplex,
                    CUFFT_FORWARD,
                )
                .map_err(failure("cufftExecZ2Z")),
            }
        }
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
