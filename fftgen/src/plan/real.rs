//! Real-input transforms (`r2c`): R2C forward, C2R inverse, in 1D, 2D and
//! 3D (numpy's `rfftn`: the last axis real, the others complex over the
//! half spectrum). The math is that of seeds 000 and 001 on real data
//! (docs/design/real_transforms.md):
//!
//! - **Half length** (even N = 2M): the N reals read as M complex values,
//!   one complex FFT of M, and the split into the half spectrum
//!   (X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2,
//!   w = e^(-2 pi i / N)) fused into that pass's stores; C2R fuses the
//!   matching merge into its loads.
//! - **Full length** (odd N, or reals that do not pair up in memory): a
//!   complex FFT of N whose loads give the reals a zero imaginary part and
//!   whose stores keep the half spectrum (R2C), or whose loads rebuild the
//!   Hermitian spectrum and whose stores keep the real parts (C2R).
//!
//! Either way the real axis's pass is one kernel: the rows go through
//! shared memory at both ends ([`GlobalIo::StagedThroughShared`] over any
//! layout), so each thread pairs or mirrors points another thread computed.

use super::access::{Access, Column};
use super::choices::ShapeChoices;
use super::planner::{fits_one_kernel, max_size, plan_pass};
use super::wisdom::Wisdom;
use super::{ExchangeBuffers, ExchangeWidth, GlobalIo, Pass, Plan, Twiddles};
use crate::{Buffer, Direction, Error, FftSpec, Layout, Placement, Target, TransformKind};
use serde::Serialize;

/// How a real axis is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum RealRoute {
    /// A complex FFT of N / 2 over the reals read in pairs, split (R2C) or
    /// merged (C2R) with the twiddles `w_N^k` at the ends of the pass.
    HalfLength,
    /// A complex FFT of N with zero imaginary parts in (R2C), or the
    /// Hermitian spectrum rebuilt in and real parts out (C2R).
    FullLength,
}

/// Which ends of a pass meet the real side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum RealEnd {
    /// A pass that computes the whole axis: both ends, staged through
    /// shared memory.
    Both,
    /// The first pass of a long axis (full length): its loads read the
    /// reals (R2C) or rebuild the Hermitian spectrum from the half (C2R).
    Loads(AxisIndex),
    /// The last pass of a long axis (full length): its stores keep the
    /// half spectrum (R2C) or the real parts (C2R).
    Stores(AxisIndex),
}

/// Where point `p` of a pass's FFT lies on the real axis: the coordinate
/// of column `column` plus `points * p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct AxisIndex {
    pub column: usize,
    pub points: usize,
}

/// The fusion of a pass along the real axis: how its loads and stores meet
/// the reals and the half spectrum. Forward kernels of the pass are R2C,
/// inverse kernels C2R.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct RealStep {
    pub route: RealRoute,
    /// Which ends of the pass the step is fused into.
    pub end: RealEnd,
    /// Points of the real axis (N).
    pub real_n: usize,
    /// Where the table of `w_N^k`, k = 0..=N/2, starts in the pass's
    /// twiddle table ([`RealRoute::HalfLength`] only).
    pub twiddle_offset: Option<usize>,
}

impl RealStep {
    /// Values of the half spectrum per row: N / 2 + 1.
    pub fn half_len(&self) -> usize {
        self.real_n / 2 + 1
    }

    /// Elements per row on the real side as the kernel addresses them:
    /// pairs of reals (half length) or reals.
    pub fn real_side_len(&self) -> usize {
        match self.route {
            RealRoute::HalfLength => self.real_n / 2,
            RealRoute::FullLength => self.real_n,
        }
    }
}

/// Complex values of registers a real step needs beyond its FFT's.
const REAL_STEP_VALUES: usize = 4;

/// Why the reals of `layout` cannot be read as complex pairs, if they cannot:
/// neighbours along the real axis must be adjacent, and every other stride
/// and the distance even (so each pair starts on a complex element).
fn unpaired(layout: &Layout) -> bool {
    let last = layout.strides.len() - 1;
    layout.strides[last] != 1
        || layout.strides[..last].iter().any(|s| s % 2 != 0)
        || layout.distance % 2 != 0
}

