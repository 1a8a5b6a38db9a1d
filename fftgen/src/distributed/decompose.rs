//! Making a [`DistributedPlan`]: slabs while P cuts the first two axes
//! evenly (each rank transforms the other axes, one all-to-all, then the
//! first axis), pencils for 3D beyond (the last axis, an exchange within
//! each row of the grid, the middle axis, an exchange within each column,
//! the first axis), and slabs of n / P rounded up where neither cuts evenly
//! (FFTW-MPI's block distribution: the last rank's range is padded, every
//! block of the exchange the same size). Each direction ends on the
//! other's start: the forward leaves the last axis exchanged cut
//! (FFTW-MPI's transposed output) and the inverse starts there.

use super::{DistributedPlan, DistributedSpec, Distribution, Region, Step};
use crate::plan::axes::plan_first_axis;
use crate::plan::bluestein::needs_bluestein;
use crate::plan::Plan;
use crate::{Blocks, Direction, Error, FftSpec, Normalization, Placement};

/// Plans `spec` over its GPUs, or says why it cannot be spread so.
pub fn plan_distributed(spec: &DistributedSpec) -> Result<DistributedPlan, Error> {
    let whole = &spec.spec;
    let refuse = |reason: String| Error::Undistributable {
        shape: whole.shape.clone(),
        gpus: spec.gpus,
        reason,
    };
    if !(2..=3).contains(&whole.shape.len()) {
        return Err(refuse(
            "only 2D and 3D transforms are spread over GPUs".into(),
        ));
    }
    if spec.gpus == 0 {
        return Err(refuse("give at least one GPU".into()));
    }
    if whole.input_layout.is_some() || whole.output_layout.is_some() {
        return Err(refuse(
            "each rank's share is a dense row-major array; omit the layouts".into(),
        ));
    }
    if let Some(n) = whole.shape.iter().find(|&&n| needs_bluestein(n)) {
        return Err(refuse(format!(
            "the axis of {n} points has a prime factor above 31, which Bluestein's algorithm \
             takes on one GPU only; give lengths whose prime factors are at most 31"
        )));
    }
    let complex = whole.kind.complex_shape(&whole.shape);
    let grid = match &spec.grid {
        Some(grid) => grid.clone(),
        None => default_grid(&complex, spec.gpus).ok_or_else(|| {
            refuse(format!(
                "no grid of slabs or pencils gives every GPU a share (slabs of axes 0 and 1 of \
                 the complex shape {complex:?} in ranges of n / {} rounded up leave the last \
                 GPU none; pencils P0 x P1 need P0 to divide axes 0 and 1 and P1 axes 1 and \
                 2); {}",
                spec.gpus,
                other_counts(&complex)
            ))
        })?,
    };
    if grid.iter().product::<usize>() != spec.gpus || grid.contains(&0) {
        return Err(refuse(format!(
            "the grid {grid:?} does not hold {} ranks",
            spec.gpus
        )));
    }
    if let Some(reason) = grid_misfit(&complex, &grid) {
        return Err(refuse(reason));
    }
    let plan = match grid.len() {
        1 => slabs(whole, &grid, spec.chunks),
        _ => pencils(whole, &grid),
    };
    // A local step the planner refuses is this transform's refusal.
    plan.map_err(|e| match e {
        Error::Undistributable { .. } => e,
        e => refuse(format!("a rank's local step cannot be planned: {e}")),
    })
}

/// Most GPUs [`other_counts`] tries.
const MOST_GPUS_SUGGESTED: usize = 16;

/// What to do where no grid of the GPUs given cuts `complex`: the numbers
/// of GPUs whose grids do, if any.
fn other_counts(complex: &[usize]) -> String {
    let counts: Vec<String> = (2..=MOST_GPUS_SUGGESTED)
        .filter(|&gpus| default_grid(complex, gpus).is_some())
        .map(|gpus| gpus.to_string())
        .collect();
    match counts.as_slice() {
        [] => format!(
            "no number of GPUs from 2 to {MOST_GPUS_SUGGESTED} does; give axes with more \
             common factors, or transform it on one GPU"
        ),
        [one] => format!("give {one} GPUs, which cut it"),
        [rest @ .., last] => format!("give {} or {last} GPUs, which cut it", rest.join(", ")),
    }
}

