//! The CUDA backend: compiling generated CUDA C++ with NVRTC for a real
//! architecture ([`compile_to_cubin_check`], so ptxas checks every kernel on
//! machines without a GPU), caching CUBINs in memory and on disk
//! ([`CubinCache`]) with the plans loaded through them ([`PlanCache`]), finding a device ([`CudaDevice`]) and running a
//! manifest's passes on device buffers ([`CudaFft`]). cudarc's types that the
//! API takes ([`CudaContext`], [`CudaStream`], [`CudaSlice`]) are re-exported
//! so callers use the same cudarc version.

mod cache;
mod device;
mod fft;
mod nvrtc;
mod plans;

pub use cache::{
    default_disk_dir, CacheKey, CacheOrigin, CacheStats, CachedCubin, CubinCache, CACHE_DIR_ENV,
    NO_DISK_CACHE_ENV,
};
pub use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
pub use device::{CudaDevice, CudaDeviceInfo};
pub use fft::{CudaFft, CudaKernelInfo};
pub use nvrtc::{
    check_driver, compile_to_cubin_check, cubin_options, driver_available, nvrtc_available,
    nvrtc_version, CompiledCuda,
};
pub use plans::PlanCache;
