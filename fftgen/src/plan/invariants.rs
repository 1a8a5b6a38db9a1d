//! What every plan must satisfy before a kernel of it is emitted, checked
//! where a plan is built ([`super::plan`] returns no plan that breaks one):
//! each pass's radix stages compute the DFT of its length (seed 000,
//! section IV.B: the Stockham stages multiply to N, each stage's stride is
//! the product of the radices before it, and T threads cover every
//! butterfly), its threads, launch bound and shared memory fit the target,
//! and a complex pass reads and writes only inside the buffers the plan's
//! layouts size. The planner's own choices never break these; the check is
//! what turns a combination of options it did not foresee into an error
//! instead of a wrong answer or an access past a buffer.

use super::{
    AxisSide, ChirpRole, ExchangeBuffers, ExchangeWidth, GlobalIo, MirroredColumns, Pass, Plan,
    RealEnd, RealRoute, RealStep, StageTwiddles, TwiddleTables, Twiddles,
};
use crate::codelet::is_supported_radix;
use crate::{Buffer, Error, Precision, Target, TransformKind};

/// Complex values one thread may hold at most, whatever was asked for:
/// twice the planner's register budget in f32 (the f64 budget is 16, and
/// sizes such as 3025 = 11^2 x 25 plan 33). More is no faster anywhere
/// and makes kernels the compilers take minutes over (PoCL) or spill
/// throughout.
pub const MAX_VALUES_PER_THREAD: usize = 64;