/// Slabs where P cuts axes 0 and 1 evenly, else the squarest pencil grid
/// that cuts its axes evenly, else slabs with the last range padded.
fn default_grid(complex: &[usize], gpus: usize) -> Option<Vec<usize>> {
    let even_slabs = complex[..2].iter().all(|n| n % gpus == 0);
    let pencils = (complex.len() == 3)
        .then(|| {
            (1..=gpus)
                .filter(|p0| gpus % p0 == 0)
                .map(|p0| vec![p0, gpus / p0])
                .filter(|grid| grid_misfit(complex, grid).is_none())
                .min_by_key(|grid| grid[0].abs_diff(grid[1]))
        })
        .flatten();
    match (even_slabs, pencils) {
        (true, _) => Some(vec![gpus]),
        (false, Some(pencils)) => Some(pencils),
        (false, None) => grid_misfit(complex, &[gpus]).is_none().then(|| vec![gpus]),
    }
}

/// Why `grid` cannot cut the complex side, if it cannot: slabs need every
/// rank to hold part of axes 0 and 1 (ranges of n / P rounded up), pencils
/// P0 to divide axes 0 and 1 and P1 axes 1 and 2.
fn grid_misfit(complex: &[usize], grid: &[usize]) -> Option<String> {
    match grid {
        [p] => [0, 1]
            .into_iter()
            .find(|&axis| !every_rank_holds_some(complex[axis], *p))
            .map(|axis| {
                format!(
                    "{p} GPUs cut axis {axis} of the complex shape {complex:?} into ranges of {} \
                     points, which leave the last GPU none (a real transform's last axis \
                     holds n/2 + 1 values); give fewer GPUs",
                    complex[axis].div_ceil(*p)
                )
            }),
        [p0, p1] if complex.len() == 3 => [(0, *p0), (1, *p0), (1, *p1), (2, *p1)]
            .into_iter()
            .find(|&(axis, p)| complex[axis] % p != 0)
            .map(|(axis, p)| {
                format!(
                    "{p} does not divide axis {axis} of the complex shape {complex:?} (a real \
                     transform's last axis holds n/2 + 1 values), as pencils need; give a grid \
                     that does, or slabs"
                )
            }),
        _ => Some(format!(
            "a grid of {} dimensions for {} axes",
            grid.len(),
            complex.len()
        )),
    }
}

/// Whether `p` ranges of `n` / `p` rounded up give each of `p` ranks at
/// least one of `n` points.
fn every_rank_holds_some(n: usize, p: usize) -> bool {
    (p - 1) * n.div_ceil(p) < n
}

/// The spec of one local step: `shape`, one `direction`, dense, out of place.
fn local_spec(whole: &FftSpec, shape: &[usize], direction: Direction, complex: bool) -> FftSpec {
    FftSpec {
        shape: shape.to_vec(),
        kind: match complex {
            true => crate::TransformKind::C2c,
            false => whole.kind,
        },
        input_layout: None,
        output_layout: None,
        directions: vec![direction],
        normalization: Normalization::None,
        placement: Placement::OutOfPlace,
        choices: Default::default(),
        ..whole.clone()
    }
}

/// The plan of a step along every axis of `shape` in the user's kind (R2C
/// or C2R where the transform is real), or, `first_axis_only`, along the
/// first axis of a complex `shape`; unpacking `input` and packing `output`
/// blocks; normalizing by the whole transform where `last`.
#[allow(clippy::too_many_arguments)]
fn step(
    whole: &FftSpec,
    direction: Direction,
    shape: &[usize],
    first_axis_only: bool,
    input: Option<Blocks>,
    output: Option<Blocks>,
    last: bool,
) -> Result<Plan, Error> {
    let mut spec = local_spec(whole, shape, direction, first_axis_only);
    if last {
        spec.normalization = whole.normalization;
    }
    let mut plan = match first_axis_only {
        true => plan_first_axis(&spec)?,
        false => crate::plan::plan(&spec)?,
    };
    plan.normalization_points = Some(whole.points());
    let passes = match (plan.kind, direction) {
        (crate::TransformKind::R2c, Direction::Inverse) => &mut plan.inverse_passes,
        _ => &mut plan.passes,
    };
    // Every access to a blocked buffer goes through the blocks, the passes
    // between (that read the output they wrote) too.
    let blocks_of = |buffer: crate::Buffer| {
        match buffer {
            crate::Buffer::Input => input,
            crate::Buffer::Output => output,
            crate::Buffer::Scratch => None,
        }
        .filter(|b| !b.is_identity())
    };
    for pass in passes {
        let access = &mut pass.access;
        access.input_blocks = blocks_of(access.reads);
        access.output_blocks = blocks_of(access.writes);
    }
    let target = spec.target.unwrap_or(crate::Target::PORTABLE);
    crate::plan::invariants::check(&plan, &target)?;
    Ok(plan)
}