/// The layout of the reals of `layout` read as complex pairs.
fn paired(layout: &Layout) -> Layout {
    let last = layout.strides.len() - 1;
    Layout {
        strides: layout
            .strides
            .iter()
            .enumerate()
            .map(|(a, &s)| if a == last { 1 } else { s / 2 })
            .collect(),
        distance: layout.distance / 2,
    }
}

/// The route for a real axis of `n` points whose reals lie as `layout`
/// says, if one kernel computes it.
pub fn route(n: usize, spec: &FftSpec, layout: &Layout) -> Option<RealRoute> {
    let target = spec.planned_target();
    if n % 2 == 0 && n >= 4 && n / 2 <= max_size(spec.precision) && !unpaired(layout) {
        return Some(RealRoute::HalfLength);
    }
    (n <= max_size(spec.precision) && fits_one_kernel(n, spec.precision, target))
        .then_some(RealRoute::FullLength)
}

/// Checks what only a real transform asks of its layouts: in place, the
/// half spectrum must overlay the reals (each complex value on the two
/// reals it came from, the last axis's reals adjacent).
pub fn validate(spec: &FftSpec) -> Result<(), Error> {
    let bad = |side: &'static str, reason: String| Error::BadLayout {
        side,
        shape: spec.shape.clone(),
        reason,
    };
    let complex = spec.complex_shape();
    if let Some(layout) = &spec.output_layout {
        layout.check(&complex).map_err(|reason| {
            bad(
                "output",
                format!("{reason} (the half spectrum {complex:?})"),
            )
        })?;
    }
    if spec.placement == Placement::InPlace {
        let real = spec.planned_input_layout();
        let half = spec.planned_output_layout();
        let last = real.strides.len() - 1;
        let overlays = real.strides[last] == 1
            && half.strides[last] == 1
            && (0..last).all(|a| real.strides[a] == 2 * half.strides[a])
            && real.distance == 2 * half.distance;
        if !overlays {
            return Err(bad(
                "input",
                format!(
                    "an in-place real transform writes each row's half spectrum over its reals: \
                     the reals need stride 1 along the last axis and rows of at least \
                     2 (n / 2 + 1) = {} reals, every other stride and the distance twice the \
                     half spectrum's (real {:?}/{}, complex {:?}/{}); leave the layouts out for \
                     cuFFT's padded rows, or plan it out of place",
                    2 * complex[last],
                    real.strides,
                    real.distance,
                    half.strides,
                    half.distance
                ),
            ));
        }
        half.check(&complex).map_err(|reason| {
            bad(
                "output",
                format!("{reason} (the half spectrum {complex:?})"),
            )
        })?;
    }
    Ok(())
}

