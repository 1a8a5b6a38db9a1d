//! A CUDA device ready to run kernels: its context (the device's primary
//! context, which every library in the process shares), a default stream, and
//! the facts about it that compilation, planning and launch checks need: the
//! real architecture to compile for and its [`Target`], read from the driver's
//! device attributes. Cheap to clone and usable from many threads: cudarc's
//! context, stream and buffer types are thread-safe.
//!
//! cudarc loads the driver (libcuda.so) at run time and panics when a call
//! finds no library, so every constructor checks for it first and returns
//! [`Error::CudaDriverMissing`] instead.

use super::nvrtc::check_driver;
use crate::error::{Error, Result};
use crate::model::model_of;
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{CudaContext, CudaStream};
use fftgen_manifest::Target;
use std::sync::Arc;

/// Facts about a CUDA device that compilation and launches depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CudaDeviceInfo {
    /// The device ordinal, as CUDA numbers the visible devices.
    pub ordinal: usize,
    /// The device name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (u32, u32),
    /// The real architecture kernels are compiled for, e.g. `sm_90`.
    pub arch: String,
    /// Global memory, bytes.
    pub total_memory_bytes: usize,
    /// What the device allows a kernel, from the driver's attributes: named
    /// after the device, its model the name without `NVIDIA `.
    pub target: Target,
}

impl CudaDeviceInfo {
    /// What the device allows a kernel (a copy of [`CudaDeviceInfo::target`]):
    /// what the planner plans for and every launch is checked against. On
    /// an H100 or H200 it equals the preset of that name in every limit.
    pub fn target(&self) -> Target {
        self.target.clone()
    }
}

/// A CUDA context on one device and a default stream on it.
#[derive(Clone)]
pub struct CudaDevice {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: Arc<CudaDeviceInfo>,
}

impl std::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaDevice")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl CudaDevice {
    /// How many CUDA devices are visible (0 when the driver finds none).
    pub fn count() -> Result<usize> {
        check_driver()?;
        match result::init() {
            Ok(()) => {}
            Err(DriverError(CUresult::CUDA_ERROR_NO_DEVICE)) => return Ok(0),
            Err(e) => return Err(Error::cuda("cuInit", e)),
        }
        let count = result::device::get_count().map_err(|e| Error::cuda("cuDeviceGetCount", e))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The device `ordinal` through its primary context, with the context's
    /// default (null) stream.
    pub fn new(ordinal: usize) -> Result<Self> {
        let count = Self::count()?;
        if ordinal >= count {
            return Err(Error::NoCudaDevice {
                ordinal,
                detail: match count {
                    0 => "the driver found no CUDA device".to_string(),
                    1 => "there is 1 device, ordinal 0".to_string(),
                    n => format!("there are {n} devices, ordinals 0 to {}", n - 1),
                },
            });
        }
        let context =
            CudaContext::new(ordinal).map_err(|e| Error::cuda("cuDevicePrimaryCtxRetain", e))?;
        Self::from_context(context)
    }

    /// A device for a context made elsewhere (a non-primary context, or one
    /// shared with another library), with that context's default stream.
    pub fn from_context(context: Arc<CudaContext>) -> Result<Self> {
        check_driver()?;
        let info = device_info(&context)?;
        let stream = context.default_stream();
        Ok(CudaDevice {
            context,
            stream,
            info: Arc::new(info),
        })
    }

    /// Name, architecture and limits of the device.
    pub fn info(&self) -> &CudaDeviceInfo {
        &self.info
    }

    /// The device name, e.g. `NVIDIA H100 80GB HBM3`.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// Compute capability (major, minor).
    pub fn compute_capability(&self) -> (u32, u32) {
        self.info.compute_capability
    }

    /// The real architecture kernels are compiled for, e.g. `sm_90`.
    pub fn arch(&self) -> &str {
        &self.info.arch
    }

    /// Streaming multiprocessors.
    pub fn sm_count(&self) -> usize {
        self.info.target.sm_count
    }

    /// Threads in one block.
    pub fn max_threads_per_block(&self) -> usize {
        self.info.target.max_threads_per_block
    }

    /// Statically declared shared memory of one block, bytes.
    pub fn max_static_shared_bytes(&self) -> usize {
        self.info.target.max_static_shared_bytes
    }

    /// What the device allows a kernel, read from the driver once.
    pub fn target(&self) -> Target {
        self.info.target()
    }

    /// The default stream: the context's null stream, which the host
    /// conveniences (`CudaFft::run`) use.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The CUDA context; make more streams with `context().new_stream()`.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }
}

fn device_info(context: &Arc<CudaContext>) -> Result<CudaDeviceInfo> {
    use CUdevice_attribute as A;
    let attribute = |attribute: CUdevice_attribute| -> Result<usize> {
        let value = context
            .attribute(attribute)
            .map_err(|e| Error::cuda(format!("cuDeviceGetAttribute({attribute:?})"), e))?;
        Ok(usize::try_from(value).unwrap_or(0))
    };
    let (major, minor) = (
        attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let name = context
        .name()
        .map_err(|e| Error::cuda("cuDeviceGetName", e))?;
    // Drivers older than CUDA 11.8 do not know the attribute: no clusters.
    let clusters = context
        .attribute(A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)
        .is_ok_and(|supported| supported != 0);
    let max_threads_per_block = attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
    let target = Target {
        model: model_of(&name).to_string().into(),
        name: name.clone().into(),
        max_threads_per_block,
        // Launch bounds cap registers, so every block the hardware holds launches.
        launchable_threads_per_block: max_threads_per_block,
        max_block_dims: [
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ],
        max_grid_dims: [
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)? as u64,
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)? as u64,
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)? as u64,
        ],
        max_static_shared_bytes: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        max_opt_in_shared_bytes: attribute(
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?,
        // The planner's margin, not a device fact: the same as the presets'
        // so that a device plans exactly like the preset of its model.
        compiler_shared_bytes: Target::CUDA.compiler_shared_bytes,
        shared_bytes_per_sm: attribute(
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        )?,
        reserved_shared_bytes_per_block: attribute(
            A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
        )?,
        registers_per_sm: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
        // No attribute reports these; they have held since compute capability 3.5.
        max_registers_per_thread: MAX_REGISTERS_PER_THREAD,
        register_granule: REGISTER_GRANULE,
        register_partitions: REGISTER_PARTITIONS,
        max_threads_per_sm: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        max_blocks_per_sm: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
        sm_count: attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        warp_size: attribute(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        max_cluster_blocks: if clusters && major == 9 {
            HOPPER_CLUSTER_BLOCKS
        } else {
            1
        },
    };
    Ok(CudaDeviceInfo {
        ordinal: context.ordinal(),
        name,
        compute_capability: (major as u32, minor as u32),
        arch: format!("sm_{major}{minor}"),
        total_memory_bytes: context
            .total_mem()
            .map_err(|e| Error::cuda("cuDeviceTotalMem", e))?,
        target,
    })
}

/// Registers one thread may use (255 on every architecture since 3.5).
const MAX_REGISTERS_PER_THREAD: usize = 255;

/// Registers are allocated to a thread in multiples of 8 (per warp, 256).
const REGISTER_GRANULE: usize = 8;
/// Parts of an SM's register file, one per warp scheduler, since compute
/// capability 7.0 (CUDA's occupancy calculator counts them).
const REGISTER_PARTITIONS: usize = 4;

/// Blocks in one cluster on Hopper with the non-portable size opted in (8
/// is the portable size).
const HOPPER_CLUSTER_BLOCKS: usize = 16;
