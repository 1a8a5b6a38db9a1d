//! Plans of several passes (seed 000 section IV.C and IV.F, seed 001's
//! four-step): one pass per axis of a multi-dimensional transform, last
//! axis first, and an axis longer than a block holds split into two or
//! three passes. Every pass reads and writes global memory once; the
//! four-step twiddles and the transposes ride on the passes' loads and
//! stores, never in passes of their own.
//!
//! Splitting axis length N = f0 f1 ... f(p-1): before step i the axis holds,
//! at flat position K + P r (P = f0 ... f(i-1)), the value for the
//! digits K already transformed and the remainder r not yet transformed.
//! Step i transforms digit n_i of r = n_i R' + r' (R' = f(i+1) ...), multiplies
//! by `w_(f_i R')^(r' k_i)` and writes to K + P (k_i + f_i r'), which is the
//! same form one digit on. The last step writes X at K + P k: the natural
//! order of the output. Only the last step writes where it read, so the
//! others need a buffer apart from the one they read (the output, or the
//! plan's scratch).

use super::access::{Access, Column, StepTwiddle, StepTwiddleForm};
use super::fused_axes::FusedAxes;
use super::pass_planner::{max_size, plan_fused_pass, plan_pass, TILE_RUN_BYTES};
use super::split::{self, four_step};
use super::{ColumnIo, CostModel, Pass, Plan, PlanModel, ShapeChoices, Wisdom};
use crate::{Buffer, Error, FftSpec, Layout, Placement, Precision, Target};
use std::collections::BTreeMap;

/// The longest rows of axes at once that may hold an SM alone in one pass
/// ([`AxisPlan::lone_long_rows`]).
const LONE_GROUP_ROW_LIMIT: usize = 64;

/// Most passes one axis may take (three reach 2^30 with 1024-point passes).
const MAX_STEPS_PER_AXIS: usize = 3;

/// One pass of the plan before its buffers are chosen: step `step` of the
/// split `factors` of axis `axis`.
struct Step {
    axis: usize,
    factors: Vec<usize>,
    step: usize,
    /// Where the pass computes `axis` and the axes just before it at once
    /// ([`FusedAxes`]; `factors` is then their product, in one step).
    fused: Option<FusedAxes>,
}

impl Step {
    /// One pass of `factors` of `axis`, or of all of it.
    fn of_axis(axis: usize, factors: &[usize], step: usize) -> Step {
        Step {
            axis,
            factors: factors.to_vec(),
            step,
            fused: None,
        }
    }

    /// The pass of this step, shaped by `shapes`, over `access`.
    fn plan_pass(
        &self,
        precision: Precision,
        shapes: &ShapeChoices,
        target: &Target,
        access: &Access,
    ) -> Result<Pass, Error> {
        match &self.fused {
            Some(fused) => plan_fused_pass(fused, precision, shapes, target, access),
            None => plan_pass(self.factors[self.step], precision, shapes, target, access),
        }
    }

    /// [`Step::plan_pass`] for a step whose stores take the four-step
    /// twiddle of column `twiddle` (a column index of `access`), with the
    /// tile of an f32 pass whose lanes each hold a different FFT narrowed to
    /// [`twiddled_tile_ffts`] where the twiddle's column is the tile's
    /// first (its lanes' twiddles then differ from lane to lane).
    fn plan_twiddled_pass(
        &self,
        precision: Precision,
        shapes: &ShapeChoices,
        target: &Target,
        access: &Access,
        twiddle: Option<usize>,
    ) -> Result<Pass, Error> {
        let pass = self.plan_pass(precision, shapes, target, access)?;
        let ffts = twiddled_tile_ffts(precision);
        let narrowed = twiddle == Some(0)
            && precision == Precision::F32
            && shapes.ffts_per_block.is_none()
            && pass.lanes == super::LaneLayout::FftMinor
            && pass.io == super::GlobalIo::ColumnTile
            && pass.ffts_per_block > ffts
            && pass.threads_per_fft * ffts >= NARROWED_TILE_LEAST_THREADS;
        if !narrowed {
            return Ok(pass);
        }
        let shapes = ShapeChoices {
            ffts_per_block: Some(ffts),
            ..shapes.clone()
        };
        Ok(self
            .plan_pass(precision, &shapes, target, access)
            .unwrap_or(pass))
    }

    /// Whether the pass computes (some of) `axis`.
    fn covers(&self, axis: usize) -> bool {
        let axes = self.fused.as_ref().map_or(1, |f| f.lengths.len());
        axis <= self.axis && axis + axes > self.axis
    }

    /// Whether the pass writes where it read (the last step of its axis).
    fn writes_where_it_reads(&self) -> bool {
        self.step + 1 == self.factors.len()
    }

    /// The product of the earlier steps' lengths: the digits already
    /// transformed span it (P).
    fn done(&self) -> usize {
        self.factors[..self.step].iter().product()
    }

    /// The product of the later steps' lengths: the remainder not yet
    /// transformed (R').
    fn rest(&self) -> usize {
        self.factors[self.step + 1..].iter().product()
    }
}

/// Plans `spec` (validated) as a sequence of passes for `target`: with the
/// user's split and column I/O where given, else the first measured ones
/// ([`Wisdom`]) that plan, else the planner's.
pub fn plan(spec: &FftSpec, target: &Target, wisdom: &Wisdom) -> Result<Plan, Error> {
    let user = spec.choices.several_passes_only();
    // A measured split stands unless the user gave one (or column I/O);
    // the user's other choices still apply to it.
    if user.split.is_none() && user.column_io.is_none() {
        // A split measured on a GPU whose blocks hold longer columns than
        // this target's would run here with narrower tiles than measured.
        let columns = column_limit(spec.precision, target);
        let fits = |split: &Option<Vec<usize>>| {
            split
                .as_ref()
                .is_none_or(|split| split.iter().all(|&f| f <= columns))
        };
        let measured = wisdom
            .candidates(&spec.shape, spec.precision, target)
            .filter(|entry| {
                entry.choices.one_kernel_only().is_empty() && fits(&entry.choices.split)
            })
            .find_map(|entry| plan_with(spec, target, &user.or(&entry.choices), wisdom).ok());
        if let Some(plan) = measured {
            return Ok(plan);
        }
    }
    plan_with(spec, target, &user, wisdom)
}

/// Most passes a split given by hand may take: the global-memory FFT of
/// seed 000 IV.A runs one radix step per pass.
const MAX_SPLIT: usize = 6;

/// Plans `spec` with `choices` (a split and column I/O at most), its
/// column passes shaped as `wisdom` measured them.
fn plan_with(
    spec: &FftSpec,
    target: &Target,
    choices: &ShapeChoices,
    wisdom: &Wisdom,
) -> Result<Plan, Error> {
    let axes: Vec<usize> = (0..spec.shape.len()).collect();
    plan_axes(spec, target, choices, &axes, false, Some(wisdom))
}

