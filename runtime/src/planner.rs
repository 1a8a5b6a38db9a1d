//! Planning at run time (feature `planner`), without the `fft_kernel!`
//! macro: generate the kernels of an [`FftSpec`] with the `fftgen` library
//! and load them on a device in one call. A spec that names no target is
//! planned for the device it is loaded on, from the [`Target`] the device
//! reports (its limits, and the shapes measured on its GPU model where the
//! wisdom has some). A spec planned before in this process is not planned
//! again: CUDA takes its loaded kernels from the cache's [`PlanCache`]
//! (microseconds), OpenCL its generated source from [`GeneratedCache`]; a
//! spec planned in an earlier process skips NVRTC through the disk cache.

use crate::cuda::{CubinCache, CudaDevice, CudaFft};
use crate::opencl::{OpenClDevice, OpenClFft};
use crate::recent::Recent;
use crate::Target;
pub use fftgen::FftSpec;
use fftgen::Generated;
use std::sync::{Arc, OnceLock};

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

/// [`cuda_fft`] through `cache`: the plan `cache` made before for the same
/// spec on the same context, else a new one, which `cache` then keeps.
pub fn cuda_fft_with_cache(
    device: &CudaDevice,
    spec: &FftSpec,
    cache: &CubinCache,
) -> Result<CudaFft, PlanError> {
    let spec = for_target(spec, device.target());
    let key = spec_key(&spec);
    if let Some(loaded) = cache.plans().get(device, &key) {
        return Ok(CudaFft::from_loaded(device, loaded));
    }
    let generated = fftgen::generate(&spec, &spec.emit_command())?;
    let fft = CudaFft::with_cache(device, &generated.cuda_source, &generated.manifest, cache)?;
    cache.plans().insert(device, &key, Arc::clone(fft.loaded()));
    Ok(fft)
}

/// Generates `spec` and builds its OpenCL kernels on `device` (the source
/// of a spec generated before comes from [`GeneratedCache::global`], the
/// program from the device's cache).
pub fn opencl_fft(device: &OpenClDevice, spec: &FftSpec) -> Result<OpenClFft, PlanError> {
    let spec = for_target(spec, device.target());
    let generated = GeneratedCache::global().get_or_generate(&spec)?;
    Ok(OpenClFft::new(
        device,
        &generated.opencl_source,
        &generated.manifest,
    )?)
}

/// What decides a spec's kernels, as text: the spec itself (its target
/// included) and the wisdom file the environment names, which the planner
/// reads where the spec names none.
fn spec_key(spec: &FftSpec) -> String {
    let spec_json = serde_json::to_string(spec).expect("a spec always serialises");
    let wisdom = std::env::var_os(fftgen::plan::WISDOM_ENV).unwrap_or_default();
    format!("{spec_json} {}", wisdom.to_string_lossy())
}

/// Kernels generated before in this process, by spec: a repeated plan skips
/// the planner's search and the source's generation. At most
/// [`GeneratedCache::CAPACITY`] specs; past it the oldest goes.
#[derive(Debug)]
pub struct GeneratedCache {
    generated: Recent<String, Arc<Generated>>,
}

impl Default for GeneratedCache {
    fn default() -> Self {
        GeneratedCache {
            generated: Recent::new(Self::CAPACITY),
        }
    }
}

impl GeneratedCache {
    /// Specs held at most.
    pub const CAPACITY: usize = 256;

    /// The cache [`opencl_fft`] uses.
    pub fn global() -> &'static GeneratedCache {
        static GLOBAL: OnceLock<GeneratedCache> = OnceLock::new();
        GLOBAL.get_or_init(GeneratedCache::default)
    }

    /// The kernels of `spec`, generated now or before.
    pub fn get_or_generate(&self, spec: &FftSpec) -> Result<Arc<Generated>, PlanError> {
        let key = spec_key(spec);
        if let Some(generated) = self.generated.get(&key) {
            return Ok(generated);
        }
        // Generated outside the lock: other specs plan in parallel meanwhile.
        let generated = Arc::new(fftgen::generate(spec, &spec.emit_command())?);
        self.generated.insert(key, Arc::clone(&generated));
        Ok(generated)
    }

    /// Specs held.
    pub fn len(&self) -> usize {
        self.generated.len()
    }

    /// Whether no spec is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
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
