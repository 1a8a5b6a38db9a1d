//! Plans made before in this process: the kernels of a spec loaded into a
//! CUDA context, so that planning the same spec on the same context again
//! takes microseconds instead of the planner's search, the source's
//! generation and the module's load (cuFFT makes a repeated plan in
//! 0.2-0.8 ms). Each [`super::CubinCache`] holds one: a fresh cache measures
//! a first plan, and the process-wide cache serves every later one.
//!
//! A plan taken from here shares its module and twiddle tables with the plan
//! that loaded them, and has a workspace of its own, as separate cuFFT plans
//! do. An entry keeps its context alive until it is dropped, which happens
//! to the oldest once [`PlanCache::CAPACITY`] entries are held, or on
//! [`super::CubinCache::clear_memory`].

use super::fft::LoadedKernels;
use super::CudaDevice;
use crate::recent::Recent;
use std::sync::Arc;

/// What identifies a plan: the context its kernels are loaded into and the
/// caller's key of what was planned (the spec, with everything that decides
/// its kernels).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PlanKey {
    // The context's address: stable while an entry holds the context alive.
    context: usize,
    spec: String,
}

// Used by the run-time planner (feature `planner`), which plans by spec.
#[cfg_attr(not(feature = "planner"), allow(dead_code))]
impl PlanKey {
    fn new(device: &CudaDevice, spec: &str) -> Self {
        PlanKey {
            context: Arc::as_ptr(device.context()) as usize,
            spec: spec.to_string(),
        }
    }
}

/// Loaded kernels by context and spec, at most [`PlanCache::CAPACITY`].
pub struct PlanCache {
    loaded: Recent<PlanKey, Arc<LoadedKernels>>,
}

impl Default for PlanCache {
    fn default() -> Self {
        PlanCache {
            loaded: Recent::new(Self::CAPACITY),
        }
    }
}

impl std::fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanCache")
            .field("plans", &self.len())
            .finish()
    }
}

impl PlanCache {
    /// Plans held at most; past it the oldest goes.
    pub const CAPACITY: usize = 256;

    /// The kernels planned for `spec` and loaded on `device`'s context, if
    /// a plan loaded them before.
    #[cfg_attr(not(feature = "planner"), allow(dead_code))]
    pub(crate) fn get(&self, device: &CudaDevice, spec: &str) -> Option<Arc<LoadedKernels>> {
        self.loaded.get(&PlanKey::new(device, spec))
    }

    /// Keeps `loaded` as the kernels of `spec` on `device`'s context.
    #[cfg_attr(not(feature = "planner"), allow(dead_code))]
    pub(crate) fn insert(&self, device: &CudaDevice, spec: &str, loaded: Arc<LoadedKernels>) {
        self.loaded.insert(PlanKey::new(device, spec), loaded);
    }

    /// Plans held.
    pub fn len(&self) -> usize {
        self.loaded.len()
    }

    /// Whether no plan is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every plan held (plans in use keep their kernels).
    pub fn clear(&self) {
        self.loaded.clear();
    }
}