/// Plans the transform of `spec` along `axes` only (ascending; the others
/// are left as they are, as the complex axes of a real transform need).
/// With `scratch_only`, results between passes go to the scratch buffer
/// alone: the input and output of a long real axis are shorter than its
/// complex FFT (reals, half spectrum). The caller then gives consecutive
/// passes that write scratch two regions of it in turn (plan/real.rs).
/// Column passes take the block shapes `wisdom` measured for their length
/// where it has one ([`Wisdom::column_pass`]). Neighbouring axes whose
/// points one kernel holds run as one pass ([`FusedAxes`]).
pub(super) fn plan_axes(
    spec: &FftSpec,
    target: &Target,
    choices: &ShapeChoices,
    axes: &[usize],
    scratch_only: bool,
    wisdom: Option<&Wisdom>,
) -> Result<Plan, Error> {
    let shape = &spec.shape;
    let precision = spec.precision;
    let layouts = Layouts::of(spec);
    let column_io = choices.column_io.unwrap_or(ColumnIo::Tile);
    let columns = column_limit(precision, target);
    let split_axis = split_axis(shape, choices.split.as_ref())?;
    let axis_plan = AxisPlan {
        spec,
        target,
        layouts: &layouts,
        column_io,
        columns,
    };
    let build = |splits: &BTreeMap<usize, Vec<usize>>| -> Result<Plan, Error> {
        let (steps, axis_factors) = axis_plan.split_axes(choices, axes, split_axis, splits)?;
        axis_plan.plan_steps_of(choices, steps, axis_factors, scratch_only, wisdom)
    };
    let mut splits = BTreeMap::new();
    let mut plan = build(&splits)?;
    let owned_wisdom = match wisdom {
        Some(_) => None,
        None => Wisdom::for_spec(spec.wisdom.as_deref()).ok(),
    };
    let ranking = SplitRanking::of(wisdom.or(owned_wisdom.as_deref()), target, precision);
    for &axis in axes {
        let passes = plan.axis_factors[axis].len();
        if split_axis == Some(axis) || !ranking.ranks(passes) {
            continue;
        }
        let factors = plan.axis_factors[axis].clone();
        let longest = split_pass_limit(precision, columns);
        let even = (factors, ranking.time(&plan.passes), plan);
        let (split, fastest) = fastest_split(shape[axis], longest, even, |split| {
            splits.insert(axis, split.to_vec());
            let candidate = build(&splits).ok()?;
            Some((ranking.time(&candidate.passes), candidate))
        });
        plan = fastest;
        splits.insert(axis, split);
    }
    Ok(plan)
}

/// How the splits of an axis into as many passes are ranked: by the model
/// of whole plans where the target's wisdom has one, else by the
/// one-kernel model summed over passes, which ranks splits in three passes
/// alone. On the H200 (cuFFT/ours, most even -> ranked by the one-kernel
/// model): 69672960 0.99 -> 1.38x, 105131520 1.00 -> 1.13x, f64 4336640
/// 1.12 -> 1.33x; among splits in two passes that ranking lost at 7 of 12
/// shapes (f64 9240 2.02 -> 1.84x, 13230 1.60 -> 1.29x; f32 1852200 1.14
/// -> 1.05x) and gained at 5 (f64 1944000 0.70 -> 0.93x)
/// (docs/bench/h200_ab_modelled_splits_f64_rows.log). The model of whole
/// plans, which sees column passes and f64's scarcity, ranks both in f64:
/// 1944000 0.70 -> 0.93x, 18662400 0.81 -> 0.92x, 77760 1.01 -> 1.24x,
/// R2C / C2R 14002632 0.84 / 0.74 -> 1.01 / 0.84x, 85995 1.65 / 1.25 ->
/// 1.75 / 1.59x; lost at 119790 1.47 -> 1.40x and 7321600 1.34 -> 1.29x
/// (docs/bench/h200_ab_plan_model.log).
pub enum SplitRanking<'a> {
    /// By the model of whole plans of a precision, on SMs of warps of so
    /// many threads.
    Plans(&'a PlanModel, Precision, usize),
    /// By the one-kernel model summed over passes, warps of so many threads.
    OneKernel(&'a CostModel, usize),
    /// Not at all: the most even split stands.
    None,
}

impl<'a> SplitRanking<'a> {
    /// The ranking `wisdom` holds for plans of `precision` on `target`.
    pub fn of(wisdom: Option<&'a Wisdom>, target: &Target, precision: Precision) -> Self {
        match wisdom {
            Some(w) => match (w.plan_model(target, precision), w.model(target)) {
                (Some(plans), _) => SplitRanking::Plans(plans, precision, target.warp_size),
                (None, Some(one_kernel)) => SplitRanking::OneKernel(one_kernel, target.warp_size),
                (None, None) => SplitRanking::None,
            },
            None => SplitRanking::None,
        }
    }

    /// Whether it ranks the splits of an axis into `passes` passes.
    pub fn ranks(&self, passes: usize) -> bool {
        match self {
            SplitRanking::Plans(..) => passes >= 2,
            SplitRanking::OneKernel(..) => passes == 3,
            SplitRanking::None => false,
        }
    }

    /// The modelled time of `passes`.
    pub fn time<'p>(&self, passes: impl IntoIterator<Item = &'p Pass>) -> f64 {
        match self {
            SplitRanking::Plans(model, precision, warp) => {
                model.plan_time(passes, *precision, *warp)
            }
            SplitRanking::OneKernel(model, warp) => model.passes_time(passes, *warp),
            SplitRanking::None => 0.0,
        }
    }
}

/// Of the most even split of `n` into passes of at most `longest` points
/// (`even`: the split, its modelled time and what planning it gave) and up
/// to [`RANKED_SPLITS`] others into as many passes whose longest is
/// [`comparable`], the one `time` predicts fastest, with what planning it
/// gave: `even` unless another is predicted faster by more than
/// [`SPLIT_MARGIN`]. `time` is `None` for a split that does not plan.
pub(super) fn fastest_split<T>(
    n: usize,
    longest: usize,
    even: (Vec<usize>, f64, T),
    mut time: impl FnMut(&[usize]) -> Option<(f64, T)>,
) -> (Vec<usize>, T) {
    let (even, even_time, planned) = even;
    let mut best = (even_time, even.clone(), planned);
    for split in split::splits(n, longest, even.len())
        .into_iter()
        .filter(|split| *split != even && comparable(split, &even))
        .take(RANKED_SPLITS)
    {
        if let Some((t, planned)) = time(&split) {
            if t < best.0 * (1.0 - SPLIT_MARGIN) {
                best = (t, split, planned);
            }
        }
    }
    (best.1, best.2)
}

/// Most splits of one axis the model ranks beside the most even one (the
/// most even first): each is a plan of its passes, which cold planning
/// pays for.
pub(super) const RANKED_SPLITS: usize = 12;

/// How much faster than the most even split another must be modelled to
/// take it: within this the two rank as equal. 1% rather than 5% for the
/// plan model, H200 cuFFT/ours
/// (docs/bench/h200_ab_minor_values_and_split_margin.log): 3203226 f64 1.02
/// -> 1.29, 30420 f64 1.41 -> 1.70, 9391536 f64 R2C/C2R 0.91/0.77 ->
/// 1.01/0.86, 1760000 f64 0.89 -> 0.92; 43560 f64 C2R lost 1.35 -> 1.08.
const SPLIT_MARGIN: f64 = 0.01;

