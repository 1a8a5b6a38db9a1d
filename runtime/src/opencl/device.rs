//! An OpenCL device ready to run kernels: its context, one in-order command
//! queue, the facts about it that launch checks need (its [`Target`]), and
//! the cache of programs built for it. Cheap to clone (it is shared behind an
//! `Arc`) and usable from many threads at once: OpenCL calls on contexts,
//! queues and buffers are thread-safe; only kernel arguments are not, and
//! those live in [`super::OpenClFft`] behind a lock.

use super::program::{is_nvidia, ProgramCache};
use crate::error::{Error, Result};
use crate::model::model_of;
use fftgen_manifest::Target;
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU};
use opencl3::error_codes::{ClError, CL_PLATFORM_NOT_FOUND_KHR, DLOPEN_RUNTIME_LOAD_FAILED};
use opencl3::platform::{get_platforms, Platform};
use opencl3::program::Program;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Environment variable that picks the OpenCL platform by a substring of its name.
pub const PLATFORM_ENV: &str = "FFTGEN_OPENCL_PLATFORM";

/// The name PoCL gives its platform.
pub const POCL_PLATFORM: &str = "Portable Computing Language";

/// PoCL can report no device when two threads enumerate for the first time at
/// once, so enumeration is serialised across the process.
static ENUMERATION: Mutex<()> = Mutex::new(());

/// Facts about a device that launches depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device name, e.g. `NVIDIA H100 80GB HBM3` or `cpu-haswell-...`.
    pub name: String,
    /// The platform name, e.g. `NVIDIA CUDA` or `Portable Computing Language`.
    pub platform_name: String,
    /// Work-items in one work-group (CL_DEVICE_MAX_WORK_GROUP_SIZE).
    pub max_work_group_size: usize,
    /// Work-items along each dimension of a work-group.
    pub max_work_item_sizes: [usize; 3],
    /// Local memory of one work-group, bytes (CL_DEVICE_LOCAL_MEM_SIZE).
    pub local_mem_bytes: u64,
    /// Compute units (CL_DEVICE_MAX_COMPUTE_UNITS): SMs on an NVIDIA GPU.
    pub compute_units: usize,
    /// Whether the device has double-precision arithmetic (cl_khr_fp64).
    pub supports_f64: bool,
    /// Global memory, bytes (CL_DEVICE_GLOBAL_MEM_SIZE; PoCL on a CPU
    /// reports part of the host's memory).
    pub global_mem_bytes: u64,
    /// The largest single buffer, bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE).
    pub max_mem_alloc_bytes: u64,
}

impl DeviceInfo {
    /// What the device allows a kernel, kept to what GPUs allow
    /// ([`Target::clamped_to`] [`Target::PORTABLE`]) so that a CPU device
    /// such as PoCL rejects what a GPU would. OpenCL reports no opt-in shared
    /// memory, clusters, grid limit (beyond size_t) or occupancy figures
    /// (registers, threads and blocks per SM): those are the portable ones.
    /// On PoCL it equals [`Target::PORTABLE`] but for the name, model and SMs.
    pub fn target(&self) -> Target {
        let local = usize::try_from(self.local_mem_bytes).unwrap_or(usize::MAX);
        Target {
            name: self.name.clone().into(),
            model: model_of(&self.name).to_string().into(),
            max_threads_per_block: self.max_work_group_size,
            // NVIDIA's OpenCL has no launch bounds, and its compiler gives
            // the fftgen kernels registers that larger work-groups lack.
            launchable_threads_per_block: if is_nvidia(&self.platform_name) {
                Target::OPENCL_NVIDIA.launchable_threads_per_block
            } else {
                self.max_work_group_size
            },
            max_block_dims: self.max_work_item_sizes,
            max_grid_dims: [u64::MAX; 3],
            max_static_shared_bytes: local,
            max_opt_in_shared_bytes: local,
            sm_count: self.compute_units,
            max_cluster_blocks: 1,
            ..Target::PORTABLE
        }
        .clamped_to(&Target::PORTABLE)
    }
}

/// An OpenCL context and in-order queue on one device.
#[derive(Clone)]
pub struct OpenClDevice {
    inner: Arc<Inner>,
}

struct Inner {
    // Field order is drop order: the queue and programs go before the context.
    queue: CommandQueue,
    programs: ProgramCache,
    context: Context,
    device: Device,
    info: DeviceInfo,
}

impl std::fmt::Debug for OpenClDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenClDevice")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

impl OpenClDevice {
    /// The first device (GPUs before CPUs before others) of the first platform
    /// whose name contains `platform_name_contains` (ignoring case) and that
    /// has a device; `None` takes the first platform with any device.
    pub fn find(platform_name_contains: Option<&str>) -> Result<Self> {
        let wanted = platform_name_contains.map(str::to_string);
        let no_device = |detail: String| Error::NoOpenClDevice {
            wanted: wanted.clone(),
            detail,
        };
        let _guard = ENUMERATION.lock().unwrap_or_else(PoisonError::into_inner);

        let platforms = get_platforms().map_err(|e| no_device(platform_failure(e)))?;
        let mut seen = Vec::new();
        for platform in platforms {
            let name = platform.name().unwrap_or_default();
            seen.push(name.clone());
            let matches = match wanted.as_deref() {
                None => true,
                Some(w) => name.to_lowercase().contains(&w.to_lowercase()),
            };
            if !matches {
                continue;
            }
            if let Some(device) = first_device(&platform) {
                return Self::new(device, name);
            }
        }
        Err(no_device(if seen.is_empty() {
            NO_PLATFORM.to_string()
        } else {
            format!("platforms present: {}", seen.join(", "))
        }))
    }

