//! Transforms spread over several GPUs ([`fftgen::distributed`]): each local
//! step's kernels loaded like any plan's, run between a rank's regions
//! (the caller's input and output, the blocks it sends and receives), and
//! the exchanges between them.
//!
//! - [`OpenClRanks`]: every rank on one OpenCL device in one process, the
//!   exchanges copies between the ranks' buffers: the decomposition and the
//!   exchange pattern checked on PoCL without a GPU.
//! - [`nccl`]: one rank per CUDA GPU, the exchanges NCCL's grouped sends and
//!   receives, in one process driving every GPU or one process per GPU.

pub mod nccl;
mod opencl;

pub use opencl::OpenClRanks;

use crate::planner::PlanError;
use fftgen::distributed::{plan_distributed, DistributedPlan, DistributedSpec, Step};
use fftgen::{Direction, Target};

/// The plan of `spec` for `target`, and each local step's generated
/// sources and manifest, per direction, in step order (`None` for an exchange).
pub(crate) fn generate_steps(
    spec: &DistributedSpec,
    target: Target,
) -> Result<(DistributedPlan, [Vec<Option<fftgen::Generated>>; 2]), PlanError> {
    let mut spec = spec.clone();
    spec.spec = crate::planner::for_target(&spec.spec, target);
    let plan = plan_distributed(&spec)?;
    let generate = |direction: Direction| -> Result<Vec<Option<fftgen::Generated>>, PlanError> {
        plan.steps(direction)
            .iter()
            .map(|step| match step {
                Step::Local { plan: local, .. } => {
                    let invocation = format!(
                        "fftgen plan --n {} --gpus {} (local step)",
                        fftgen::emit::shape_text(&spec.spec.shape),
                        spec.gpus
                    );
                    Ok(Some(fftgen::emit::generate_plan(
                        local.clone(),
                        &invocation,
                    )?))
                }
                Step::Exchange { .. } => Ok(None),
            })
            .collect()
    };
    let steps = [generate(Direction::Forward)?, generate(Direction::Inverse)?];
    Ok((plan, steps))
}

/// The steps of `direction` (0 forward, 1 inverse).
pub(crate) fn direction_index(direction: Direction) -> usize {
    match direction {
        Direction::Forward => 0,
        Direction::Inverse => 1,
    }
}