/// Whether the model ranks `split` against the most even split `even`:
/// where its longest pass is at most 1.5 times as long. The model, fitted
/// to one-kernel FFTs of thousands of points, sees a pass's stages and
/// threads but not its column tile: it preferred 280 x 33 to 105 x 88
/// (fewer stages), whose 33-point pass reads columns in narrow tiles.
pub(super) fn comparable(split: &[usize], even: &[usize]) -> bool {
    2 * split[0] <= 3 * even[0]
}

impl AxisPlan<'_> {
    /// The plan of `steps` (the splits `axis_factors` gives), its buffers
    /// chosen and each step's pass planned.
    fn plan_steps_of(
        &self,
        choices: &ShapeChoices,
        steps: Vec<Step>,
        axis_factors: Vec<Vec<usize>>,
        scratch_only: bool,
        wisdom: Option<&Wisdom>,
    ) -> Result<Plan, Error> {
        let (spec, target, layouts) = (self.spec, self.target, self.layouts);
        let (shape, precision, column_io, columns) =
            (&spec.shape, spec.precision, self.column_io, self.columns);
        let pass_choices = spec.choices.one_kernel_only();
        if !pass_choices.is_empty() {
            return Err(Error::ChoiceNeedsOneKernel {
                choice: pass_choices.to_string(),
                shape: shape.clone(),
                passes: steps.len(),
            });
        }

        // Some assignment always exists: the scratch buffer between any two
        // passes (in its two regions where `scratch_only`).
        let buffers =
            choose_buffers(&steps, spec.placement, scratch_only).ok_or(Error::TooLarge {
                n: spec.n(),
                precision,
                max: columns * columns,
            })?;
        let step_twiddles = choices.step_twiddles;
        let io = PassIo {
            column_io,
            step_twiddles,
        };
        let passes = plan_steps(spec, target, io, &steps, &buffers, &layouts, wisdom)?;
        let uses_scratch = buffers
            .iter()
            .any(|&(r, w)| r == Buffer::Scratch || w == Buffer::Scratch);
        Ok(Plan {
            n: spec.points(),
            shape: shape.clone(),
            kind: crate::TransformKind::C2c,
            precision,
            directions: spec.directions.clone(),
            normalization: spec.normalization,
            placement: spec.placement,
            input_layout: layouts.input.clone(),
            output_layout: layouts.output.clone(),
            scratch_elements: if uses_scratch { spec.points() } else { 0 },
            axis_factors,
            column_io,
            passes,
            inverse_passes: Vec::new(),
            normalization_points: None,
        })
    }
}

/// The layouts of the three buffers a pass may read or write.
struct Layouts {
    input: Layout,
    output: Layout,
    scratch: Layout,
}

impl Layouts {
    /// The layouts of `spec`'s buffers: its input's, its output's, and a
    /// contiguous scratch buffer.
    fn of(spec: &FftSpec) -> Layouts {
        Layouts {
            input: spec.planned_input_layout(),
            // A real plan's segments run in place between layouts that differ
            // (the reals and the half spectrum of one buffer): an output
            // layout given is the output's.
            output: spec
                .output_layout
                .clone()
                .unwrap_or_else(|| spec.planned_output_layout()),
            scratch: Layout::contiguous(&spec.shape),
        }
    }

    /// The layout of `buffer`.
    fn of_buffer(&self, buffer: Buffer) -> &Layout {
        match buffer {
            Buffer::Input => &self.input,
            Buffer::Output => &self.output,
            Buffer::Scratch => &self.scratch,
        }
    }
}

/// The axis a split by hand applies to (the last whose length it makes),
/// if the split is one of 1 to [`MAX_SPLIT`] passes that each compute
/// something.
fn split_axis(shape: &[usize], split: Option<&Vec<usize>>) -> Result<Option<usize>, Error> {
    let Some(split) = split else {
        return Ok(None);
    };
    let bad = |reason: String| Error::BadSplit {
        split: split.clone(),
        shape: shape.to_vec(),
        reason,
    };
    if split.is_empty() || split.len() > MAX_SPLIT {
        return Err(bad(format!("give 1 to {MAX_SPLIT} pass lengths")));
    }
    if split.len() > 1 && split.contains(&1) {
        return Err(bad("a pass of length 1 computes nothing".into()));
    }
    let product: usize = split.iter().product();
    let axis = (0..shape.len()).rev().find(|&a| shape[a] == product);
    Ok(Some(axis.ok_or_else(|| {
        bad(format!("no axis is {product} long"))
    })?))
}

/// What splitting an axis into passes depends on: the transform, the
/// target, the buffers' layouts, the column I/O, and the longest column a
/// pass of several holds.
struct AxisPlan<'a> {
    spec: &'a FftSpec,
    target: &'a Target,
    layouts: &'a Layouts,
    column_io: ColumnIo,
    columns: usize,
}

