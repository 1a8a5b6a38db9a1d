//! Planning at run time (feature `planner`), without the `fft_kernel!`
//! macro: generate the kernels of an [`FftSpec`] with the `fftgen` library
//! and load them on a device in one call. A spec that names no target is
//! planned for the device it is loaded on, from the [`Target`] the device
//! reports (its limits, and the shapes measured on its GPU model where the
//! wisdom has some). The CUDA path goes through the CUBIN cache, so a spec
//! planned before (in this process, or in an earlier one through the disk
//! cache) skips NVRTC.

use crate::cuda::{CubinCache, CudaDevice, CudaFft};
use crate::opencl::{OpenClDevice, OpenClFft};
use crate::Target;
pub use fftgen::FftSpec;

/// Why a plan could not be made: the spec could not be generated, or the
/// runtime could not compile or load the kernels.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Generate(#[from] fftgen::Error),
    #[error(transparent)]
    Runtime(#[from] crate::Error),
}

/// Generates `spec` and loads its CUDA kernels on `device`, through the
/// process-wide CUBIN cache.
pub fn cuda_fft(device: &CudaDevice, spec: &FftSpec) -> Result<CudaFft, PlanError> {
    cuda_fft_with_cache(device, spec, CubinCache::global())
}

/// [`cuda_fft`] through `cache`.
pub fn cuda_fft_with_cache(
    device: &CudaDevice,
    spec: &FftSpec,
    cache: &CubinCache,
) -> Result<CudaFft, PlanError> {
    let generated = generate(spec, device.target())?;
    Ok(CudaFft::with_cache(
        device,
        &generated.cuda_source,
        &generated.manifest,
        cache,
    )?)
}

/// Generates `spec` and builds its OpenCL kernels on `device`.
pub fn opencl_fft(device: &OpenClDevice, spec: &FftSpec) -> Result<OpenClFft, PlanError> {
    let generated = generate(spec, device.target())?;
    Ok(OpenClFft::new(
        device,
        &generated.opencl_source,
        &generated.manifest,
    )?)
}

/// The kernels of `spec`, planned for `target` unless it names one.
fn generate(spec: &FftSpec, target: Target) -> Result<fftgen::Generated, PlanError> {
    let spec = for_target(spec, target);
    Ok(fftgen::generate(&spec, &spec.emit_command())?)
}

/// `spec`, planned for `target` unless it names a target already.
pub fn for_target(spec: &FftSpec, target: Target) -> FftSpec {
    let mut spec = spec.clone();
    spec.target.get_or_insert(target);
    spec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_for_a_device_use_its_measured_shapes() {
        let bound = |spec: &FftSpec| fftgen::plan::plan(spec).unwrap().passes[0].min_blocks_per_sm;
        let h200 = for_target(&FftSpec::new(2187), Target::H200);
        assert_eq!(bound(&h200), 6);
        let h100 = for_target(&FftSpec::new(2187), Target::H100);
        assert_eq!(bound(&h100), 4);
        // A target the caller named is kept.
        let named = for_target(&FftSpec::new(2187).target(Target::H200), Target::H100);
        assert_eq!(named.target, Some(Target::H200));
        assert!(named.emit_command().contains("--target h200"));
    }
}
