//! The CUDA backend. For now: compiling generated CUDA C++ with NVRTC for a
//! real architecture, so that ptxas checks every kernel on machines without a
//! GPU. Running kernels through the driver will live in `cuda/fft.rs`.

mod nvrtc;

pub use nvrtc::{
    check_driver, compile_to_cubin_check, driver_available, nvrtc_available, CompiledCuda,
};