impl AxisPlan<'_> {
    /// The steps of `axes`, last axis first, and the split of each axis:
    /// the user's split on `split_axis`; else one pass wherever the target
    /// plans the whole axis as one kernel (rows or columns, in the opt-in
    /// shared memory where it is granted: one read and one write of the
    /// data instead of two or three); else the split `splits` names for
    /// the axis, or the four-step split into passes of at most `columns`
    /// points.
    fn split_axes(
        &self,
        choices: &ShapeChoices,
        axes: &[usize],
        split_axis: Option<usize>,
        splits: &BTreeMap<usize, Vec<usize>>,
    ) -> Result<(Vec<Step>, Vec<Vec<usize>>), Error> {
        let (shape, precision) = (&self.spec.shape, self.spec.precision);
        let mut steps = Vec::new();
        let mut axis_factors = vec![Vec::new(); shape.len()];
        let mut fused_into: Option<usize> = None;
        for &axis in axes.iter().rev() {
            if fused_into.is_some_and(|first| axis >= first) {
                continue;
            }
            if let Some(fused) = self.fused_group(axes, axis, split_axis) {
                let first = axis + 1 - fused.lengths.len();
                for a in first..=axis {
                    axis_factors[a] = vec![shape[a]];
                }
                steps.push(Step {
                    fused: Some(fused.clone()),
                    ..Step::of_axis(axis, &[fused.points()], 0)
                });
                fused_into = Some(first);
                continue;
            }
            let factors = match (split_axis == Some(axis), &choices.split) {
                (true, Some(split)) => split.clone(),
                _ if self.one_pass_plans(axis) && !self.narrow_column(axis) => {
                    vec![shape[axis]]
                }
                _ if splits.contains_key(&axis) => splits[&axis].clone(),
                _ => {
                    let longest = split_pass_limit(precision, self.columns);
                    four_step(shape[axis], longest, MAX_STEPS_PER_AXIS).ok_or_else(|| {
                        Error::TooLarge {
                            n: shape[axis],
                            precision,
                            max: longest.pow(MAX_STEPS_PER_AXIS as u32),
                        }
                    })?
                }
            };
            for step in 0..factors.len() {
                steps.push(Step::of_axis(axis, &factors, step));
            }
            axis_factors[axis] = factors;
        }
        Ok((steps, axis_factors))
    }

    /// The most axes ending at `axis` (those just before it, in `axes`)
    /// that one pass computes at once, where that is two or more: their
    /// points within [`Self::fused_limit`], contiguous in every buffer (so their points are one column of the
    /// group's product), none split by the user, and the pass planned on
    /// the target from every buffer.
    fn fused_group(
        &self,
        axes: &[usize],
        axis: usize,
        split_axis: Option<usize>,
    ) -> Option<FusedAxes> {
        let shape = &self.spec.shape;
        let contiguous = |a: usize| {
            [Buffer::Input, Buffer::Output, Buffer::Scratch]
                .into_iter()
                .all(|buffer| {
                    let strides = &self.layouts.of_buffer(buffer).strides;
                    strides[a] == strides[a + 1] * shape[a + 1]
                })
        };
        let mut best = None;
        let mut first = axis;
        while first > 0
            && axes.contains(&(first - 1))
            && ![first - 1, axis].iter().any(|&a| split_axis == Some(a))
            && shape[first - 1..=axis].iter().product::<usize>() <= self.fused_limit(axis)
            && contiguous(first - 1)
        {
            first -= 1;
            let Some(fused) = FusedAxes::of(&shape[first..=axis]) else {
                break;
            };
            if !self.fused_pass_plans(&fused, axis) || self.lone_long_rows(&fused, axis) {
                break;
            }
            best = Some(fused);
        }
        best
    }

    /// The most points a pass of several axes ending at `axis` may hold:
    /// one kernel's in static shared memory; rows (the last axis's group)
    /// past it where opt-in memory holds them, the pass plans and no axis
    /// is past one kernel alone (3x7000 and 2x12000 ran 5% slower as one
    /// opt-in pass than in two, docs/bench/h100_axes_at_once.txt).
    fn fused_limit(&self, axis: usize) -> usize {
        let one_kernel = max_size(self.spec.precision);
        let rows = axis + 1 == self.spec.shape.len();
        match rows && self.spec.shape[axis] <= one_kernel {
            true => one_kernel * 6,
            false => one_kernel,
        }
    }

    /// Whether `fused` (ending at `axis`) is past one kernel's points, its
    /// pass holds an SM alone, and its rows are longer than
    /// [`LONE_GROUP_ROW_LIMIT`] points and not all axes powers of two: such
    /// groups ran slower at once than in a pass per axis (not profiled).
    /// H200, cuFFT/ours at once -> a pass per axis
    /// (docs/bench/h200_variants_opt_in_axes_at_once.log): f32 4x2475 0.71
    /// -> 0.95x, 24x3x3200 0.81 -> 1.54x, 15x1024 0.74 -> 1.00x, 135x80
    /// 0.92 -> 1.20x, 1452x176x72 0.75 -> 0.79x; f64 5x924 0.74 -> 1.02x,
    /// 2x3240 0.88 -> 1.11x, 15x2x3150 1.22 -> 1.93x. Rows of at most 42
    /// points (108x15x9, 245x42, 3300x5, 330x2x8 f64) ran 1.3-1.7x faster at
    /// once, as did 16x1024; 6x4x504 lost (1.92x at once, 1.54x as 4x504
    /// then 6, docs/bench/h200_ab_interleaved_padding_and_lone_groups.log).
    fn lone_long_rows(&self, fused: &FusedAxes, axis: usize) -> bool {
        let rows = *fused.lengths.last().expect("a group has axes");
        if fused.points() <= max_size(self.spec.precision)
            || rows <= LONE_GROUP_ROW_LIMIT
            || fused.lengths.iter().all(|n| n.is_power_of_two())
        {
            return false;
        }
        let step = Step {
            fused: Some(fused.clone()),
            ..Step::of_axis(axis, &[fused.points()], 0)
        };
        self.planned_pass(&step, Buffer::Input, Buffer::Output)
            .is_ok_and(|pass| pass.min_blocks_per_sm == 1)
    }

    /// Whether the pass of `fused` (ending at `axis`) plans between any two
    /// of the buffers.
    fn fused_pass_plans(&self, fused: &FusedAxes, axis: usize) -> bool {
        self.plans_from_every_buffer(&Step {
            fused: Some(fused.clone()),
            ..Step::of_axis(axis, &[fused.points()], 0)
        })
    }

    /// Whether one pass computes the whole of `axis` on the target: its
    /// pass plans between the input and the output (a pass between other
    /// buffers has the same points, so the same shape, apart from a
    /// scratch buffer's contiguous strides, which only a tile's width
    /// reads).
    fn one_pass_plans(&self, axis: usize) -> bool {
        let n = self.spec.shape[axis];
        n <= self.columns || self.plans_from_every_buffer(&Step::of_axis(axis, &[n], 0))
    }

    /// Whether `axis` is a column whose one pass, though it plans, holds
    /// a tile narrower than a 32-byte run of each row (past about 6200
    /// points in f32 two columns a block, past 4096 in f64 one): the
    /// planner splits it into passes of full tiles, which read and write
    /// the data once more and still win. On the H200 (cuFFT/ours, one pass
    /// -> split) f64 12000x32 0.72 -> 1.34x, 8192x64 0.73 -> 1.01x,
    /// 8575x14336 C2R 0.72 -> 1.05x, 5120x42x3 R2C 0.78 -> 0.94x; f32
    /// 350x11000x50 R2C 0.84 -> 1.28x, 10000x1000 0.83 -> 1.06x
    /// (docs/bench/h200_ab_strided_bluestein_long_columns.log). `--split N`
    /// keeps one pass.
    fn narrow_column(&self, axis: usize) -> bool {
        let shape = &self.spec.shape;
        if shape[axis] <= self.columns || shape[axis + 1..].iter().product::<usize>() == 1 {
            return false;
        }
        let step = Step::of_axis(axis, &[shape[axis]], 0);
        self.planned_pass(&step, Buffer::Input, Buffer::Output)
            .is_ok_and(|pass| pass.ffts_per_block * self.spec.precision.complex_bytes() < 32)
    }

    /// Whether the pass of `step` plans reading and writing each buffer.
    fn plans_from_every_buffer(&self, step: &Step) -> bool {
        [Buffer::Input, Buffer::Output, Buffer::Scratch]
            .into_iter()
            .all(|buffer| self.planned_pass(step, buffer, buffer).is_ok())
    }

    /// The planner's pass of `step` from `reads` to `writes`, with the
    /// plan's column I/O and no other choice.
    fn planned_pass(&self, step: &Step, reads: Buffer, writes: Buffer) -> Result<Pass, Error> {
        let shapes = ShapeChoices {
            column_io: Some(self.column_io),
            ..ShapeChoices::default()
        };
        let (access, _) = step_access(step, &self.spec.shape, reads, writes, |buffer| {
            self.layouts.of_buffer(buffer)
        });
        step.plan_pass(self.spec.precision, &shapes, self.target, &access)
    }
}

/// How the passes of a plan meet global memory: their column I/O and, where
/// the user chose it, the form of their four-step twiddles.
#[derive(Clone, Copy)]
struct PassIo {
    column_io: ColumnIo,
    step_twiddles: Option<StepTwiddleForm>,
}

impl PassIo {
    /// The form of `pass`'s four-step twiddles: the one chosen where the
    /// pass can take it, else base-times-stride where it fits (one pair of
    /// lane-varying loads per butterfly instead of per point: 2^21-2^24 on
    /// the H200, docs/bench/h200_step_twiddles.log), else per point.
    fn step_twiddle_form(&self, pass: &Pass, target: &Target) -> StepTwiddleForm {
        let preferred = self
            .step_twiddles
            .unwrap_or(StepTwiddleForm::BaseTimesStride);
        match preferred.fits(pass, target.warp_size) {
            true => preferred,
            false => StepTwiddleForm::PerPoint,
        }
    }
}

