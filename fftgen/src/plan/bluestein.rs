//! Bluestein's algorithm (seed 000 section IV.E, seed 001 section 4.3) for
//! an axis whose length N has a prime factor no radix covers (above 31):
//! with the chirp c[j] = e^(s pi i j^2 / N) (s the direction's sign),
//! jk = (j^2 + k^2 - (k - j)^2) / 2 turns the DFT into a convolution,
//!
//!   X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]),
//!
//! which a cyclic convolution of padded length M >= 2N - 1 computes with
//! FFTs of M, a length the radices cover:
//!
//! 1. load: a[j] = x[j] c[j] for j < N, 0 up to M (a chirp pass);
//! 2. the FFT of M, in the transform's direction (the planner's own passes);
//! 3. multiply: A[k] *= B[k], B the FFT of b[m] = conj(c[m]) (m and M - m
//!    for m < N) divided by M, computed once in f64 on the host;
//! 4. the FFT of M again, in the same direction: the inverse FFT of step 3
//!    read backwards (IFFT(Y)[k] = FFT(Y)[(M - k) mod M]), so every pass of
//!    the transform runs one direction;
//! 5. store: X[k] = c[k] A[(M - k) mod M] for k < N (a chirp pass).
//!
//! The chirp is exact to the table's rounding for any j: j^2 is reduced
//! mod 2N in integer arithmetic before the root is taken (seed 000's
//! remedy for large j). The inverse conjugates every table, as the twiddles
//! do. The padded rows live in the plan's workspace; the FFTs of M are
//! planned as a batch of in-place transforms there, one per row.

use super::access::{Access, Column};
use super::factor::{is_smooth, prime_factors};
use super::wisdom::Wisdom;
use super::{
    ColumnIo, ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo, InputCaching, LaneLayout,
    PaddingSearch, Pass, Plan, TwiddleTables, Twiddles,
};
use crate::{Buffer, Error, FftSpec, Layout, Normalization, Placement, Target, TransformKind};
use serde::{Deserialize, Serialize};

/// Most points a padded row may have: its chirp's spectrum is an f64 FFT
/// on the host and a table of the manifest (2^22 points: 64 MiB of f64
/// pairs; N to about two million).
pub const MAX_PADDED: usize = 1 << 22;

/// Threads of a chirp pass's block, and the points each takes.
const CHIRP_THREADS: usize = 256;
const CHIRP_POINTS_PER_THREAD: usize = 4;

/// Primes the padded length may have: the FFT of M should be fast, and
/// radices 2, 3, 5 and 7 are the fastest per point.
const PADDED_PRIMES: [usize; 4] = [2, 3, 5, 7];

/// What one chirp pass does along an axis of N points padded to M.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Chirp {
    pub role: ChirpRole,
    /// Length of the axis (N).
    pub n: usize,
    /// Length of the convolution (M >= 2N - 1).
    pub padded: usize,
    /// Where the chirp's table starts in the pass's twiddle table: 0 for a
    /// pass of its own, past the stages' twiddles for an FFT of M that
    /// takes the step into its loads or stores.
    #[serde(default)]
    pub table_offset: usize,
}

/// The three steps of Bluestein's algorithm that are not FFTs. On a pass
/// of its own (no stages) each is a kernel; on the FFT of M where one
/// kernel holds it, `Load` is the first FFT's loads and `Multiply` its
/// stores, and `Store` the second FFT's stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ChirpRole {
    /// Reads the axis (as `side` holds it), writes the chirped, zero-padded
    /// row of M complex values; fused, the FFT's outputs are multiplied by
    /// the chirp's spectrum too (whose table follows the chirp's).
    Load { side: AxisSide },
    /// Multiplies the row's spectrum by the chirp's, in place.
    Multiply,
    /// Reads the second FFT's row backwards, writes the axis's outputs.
    Store { side: AxisSide },
}

/// How the user's side of the axis holds its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AxisSide {
    /// N complex values.
    Complex,
    /// N reals (the R2C's input, the C2R's output).
    Reals,
    /// The N / 2 + 1 values of a Hermitian spectrum (the R2C's output, the
    /// C2R's input, whose other half is its mirror's conjugate).
    HalfSpectrum,
}