/// Plans the `r2c` transform `spec` (validated) for `target`.
pub fn plan(spec: &FftSpec, target: &Target, wisdom: &Wisdom) -> Result<Plan, Error> {
    let shape = &spec.shape;
    let last = shape.len() - 1;
    let n = shape[last];
    let real_layout = spec.planned_input_layout();
    let half_layout = spec.planned_output_layout();
    let complex_shape = spec.complex_shape();
    let Some(route) = route(n, spec, &real_layout) else {
        if shape.len() == 1 {
            return long_axis(spec, target);
        }
        return Err(Error::RealAxisTooLong {
            n,
            precision: spec.precision,
            max: 2 * max_size(spec.precision),
        });
    };
    let fft_n = match route {
        RealRoute::HalfLength => n / 2,
        RealRoute::FullLength => n,
    };
    // The reals as the kernel addresses them.
    let real_side = match route {
        RealRoute::HalfLength => paired(&real_layout),
        RealRoute::FullLength => real_layout.clone(),
    };
    let in_place = spec.placement == Placement::InPlace;
    let one_dimensional = shape.len() == 1;

    // The complex axes over the half spectrum: in place in the output
    // (forward), and for the C2R read from the input into the scratch
    // buffer out of place, so that the input is never overwritten.
    let complex_axes = |reads_input: bool| -> Result<(Vec<Pass>, usize), Error> {
        if one_dimensional {
            return Ok((Vec::new(), 0));
        }
        let scratch = Layout::contiguous(&complex_shape);
        let (input, output, placement) = match (reads_input, in_place) {
            (true, false) => (half_layout.clone(), scratch, Placement::OutOfPlace),
            _ => (half_layout.clone(), half_layout.clone(), Placement::InPlace),
        };
        let sub = FftSpec {
            shape: complex_shape.clone(),
            kind: TransformKind::C2c,
            input_layout: Some(input),
            output_layout: Some(output),
            placement,
            choices: ShapeChoices::default(),
            target: Some(target.clone()),
            ..spec.clone()
        };
        let axes: Vec<usize> = (0..last).collect();
        let plan =
            super::multipass::plan_axes(&sub, target, &ShapeChoices::default(), &axes, false)?;
        if plan.scratch_elements > 0 {
            return Err(Error::RealAxesNeedScratch {
                shape: shape.clone(),
            });
        }
        // Out of place the C2R's complex passes write the scratch buffer
        // (the output holds reals); forward they work in the output.
        let rename = |buffer: Buffer| match (reads_input, in_place, buffer) {
            (false, _, Buffer::Input) => Buffer::Output,
            (true, false, Buffer::Output) => Buffer::Scratch,
            (_, _, other) => other,
        };
        let passes = plan
            .passes
            .into_iter()
            .map(|mut pass| {
                pass.access.reads = rename(pass.access.reads);
                pass.access.writes = rename(pass.access.writes);
                pass.normalizes = false;
                pass
            })
            .collect();
        let scratch = match (reads_input, in_place) {
            (true, false) => complex_shape.iter().product(),
            _ => 0,
        };
        Ok((passes, scratch))
    };

    // The real axis's pass in each direction: R2C reads the input, C2R
    // writes the output (reading the scratch where complex passes ran
    // first out of place).
    let c2r_reads = match (one_dimensional, in_place) {
        (false, false) => (Buffer::Scratch, Layout::contiguous(&complex_shape)),
        _ => (Buffer::Input, half_layout.clone()),
    };
    let real_pass = |direction: Direction| -> Result<Pass, Error> {
        let access = match direction {
            Direction::Forward => row_access(
                shape,
                (Buffer::Input, &real_side),
                (Buffer::Output, &half_layout),
            ),
            Direction::Inverse => row_access(
                shape,
                (c2r_reads.0, &c2r_reads.1),
                (Buffer::Output, &real_side),
            ),
        };
        fused_pass(spec, target, wisdom, route, n, access, direction)
    };
    let (forward_axes, _) = complex_axes(false)?;
    let (inverse_axes, scratch) = complex_axes(true)?;
    // A row whose spectrum does not fit a block's shared memory (f64 8192
    // without opt-in memory) takes the two-pass route in 1D.
    let first = match real_pass(Direction::Forward) {
        Err(Error::RealAxisTooLong { .. }) if one_dimensional => return long_axis(spec, target),
        other => other?,
    };
    let mut passes = vec![first];
    passes.extend(forward_axes);
    let mut inverse_passes = inverse_axes;
    inverse_passes.push(real_pass(Direction::Inverse)?);
    for list in [&mut passes, &mut inverse_passes] {
        let count = list.len();
        for (i, pass) in list.iter_mut().enumerate() {
            pass.normalizes = i + 1 == count;
        }
    }
    let mut axis_factors: Vec<Vec<usize>> = complex_shape.iter().map(|&a| vec![a]).collect();
    axis_factors[last] = vec![fft_n];
    Ok(Plan {
        n: spec.points(),
        shape: shape.clone(),
        kind: TransformKind::R2c,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: spec.normalization,
        placement: spec.placement,
        input_layout: real_layout,
        output_layout: half_layout,
        scratch_elements: scratch,
        axis_factors,
        column_io: super::ColumnIo::Tile,
        passes,
        inverse_passes,
    })
}