    /// The device named by the environment: the platform whose name contains
    /// `$FFTGEN_OPENCL_PLATFORM` if it is set, otherwise an NVIDIA platform if
    /// there is one, otherwise any.
    pub fn from_env() -> Result<Self> {
        match std::env::var(PLATFORM_ENV) {
            Ok(wanted) if !wanted.is_empty() => Self::find(Some(&wanted)),
            _ => Self::find(Some("NVIDIA")).or_else(|_| Self::find(None)),
        }
    }

    /// The process-wide PoCL device, made once and shared by every caller
    /// (tests run on many threads and each would otherwise enumerate again).
    /// A failure is not cached, so a later call tries again.
    pub fn shared_pocl() -> Result<&'static OpenClDevice> {
        static POCL: OnceLock<OpenClDevice> = OnceLock::new();
        static INIT: Mutex<()> = Mutex::new(());
        if let Some(device) = POCL.get() {
            return Ok(device);
        }
        let _guard = INIT.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(device) = POCL.get() {
            return Ok(device);
        }
        let device = Self::find(Some(POCL_PLATFORM))?;
        Ok(POCL.get_or_init(|| device))
    }

    fn new(device: Device, platform_name: String) -> Result<Self> {
        let info = device_info(&device, platform_name)?;
        let context =
            Context::from_device(&device).map_err(|e| Error::opencl("clCreateContext", e))?;
        // SAFETY: the device belongs to the context just made from it.
        let queue = unsafe { CommandQueue::create(&context, device.id(), 0) }
            .map_err(|e| Error::opencl("clCreateCommandQueue", e))?;
        Ok(OpenClDevice {
            inner: Arc::new(Inner {
                queue,
                programs: ProgramCache::default(),
                context,
                device,
                info,
            }),
        })
    }

    /// Name, platform and limits of the device.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// What the device allows a kernel ([`DeviceInfo::target`]).
    pub fn target(&self) -> Target {
        self.inner.info.target()
    }

    /// How many programs this device has built (each source is built once).
    pub fn programs_built(&self) -> usize {
        self.inner.programs.len()
    }

    /// The device's OpenCL context: make buffers for
    /// [`super::OpenClFft::launch`] in it.
    pub fn context(&self) -> &Context {
        &self.inner.context
    }

    /// The device's in-order queue (the one the host-slice calls use); any
    /// other queue of [`OpenClDevice::context`] works for the device-buffer calls.
    pub fn queue(&self) -> &CommandQueue {
        &self.inner.queue
    }

    /// The OpenCL device, to make queues of one's own in
    /// [`OpenClDevice::context`] (with profiling, say).
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The program for `source` built with `options` on this device, built
    /// now or taken from the device's cache.
    pub(crate) fn build_program(&self, source: &str, options: &str) -> Result<Arc<Program>> {
        let inner = &self.inner;
        inner.programs.build(
            &inner.context,
            &inner.device,
            &inner.info.name,
            source,
            options,
        )
    }
}

/// Why no platform could be listed, in words.
fn platform_failure(error: ClError) -> String {
    match error.0 {
        DLOPEN_RUNTIME_LOAD_FAILED => {
            "the OpenCL loader library (libOpenCL.so.1) could not be loaded".to_string()
        }
        CL_PLATFORM_NOT_FOUND_KHR => NO_PLATFORM.to_string(),
        code => format!("clGetPlatformIDs failed with {code} ({error})"),
    }
}

const NO_PLATFORM: &str =
    "the OpenCL loader found no platform (no .icd file in /etc/OpenCL/vendors or $OCL_ICD_VENDORS)";

fn first_device(platform: &Platform) -> Option<Device> {
    [CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_ALL]
        .into_iter()
        .find_map(|kind| platform.get_devices(kind).ok()?.first().copied())
        .map(Device::new)
}

fn device_info(device: &Device, platform_name: String) -> Result<DeviceInfo> {
    let q = |call: &str, e| Error::opencl(format!("clGetDeviceInfo({call})"), e);
    let sizes = device
        .max_work_item_sizes()
        .map_err(|e| q("CL_DEVICE_MAX_WORK_ITEM_SIZES", e))?;
    let size = |i: usize| sizes.get(i).copied().unwrap_or(1);
    Ok(DeviceInfo {
        name: device.name().map_err(|e| q("CL_DEVICE_NAME", e))?,
        platform_name,
        max_work_group_size: device
            .max_work_group_size()
            .map_err(|e| q("CL_DEVICE_MAX_WORK_GROUP_SIZE", e))?,
        max_work_item_sizes: [size(0), size(1), size(2)],
        local_mem_bytes: device
            .local_mem_size()
            .map_err(|e| q("CL_DEVICE_LOCAL_MEM_SIZE", e))?,
        compute_units: device
            .max_compute_units()
            .map_err(|e| q("CL_DEVICE_MAX_COMPUTE_UNITS", e))? as usize,
        supports_f64: device.double_fp_config().is_ok_and(|config| config != 0),
        global_mem_bytes: device
            .global_mem_size()
            .map_err(|e| q("CL_DEVICE_GLOBAL_MEM_SIZE", e))?,
        max_mem_alloc_bytes: device
            .max_mem_alloc_size()
            .map_err(|e| q("CL_DEVICE_MAX_MEM_ALLOC_SIZE", e))?,
    })
}