impl Chirp {
    /// Points the pass reads and writes per row.
    pub fn side_points(&self) -> (usize, usize) {
        let user = |side: AxisSide| match side {
            AxisSide::HalfSpectrum => self.n / 2 + 1,
            AxisSide::Complex | AxisSide::Reals => self.n,
        };
        match self.role {
            ChirpRole::Load { side } => (user(side), self.padded),
            ChirpRole::Multiply => (self.padded, self.padded),
            ChirpRole::Store { side } => (self.padded, user(side)),
        }
    }

    /// Entries of the step's tables: the chirp, or the chirp's spectrum
    /// (both for a fused load, whose FFT's stores multiply by it).
    pub fn table_len(&self, fused: bool) -> usize {
        match (self.role, fused) {
            (ChirpRole::Multiply, _) => self.padded,
            (ChirpRole::Load { .. }, true) => self.n + self.padded,
            (ChirpRole::Load { .. } | ChirpRole::Store { .. }, _) => self.n,
        }
    }
}

/// Whether an axis of `n` points runs Bluestein's algorithm.
pub fn needs_bluestein(n: usize) -> bool {
    !is_smooth(n)
}

/// The padded length of an axis of `n` points: the smallest product of
/// 2, 3, 5 and 7 of at least 2n - 1 (one kernel holds it up to thousands of
/// points, and those radices cost the fewest operations per point).
pub fn padded_length(n: usize) -> usize {
    let least = 2 * n - 1;
    (least..)
        .find(|&m| {
            let mut rest = m;
            for p in PADDED_PRIMES {
                while rest % p == 0 {
                    rest /= p;
                }
            }
            rest == 1
        })
        .expect("products of 2, 3, 5 and 7 are unbounded")
}

