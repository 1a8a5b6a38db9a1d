//! What one device allows a kernel, as data: threads per block, shared
//! memory (static, opt-in, per SM), registers, SMs, warps, clusters, and the
//! backend limits that no device query reports (NVIDIA's OpenCL grants the
//! fftgen kernels work-groups of 256 threads at most). The planner reads a
//! [`Target`] and never asks which backend it serves; the runtime builds one
//! from the device it opened and checks every launch against it; the command
//! line names the presets below (`--target h200`).
//!
//! Seed 000 (section IV.B) sizes the shared-memory FFT from the device's
//! shared memory and thread limits; seed 004 tunes per device. Both read
//! limits like these; here they are one value instead of constants spread
//! over the planner and the runtime.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// What a device allows one kernel, and the occupancy figures the planner's
/// launch-bound model uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Target {
    /// A preset's name (`h200`, `opencl-nvidia`, ...) or the device's, for
    /// messages and for the command line that reproduces a plan.
    pub name: Cow<'static, str>,
    /// The GPU model (`H200`, `H100 80GB HBM3`), matched against the models of
    /// wisdom files; empty where the model is unknown or any.
    pub model: Cow<'static, str>,
    /// Threads in one block (work-items in one work-group).
    pub max_threads_per_block: usize,
    /// Threads per block the backend launches the fftgen kernels with,
    /// whatever registers they take: all of them on CUDA (launch bounds cap
    /// registers), 256 on NVIDIA's OpenCL, which has no launch bounds.
    /// Measured shapes over it are not planned for this target.
    pub launchable_threads_per_block: usize,
    /// Threads along each block dimension.
    pub max_block_dims: [usize; 3],
    /// Blocks along each grid dimension.
    pub max_grid_dims: [u64; 3],
    /// Statically declared shared (local) memory of one block, bytes.
    pub max_static_shared_bytes: usize,
    /// Dynamic shared memory one block may use after opting in (227 KiB on
    /// Hopper); the static limit where there is no opt-in.
    pub max_opt_in_shared_bytes: usize,
    /// Shared memory the backend's compiler may add to a kernel's own, which
    /// the planner leaves free: NVIDIA's OpenCL adds a few bytes of local
    /// memory (8 seen for f64 kernels), so a block planned to exactly 48 KiB
    /// fails to build there. The CUDA presets keep the same 256 bytes so that
    /// a GPU's plans build through both of NVIDIA's backends.
    pub compiler_shared_bytes: usize,
    /// Shared memory of one multiprocessor available to blocks.
    pub shared_bytes_per_sm: usize,
    /// Shared memory the hardware reserves per resident block.
    pub reserved_shared_bytes_per_block: usize,
    /// 32-bit registers of one multiprocessor.
    pub registers_per_sm: usize,
    /// Registers one thread may use.
    pub max_registers_per_thread: usize,
    /// Registers are given to a thread in multiples of this.
    pub register_granule: usize,
    /// Parts the register file of a multiprocessor is split into, one per
    /// warp scheduler (4 on NVIDIA GPUs since Volta): each warp's registers
    /// lie in one part, so the warps resident share a part's registers,
    /// not the SM's ([`Target::registers_per_thread`]).
    #[serde(default = "one_register_partition")]
    pub register_partitions: usize,
    /// Threads resident on one multiprocessor at most.
    pub max_threads_per_sm: usize,
    /// Blocks resident on one multiprocessor at most.
    pub max_blocks_per_sm: usize,
    /// Streaming multiprocessors (compute units).
    pub sm_count: usize,
    pub warp_size: usize,
    /// Blocks in one thread-block cluster at most (Hopper: 16, of which 8
    /// are portable); 1 where there are no clusters.
    pub max_cluster_blocks: usize,
}

/// What a target serialized before the register file's parts were
/// modelled had: one part, the SM's whole file.
fn one_register_partition() -> usize {
    1
}

/// A launch over one of a target's limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitExceeded {
    /// The quantity, e.g. `threads per block`.
    pub what: &'static str,
    pub value: u64,
    pub max: u64,
    /// Whose limits, e.g. "the limits of `NVIDIA H200`".
    pub limits: String,
}

/// The figures of one Hopper (H100, H200) multiprocessor: what the planner's
/// occupancy model was fitted on.
const HOPPER: Target = Target {
    name: Cow::Borrowed("cuda"),
    model: Cow::Borrowed(""),
    max_threads_per_block: 1024,
    launchable_threads_per_block: 1024,
    max_block_dims: [1024, 1024, 64],
    max_grid_dims: [(1 << 31) - 1, 65535, 65535],
    max_static_shared_bytes: 48 * 1024,
    max_opt_in_shared_bytes: 227 * 1024,
    compiler_shared_bytes: 256,
    shared_bytes_per_sm: 228 * 1024,
    reserved_shared_bytes_per_block: 1024,
    registers_per_sm: 65536,
    max_registers_per_thread: 255,
    register_granule: 8,
    register_partitions: 4,
    max_threads_per_sm: 2048,
    max_blocks_per_sm: 32,
    sm_count: 132,
    warp_size: 32,
    max_cluster_blocks: 16,
};