/// The pass of each step, reading and writing the buffers `buffers` gives
/// it, with its four-step twiddle; the last normalizes. A column pass takes
/// `wisdom`'s block shape for its length where that plans, else the
/// planner's.
fn plan_steps(
    spec: &FftSpec,
    target: &Target,
    io: PassIo,
    steps: &[Step],
    buffers: &[(Buffer, Buffer)],
    layouts: &Layouts,
    wisdom: Option<&Wisdom>,
) -> Result<Vec<Pass>, Error> {
    let shapes = ShapeChoices {
        column_io: Some(io.column_io),
        ..ShapeChoices::default()
    };
    let mut passes = Vec::with_capacity(steps.len());
    for (i, (step, &(reads, writes))) in steps.iter().zip(buffers).enumerate() {
        let (access, twiddle) = step_access(step, &spec.shape, reads, writes, |buffer| {
            layouts.of_buffer(buffer)
        });
        let len = step.factors[step.step];
        // Measured column shapes are of one axis's FFTs.
        let measured = wisdom
            .filter(|_| step.fused.is_none() && !access.is_dense(len))
            .and_then(|wisdom| wisdom.column_pass(len, spec.precision, target, twiddle.is_some()))
            .and_then(|(_, entry)| {
                let choices = shapes.or(&entry.choices);
                plan_pass(len, spec.precision, &choices, target, &access).ok()
            });
        let twiddle_column = twiddle.map(|(column, _)| column);
        let mut pass = match measured {
            Some(pass) => pass,
            None => {
                step.plan_twiddled_pass(spec.precision, &shapes, target, &access, twiddle_column)?
            }
        };
        if let Some((column, span)) = twiddle {
            let mut step = StepTwiddle::after_tables_of(&pass, column, span);
            step.form = io.step_twiddle_form(&pass, target);
            pass.step_twiddle = Some(step);
        }
        pass.normalizes = i + 1 == steps.len();
        passes.push(pass);
    }
    Ok(passes)
}

/// The first step of `axis` split into `factors` (seed 001's four-step),
/// reading `from` and writing `to` (different buffers): its FFTs of
/// `factors[0]` points and the four-step twiddle on its stores, leaving
/// the axis where the later steps read it as [`step_access`] lays it out.
/// Bluestein's algorithm takes an axis's one prime factor past 31 so, as
/// the step after this one (plan/bluestein.rs).
pub(super) fn first_step(
    spec: &FftSpec,
    target: &Target,
    axis: usize,
    factors: &[usize],
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
) -> Result<Pass, Error> {
    let step = Step::of_axis(axis, factors, 0);
    let (access, twiddle) = step_access(&step, &spec.shape, from.0, to.0, |buffer| {
        match buffer == from.0 {
            true => from.1,
            false => to.1,
        }
    });
    let io = PassIo {
        column_io: ColumnIo::Tile,
        step_twiddles: None,
    };
    let shapes = ShapeChoices {
        column_io: Some(io.column_io),
        ..ShapeChoices::default()
    };
    let twiddle_column = twiddle.map(|(column, _)| column);
    let mut pass =
        step.plan_twiddled_pass(spec.precision, &shapes, target, &access, twiddle_column)?;
    if let Some((column, span)) = twiddle {
        let mut step_twiddle = StepTwiddle::after_tables_of(&pass, column, span);
        step_twiddle.form = io.step_twiddle_form(&pass, target);
        pass.step_twiddle = Some(step_twiddle);
    }
    Ok(pass)
}

/// FFTs a tile of f32 columns holds where its lanes each hold a different
/// FFT and their four-step twiddles differ from lane to lane: a 128-byte
/// run of each row, not the 32 FFTs that fill 256 threads. On the H200
/// (cuFFT/ours, 32 -> 16 columns) all 16 rows measured ran faster: 26460
/// as 180 x 147 0.83 -> 1.36x, 24843 0.64 -> 0.91x, 57600 R2C / C2R 0.53 /
/// 0.56 -> 0.76 / 0.84x, 27720 1.03 -> 1.72x; 26460's 180-point pass took
/// 2.11 -> 1.14 ms, its warps' stalls on the shared-memory queue and at
/// barriers per instruction 7.9 -> 4.5 and 4.0 -> 2.7 (ncu,
/// docs/bench/h200_ab_twiddled_tiles.log). A tile whose twiddle is by its
/// outer column (15680 x 585's) ran 9% slower so.
/// Not where the narrowed block would have fewer than
/// [`NARROWED_TILE_LEAST_THREADS`] threads (FFTs of a thread or a few,
/// not measured so).
fn twiddled_tile_ffts(precision: Precision) -> usize {
    TILE_RUN_BYTES / precision.complex_bytes()
}

/// The fewest threads a block narrowed by [`twiddled_tile_ffts`] keeps:
/// four warps (the measured blocks had 160 to 208 threads).
const NARROWED_TILE_LEAST_THREADS: usize = 128;

/// The longest FFT a column pass holds: a tile of 32-byte runs of
/// neighbouring columns (4 in f32, 2 in f64), both parts, in the target's
/// shared memory (opt-in where granted: on Hopper 4096-point columns, so
/// sizes to 2^24 take two passes; on the H200 2^21..2^24 ran 10-25% faster
/// than in three passes, docs/bench/h200_two_pass_to_2e24.json), with room
/// for the padding.
pub fn column_limit(precision: Precision, target: &Target) -> usize {
    let ffts = 32 / precision.complex_bytes();
    let shared = target.plannable_shared_bytes().max(
        target
            .max_opt_in_shared_bytes
            .saturating_sub(target.compiler_shared_bytes),
    );
    let words = shared / (ffts * 2 * precision.real_bytes());
    // Padding adds at most a word per bank row; keep to a length the
    // radix search plans (at most its threads per transform times values).
    let limit = words - words / 32 - 32;
    limit.min(max_size(precision))
}

/// The passes the four-step split gives an axis of `n` points that one
/// pass could hold as well (what [`AxisPlan::split_axes`] plans for an
/// axis one kernel does not hold), or `None` where `n` fits one column
/// pass's tile anyway: a candidate for measured planning.
pub(super) fn axis_split(n: usize, precision: Precision, target: &Target) -> Option<Vec<usize>> {
    let longest = split_pass_limit(precision, column_limit(precision, target));
    four_step(n, longest, MAX_STEPS_PER_AXIS).filter(|split| split.len() > 1)
}

/// The longest pass the four-step split of a complex axis takes, of
/// columns at most `columns` long: in f64 at most [`F64_SPLIT_PASS_MAX`].
fn split_pass_limit(precision: Precision, columns: usize) -> usize {
    match precision {
        Precision::F64 => columns.min(F64_SPLIT_PASS_MAX),
        Precision::F32 => columns,
    }
}

/// The longest pass of a split f64 axis. Longer passes run one block of
/// 616 threads per SM at 29-36% of the DRAM bandwidth (ncu, 9296672 =
/// 3388 x 2744 on the H200), so three passes of about 200 points move the
/// data once more and still win: on the H200 each of the 9 sizes of 4 to
/// 14 million points whose split changed gained, 0.74-1.03x cuFFT to
/// 0.80-1.41x (docs/bench/h200_f64_split_passes.txt). A long real axis keeps its
/// split: there three passes lost (11647251 R2C 0.93 -> 0.78x).
const F64_SPLIT_PASS_MAX: usize = 2048;

