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
//! Both devices describe themselves as a [`Target`] ([`CudaDevice::target`],
//! [`OpenClDevice::target`]), what the planner plans for. Every manifest and
//! launch is checked against the device's target and against
//! [`Target::PORTABLE`], what every GPU accepts, so that test runs on a CPU
//! (PoCL) reject what GPUs would.

pub mod cuda;
pub mod error;
mod launch;
mod memory;
mod model;
pub mod opencl;
#[cfg(feature = "planner")]
pub mod planner;
mod real;
mod route;

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
    manifest, Backend, Buffer, Direction, GridRule, KernelArg, Layout, LimitExceeded, Manifest,
    Normalization, PassLaunch, Placement, Precision, StaticKernels, Target, TransformLaunch,
};
pub use num_complex::Complex;
pub use opencl::{DeviceInfo, OpenClDevice, OpenClFft};
/// The opencl3 this crate was built with, for callers that make their own
/// queues and buffers for [`OpenClFft::launch`].
pub use opencl3;
pub use real::Real;