/// Why Bluestein's algorithm on the axes of `spec` cannot be planned, if
/// it cannot: the padded rows must fit the limits of one transform, and
/// the chirp's spectrum (computed on the host, held in the manifest) at
/// most [`MAX_PADDED`] points.
pub fn validate(spec: &FftSpec, max_points: usize) -> Result<(), Error> {
    let Some(prime_axis) = (0..spec.shape.len()).find(|&a| needs_bluestein(spec.shape[a])) else {
        return Ok(());
    };
    let prime = |n: usize| *prime_factors(n).last().expect("n >= 2 has a prime factor");
    // A real transform takes its real axis through Bluestein's steps too.
    let real_axis = (spec.kind == TransformKind::R2c).then(|| spec.shape.len() - 1);
    for (axis, &n) in spec.shape.iter().enumerate() {
        if !needs_bluestein(n) && Some(axis) != real_axis {
            continue;
        }
        let rows = spec.points() / n;
        let padded = padded_length(n);
        let refuse = |reason: String| Error::PrimeAxisUnsupported {
            shape: spec.shape.clone(),
            axis: prime_axis,
            prime: prime(spec.shape[prime_axis]),
            reason,
        };
        if padded > MAX_PADDED {
            return Err(refuse(format!(
                "axis {axis}'s Bluestein rows pad to {padded} points, over the {MAX_PADDED} whose \
                 chirp spectrum a plan holds; give a length whose prime factors are at most 31 \
                 (zero-padded), or split the work"
            )));
        }
        if padded.checked_mul(rows).is_none_or(|p| p > max_points) {
            return Err(refuse(format!(
                "axis {axis}'s Bluestein rows pad to {padded} points, {rows} of them per \
                 transform, over the {max_points} one transform may have; split the work into \
                 smaller transforms"
            )));
        }
        if !spec.choices.is_empty() {
            return Err(Error::ChoiceWithBluestein {
                n,
                padded,
                choice: spec
                    .choices
                    .flags()
                    .iter()
                    .map(|(flag, value)| format!("--{flag} {value}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
    }
    Ok(())
}

/// Which algorithm computes each axis of `plan`, and why, one line per
/// axis: the Stockham passes where the prime factors are radices, else
/// Bluestein's algorithm, with its padded length and whether its steps ride
/// in the FFTs' loads and stores.
pub fn routes(plan: &Plan) -> Vec<String> {
    plan.shape
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n > 1)
        .map(|(axis, &n)| {
            let real_axis = plan.kind == TransformKind::R2c
                && axis + 1 == plan.shape.len()
                && plan.shape.iter().any(|&m| needs_bluestein(m));
            if !needs_bluestein(n) && !real_axis {
                return format!(
                    "axis {axis} ({n}): Stockham radix passes (its prime factors are at most 31)"
                );
            }
            let why = match needs_bluestein(n) {
                true => format!(
                    "the prime factor {} is no radix",
                    prime_factors(n).last().expect("n >= 2 has a prime factor")
                ),
                false => "the real axis of a transform with a prime axis, whose reals and half \
                          spectrum are the chirp steps' sides"
                    .into(),
            };
            let padded = padded_length(n);
            let fused = plan
                .passes
                .iter()
                .any(|p| p.chirp.is_some_and(|c| c.n == n) && !p.stages.is_empty());
            format!(
                "axis {axis} ({n}): Bluestein's algorithm ({why}): \
                 a cyclic convolution of {padded} points (the least product of 2, 3, 5 and 7 of \
                 at least 2 x {n} - 1) by two FFTs of {padded}, {}",
                match fused {
                    true =>
                        "each one kernel, the chirps and the spectrum's product in their \
                             loads and stores",
                    false => "the chirps and the spectrum's product in kernels of their own",
                }
            )
        })
        .collect()
}

/// Plans `spec`, one of whose axes needs Bluestein's algorithm: those axes
/// first, each from where the data is into the output, then the others in
/// place on the output as the planner plans them.
pub fn plan(spec: &FftSpec, target: &Target, wisdom: &Wisdom) -> Result<Plan, Error> {
    let input_layout = spec.planned_input_layout();
    let output_layout = spec.planned_output_layout();
    let mut scratch;
    let mut forward;
    let mut inverse = Vec::new();
    match spec.kind {
        TransformKind::C2c => {
            let all: Vec<usize> = (0..spec.shape.len()).collect();
            let (passes, elements) = complex_axes(
                spec,
                target,
                wisdom,
                &all,
                (Buffer::Input, &input_layout),
                (Buffer::Output, &output_layout),
                0,
            )?;
            forward = passes;
            scratch = elements;
        }
        // The real axis (the last) by Bluestein's steps whatever its length
        // (its reals and half spectrum are the steps' sides), the others as
        // a complex transform of the half spectrum: R2C the real axis first
        // into the output, C2R the complex axes first (in place on the data,
        // or out of place into the workspace's first region, which the real
        // axis then reads).
        TransformKind::R2c => {
            let last = spec.shape.len() - 1;
            let complex_spec = FftSpec {
                shape: spec.complex_shape(),
                kind: TransformKind::C2c,
                ..spec.clone()
            };
            let others: Vec<usize> = (0..last).collect();
            let (passes, elements) = axis_passes(
                spec,
                target,
                wisdom,
                last,
                (Buffer::Input, &input_layout, AxisSide::Reals),
                (Buffer::Output, &output_layout, AxisSide::HalfSpectrum),
                0,
            )?;
            forward = passes;
            scratch = elements;
            let (passes, elements) = complex_axes(
                &complex_spec,
                target,
                wisdom,
                &others,
                (Buffer::Output, &output_layout),
                (Buffer::Output, &output_layout),
                0,
            )?;
            forward.extend(passes);
            scratch = scratch.max(elements);

            // The C2R's input is the half spectrum; its output the reals.
            let holds = match (others.is_empty(), spec.placement) {
                (true, _) | (false, Placement::InPlace) => {
                    (Buffer::Input, output_layout.clone(), 0)
                }
                (false, Placement::OutOfPlace) => {
                    let dense = Layout::contiguous(&spec.complex_shape());
                    (Buffer::Scratch, dense.clone(), dense.distance)
                }
            };
            let (passes, elements) = complex_axes(
                &complex_spec,
                target,
                wisdom,
                &others,
                (Buffer::Input, &output_layout),
                (holds.0, &holds.1),
                holds.2,
            )?;
            inverse = passes;
            scratch = scratch.max(elements);
            let (passes, elements) = axis_passes(
                spec,
                target,
                wisdom,
                last,
                (holds.0, &holds.1, AxisSide::HalfSpectrum),
                (Buffer::Output, &input_layout, AxisSide::Reals),
                holds.2,
            )?;
            inverse.extend(passes);
            scratch = scratch.max(elements);
        }
    }
    for passes in [&mut forward, &mut inverse] {
        let last = passes.len().saturating_sub(1);
        for (i, pass) in passes.iter_mut().enumerate() {
            // The last pass of each direction scales by the normalization.
            pass.normalizes = i == last;
            // Every pass's workspace lies within its own first elements of
            // each transform's; the transforms are the largest apart.
            if pass.access.reads == Buffer::Scratch {
                pass.access.input_distance = scratch;
            }
            if pass.access.writes == Buffer::Scratch {
                pass.access.output_distance = scratch;
            }
        }
    }
    let axis_factors = spec.shape.iter().map(|&n| vec![n]).collect();
    Ok(Plan {
        n: spec.points(),
        shape: spec.shape.clone(),
        kind: spec.kind,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: spec.normalization,
        placement: spec.placement,
        input_layout,
        output_layout,
        scratch_elements: scratch,
        axis_factors,
        column_io: ColumnIo::Tile,
        passes: forward,
        inverse_passes: inverse,
        normalization_points: None,
    })
}

/// The passes of Bluestein's algorithm along `axis`, from `from` into `to`
/// (buffer, layout, what the side holds), and the workspace they need per
/// transform: the padded rows, then the FFT of M's own workspace.
fn axis_passes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    axis: usize,
    from: (Buffer, &Layout, AxisSide),
    to: (Buffer, &Layout, AxisSide),
    base: usize,
) -> Result<(Vec<Pass>, usize), Error> {
    let n = spec.shape[axis];
    let padded = padded_length(n);
    let rows = spec.points() / n;
    // The FFT of M: the planner's in-place plan of one row.
    let row_spec = FftSpec {
        shape: vec![padded],
        kind: TransformKind::C2c,
        input_layout: None,
        output_layout: None,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: Normalization::None,
        placement: Placement::InPlace,
        choices: Default::default(),
        target: Some(target.clone()),
        wisdom: spec.wisdom.clone(),
    };
    let row_plan = super::plan_with_wisdom(&row_spec, wisdom)?;
    let rows_elements = rows * padded;
    let workspace = rows_elements + rows * row_plan.scratch_elements;
    let fft: Vec<Pass> = row_plan
        .passes
        .iter()
        .map(|pass| in_workspace(pass, rows, base, rows_elements, workspace))
        .collect();

    // The other axes tell the rows apart, the fastest first; in the
    // workspace the rows are dense, M apart.
    let mut row_columns = Vec::new();
    let mut row_stride = padded;
    for other in (0..spec.shape.len()).rev().filter(|&b| b != axis) {
        row_columns.push((
            spec.shape[other],
            from.1.strides[other],
            to.1.strides[other],
            row_stride,
        ));
        row_stride *= spec.shape[other];
    }
    let chirp_pass =
        |role: ChirpRole, reads: (Buffer, usize, usize), writes: (Buffer, usize, usize)| {
            let chirp = Chirp {
                role,
                n,
                padded,
                table_offset: 0,
            };
            // The load reads the axis where the user's layout (or the region
            // of the workspace that holds it) has it, the store writes it so;
            // the rows of M are dense, M apart, `base` into the workspace.
            let (user_reads, user_writes) = match role {
                ChirpRole::Load { .. } => (true, false),
                ChirpRole::Multiply => (false, false),
                ChirpRole::Store { .. } => (false, true),
            };
            let (read_points, write_points) = chirp.side_points();
            let chunk = CHIRP_THREADS * CHIRP_POINTS_PER_THREAD;
            // Column 0: the chunk of the row a block takes (the kernel adds it).
            let mut columns = vec![Column {
                count: read_points.max(write_points).div_ceil(chunk),
                input_stride: 0,
                output_stride: 0,
            }];
            for &(count, from_stride, to_stride, scratch_stride) in &row_columns {
                columns.push(Column {
                    count,
                    input_stride: if user_reads {
                        from_stride
                    } else {
                        scratch_stride
                    },
                    output_stride: if user_writes {
                        to_stride
                    } else {
                        scratch_stride
                    },
                });
            }
            let input_stride = if user_reads { from.1.strides[axis] } else { 1 };
            let output_stride = if user_writes { to.1.strides[axis] } else { 1 };
            Pass {
                n: padded,
                stages: Vec::new(),
                threads_per_fft: CHIRP_THREADS,
                values_per_thread: CHIRP_POINTS_PER_THREAD,
                ffts_per_block: 1,
                threads_per_block: CHIRP_THREADS,
                min_blocks_per_sm: 1,
                lanes: LaneLayout::FftMajor,
                io: GlobalIo::Direct,
                output_io: GlobalIo::Direct,
                access: Access {
                    reads: reads.0,
                    writes: writes.0,
                    input_stride,
                    output_stride,
                    columns,
                    input_distance: reads.1,
                    output_distance: writes.1,
                    input_offset: reads.2,
                    output_offset: writes.2,
                    input_blocks: None,
                    output_blocks: None,
                },
                step_twiddle: None,
                real: None,
                chirp: Some(chirp),
                normalizes: false,
                dynamic_shared: false,
                input_caching: InputCaching::L1AndL2,
                fft_stride: 0,
                exchange_width: ExchangeWidth::BothParts,
                exchange_buffers: ExchangeBuffers::Reused,
                first_write: FirstWrite::AfterBarrier,
                padding_search: PaddingSearch::EvenRadices,
                twiddle_tables: TwiddleTables::Direct,
                shared_bytes: 0,
                twiddles: Twiddles::RoundedF64Table {
                    len: chirp.table_len(false),
                },
            }
        };
    if let [fft] = &fft[..] {
        let fused = |role: ChirpRole, user_reads: bool| {
            let mut pass = fft.clone();
            let Twiddles::RoundedF64Table { len } = pass.twiddles;
            let chirp = Chirp {
                role,
                n,
                padded,
                table_offset: len,
            };
            pass.twiddles = Twiddles::RoundedF64Table {
                len: len + chirp.table_len(true),
            };
            pass.chirp = Some(chirp);
            // Points of the user's side go straight between global memory
            // and registers, where the step is applied.
            pass.io = GlobalIo::Direct;
            pass.output_io = GlobalIo::Direct;
            let access = &mut pass.access;
            let (user, layout) = match user_reads {
                true => (from.0, from.1),
                false => (to.0, to.1),
            };
            access.columns = row_columns
                .iter()
                .map(|&(count, from_stride, to_stride, scratch_stride)| {
                    let user_stride = match user_reads {
                        true => from_stride,
                        false => to_stride,
                    };
                    match user_reads {
                        true => Column {
                            count,
                            input_stride: user_stride,
                            output_stride: scratch_stride,
                        },
                        false => Column {
                            count,
                            input_stride: scratch_stride,
                            output_stride: user_stride,
                        },
                    }
                })
                .collect();
            match user_reads {
                true => {
                    (access.reads, access.input_stride) = (user, layout.strides[axis]);
                    (access.input_distance, access.input_offset) = (layout.distance, 0);
                    access.writes = Buffer::Scratch;
                    (access.output_stride, access.output_distance) = (1, workspace);
                    access.output_offset = base;
                }
                false => {
                    (access.writes, access.output_stride) = (user, layout.strides[axis]);
                    (access.output_distance, access.output_offset) = (layout.distance, 0);
                    access.reads = Buffer::Scratch;
                    (access.input_stride, access.input_distance) = (1, workspace);
                    access.input_offset = base;
                }
            }
            pass
        };
        return Ok((
            vec![
                fused(ChirpRole::Load { side: from.2 }, true),
                fused(ChirpRole::Store { side: to.2 }, false),
            ],
            base + workspace,
        ));
    }
    let workspace_side = (Buffer::Scratch, workspace, base);
    let mut passes = vec![chirp_pass(
        ChirpRole::Load { side: from.2 },
        (from.0, from.1.distance, 0),
        workspace_side,
    )];
    passes.extend(fft.iter().cloned());
    passes.push(chirp_pass(
        ChirpRole::Multiply,
        workspace_side,
        workspace_side,
    ));
    passes.extend(fft);
    passes.push(chirp_pass(
        ChirpRole::Store { side: to.2 },
        workspace_side,
        (to.0, to.1.distance, 0),
    ));
    Ok((passes, base + workspace))
}

/// `pass` of the in-place plan of one row of M, moved into the workspace
/// of a plan whose transforms each hold `rows` such rows: the row plan's
/// data (its input and output) `base` elements into the workspace, its own
/// workspace after the `rows_elements` of the rows; the transforms of the
/// batch `workspace` elements apart. The row plan's batch becomes the last
/// column (the rows), so the kernel's FFTs are the same and only where
/// they sit changes.
fn in_workspace(
    pass: &Pass,
    rows: usize,
    base: usize,
    rows_elements: usize,
    workspace: usize,
) -> Pass {
    let mut pass = pass.clone();
    let access = &mut pass.access;
    let offset = |buffer: Buffer| match buffer {
        Buffer::Scratch => base + rows_elements,
        Buffer::Input | Buffer::Output => base,
    };
    access.input_offset += offset(access.reads);
    access.output_offset += offset(access.writes);
    access.columns.push(Column {
        count: rows,
        input_stride: access.input_distance,
        output_stride: access.output_distance,
    });
    access.reads = Buffer::Scratch;
    access.writes = Buffer::Scratch;
    access.input_distance = workspace;
    access.output_distance = workspace;
    pass.normalizes = false;
    pass
}

/// The passes of a complex transform of `spec` along `axes` (the others
/// are done), from `from` into `to` (the same buffer and layout: in place),
/// their workspace from element `base` of each transform's on, and where
/// that ends: the axes that need Bluestein's algorithm first, each into
/// `to`, then the others as the planner plans them.
fn complex_axes(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    axes: &[usize],
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
    base: usize,
) -> Result<(Vec<Pass>, usize), Error> {
    let mut passes = Vec::new();
    let mut extent = base;
    let mut at = from;
    let prime: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|&a| needs_bluestein(spec.shape[a]))
        .collect();
    for &axis in &prime {
        let (axis_passes, end) = axis_passes(
            spec,
            target,
            wisdom,
            axis,
            (at.0, at.1, AxisSide::Complex),
            (to.0, to.1, AxisSide::Complex),
            base,
        )?;
        passes.extend(axis_passes);
        extent = extent.max(end);
        at = to;
    }
    let smooth: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|&a| !prime.contains(&a) && spec.shape[a] > 1)
        .collect();
    if !smooth.is_empty() {
        let done: Vec<usize> = (0..spec.shape.len())
            .filter(|a| !smooth.contains(a))
            .collect();
        let (other_passes, end) = other_axes(spec, wisdom, &done, at, to, base)?;
        passes.extend(other_passes);
        extent = extent.max(end);
    }
    Ok((passes, extent))
}

/// The passes of the axes of a complex transform of `spec` but the `done`
/// ones, from `from` into `to`, and where their workspace (from `base` on)
/// ends: the planner's plan of `spec` with the `done` axes of one point,
/// whose kernels then run once per point of those axes (a column each,
/// after the plan's own, like more transforms of a batch).
fn other_axes(
    spec: &FftSpec,
    wisdom: &Wisdom,
    done: &[usize],
    from: (Buffer, &Layout),
    to: (Buffer, &Layout),
    base: usize,
) -> Result<(Vec<Pass>, usize), Error> {
    let mut shape = spec.shape.clone();
    for &axis in done {
        shape[axis] = 1;
    }
    let in_place = from.0 == to.0 && from.1 == to.1;
    let others = FftSpec {
        shape,
        kind: TransformKind::C2c,
        input_layout: Some(from.1.clone()),
        output_layout: Some(to.1.clone()),
        placement: match in_place {
            true => Placement::InPlace,
            false => Placement::OutOfPlace,
        },
        normalization: Normalization::None,
        choices: Default::default(),
        ..spec.clone()
    };
    let plan = super::plan_with_wisdom(&others, wisdom)?;
    let mut workspace = plan.scratch_elements;
    let mut passes = plan.passes;
    for &axis in done.iter().filter(|&&a| spec.shape[a] > 1) {
        for pass in &mut passes {
            let access = &mut pass.access;
            let stride = |buffer: Buffer| match (buffer, in_place) {
                (Buffer::Scratch, _) => workspace,
                (Buffer::Input, _) | (Buffer::Output, true) => from.1.strides[axis],
                (Buffer::Output, false) => to.1.strides[axis],
            };
            access.columns.push(Column {
                count: spec.shape[axis],
                input_stride: stride(access.reads),
                output_stride: stride(access.writes),
            });
        }
        workspace *= spec.shape[axis];
    }
    // The sub-plan's buffers are `from`'s and `to`'s (in place: the input is
    // the output), its workspace `base` elements in.
    for pass in &mut passes {
        let access = &mut pass.access;
        for (buffer, offset) in [
            (&mut access.reads, &mut access.input_offset),
            (&mut access.writes, &mut access.output_offset),
        ] {
            match *buffer {
                Buffer::Scratch => *offset += base,
                Buffer::Input => *buffer = from.0,
                Buffer::Output => *buffer = to.0,
            }
        }
    }
    Ok((passes, base + workspace))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_lengths_are_fast_sizes_of_at_least_2n_minus_1() {
        assert_eq!(padded_length(37), 75);
        assert_eq!(padded_length(4099), 8232);
        assert_eq!(padded_length(10007), 20160);
        for n in [37, 41, 97, 4099, 65537] {
            let m = padded_length(n);
            assert!(m >= 2 * n - 1 && m < 2 * (2 * n - 1), "{n}: {m}");
        }
    }
}
