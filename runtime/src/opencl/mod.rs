//! The OpenCL backend: finding a device ([`OpenClDevice`]), building programs
//! once per device, and running a manifest's passes ([`OpenClFft`]).

mod device;
mod fft;
mod program;

pub use device::{DeviceInfo, OpenClDevice, PLATFORM_ENV, POCL_PLATFORM};
pub use fft::OpenClFft;
pub use program::{build_options, BUILD_OPTIONS};