fn local(plan: Plan, batch_per_transform: usize, reads: Region, writes: Region) -> Step {
    Step::Local {
        plan,
        batch_per_transform,
        reads,
        writes,
        after: Vec::new(),
    }
}

/// An exchange of whole blocks of `block_elements`.
fn exchange(grid_axis: usize, peers: usize, block_elements: usize) -> Step {
    Step::Exchange {
        grid_axis,
        peers,
        block_elements,
        run_offset: 0,
        run_elements: block_elements,
        after: Vec::new(),
    }
}

/// `steps`, each after the one before it (no overlap).
fn in_turn(mut steps: Vec<Step>) -> Vec<Step> {
    for (i, step) in steps.iter_mut().enumerate().skip(1) {
        match step {
            Step::Local { after, .. } | Step::Exchange { after, .. } => *after = vec![i - 1],
        }
    }
    steps
}

/// Chunks a slab's planes are exchanged in, where they are: each chunk's
/// exchange runs while the next chunk's kernels do.
pub const CHUNKS: usize = 4;

/// Bytes a peer's block must hold before a 3D slab exchanges it in chunks.
/// Measured on two H100s (docs/perf.md): chunks of 512^3 and 1024^3 (blocks
/// of 256 MiB and 2 GiB) took 5-7% off; 2D slabs and batches of 256^3 ran
/// slower in chunks (NCCL's smaller runs, its kernels beside ours).
pub const CHUNKED_BLOCK_BYTES: usize = 256 << 20;

/// The part of `plan` (one plane per transform of its batch) that
/// transforms planes `[chunk * planes / chunks, (chunk + 1) * planes / chunks)`
/// of a slab of `planes` per transform: the plane becomes a column of its
/// passes (the slab's leading axis, not transformed) and the chunk an
/// offset, so the blocks its stores pack land in the chunk's part of each
/// peer's block. Each side steps by the plane as its pass counts it (a real
/// step reads reals as complex pairs).
fn chunk_of(
    plan: &Plan,
    target: &crate::Target,
    slab_shape: &[usize],
    chunks: usize,
    chunk: usize,
) -> Result<Plan, Error> {
    let planes = slab_shape[0];
    let per_chunk = planes / chunks;
    let mut part = plan.clone();
    let scratch = part.scratch_elements;
    for pass in part.passes.iter_mut().chain(part.inverse_passes.iter_mut()) {
        let access = &mut pass.access;
        access.columns.push(crate::plan::Column {
            count: per_chunk,
            input_stride: access.input_distance,
            output_stride: access.output_distance,
        });
        for (buffer, offset, distance) in [
            (
                access.reads,
                &mut access.input_offset,
                &mut access.input_distance,
            ),
            (
                access.writes,
                &mut access.output_offset,
                &mut access.output_distance,
            ),
        ] {
            match buffer {
                crate::Buffer::Scratch => *distance *= per_chunk,
                crate::Buffer::Input | crate::Buffer::Output => {
                    *offset += chunk * per_chunk * *distance;
                    *distance *= planes;
                }
            }
        }
    }
    part.scratch_elements = scratch * per_chunk;
    part.shape = slab_shape.to_vec();
    part.n = slab_shape.iter().product();
    part.axis_factors.insert(0, Vec::new());
    let complex = part.kind.complex_shape(slab_shape);
    let (real_side, complex_side) = (
        crate::Layout::contiguous(slab_shape),
        crate::Layout::contiguous(&complex),
    );
    (part.input_layout, part.output_layout) = match part.kind {
        crate::TransformKind::C2c => (complex_side.clone(), complex_side),
        crate::TransformKind::R2c => (real_side, complex_side),
    };
    crate::plan::invariants::check(&part, target)?;
    Ok(part)
}

