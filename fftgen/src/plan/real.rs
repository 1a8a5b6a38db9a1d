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
use super::bluestein::needs_bluestein;
use super::choices::ShapeChoices;
use super::multipass::{fastest_split, SplitRanking};
use super::pass_planner::{
    fits_one_kernel, max_size, min_blocks_per_sm, opt_in_resident, plan_real_row_pass,
    resident_by_value_words,
};
use super::real_step::{AxisIndex, MirroredColumns, RealEnd, RealRoute, RealStep};
use super::wisdom::Wisdom;
use super::{ExchangeBuffers, ExchangeWidth, GlobalIo, Pass, Plan, Twiddles};
use crate::{
    Buffer, Direction, Error, FftSpec, Layout, Placement, Precision, Target, TransformKind,
};

/// Complex values of registers a real step needs beyond its FFT's.
const REAL_STEP_VALUES: usize = 4;

/// [`REAL_STEP_VALUES`] past max_size, where ptxas schedules the split's
/// walk over the staged row (and the merge's loads) with more in flight.
/// In f32 with room for 4 values, R2C 16000 (20 values over 400 threads)
/// spilled 44 bytes at two blocks' 72 registers, 18000 (30 over 300) 68
/// bytes at 96, C2R 18432 (24 over 384) 44 bytes at 80; in f64 4 hold
/// (12288: 12 values over 768 threads at 80; ptxas for sm_90).
fn opt_in_real_step_values(precision: Precision) -> usize {
    match precision {
        Precision::F32 => 10,
        Precision::F64 => REAL_STEP_VALUES,
    }
}

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
    // Past max_size the FFT (of N / 2, or of N for an odd N) is one kernel
    // where the target's opt-in shared memory holds it; [`fused_pass`] then
    // checks that the staged half spectrum fits as well.
    let fits = |m: usize| fits_one_kernel(m, spec.precision, target);
    if n % 2 == 0 && n >= 4 && !unpaired(layout) && fits(n / 2) {
        return Some(RealRoute::HalfLength);
    }
    fits(n).then_some(RealRoute::PairedRows)
}

/// Whether this planner computes the real axis of the real transform
/// `spec`: a smooth one, or an even one whose reals pair up (the complex
/// FFT of N / 2 by Bluestein's algorithm, its steps over half the points);
/// else [`super::bluestein`]'s steps take the reals themselves.
pub fn plans_real_axis(spec: &FftSpec) -> bool {
    let n = *spec.shape.last().expect("a shape has an axis");
    !needs_bluestein(n) || (n % 2 == 0 && !unpaired(&spec.planned_input_layout()))
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
///
/// Each direction is a sequence of segments over four places: the input,
/// the output and up to two regions of the workspace (see [`Slot`]). The
/// R2C runs the real axis (input to output) and then the complex axes in
/// the output; the C2R runs the complex axes (out of place from the input
/// into the workspace, so the input is never written) and then the real
/// axis into the output. The real axis is one fused kernel where one holds
/// it; else, for even N whose reals pair up, the complex FFT of N / 2 in
/// C2C passes with the split on the last one's stores and the merge on
/// the first one's loads ([`RealEnd::Mirrored`]) where its tile pairs the
/// columns, else in a pass of its own ([`RealEnd::Apart`]); else the
/// full-length complex FFT in two or three
/// passes with the reals at the first's loads and the half spectrum at the
/// last's stores.
pub fn plan(spec: &FftSpec, target: &Target, wisdom: &Wisdom) -> Result<Plan, Error> {
    let shape = &spec.shape;
    let real_layout = spec.planned_input_layout();
    let half_layout = spec.planned_output_layout();
    let in_place = spec.placement == Placement::InPlace;
    check_split(spec)?;
    let axis = RealAxis::choose(spec, target, wisdom, &real_layout, &half_layout)?;
    // A pass over the whole shape leaves no complex axis to the others.
    let whole_shape = matches!(axis, RealAxis::WholeShape { .. });

    // R2C: the real axis into the output, the complex axes in place there.
    let mut forward = axis.passes(
        spec,
        target,
        wisdom,
        Direction::Forward,
        (Slot::Input, &real_layout),
        (Slot::Output, &half_layout),
    )?;
    if !whole_shape {
        forward.extend(complex_axes(
            spec,
            target,
            wisdom,
            (Slot::Output, &half_layout),
            (Slot::Output, &half_layout),
        )?);
    }

    // C2R: the complex axes first (the real axis's merge needs each row's
    // whole half spectrum), in place, or out of place into the workspace.
    let (holds, holds_layout) = match (shape.len(), in_place || whole_shape) {
        (1, _) | (_, true) => (Slot::Input, half_layout.clone()),
        _ => (Slot::Region(0), Layout::contiguous(&spec.complex_shape())),
    };
    let mut inverse = match whole_shape {
        true => Vec::new(),
        false => complex_axes(
            spec,
            target,
            wisdom,
            (Slot::Input, &half_layout),
            (holds, &holds_layout),
        )?,
    };
    inverse.extend(axis.passes(
        spec,
        target,
        wisdom,
        Direction::Inverse,
        (holds, &holds_layout),
        (Slot::Output, &real_layout),
    )?);

    let workspace = Workspace::of(&forward, &inverse);
    let axis_factors = axis_factors(shape, &forward);
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
        scratch_elements: workspace.elements(),
        axis_factors,
        column_io: super::ColumnIo::Tile,
        passes: workspace.finish(forward),
        inverse_passes: workspace.finish(inverse),
        normalization_points: None,
    })
}

/// The lengths of the passes of each axis of `shape`, from the R2C's
/// passes `forward` (a fused real axis: its one FFT; an axis by Bluestein's
/// algorithm: its length, as [`super::bluestein`] says).
fn axis_factors(shape: &[usize], forward: &[Routed]) -> Vec<Vec<usize>> {
    (0..shape.len())
        .map(|a| {
            if needs_bluestein(shape[a]) {
                return vec![shape[a]];
            }
            // An axis computed with its neighbours in one pass.
            let fused =
                forward
                    .iter()
                    .any(|routed| match (&routed.axis, &routed.pass.fused_axes) {
                        (Some((inner, _)), Some(f)) => a <= *inner && a + f.lengths.len() > *inner,
                        _ => false,
                    });
            if fused {
                return vec![shape[a]];
            }
            forward
                .iter()
                .find_map(|routed| routed.axis.clone().filter(|(axis, _)| *axis == a))
                .map_or_else(|| vec![forward[0].pass.n], |(_, factors)| factors)
        })
        .collect()
}

/// Refuses a split by hand that names none of the complex FFTs of the real
/// transform (the real axis's of N or N / 2, or a complex axis's).
fn check_split(spec: &FftSpec) -> Result<(), Error> {
    let Some(split) = &spec.choices.split else {
        return Ok(());
    };
    let shape = &spec.shape;
    let last = shape.len() - 1;
    let n = shape[last];
    let product: usize = split.iter().product();
    let lengths = [n, n / 2].into_iter().chain(shape[..last].iter().copied());
    if !lengths.clone().any(|length| length == product) {
        return Err(Error::BadSplit {
            split: split.clone(),
            shape: shape.clone(),
            reason: format!(
                "no complex FFT of the real transform is {product} long (the real axis \
                 runs one of {n}, or of {} for even {n}, and the others their lengths)",
                n / 2
            ),
        });
    }
    Ok(())
}

/// The passes of the complex axes over the half spectrum, from `from` into
/// `to`, with the user's split where it names one of them; by
/// [`super::bluestein`] where one of them needs Bluestein's algorithm.
fn complex_axes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Result<Vec<Routed>, Error> {
    let shape = &spec.shape;
    let last = shape.len() - 1;
    if shape.len() == 1 {
        return Ok(Vec::new());
    }
    if shape[..last].iter().any(|&n| needs_bluestein(n)) {
        return bluestein_axes(spec, target, wisdom, from, to);
    }
    let axes: Vec<usize> = (0..last).collect();
    let choices = spec.choices.several_passes_only();
    let choices = match &choices.split {
        Some(split) if shape[..last].contains(&split.iter().product()) => choices,
        _ => ShapeChoices::default(),
    };
    segment(
        spec,
        target,
        &spec.complex_shape(),
        &axes,
        &choices,
        from,
        to,
        false,
    )
}

/// The complex axes of `spec`'s half spectrum, one of which needs
/// Bluestein's algorithm, from `from` into `to`: its padded rows lie in
/// the workspace past the region `from` or `to` holds (the C2R's half
/// spectrum out of place, a dense complex shape), at the offsets the
/// passes hold ([`Slot::Workspace`]).
fn bluestein_axes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Result<Vec<Routed>, Error> {
    bluestein_routed(from, to, |from, to, base| {
        super::bluestein::complex_axes_of_half_spectrum(spec, target, wisdom, from, to, base)
    })
}

/// The passes `plan(from, to, base)` of Bluestein's algorithm gives from
/// `from` into `to`, its padded rows in the workspace from `base` on, past
/// the region `from` or `to` holds.
fn bluestein_routed(
    from: (Slot, &Layout),
    to: (Slot, &Layout),
    plan: impl Fn((Buffer, &Layout), (Buffer, &Layout), usize) -> Result<(Vec<Pass>, usize), Error>,
) -> Result<Vec<Routed>, Error> {
    let holds_region = |slot: (Slot, &Layout)| match slot.0 {
        Slot::Region(r) => {
            assert_eq!(r, 0, "the half spectrum is held in the first region");
            slot.1.distance
        }
        Slot::Input | Slot::Output | Slot::Workspace => 0,
    };
    let base = holds_region(from).max(holds_region(to));
    let buffer = |slot: Slot| match slot {
        Slot::Input => Buffer::Input,
        Slot::Output => Buffer::Output,
        Slot::Region(_) | Slot::Workspace => Buffer::Scratch,
    };
    let (passes, end) = plan((buffer(from.0), from.1), (buffer(to.0), to.1), base)?;
    let slot = |buffer: Buffer| match buffer {
        Buffer::Input => Slot::Input,
        Buffer::Output => Slot::Output,
        Buffer::Scratch => Slot::Workspace,
    };
    Ok(passes
        .into_iter()
        .map(|pass| Routed {
            reads: slot(pass.access.reads),
            writes: slot(pass.access.writes),
            region_elements: None,
            workspace_end: Some(end),
            axis: None,
            pass,
        })
        .collect())
}

/// The workspace of a real plan: one or two regions, each as long as the
/// longest intermediate, interleaved per transform of the batch, and past
/// the first the padded rows of Bluestein's algorithm where a complex axis
/// needs it.
struct Workspace {
    region_elements: usize,
    regions: usize,
    /// Elements per transform that Bluestein's passes span.
    bluestein_end: usize,
}

