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
    Pass, PaddingSearch, Plan, TwiddleTables, Twiddles,
};
use crate::{Buffer, Error, FftSpec, Layout, Normalization, Placement, Target, TransformKind};
use serde::{Deserialize, Serialize};

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
/// it cannot: the padded rows must fit the limits of one transform.
pub fn validate(spec: &FftSpec, max_points: usize) -> Result<(), Error> {
    for (axis, &n) in spec.shape.iter().enumerate() {
        if !needs_bluestein(n) {
            continue;
        }
        let prime = *prime_factors(n).last().expect("n >= 2 has a prime factor");
        if spec.kind == TransformKind::R2c && spec.shape.len() > 1 {
            return Err(Error::PrimeAxisUnsupported {
                shape: spec.shape.clone(),
                axis,
                prime,
                reason: "Bluestein's algorithm runs 1D real transforms and complex ones of \
                         any shape; transform this shape as c2c"
                    .into(),
            });
        }
        let rows = spec.points() / n;
        let padded = padded_length(n);
        if padded.checked_mul(rows).is_none_or(|p| p > max_points) {
            return Err(Error::PrimeAxisUnsupported {
                shape: spec.shape.clone(),
                axis,
                prime,
                reason: format!(
                    "its Bluestein rows pad to {padded} points, {rows} of them per transform, \
                     over the {max_points} one transform may have; split the axis's work into \
                     smaller transforms"
                ),
            });
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
            if !needs_bluestein(n) {
                return format!(
                    "axis {axis} ({n}): Stockham radix passes (its prime factors are at most 31)"
                );
            }
            let prime = *prime_factors(n).last().expect("n >= 2 has a prime factor");
            let padded = padded_length(n);
            let fused = plan
                .passes
                .iter()
                .any(|p| p.chirp.is_some_and(|c| c.n == n) && !p.stages.is_empty());
            format!(
                "axis {axis} ({n}): Bluestein's algorithm (the prime factor {prime} is no radix): \
                 a cyclic convolution of {padded} points (the least product of 2, 3, 5 and 7 of \
                 at least 2 x {n} - 1) by two FFTs of {padded}, {}",
                match fused {
                    true => "each one kernel, the chirps and the spectrum's product in their \
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
    let prime_axes: Vec<usize> = (0..spec.shape.len())
        .filter(|&a| needs_bluestein(spec.shape[a]))
        .collect();
    let mut scratch = 0;
    let mut forward = Vec::new();
    let mut inverse = Vec::new();
    match spec.kind {
        TransformKind::C2c => {
            let mut from = (Buffer::Input, &input_layout);
            for &axis in &prime_axes {
                let (passes, elements) = axis_passes(
                    spec,
                    target,
                    wisdom,
                    axis,
                    (from.0, from.1, AxisSide::Complex),
                    (Buffer::Output, &output_layout, AxisSide::Complex),
                )?;
                forward.extend(passes);
                scratch = scratch.max(elements);
                from = (Buffer::Output, &output_layout);
            }
            if prime_axes.len() < spec.shape.iter().filter(|&&n| n > 1).count() {
                let (passes, elements) = other_axes(spec, wisdom, &prime_axes, &output_layout)?;
                forward.extend(passes);
                scratch = scratch.max(elements);
            }
        }
        // One real axis (validate refuses the others): R2C from the reals
        // to the half spectrum, C2R back.
        TransformKind::R2c => {
            let (passes, elements) = axis_passes(
                spec,
                target,
                wisdom,
                0,
                (Buffer::Input, &input_layout, AxisSide::Reals),
                (Buffer::Output, &output_layout, AxisSide::HalfSpectrum),
            )?;
            forward = passes;
            scratch = elements;
            // The C2R reads the half spectrum (its input) and writes the reals.
            inverse = axis_passes(
                spec,
                target,
                wisdom,
                0,
                (Buffer::Input, &output_layout, AxisSide::HalfSpectrum),
                (Buffer::Output, &input_layout, AxisSide::Reals),
            )?
            .0;
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
        .map(|pass| in_workspace(pass, rows, rows_elements, workspace))
        .collect();

    // The other axes tell the rows apart, the fastest first; in the
    // workspace the rows are dense, M apart.
    let mut row_columns = Vec::new();
    let mut row_stride = padded;
    for other in (0..spec.shape.len()).rev().filter(|&b| b != axis) {
        row_columns.push((spec.shape[other], from.1.strides[other], to.1.strides[other], row_stride));
        row_stride *= spec.shape[other];
    }
    let chirp_pass = |role: ChirpRole, reads: (Buffer, usize, usize), writes: (Buffer, usize, usize)| {
        let chirp = Chirp { role, n, padded, table_offset: 0 };
        let user_stride = |buffer: Buffer, layout: &Layout| match buffer {
            Buffer::Scratch => 1,
            _ => layout.strides[axis],
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
                input_stride: match reads.0 {
                    Buffer::Scratch => scratch_stride,
                    _ => from_stride,
                },
                output_stride: match writes.0 {
                    Buffer::Scratch => scratch_stride,
                    _ => to_stride,
                },
            });
        }
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
                input_stride: user_stride(reads.0, from.1),
                output_stride: user_stride(writes.0, to.1),
                columns,
                input_distance: reads.1,
                output_distance: writes.1,
                input_offset: reads.2,
                output_offset: writes.2,
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
            let chirp = Chirp { role, n, padded, table_offset: len };
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
                        true => Column { count, input_stride: user_stride, output_stride: scratch_stride },
                        false => Column { count, input_stride: scratch_stride, output_stride: user_stride },
                    }
                })
                .collect();
            match user_reads {
                true => {
                    (access.reads, access.input_stride) = (user, layout.strides[axis]);
                    (access.input_distance, access.input_offset) = (layout.distance, 0);
                    access.writes = Buffer::Scratch;
                    (access.output_stride, access.output_distance) = (1, workspace);
                }
                false => {
                    (access.writes, access.output_stride) = (user, layout.strides[axis]);
                    (access.output_distance, access.output_offset) = (layout.distance, 0);
                    access.reads = Buffer::Scratch;
                    (access.input_stride, access.input_distance) = (1, workspace);
                }
            }
            pass
        };
        return Ok((
            vec![
                fused(ChirpRole::Load { side: from.2 }, true),
                fused(ChirpRole::Store { side: to.2 }, false),
            ],
            workspace,
        ));
    }
    let workspace_side = (Buffer::Scratch, workspace, 0);
    let mut passes = vec![chirp_pass(
        ChirpRole::Load { side: from.2 },
        (from.0, from.1.distance, 0),
        workspace_side,
    )];
    passes.extend(fft.iter().cloned());
    passes.push(chirp_pass(ChirpRole::Multiply, workspace_side, workspace_side));
    passes.extend(fft);
    passes.push(chirp_pass(
        ChirpRole::Store { side: to.2 },
        workspace_side,
        (to.0, to.1.distance, 0),
    ));
    Ok((passes, workspace))
}