/// The access of the rows of the real axis: one FFT per row, the other
/// axes as columns, from `(buffer, layout)` to `(buffer, layout)`.
fn row_access(shape: &[usize], from: (Buffer, &Layout), to: (Buffer, &Layout)) -> Access {
    let last = shape.len() - 1;
    let mut columns: Vec<Column> = (0..last)
        .rev()
        .map(|axis| Column {
            count: shape[axis],
            input_stride: from.1.strides[axis],
            output_stride: to.1.strides[axis],
        })
        .collect();
    columns.sort_by_key(|c| c.input_stride);
    Access {
        reads: from.0,
        writes: to.0,
        input_stride: from.1.strides[last],
        output_stride: to.1.strides[last],
        columns,
        input_distance: from.1.distance,
        output_distance: to.1.distance,
    }
}

/// The one-kernel pass of the real axis in `direction`: the complex FFT of
/// N / 2 (half length) or N points planned as for a batch of them (the
/// user's one-kernel choices, else the first measured shape that plans,
/// else the heuristic), with the end at the half spectrum staged through
/// shared memory to pair or mirror points, and the split's
/// twiddles after the stages'.
fn fused_pass(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    route: RealRoute,
    real_n: usize,
    access: Access,
    direction: Direction,
) -> Result<Pass, Error> {
    let fft_n = match route {
        RealRoute::HalfLength => real_n / 2,
        RealRoute::FullLength => real_n,
    };
    let precision = spec.precision;
    let dense = Access::dense(fft_n, Buffer::Input, Buffer::Output);
    let user = spec.choices.one_kernel_only();
    let planned = match user.is_empty() {
        false => plan_pass(fft_n, precision, &user, target, &dense)?,
        true => wisdom
            .candidates(&[fft_n], precision, target)
            .filter_map(|entry| plan_pass(fft_n, precision, &entry.choices, target, &dense).ok())
            .find(|pass| pass.threads_per_block <= target.launchable_threads_per_block)
            .map_or_else(
                || plan_pass(fft_n, precision, &ShapeChoices::default(), target, &dense),
                Ok,
            )?,
    };
    let mut pass = planned;
    // The end that meets the half spectrum is staged (both parts in reused
    // arrays, the row of M + 1 values for the C2R's merge in each FFT's
    // region). The other end of a half-length FFT is a complex row like a
    // C2C's: where a warp's lanes share one FFT it stays direct, as the C2C
    // plan has it; other lanes stage it too, for unit-stride runs.
    let direct_other_end =
        route == RealRoute::HalfLength && pass.lanes == super::LaneLayout::FftMajor;
    let other_end = match direct_other_end {
        true => GlobalIo::Direct,
        false => GlobalIo::StagedThroughShared,
    };
    (pass.io, pass.output_io) = match direction {
        Direction::Forward => (other_end, GlobalIo::StagedThroughShared),
        Direction::Inverse => (GlobalIo::StagedThroughShared, other_end),
    };
    pass.exchange_width = ExchangeWidth::BothParts;
    pass.exchange_buffers = ExchangeBuffers::Reused;
    let row = match route {
        RealRoute::HalfLength => fft_n + 1,
        RealRoute::FullLength => fft_n,
    };
    pass.fft_stride = pass.fft_stride.max(row);
    let bytes_per_fft = pass.fft_stride * 2 * precision.real_bytes();
    let static_limit = target.plannable_shared_bytes();
    let opt_in = target
        .max_opt_in_shared_bytes
        .saturating_sub(target.compiler_shared_bytes);
    let (limit, dynamic) = match bytes_per_fft <= static_limit {
        true => (static_limit, false),
        false => (opt_in.max(static_limit), true),
    };
    if bytes_per_fft > limit {
        return Err(Error::RealAxisTooLong {
            n: real_n,
            precision,
            max: 2 * max_size(precision),
        });
    }
    pass.ffts_per_block = pass.ffts_per_block.min(limit / bytes_per_fft).max(1);
    pass.threads_per_block = pass.ffts_per_block * pass.threads_per_fft;
    pass.shared_bytes = pass.ffts_per_block * bytes_per_fft;
    pass.dynamic_shared = pass.dynamic_shared || dynamic;
    // The split or merge holds a pair of values, their twiddle and the
    // parts of the result on top of the FFT's registers: the launch bound
    // leaves room for four more complex values, so nothing spills.
    if user.min_blocks_per_sm.is_none() && pass.lanes == super::LaneLayout::FftMajor {
        let roomy = super::planner::min_blocks_per_sm(
            pass.threads_per_block,
            pass.shared_bytes,
            pass.values_per_thread + REAL_STEP_VALUES,
            precision,
            target,
        );
        pass.min_blocks_per_sm = pass.min_blocks_per_sm.min(roomy);
    }
    pass.access = access;
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    let twiddle_offset = match route {
        RealRoute::HalfLength => {
            pass.twiddles = Twiddles::RoundedF64Table {
                len: len + real_n / 2 + 1,
            };
            Some(len)
        }
        RealRoute::FullLength => None,
    };
    pass.real = Some(RealStep {
        route,
        end: RealEnd::Both,
        real_n,
        twiddle_offset,
    });
    Ok(pass)
}

