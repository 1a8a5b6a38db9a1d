//! Launch limits and the check of a [`PassLaunch`] against them. A CPU
//! OpenCL implementation such as PoCL accepts work-groups of 4096 items and
//! megabytes of local memory, which no GPU does; checking every launch against
//! both the device's own limits and [`GPU_LIMITS`] keeps a plan that passes
//! the tests on PoCL from failing on a real GPU.

use crate::error::{Error, Result};
use crate::manifest::PassLaunch;
use std::borrow::Cow;

/// What one device (or a family of devices) accepts in one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Who these limits belong to, for error messages.
    pub name: Cow<'static, str>,
    /// Threads in one block (work-items in one work-group).
    pub max_threads_per_block: u32,
    /// Threads along each block dimension.
    pub max_block_dims: [u32; 3],
    /// Blocks along each grid dimension.
    pub max_grid_dims: [u64; 3],
    /// Statically declared shared (local) memory of one block, bytes.
    pub max_static_shared_bytes: u32,
}

/// The limits every CUDA GPU since compute capability 3.0 meets (and that
/// current AMD and Intel GPUs meet in OpenCL): 1024 threads per block, 48 KiB
/// of static shared memory (more needs dynamic shared memory and an opt-in),
/// grid y and z below 65536.
pub const GPU_LIMITS: DeviceLimits = DeviceLimits {
    name: Cow::Borrowed("the limits of CUDA GPUs"),
    max_threads_per_block: 1024,
    max_block_dims: [1024, 1024, 64],
    max_grid_dims: [(1 << 31) - 1, 65535, 65535],
    max_static_shared_bytes: 48 * 1024,
};

impl DeviceLimits {
    /// Checks the block shape and shared memory of `pass`.
    pub fn check_block(&self, pass: &PassLaunch) -> Result<()> {
        let over = |what, value: u64, max: u64| {
            if value > max {
                Err(Error::LaunchLimit {
                    kernel: pass.kernel.clone(),
                    what,
                    value,
                    max,
                    limits: self.name.to_string(),
                })
            } else {
                Ok(())
            }
        };
        if pass.block.contains(&0) {
            return Err(Error::InvalidManifest(format!(
                "kernel `{}` has a block of {:?}; every dimension must be at least 1",
                pass.kernel, pass.block
            )));
        }
        let threads: u64 = pass.block.iter().map(|&b| u64::from(b)).product();
        over(
            "threads per block",
            threads,
            self.max_threads_per_block.into(),
        )?;
        for (dim, what) in ["block.x", "block.y", "block.z"].into_iter().enumerate() {
            over(
                what,
                pass.block[dim].into(),
                self.max_block_dims[dim].into(),
            )?;
        }
        over(
            "static shared memory (bytes)",
            pass.shared_bytes.into(),
            self.max_static_shared_bytes.into(),
        )
    }

    /// Checks the grid that `pass` launches for `grid` blocks.
    pub fn check_grid(&self, pass: &PassLaunch, grid: [usize; 3]) -> Result<()> {
        for (dim, what) in ["grid.x", "grid.y", "grid.z"].into_iter().enumerate() {
            let value = grid[dim] as u64;
            if value > self.max_grid_dims[dim] {
                return Err(Error::LaunchLimit {
                    kernel: pass.kernel.clone(),
                    what,
                    value,
                    max: self.max_grid_dims[dim],
                    limits: self.name.to_string(),
                });
            }
        }
        Ok(())
    }
}