/// `pass` of the in-place plan of one row of M, moved into the workspace
/// of a plan whose transforms each hold `rows` such rows: the row plan's
/// data (its input and output) at the start of the workspace, its own
/// workspace after the `rows_elements` of the rows; the transforms of the
/// batch `workspace` elements apart. The row plan's batch becomes the last
/// column (the rows), so the kernel's FFTs are the same and only where
/// they sit changes.
fn in_workspace(pass: &Pass, rows: usize, rows_elements: usize, workspace: usize) -> Pass {
    let mut pass = pass.clone();
    let access = &mut pass.access;
    let offset = |buffer: Buffer| match buffer {
        Buffer::Scratch => rows_elements,
        Buffer::Input | Buffer::Output => 0,
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

/// The passes of the axes of a complex transform that need no Bluestein,
/// in place on the output, and the workspace they need per transform: the
/// planner's plan of `spec` with the `prime_axes` of one point, whose
/// kernels then run once per point of those axes (a column each, after
/// the plan's own, like more transforms of a batch).
fn other_axes(
    spec: &FftSpec,
    wisdom: &Wisdom,
    prime_axes: &[usize],
    output_layout: &Layout,
) -> Result<(Vec<Pass>, usize), Error> {
    let mut shape = spec.shape.clone();
    for &axis in prime_axes {
        shape[axis] = 1;
    }
    let others = FftSpec {
        shape,
        kind: TransformKind::C2c,
        input_layout: Some(output_layout.clone()),
        output_layout: Some(output_layout.clone()),
        placement: Placement::InPlace,
        normalization: Normalization::None,
        ..spec.clone()
    };
    let plan = super::plan_with_wisdom(&others, wisdom)?;
    let mut workspace = plan.scratch_elements;
    let mut passes = plan.passes;
    for &axis in prime_axes {
        for pass in &mut passes {
            let access = &mut pass.access;
            // In place, the data is the output buffer.
            for buffer in [&mut access.reads, &mut access.writes] {
                if *buffer == Buffer::Input {
                    *buffer = Buffer::Output;
                }
            }
            let stride = |buffer: Buffer| match buffer {
                Buffer::Scratch => workspace,
                Buffer::Input | Buffer::Output => output_layout.strides[axis],
            };
            access.columns.push(Column {
                count: spec.shape[axis],
                input_stride: stride(access.reads),
                output_stride: stride(access.writes),
            });
        }
        workspace *= spec.shape[axis];
    }
    Ok((passes, workspace))
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