/// Slabs: rank r holds range r of axis 0; the forward transforms the other
/// axes, trades blocks of axis 1, transforms axis 0 and leaves axis 1 cut.
fn slabs(whole: &FftSpec, grid: &[usize], chunks: Option<usize>) -> Result<DistributedPlan, Error> {
    let p = grid[0];
    let complex = whole.kind.complex_shape(&whole.shape);
    let (n0, m) = (complex[0], complex[0].div_ceil(p));
    let rest = &whole.shape[1..];
    let inner: usize = complex[2..].iter().product();
    let q = complex[1].div_ceil(p);
    // The share after the exchange: all of axis 0, range r of axis 1.
    let mut turned = complex.clone();
    turned[1] = q;
    let cut_axis_1 = Blocks {
        stride: inner,
        len: complex[1],
        parts: p,
        outer: m,
    };
    // Axis 0 as the exchange cuts it: the identity where P divides it, else
    // the peers' ranges of m planes, the last padded (the planes past n0).
    let cut_axis_0 = Blocks {
        stride: q * inner,
        len: n0,
        parts: p,
        outer: 1,
    };
    let block = m * q * inner;
    let wanted = chunks.unwrap_or(
        match whole.shape.len() == 3
            && block * whole.precision.complex_bytes() >= CHUNKED_BLOCK_BYTES
        {
            true => CHUNKS,
            false => 1,
        },
    );
    if wanted == 0 {
        return Err(Error::Undistributable {
            shape: whole.shape.clone(),
            gpus: p,
            reason: "an exchange in 0 chunks; give 1 or more".into(),
        });
    }
    // The most chunks up to the wanted ones that cut the planes evenly.
    let chunks = (1..=wanted.min(m)).rev().find(|k| m % k == 0).unwrap_or(1);
    let target = whole.target.clone().unwrap_or(crate::Target::PORTABLE);
    let run = block / chunks;
    let mut slab_shape = whole.shape.clone();
    slab_shape[0] = m;
    let chunk_exchange = |chunk: usize, after: usize| Step::Exchange {
        grid_axis: 0,
        peers: p,
        block_elements: block,
        run_offset: chunk * run,
        run_elements: run,
        after: vec![after],
    };
    let mut input = vec![None; complex.len()];
    input[0] = Some(0);
    let mut output = vec![None; complex.len()];
    output[1] = Some(0);
    // Forward: the planes chunk by chunk, each chunk's exchange after its
    // kernels and beside the next chunk's; axis 0 once every chunk arrived.
    let planes = step(
        whole,
        Direction::Forward,
        rest,
        false,
        None,
        Some(cut_axis_1),
        false,
    )?;
    let mut forward = Vec::new();
    for chunk in 0..chunks {
        let part = chunk_of(&planes, &target, &slab_shape, chunks, chunk)?;
        forward.push(local(part, 1, Region::Input, Region::Send));
        forward.push(chunk_exchange(chunk, forward.len() - 1));
    }
    let mut last = local(
        step(
            whole,
            Direction::Forward,
            &turned,
            true,
            Some(cut_axis_0),
            None,
            true,
        )?,
        1,
        Region::Recv,
        Region::Output,
    );
    if let Step::Local { after, .. } = &mut last {
        *after = vec![forward.len() - 1];
    }
    forward.push(last);
    // Inverse: axis 0, then each chunk's exchange and its planes' kernels.
    let mut inverse = vec![local(
        step(
            whole,
            Direction::Inverse,
            &turned,
            true,
            None,
            Some(cut_axis_0),
            false,
        )?,
        1,
        Region::Input,
        Region::Send,
    )];
    let planes = step(
        whole,
        Direction::Inverse,
        rest,
        false,
        Some(cut_axis_1),
        None,
        true,
    )?;
    for chunk in 0..chunks {
        inverse.push(chunk_exchange(chunk, 0));
        let part = chunk_of(&planes, &target, &slab_shape, chunks, chunk)?;
        let mut planes_step = local(part, 1, Region::Recv, Region::Output);
        if let Step::Local { after, .. } = &mut planes_step {
            *after = vec![inverse.len() - 1];
        }
        inverse.push(planes_step);
    }
    Ok(DistributedPlan {
        shape: whole.shape.clone(),
        kind: whole.kind,
        precision: whole.precision,
        normalization: whole.normalization,
        grid: grid.to_vec(),
        input: Distribution { cut_by: input },
        output: Distribution { cut_by: output },
        forward,
        inverse,
    })
}

