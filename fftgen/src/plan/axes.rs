//! A transform along the first axis of an array alone, the other axes left
//! as they are: the local steps of a transform spread over several GPUs
//! that take the axis a rank has just received whole. The planner plans
//! the whole array, which it transforms last axis first, so the first
//! axis's passes come last and read the array as the other axes' passes
//! left it, dense; kept alone, they read it from the input instead. They
//! are the planner's own column passes (tiled, coalesced along the other
//! axes), as fast as in a whole transform.

use super::Plan;
use crate::{Buffer, Error, FftSpec, Layout, Placement, TransformKind};

/// The plan of `spec` (complex, dense, out of place) along its first axis only.
pub fn plan_first_axis(spec: &FftSpec) -> Result<Plan, Error> {
    let refuse = |reason: &str| Error::Undistributable {
        shape: spec.shape.clone(),
        gpus: 1,
        reason: reason.into(),
    };
    if spec.kind != TransformKind::C2c {
        return Err(refuse("a step along one axis only is complex to complex"));
    }
    let dense = Layout::contiguous(&spec.shape);
    let whole = FftSpec {
        input_layout: Some(dense.clone()),
        output_layout: Some(dense.clone()),
        placement: Placement::OutOfPlace,
        ..spec.clone()
    };
    let mut plan = super::plan(&whole)?;
    // Passes run last axis first; those of the first axis are the last ones.
    let first_axis = plan.axis_factors[0].len();
    let later: usize = (1..spec.shape.len())
        .filter(|&a| spec.shape[a] > 1)
        .map(|a| plan.axis_factors[a].len())
        .sum();
    if spec.shape[0] < 2 || plan.passes.len() != later + first_axis {
        return Err(refuse("the plan's passes are not one run per axis"));
    }
    plan.passes.drain(..later);
    let points = spec.points();
    let first = &mut plan.passes[0].access;
    // The other axes' passes left the array dense where this pass reads it.
    if first.reads != Buffer::Input {
        if first.input_offset != 0 || first.input_distance != points {
            return Err(refuse(
                "the first axis's passes read a region that is not dense",
            ));
        }
        first.reads = Buffer::Input;
    }
    for factors in plan.axis_factors.iter_mut().skip(1) {
        factors.clear();
    }
    plan.normalization_points = Some(spec.shape[0]);
    Ok(plan)
}
