//! Making a [`DistributedPlan`]: slabs while P cuts the first axis (each
//! rank transforms the other axes, one all-to-all, then the first axis),
//! pencils for 3D beyond (the last axis, an exchange within each row of
//! the grid, the middle axis, an exchange within each column, the first
//! axis). Each direction ends on the other's start: the forward leaves the
//! last axis exchanged cut (FFTW-MPI's transposed output) and the inverse
//! starts there.

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
                "no grid of slabs or pencils cuts the axes evenly (slabs need {} to divide \
                 axes 0 and 1 of the complex shape {complex:?}; pencils P0 x P1 need P0 to \
                 divide axes 0 and 1 and P1 axes 1 and 2); give another number of GPUs",
                spec.gpus
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
    match grid.len() {
        1 => slabs(whole, &grid),
        _ => pencils(whole, &grid),
    }
}

/// Slabs where P cuts axes 0 and 1, else the squarest pencil grid that fits.
fn default_grid(complex: &[usize], gpus: usize) -> Option<Vec<usize>> {
    if grid_misfit(complex, &[gpus]).is_none() {
        return Some(vec![gpus]);
    }
    if complex.len() < 3 {
        return None;
    }
    (1..=gpus)
        .filter(|p0| gpus % p0 == 0)
        .map(|p0| vec![p0, gpus / p0])
        .filter(|grid| grid_misfit(complex, grid).is_none())
        .min_by_key(|grid| grid[0].abs_diff(grid[1]))
}

/// Why `grid` cannot cut the complex side evenly, if it cannot.
fn grid_misfit(complex: &[usize], grid: &[usize]) -> Option<String> {
    let needs: Vec<(usize, usize)> = match grid {
        [p] => vec![(0, *p), (1, *p)],
        [p0, p1] if complex.len() == 3 => vec![(0, *p0), (1, *p0), (1, *p1), (2, *p1)],
        _ => {
            return Some(format!(
                "a grid of {} dimensions for {} axes",
                grid.len(),
                complex.len()
            ))
        }
    };
    needs
        .into_iter()
        .find(|&(axis, p)| complex[axis] % p != 0)
        .map(|(axis, p)| {
            format!(
                "{p} does not divide axis {axis} of the complex shape {complex:?} (a real \
                 transform's last axis holds n/2 + 1 values); give a number of GPUs that does"
            )
        })
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
    }
}

/// Slabs: rank r holds range r of axis 0; the forward transforms the other
/// axes, trades blocks of axis 1, transforms axis 0 and leaves axis 1 cut.
fn slabs(whole: &FftSpec, grid: &[usize]) -> Result<DistributedPlan, Error> {
    let p = grid[0];
    let complex = whole.kind.complex_shape(&whole.shape);
    let (n0, m) = (complex[0], complex[0] / p);
    let rest = &whole.shape[1..];
    let inner: usize = complex[2..].iter().product();
    let q = complex[1] / p;
    // The share after the exchange: all of axis 0, range r of axis 1.
    let mut turned = complex.clone();
    turned[1] = q;
    let cut_axis_1 = Blocks {
        stride: inner,
        len: complex[1],
        parts: p,
        outer: m,
    };
    let exchange = Step::Exchange {
        grid_axis: 0,
        peers: p,
        block_elements: m * q * inner,
    };
    let mut input = vec![None; complex.len()];
    input[0] = Some(0);
    let mut output = vec![None; complex.len()];
    output[1] = Some(0);
    let forward = vec![
        local(
            step(
                whole,
                Direction::Forward,
                rest,
                false,
                None,
                Some(cut_axis_1),
                false,
            )?,
            m,
            Region::Input,
            Region::Send,
        ),
        exchange.clone(),
        local(
            step(whole, Direction::Forward, &turned, true, None, None, true)?,
            1,
            Region::Recv,
            Region::Output,
        ),
    ];
    let inverse = vec![
        local(
            step(whole, Direction::Inverse, &turned, true, None, None, false)?,
            1,
            Region::Input,
            Region::Send,
        ),
        exchange,
        local(
            step(
                whole,
                Direction::Inverse,
                rest,
                false,
                Some(cut_axis_1),
                None,
                true,
            )?,
            m,
            Region::Recv,
            Region::Output,
        ),
    ];
    debug_assert_eq!(n0, m * p);
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
    let in_rows = Step::Exchange {
        grid_axis: 1,
        peers: p1,
        block_elements: m0 * m1 * q2,
    };
    let in_columns = Step::Exchange {
        grid_axis: 0,
        peers: p0,
        block_elements: m0 * r1 * q2,
    };
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
        forward,
        inverse,
    })
}