/// Plans a 1D real transform whose axis is longer than one kernel holds:
/// the full-length route over the passes of the four-step FFT (seed 001),
/// the reals entering at the first pass's loads and the half spectrum (or
/// the real parts) leaving at the last pass's stores. Between them the
/// complex values go through the scratch buffer (the input and output hold
/// fewer bytes), so an axis takes two passes at most.
fn long_axis(spec: &FftSpec, target: &Target) -> Result<Plan, Error> {
    let n = spec.n();
    let real_layout = spec.planned_input_layout();
    let half_layout = spec.planned_output_layout();
    let direction_passes = |input: &Layout, output: &Layout| -> Result<Plan, Error> {
        let sub = FftSpec {
            kind: TransformKind::C2c,
            input_layout: Some(input.clone()),
            output_layout: Some(output.clone()),
            placement: Placement::OutOfPlace,
            target: Some(target.clone()),
            ..spec.clone()
        };
        let mut choices = spec.choices.several_passes_only();
        // The reals enter one pass and the half spectrum leaves another: a
        // row that one kernel cannot hold (f64 past static shared memory)
        // still takes two, as even as the axis allows.
        if choices.split.is_none() && n <= max_size(spec.precision) {
            let columns = super::multipass::column_limit(spec.precision, target);
            let root = (1..=n).find(|&f| f * f >= n).unwrap_or(n);
            let split = (root..columns.min(n - 1).max(root) + 1)
                .find_map(|limit| {
                    super::split::four_step(n, limit, 2).filter(|split| split.len() == 2)
                })
                .ok_or(Error::RealAxisTooLong {
                    n,
                    precision: spec.precision,
                    max: max_size(spec.precision),
                })?;
            choices.split = Some(split);
        }
        let mut plan = super::multipass::plan_axes(&sub, target, &choices, &[0], true)?;
        let count = plan.passes.len();
        let factors = plan.axis_factors[0].clone();
        for (i, pass) in plan.passes.iter_mut().enumerate() {
            let end = if i == 0 {
                // Step 0 reads point p of column r' at r' + (N / f0) p.
                let column = pass.step_twiddle.map_or(0, |t| t.column);
                RealEnd::Loads(AxisIndex {
                    column,
                    points: n / factors[0],
                })
            } else if i + 1 == count {
                // The last step writes point p of column K at K + (N / f_last) p.
                let done = n / factors[count - 1];
                let column = pass
                    .access
                    .columns
                    .iter()
                    .position(|c| c.count == done)
                    .unwrap_or(0);
                RealEnd::Stores(AxisIndex {
                    column,
                    points: done,
                })
            } else {
                continue;
            };
            pass.real = Some(RealStep {
                route: RealRoute::FullLength,
                end,
                real_n: n,
                twiddle_offset: None,
            });
        }
        Ok(plan)
    };
    let forward = direction_passes(&real_layout, &half_layout)?;
    let inverse = direction_passes(&half_layout, &real_layout)?;
    Ok(Plan {
        kind: TransformKind::R2c,
        placement: spec.placement,
        input_layout: real_layout,
        output_layout: half_layout,
        inverse_passes: inverse.passes,
        ..forward
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Normalization, Precision};

    fn r2c(shape: &[usize]) -> FftSpec {
        FftSpec::with_shape(shape).kind(TransformKind::R2c)
    }

    #[test]
    fn routes_follow_the_size_and_the_layout() {
        let plan = crate::plan::plan(&r2c(&[4096])).unwrap();
        let step = plan.passes[0].real.unwrap();
        assert_eq!(
            (step.route, step.end, plan.passes[0].n),
            (RealRoute::HalfLength, RealEnd::Both, 2048)
        );
        assert_eq!(plan.inverse_passes.len(), 1);
        assert_eq!(plan.output_layout, Layout::contiguous(&[2049]));
        // Odd sizes run the full length.
        let odd = crate::plan::plan(&r2c(&[375])).unwrap();
        assert_eq!(odd.passes[0].real.unwrap().route, RealRoute::FullLength);
        assert_eq!(odd.passes[0].n, 375);
        // Reals two apart do not pair into complex values: full length.
        let strided = r2c(&[64]).layouts(
            Layout {
                strides: vec![2],
                distance: 128,
            },
            Layout::contiguous(&[33]),
        );
        let plan = crate::plan::plan(&strided).unwrap();
        assert_eq!(plan.passes[0].real.unwrap().route, RealRoute::FullLength);
        // Past one kernel a 1D axis takes two full-length passes, the reals
        // at the first's loads and the half spectrum at the last's stores.
        let long = crate::plan::plan(&r2c(&[1 << 16])).unwrap();
        assert_eq!(long.passes.len(), 2);
        assert!(matches!(
            long.passes[0].real.unwrap().end,
            RealEnd::Loads(_)
        ));
        assert!(matches!(
            long.passes[1].real.unwrap().end,
            RealEnd::Stores(_)
        ));
        assert_eq!(long.scratch_elements, 1 << 16);
    }

    #[test]
    fn the_c2r_runs_the_complex_axes_first_and_never_writes_its_input() {
        let plan = crate::plan::plan(&r2c(&[64, 48, 40])).unwrap();
        assert!(plan.passes[0].real.is_some());
        assert!(plan.passes[1..].iter().all(|p| p.real.is_none()));
        let inverse = &plan.inverse_passes;
        assert!(inverse.last().unwrap().real.is_some());
        assert!(inverse.iter().all(|p| p.access.writes != Buffer::Input));
        assert_eq!(inverse[0].access.reads, Buffer::Input);
        assert_eq!(inverse[0].access.writes, Buffer::Scratch);
        assert_eq!(plan.scratch_elements, 64 * 48 * 21);
        // In place everything stays in the one buffer.
        let in_place =
            crate::plan::plan(&r2c(&[64, 48, 40]).placement(Placement::InPlace)).unwrap();
        assert_eq!(in_place.scratch_elements, 0);
        assert_eq!(in_place.input_layout.strides, vec![48 * 42, 42, 1]);
        assert_eq!(in_place.output_layout.strides, vec![48 * 21, 21, 1]);
    }

    #[test]
    fn layouts_that_cannot_hold_the_half_spectrum_are_refused() {
        // In place, rows of 64 reals leave no room for 33 complex values.
        let tight = r2c(&[8, 64])
            .placement(Placement::InPlace)
            .layouts(Layout::contiguous(&[8, 64]), Layout::contiguous(&[8, 33]));
        let err = crate::plan::plan(&tight).unwrap_err();
        assert!(matches!(err, Error::BadLayout { .. }), "{err}");
        assert!(err.to_string().contains("2 (n / 2 + 1)"), "{err}");
        let names =
            crate::generate(&r2c(&[64]).normalization(Normalization::Inverse), "test").unwrap();
        assert!(names.cuda_source.contains("fftgen_r2c_n32"));
        assert!(names.cuda_source.contains("fftgen_c2r_n32"));
        assert_eq!(
            names.manifest.input_side(crate::Direction::Inverse).shape,
            vec![33]
        );
        let f64_rows = crate::plan::plan(&r2c(&[8192]).precision(Precision::F64)).unwrap();
        assert!(!f64_rows.passes.is_empty());
    }
}
