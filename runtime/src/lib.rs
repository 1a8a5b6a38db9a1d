//! fftgen-runtime: compiles, loads and launches the kernels that fftgen
//! generates. It knows nothing of how kernels are generated: it reads a
//! [`Manifest`] and a source string, so kernels made at run time by the
//! `fftgen` library and kernels made at build time by `fft_kernel!` load the
//! same way.
//!
//! - [`opencl`]: find a device ([`OpenClDevice`]) and run a manifest's passes
//!   ([`OpenClFft`]); PoCL runs them on the CPU in CI.
//! - [`cuda`]: compile CUDA sources with NVRTC for a real architecture
//!   ([`compile_to_cubin_check`]), cache the CUBINs in memory and on disk
//!   ([`CubinCache`]), find a device ([`CudaDevice`]) and run a manifest's
//!   passes on device buffers or host slices ([`CudaFft`]).
//!
//! Both backends run a plan through one executor (the checks of a call, the
//! passes in order between the buffers the manifest routes them through, the
//! workspace, the host calls' round trip), written once over a small trait
//! that each backend implements with its own driver calls.
//!
//! Buffers hold the values of their side of the direction called
//! ([`Manifest::input_side`], [`Manifest::output_side`]): complex values
//! ([`Complex`]) for `c2c` transforms and the half spectrum of `r2c` ones,
//! reals ([`Real`]) for the real side of `r2c` (the input of its forward
//! R2C, the output of its inverse C2R). Host calls take slices of any
//! [`Value`] and check its type against the side; device buffers need only
//! their side's bytes.
//!
//! Both devices describe themselves as a [`Target`] ([`CudaDevice::target`],
//! [`OpenClDevice::target`]), what the planner plans for. Every manifest and
//! launch is checked against the device's target and against
//! [`Target::PORTABLE`], what every GPU accepts, so that test runs on a CPU
//! (PoCL) reject what GPUs would.

mod call;
pub mod cuda;
#[cfg(feature = "planner")]
pub mod distributed;
pub mod error;
mod executor;
mod launch;
#[cfg(feature = "planner")]
pub mod measure;
mod memory;
mod model;
pub mod opencl;
#[cfg(feature = "planner")]
pub mod planner;
mod real;
mod recent;
mod route;
mod value;

pub use cuda::{
    compile_to_cubin_check, driver_available, nvrtc_available, CacheOrigin, CacheStats,
    CompiledCuda, CubinCache, CudaDevice, CudaDeviceInfo, CudaFft, CudaKernelInfo,
};
/// The cudarc this crate was built with, for callers that make their own
/// streams and buffers ([`cuda::CudaStream`], [`cuda::CudaSlice`]).
pub use cudarc;
pub use error::{Error, Result};
/// The vocabulary, the manifest and the [`Target`], from the crate every
/// layer shares.
pub use fftgen_manifest::{
    manifest, Backend, Buffer, Direction, Element, GridRule, KernelArg, Layout, LimitExceeded,
    Manifest, Normalization, PassLaunch, Placement, Precision, Side, StaticKernels, Target,
    TransformKind, TransformLaunch,
};
pub use num_complex::Complex;
pub use opencl::{DeviceInfo, OpenClDevice, OpenClFft};
/// The opencl3 this crate was built with, for callers that make their own
/// queues and buffers for [`OpenClFft::launch`].
pub use opencl3;
pub use real::Real;
pub use value::Value;
