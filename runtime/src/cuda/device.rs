//! A CUDA device ready to run kernels: its context (the device's primary
//! context, which every library in the process shares), a default stream, and
//! the facts about it that compilation and launch checks need: the real
//! architecture to compile for, the SM count and the block limits. Cheap to
//! clone and usable from many threads: cudarc's context, stream and buffer
//! types are thread-safe.
//!
//! cudarc loads the driver (libcuda.so) at run time and panics when a call
//! finds no library, so every constructor checks for it first and returns
//! [`Error::CudaDriverMissing`] instead.

use super::nvrtc::check_driver;
use crate::error::{Error, Result};
use crate::limits::DeviceLimits;
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{CudaContext, CudaStream};
use std::borrow::Cow;
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
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Threads in one block.
    pub max_threads_per_block: u32,
    /// Threads along each block dimension.
    pub max_block_dims: [u32; 3],
    /// Blocks along each grid dimension.
    pub max_grid_dims: [u64; 3],
    /// Statically declared shared memory of one block, bytes (48 KiB on every
    /// GPU so far; more needs dynamic shared memory and an opt-in).
    pub max_static_shared_bytes: u32,
    /// Global memory, bytes.
    pub total_memory_bytes: usize,
}

impl CudaDeviceInfo {
    /// The device's own launch limits.
    pub fn limits(&self) -> DeviceLimits {
        DeviceLimits {
            name: Cow::Owned(format!("the limits of `{}`", self.name)),
            max_threads_per_block: self.max_threads_per_block,
            max_block_dims: self.max_block_dims,
            max_grid_dims: self.max_grid_dims,
            max_static_shared_bytes: self.max_static_shared_bytes,
        }
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
    pub fn sm_count(&self) -> u32 {
        self.info.sm_count
    }

    /// Threads in one block.
    pub fn max_threads_per_block(&self) -> u32 {
        self.info.max_threads_per_block
    }

    /// Statically declared shared memory of one block, bytes.
    pub fn max_static_shared_bytes(&self) -> u32 {
        self.info.max_static_shared_bytes
    }

    /// The device's own launch limits.
    pub fn limits(&self) -> DeviceLimits {
        self.info.limits()
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
    let attribute = |attribute: CUdevice_attribute| -> Result<u32> {
        let value = context
            .attribute(attribute)
            .map_err(|e| Error::cuda(format!("cuDeviceGetAttribute({attribute:?})"), e))?;
        Ok(u32::try_from(value).unwrap_or(0))
    };
    let (major, minor) = (
        attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    Ok(CudaDeviceInfo {
        ordinal: context.ordinal(),
        name: context
            .name()
            .map_err(|e| Error::cuda("cuDeviceGetName", e))?,
        compute_capability: (major, minor),
        arch: format!("sm_{major}{minor}"),
        sm_count: attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        max_threads_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_block_dims: [
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ],
        max_grid_dims: [
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?.into(),
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?.into(),
            attribute(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?.into(),
        ],
        max_static_shared_bytes: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        total_memory_bytes: context
            .total_mem()
            .map_err(|e| Error::cuda("cuDeviceTotalMem", e))?,
    })
}