/// Pencils on a P0 x P1 grid: rank (a, c) holds range a of axis 0 and
/// range c of axis 1. The forward transforms axis 2, trades blocks of axis
/// 2 within its grid row, transforms axis 1, trades blocks of axis 1
/// within its grid column, transforms axis 0, and leaves axes 1 and 2 cut.
fn pencils(whole: &FftSpec, grid: &[usize]) -> Result<DistributedPlan, Error> {
    let (p0, p1) = (grid[0], grid[1]);
    let complex = whole.kind.complex_shape(&whole.shape);
    let (n0, n1, h2) = (complex[0], complex[1], complex[2]);
    let (m0, m1, q2, r1) = (n0 / p0, n1 / p1, h2 / p1, n1 / p0);
    let row_blocks = Blocks {
        stride: 1,
        len: h2,
        parts: p1,
        outer: m0 * m1,
    };
    // Axis 1 of [m0][n1][q2]: the first axis of [n1][q2], m0 of them.
    let middle = [n1, q2];
    let middle_in_rows = Blocks {
        stride: q2,
        len: n1,
        parts: p1,
        outer: m0,
    };
    let middle_in_columns = Blocks {
        parts: p0,
        ..middle_in_rows
    };
    let last = [n0, r1, q2];
    let in_rows = exchange(1, p1, m0 * m1 * q2);
    let in_columns = exchange(0, p0, m0 * r1 * q2);
    let (f, i) = (Direction::Forward, Direction::Inverse);
    let axis_2 = &whole.shape[2..];
    let forward = vec![
        local(
            step(whole, f, axis_2, false, None, Some(row_blocks), false)?,
            m0 * m1,
            Region::Input,
            Region::Send,
        ),
        in_rows.clone(),
        local(
            step(
                whole,
                f,
                &middle,
                true,
                Some(middle_in_rows),
                Some(middle_in_columns),
                false,
            )?,
            m0,
            Region::Recv,
            Region::Send,
        ),
        in_columns.clone(),
        local(
            step(whole, f, &last, true, None, None, true)?,
            1,
            Region::Recv,
            Region::Output,
        ),
    ];
    let inverse = vec![
        local(
            step(whole, i, &last, true, None, None, false)?,
            1,
            Region::Input,
            Region::Send,
        ),
        in_columns,
        local(
            step(
                whole,
                i,
                &middle,
                true,
                Some(middle_in_columns),
                Some(middle_in_rows),
                false,
            )?,
            m0,
            Region::Recv,
            Region::Send,
        ),
        in_rows,
        local(
            step(whole, i, axis_2, false, Some(row_blocks), None, true)?,
            m0 * m1,
            Region::Recv,
            Region::Output,
        ),
    ];
    Ok(DistributedPlan {
        shape: whole.shape.clone(),
        kind: whole.kind,
        precision: whole.precision,
        normalization: whole.normalization,
        grid: grid.to_vec(),
        input: Distribution {
            cut_by: vec![Some(0), Some(1), None],
        },
        output: Distribution {
            cut_by: vec![None, Some(0), Some(1)],
        },
        forward: in_turn(forward),
        inverse: in_turn(inverse),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TransformKind;

    fn spread(shape: &[usize], kind: TransformKind, gpus: usize) -> DistributedSpec {
        DistributedSpec {
            spec: FftSpec::with_shape(shape).kind(kind),
            gpus,
            grid: None,
            chunks: None,
        }
    }

    /// The local steps along one axis, each direction's.
    fn first_axis_steps(plan: &DistributedPlan) -> Vec<&Plan> {
        [Direction::Forward, Direction::Inverse]
            .into_iter()
            .flat_map(|direction| plan.steps(direction))
            .filter_map(|step| match step {
                Step::Local { plan, .. } if plan.kind == crate::TransformKind::C2c => Some(plan),
                _ => None,
            })
            .collect()
    }

    /// A 3D R2C whose half spectrum has a length no radix covers (129 =
    /// 3 x 43 of a 256-point real axis) spreads in slabs: the steps along
    /// axis 0 carry that axis as columns, transforming axis 0 alone.
    #[test]
    fn real_slabs_carry_a_half_spectrum_no_radix_covers() {
        for shape in [[96, 200, 256], [8, 6, 84]] {
            let plan = plan_distributed(&spread(&shape, TransformKind::R2c, 2))
                .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
            assert_eq!(plan.grid, vec![2]);
            let steps = first_axis_steps(&plan);
            assert_eq!(steps.len(), 2, "{shape:?}");
            for step in steps {
                let half = shape[2] / 2 + 1;
                assert_eq!(step.shape, vec![shape[0], shape[1] / 2, half]);
                assert_eq!(step.axis_factors[0].iter().product::<usize>(), shape[0]);
                assert!(step.axis_factors[1..].iter().all(|f| f.is_empty()));
                assert!(step.passes.iter().all(|p| p.chirp.is_none()));
                assert_eq!(step.passes[0].access.reads, crate::Buffer::Input);
                assert_eq!(
                    step.passes.last().unwrap().access.writes,
                    crate::Buffer::Output
                );
            }
        }
    }

    /// The neighbours of that shape: what the even cuts allow plans, and a
    /// refusal names the GPUs given and the counts that would cut the shape.
    #[test]
    fn refusals_name_the_gpus_given_and_the_counts_that_fit() {
        for (shape, gpus) in [
            (vec![64, 64, 64], 2),
            (vec![100, 64, 130], 2),
            (vec![96, 200, 256], 4),
            (vec![64, 64, 64], 4),
            // Uneven slabs: 96 planes evenly, 200 columns as 67 + 67 + 66.
            (vec![96, 200, 256], 3),
            (vec![128, 200], 2),
        ] {
            let spec = spread(&shape, TransformKind::R2c, gpus);
            assert!(plan_distributed(&spec).is_ok(), "{shape:?} over {gpus}");
        }
        let refusal = |shape: &[usize], gpus: usize| {
            plan_distributed(&spread(shape, TransformKind::R2c, gpus))
                .expect_err("refused")
                .to_string()
        };
        // Ranges of 2 planes of 5 leave the fourth GPU none.
        let error = refusal(&[5, 64], 4);
        assert!(error.contains("over 4 GPUs"), "{error}");
        assert!(error.contains("give 2, 3 or 5 GPUs"), "{error}");
        let error = refusal(&[1, 64, 64], 2);
        assert!(error.contains("over 2 GPUs"), "{error}");
        assert!(error.contains("no number of GPUs from 2 to 16"), "{error}");
    }

    /// 96x100x120 over 3 GPUs (issue: cuFFTMp and heFFTe take it): slabs of
    /// 32 planes, then 34 + 34 + 32 columns, every exchange block the same.
    #[test]
    fn uneven_slabs_pad_the_last_range() {
        let plan = plan_distributed(&spread(&[96, 100, 120], TransformKind::C2c, 3)).unwrap();
        assert_eq!(plan.grid, vec![3]);
        assert_eq!(plan.local_input_shape(), vec![32, 100, 120]);
        assert_eq!(plan.local_output_shape(), vec![96, 34, 120]);
        assert_eq!(plan.exchange_elements(), 3 * 32 * 34 * 120);
        // The last rank's share of the output: columns 68..100 are values,
        // 100 and 101 padding.
        let offsets = plan.global_offsets(true, 2, 1);
        let values = offsets.iter().filter(|o| o.is_some()).count();
        assert_eq!(values, 96 * 32 * 120);
        assert_eq!(offsets[0], Some(68 * 120));
        assert_eq!(offsets[32 * 120], None);
    }
}
