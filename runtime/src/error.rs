//! Every way loading or launching kernels can fail, as one typed error. Each
//! message names what went wrong and what to do about it, because the reader
//! is usually someone whose test just failed on a machine without a GPU.

use fftgen_manifest::{Direction, Element, Placement, Precision};

/// An error from the runtime.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No OpenCL platform, or no device on the platforms that matched.
    #[error(
        "no OpenCL device found{}: {detail}; install pocl-opencl-icd and \
         ocl-icd-libopencl1 (a CPU implementation) or a GPU driver with OpenCL support",
        wanted.as_ref().map(|w| format!(" on a platform whose name contains `{w}`")).unwrap_or_default()
    )]
    NoOpenClDevice {
        wanted: Option<String>,
        detail: String,
    },

    /// An OpenCL API call returned an error code.
    #[error("OpenCL call {call} failed with {code} ({})", cl_error_text(*.code))]
    OpenCl { call: String, code: i32 },

    /// The OpenCL compiler rejected the program.
    #[error("building the OpenCL program for `{device}` failed (options `{options}`); build log:\n{log}")]
    ProgramBuild {
        device: String,
        options: String,
        log: String,
    },

    /// The program has no kernel with a name the manifest uses.
    #[error(
        "the program has no kernel named `{kernel}`, which the manifest launches; \
         the source and the manifest must come from the same generator run"
    )]
    MissingKernel { kernel: String },

    /// The device cannot run kernels of this precision.
    #[error("`{device}` does not support {precision} arithmetic (no cl_khr_fp64); use f32 kernels or another device")]
    UnsupportedPrecision {
        device: String,
        precision: Precision,
    },

    /// NVRTC could not be loaded.
    #[error(
        "the NVRTC library (libnvrtc.so) was not found; run `pip install --target DIR \
         nvidia-cuda-nvrtc nvidia-cuda-runtime` and set LD_LIBRARY_PATH=DIR/nvidia/cu13/lib"
    )]
    NvrtcMissing,

    /// NVRTC (or ptxas inside it) rejected the source.
    #[error("NVRTC failed to compile for {arch} ({status}); log:\n{log}")]
    NvrtcCompile {
        arch: String,
        status: String,
        log: String,
    },

    /// An NVRTC call other than the compilation itself failed.
    #[error("NVRTC call {call} failed: {status}")]
    Nvrtc { call: &'static str, status: String },

    /// The architecture is not a real `sm_XY` one.
    #[error(
        "`{arch}` is not a real GPU architecture; pass one like `sm_90` (not `compute_90`) \
         so that ptxas runs and checks registers and shared memory"
    )]
    InvalidCudaArch { arch: String },

    /// The source cannot be handed to a C compiler.
    #[error("the kernel source contains a NUL byte at offset {offset}; generated source never does, so check where it came from")]
    SourceHasNul { offset: usize },

    /// The CUDA driver (libcuda.so) could not be loaded.
    #[error(
        "the CUDA driver library (libcuda.so) was not found; CUDA kernels need an NVIDIA GPU \
         and its driver (use the OpenCL backend on other machines)"
    )]
    CudaDriverMissing,

    /// The CUDA driver is loaded but there is no device with this ordinal.
    #[error(
        "no CUDA device with ordinal {ordinal} ({detail}); pick an ordinal below the device \
         count, check `nvidia-smi`, or leave CUDA_VISIBLE_DEVICES unset"
    )]
    NoCudaDevice { ordinal: usize, detail: String },

    /// A CUDA driver call failed.
    #[error("CUDA driver call {call} failed: {status}")]
    CudaDriver { call: String, status: String },

    /// The driver refused the CUBIN NVRTC produced.
    #[error(
        "loading the CUBIN compiled for {arch} failed ({status}); the driver may be older than \
         the NVRTC that compiled it (a CUDA 13 NVRTC needs a driver for CUDA 13 or newer), or \
         the GPU is not {arch}"
    )]
    CudaModuleLoad { arch: String, status: String },

    /// A stream or device buffer of another CUDA context was given to a plan.
    #[error(
        "plan used with another context: the {what} belongs to a different CUDA context than \
         the one the plan's kernels were loaded into; make the plan with a CudaDevice of that \
         context, or use a stream and buffers of the plan's context (CudaFft::device())"
    )]
    ForeignContext { what: &'static str },

    /// A queue or buffer of another OpenCL context was given to a plan.
    #[error(
        "plan used with another context: the {what} belongs to a different OpenCL context than \
         the one the plan's kernels were built in; use the queue and buffers of the plan's \
         context (OpenClFft::device().context()), or make the plan with that device"
    )]
    ForeignOpenClContext { what: &'static str },

    /// A device buffer does not hold the bytes its side needs for the batch:
    /// the side's layout's elements in the side's type (a real side of `r2c`
    /// counts reals, every other side complex values), rounded up to whole
    /// elements of the buffer's type; in place, the larger of the two sides.
    #[error(
        "the {buffer} device buffer holds {got} bytes but the batch needs {expected} \
         ({needs}); size device buffers in bytes of their side, whatever their element type; \
         nothing was launched"
    )]
    WrongDeviceBytes {
        buffer: &'static str,
        expected: usize,
        got: usize,
        /// What the expected bytes are, in words.
        needs: String,
    },

    /// A host buffer does not hold the elements (of its own type) a batch
    /// needs: its side's layout's elements (`batch * n` when dense,
    /// `(batch - 1) * distance + span` with a layout); in place, as many as
    /// hold the larger of the two sides in bytes.
    #[error(
        "the {buffer} buffer holds {got} {element} values but the batch needs {expected} \
         ({needs}); nothing was written"
    )]
    WrongLength {
        buffer: &'static str,
        element: Element,
        expected: usize,
        got: usize,
        /// Where the expected length comes from, in words.
        needs: String,
    },

    /// A host buffer holds reals where its side is complex, or the reverse.
    #[error("the {buffer} of {transform} is {side}: pass a slice of {expected}, not of {got}; nothing was written")]
    WrongElement {
        buffer: &'static str,
        /// The transform called, as in `an r2c transform (the forward of an r2c plan)`.
        transform: String,
        side: Element,
        expected: &'static str,
        got: &'static str,
    },

    /// The device has too little memory for the buffers of a call.
    #[error(
        "not enough device memory for {what}: {needed} bytes needed, {available} available; \
         lower the batch (run it in parts) or free device memory; nothing was allocated"
    )]
    DeviceMemory {
        needed: u64,
        available: u64,
        what: String,
    },

    /// A caller's workspace is smaller than the batch needs.
    #[error(
        "the workspace holds {got} bytes but a batch of {batch} needs {needed} \
         (workspace_bytes(batch)); pass a larger buffer; nothing was launched"
    )]
    WorkspaceTooSmall {
        batch: usize,
        needed: usize,
        got: usize,
    },

    /// The manifest has no transform in the requested direction.
    #[error("the manifest has no {direction} transform (it has: {available}); generate the kernels for that direction too")]
    MissingDirection {
        direction: Direction,
        available: String,
    },

    /// A batch of zero transforms was requested.
    #[error("batch must be at least 1; nothing was written")]
    ZeroBatch,

    /// The batch does not fit the kernel's 32-bit batch argument or the address space.
    #[error("a batch of {batch} transforms of length {n} is too large (at most {max} transforms); split it")]
    BatchTooLarge { batch: usize, n: usize, max: usize },

    /// The buffers' element type does not match the kernels' precision.
    #[error("the kernels are {manifest} but the buffers hold {buffer} values; convert the data or generate {buffer} kernels")]
    PrecisionMismatch {
        manifest: Precision,
        buffer: Precision,
    },

    /// `run` was called for in-place kernels or `run_in_place` for out-of-place ones.
    #[error("the kernels are {manifest}; call {use_instead} instead")]
    PlacementMismatch {
        manifest: Placement,
        use_instead: &'static str,
    },

    /// A launch shape exceeds what a device (or any CUDA GPU) accepts.
    #[error(
        "kernel `{kernel}`: {what} is {value} but {limits} allow at most {max}; \
         the generator must plan a smaller launch"
    )]
    LaunchLimit {
        kernel: String,
        what: &'static str,
        value: u64,
        max: u64,
        limits: String,
    },

    /// The manifest is self-contradictory.
    #[error("invalid manifest: {0}")]
    InvalidManifest(String),

    /// A transform spread over several GPUs could not run: ranks that
    /// disagree, shares of the wrong length, a missing NCCL, a failed exchange.
    #[error("distributed transform: {0}")]
    Distributed(String),
}

/// Result with the runtime's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The symbolic name of an OpenCL error code, such as `CL_OUT_OF_RESOURCES`.
fn cl_error_text(code: i32) -> &'static str {
    opencl3::error_codes::error_text(code)
}

impl Error {
    /// A CUDA driver failure of `call`.
    pub(crate) fn cuda(call: impl Into<String>, error: cudarc::driver::DriverError) -> Self {
        Error::CudaDriver {
            call: call.into(),
            status: driver_status(error),
        }
    }

    /// An OpenCL failure of `call`.
    pub(crate) fn opencl(call: impl Into<String>, error: opencl3::error_codes::ClError) -> Self {
        Error::OpenCl {
            call: call.into(),
            code: error.0,
        }
    }
}

/// `CUDA_ERROR_NAME (description)` of a driver error.
pub(crate) fn driver_status(error: cudarc::driver::DriverError) -> String {
    match error.error_string() {
        Ok(text) => format!("{:?} ({})", error.0, text.to_string_lossy()),
        Err(_) => format!("{:?}", error.0),
    }
}