/// The buffers each step reads and writes: the first reads the input, the
/// last writes the output, each reads what the one before wrote, and a step
/// that does not write where it read gets a buffer apart (in place the
/// input is the output). The assignment with the fewest scratch passes wins;
/// with `scratch_only` every pass but the last writes the scratch buffer,
/// whose consecutive writes go to two regions in turn (so scratch to
/// scratch is no pass in place).
fn choose_buffers(
    steps: &[Step],
    placement: Placement,
    scratch_only: bool,
) -> Option<Vec<(Buffer, Buffer)>> {
    let same = |a: Buffer, b: Buffer| {
        (a == b && !(scratch_only && a == Buffer::Scratch))
            || (placement == Placement::InPlace && a != Buffer::Scratch && b != Buffer::Scratch)
    };
    let count = steps.len();
    let mut best: Option<(usize, Vec<(Buffer, Buffer)>)> = None;
    for bits in 0..(1usize << (count - 1)) {
        let mut reads = Buffer::Input;
        let mut route = Vec::with_capacity(count);
        let mut valid = true;
        for (i, step) in steps.iter().enumerate() {
            let writes = match i + 1 == count || (bits >> i & 1 == 0 && !scratch_only) {
                true => Buffer::Output,
                false => Buffer::Scratch,
            };
            if same(reads, writes) && !step.writes_where_it_reads() {
                valid = false;
                break;
            }
            route.push((reads, writes));
            reads = writes;
        }
        let scratch = route.iter().filter(|r| r.1 == Buffer::Scratch).count();
        if valid && best.as_ref().is_none_or(|(s, _)| scratch < *s) {
            best = Some((scratch, route));
        }
    }
    best.map(|(_, route)| route)
}

/// The access of `step` reading `reads` and writing `writes`, and the column
/// and span of its four-step twiddle (none for an axis's last step).
fn step_access<'a>(
    step: &Step,
    shape: &[usize],
    reads: Buffer,
    writes: Buffer,
    layout_of: impl Fn(Buffer) -> &'a Layout,
) -> (Access, Option<(usize, usize)>) {
    let (read, write) = (layout_of(reads), layout_of(writes));
    let (sr, sw) = (read.strides[step.axis], write.strides[step.axis]);
    let (f, done, rest) = (step.factors[step.step], step.done(), step.rest());
    let mut columns = step_columns(step, shape, read, write);
    let input_stride = done * rest * sr;
    let output_stride = done * sw;
    // Neighbouring FFTs of a block differ in the column closest in memory
    // on the side that is strided (the input's, unless only the output is).
    let by_input = input_stride != 1 || output_stride == 1;
    columns.sort_by_key(|(c, _)| match by_input {
        true => c.input_stride,
        false => c.output_stride,
    });
    let twiddle = columns
        .iter()
        .position(|(_, twiddled)| *twiddled)
        .map(|column| (column, f * rest));
    let access = Access {
        reads,
        writes,
        input_stride,
        output_stride,
        columns: columns.into_iter().map(|(c, _)| c).collect(),
        input_distance: read.distance,
        output_distance: write.distance,
        input_offset: 0,
        output_offset: 0,
        input_blocks: None,
        output_blocks: None,
    };
    (access, twiddle)
}