impl Target {
    /// Any GPU, through either backend: the limits every CUDA GPU since
    /// compute capability 3.0 meets (and NVIDIA's, AMD's and Intel's OpenCL),
    /// 48 KiB of static shared memory and no opt-in, work-groups of 256 threads
    /// for measured shapes, and Hopper's occupancy figures. What `fftgen emit`
    /// plans for unless told otherwise, and what CPU OpenCL (PoCL) is clamped
    /// to so that tests on it reject what a GPU would.
    pub const PORTABLE: Target = Target {
        name: Cow::Borrowed("portable"),
        launchable_threads_per_block: 256,
        max_opt_in_shared_bytes: 48 * 1024,
        max_cluster_blocks: 1,
        ..HOPPER
    };

    /// Any NVIDIA GPU through CUDA: blocks of every size the hardware holds.
    pub const CUDA: Target = Target {
        max_opt_in_shared_bytes: 48 * 1024,
        max_cluster_blocks: 1,
        ..HOPPER
    };

    /// An NVIDIA H100 through CUDA.
    pub const H100: Target = Target {
        name: Cow::Borrowed("h100"),
        model: Cow::Borrowed("H100"),
        ..HOPPER
    };

    /// An NVIDIA H200 through CUDA (the H100's multiprocessors, more memory).
    pub const H200: Target = Target {
        name: Cow::Borrowed("h200"),
        model: Cow::Borrowed("H200"),
        ..HOPPER
    };

    /// Any NVIDIA GPU through NVIDIA's OpenCL: work-groups of 256 threads for
    /// these kernels, no opt-in shared memory, no clusters.
    pub const OPENCL_NVIDIA: Target = Target {
        name: Cow::Borrowed("opencl-nvidia"),
        ..Target::PORTABLE
    };

    /// PoCL on a CPU, clamped to what GPUs allow (PoCL itself takes
    /// work-groups of 4096 and megabytes of local memory).
    pub const POCL: Target = Target {
        name: Cow::Borrowed("pocl"),
        ..Target::PORTABLE
    };

    /// Every preset, by name.
    pub const PRESETS: &'static [Target] = &[
        Target::PORTABLE,
        Target::CUDA,
        Target::H100,
        Target::H200,
        Target::OPENCL_NVIDIA,
        Target::POCL,
    ];

    /// The preset called `name` (`h200`, `opencl-nvidia`, ...).
    pub fn preset(name: &str) -> Result<Target, String> {
        Target::PRESETS
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
            .cloned()
            .ok_or_else(|| {
                let names: Vec<&str> = Target::PRESETS.iter().map(|t| t.name.as_ref()).collect();
                format!(
                    "`{name}` is not a target; expected one of: {}",
                    names.join(", ")
                )
            })
    }

    /// This target with every limit lowered to `bound`'s where that is lower
    /// (occupancy figures, SMs and the model stay this target's): how a CPU
    /// OpenCL device is kept to what GPUs accept.
    pub fn clamped_to(&self, bound: &Target) -> Target {
        Target {
            max_threads_per_block: self.max_threads_per_block.min(bound.max_threads_per_block),
            launchable_threads_per_block: self
                .launchable_threads_per_block
                .min(bound.launchable_threads_per_block),
            max_block_dims: std::array::from_fn(|i| {
                self.max_block_dims[i].min(bound.max_block_dims[i])
            }),
            max_grid_dims: std::array::from_fn(|i| {
                self.max_grid_dims[i].min(bound.max_grid_dims[i])
            }),
            max_static_shared_bytes: self
                .max_static_shared_bytes
                .min(bound.max_static_shared_bytes),
            max_opt_in_shared_bytes: self
                .max_opt_in_shared_bytes
                .min(bound.max_opt_in_shared_bytes),
            compiler_shared_bytes: self.compiler_shared_bytes.max(bound.compiler_shared_bytes),
            max_cluster_blocks: self.max_cluster_blocks.min(bound.max_cluster_blocks),
            ..self.clone()
        }
    }

    /// Registers each thread may use where `blocks` blocks of
    /// `threads_per_block` threads share a multiprocessor, as CUDA's
    /// occupancy calculator counts them: the warps spread evenly over the
    /// register file's parts, each part's registers shared by the warps in
    /// it, a warp's rounded down to the granule. 448 threads (14 warps) get
    /// 128 registers, not 65536 / 448 = 146: one part holds four of the
    /// warps.
    pub fn registers_per_thread(&self, threads_per_block: usize, blocks: usize) -> usize {
        let partitions = self.register_partitions.max(1);
        let warps = blocks.max(1) * threads_per_block.div_ceil(self.warp_size).max(1);
        let per_warp = self.registers_per_sm / partitions / warps.div_ceil(partitions);
        let granule = self.register_granule.max(1);
        (per_warp / self.warp_size / granule * granule).min(self.max_registers_per_thread)
    }

    /// Static shared memory the planner may give one block: the static limit
    /// less what the compiler may add.
    pub fn plannable_shared_bytes(&self) -> usize {
        self.max_static_shared_bytes
            .saturating_sub(self.compiler_shared_bytes)
    }

    /// Who these limits belong to, for messages.
    pub fn describe(&self) -> String {
        format!("the limits of target `{}`", self.name)
    }

    /// `value` of `what` against `max`.
    pub fn check(&self, what: &'static str, value: u64, max: u64) -> Result<(), LimitExceeded> {
        if value > max {
            Err(LimitExceeded {
                what,
                value,
                max,
                limits: self.describe(),
            })
        } else {
            Ok(())
        }
    }

    /// Checks a block of `block` threads with `shared_bytes` of static shared
    /// memory.
    pub fn check_block(&self, block: [u32; 3], shared_bytes: u32) -> Result<(), LimitExceeded> {
        let threads: u64 = block.iter().map(|&b| u64::from(b)).product();
        self.check(
            "threads per block",
            threads,
            self.max_threads_per_block as u64,
        )?;
        for (dim, what) in ["block.x", "block.y", "block.z"].into_iter().enumerate() {
            self.check(what, block[dim].into(), self.max_block_dims[dim] as u64)?;
        }
        self.check(
            "static shared memory (bytes)",
            shared_bytes.into(),
            self.max_static_shared_bytes as u64,
        )
    }

    /// Checks a grid of `grid` blocks.
    pub fn check_grid(&self, grid: [usize; 3]) -> Result<(), LimitExceeded> {
        for (dim, what) in ["grid.x", "grid.y", "grid.z"].into_iter().enumerate() {
            self.check(what, grid[dim] as u64, self.max_grid_dims[dim])?;
        }
        Ok(())
    }
}

