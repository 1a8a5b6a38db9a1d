//! Building OpenCL programs, once each. PoCL compiles a program through
//! clang and LLVM, which takes long enough that rebuilding the same source for
//! every test would dominate the suite; so each device keeps the programs it
//! built ([`ProgramCache`]), keyed by a hash of (source, device name, build
//! options). Different sources build in parallel; the same source built from
//! two threads at once is built once and the second thread waits for it.
//!
//! This file knows OpenCL's context and device handles, not the
//! [`super::OpenClDevice`] that owns a cache.

use crate::error::{Error, Result};
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::error_codes::CL_BUILD_PROGRAM_FAILURE;
use opencl3::program::Program;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

/// Options every program is built with: OpenCL C 1.2 is what NVIDIA, AMD,
/// Intel and PoCL all accept.
pub const BUILD_OPTIONS: &str = "-cl-std=CL1.2";

/// The programs built on one device.
#[derive(Default)]
pub(crate) struct ProgramCache {
    // One slot per key, so that a build holds only its own slot's lock.
    slots: Mutex<HashMap<u64, Arc<Slot>>>,
}

/// A program, once built (None while unbuilt or after a failed build).
type Slot = Mutex<Option<Arc<Program>>>;

impl ProgramCache {
    /// The number of programs built so far.
    pub(crate) fn len(&self) -> usize {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots
            .values()
            .filter(|slot| {
                slot.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .is_some()
            })
            .count()
    }

    /// The program for `source` on `device` (named `device_name`, in
    /// `context`), built now or taken from the cache.
    pub(crate) fn build(
        &self,
        context: &Context,
        device: &Device,
        device_name: &str,
        source: &str,
        options: &str,
    ) -> Result<Arc<Program>> {
        if let Some(offset) = source.find('\0') {
            return Err(Error::SourceHasNul { offset });
        }
        let key = cache_key(source, device_name, options);
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.entry(key).or_default())
        };
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(program) = slot.as_ref() {
            return Ok(Arc::clone(program));
        }
        let program = Arc::new(build_uncached(
            context,
            device,
            device_name,
            source,
            options,
        )?);
        *slot = Some(Arc::clone(&program));
        Ok(program)
    }
}

/// Whether a platform is NVIDIA's, whose compiler has no launch bounds.
pub(crate) fn is_nvidia(platform_name: &str) -> bool {
    platform_name.to_ascii_uppercase().contains("NVIDIA")
}

/// Build options for kernels launched with up to `threads_per_block` threads.
///
/// OpenCL C has no launch bounds, so NVIDIA's compiler may give a kernel more
/// registers than a large work-group can hold, and then refuses the launch.
/// Its `cl_nv_compiler_options` extension caps registers per thread so that
/// the planned block always fits.
pub fn build_options(platform_name: &str, threads_per_block: usize) -> String {
    if !is_nvidia(platform_name) || threads_per_block == 0 {
        return BUILD_OPTIONS.to_string();
    }
    const REGISTERS_PER_SM: usize = 65536;
    let warp_threads = threads_per_block.div_ceil(32) * 32;
    let cap = (REGISTERS_PER_SM / warp_threads / 8 * 8).clamp(16, 255);
    format!("{BUILD_OPTIONS} -cl-nv-maxrregcount={cap}")
}

fn build_uncached(
    context: &Context,
    device: &Device,
    device_name: &str,
    source: &str,
    options: &str,
) -> Result<Program> {
    let mut program = Program::create_from_source(context, source)
        .map_err(|e| Error::opencl("clCreateProgramWithSource", e))?;
    let id = device.id();
    match program.build(&[id], options) {
        Ok(()) => Ok(program),
        Err(e) if e.0 == CL_BUILD_PROGRAM_FAILURE => Err(Error::ProgramBuild {
            device: device_name.to_string(),
            options: options.to_string(),
            log: program
                .get_build_log(id)
                .unwrap_or_else(|e| format!("(the build log could not be read: {e})")),
        }),
        Err(e) => Err(Error::opencl("clBuildProgram", e)),
    }
}

fn cache_key(source: &str, device_name: &str, options: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    (source, device_name, options).hash(&mut hasher);
    hasher.finish()
}
