//! A transform along some axes of an array, the others left as they are
//! (numpy's `fftn(axes=...)`): the local steps of a transform spread over
//! several GPUs, each of which transforms the axes a GPU holds whole. The
//! planner plans the array with the other axes one point long, and the
//! kernels then run once per point of those axes (a column each, after the
//! plan's own), as Bluestein's steps plan the axes they do not take.

use super::access::Column;
use super::Plan;
use crate::{Buffer, Error, FftSpec, Layout, Placement, TransformKind};

/// The plan of `spec` (dense layouts, out of place) along `axes` only:
/// every other axis keeps its points. Its `axis_factors` are empty for the
/// axes it does not transform.
pub fn plan_axes(spec: &FftSpec, axes: &[usize]) -> Result<Plan, Error> {
    if spec.kind != TransformKind::C2c {
        return Err(Error::Undistributable {
            shape: spec.shape.clone(),
            gpus: 1,
            reason: "a step along some axes only is complex to complex".into(),
        });
    }
    let dense = Layout::contiguous(&spec.shape);
    let kept: Vec<usize> = (0..spec.shape.len())
        .filter(|a| !axes.contains(a) && spec.shape[*a] > 1)
        .collect();
    let mut shape = spec.shape.clone();
    for &axis in &kept {
        shape[axis] = 1;
    }
    let along = FftSpec {
        shape,
        input_layout: Some(dense.clone()),
        output_layout: Some(dense.clone()),
        placement: Placement::OutOfPlace,
        ..spec.clone()
    };
    let mut plan = super::plan(&along)?;
    let mut scratch = plan.scratch_elements;
    for &axis in &kept {
        let count = spec.shape[axis];
        for pass in plan.passes.iter_mut().chain(plan.inverse_passes.iter_mut()) {
            let access = &mut pass.access;
            let stride = |buffer: Buffer| match buffer {
                Buffer::Scratch => scratch,
                Buffer::Input | Buffer::Output => dense.strides[axis],
            };
            access.columns.push(Column {
                count,
                input_stride: stride(access.reads),
                output_stride: stride(access.writes),
            });
        }
        scratch *= count;
    }
    // The workspace of one transform now holds one per point of the kept axes.
    for pass in plan.passes.iter_mut().chain(plan.inverse_passes.iter_mut()) {
        let access = &mut pass.access;
        if access.reads == Buffer::Scratch {
            access.input_distance = scratch;
        }
        if access.writes == Buffer::Scratch {
            access.output_distance = scratch;
        }
    }
    for &axis in &kept {
        plan.axis_factors[axis].clear();
    }
    plan.shape = spec.shape.clone();
    plan.n = spec.points();
    plan.normalization_points = Some(axes.iter().map(|&a| spec.shape[a]).product());
    plan.input_layout = dense.clone();
    plan.output_layout = dense;
    plan.scratch_elements = scratch;
    Ok(plan)
}