impl Default for Target {
    fn default() -> Self {
        Target::PORTABLE
    }
}

impl std::str::FromStr for Target {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Target::preset(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_found_by_name_and_differ_where_their_backends_do() {
        assert_eq!(Target::preset("H200").unwrap(), Target::H200);
        assert!(Target::preset("h300")
            .unwrap_err()
            .contains("opencl-nvidia"));
        assert_eq!(Target::OPENCL_NVIDIA.launchable_threads_per_block, 256);
        assert_eq!(Target::H100.launchable_threads_per_block, 1024);
        assert_eq!(Target::PORTABLE.max_opt_in_shared_bytes, 48 * 1024);
        assert_eq!(Target::H200.max_opt_in_shared_bytes, 227 * 1024);
        let names: std::collections::HashSet<_> = Target::PRESETS.iter().map(|t| &t.name).collect();
        assert_eq!(names.len(), Target::PRESETS.len());
    }

    #[test]
    fn registers_are_shared_within_the_register_files_parts() {
        let h200 = Target::H200;
        // 14 warps: one part holds four, 16384 / 4 / 32 = 128.
        assert_eq!(h200.registers_per_thread(448, 1), 128);
        assert_eq!(h200.registers_per_thread(208, 2), 128);
        // Warps that spread evenly get the SM's share.
        assert_eq!(h200.registers_per_thread(1024, 1), 64);
        assert_eq!(h200.registers_per_thread(256, 2), 128);
        // 22 warps: six in a part, 2730 registers a warp, 80 a thread.
        assert_eq!(h200.registers_per_thread(686, 1), 80);
        // A lone warp still stops at the thread's limit.
        assert_eq!(h200.registers_per_thread(32, 1), 255);
        // One part is the SM's whole file, rounded to the granule.
        let one_part = Target {
            register_partitions: 1,
            ..Target::H200
        };
        assert_eq!(one_part.registers_per_thread(448, 1), 144);
    }

    #[test]
    fn a_cpu_device_is_clamped_to_gpu_limits() {
        let cpu = Target {
            name: "cpu".into(),
            max_threads_per_block: 4096,
            launchable_threads_per_block: 4096,
            max_static_shared_bytes: 2 << 20,
            max_grid_dims: [u64::MAX; 3],
            ..Target::PORTABLE
        };
        let clamped = cpu.clamped_to(&Target::PORTABLE);
        assert_eq!(clamped.max_threads_per_block, 1024);
        assert_eq!(clamped.launchable_threads_per_block, 256);
        assert_eq!(clamped.max_static_shared_bytes, 48 * 1024);
        assert_eq!(clamped.name, "cpu");
        let over = clamped.check_block([1025, 1, 1], 0).unwrap_err();
        assert_eq!((over.what, over.max), ("threads per block", 1024));
        assert!(clamped.check_grid([1, 65536, 1]).is_err());
        assert!(clamped.check_block([256, 1, 1], 48 * 1024).is_ok());
    }
}