/// The columns of `step` between the layouts `read` and `write`, unsorted,
/// each marked if it carries the four-step twiddle: the digits of the axis
/// already transformed, those not yet (the twiddled one), and the other
/// axes.
fn step_columns(
    step: &Step,
    shape: &[usize],
    read: &Layout,
    write: &Layout,
) -> Vec<(Column, bool)> {
    let (sr, sw) = (read.strides[step.axis], write.strides[step.axis]);
    let (f, done, rest) = (step.factors[step.step], step.done(), step.rest());
    let last = rest == 1;

    let mut columns = Vec::new();
    // The digits already transformed, K.
    if done > 1 {
        columns.push((
            Column {
                count: done,
                input_stride: sr,
                output_stride: sw,
            },
            false,
        ));
    }
    // The remainder not yet transformed, r' (carries the twiddle).
    if !last {
        columns.push((
            Column {
                count: rest,
                input_stride: done * sr,
                output_stride: done * f * sw,
            },
            true,
        ));
    }
    // The other axes.
    for (axis, &count) in shape.iter().enumerate() {
        if !step.covers(axis) {
            columns.push((
                Column {
                    count,
                    input_stride: read.strides[axis],
                    output_stride: write.strides[axis],
                },
                false,
            ));
        }
    }
    columns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{ExchangeWidth, GlobalIo, LaneLayout};

    fn steps(axes: &[usize]) -> Vec<Step> {
        axes.iter()
            .map(|&p| (0..p).map(move |step| (p, step)))
            .flatten()
            .map(|(p, step)| Step::of_axis(0, &vec![2; p], step))
            .collect()
    }

    #[test]
    fn neighbouring_axes_that_fit_one_kernel_share_a_pass() {
        let groups = |shape: &[usize], precision: Precision| -> Vec<Option<Vec<usize>>> {
            let spec = FftSpec::with_shape(shape)
                .precision(precision)
                .target(Target::H100);
            crate::plan::plan(&spec)
                .unwrap()
                .passes
                .iter()
                .map(|p| p.fused_axes.as_ref().map(|f| f.lengths.clone()))
                .collect()
        };
        // A whole small shape in one pass; the innermost axes that fit, and
        // then the rest; axes past one kernel's points apart.
        assert_eq!(groups(&[7, 480], Precision::F32), vec![Some(vec![7, 480])]);
        assert_eq!(
            groups(&[64, 64, 64], Precision::F32),
            vec![Some(vec![64, 64]), None]
        );
        assert_eq!(
            groups(&[96, 120, 7], Precision::F32),
            vec![Some(vec![120, 7]), None]
        );
        // Rows of several axes past 4096 points in opt-in memory.
        assert_eq!(
            groups(&[96, 12, 7], Precision::F32),
            vec![Some(vec![96, 12, 7])]
        );
        assert_eq!(groups(&[3, 7000], Precision::F32), vec![None, None]);
        assert_eq!(groups(&[1024, 1024], Precision::F32), vec![None, None]);
        assert_eq!(groups(&[5, 640], Precision::F64), vec![None, None]);
        // The planner's pass is the one whose radices run the axes in turn.
        let spec = FftSpec::with_shape(&[12, 20]).target(Target::H100);
        let pass = &crate::plan::plan(&spec).unwrap().passes[0];
        let radices = pass.radices();
        let fused = pass.fused_axes.as_ref().unwrap();
        assert!(fused.aligned(&radices), "{radices:?}");
        assert_eq!(
            pass.stages
                .iter()
                .filter(|s| s.twiddle_offset.is_some())
                .count(),
            {
                // Every stage but the first of each axis twiddles.
                radices.len() - 2
            }
        );
    }

    #[test]
    fn buffers_avoid_scratch_where_they_can() {
        use Buffer::*;
        // Two steps of one axis out of place: through the output.
        assert_eq!(
            choose_buffers(&steps(&[2]), Placement::OutOfPlace, false).unwrap(),
            vec![(Input, Output), (Output, Output)]
        );
        // In place the transposing step needs the scratch buffer.
        assert_eq!(
            choose_buffers(&steps(&[2]), Placement::InPlace, false).unwrap(),
            vec![(Input, Scratch), (Scratch, Output)]
        );
        // Three steps: one scratch pass either way.
        assert_eq!(
            choose_buffers(&steps(&[3]), Placement::OutOfPlace, false).unwrap(),
            vec![(Input, Scratch), (Scratch, Output), (Output, Output)]
        );
        // Axes of one step each stay in place.
        assert_eq!(
            choose_buffers(&steps(&[1, 1]), Placement::InPlace, false).unwrap(),
            vec![(Input, Output), (Output, Output)]
        );
    }

    fn with(split: Option<&[usize]>, column_io: Option<ColumnIo>) -> ShapeChoices {
        ShapeChoices {
            split: split.map(<[usize]>::to_vec),
            column_io,
            ..ShapeChoices::default()
        }
    }

    #[test]
    fn splits_by_hand_are_checked_and_shape_the_plan() {
        let plan = |shape: &[usize], choices: ShapeChoices| {
            crate::plan::plan(&FftSpec::with_shape(shape).choices(choices))
        };
        // The split applies to the last axis of its length.
        let two_d = plan(&[1024, 1024], with(Some(&[32, 32]), None)).unwrap();
        assert_eq!(two_d.axis_factors, vec![vec![1024], vec![32, 32]]);
        assert_eq!(two_d.passes.len(), 3);
        // A one-kernel size given a split runs as several passes.
        let split = plan(&[4096], with(Some(&[64, 64]), None)).unwrap();
        assert_eq!(split.passes.len(), 2);
        for (shape, bad, says) in [
            (vec![1 << 16], vec![16, 16], "no axis is 256 long"),
            (vec![1 << 16], vec![1, 65536], "length 1"),
            (vec![1 << 16], vec![2; 16], "1 to 6"),
        ] {
            let err = plan(&shape, with(Some(&bad), None)).unwrap_err();
            assert!(matches!(err, Error::BadSplit { .. }), "{err}");
            assert!(err.to_string().contains(says), "{err}");
        }
        // Column I/O shapes plans of several passes only.
        let err = plan(&[4096], with(None, Some(ColumnIo::Global))).unwrap_err();
        assert!(
            matches!(err, Error::ChoiceNeedsSeveralPasses { .. }),
            "{err}"
        );
        // Choices of one kernel's shape still do not apply to several.
        let err = plan(
            &[1 << 16],
            ShapeChoices {
                threads_per_fft: Some(64),
                ..with(Some(&[256, 256]), None)
            },
        )
        .unwrap_err();
        assert!(matches!(err, Error::ChoiceNeedsOneKernel { .. }), "{err}");
    }

    #[test]
    fn twiddled_passes_take_twiddled_column_entries() {
        let file = r#"{"gpu": "H200", "entries": [
            {"precision": "f32", "n": 1024, "pass": "column", "choices": {"min-blocks-per-sm": 2}},
            {"precision": "f32", "n": 1024, "pass": "twiddled-column", "choices": {"exchange-width": "interleaved"}}]}"#;
        let file = crate::plan::WisdomFile::from_json(file, "mine.json").unwrap();
        let wisdom = Wisdom::of_files(vec![file]);
        // 2^20 as 1024 x 1024: the first pass twiddles, the second does not.
        let h200 = Target::H200;
        let plan = plan(&FftSpec::new(1 << 20).target(h200.clone()), &h200, &wisdom).unwrap();
        let widths: Vec<_> = plan.passes.iter().map(|p| p.exchange_width).collect();
        assert_eq!(
            widths,
            [ExchangeWidth::Interleaved, ExchangeWidth::BothParts]
        );
        assert!(plan.passes[0].step_twiddle.is_some());
        assert_eq!(plan.passes[1].min_blocks_per_sm, 2);
    }

    #[test]
    fn global_column_io_reads_adjacent_columns_into_registers() {
        let spec = |io| {
            FftSpec::new(1 << 15)
                .target(Target::PORTABLE)
                .choices(with(Some(&[8, 4096]), Some(io)))
        };
        let global = crate::plan::plan(&spec(ColumnIo::Global)).unwrap();
        let tile = crate::plan::plan(&spec(ColumnIo::Tile)).unwrap();
        // Pass 0: 8-point columns, one thread each; the columns it reads are
        // adjacent, those it writes 8 apart (so only its input goes direct).
        let (g, t) = (&global.passes[0], &tile.passes[0]);
        assert_eq!(g.threads_per_fft, 1);
        assert_eq!(
            (g.io, g.output_io),
            (GlobalIo::Direct, GlobalIo::ColumnTile)
        );
        assert_eq!(
            (t.io, t.output_io),
            (GlobalIo::ColumnTile, GlobalIo::ColumnTile)
        );
        // Lanes of a warp over FFTs of a warp or more threads stay tiled.
        assert_eq!(global.passes[1].io, tile.passes[1].io);
        assert_eq!(global.column_io, ColumnIo::Global);
    }

    #[test]
    fn column_passes_take_the_block_shapes_measured_for_their_length() {
        let bounds = |spec: &FftSpec, wisdom: &Wisdom| -> Vec<(usize, usize, usize)> {
            crate::plan::plan_with_wisdom(spec, wisdom)
                .unwrap()
                .passes
                .iter()
                .map(|p| (p.n, p.ffts_per_block, p.min_blocks_per_sm))
                .collect()
        };
        let h200 = |n: usize| FftSpec::new(n).target(Target::H200);
        let built_in = Wisdom::built_in();
        // The H200's entries: 512-point columns three blocks per SM,
        // 2048-point columns four to a block, two blocks per SM.
        assert_eq!(
            bounds(&h200(1 << 18), built_in),
            vec![(512, 8, 3), (512, 8, 3)]
        );
        assert_eq!(
            bounds(&h200(1 << 18), &Wisdom::none()),
            vec![(512, 8, 2), (512, 8, 2)]
        );
        assert!(bounds(&h200(1 << 21), built_in).contains(&(2048, 4, 2)));
        // A dense pass of that length is no column: the one-kernel 512 keeps
        // the planner's shape.
        let one_kernel = crate::plan::plan(&h200(512)).unwrap();
        assert_eq!(one_kernel.passes[0].min_blocks_per_sm, 4);
        // A GPU without entries of its own plans its columns by the model
        // (the H100's file is the fallback, but not for column passes).
        let portable = FftSpec::new(1 << 21).target(Target::PORTABLE);
        assert_eq!(
            bounds(&portable, built_in),
            bounds(&portable, &Wisdom::none())
        );
    }

    #[test]
    fn three_pass_splits_are_the_ones_the_model_predicts_fastest() {
        let model = Wisdom::built_in().model(&Target::H200).unwrap();
        let n = 69672960;
        let spec = FftSpec::new(n).target(Target::H200);
        let chosen = crate::plan::plan(&spec).unwrap();
        assert_eq!(chosen.axis_factors[0], vec![512, 405, 336]);
        let time = |plan: &Plan| model.passes_time(&plan.passes, 32);
        let longest = column_limit(Precision::F32, &Target::H200);
        let even = four_step(n, longest, 3).unwrap();
        assert_ne!(even, chosen.axis_factors[0]);
        let ranked: Vec<_> = split::splits(n, longest, 3)
            .into_iter()
            .filter(|split| comparable(split, &even))
            .take(RANKED_SPLITS + 1)
            .collect();
        assert!(ranked.len() > 2 && ranked.contains(&even));
        for split in ranked {
            let by_hand = spec.clone().choices(ShapeChoices {
                split: Some(split.clone()),
                ..ShapeChoices::default()
            });
            let candidate = crate::plan::plan(&by_hand).unwrap();
            assert!(time(&chosen) <= time(&candidate) + 1e-12, "{split:?}");
        }
        // Two passes keep the most even split: f64 9240 as 105 x 88.
        let f64_9240 = FftSpec::new(9240)
            .precision(Precision::F64)
            .target(Target::H200);
        let plan = crate::plan::plan(&f64_9240).unwrap();
        assert_eq!(plan.axis_factors[0], vec![105, 88]);
        // Without a model the most even split stands.
        let plan = crate::plan::plan_with_wisdom(&spec, &Wisdom::none()).unwrap();
        assert_eq!(plan.axis_factors[0], even);
    }

    #[test]
    fn twiddled_tiles_whose_lanes_differ_in_their_twiddle_hold_a_run_of_columns() {
        // 26460 as 180 x 147 and 57600's real axis as 180 x 160: the first
        // pass's lanes are FFTs of neighbouring columns, each twiddled by
        // its own column.
        for (n, kind) in [
            (26460, crate::TransformKind::C2c),
            (57600, crate::TransformKind::R2c),
        ] {
            let spec = FftSpec::new(n).kind(kind).target(Target::H200);
            let plan = crate::plan::plan(&spec).unwrap();
            let twiddled = plan
                .passes
                .iter()
                .find(|p| p.step_twiddle.is_some())
                .unwrap();
            assert_eq!(twiddled.lanes, LaneLayout::FftMinor, "{kind:?}");
            assert_eq!(twiddled.io, GlobalIo::ColumnTile, "{kind:?}");
            assert_eq!(twiddled.ffts_per_block, twiddled_tile_ffts(Precision::F32));
            // Those without a twiddle keep the 32 columns that fill 256 threads.
            assert!(plan
                .passes
                .iter()
                .any(|p| p.step_twiddle.is_none() && p.ffts_per_block == 32));
        }
        // 15680 x 585: the split axis's twiddle is by its outer column, the
        // same for every lane of a tile of 585-point rows' neighbours.
        let plan =
            crate::plan::plan(&FftSpec::with_shape(&[15680, 585]).target(Target::H200)).unwrap();
        let twiddled = plan
            .passes
            .iter()
            .find(|p| p.step_twiddle.is_some())
            .unwrap();
        assert_eq!(twiddled.step_twiddle.as_ref().unwrap().column, 1);
        assert_eq!(twiddled.ffts_per_block, 32);
    }

    #[test]
    fn f64_splits_are_the_ones_the_model_of_whole_plans_predicts_fastest() {
        let wisdom = Wisdom::built_in();
        let model = wisdom.plan_model(&Target::H200, Precision::F64).unwrap();
        assert!(wisdom.plan_model(&Target::H200, Precision::F32).is_none());
        let time = |plan: &Plan| model.plan_time(&plan.passes, Precision::F64, 32);
        let longest = column_limit(Precision::F64, &Target::H200);
        for n in [1944000, 18662400] {
            let spec = FftSpec::new(n)
                .precision(Precision::F64)
                .target(Target::H200);
            let chosen = crate::plan::plan(&spec).unwrap();
            let even = four_step(n, longest, 3).unwrap();
            assert_ne!(chosen.axis_factors[0], even, "{n}");
            let ranked: Vec<_> = split::splits(n, longest, even.len())
                .into_iter()
                .filter(|split| comparable(split, &even))
                .take(RANKED_SPLITS + 1)
                .collect();
            assert!(ranked.contains(&even));
            for split in ranked {
                let by_hand = spec.clone().choices(ShapeChoices {
                    split: Some(split.clone()),
                    ..ShapeChoices::default()
                });
                let candidate = crate::plan::plan(&by_hand).unwrap();
                assert!(time(&chosen) <= time(&candidate) + 1e-12, "{n}: {split:?}");
            }
        }
        // f32 splits in two passes keep the most even.
        let spec = FftSpec::new(220000).target(Target::H200);
        let plan = crate::plan::plan(&spec).unwrap();
        assert_eq!(
            plan.axis_factors[0],
            four_step(220000, column_limit(Precision::F32, &Target::H200), 3).unwrap()
        );
    }

    #[test]
    fn f64_axes_split_into_passes_of_at_most_2048_points() {
        let lengths = |n: usize, precision: Precision| -> Vec<usize> {
            let spec = FftSpec::new(n).precision(precision).target(Target::H200);
            let plan = crate::plan::plan(&spec).unwrap();
            plan.passes.iter().map(|p| p.n).collect()
        };
        // 9296672 = 3388 x 2744 in f32; in f64 three passes.
        assert_eq!(lengths(9296672, Precision::F32).len(), 2);
        let f64_passes = lengths(9296672, Precision::F64);
        assert_eq!(f64_passes.len(), 3);
        assert!(f64_passes.iter().all(|&n| n <= F64_SPLIT_PASS_MAX));
        // Two passes of 2048 or fewer points stay two.
        assert_eq!(lengths(1 << 22, Precision::F64), vec![2048, 2048]);
        // A long real axis keeps the column limit: 18370800 R2C.
        let real = FftSpec::new(18370800)
            .precision(Precision::F64)
            .kind(crate::TransformKind::R2c)
            .target(Target::H200);
        let plan = crate::plan::plan(&real).unwrap();
        assert!(plan.passes.iter().any(|p| p.n > F64_SPLIT_PASS_MAX));
    }

    #[test]
    fn axes_at_once_past_one_kernel_alone_on_an_sm_keep_rows_of_at_most_64() {
        let passes = |shape: &[usize], precision: Precision| -> Vec<usize> {
            let spec = FftSpec::with_shape(shape)
                .precision(precision)
                .target(Target::H200);
            crate::plan::plan(&spec)
                .unwrap()
                .passes
                .iter()
                .map(|pass| pass.n)
                .collect()
        };
        // Rows past 64 points: a pass per axis (or the outer axes at once).
        assert_eq!(passes(&[4, 2475], Precision::F32), [2475, 4]);
        assert_eq!(passes(&[24, 3, 3200], Precision::F32), [3200, 72]);
        assert_eq!(passes(&[5, 924], Precision::F64), [924, 5]);
        assert_eq!(passes(&[6, 4, 756], Precision::F32), [3024, 6]);
        // Short rows, every axis a power of two, and groups that share an
        // SM or fit static memory stay at once.
        assert_eq!(passes(&[108, 15, 9], Precision::F32), [14580]);
        assert_eq!(passes(&[3300, 5], Precision::F32), [16500]);
        assert_eq!(passes(&[16, 1024], Precision::F32), [16384]);
        assert_eq!(passes(&[10, 1000], Precision::F32), [10000]);
        assert_eq!(passes(&[4, 1000], Precision::F32), [4000]);
    }
}