impl Workspace {
    /// The workspace the passes of both directions use.
    fn of(forward: &[Routed], inverse: &[Routed]) -> Workspace {
        let region_elements = forward
            .iter()
            .chain(inverse)
            .filter_map(|routed| routed.region_elements)
            .max()
            .unwrap_or(0);
        let regions = forward
            .iter()
            .chain(inverse)
            .flat_map(|routed| [routed.reads, routed.writes])
            .filter_map(|slot| match slot {
                Slot::Region(r) => Some(r + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let bluestein_end = forward
            .iter()
            .chain(inverse)
            .filter_map(|routed| routed.workspace_end)
            .max()
            .unwrap_or(0);
        Workspace {
            region_elements,
            regions,
            bluestein_end,
        }
    }

    /// Elements of the workspace per transform of the batch.
    fn elements(&self) -> usize {
        (self.regions * self.region_elements).max(self.bluestein_end)
    }

    /// The passes of one direction with their slots laid out in the
    /// buffers (a region: the scratch buffer at its offset, one transform's
    /// regions apart); the last normalizes.
    fn finish(&self, routed: Vec<Routed>) -> Vec<Pass> {
        let region_elements = self.region_elements;
        let distance = self.elements();
        let count = routed.len();
        routed
            .into_iter()
            .enumerate()
            .map(|(i, routed)| {
                let mut pass = routed.pass;
                let access = &mut pass.access;
                if let Some(at) = routed.reads.buffer(region_elements) {
                    (access.reads, access.input_offset) = at;
                }
                if let Some(at) = routed.writes.buffer(region_elements) {
                    (access.writes, access.output_offset) = at;
                }
                if routed.reads.in_workspace() {
                    access.input_distance = distance;
                }
                if routed.writes.in_workspace() {
                    access.output_distance = distance;
                }
                pass.normalizes = i + 1 == count;
                pass
            })
            .collect()
    }
}

/// Where a pass of a real plan reads or writes before the workspace is laid
/// out: the workspace holds one or two regions (a full-length C2R out of
/// place needs the half spectrum in one while its first pass writes the
/// other), each `region_elements` long, interleaved per transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Input,
    Output,
    Region(usize),
    /// The workspace at the offset the pass holds (Bluestein's padded rows).
    Workspace,
}

impl Slot {
    /// The buffer and the offset of this slot, where the slot says them.
    fn buffer(self, region_elements: usize) -> Option<(Buffer, usize)> {
        match self {
            Slot::Input => Some((Buffer::Input, 0)),
            Slot::Output => Some((Buffer::Output, 0)),
            Slot::Region(r) => Some((Buffer::Scratch, r * region_elements)),
            Slot::Workspace => None,
        }
    }

    /// Whether this slot lies in the workspace.
    fn in_workspace(self) -> bool {
        matches!(self, Slot::Region(_) | Slot::Workspace)
    }
}

/// A pass with the slots it reads and writes.
struct Routed {
    pass: Pass,
    reads: Slot,
    writes: Slot,
    /// Elements of a workspace region this pass's accesses there span.
    region_elements: Option<usize>,
    /// Where the workspace this pass spans at its own offsets ends
    /// ([`Slot::Workspace`]), per transform.
    workspace_end: Option<usize>,
    /// For a pass of a complex axis, that axis and its split.
    axis: Option<(usize, Vec<usize>)>,
}

/// The C2C passes of `axes` of `shape` from `(slot, layout)` to `(slot,
/// layout)` (one place is in place), the workspace where they need one.
/// With `full_length_real`, results between passes go to the workspace
/// alone, alternating regions from the one `from` does not use: the input
/// and output of a long full-length real axis hold fewer bytes than its
/// complex FFT.
#[allow(clippy::too_many_arguments)]
fn segment(
    spec: &FftSpec,
    target: &Target,
    shape: &[usize],
    axes: &[usize],
    choices: &ShapeChoices,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
    full_length_real: bool,
) -> Result<Vec<Routed>, Error> {
    // In place the input is the output: a pass between them is in place.
    let user_buffer = |slot: Slot| matches!(slot, Slot::Input | Slot::Output);
    let placement = match from.0 == to.0
        || (spec.placement == Placement::InPlace && user_buffer(from.0) && user_buffer(to.0))
    {
        true => Placement::InPlace,
        false => Placement::OutOfPlace,
    };
    let sub = FftSpec {
        shape: shape.to_vec(),
        kind: TransformKind::C2c,
        input_layout: Some(from.1.clone()),
        output_layout: Some(to.1.clone()),
        placement,
        choices: ShapeChoices::default(),
        target: Some(target.clone()),
        ..spec.clone()
    };
    let plan = super::multipass::plan_axes(&sub, target, choices, axes, full_length_real, None)?;
    // The first region neither end of the segment holds.
    let first_free = (0..)
        .find(|&r| from.0 != Slot::Region(r) && to.0 != Slot::Region(r))
        .unwrap_or(0);
    let points: usize = shape.iter().product();
    let owners = pass_axes(&plan, axes);
    let routed = plan
        .passes
        .into_iter()
        .enumerate()
        .map(|(i, pass)| {
            // Scratch writes alternate between regions where the passes
            // may not use the output; else the free region holds them.
            let region = |i: usize| match full_length_real {
                true => Slot::Region((first_free + i) % 2),
                false => Slot::Region(first_free),
            };
            let slot = |buffer: Buffer, written_by: usize| match buffer {
                Buffer::Input => from.0,
                Buffer::Output => to.0,
                Buffer::Scratch => region(written_by),
            };
            let reads = slot(pass.access.reads, i.saturating_sub(1));
            let writes = slot(pass.access.writes, i);
            let in_region = matches!(reads, Slot::Region(_)) || matches!(writes, Slot::Region(_));
            let axis = owners.get(i).cloned().flatten();
            Routed {
                pass,
                reads,
                writes,
                region_elements: in_region.then_some(points),
                workspace_end: None,
                axis,
            }
        })
        .collect();
    Ok(routed)
}

/// The axis each pass of `plan` (over `axes`, the last axis's passes
/// first) computes and that axis's split; a pass of several axes at once
/// counts as its innermost axis's, of one step.
fn pass_axes(plan: &Plan, axes: &[usize]) -> Vec<Option<(usize, Vec<usize>)>> {
    let mut owners = Vec::with_capacity(plan.passes.len());
    let mut remaining = axes.iter().rev().copied();
    while owners.len() < plan.passes.len() {
        let Some(axis) = remaining.next() else { break };
        match &plan.passes[owners.len()].fused_axes {
            Some(fused) => {
                remaining.nth(fused.lengths.len() - 2);
                owners.push(Some((axis, vec![plan.shape[axis]])));
            }
            None => {
                let factors = &plan.axis_factors[axis];
                owners.extend(factors.iter().map(|_| Some((axis, factors.clone()))));
            }
        }
    }
    owners
}

/// How the real axis of a plan is computed.
enum RealAxis {
    /// With every other axis, in one pass per direction
    /// ([`super::real_shape`]).
    WholeShape { forward: Pass, inverse: Pass },
    /// One kernel per direction, the real step fused into both ends.
    Fused { forward: Pass, inverse: Pass },
    /// Even N: C2C passes of N / 2 over the reals read as pairs, the split
    /// (R2C, after them) or merge (C2R, before them) fused into the last or
    /// first of them ([`RealEnd::Mirrored`]), or in a pass of its own.
    /// `split`: the split of the FFT of N / 2 into passes the model ranked
    /// fastest, where the planner chose it.
    Apart { split: Option<Vec<usize>> },
    /// The full-length complex FFT over two or three passes.
    FullLength { split: Vec<usize> },
}

impl RealAxis {
    /// The route for the real axis of `spec`.
    fn choose(
        spec: &FftSpec,
        target: &Target,
        wisdom: &Wisdom,
        real_layout: &Layout,
        half_layout: &Layout,
    ) -> Result<RealAxis, Error> {
        let whole_shape =
            |direction| super::real_shape::pass(spec, target, real_layout, half_layout, direction);
        if let (Some(forward), Some(inverse)) = (
            whole_shape(Direction::Forward),
            whole_shape(Direction::Inverse),
        ) {
            return Ok(RealAxis::WholeShape { forward, inverse });
        }
        let n = spec.n();
        // An even axis whose N / 2 needs Bluestein's algorithm (the spec's
        // choices were refused with it).
        if needs_bluestein(n) {
            return Ok(RealAxis::Apart { split: None });
        }
        // A split by hand of the axis's complex FFT into passes asks for
        // passes, where one kernel would do.
        let passes_asked = spec.choices.split.as_ref().filter(|split| {
            split.len() > 1 && [n, n / 2].contains(&split.iter().product::<usize>())
        });
        if let (Some(route), None) = (route(n, spec, real_layout), passes_asked) {
            let fused = |direction| fused_pass(spec, target, wisdom, route, n, direction);
            if let (Some(forward), Some(inverse)) =
                (fused(Direction::Forward)?, fused(Direction::Inverse)?)
            {
                return Ok(RealAxis::Fused { forward, inverse });
            }
        }
        let one_kernel = spec.choices.one_kernel_only();
        if !one_kernel.is_empty() {
            return Err(Error::ChoiceNeedsOneKernel {
                choice: one_kernel.to_string(),
                shape: spec.shape.clone(),
                passes: 2,
            });
        }
        if n % 2 == 0 && n >= 4 && !unpaired(real_layout) {
            let complex_axis = |length: usize| spec.shape[..spec.shape.len() - 1].contains(&length);
            if let Some(split) = passes_asked.filter(|s| {
                let product = s.iter().product::<usize>();
                product == n && !complex_axis(product)
            }) {
                return Err(Error::BadSplit {
                    split: split.clone(),
                    shape: spec.shape.clone(),
                    reason: format!(
                        "a real axis of even {n} points whose reals pair up runs a complex FFT \
                         of {}: split that",
                        n / 2
                    ),
                });
            }
            let split = match passes_asked {
                Some(_) => None,
                None => fastest_half_split(spec, target, wisdom, (real_layout, half_layout)),
            };
            return Ok(RealAxis::Apart { split });
        }
        let split = match &spec.choices.split {
            // The reals enter one pass and the half spectrum leaves another.
            Some(split) if split.iter().product::<usize>() == n && split.len() < 2 => {
                return Err(Error::BadSplit {
                    split: split.clone(),
                    shape: spec.shape.clone(),
                    reason: format!(
                        "a real axis of {n} points that one kernel does not hold runs its \
                         complex FFT of {n} in two or three passes"
                    ),
                })
            }
            Some(split) if split.iter().product::<usize>() == n => split.clone(),
            Some(split)
                if passes_asked.is_some()
                    && !spec.shape[..spec.shape.len() - 1].contains(&(n / 2)) =>
            {
                return Err(Error::BadSplit {
                    split: split.clone(),
                    shape: spec.shape.clone(),
                    reason: format!(
                        "the reals of this layout do not pair up within a row, so the real \
                         axis runs a complex FFT of {n}: split that"
                    ),
                })
            }
            _ => {
                let columns = super::multipass::column_limit(spec.precision, target);
                // The reals enter one pass and the half spectrum leaves
                // another: a row one kernel cannot hold takes two at least.
                let longest = columns.min(n - 1).max(2);
                match super::split::four_step(n, longest, 3) {
                    Some(split) if split.len() >= 2 => {
                        let layouts = (real_layout, half_layout);
                        fastest_full_length_split(spec, target, wisdom, split, longest, layouts)
                    }
                    _ => four_step(n, (n - 1).max(2), 3, spec.precision)?,
                }
            }
        };
        Ok(RealAxis::FullLength { split })
    }

    /// The passes of the real axis in `direction`, from `(slot, layout)`
    /// (the reals forward, the half spectrum inverse) to `(slot, layout)`.
    fn passes(
        &self,
        spec: &FftSpec,
        target: &Target,
        wisdom: &Wisdom,
        direction: Direction,
        from: (Slot, &Layout),
        to: (Slot, &Layout),
    ) -> Result<Vec<Routed>, Error> {
        match self {
            RealAxis::WholeShape { forward, inverse } => {
                let pass = match direction {
                    Direction::Forward => forward.clone(),
                    Direction::Inverse => inverse.clone(),
                };
                let last = spec.shape.len() - 1;
                Ok(vec![Routed {
                    pass,
                    reads: from.0,
                    writes: to.0,
                    region_elements: None,
                    workspace_end: None,
                    axis: Some((last, vec![spec.shape[last]])),
                }])
            }
            RealAxis::Fused { forward, inverse } => Ok(vec![fused_routed(
                spec, forward, inverse, direction, from, to,
            )]),
            RealAxis::Apart { split } => {
                apart_passes(spec, target, wisdom, split.as_ref(), direction, from, to)
            }
            RealAxis::FullLength { split } => {
                full_length_passes(spec, target, split, direction, from, to)
            }
        }
    }
}

/// Of the splits of the real axis's full-length FFT into as many passes as
/// `even` (the most even, passes of at most `longest` points), the one the
/// fitted model predicts fastest over both directions, as [`fastest_split`]
/// ranks them. On the H200 (cuFFT/ours R2C / C2R, most even -> ranked): f64
/// 4322241 0.85 / 0.74 -> 1.01 / 0.88x (2079 x 2079 -> 2541 x 1701),
/// 62015625 0.73 / 0.62 -> 0.73 / 0.69x; f32 196875 1.29 / 1.23 -> 1.32 /
/// 1.28x, 255879 1.23 / 1.14 -> 1.30 / 1.26x
/// (docs/bench/h200_ab_modelled_splits_f64_rows.log). Fitted to f32
/// one-kernel schedules, the model also ranked the f64 C2C splits of
/// 2737800 in the order they ran (1352 x 2025 2.30 ms, 1690 x 1620 2.71,
/// 1560 x 1755 3.04, docs/bench/h200_variants_2069_misses.log).
fn fastest_full_length_split(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    even: Vec<usize>,
    longest: usize,
    (real_layout, half_layout): (&Layout, &Layout),
) -> Vec<usize> {
    let ranking = SplitRanking::of(Some(wisdom), target, spec.precision);
    if let SplitRanking::None = ranking {
        return even;
    }
    let time = |split: &[usize]| {
        both_directions_time(
            &ranking,
            (real_layout, half_layout),
            |direction, from, to| full_length_passes(spec, target, split, direction, from, to),
        )
    };
    let Some(even_time) = time(&even) else {
        return even;
    };
    let n = even.iter().product();
    fastest_split(n, longest, (even, even_time, ()), |split| {
        Some((time(split)?, ()))
    })
    .0
}

/// The modelled time of a real axis's passes forward (the reals to the
/// half spectrum) and inverse, as `passes` plans them in each direction
/// from the input's layout to the output's; `None` where either does not
/// plan.
fn both_directions_time(
    ranking: &SplitRanking,
    (real_layout, half_layout): (&Layout, &Layout),
    passes: impl Fn(Direction, (Slot, &Layout), (Slot, &Layout)) -> Result<Vec<Routed>, Error>,
) -> Option<f64> {
    let ends = [
        (Direction::Forward, real_layout, half_layout),
        (Direction::Inverse, half_layout, real_layout),
    ];
    ends.into_iter()
        .try_fold(0.0, |sum, (direction, from, to)| {
            let planned = passes(direction, (Slot::Input, from), (Slot::Output, to)).ok()?;
            Some(sum + ranking.time(planned.iter().map(|r| &r.pass)))
        })
}

/// Of the splits of an even real axis's FFT of N / 2 (its reals read as
/// pairs) into as many passes as the most even, the one the model ranks
/// fastest over both directions, as [`fastest_split`] ranks them; `None`
/// where it ranks none (one pass, no model of whole plans, Bluestein's
/// N / 2). On the H200, f64 14002632 as 2646 x 2646 ran 0.84 / 0.73x cuFFT (R2C / C2R),
/// as 3969 x 1764 1.01 / 0.85x (docs/bench/h200_variants_2071_misses.log).
fn fastest_half_split(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    (real_layout, half_layout): (&Layout, &Layout),
) -> Option<Vec<usize>> {
    let half = spec.n() / 2;
    let longest = super::multipass::column_limit(spec.precision, target);
    let even = super::split::four_step(half, longest, 3)?;
    // The model of whole plans alone: the one-kernel model's ranking of
    // these splits was never measured.
    let ranking = SplitRanking::of(Some(wisdom), target, spec.precision);
    if needs_bluestein(half) || !matches!(ranking, SplitRanking::Plans(..)) || even.len() < 2 {
        return None;
    }
    let time = |split: &[usize]| {
        let split = split.to_vec();
        both_directions_time(
            &ranking,
            (real_layout, half_layout),
            |direction, from, to| {
                apart_passes(spec, target, wisdom, Some(&split), direction, from, to)
            },
        )
    };
    let even_time = time(&even)?;
    let split = fastest_split(half, longest, (even, even_time, ()), |split| {
        Some((time(split)?, ()))
    })
    .0;
    Some(split)
}

/// Complex values beside an f64 row's own that the registers of its rising
/// launch bound hold: the real step's pair (R2C 14, whose 7 values rose to
/// 21 blocks without them, spilled 64 bytes in 40 registers).
const F64_RISING_ROW_STEP_VALUES: usize = 2;

/// The fused pass of the real axis in `direction` (`forward` or `inverse`),
/// its rows read from `from` and written to `to`: pairs of reals (half
/// length) or reals on the real side, the half spectrum on the other.
fn fused_routed(
    spec: &FftSpec,
    forward: &Pass,
    inverse: &Pass,
    direction: Direction,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Routed {
    let shape = &spec.shape;
    let route = forward.real.map_or(RealRoute::PairedRows, |r| r.route);
    let pair = |layout: &Layout| match route.reads_single_reals() {
        false => paired(layout),
        true => layout.clone(),
    };
    let mut pass = match direction {
        Direction::Forward => forward.clone(),
        Direction::Inverse => inverse.clone(),
    };
    // (The buffers follow from the slots when the plan is done.)
    let (reads, writes) = (Buffer::Input, Buffer::Output);
    pass.access = match direction {
        Direction::Forward => row_access(shape, (reads, &pair(from.1)), (writes, to.1)),
        Direction::Inverse => row_access(shape, (reads, from.1), (writes, &pair(to.1))),
    };
    Routed {
        pass,
        reads: from.0,
        writes: to.0,
        region_elements: [from.0, to.0]
            .iter()
            .any(|s| matches!(s, Slot::Region(_)))
            .then(|| spec.kind.complex_shape(shape).iter().product()),
        workspace_end: None,
        axis: None,
    }
}

/// The passes of an even real axis past one kernel in `direction`: the
/// C2C passes of N / 2 over the reals read as pairs, and the split (R2C,
/// on the last one's stores, or after them in place on the output) or the
/// merge (C2R, on the first one's loads, or before them into the output's
/// pairs): fused where [`mirror`] can, else in a pass of its own.
fn apart_passes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    split: Option<&Vec<usize>>,
    direction: Direction,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Result<Vec<Routed>, Error> {
    let shape = &spec.shape;
    let last = shape.len() - 1;
    let n = shape[last];
    let mut pairs_shape = shape.clone();
    pairs_shape[last] = n / 2;
    if needs_bluestein(n / 2) {
        return bluestein_pairs(spec, target, wisdom, direction, &pairs_shape, from, to);
    }
    let choices = match &spec.choices.split {
        Some(split) if split.iter().product::<usize>() == n / 2 => {
            spec.choices.several_passes_only()
        }
        // The route is apart because one kernel does not hold the FFT of
        // N / 2 with the split: its four-step passes, whose last (first)
        // pass's tile of columns then holds the split (merge), even where
        // the FFT alone would fit one kernel.
        _ => ShapeChoices {
            column_io: spec.choices.column_io,
            split: split.cloned().or_else(|| {
                super::split::four_step(
                    n / 2,
                    super::multipass::column_limit(spec.precision, target),
                    3,
                )
            }),
            ..ShapeChoices::default()
        },
    };
    let split = |from, to| apart_routed(spec, target, direction, from, to);
    match direction {
        // The FFT of the pairs into the output, split there: on the last
        // pass's stores where its tile pairs the columns, else apart.
        Direction::Forward => {
            let pairs = paired(from.1);
            let mut passes = segment(
                spec,
                target,
                &pairs_shape,
                &[last],
                &choices,
                (from.0, &pairs),
                (to.0, to.1),
                false,
            )?;
            let fused = passes
                .last_mut()
                .is_some_and(|routed| mirror(&mut routed.pass, n, direction));
            if !fused {
                passes.push(split((to.0, to.1), (to.0, to.1)));
            }
            Ok(passes)
        }
        // Merged on the first pass's loads where it reads the half
        // spectrum as a tile of columns, else into the output's pairs in
        // a pass of its own; their FFT in place.
        Direction::Inverse => {
            let pairs = paired(to.1);
            let mut fused = segment(
                spec,
                target,
                &pairs_shape,
                &[last],
                &choices,
                from,
                (to.0, &pairs),
                false,
            )?;
            if fused.len() > 1 {
                let first = &fused[0].pass;
                let merged = widened_merge(first, n, spec.precision, target).or_else(|| {
                    let mut pass = first.clone();
                    mirror(&mut pass, n, direction).then_some(pass)
                });
                if let Some(pass) = merged {
                    fused[0].pass = pass;
                    return Ok(fused);
                }
            }
            let pairs = paired(to.1);
            let mut passes = vec![split(from, (to.0, &pairs))];
            passes.extend(segment(
                spec,
                target,
                &pairs_shape,
                &[last],
                &choices,
                (to.0, &pairs),
                (to.0, &pairs),
                false,
            )?);
            Ok(passes)
        }
    }
}

/// The C2R's first pass `pass` (a column tile of the FFT of N / 2, `n` the
/// real length) merging X[k] with X[N / 2 - k] on its loads ([`mirror`]),
/// over more warps an SM than the C2C column pass it was planned as: the
/// most balanced schedule of as many stages, one butterfly of its smallest
/// radix a thread, where that holds fewer values and its blocks hold more
/// threads an SM, at as many blocks as the registers hold the values' words
/// and [`MERGE_VALUES`] more ([`resident_by_value_words`]); else the same
/// shape at more blocks where the registers hold them. A bound of one,
/// which leaves ptxas its registers, stays one. The merge reads two points
/// for each point of the FFT; at a C2C pass's residency it waited on its
/// loads: Nsight, H200, 47628000's 300-point first pass (30 values over 10
/// threads, 10 warps an SM) 2.77 ms against the forward's 1.26,
/// long-scoreboard stalls 9.1 per issue
/// (docs/bench/h200_ncu_2077_misses.log). H200 C2R, cuFFT/ours
/// (docs/bench/h200_c2r_merge_pass.log): 47628000 0.78 -> 0.99x (20 values
/// over 20 threads, three blocks), 49077600 0.87 -> 1.10x, 60000000 0.87 ->
/// 0.96x, 123201000 0.79 -> 0.92x, 46373600 0.77 -> 0.85x (three blocks of
/// its own shape), 21141120 1.28 -> 1.48x; 8 of 8 faster, the R2C rows
/// alike. The balanced schedule keeps its radices within
/// [`MOST_RADIX_SPREAD`] of each other, or takes one stage more where as
/// many stages hold no fewer values, and a bound of one is lifted where the
/// block alone would hold its SM (docs/bench/h200_ab_c2r_merge_shapes.log,
/// C2R cuFFT/ours): f32 88935 0.82 -> 1.15x, 112000 0.70 -> 1.05x, 82500
/// 1.04 -> 1.61x, 32118177 (343 over 784 threads, one block an SM, long
/// scoreboard 6.8 per issue) 0.74 -> 0.89x; f64 24500 (125 as 25 x 5 over
/// 5 threads, 9% of warps active) 0.81 -> 0.98x, 31250 0.67 -> 0.80x, 42000
/// 1.00 -> 1.48x; 7875 and 11025 f64 1.31 -> 1.20x lost.
/// `None` where neither the schedule nor the bound changes.
fn widened_merge(pass: &Pass, n: usize, precision: Precision, target: &Target) -> Option<Pass> {
    let mut wide = wider_pass(pass, precision, target)?;
    mirror(&mut wide, n, Direction::Inverse).then_some(wide)
}

/// [`widened_merge`]'s shape for a C2R first pass `pass` whose loads read
/// two points a point, without its real step: the caller attaches it.
fn wider_pass(pass: &Pass, precision: Precision, target: &Target) -> Option<Pass> {
    let shape = |radices: Option<Vec<usize>>, min_blocks_per_sm: Option<usize>| {
        let threads_per_fft = radices
            .as_ref()
            .map(|r| pass.n / r.iter().copied().min().unwrap_or(1));
        ShapeChoices {
            threads_per_fft: threads_per_fft.or(Some(pass.threads_per_fft)),
            radices: radices.or_else(|| Some(pass.radices())),
            ffts_per_block: Some(pass.ffts_per_block),
            column_io: Some(super::ColumnIo::Tile),
            min_blocks_per_sm,
            ..ShapeChoices::default()
        }
    };
    let plan = |choices: &ShapeChoices| {
        super::pass_planner::plan_pass(pass.n, precision, choices, target, &pass.access).ok()
    };
    // The most balanced schedule of as many stages, one butterfly of its
    // smallest radix a thread, where that holds fewer values; else of one
    // stage more.
    let stages = pass.stages.len();
    let balanced_of = |stages: usize| {
        super::radix::schedules(pass.n, stages, stages)
            .into_iter()
            .filter(|radices| {
                let threads = pass.n / radices.iter().copied().min().unwrap_or(1);
                threads * pass.ffts_per_block <= target.launchable_threads_per_block
            })
            .min_by_key(|radices| radices.iter().copied().max())
            .filter(|radices| radices.iter().copied().max() < Some(pass.values_per_thread))
            .filter(|radices| {
                let (least, most) = (radices.iter().min(), radices.iter().max());
                least
                    .zip(most)
                    .is_some_and(|(&least, &most)| most <= MOST_RADIX_SPREAD * least)
            })
    };
    let balanced = balanced_of(stages).or_else(|| balanced_of(stages + 1));
    let resident = |shape: &Pass| {
        resident_by_value_words(
            shape.threads_per_block,
            shape.shared_bytes,
            shape.values_per_thread + MERGE_VALUES,
            precision,
            target,
            target.max_blocks_per_sm,
        )
    };
    // The wider schedule where its blocks hold more threads an SM than the
    // C2C pass's: 847 as 11 x 11 x 7 over 121 threads, eight to a block,
    // holds one block (968 threads) where 77 threads held two (1232), and
    // 3969 f64 over 441 threads not even one (704 bytes spilled).
    let widened = balanced.and_then(|radices| {
        let wide = plan(&shape(Some(radices.clone()), None))?;
        let blocks = resident(&wide);
        let more =
            blocks * wide.threads_per_block > pass.min_blocks_per_sm * pass.threads_per_block;
        more.then_some((radices, blocks))
    });
    // Else the same shape at the blocks its registers hold, where that is
    // more than the C2C pass asked for; a bound of one, which leaves ptxas
    // its registers (staged small FFTs), stays one.
    let (balanced, blocks) = match widened {
        Some((radices, _)) if pass.min_blocks_per_sm == 1 => (Some(radices), 1),
        Some((radices, blocks)) => (Some(radices), blocks),
        None => {
            let blocks = resident(pass);
            // At a bound of one, a block whose threads may take the SM's
            // every register below their most is left alone on its SM.
            let alone =
                pass.threads_per_block * target.max_registers_per_thread > target.registers_per_sm;
            let kept_bound = pass.min_blocks_per_sm == 1 && !alone;
            if kept_bound || blocks <= pass.min_blocks_per_sm {
                return None;
            }
            (None, blocks)
        }
    };
    let mut wide = plan(&shape(balanced, Some(blocks)))?;
    if let Some(step) = pass.step_twiddle {
        let mut twiddle = super::StepTwiddle::after_tables_of(&wide, step.column, step.span);
        twiddle.form = match step.form.fits(&wide, target.warp_size) {
            true => step.form,
            false => super::StepTwiddleForm::PerPoint,
        };
        wide.step_twiddle = Some(twiddle);
    }
    wide.normalizes = pass.normalizes;
    Some(wide)
}

/// Largest radix over smallest of [`wider_pass`]'s balanced schedule: one
/// butterfly of the smallest radix a thread leaves the other stages' threads
/// idle (363 as 11 x 11 x 3 over 121 threads: 33 work in two stages of
/// three).
const MOST_RADIX_SPREAD: usize = 2;

/// Complex values a thread of the C2R's merging first pass holds beside
/// its FFT's, for its bound ([`widened_merge`]): the pair merged. With
/// none, 46373600's 26 values over 208-thread blocks took four blocks an
/// SM, slower than three (C2R 0.85 -> 0.81x); with the four of
/// [`REAL_STEP_VALUES`], 47628000's 20 values over 320 threads took two,
/// slower than three (0.99 -> 0.94x) (docs/bench/h200_c2r_merge_pass.log).
const MERGE_VALUES: usize = 2;

/// The passes of an even real axis whose N / 2 needs Bluestein's
/// algorithm in `direction`: Bluestein's FFT of N / 2 over the reals read
/// as pairs (`pairs_shape`), then the split in place on the output (R2C),
/// or the merge into the output's pairs and then that FFT in place (C2R).
/// Half the padded length of Bluestein's steps over the reals themselves.
fn bluestein_pairs(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    direction: Direction,
    pairs_shape: &[usize],
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Result<Vec<Routed>, Error> {
    let pairs_spec = FftSpec {
        shape: pairs_shape.to_vec(),
        kind: TransformKind::C2c,
        ..spec.clone()
    };
    let fft = |from: (Slot, &Layout), to: (Slot, &Layout)| {
        bluestein_routed(from, to, |from, to, base| {
            super::bluestein::last_axis(&pairs_spec, target, wisdom, from, to, base)
        })
    };
    let split = |from, to| apart_routed(spec, target, direction, from, to);
    match direction {
        Direction::Forward => {
            let mut passes = fft((from.0, &paired(from.1)), to)?;
            passes.push(split(to, to));
            Ok(passes)
        }
        Direction::Inverse => {
            let pairs = paired(to.1);
            let mut passes = vec![split(from, (to.0, &pairs))];
            passes.extend(fft((to.0, &pairs), (to.0, &pairs))?);
            Ok(passes)
        }
    }
}

/// The split (R2C) or merge (C2R) of an even real axis in a pass of its
/// own ([`apart_pass`]), from `from` to `to`, with its slots.
fn apart_routed(
    spec: &FftSpec,
    target: &Target,
    direction: Direction,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Routed {
    Routed {
        pass: apart_pass(spec, target, direction, from, to),
        reads: from.0,
        writes: to.0,
        region_elements: matches!(from.0, Slot::Region(_))
            .then(|| spec.kind.complex_shape(&spec.shape).iter().product()),
        workspace_end: None,
        axis: None,
    }
}

/// Fuses the split (R2C, `pass` the last C2C pass of the FFT of N / 2) or
/// the merge (C2R, `pass` the first) of a real axis of `n` points into
/// `pass` as [`RealEnd::Mirrored`] where it can hold it: a column tile
/// (two slots per block at least, so each pairs columns u and C - u) over
/// the C columns of one row, the half spectrum's side at unit column
/// stride. Returns whether it did.
fn mirror(pass: &mut Pass, n: usize, direction: Direction) -> bool {
    let access = &pass.access;
    let [column] = access.columns.as_slice() else {
        return false;
    };
    let c = column.count;
    let (tile, half_side) = match direction {
        Direction::Forward => (
            pass.output_io == GlobalIo::ColumnTile,
            (column.output_stride, access.output_stride),
        ),
        Direction::Inverse => (
            pass.io == GlobalIo::ColumnTile,
            (column.input_stride, access.input_stride),
        ),
    };
    let pairs = direction == Direction::Inverse
        || (pass.io == GlobalIo::ColumnTile
            && pass.ffts_per_block.is_multiple_of(2)
            && pass.step_twiddle.is_none());
    if !tile || !pairs || half_side != (1, c) || c < 2 || c * pass.n != n / 2 {
        return false;
    }
    // The table of w_N^k follows the stages' and the four-step twiddle's.
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    let step = pass.step_twiddle.map_or(0, |t| t.len());
    let twiddle = super::StepTwiddle::new(0, n, len + step);
    pass.twiddles = Twiddles::RoundedF64Table {
        len: len + twiddle.len(),
    };
    pass.real = Some(RealStep {
        route: RealRoute::HalfLength,
        end: RealEnd::Mirrored(MirroredColumns {
            columns: c,
            twiddle,
        }),
        real_n: n,
        twiddle_offset: None,
        hermitian_half: false,
    });
    true
}

/// The passes of the full-length complex FFT of a real axis, split as
/// `split`, from `from` to `to` through the workspace: the first's loads
/// meet the reals (or rebuild the Hermitian spectrum), the last's stores
/// the half spectrum (or the real parts). In two passes the workspace
/// holds one half of the Hermitian symmetry ([`RealStep::hermitian_half`]):
/// the R2C's last pass and the C2R's first run about half the columns.
fn full_length_passes(
    spec: &FftSpec,
    target: &Target,
    split: &[usize],
    direction: Direction,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Result<Vec<Routed>, Error> {
    let shape = &spec.shape;
    let last = shape.len() - 1;
    let n = shape[last];
    let choices = ShapeChoices {
        split: (split.len() > 1).then(|| split.to_vec()),
        column_io: spec.choices.column_io.filter(|_| split.len() > 1),
        ..ShapeChoices::default()
    };
    let mut full_shape = shape.clone();
    full_shape[last] = n;
    let mut passes = segment(spec, target, &full_shape, &[last], &choices, from, to, true)?;
    let count = passes.len();
    let hermitian_half = count == 2;
    for (i, routed) in passes.iter_mut().enumerate() {
        let pass = &mut routed.pass;
        let end = if i == 0 {
            // Step 0 reads point p of column r' at r' + (N / f0) p.
            let column = pass.step_twiddle.map_or(0, |t| t.column);
            RealEnd::Loads(AxisIndex {
                column,
                points: n / split[0],
            })
        } else if i + 1 == count {
            // The last step writes point p of column K at K + (N / f_last) p.
            let done = n / split[count - 1];
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
        // The columns of one half of the symmetry: the C2R's first pass's
        // (c of F1), the R2C's last pass's (k0 of F0).
        let halved = match (end, direction) {
            (RealEnd::Loads(index), Direction::Inverse) => Some(index.column),
            (RealEnd::Stores(index), Direction::Forward) => Some(index.column),
            _ => None,
        };
        if let Some(column) = halved.filter(|_| hermitian_half) {
            let column = &mut pass.access.columns[column];
            column.count = column.count / 2 + 1;
        }
        pass.real = Some(RealStep {
            route: RealRoute::FullLength,
            end,
            real_n: n,
            twiddle_offset: None,
            hermitian_half,
        });
    }
    // The C2R's first pass rebuilds the Hermitian spectrum on its loads,
    // X[k] and conj X[N - k] for each point, so it takes the merge's wider
    // shape ([`wider_pass`]). H200 C2R, cuFFT/ours: 30375 0.92 -> 1.16x,
    // 98415 0.99 -> 1.22x, 7891499 0.60 -> 0.63x, 27064125 0.76 -> 0.78x;
    // the R2C alike (docs/bench/h200_ab_full_length_paired.log).
    if direction == Direction::Inverse && count > 1 {
        let first = &passes[0].pass;
        if let Some(mut wide) = wider_pass(first, spec.precision, target) {
            wide.real = first.real;
            passes[0].pass = wide;
        }
    }
    Ok(passes)
}

/// The split of a real axis's complex FFT of `n` points into at most
/// `steps` passes of at most `limit` points.
fn four_step(
    n: usize,
    limit: usize,
    steps: usize,
    precision: Precision,
) -> Result<Vec<usize>, Error> {
    super::split::four_step(n, limit, steps).ok_or(Error::TooLarge {
        n,
        precision,
        max: limit.pow(steps as u32),
    })
}

/// Threads of a block of the split or merge pass, and pairs each takes.
const APART_THREADS: usize = 256;
const APART_PAIRS_PER_THREAD: usize = 2;

/// The pass of the split (R2C: from the complex FFT of N / 2 to the half
/// spectrum, in place) or the merge (C2R: from the half spectrum into the
/// pairs of reals the inverse FFT of N / 2 starts from) alone: each thread
/// takes pairs k, M - k of its row; its FFTs are chunks of
/// `APART_THREADS * APART_PAIRS_PER_THREAD` pairs (column 0), and
/// `w_N^k` comes from the two tables of its `step_twiddle` (span N).
fn apart_pass(
    spec: &FftSpec,
    target: &Target,
    direction: Direction,
    from: (Slot, &Layout),
    to: (Slot, &Layout),
) -> Pass {
    let shape = &spec.shape;
    let n = spec.n();
    let m = n / 2;
    let chunk = APART_THREADS * APART_PAIRS_PER_THREAD;
    let chunks = (m / 2 + 1).div_ceil(chunk);
    let mut access = row_access(shape, (Buffer::Input, from.1), (Buffer::Output, to.1));
    // The chunk coordinate moves along the row; the kernel adds it.
    access.columns.insert(
        0,
        Column {
            count: chunks,
            input_stride: 0,
            output_stride: 0,
        },
    );
    let values = 2 * APART_PAIRS_PER_THREAD;
    Pass {
        n: m,
        stages: Vec::new(),
        threads_per_fft: APART_THREADS,
        values_per_thread: values,
        ffts_per_block: 1,
        threads_per_block: APART_THREADS,
        min_blocks_per_sm: min_blocks_per_sm(APART_THREADS, 0, values, spec.precision, target),
        lanes: super::LaneLayout::FftMajor,
        io: GlobalIo::Direct,
        output_io: GlobalIo::Direct,
        access,
        step_twiddle: Some(super::StepTwiddle::new(0, n, 0)),
        real: Some(RealStep {
            route: RealRoute::HalfLength,
            end: RealEnd::Apart,
            real_n: n,
            twiddle_offset: None,
            hermitian_half: false,
        }),
        chirp: None,
        fused_axes: None,
        transform_pairs: false,
        normalizes: direction == Direction::Forward,
        dynamic_shared: false,
        input_caching: super::InputCaching::L1AndL2,
        fft_stride: 0,
        exchange_width: ExchangeWidth::BothParts,
        exchange_buffers: ExchangeBuffers::Reused,
        first_write: super::FirstWrite::AfterBarrier,
        padding_search: super::PaddingSearch::EvenRadices,
        twiddle_tables: super::TwiddleTables::Direct,
        shared_bytes: 0,
        twiddles: Twiddles::RoundedF64Table { len: 0 },
    }
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
        input_offset: 0,
        output_offset: 0,
        input_blocks: None,
        output_blocks: None,
    }
}

/// The one-kernel pass of the real axis in `direction`: the complex FFT of
/// N / 2 (half length) or N points planned as for a batch of them
/// ([`row_fft_pass`]), with the end at the half spectrum staged through
/// shared memory to pair or mirror points ([`stage_rows`]), and the split's
/// twiddles after the stages'. `None` where the staged rows do not fit a
/// block's shared memory.
fn fused_pass(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    route: RealRoute,
    real_n: usize,
    direction: Direction,
) -> Result<Option<Pass>, Error> {
    let fft_n = match route {
        RealRoute::HalfLength => real_n / 2,
        RealRoute::FullLength | RealRoute::PairedRows => real_n,
    };
    let precision = spec.precision;
    let user = spec.choices.one_kernel_only();
    let mut pass = row_fft_pass(spec, target, wisdom, &user, fft_n, route)?;
    if !stage_rows(&mut pass, route, direction, precision, target) {
        return Ok(None);
    }
    // The split or merge holds a pair of values, their twiddle and the
    // parts of the result on top of the FFT's registers: the launch bound
    // leaves room for four more complex values, so nothing spills.
    // Past max_size the bound follows the opt-in kernels' register model,
    // at the block's shared memory with the staged row; where not even one
    // block's registers hold the real step too, the axis takes passes
    // (R2C 49152: 24 values over 1024 threads spilled 36 bytes at 64
    // registers; 40768 and 43904: 28 over 784, 68 and 36 bytes at 80).
    let opt_in = fft_n > max_size(precision);
    let extra = match opt_in {
        true => opt_in_real_step_values(precision),
        false => REAL_STEP_VALUES,
    };
    let model = match opt_in {
        true => opt_in_resident,
        false => min_blocks_per_sm,
    };
    let resident = |pass: &Pass, extra: usize| {
        model(
            pass.threads_per_block,
            pass.shared_bytes,
            pass.values_per_thread + extra,
            precision,
            target,
        )
    };
    if opt_in && resident(&pass, extra) == 0 {
        // The model's row holds too many values beside the real step for
        // even one block's registers; one over more threads may not.
        match user.is_empty() {
            true => match row_held_by_registers(spec, target, fft_n, route, direction, extra) {
                Some(held) => pass = held,
                None => return Ok(None),
            },
            false => return Ok(None),
        }
    }
    let lean = |pass: &Pass, most: usize| {
        resident_by_value_words(
            pass.threads_per_block,
            pass.shared_bytes,
            pass.values_per_thread,
            precision,
            target,
            most,
        )
    };
    // A lone block of f64 rows (within max_size) leaves a few warps an SM
    // to hide the loads; two blocks' registers hold the values' words (no
    // spill for sm_90 to 2240). Measured on an H100 (cuFFT/ours R2C / C2R): 560 1.17 / 0.80
    // -> 1.16 / 1.27, 840 1.41 / 0.94 -> 1.37 / 1.46, 1040 2.77 / 2.80 ->
    // 3.97 / 3.15, 130 C2R 1.22 -> 1.78, 1400 C2R 1.31 -> 1.96; slower:
    // 390 C2R 1.43 -> 1.04 and 455 2.82 / 2.15 -> 2.63 / 1.85 (not
    // profiled).
    let lone_f64 =
        |pass: &Pass, bound: usize| match precision == Precision::F64 && !opt_in && bound == 1 {
            true => bound.max(lean(pass, 2)),
            false => bound,
        };
    if user.min_blocks_per_sm.is_none() {
        pass.min_blocks_per_sm = match pass.lanes {
            // f64 paired rows with lanes along the FFT and radices to 11
            // rise from the C2C shape's two blocks to the four their
            // values' words leave registers for. H200 R2C / C2R ms: 343
            // 0.687 / 0.641 -> 0.573 / 0.596, 625 0.759 / 0.758 -> 0.583 /
            // 0.589, 729 0.652 / 0.611 -> 0.545 / 0.579, 1331 0.594 / 0.694
            // -> 0.609 / 0.626, though ptxas (sm_90) spills 8 and 24 bytes
            // of it at four (docs/bench/h200_ab_full_length_paired.log).
            super::LaneLayout::FftMajor
                if precision == Precision::F64
                    && route == RealRoute::PairedRows
                    && pass
                        .radices()
                        .into_iter()
                        .max()
                        .is_some_and(|radix| radix <= 11) =>
            {
                let bound = pass.min_blocks_per_sm.min(resident(&pass, extra)).max(1);
                bound.max(lean(&pass, 4))
            }
            super::LaneLayout::FftMajor => lone_f64(
                &pass,
                pass.min_blocks_per_sm.min(resident(&pass, extra)).max(1),
            ),
            // Lanes across FFTs walk both staged ends, whose code the C2C
            // shape's bound of one block leaves ptxas free to spend
            // registers on (H100 R2C 256: 107 registers, a quarter of the
            // warps); the bound the FFT's values need holds them
            // (measured, H100: R2C 128 0.910 -> 0.732 ms at four blocks,
            // 256 0.887 -> 0.756 and 512 0.947 -> 0.814 at three).
            //
            // In f64 with radices to 11 ptxas holds such rows in the
            // values' words and 20 more, as past max_size: R2C 160's row
            // (16 values, radices 10 and 8) in 78 registers where the
            // static sizes' model reserves 144 and leaves one block per SM
            // (H100: 0.67x cuFFT; at two blocks 0.94x; 176 0.67 -> 0.97x).
            // A lone block rises to three, two blocks to four (64
            // registers): on the H100 (cuFFT/ours R2C / C2R, two -> four
            // blocks) 11 0.71 / 0.83 -> 0.91 / 0.98, 70 0.95 / 0.95 -> 1.00
            // / 1.02, 288x70 0.71 / 0.73 -> 0.84 / 0.87, 2560x105 0.92 /
            // 0.93 -> 1.04 / 1.04, 17 of 22 shapes faster; 22 (28 bytes
            // spilled) lost 10% in C2R, 154 2-8%, 252 4-13%
            // (docs/bench/h100_real_rows_lifted.txt). With radix 13 (R2C
            // 676) and f64 C2C kernels with lanes along an FFT ptxas
            // spills hundreds of bytes there.
            super::LaneLayout::FftMinor => {
                let bound = pass.min_blocks_per_sm.max(resident(&pass, 0));
                let rising = |pass: &Pass| {
                    resident_by_value_words(
                        pass.threads_per_block,
                        pass.shared_bytes,
                        pass.values_per_thread + F64_RISING_ROW_STEP_VALUES,
                        precision,
                        target,
                        target.max_blocks_per_sm,
                    )
                };
                // The blocks the values and a merge's beside them leave
                // registers for.
                let beside_a_merge = |pass: &Pass| {
                    resident_by_value_words(
                        pass.threads_per_block,
                        pass.shared_bytes,
                        pass.values_per_thread + MERGE_IN_FIRST_STAGE_VALUES,
                        precision,
                        target,
                        target.max_blocks_per_sm,
                    )
                };
                let largest_radix = pass.radices().into_iter().max().unwrap_or(fft_n);
                let lift = match precision {
                    // Paired rows (odd lengths) of few values, whose static
                    // bound is four blocks or more, rise as f32 rows do, to every block
                    // their values' words leave registers for. On the
                    // H200 (cuFFT/ours R2C / C2R): 55 (15 values, 7 -> 12
                    // blocks) 0.81 / 1.19 -> 0.95 / 1.34, 27 (9 values,
                    // 11 -> 16) 0.77 / 0.93 -> 0.84 / 1.01
                    // (docs/bench/h200_variants_2069_misses.log). The
                    // split's pair of values counts beside them: without,
                    // R2C 14 spilled 64 bytes at 21 blocks (40 registers).
                    Precision::F64 if largest_radix <= 11 => match bound {
                        1 => lean(&pass, 3),
                        2 | 3 => lean(&pass, 4),
                        _ if route != RealRoute::PairedRows => lean(&pass, 4),
                        _ => rising(&pass),
                    },
                    // So do paired rows of radix 13 or 17 at four blocks or
                    // more: H200 13 (64 threads, 8 -> 12 blocks, 80
                    // registers, no spill) R2C / C2R 0.687 / 0.624 -> 0.630 /
                    // 0.554 ms (docs/bench/h200_variants_2111_misses.log); 17
                    // (6 -> 10 blocks, 128 -> 96 registers, no spill) 0.64 /
                    // 0.80 -> 0.73 / 0.86x cuFFT, and all 12 rows of R2C 17
                    // to 425 faster (docs/bench/h200_ab_small_real_rows.log).
                    Precision::F64
                        if matches!(largest_radix, 13 | 17)
                            && bound >= 4
                            && route == RealRoute::PairedRows =>
                    {
                        rising(&pass)
                    }
                    Precision::F64 => lone_f64(&pass, bound),
                    Precision::F32
                        if reads_half_spectra_as_one_run(&pass, route, direction, precision) =>
                    {
                        beside_a_merge(&pass)
                    }
                    // f32 rows rise to every block their values' words
                    // leave registers for, whatever they hold. On the
                    // H100 (cuFFT/ours R2C / C2R): 13 0.64 / 0.78 -> 0.81
                    // / 0.90 (3 -> 5 blocks), 99 0.64 / 0.84 -> 0.98 /
                    // 1.18, 375 1.23 / 1.60 -> 1.66 / 2.07 (1 -> 3, 30
                    // values); rows of more than 18 values: 96x220 0.83 /
                    // 0.78 -> 1.13 / 1.03, 224x264 0.81 / 0.76 -> 1.05 /
                    // 0.99, 1400x350 0.65 / 0.68 -> 0.78 / 0.79, 16 of 18
                    // shapes faster, none more than 3% slower
                    // (docs/bench/h100_real_rows_lifted.txt); an earlier
                    // build's 1500 (30 values, 2 -> 3 blocks) lost 8%.
                    // Rows of one prime stage past
                    // LIFTED_PRIME_STAGE_VALUES rise only as far as their
                    // values and a merge's leave registers for, where the
                    // radix is prime and holds to RAISED_PRIME_STAGE_VALUES;
                    // the others keep their bound.
                    Precision::F32
                        if pass.stages.len() == 1
                            && pass.values_per_thread > LIFTED_PRIME_STAGE_VALUES
                            && bound > 1 =>
                    {
                        let raised = pass.values_per_thread <= RAISED_PRIME_STAGE_VALUES
                            && super::rader::is_prime(largest_radix);
                        match raised {
                            true => beside_a_merge(&pass),
                            false => 0,
                        }
                    }
                    Precision::F32 => lean(&pass, target.max_blocks_per_sm),
                };
                bound.max(lift)
            }
        };
    }
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    let twiddle_offset = match route {
        RealRoute::HalfLength => {
            pass.twiddles = Twiddles::RoundedF64Table {
                len: len + real_n / 2 + 1,
            };
            Some(len)
        }
        RealRoute::FullLength | RealRoute::PairedRows => None,
    };
    pass.real = Some(RealStep {
        route,
        end: RealEnd::Both,
        real_n,
        twiddle_offset,
        hermitian_half: false,
    });
    Ok(Some(pass))
}

/// The opt-in row FFT of `fft_n` points of a real axis (of `route`, in
/// `direction`) over the most threads whose one block holds its values and
/// `extra` values of the real step by the opt-in model ([`opt_in_resident`]), where the model's
/// thread count holds too many values a thread (f64 7168 as 14 values over
/// 896 threads, not 8 over 1024) and the axis would take passes; taken
/// where the register file's parts ([`Target::registers_per_thread`]) grant
/// those words and [`WIDER_ROW_REGISTERS_BESIDE`] more. On the H200,
/// cuFFT/ours R2C / C2R, passes -> one kernel
/// (docs/bench/h200_f64_real_rows_wider.txt): f64 14336 1.01 / 0.81 ->
/// 1.51 / 1.45, 20000 (20 values over 500 threads) 0.88 / 0.83 -> 1.22 /
/// 1.33, 12348 0.86 / 0.71 -> 1.09 / 0.97, 18900 1.77 / 1.42 -> 2.16 /
/// 1.58, 64x20736 0.75 / 0.80 -> 1.06 / 1.13, 8575x14336 0.73 / 0.60 ->
/// 0.96 / 0.72, 22528 1.08 / 0.74 -> 1.05 / 0.94. The rows the parts
/// refuse lost: 25088 as 28 values over 448 threads (the parts grant 128
/// registers, not the 144 of registers_per_sm / threads; ptxas spilled 884
/// bytes) 0.98 / 0.81 -> 0.64 / 0.68, 16800 as 21 over 525 0.94 -> 0.90
/// in C2R.
fn row_held_by_registers(
    spec: &FftSpec,
    target: &Target,
    fft_n: usize,
    route: RealRoute,
    direction: Direction,
    extra: usize,
) -> Option<Pass> {
    let precision = spec.precision;
    let dense = Access::dense(fft_n, Buffer::Input, Buffer::Output);
    let most = target.launchable_threads_per_block;
    let row = (fft_n.div_ceil(most).max(2)..=fft_n / 2)
        .filter(|values| fft_n % values == 0)
        // The fewest values a thread of so many can hold must fit before
        // the row is worth planning (a row of 8400 points takes 0.1 s).
        .filter(|values| opt_in_resident(fft_n / values, 0, values + extra, precision, target) > 0)
        .map(|values| fft_n / values)
        .find_map(|threads| {
            let choices = ShapeChoices {
                threads_per_fft: Some(threads),
                ..ShapeChoices::default()
            };
            let mut pass = plan_real_row_pass(fft_n, precision, &choices, target, &dense).ok()?;
            let staged = stage_rows(&mut pass, route, direction, precision, target);
            let resident = opt_in_resident(
                pass.threads_per_block,
                pass.shared_bytes,
                pass.values_per_thread + extra,
                precision,
                target,
            );
            (staged && resident > 0 && pass.ffts_per_block == 1).then_some(pass)
        })?;
    let words = (row.values_per_thread + extra) * precision.complex_bytes() / 4;
    let granted = target.registers_per_thread(row.threads_per_block, 1);
    (granted >= words + WIDER_ROW_REGISTERS_BESIDE).then_some(row)
}

/// Registers a thread of [`row_held_by_registers`] keeps beside its values'
/// and the real step's words: 12348's 14 values over 686 threads (80
/// registers, 72 for the words) won.
const WIDER_ROW_REGISTERS_BESIDE: usize = 8;

/// Whether the one-kernel pass of a real axis `pass` (of `route`, in
/// `direction`) is a C2R's paired f32 rows with lanes across FFTs in at
/// most two stages, which read both rows' half spectra as one run and merge
/// them in the first stage (the kernel's paired_half_spectra_in_one_run).
fn reads_half_spectra_as_one_run(
    pass: &Pass,
    route: RealRoute,
    direction: Direction,
    precision: Precision,
) -> bool {
    route == RealRoute::PairedRows
        && direction == Direction::Inverse
        && precision == Precision::F32
        && pass.n % 2 == 1
        && pass.lanes == super::LaneLayout::FftMinor
        && pass.stages.len() <= 2
}

/// Complex values of registers the merge in the first stage of
/// [`reads_half_spectra_as_one_run`] holds beside the FFT's. ptxas (sm_90)
/// spills 5-169 bytes there all the same, as the walk's loads are hoisted;
/// the run wins regardless: on the H200 C2R 11 0.70 -> 0.81x cuFFT, 125
/// 0.66 -> 0.99x, 243 0.60 -> 1.03x, 105 1.19 -> 1.92x, 12 of 14 odd sizes
/// of 11-243 faster; 15 and 21 lost 3% and 9%
/// (docs/bench/h200_c2r_half_spectra_run.txt).
const MERGE_IN_FIRST_STAGE_VALUES: usize = 4;

/// Values a thread of an f32 real row of one prime stage (its one codelet
/// holds them all live) may hold and still rise to more blocks an SM
/// ([`fused_pass`]): R2C 31's 31 values spilled 112 bytes at three blocks
/// (sm_90; tests/prime_radices.rs compiles every prime radix's rows within
/// its spill limit).
const LIFTED_PRIME_STAGE_VALUES: usize = 18;

/// Values a thread of such a row past [`LIFTED_PRIME_STAGE_VALUES`] may hold
/// and still rise, where its radix is prime, as far as its values and a
/// merge's four more leave registers for. On the H200 (cuFFT/ours R2C, two
/// -> three blocks; docs/bench/h200_ab_small_real_rows.log) 19 0.73 ->
/// 0.80x (80 registers, 12 bytes spilled at sm_90), 23 0.77 -> 0.89x, 38
/// 1.33 -> 1.59x, 46 1.28 -> 1.46x; the radix 21 of R2C 21 lost 8% so; 29
/// and 31 spill over a hundred bytes there.
const RAISED_PRIME_STAGE_VALUES: usize = 23;

/// The complex FFT of `fft_n` points of a fused real pass, planned as for a
/// batch of them: with the user's one-kernel choices `user`, else the first
/// measured shape that plans and launches (the target's real-row entry of
/// `fft_n`, then the C2C entries of `fft_n`), else the heuristic, spread
/// over threads where it gives one thread the whole row ([`spread_row`]).
fn row_fft_pass(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    user: &ShapeChoices,
    fft_n: usize,
    route: RealRoute,
) -> Result<Pass, Error> {
    let precision = spec.precision;
    let dense = Access::dense(fft_n, Buffer::Input, Buffer::Output);
    let heuristic = || {
        let pass = plan_real_row_pass(fft_n, precision, &ShapeChoices::default(), target, &dense)?;
        let spread = spread_row(&pass, route, precision).and_then(|choices| {
            plan_real_row_pass(fft_n, precision, &choices, target, &dense).ok()
        });
        let pass = spread.unwrap_or(pass);
        let balanced = balance_paired_rows(&pass, route, precision, target.warp_size)
            .and_then(|choices| plan_real_row_pass(fft_n, precision, &choices, target, &dense).ok())
            .filter(|balanced| balanced.values_per_thread < pass.values_per_thread);
        let pass = balanced.unwrap_or(pass);
        let refilled = refill_half_length_rows(&pass, route, precision).and_then(|choices| {
            plan_real_row_pass(fft_n, precision, &choices, target, &dense).ok()
        });
        Ok::<_, Error>(refilled.unwrap_or(pass))
    };
    let planned = match user.is_empty() {
        false => plan_real_row_pass(fft_n, precision, user, target, &dense)?,
        true => wisdom
            .real_row(fft_n, precision, target)
            .map(|(_, entry)| entry)
            .into_iter()
            .chain(wisdom.candidates(&[fft_n], precision, target))
            .filter_map(|entry| {
                plan_real_row_pass(fft_n, precision, &entry.choices, target, &dense).ok()
            })
            .find(|pass| pass.threads_per_block <= target.launchable_threads_per_block)
            .map_or_else(heuristic, Ok)?,
    };
    Ok(planned)
}

/// The same half-length row FFT `pass` with another count of rows a block,
/// where the count the C2C rules gave it is slow for the staged real step
/// (lanes across FFTs). f64 rows of at most [`F64_FULL_BLOCK_ROW_VALUES`]
/// values a thread fill [`FULL_BLOCK_THREADS`] threads instead of the 64
/// that f64 butterflies of up to 32 values need: H200 cuFFT/ours, R2C /
/// C2R, 36 0.93 / 0.88 -> 0.96 / 1.08x, 100 0.81 / 0.88 -> 0.94 / 0.91x,
/// 350 0.98 / 1.03 -> 1.17 / 1.26x, 72 1.33 / 1.45 -> 1.47 / 1.65x; 12
/// values lost (44 1.72 -> 1.52x, 288 1.77 -> 1.47x). f32 rows take a
/// power of two (the largest within the block's count): 100 0.79 -> 0.86x,
/// 192 0.86 / 0.98 -> 0.96 / 1.13x, 600 1.38 / 1.50 -> 1.57 / 1.74x, 11 of
/// 14 sizes faster; 162 (81 as 9 x 9, 28 -> 16 rows) lost, 2.10 / 2.34 ->
/// 2.00 / 1.65x (docs/bench/h200_ab_half_length_rows.log).
fn refill_half_length_rows(
    pass: &Pass,
    route: RealRoute,
    precision: Precision,
) -> Option<ShapeChoices> {
    if route != RealRoute::HalfLength || pass.lanes != super::LaneLayout::FftMinor {
        return None;
    }
    let ffts = match precision {
        Precision::F64 => {
            let few_values = pass.values_per_thread <= F64_FULL_BLOCK_ROW_VALUES;
            let small_block = 2 * pass.threads_per_block < FULL_BLOCK_THREADS;
            (few_values && small_block).then_some(FULL_BLOCK_THREADS / pass.threads_per_fft)?
        }
        Precision::F32 => match pass.ffts_per_block.is_power_of_two() {
            true => return None,
            false => 1 << pass.ffts_per_block.ilog2(),
        },
    };
    Some(ShapeChoices {
        radices: Some(pass.radices()),
        threads_per_fft: Some(pass.threads_per_fft),
        ffts_per_block: Some(ffts),
        ..ShapeChoices::default()
    })
}

/// Values a thread of an f64 half-length row holds at most where its
/// rows fill [`FULL_BLOCK_THREADS`] ([`refill_half_length_rows`]).
const F64_FULL_BLOCK_ROW_VALUES: usize = 10;

/// Threads of a block of f64 half-length rows of few values each.
const FULL_BLOCK_THREADS: usize = 256;

/// Two stages of the row FFT `pass` over more threads, where the
/// heuristic gives one thread the whole row (every radix divides a row
/// that short) and that row holds many values: two rows of odd length
/// paired, or a half-length row of more than 16 values. Its registers
/// leave few warps per SM, and its single-thread walk of the staged row
/// serializes. The most balanced two-stage schedule (none for a prime
/// row), over one thread per butterfly of its larger-radix stage for a
/// half-length row, of its smaller-radix stage for paired rows. Measured
/// on an H100 (R2C / C2R ms, 1 GiB, the copy 0.70): paired rows 15 f32
/// 1.070 / 0.866 -> 0.785 / 0.758 over 5 threads (0.832 / 0.829 over 3),
/// 21 f32 1.434 / 1.072 -> 0.824 / 0.777 over 7 (1.025 / 0.928 over 3),
/// 15 f64 1.087 / 0.890 -> 0.755 / 0.701 over 5; the half-length row of
/// 54 f32 (27 values) 0.969 / 0.914 -> 0.753 / 0.726 over 3 (0.906 /
/// 0.859 over 9). An f32 paired row of one codelet of
/// [`ONE_CODELET_ROW_FROM`] points or more stays in one thread: since the
/// C2R reads both half spectra as one run
/// ([`reads_half_spectra_as_one_run`]) and real rows rise to more blocks an
/// SM, H100 cuFFT/ours, R2C / C2R, 15 0.95 / 0.84 -> 0.99 / 0.90x, 21 0.86
/// / 0.76 -> 0.95 / 0.84x, 27 0.81 / 0.87 -> 0.83 / 1.00x; 25 0.94 / 0.98
/// -> 0.97 / 0.91x and 300x27 0.91 / 0.82 -> 0.89 / 0.78x lost in part, 9's
/// C2R 1.41 -> 1.28x; rows of two stages in one thread lost (45 0.94 / 1.14
/// -> 0.80 / 0.82x, 33's C2R 2.05 -> 1.38x), and so did f64 (15 1.14 /
/// 1.31 -> 0.93 / 1.19x) (docs/bench/h100_odd_real_rows_one_thread.txt).
fn spread_row(pass: &Pass, route: RealRoute, precision: Precision) -> Option<ShapeChoices> {
    let many_values = match route {
        RealRoute::PairedRows => true,
        RealRoute::HalfLength | RealRoute::FullLength => pass.values_per_thread > 16,
    };
    let one_codelet = route == RealRoute::PairedRows
        && precision == Precision::F32
        && pass.stages.len() == 1
        && pass.n >= ONE_CODELET_ROW_FROM;
    if pass.threads_per_fft != 1 || !many_values || one_codelet {
        return None;
    }
    let radices = super::radix::schedules(pass.n, 2, 2)
        .into_iter()
        .max_by_key(|radices| radices.iter().copied().min())?;
    let per_thread = match route {
        RealRoute::PairedRows => radices.iter().copied().min()?,
        RealRoute::HalfLength | RealRoute::FullLength => radices.iter().copied().max()?,
    };
    Some(ShapeChoices {
        threads_per_fft: Some(pass.n / per_thread),
        radices: Some(radices),
        ..ShapeChoices::default()
    })
}

/// An f64 paired row of more than [`F64_BALANCED_ROW_VALUES`] values a
/// thread over the most balanced schedule of as many stages or one more,
/// over the most threads up to a warp that run one butterfly of one of its
/// radices each (lanes across FFTs). Its few threads of many values held
/// few warps an SM. H200 cuFFT/ours, R2C / C2R, 125 (25 x 5 over 5
/// threads -> 5 x 5 x 5 over 25) 0.41 / 0.61 -> 0.90 / 1.08x, 99 (over 9
/// -> 11) 0.94 / 1.18 -> 1.04 / 1.30x, 30x11907x125 0.70 / 0.74 -> 0.95 /
/// 0.89x, 12 of 12 rows faster (docs/bench/h200_ab_full_length_paired.log). The same schedules
/// over more than a warp (105 over 35 threads, 135 over 45, 147 over 49:
/// lanes along the FFT, two blocks an SM) were faster still forward and
/// slower inverse: 105's C2R 0.834 -> 0.899 ms, 0.664 over 15 threads.
fn balance_paired_rows(
    pass: &Pass,
    route: RealRoute,
    precision: Precision,
    warp_size: usize,
) -> Option<ShapeChoices> {
    if route != RealRoute::PairedRows
        || precision != Precision::F64
        || pass.values_per_thread <= F64_BALANCED_ROW_VALUES
    {
        return None;
    }
    let stages = pass.stages.len();
    let radices = super::radix::schedules(pass.n, stages, stages + 1)
        .into_iter()
        .min_by_key(|radices| radices.iter().copied().max())?;
    let threads_per_fft = radices
        .iter()
        .map(|&radix| pass.n / radix)
        .filter(|&threads| threads <= warp_size)
        .max()?;
    Some(ShapeChoices {
        threads_per_fft: Some(threads_per_fft),
        radices: Some(radices),
        ..ShapeChoices::default()
    })
}

/// Values a thread of an f64 paired row above which
/// [`balance_paired_rows`] spreads it.
const F64_BALANCED_ROW_VALUES: usize = 16;

/// Points of an f32 paired row of one codelet from which [`spread_row`]
/// keeps it in one thread.
const ONE_CODELET_ROW_FROM: usize = 15;

/// Stages the ends of `pass` that pair or mirror points through shared
/// memory, each FFT's region long enough for its row, and fits the block
/// to the shared memory that takes (opt-in where static is too small);
/// false where one row does not fit.
fn stage_rows(
    pass: &mut Pass,
    route: RealRoute,
    direction: Direction,
    precision: Precision,
    target: &Target,
) -> bool {
    let fft_n = pass.n;
    // The R2C's stores pair Z[k] with Z[M - k] (or Z[N - k]), which another
    // thread computed: they are staged (both parts in reused arrays). The
    // half-length C2R's merge pairs X[k] with X[M - k] and the twiddle
    // w_N^k on its loads: staged too, the row of M + 1 values in each FFT's
    // region. The other ends are rows like a C2C's, and so are the C2R's
    // loads of paired rows (each point reads X[p] or conj X[N - p] of its
    // two rows): where a warp's lanes share one FFT they stay direct, as
    // the C2C plan has it; other lanes stage them too, for unit-stride runs.
    let direct = match pass.lanes == super::LaneLayout::FftMajor {
        true => GlobalIo::Direct,
        false => GlobalIo::StagedThroughShared,
    };
    let staged = GlobalIo::StagedThroughShared;
    (pass.io, pass.output_io) = match (direction, route) {
        (Direction::Forward, _) => (direct, staged),
        (Direction::Inverse, RealRoute::PairedRows) => (direct, direct),
        (Direction::Inverse, _) => (staged, direct),
    };
    pass.exchange_width = ExchangeWidth::BothParts;
    pass.exchange_buffers = ExchangeBuffers::Reused;
    let row = match route {
        RealRoute::HalfLength => fft_n + 1,
        RealRoute::FullLength | RealRoute::PairedRows => fft_n,
    };
    // A C2R's paired f32 rows of at most two stages with lanes across FFTs
    // read both rows' half spectra as one run, staged as they are in each
    // FFT's region, and merge them in the first stage (the kernel's
    // paired_half_spectra_in_one_run).
    let half_spectra_run = reads_half_spectra_as_one_run(pass, route, direction, precision);
    let row = match half_spectra_run {
        true => row.max(2 * (fft_n / 2 + 1)),
        false => row,
    };
    // Where a warp's lanes hold different FFTs they stage the same index
    // of each: an odd stride spreads them over the banks (an even row of
    // 8 words, the half spectrum of 14 reals, put a warp on 4 banks).
    let row = match pass.lanes {
        super::LaneLayout::FftMinor => row | 1,
        super::LaneLayout::FftMajor => row,
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
        return false;
    }
    pass.ffts_per_block = pass.ffts_per_block.min(limit / bytes_per_fft).max(1);
    pass.threads_per_block = pass.ffts_per_block * pass.threads_per_fft;
    pass.shared_bytes = pass.ffts_per_block * bytes_per_fft;
    pass.dynamic_shared = pass.dynamic_shared || dynamic;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Normalization, Precision};

    fn r2c(shape: &[usize]) -> FftSpec {
        FftSpec::with_shape(shape).kind(TransformKind::R2c)
    }

    #[test]
    fn f32_rows_of_one_prime_stage_of_19_to_23_values_rise_a_block() {
        let bound = |n: usize| {
            let spec = r2c(&[n]).target(Target::H200);
            crate::plan::plan(&spec).unwrap().passes[0].min_blocks_per_sm
        };
        // 19 and 23 (and 38 and 46, their halves) from two blocks to three;
        // radix 21 is no prime, and 29 and 31 would spill.
        for n in [19, 23, 38, 46] {
            assert_eq!(bound(n), 3, "R2C {n}");
        }
        for n in [21, 29, 31] {
            assert_eq!(bound(n), 2, "R2C {n}");
        }
    }

    #[test]
    fn odd_f64_rows_of_few_values_rise_to_the_blocks_their_registers_hold() {
        let bound = |n: usize| {
            let spec = r2c(&[n]).precision(Precision::F64).target(Target::H200);
            crate::plan::plan(&spec).unwrap().passes[0].min_blocks_per_sm
        };
        // 9 values a thread: 36 words, the real step's pair and 20 more in
        // 64 registers; 15 values in 88.
        assert_eq!(bound(27), 16);
        assert_eq!(bound(55), 11);
        // Radix 13: 13 values and the pair in 80 registers.
        assert_eq!(bound(13), 12);
        assert_eq!(bound(117), 12);
        // Radix 17: 17 values and the pair in 96 registers.
        assert_eq!(bound(17), 10);
        assert_eq!(bound(425), 9);
        // Even rows (half length) keep the bound of four at most above the
        // static model's: 22 as 11 complex values.
        assert_eq!(bound(22), 9);
    }

    #[test]
    fn long_odd_real_axes_take_the_split_the_model_predicts_fastest() {
        let spec = r2c(&[4322241])
            .precision(Precision::F64)
            .target(Target::H200);
        let lengths = |spec: &FftSpec| -> Vec<usize> {
            let plan = crate::plan::plan(spec).unwrap();
            plan.passes.iter().map(|p| p.n).collect()
        };
        assert_eq!(lengths(&spec), vec![2541, 1701]);
        let plan = crate::plan::plan_with_wisdom(&spec, &Wisdom::none()).unwrap();
        let even: Vec<usize> = plan.passes.iter().map(|p| p.n).collect();
        assert_eq!(even, vec![2079, 2079]);
    }

    #[test]
    fn f64_rows_past_max_size_take_the_threads_registers_hold() {
        let row = |n: usize| {
            let spec = r2c(&[n]).precision(Precision::F64).target(Target::H200);
            let plan = crate::plan::plan(&spec).unwrap();
            let pass = &plan.passes[0];
            (
                plan.passes.len(),
                pass.threads_per_fft,
                pass.values_per_thread,
            )
        };
        // 7168 as 14 values over 896 threads does not hold the real step
        // in one block's registers; 8 over 1024 does.
        assert_eq!(row(14336), (1, 1024, 8));
        assert_eq!(row(12348), (1, 686, 14));
        // 12544's first such row (28 values over 448 threads) needs 144
        // registers where the register file's parts grant 128: passes.
        assert!(row(25088).0 > 1);
    }

    #[test]
    fn f64_rows_of_small_radices_rise_to_the_blocks_registers_hold() {
        let bound = |n: usize| {
            let spec = r2c(&[n]).precision(Precision::F64).target(Target::H100);
            crate::plan::plan(&spec).unwrap().passes[0].min_blocks_per_sm
        };
        // Blocks of about 64 threads (F64_MINOR_THREADS_PER_BLOCK) rise to
        // what the registers hold of the values' words: 176's 16 values over
        // 8 threads, radices to 11, to seven (146 registers a thread), 88's
        // 12 values to nine, 352's 22 values (16 x 11 over 11 threads, two
        // stages where the cap of 16 values took three) to five.
        assert_eq!(bound(176), 7);
        assert_eq!(bound(88), 9);
        assert_eq!(bound(352), 5);
    }

    #[test]
    fn the_c2r_first_pass_merging_its_loads_takes_more_warps() {
        let first = |n: usize| {
            let spec = r2c(&[n]).target(Target::H200);
            let plan = crate::plan::plan(&spec).unwrap();
            let (forward, inverse) = (&plan.passes[0], &plan.inverse_passes[0]);
            assert!(matches!(
                inverse.real.map(|real| real.end),
                Some(RealEnd::Mirrored(_))
            ));
            let shape = |pass: &Pass| {
                (
                    pass.n,
                    pass.threads_per_fft,
                    pass.values_per_thread,
                    pass.min_blocks_per_sm,
                )
            };
            (shape(forward), shape(inverse))
        };
        // 47628000: 300-point columns, 30 values over 10 threads at two
        // blocks an SM for the R2C; the C2R's 20 over 20 threads at three.
        assert_eq!(first(47628000), ((300, 10, 30, 2), (300, 20, 20, 3)));
        // 46373600: 338 has no more balanced two-stage schedule than 26 x
        // 13: its own shape at three blocks.
        assert_eq!(first(46373600), ((338, 13, 26, 2), (338, 13, 26, 3)));
        // 1173942: 847 over 121 threads, eight to a block, would hold one
        // block an SM where 77 threads hold two: the C2C pass's shape.
        assert_eq!(first(1173942), ((847, 77, 14, 2), (847, 77, 14, 2)));
    }

    #[test]
    fn the_c2r_merge_pass_widens_only_where_its_registers_hold_it() {
        // 31434480 f64: 3969 as 21 x 21 x 9 over 441 threads, two to a
        // block, spilled 704 bytes (sm_90): the C2C pass's 189 threads stay.
        let spec = r2c(&[31434480])
            .precision(Precision::F64)
            .target(Target::H200);
        let plan = crate::plan::plan(&spec).unwrap();
        let (forward, inverse) = (&plan.passes[0], &plan.inverse_passes[0]);
        assert_eq!(inverse.n, 3969);
        assert_eq!(inverse.threads_per_fft, forward.threads_per_fft);
        assert_eq!(inverse.min_blocks_per_sm, forward.min_blocks_per_sm);
    }

    #[test]
    fn the_full_length_c2r_first_pass_rebuilding_its_spectrum_takes_more_warps() {
        let first = |n: usize| {
            let plan = crate::plan::plan(&r2c(&[n]).target(Target::H200)).unwrap();
            let (forward, inverse) = (&plan.passes[0], &plan.inverse_passes[0]);
            assert_eq!(
                inverse.real.map(|real| real.route),
                Some(RealRoute::FullLength)
            );
            let shape = |pass: &Pass| (pass.n, pass.threads_per_fft, pass.min_blocks_per_sm);
            (shape(forward), shape(inverse))
        };
        // 98415: its 405-point first pass over 27 threads at three blocks
        // where the R2C's last runs 15 at two.
        assert_eq!(first(98415), ((405, 15, 2), (405, 27, 3)));
        // 30375: 243 has no more balanced schedule; five blocks of it.
        assert_eq!(first(30375), ((243, 9, 2), (243, 9, 5)));
    }

    #[test]
    fn f64_paired_rows_of_many_values_spread_over_a_warp() {
        let row = |n: usize| {
            let spec = r2c(&[n]).precision(Precision::F64).target(Target::H200);
            let plan = crate::plan::plan(&spec).unwrap();
            let (forward, inverse) = (&plan.passes[0], &plan.inverse_passes[0]);
            assert_eq!(
                forward.real.map(|real| real.route),
                Some(RealRoute::PairedRows)
            );
            assert_eq!(
                (forward.radices(), forward.threads_per_fft),
                (inverse.radices(), inverse.threads_per_fft)
            );
            assert_eq!(forward.lanes, super::super::LaneLayout::FftMinor);
            (forward.radices(), forward.threads_per_fft)
        };
        // 125 as 25 x 5 over 5 threads held 25 values each.
        assert_eq!(row(125), (vec![5, 5, 5], 25));
        // 105: one radix-5 butterfly a thread, not one radix-3 (35 threads,
        // more than a warp).
        assert_eq!(row(105), (vec![7, 5, 3], 21));
        assert_eq!(row(99), (vec![11, 9], 11));
        // Rows of few values keep their shape.
        assert_eq!(row(45), (vec![9, 5], 5));
    }

    #[test]
    fn f64_paired_rows_along_the_fft_rise_to_four_blocks() {
        let bounds = |n: usize| {
            let spec = r2c(&[n]).precision(Precision::F64).target(Target::H200);
            let plan = crate::plan::plan(&spec).unwrap();
            let (forward, inverse) = (&plan.passes[0], &plan.inverse_passes[0]);
            assert_eq!(forward.lanes, super::super::LaneLayout::FftMajor);
            (forward.min_blocks_per_sm, inverse.min_blocks_per_sm)
        };
        assert_eq!(bounds(343), (4, 4));
        assert_eq!(bounds(625), (4, 4));
        // Radix 15 is past the radices measured: the C2C shape's two.
        assert_eq!(bounds(3375), (2, 2));
    }

    #[test]
    fn half_length_rows_of_few_values_fill_their_blocks() {
        let rows = |n: usize, precision: Precision| {
            let spec = r2c(&[n]).precision(precision).target(Target::H200);
            let pass = crate::plan::plan(&spec).unwrap().passes[0].clone();
            (
                pass.values_per_thread,
                pass.ffts_per_block,
                pass.threads_per_block,
            )
        };
        // f64 rows of at most 10 values a thread fill 256 threads, not 64;
        // 12 values keep the small block.
        assert_eq!(rows(100, Precision::F64), (10, 51, 255));
        assert_eq!(rows(70, Precision::F64), (10, 51, 255));
        assert_eq!(rows(88, Precision::F64), (12, 16, 64));
        // f32 rows take a power-of-two count a block: 100's 51 rows of 5
        // threads become 32, 192's 42 of 6 too.
        assert_eq!(rows(100, Precision::F32), (10, 32, 160));
        assert_eq!(rows(192, Precision::F32), (18, 32, 192));
    }

    #[test]
    fn rows_one_thread_would_hold_spread_over_threads() {
        let shape = |n: usize, precision: Precision| {
            let spec = r2c(&[n]).precision(precision).target(Target::H100);
            let pass = crate::plan::plan(&spec).unwrap().passes[0].clone();
            (pass.radices(), pass.threads_per_fft)
        };
        // Rows of two odd lengths paired over n / min(radix) threads,
        // half-length rows past 16 values over n / max(radix).
        assert_eq!(shape(9, Precision::F32), (vec![3, 3], 3));
        assert_eq!(shape(15, Precision::F64), (vec![5, 3], 5));
        assert_eq!(shape(45, Precision::F32), (vec![9, 5], 5));
        // f32 paired rows of one codelet of 15 or more points stay whole.
        assert_eq!(shape(15, Precision::F32), (vec![15], 1));
        assert_eq!(shape(27, Precision::F32), (vec![27], 1));
        assert_eq!(shape(54, Precision::F32), (vec![9, 3], 3));
        // The H100's measured real row of R2C 64 is the rule's shape.
        assert_eq!(shape(64, Precision::F32), (vec![8, 4], 4));
        // A prime row, and a half-length row of 16 values, stay whole.
        assert_eq!(shape(13, Precision::F32).1, 1);
        assert_eq!(shape(32, Precision::F32), (vec![16], 1));
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
        // Odd sizes run the full length, two rows to an FFT: the launch
        // counts rows, two to each of a block's FFTs.
        let odd = crate::plan::plan(&r2c(&[375])).unwrap();
        assert_eq!(odd.passes[0].real.unwrap().route, RealRoute::PairedRows);
        assert_eq!(odd.passes[0].n, 375);
        assert_eq!(
            odd.passes[0].launch_ffts_per_block(),
            2 * odd.passes[0].ffts_per_block
        );
        // Reals two apart do not pair into complex values within a row:
        // full length, rows paired.
        let strided = r2c(&[64]).layouts(
            Layout {
                strides: vec![2],
                distance: 128,
            },
            Layout::contiguous(&[33]),
        );
        let plan = crate::plan::plan(&strided).unwrap();
        assert_eq!(plan.passes[0].real.unwrap().route, RealRoute::PairedRows);
        // Past one kernel an even axis runs the FFT of N / 2 in C2C passes,
        // the split on the last one's stores and the merge on the first
        // one's loads ([`the_split_rides_on_a_tile_of_mirrored_columns`]).
        // Out of place neither needs a workspace: the C2R's first pass
        // reads the input (never written) and writes the output.
        let long = crate::plan::plan(&r2c(&[1 << 16])).unwrap();
        assert_eq!(long.passes.len(), 2);
        assert!(long.passes[0].real.is_none());
        assert_eq!(long.scratch_elements, 0);
        // Where the target's opt-in shared memory holds the FFT of N / 2
        // and the staged half spectrum, that is one kernel per direction
        // (12288: 6144 in 54 KiB, 2^15: 16384 in 132 KiB on the H100).
        for n in [12288, 1 << 15] {
            let opt_in = crate::plan::plan(&r2c(&[n]).target(Target::H100)).unwrap();
            let [forward] = opt_in.passes.as_slice() else {
                panic!("{n}: one pass")
            };
            assert_eq!(forward.real.unwrap().end, RealEnd::Both);
            assert!(forward.dynamic_shared && forward.shared_bytes > n / 2 * 8);
            assert_eq!(opt_in.inverse_passes.len(), 1);
            let portable = crate::plan::plan(&r2c(&[n])).unwrap();
            assert_eq!(portable.passes.len(), 2);
        }
        // Where one block's registers would not hold the real step on top
        // of the FFT's values, the FFT of N / 2 takes passes and the split
        // rides on the last one's stores.
        let spilling = crate::plan::plan(&r2c(&[49152]).target(Target::H100)).unwrap();
        assert_eq!(spilling.passes.len(), 2);
        assert!(matches!(
            spilling.passes[1].real.unwrap().end,
            RealEnd::Mirrored(_)
        ));
        // An odd one whose FFT of N fits the opt-in shared memory with the
        // staged row is one kernel per direction (6561 on the H100).
        let odd = crate::plan::plan(&r2c(&[6561]).target(Target::H100)).unwrap();
        let [forward] = odd.passes.as_slice() else {
            panic!("6561: one pass")
        };
        assert_eq!(forward.real.unwrap().route, RealRoute::PairedRows);
        assert!(forward.dynamic_shared);
        assert_eq!(odd.inverse_passes.len(), 1);
        // Elsewhere it takes the full length over two passes, the reals at
        // the first's loads and the half spectrum at the last's stores.
        let odd = crate::plan::plan(&r2c(&[15625])).unwrap();
        assert!(matches!(odd.passes[0].real.unwrap().end, RealEnd::Loads(_)));
        assert!(matches!(
            odd.passes[1].real.unwrap().end,
            RealEnd::Stores(_)
        ));
        assert_eq!(odd.scratch_elements, 15625);
    }

    /// The planner fuses the split into the last C2C pass of the FFT of
    /// N / 2 and the merge into the first where the tile pairs columns u
    /// and C - u of one row (1D: 2^16, 2^20, and 31250 with an odd C), and
    /// keeps them apart where it cannot (rows of a 2D transform: the tile's
    /// FFTs have two coordinates), which the invariants check.
    #[test]
    fn the_split_rides_on_a_tile_of_mirrored_columns() {
        let mirrored = |pass: &Pass| match pass.real.map(|r| r.end) {
            Some(RealEnd::Mirrored(m)) => Some(m),
            _ => None,
        };
        // (31250 is one kernel on the H100.)
        let targets = |n: usize| match n {
            31250 => vec![Target::PORTABLE],
            _ => vec![Target::PORTABLE, Target::H100],
        };
        for (n, columns, inverse_columns) in
            [(1 << 16, 256, 128), (1 << 20, 1024, 512), (31250, 125, 125)]
        {
            for target in targets(n) {
                let plan = crate::plan::plan(&r2c(&[n]).target(target.clone())).unwrap();
                let last = plan.passes.last().unwrap();
                let split = mirrored(last).unwrap_or_else(|| panic!("{n}: {last:?}"));
                assert_eq!((split.columns, split.twiddle.span), (columns, n));
                assert_eq!(last.launch_ffts_per_transform(), 2 * columns.div_ceil(2));
                assert!(
                    last.ffts_per_block.is_multiple_of(2) && last.output_io == GlobalIo::ColumnTile
                );
                let merge = mirrored(&plan.inverse_passes[0]).unwrap();
                assert_eq!(merge.columns, inverse_columns);
                // No pass of its own, and the bytes of the C2C passes alone.
                let passes = plan.axis_factors[0].len();
                assert_eq!(
                    (plan.passes.len(), plan.inverse_passes.len()),
                    (passes, passes)
                );
                let bytes: usize = plan.passes.iter().map(|p| p.bytes_moved(&plan)).sum();
                assert_eq!(bytes, (passes * n + 1) * 8, "{n}");
            }
        }
        // Rows of a 2D transform: the split and the merge apart.
        let rows = crate::plan::plan(&r2c(&[4, 1 << 16])).unwrap();
        assert_eq!(rows.passes[2].real.unwrap().end, RealEnd::Apart);
        assert_eq!(rows.inverse_passes[1].real.unwrap().end, RealEnd::Apart);
        assert!(rows.passes.iter().all(|p| mirrored(p).is_none()));
        // A tile of an odd number of FFTs cannot pair the columns.
        let mut odd_tile = crate::plan::plan(&r2c(&[1 << 16])).unwrap();
        let last = odd_tile.passes.last_mut().unwrap();
        last.ffts_per_block -= 1;
        last.threads_per_block = last.ffts_per_block * last.threads_per_fft;
        let refused = crate::plan::invariants::check(&odd_tile, &Target::PORTABLE);
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.to_string().contains("cannot pair columns")),
            "{refused:?}"
        );
    }

    #[test]
    fn every_size_to_2_30_plans() {
        // 2^30 in 1D: three C2C passes of 2^29, the split on the last.
        let huge = crate::plan::plan(&r2c(&[1 << 30])).unwrap();
        assert_eq!(huge.axis_factors, vec![vec![1024, 1024, 512]]);
        assert_eq!(huge.passes.len(), 3);
        // 3^16 in 1D: three full-length passes through two regions of the
        // workspace, the middle one from the first region to the second.
        let odd = crate::plan::plan(&r2c(&[3usize.pow(16)])).unwrap();
        assert_eq!(odd.passes.len(), 3);
        assert_eq!(odd.scratch_elements, 2 * 3usize.pow(16));
        let middle = &odd.passes[1].access;
        assert_eq!(
            (middle.reads, middle.writes),
            (Buffer::Scratch, Buffer::Scratch)
        );
        assert_eq!(
            (middle.input_offset, middle.output_offset),
            (0, 3usize.pow(16))
        );
        // A real axis past one kernel in 2D, in place and out.
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            let plan = crate::plan::plan(&r2c(&[64, 65536]).placement(placement)).unwrap();
            assert!(plan
                .passes
                .iter()
                .any(|p| p.real.is_some_and(|r| r.end == RealEnd::Apart)));
            let inverse = &plan.inverse_passes;
            assert!(inverse
                .iter()
                .all(|p| p.access.writes != Buffer::Input || placement == Placement::InPlace));
        }
        // A split by hand names one of the plan's complex FFTs.
        let bad = r2c(&[1 << 16]).choices(ShapeChoices {
            split: Some(vec![16, 16]),
            ..ShapeChoices::default()
        });
        let err = crate::plan::plan(&bad).unwrap_err();
        assert!(matches!(err, Error::BadSplit { .. }), "{err}");
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

    #[test]
    fn a_split_of_the_real_axis_is_honoured_or_refused() {
        let split = |n: usize, split: &[usize]| {
            let mut spec = r2c(&[n]);
            spec.choices.split = Some(split.to_vec());
            crate::plan::plan(&spec)
        };
        // One kernel holds 3125, but passes asked for are passes taken.
        let odd = split(3125, &[25, 125]).unwrap();
        assert_eq!(odd.passes.len(), 2);
        assert!(matches!(odd.passes[0].real.unwrap().end, RealEnd::Loads(_)));
        // An even axis runs its FFT of N / 2: a split of that is taken,
        // one of N refused.
        assert_eq!(split(4096, &[32, 64]).unwrap().passes.len(), 2);
        let err = split(4096, &[64, 64]).unwrap_err();
        assert!(matches!(err, Error::BadSplit { .. }), "{err}");
        assert!(err.to_string().contains("complex FFT of 2048"), "{err}");
    }

    #[test]
    fn real_row_wisdom_shapes_the_real_axis_pass_on_its_gpu_only() {
        // The H100's wisdom holds R2C 512's FFT of 256 as 8 x 8 x 4 over a
        // warp; the C2C of 256 keeps its own shape, as do other GPUs.
        let h100 = crate::plan::plan(&r2c(&[512]).target(Target::H100)).unwrap();
        assert_eq!(
            (h100.passes[0].radices(), h100.passes[0].threads_per_fft),
            (vec![8, 8, 4], 32)
        );
        let c2c = crate::plan::plan(&FftSpec::new(256).target(Target::H100)).unwrap();
        assert_ne!(c2c.passes[0].radices(), vec![8, 8, 4]);
        let portable = crate::plan::plan(&r2c(&[512])).unwrap();
        assert_ne!(portable.passes[0].radices(), vec![8, 8, 4]);
    }
}