/// Why `plan`, planned for `target`, cannot run correctly, if it cannot.
pub fn check(plan: &Plan, target: &Target) -> Result<(), Error> {
    let passes: Vec<&Pass> = plan.passes.iter().chain(&plan.inverse_passes).collect();
    if passes.is_empty() {
        return Err(broken(0, plan.n, "the plan has no pass".into()));
    }
    for (i, pass) in passes.iter().enumerate() {
        let fail = |reason: String| broken(i, pass.n, reason);
        check_blocks(pass, plan, i < plan.passes.len()).map_err(fail)?;
        // The split or merge of a real transform on its own computes no FFT.
        if pass.real.is_some_and(|real| real.end == RealEnd::Apart) {
            check_threads(pass, target).map_err(fail)?;
            continue;
        }
        // So do the chirp steps of Bluestein's algorithm on their own.
        if let Some(chirp) = pass.chirp.filter(|_| pass.stages.is_empty()) {
            check_threads(pass, target).map_err(fail)?;
            check_chirp(pass, chirp).map_err(fail)?;
            if plan.kind == TransformKind::C2c {
                check_bounds(pass, plan).map_err(fail)?;
            }
            continue;
        }
        if let Some(chirp) = pass.chirp {
            check_chirp(pass, chirp).map_err(fail)?;
        }
        check_stages(pass, plan.precision).map_err(fail)?;
        if let Some(fused) = &pass.fused_axes {
            check_fused(pass, fused).map_err(fail)?;
        }
        check_launch(pass, plan.precision, target).map_err(fail)?;
        check_real_step(pass, i < plan.passes.len()).map_err(fail)?;
        if plan.kind == TransformKind::C2c {
            check_bounds(pass, plan).map_err(fail)?;
        }
    }
    if plan.kind == TransformKind::C2c {
        // An axis with no factors is not transformed (a step of a
        // distributed transform along the others).
        for (axis, factors) in plan.axis_factors.iter().enumerate() {
            if factors.is_empty() && plan.normalization_points.is_some() {
                continue;
            }
            let product = factors.iter().try_fold(1usize, |a, &f| a.checked_mul(f));
            if product != plan.shape.get(axis).copied() {
                return Err(broken(
                    0,
                    plan.n,
                    format!(
                        "axis {axis} is split into {factors:?}, which do not multiply to its length"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A buffer cut into blocks for an exchange: blocks that cut evenly, over
/// a dense complex buffer whose transforms they cover exactly, read and
/// written by passes whose every access goes through the blocked place
/// (not Bluestein's steps, nor a real transform's split or merge apart).
fn check_blocks(pass: &Pass, plan: &Plan, forward: bool) -> Result<(), String> {
    let access = &pass.access;
    for (blocks, buffer) in [
        (access.input_blocks, access.reads),
        (access.output_blocks, access.writes),
    ] {
        let Some(blocks) = blocks else { continue };
        blocks.check()?;
        if pass.chirp.is_some() || pass.real.is_some_and(|r| r.end == RealEnd::Apart) {
            return Err("a chirp step or a real split apart cannot move blocks".into());
        }
        let complex = plan.complex_shape();
        // A C2R reads the complex side (the R2C's output layout) and writes reals.
        let layout = match (plan.kind, buffer, forward) {
            (TransformKind::C2c, Buffer::Input, _) => &plan.input_layout,
            (TransformKind::C2c, Buffer::Output, _) => &plan.output_layout,
            (TransformKind::R2c, Buffer::Output, true) => &plan.output_layout,
            (TransformKind::R2c, Buffer::Input, false) => &plan.output_layout,
            _ => {
                return Err(format!(
                    "blocks on the {buffer:?} buffer, which is not complex"
                ))
            }
        };
        // The blocks cover whole transforms: one or several of the batch.
        if !layout.is_contiguous(&complex) || blocks.natural_elements() % layout.distance != 0 {
            return Err(format!(
                "blocks {blocks:?} on the {buffer:?} buffer, whose layout {layout:?} is not \
                 the dense one they cover"
            ));
        }
    }
    Ok(())
}

fn broken(pass: usize, n: usize, reason: String) -> Error {
    Error::BrokenPlan { pass, n, reason }
}

/// A chirp pass pads to a length the convolution needs, reads a table of
/// the entries it indexes, and covers every point of its rows with the
/// chunks of its first column.
fn check_chirp(pass: &Pass, chirp: super::Chirp) -> Result<(), String> {
    if let Some(rader) = chirp.rader {
        return check_rader(pass, chirp, rader);
    }
    // (A pass of several of the FFT of M is checked against M below.)
    let whole_row = chirp.index.is_some() || pass.n == chirp.padded;
    if chirp.n < 2 || chirp.padded < 2 * chirp.n - 1 || !whole_row {
        return Err(format!(
            "a convolution of {} points cannot hold Bluestein's for {} (it needs {})",
            chirp.padded,
            chirp.n,
            2 * chirp.n.max(1) - 1
        ));
    }
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    let fused = !pass.stages.is_empty();
    if !fused && matches!(chirp.role, ChirpRole::Whole { .. }) {
        return Err("Bluestein's algorithm in one kernel has no FFT stages".into());
    }
    if len != chirp.table_offset + chirp.table_len(fused) {
        return Err(format!(
            "its twiddle table has {len} entries where its chirp's end at {}",
            chirp.table_offset + chirp.table_len(fused)
        ));
    }
    if fused {
        return check_fused_chirp(pass, chirp);
    }
    let (read, write) = chirp.side_points();
    let chunk = pass.threads_per_fft * pass.values_per_thread;
    let covered = pass.access.columns.first().map_or(0, |c| c.count * chunk);
    if pass
        .access
        .columns
        .first()
        .is_none_or(|c| c.input_stride != 0 || c.output_stride != 0)
        || covered < read.max(write)
    {
        return Err(format!(
            "its blocks cover {covered} points of rows of {}",
            read.max(write)
        ));
    }
    Ok(())
}

/// Rader's algorithm over a prime axis of N points: in one kernel (the
/// whole algorithm, its FFTs of N - 1 read and written straight from
/// registers, where the product's step stores X[0] of the thread's own
/// FFT), with the least generator, and its table the permutation and the
/// spectrum.
fn check_rader(pass: &Pass, chirp: super::Chirp, rader: super::Rader) -> Result<(), String> {
    if super::Rader::of(chirp.n) != Some(rader) || chirp.padded + 1 != chirp.n {
        return Err(format!(
            "Rader's algorithm for {} points convolves {} (generator {}): it needs a prime \
             whose {} - 1 points the radices cover, and its least generator",
            chirp.n, chirp.padded, rader.generator, chirp.n
        ));
    }
    let direct = pass.io == GlobalIo::Direct && pass.output_io == GlobalIo::Direct;
    if !matches!(chirp.role, ChirpRole::Whole { .. })
        || chirp.index.is_some()
        || pass.n != chirp.padded
        || !direct
    {
        return Err(
            "Rader's algorithm runs whole in one kernel over rows of N - 1, straight between \
             global memory and registers"
                .into(),
        );
    }
    if !pass.exchanges_through_one_set() {
        return Err("Rader's algorithm exchanges through one set of shared arrays".into());
    }
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    if len != chirp.table_offset + chirp.table_len(true) {
        return Err(format!(
            "its twiddle table has {len} entries where Rader's tables end at {}",
            chirp.table_offset + chirp.table_len(true)
        ));
    }
    Ok(())
}

/// An FFT of M with a step of Bluestein's algorithm on its loads or
/// stores: in one kernel, one row per FFT, both ends straight between
/// global memory and registers; on the first or last pass of several, its
/// FFTs at the four-step index the step names (column c, the points
/// c + `points` p, the column's stride on that side `points` times
/// shorter than the points'), that side not staged through shared memory.
fn check_fused_chirp(pass: &Pass, chirp: super::Chirp) -> Result<(), String> {
    let Some(index) = chirp.index else {
        let direct_or_tile = |io| matches!(io, GlobalIo::Direct | GlobalIo::ColumnTile);
        return match (pass.io, pass.output_io, chirp.role) {
            (io, output_io, ChirpRole::Whole { .. })
                if !direct_or_tile(io) || !direct_or_tile(output_io) =>
            {
                Err(
                    "Bluestein's algorithm in one kernel reads and writes global memory \
                     directly or through a tile of columns"
                        .into(),
                )
            }
            // The second FFT of the whole algorithm reads what the first
            // left in the one set of shared arrays of both parts.
            (_, _, ChirpRole::Whole { .. }) if !pass.exchanges_through_one_set() => Err(
                "Bluestein's algorithm in one kernel exchanges through one set of shared \
                     arrays of both parts, over two stages or more"
                    .into(),
            ),
            (_, _, ChirpRole::Whole { .. }) => Ok(()),
            (
                GlobalIo::Direct,
                GlobalIo::Direct,
                ChirpRole::Load { .. } | ChirpRole::Store { .. },
            ) => Ok(()),
            // The R2C's half spectra of a pair of transforms, separated
            // from the row of M in shared memory.
            (
                GlobalIo::Direct,
                GlobalIo::StagedThroughShared,
                ChirpRole::Store {
                    side: AxisSide::PairedHalfSpectra,
                },
            ) if pass.transform_pairs && pass.exchange_width == ExchangeWidth::BothParts => Ok(()),
            _ => Err(
                "an FFT with a chirp step reads and writes global memory directly (the \
                      R2C's paired half spectra through shared memory)"
                    .into(),
            ),
        };
    };
    let access = &pass.access;
    let Some(column) = access.columns.get(index.column) else {
        return Err(format!(
            "its chirp step's index names column {}, which it lacks",
            index.column
        ));
    };
    let (io, point_stride, column_stride) = match chirp.on_loads() {
        true => (pass.io, access.input_stride, column.input_stride),
        false => (pass.output_io, access.output_stride, column.output_stride),
    };
    if column.count != index.points
        || index.points * pass.n != chirp.padded
        || point_stride != index.points * column_stride
    {
        return Err(format!(
            "its chirp step takes points c + {} p of rows of {}, which its FFTs of {} (column \
             {} of {} FFTs, stride {column_stride}; points {point_stride} apart) are not",
            index.points, chirp.padded, pass.n, index.column, column.count
        ));
    }
    if io == GlobalIo::StagedThroughShared {
        return Err("a chirp step on a side staged through shared memory".into());
    }
    Ok(())
}

/// The stages compute a DFT of the pass's length with its threads, and
/// read their twiddles as the pass's choice says.
fn check_stages(pass: &Pass, precision: Precision) -> Result<(), String> {
    let n = pass.n;
    let radices = pass.radices();
    if n < 2 || pass.stages.is_empty() {
        return Err(format!(
            "a pass of {n} points with {} stages",
            pass.stages.len()
        ));
    }
    if let Some(&radix) = radices.iter().find(|&&r| !is_supported_radix(r)) {
        return Err(format!("radix {radix} has no butterfly"));
    }
    let product = radices.iter().try_fold(1usize, |a, &r| a.checked_mul(r));
    if product != Some(n) {
        return Err(format!("its radices {radices:?} do not multiply to {n}"));
    }
    let threads = pass.threads_per_fft;
    if threads == 0 {
        return Err("it has no thread per transform".into());
    }
    let mut stride = 1;
    let mut twiddles = 0;
    let mut values = 0;
    for (s, stage) in pass.stages.iter().enumerate() {
        let butterflies = n / stage.radix;
        let last = s + 1 == pass.stages.len();
        let consistent = stage.stride == stride
            && stage.butterflies_per_thread == butterflies.div_ceil(threads)
            && stage.guarded == (butterflies % threads != 0)
            && stage.exchange.is_none() == last
            && stage.twiddle_offset.is_some() == (stride > pass.twiddle_divisor(stride))
            && stage.twiddle_offset.is_none_or(|offset| offset == twiddles)
            && stage.twiddle_form
                == match stage.twiddle_offset.is_some() {
                    true => StageTwiddles::for_stage(
                        pass.twiddle_tables,
                        stage.radix,
                        stride,
                        precision.complex_bytes(),
                    ),
                    false => StageTwiddles::Direct,
                };
        if !consistent {
            return Err(format!(
                "stage {s} (radix {}) does not follow from the stages before it and {threads} threads",
                stage.radix
            ));
        }
        if stage.twiddle_offset.is_some() {
            twiddles += stage.twiddle_form.table_len(stage.radix, stride);
        }
        values = values.max(stage.butterflies_per_thread * stage.radix);
        stride *= stage.radix;
    }
    let Twiddles::RoundedF64Table { len } = pass.twiddles;
    if len < twiddles {
        return Err(format!(
            "its twiddle table has {len} entries where its stages read {twiddles}"
        ));
    }
    if pass.values_per_thread < values {
        return Err(format!(
            "a thread holds {} values where a stage gives it {values}",
            pass.values_per_thread
        ));
    }
    if pass.values_per_thread > MAX_VALUES_PER_THREAD {
        return Err(format!(
            "a thread would hold {} values, over the {MAX_VALUES_PER_THREAD} a thread may",
            pass.values_per_thread
        ));
    }
    Ok(())
}

/// A pass of several axes at once ([`super::fused_axes`]): two axes or
/// more whose points are the pass's, their radices in turn, the first
/// stage's inputs from shared memory (which it reads transposed), direct
/// twiddle tables (whose exponents it divides), and nothing else fused.
fn check_fused(pass: &Pass, fused: &super::FusedAxes) -> Result<(), String> {
    if super::FusedAxes::of(&fused.lengths).is_none() || fused.points() != pass.n {
        return Err(format!(
            "its axes {:?} are not two or more whose points are its {}",
            fused.lengths, pass.n
        ));
    }
    if !fused.aligned(&pass.radices()) {
        return Err(format!(
            "its radices {:?} do not run its axes {:?} in turn, innermost first",
            pass.radices(),
            fused.lengths
        ));
    }
    if pass.io == GlobalIo::Direct || pass.exchange_width == ExchangeWidth::OnePartAtATime {
        return Err("a pass of several axes reads its first stage from shared memory".into());
    }
    if pass.twiddle_tables != TwiddleTables::Direct {
        return Err("a pass of several axes reads its twiddles from direct tables".into());
    }
    if pass.chirp.is_some() || pass.step_twiddle.is_some() {
        return Err("a pass of several axes has no chirp or four-step twiddle".into());
    }
    // A real step only over a real transform's whole shape, whose rows lie
    // at their own strides (super::real_shape).
    let whole_real_shape = pass.real.is_some_and(|real| {
        real.route == RealRoute::PairedRows
            && real.end == RealEnd::Both
            && fused.lengths.last() == Some(&real.real_n)
    });
    if pass.real.is_some() != fused.real_rows.is_some()
        || (pass.real.is_some() && !whole_real_shape)
    {
        return Err(
            "a pass of several axes has a real step only as a real transform's whole shape \
             (paired transforms, its innermost axis the real one, rows at their own strides)"
                .into(),
        );
    }
    if whole_real_shape
        && (pass.io != GlobalIo::StagedThroughShared
            || pass.output_io != GlobalIo::StagedThroughShared)
    {
        return Err(
            "a real transform's whole shape in one pass stages both ends through shared memory"
                .into(),
        );
    }
    Ok(())
}

/// The block's threads, launch bound and shared memory fit `target`.
fn check_launch(pass: &Pass, precision: Precision, target: &Target) -> Result<(), String> {
    check_threads(pass, target)?;
    check_shared(pass, precision, target)
}

/// The block's threads and launch bound fit `target`.
fn check_threads(pass: &Pass, target: &Target) -> Result<(), String> {
    let threads = pass.ffts_per_block.checked_mul(pass.threads_per_fft);
    if pass.ffts_per_block == 0 || threads != Some(pass.threads_per_block) {
        return Err(format!(
            "{} threads per block are not {} transforms of {} threads",
            pass.threads_per_block, pass.ffts_per_block, pass.threads_per_fft
        ));
    }
    if pass.threads_per_block > target.max_threads_per_block {
        return Err(format!(
            "{} threads per block, over the {} of {}",
            pass.threads_per_block,
            target.max_threads_per_block,
            target.describe()
        ));
    }
    let blocks = pass.min_blocks_per_sm;
    if blocks == 0
        || blocks > target.max_blocks_per_sm
        || blocks * pass.threads_per_block > target.max_threads_per_sm
    {
        return Err(format!(
            "a launch bound of {blocks} blocks of {} threads per multiprocessor",
            pass.threads_per_block
        ));
    }
    Ok(())
}

/// The shared memory the block's exchanges address is what it declares,
/// within what `target` grants.
fn check_shared(pass: &Pass, precision: Precision, target: &Target) -> Result<(), String> {
    let static_limit = target.plannable_shared_bytes();
    let limit = match pass.dynamic_shared {
        false => static_limit,
        true => target
            .max_opt_in_shared_bytes
            .saturating_sub(target.compiler_shared_bytes)
            .max(static_limit),
    };
    if pass.shared_bytes > limit {
        return Err(format!(
            "{} bytes of shared memory, over the {limit} a block of {} may {}",
            pass.shared_bytes,
            target.describe(),
            if pass.dynamic_shared {
                "opt in to"
            } else {
                "declare"
            }
        ));
    }
    // The arrays every exchange and staged side address.
    let parts = match pass.exchange_width {
        ExchangeWidth::BothParts | ExchangeWidth::Interleaved => 2,
        ExchangeWidth::OnePartAtATime => 1,
    };
    let sets = match pass.exchange_buffers {
        ExchangeBuffers::Reused => 1,
        ExchangeBuffers::Alternating => 2,
    };
    let needed = pass
        .ffts_per_block
        .checked_mul(pass.fft_stride)
        .and_then(|words| words.checked_mul(parts * sets * precision.real_bytes()));
    if needed.is_none_or(|needed| needed > pass.shared_bytes) {
        return Err(format!(
            "its {} transforms per block of {} words each need more than its {} bytes of shared memory",
            pass.ffts_per_block, pass.fft_stride, pass.shared_bytes
        ));
    }
    let exchanged = pass
        .stages
        .iter()
        .filter_map(|s| s.exchange)
        .map(|p| p.padded_len(pass.n))
        .max()
        .unwrap_or(0);
    if exchanged > pass.fft_stride {
        return Err(format!(
            "an exchange spans {exchanged} words, past the {} between transforms",
            pass.fft_stride
        ));
    }
    Ok(())
}

/// A fused real step meets an FFT of the length its route computes (the
/// R2C's where `forward`, else the C2R's).
fn check_real_step(pass: &Pass, forward: bool) -> Result<(), String> {
    let Some(real) = pass.real else {
        return Ok(());
    };
    // The real steps that stage through shared memory address its arrays
    // in parts.
    let staged = pass.io != GlobalIo::Direct || pass.output_io != GlobalIo::Direct;
    if staged && pass.exchange_width == ExchangeWidth::Interleaved {
        return Err(
            "its real step stages through shared memory, whose values it keeps in two \
             arrays, not interleaved (choose --exchange-width both-parts)"
                .into(),
        );
    }
    if let RealEnd::Mirrored(mirrored) = real.end {
        return check_mirrored(pass, real.real_n, mirrored, forward);
    }
    if real.hermitian_half {
        return check_hermitian_half(pass, real, forward);
    }
    // Rows pair up only where one kernel holds the whole axis, and a
    // whole axis in one kernel of the full length always pairs them.
    let both = real.end == RealEnd::Both;
    if (real.route == RealRoute::PairedRows) != (both && real.route != RealRoute::HalfLength) {
        return Err(format!(
            "its real step takes the {:?} route at {:?}: paired rows are the route of a \
             whole axis in one kernel of the full length, and only there",
            real.route, real.end
        ));
    }
    let fft_n = match (real.route, real.end) {
        (RealRoute::HalfLength, RealEnd::Both) => real.real_n / 2,
        (RealRoute::PairedRows, RealEnd::Both) => {
            real.real_n * pass.fused_axes.as_ref().map_or(1, |fused| fused.rows())
        }
        _ => return Ok(()),
    };
    if fft_n != pass.n {
        return Err(format!(
            "its FFT of {} points serves a real row of {} ({:?} route), which needs one of {fft_n}",
            pass.n, real.real_n, real.route
        ));
    }
    Ok(())
}

/// A pass of a full-length axis whose workspace holds one half of the
/// Hermitian symmetry ([`RealStep::hermitian_half`]) is the first or the
/// last of two, its FFTs span the axis with its column of the axis, and
/// that column is halved in the R2C's last pass and the C2R's first.
fn check_hermitian_half(pass: &Pass, real: RealStep, forward: bool) -> Result<(), String> {
    let (RealRoute::FullLength, RealEnd::Loads(index) | RealEnd::Stores(index)) =
        (real.route, real.end)
    else {
        return Err(format!(
            "one half of the Hermitian symmetry is kept between the two passes of a full-length \
             axis, not at {:?} of the {:?} route",
            real.end, real.route
        ));
    };
    let halved = matches!(
        (real.end, forward),
        (RealEnd::Stores(_), true) | (RealEnd::Loads(_), false)
    );
    let expected = match halved {
        true => index.points / 2 + 1,
        false => index.points,
    };
    let columns = pass.access.columns.get(index.column).map(|c| c.count);
    if pass.n * index.points != real.real_n || columns != Some(expected) {
        return Err(format!(
            "its FFTs of {} points over {columns:?} columns do not hold one half of the Hermitian \
             symmetry of a real row of {} ({expected} columns of {} expected)",
            pass.n, real.real_n, index.points
        ));
    }
    Ok(())
}

/// A [`RealEnd::Mirrored`] pass computes the FFT of N / 2 as C columns of
/// one row at unit column stride, its tile pairs them (an even number of
/// slots per block, both ends tiled for the split), and the half
/// spectrum's side holds M + 1 values per row.
fn check_mirrored(
    pass: &Pass,
    real_n: usize,
    mirrored: MirroredColumns,
    forward: bool,
) -> Result<(), String> {
    let access = &pass.access;
    let (m, c) = (real_n / 2, mirrored.columns);
    let [column] = access.columns.as_slice() else {
        return Err("a tile of mirrored columns needs the columns of one row alone".into());
    };
    if column.count != c || c * pass.n != m || c < 2 {
        return Err(format!(
            "its {} columns of {} points do not make the FFT of {m} of a real row of {real_n} \
             as {c} mirrored columns",
            column.count, pass.n
        ));
    }
    let (tiled, column_stride, point_stride, distance) = match forward {
        true => (
            pass.io == GlobalIo::ColumnTile
                && pass.output_io == GlobalIo::ColumnTile
                && pass.ffts_per_block.is_multiple_of(2),
            column.output_stride,
            access.output_stride,
            access.output_distance,
        ),
        false => (
            pass.io == GlobalIo::ColumnTile,
            column.input_stride,
            access.input_stride,
            access.input_distance,
        ),
    };
    if !tiled {
        return Err(format!(
            "its tile of {} FFTs ({:?} in, {:?} out) cannot pair columns u and {c} - u",
            pass.ffts_per_block, pass.io, pass.output_io
        ));
    }
    if (column_stride, point_stride) != (1, c) || distance < m + 1 {
        return Err(format!(
            "its half spectrum (columns {column_stride} apart, points {point_stride} apart, \
             rows {distance} apart) does not hold the {} values of a row at unit column stride",
            m + 1
        ));
    }
    if mirrored.twiddle.span != real_n {
        return Err(format!(
            "its table of w_N^k spans {}, not N = {real_n}",
            mirrored.twiddle.span
        ));
    }
    Ok(())
}

/// A complex pass addresses only what the plan's buffers hold per
/// transform, and steps between transforms as the buffer's layout does.
fn check_bounds(pass: &Pass, plan: &Plan) -> Result<(), String> {
    let access = &pass.access;
    // A chirp pass reads and writes rows of different lengths; an FFT of
    // M with a step on the user's side addresses the user's N points.
    let (read_points, write_points) = match pass.chirp {
        None => (pass.n, pass.n),
        Some(chirp) if pass.stages.is_empty() => chirp.side_points(),
        Some(chirp) => {
            let (user_reads, user_writes) = chirp.side_points();
            match chirp.role {
                ChirpRole::Load { .. } => (user_reads, pass.n),
                ChirpRole::Multiply => (pass.n, pass.n),
                ChirpRole::Store { .. } => (pass.n, user_writes),
                ChirpRole::Whole { .. } => (user_reads, user_writes),
                ChirpRole::Separate => (user_reads, user_writes),
            }
        }
    };
    // Where the step's index names a column, the user's side steps along
    // the axis at that column's stride and the column is the axis.
    let user_index = pass
        .chirp
        .filter(|c| c.role != ChirpRole::Multiply)
        .and_then(|c| c.index.map(|index| (index.column, c.on_loads())));
    let along_axis = |reads: bool, stride: usize| match user_index {
        Some((column, on_loads)) if on_loads == reads => {
            let column = &access.columns[column];
            match reads {
                true => column.input_stride,
                false => column.output_stride,
            }
        }
        _ => stride,
    };
    let columns_of = |reads: bool| -> Vec<(usize, usize)> {
        access
            .columns
            .iter()
            .enumerate()
            .filter(
                |&(i, _)| !matches!(user_index, Some((c, on_loads)) if c == i && on_loads == reads),
            )
            .map(|(_, c)| match reads {
                true => (c.count, c.input_stride),
                false => (c.count, c.output_stride),
            })
            .collect()
    };
    // Elements per transform a buffer holds, and its distance.
    let extent = |buffer: Buffer| -> Option<(usize, usize)> {
        match buffer {
            Buffer::Input => Some((
                plan.input_layout.checked_span(&plan.shape)?,
                plan.input_layout.distance,
            )),
            Buffer::Output => Some((
                plan.output_layout.checked_span(&plan.shape)?,
                plan.output_layout.distance,
            )),
            Buffer::Scratch => Some((plan.scratch_elements, plan.scratch_elements)),
        }
    };
    let sides = [
        (
            "reads",
            read_points,
            access.reads,
            access.input_offset,
            along_axis(true, access.input_stride),
            access.input_distance,
            columns_of(true),
        ),
        (
            "writes",
            write_points,
            access.writes,
            access.output_offset,
            along_axis(false, access.output_stride),
            access.output_distance,
            columns_of(false),
        ),
    ];
    let pairs = if pass.transform_pairs { 2 } else { 1 };
    for (verb, points, buffer, offset, stride, distance, columns) in sides {
        let reach = (points - 1)
            .checked_mul(stride)
            .and_then(|last| last.checked_add(offset))
            .and_then(|first_column| {
                columns
                    .iter()
                    .try_fold(first_column, |acc, &(count, stride)| {
                        acc.checked_add(count.checked_sub(1)?.checked_mul(stride)?)
                    })
            })
            .and_then(|last| last.checked_add(1));
        let Some((held, buffer_distance)) = extent(buffer) else {
            return Err(format!("the {buffer:?} buffer's extent overflows"));
        };
        match reach {
            // A pass over pairs of transforms steps two at a time.
            Some(reach) if reach <= held && distance == buffer_distance * pairs => {}
            _ => {
                return Err(format!(
                    "it {verb} up to element {} of each transform in the {buffer:?} buffer, \
                     which holds {held} (transforms {buffer_distance} apart; the pass steps {distance})",
                    reach.map_or("past 2^64".to_string(), |r| (r - 1).to_string())
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FftSpec, Layout, ShapeChoices};

    fn planned(spec: FftSpec) -> (Plan, Target) {
        let target = spec.planned_target().clone();
        (crate::plan::plan(&spec).unwrap(), target)
    }

    #[test]
    fn a_plan_read_from_json_keeps_the_invariants() {
        let (plan, target) = planned(FftSpec::new(4096));
        let json = serde_json::to_string(&plan).unwrap();
        assert_eq!(Plan::from_json(&json, &target), Ok(plan.clone()));
        // A radix edited by hand: the radices no longer multiply to 4096.
        let mut edited: serde_json::Value = serde_json::from_str(&json).unwrap();
        edited["passes"][0]["stages"][0]["radix"] = 8.into();
        let err = Plan::from_json(&edited.to_string(), &target).unwrap_err();
        assert!(matches!(err, Error::BadPlanJson { .. }), "{err}");
        assert!(err.to_string().contains("pass 0 (4096 points)"), "{err}");
        let err = Plan::from_json("{\"n\": 4096}", &target).unwrap_err();
        assert!(err.to_string().contains("missing field"), "{err}");
    }

    fn split(n: usize, split: &[usize]) -> FftSpec {
        FftSpec::new(n).choices(ShapeChoices {
            split: Some(split.to_vec()),
            ..ShapeChoices::default()
        })
    }

    #[test]
    fn plans_the_planner_makes_keep_them() {
        for spec in [
            FftSpec::new(4096),
            FftSpec::new(6561).target(Target::H200),
            FftSpec::new(1 << 20),
            FftSpec::with_shape(&[64, 48, 40]),
            FftSpec::new(1600).kind(TransformKind::R2c),
        ] {
            let (plan, target) = planned(spec);
            check(&plan, &target).unwrap();
        }
    }

    #[test]
    fn a_pass_whose_radices_do_not_make_its_length_is_refused() {
        let (mut plan, target) = planned(FftSpec::new(6561).target(Target::H200));
        plan.passes[0].stages[0].radix = 16;
        let err = check(&plan, &target).unwrap_err();
        assert!(
            matches!(
                err,
                Error::BrokenPlan {
                    pass: 0,
                    n: 6561,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn threads_shared_memory_and_reach_past_the_target_are_refused() {
        let (plan, target) = planned(FftSpec::new(4096));
        let mut over = plan.clone();
        over.passes[0].shared_bytes = 64 * 1024;
        assert!(check(&over, &target).is_err());
        let mut threads = plan.clone();
        threads.passes[0].ffts_per_block = 8;
        threads.passes[0].threads_per_block *= 8;
        assert!(check(&threads, &target).is_err());
        let mut reach = plan.clone();
        reach.passes[0].access.output_stride = 2;
        assert!(check(&reach, &target).is_err());
        // A one-kernel plan for the H200's opt-in memory is not one for the
        // portable target.
        let (h200, _) = planned(FftSpec::new(6561).target(Target::H200));
        assert!(check(&h200, &Target::PORTABLE).is_err());
    }

    /// The command lines that gave wrong answers, panicked or hung
    /// (issues 23 and 24) now plan correctly or are refused clearly.
    #[test]
    fn option_combinations_that_went_wrong_plan_or_are_refused() {
        let plan = |spec: FftSpec| crate::plan::plan(&spec);
        // One pass forced past 4096: the opt-in schedule where it fits.
        let one = plan(split(6561, &[6561]).target(Target::H200)).unwrap();
        assert_eq!(one.passes.len(), 1);
        assert!(one.passes[0].dynamic_shared);
        assert!(matches!(
            plan(split(6561, &[6561])),
            Err(Error::PassTooLarge { .. })
        ));
        let long = plan(split(93312, &[8, 11664]).target(Target::H200)).unwrap();
        assert_eq!(long.passes[1].radices().iter().product::<usize>(), 11664);
        // Real transforms: radices of the complex FFT of N / 2, two passes
        // at least for an odd axis past one kernel, enough threads.
        let real = |n: usize| FftSpec::new(n).kind(TransformKind::R2c);
        assert!(matches!(
            plan(real(1600).radices(&[2, 10, 4, 2, 2, 5])),
            Err(Error::RadixProduct { n: 800, .. })
        ));
        plan(real(1600).radices(&[2, 10, 4, 2, 5])).unwrap();
        let one_pass = |n: usize| {
            real(n).choices(ShapeChoices {
                split: Some(vec![n]),
                ..ShapeChoices::default()
            })
        };
        for n in [6561, 7865] {
            assert!(
                matches!(plan(one_pass(n)), Err(Error::BadSplit { .. })),
                "{n}"
            );
        }
        // 4375's FFT of N fits the portable target's static shared memory.
        assert_eq!(plan(one_pass(4375)).unwrap().passes.len(), 1);
        let hang = real(1125)
            .precision(Precision::F64)
            .radices(&[3, 3, 5, 5, 5])
            .choices(ShapeChoices {
                radices: Some(vec![3, 3, 5, 5, 5]),
                threads_per_fft: Some(1),
                ..ShapeChoices::default()
            });
        assert!(matches!(
            plan(hang),
            Err(Error::BadThreadsPerFft { min: 19, .. })
        ));
        // Layouts whose reach wraps around 64 bits.
        for (strides, distance) in [(vec![usize::MAX, 1], 4096), (vec![64, 1], usize::MAX)] {
            let layout = Layout { strides, distance };
            let spec =
                FftSpec::with_shape(&[64, 64]).layouts(layout, Layout::contiguous(&[64, 64]));
            assert!(matches!(plan(spec), Err(Error::BadLayout { .. })));
        }
    }
}
