//! A real transform's whole shape in one pass: where the points of all its
//! axes fit one kernel (2D and 3D `r2c`), the R2C reads the reals once and
//! writes the half spectrum once, where a pass per axis moves everything
//! once per axis.
//!
//! Two transforms x and y of the batch are the real and imaginary parts of
//! one complex DFT over every axis at once ([`FusedAxes`], seed 000's
//! Stockham form of seed 001's multi-dimensional DFT), z = x + i y, as
//! [`RealRoute::PairedRows`] pairs two rows of one axis. A real input's
//! spectrum is Hermitian over every axis, X[-k] = conj X[k] with -k the
//! point whose every coordinate is negated (modulo its axis's length), so:
//!
//! - R2C, on the stores: X[k] = (Z[k] + conj Z[-k]) / 2 and Y[k] = (Z[k] -
//!   conj Z[-k]) / 2i for the half spectrum's points (last coordinate to
//!   N / 2);
//! - C2R, on the loads: Z[k] = X[k] + i Y[k] and Z[-k] = conj X[k] + i conj
//!   Y[k] from each value of the half spectra; the values whose mirror is
//!   in the half spectrum too (last coordinate 0, or N / 2 of an even N)
//!   are averaged with their mirror's conjugate first, as numpy's `irfftn`
//!   keeps only the real part of those rows' inverse; the stores keep the
//!   real parts (x) and the imaginary parts (y).
//!
//! Both ends are staged through shared memory, where each thread pairs
//! points other threads computed; the rows of the innermost axis lie at
//! their own strides on each side ([`RowStrides`]).

use super::access::Access;
use super::bluestein::needs_bluestein;
use super::choices::ShapeChoices;
use super::pass_planner::{max_size, opt_in_resident, plan_fused_pass, resident_by_value_words};
use super::radix::{choose, values_per_thread};
use super::real_step::{RealEnd, RealRoute, RealStep};
use super::{ExchangeBuffers, ExchangeWidth, FusedAxes, GlobalIo, Pass, RowStrides};
use crate::{Buffer, Direction, FftSpec, Layout, Precision, Target};

/// Complex values of registers the separation or the merge holds beyond
/// the FFT's, where the launch bound counts the values' words (as a real
/// axis's rows in opt-in shared memory reserve them). In f32 ptxas spilled
/// with 4 at three blocks of 20 values (C2R 20x125: 8 bytes; R2C 20x2, 20
/// values over 2 threads: 140) and at five of 26 (72x52: 28), with 10 at
/// three of 20 still (sm_90).
fn real_step_values(precision: Precision) -> usize {
    match precision {
        Precision::F32 => 12,
        Precision::F64 => 4,
    }
}

/// Register words of values a thread holds past which the group's FFT is
/// spread over more threads, each axis in radices to [`SMALL_RADIX`]. Its
/// staged ends leave a thread of many values few warps beside it to hide
/// the loads (H200, `scripts/device/compare_planners.sh`, cuFFT/ours of R2C
/// / C2R, values a thread before -> after: f32 32x32 1.45 / 1.65 -> 2.02 /
/// 1.89 (32 -> 8), 96x18 0.85 / 1.03 -> 1.10 / 1.10 (32 -> 12), 15x192
/// 1.03 / 1.26 -> 1.23 / 1.29 (30 -> 16), 60x60 1.20 / 1.42 -> 1.33 / 1.46
/// (25 -> 16); f64 96x18 1.01 / 1.02 -> 1.19 / 1.09 (16 -> 12), 12x10
/// 1.14 / 1.32 -> 1.18 / 1.24 (20 -> 10), 16x16x8 1.53 / 1.92 -> 1.73 /
/// 1.73 (16 -> 8)). At 48 words or fewer the spread lost (f32 12x10, 40
/// words: 1.01 -> 0.64; 48x40, 32: 1.34 -> 1.22; 16x16x16, 32: 1.83 ->
/// 1.69).
const MOST_VALUE_WORDS: usize = 48;

/// Past [`max_size`] points an f64 group is staged in opt-in shared
/// memory, to this many times max_size, as the C2C's rows of several axes
/// are (super::multipass), where each axis is within max_size and the
/// threads keep their values in registers. A lone block of about 1024
/// threads an SM then computes it: in f64 that beat the passes per axis,
/// in f32 the R2C lost (H200, cuFFT/ours R2C / C2R, passes -> one:
/// f64 64x128 0.93 / 0.93 -> 1.02 / 1.17; f32 128x128 0.89 / 0.87 -> 0.79
/// / 0.90, 64x128 0.92 / 0.92 -> 0.83 / 0.93, 16x32x32 1.31 / 1.17 ->
/// 1.14 / 1.18, 64x256 0.82 / 0.87 -> 0.84 / 0.98, 50x300 0.67 / 0.69 ->
/// 0.92 / 1.07; docs/bench/h200_real_whole_shape.txt), so f32 groups stay
/// within max_size.
const OPT_IN_KERNELS: usize = 6;

/// Points a whole shape of `precision` may hold ([`OPT_IN_KERNELS`]).
fn most_points(precision: Precision) -> usize {
    match precision {
        Precision::F32 => max_size(precision),
        Precision::F64 => max_size(precision) * OPT_IN_KERNELS,
    }
}

/// Register words of values a thread of a group in opt-in shared memory
/// holds at most (see [`stage_both_ends`]).
const OPT_IN_VALUE_WORDS: usize = 32;

/// The largest radix of a spread group's axes ([`MOST_VALUE_WORDS`]).
const SMALL_RADIX: usize = 8;

/// The one pass of `spec`'s R2C (`forward`) or C2R over its whole shape,
/// from the reals laid out as `real` to the half spectrum as `half`
/// (reversed for the C2R); `None` where the shape is not one for it: one
/// axis, an axis of one point or one that needs Bluestein's algorithm,
/// more points than [`most_points`] allows, choices by
/// hand (which name the axes' own passes), or rows of the innermost axis
/// that are not evenly spaced on either side; past one kernel's static
/// shared memory, an axis past [`max_size`] or threads whose values
/// registers do not hold ([`OPT_IN_KERNELS`]).
pub fn pass(
    spec: &FftSpec,
    target: &Target,
    real: &Layout,
    half: &Layout,
    direction: Direction,
) -> Option<Pass> {
    let shape = &spec.shape;
    let fused = FusedAxes::of(shape)?;
    let one_kernel = max_size(spec.precision);
    if !spec.choices.is_empty()
        || shape.iter().any(|&n| needs_bluestein(n) || n > one_kernel)
        || fused.points() > most_points(spec.precision)
        || !evenly_spaced_rows(shape, real)
        || !evenly_spaced_rows(&spec.complex_shape(), half)
    {
        return None;
    }
    let planned = Access::dense(fused.points(), Buffer::Input, Buffer::Output);
    let fused_pass = |choices: &ShapeChoices| {
        plan_fused_pass(&fused, spec.precision, choices, target, &planned).ok()
    };
    let mut pass = fused_pass(&ShapeChoices::default())?;
    if value_words(&pass, spec.precision) > MOST_VALUE_WORDS {
        let radices = small_radices(shape, spec.precision)?;
        let spread = fused_pass(&ShapeChoices {
            radices: Some(radices),
            ..ShapeChoices::default()
        });
        if let Some(spread) = spread.filter(|p| p.values_per_thread < pass.values_per_thread) {
            pass = spread;
        }
    }
    let outer_points: usize = shape[..shape.len() - 1].iter().product();
    if in_opt_in_memory(&pass, spec.precision, target)
        && value_words(&pass, spec.precision) > OPT_IN_VALUE_WORDS
        && outer_points > OUTER_POINTS_OF_PASSES
    {
        pass = over_more_threads(&pass, spec.precision, target, &fused_pass)?;
    }
    if !stage_both_ends(&mut pass, spec.precision, target) {
        return None;
    }
    let last = shape.len() - 1;
    let (from, to) = match direction {
        Direction::Forward => (real, half),
        Direction::Inverse => (half, real),
    };
    pass.access = Access {
        input_stride: from.strides[last],
        output_stride: to.strides[last],
        columns: Vec::new(),
        input_distance: from.distance,
        output_distance: to.distance,
        ..planned
    };
    pass.fused_axes = pass.fused_axes.map(|fused| FusedAxes {
        real_rows: Some(RowStrides {
            input: from.strides[last - 1],
            output: to.strides[last - 1],
        }),
        ..fused
    });
    pass.real = Some(RealStep {
        route: RealRoute::PairedRows,
        end: RealEnd::Both,
        real_n: shape[last],
        twiddle_offset: None,
        hermitian_half: false,
    });
    Some(pass)
}

/// Whether one FFT of `pass` staged needs opt-in shared memory.
fn in_opt_in_memory(pass: &Pass, precision: Precision, target: &Target) -> bool {
    pass.n * precision.complex_bytes() > target.plannable_shared_bytes()
}

/// Points of the outer axes up to which a group whose values pass
/// [`OPT_IN_VALUE_WORDS`] keeps its passes per axis rather than
/// [`over_more_threads`]: H200, f64 cuFFT/ours R2C / C2R, passes -> one
/// kernel, 7x625 0.99 / 1.03 -> 0.90 / 1.00, 5x1024 0.96 / 0.99 -> 0.86 /
/// 0.97, 8x686 1.29 / 1.27 -> 1.12 / 1.28
/// (docs/bench/h200_real_whole_shape_more_threads.txt).
const OUTER_POINTS_OF_PASSES: usize = 8;

/// `pass`'s group over the fewest threads of a block whose values fit
/// [`OPT_IN_VALUE_WORDS`] in its radices, where its own thread count holds
/// more: f64 252x20's 5040 points as 5, 4, 7, 6, 6 hold 12 values over
/// 720 threads, 8 over 1008. On the H200, f64 cuFFT/ours R2C / C2R, the
/// passes per axis -> one kernel: 252x20 0.64 / 0.63 -> 0.90 / 0.98,
/// 192x28 0.68 / 0.64 -> 0.85 / 0.87, 35x144 0.67 / 0.69 -> 0.82 / 0.94,
/// 256x24 0.76 / 0.71 -> 1.04 / 1.04, 48x112 0.72 / 0.75 -> 0.91 / 1.01,
/// 12 of 14 shapes faster, 96x56 and 35x128 level
/// (docs/bench/h200_real_whole_shape_more_threads.txt). `None` where no
/// block's threads do.
fn over_more_threads(
    pass: &Pass,
    precision: Precision,
    target: &Target,
    fused_pass: &dyn Fn(&ShapeChoices) -> Option<Pass>,
) -> Option<Pass> {
    let radices = pass.radices();
    let fits = |threads: usize| {
        values_per_thread(pass.n, &radices, threads) * precision.complex_bytes() / 4
            <= OPT_IN_VALUE_WORDS
    };
    let threads = (pass.threads_per_fft + 1..=target.max_threads_per_block).find(|&t| fits(t))?;
    fused_pass(&ShapeChoices {
        radices: Some(radices),
        threads_per_fft: Some(threads),
        ..ShapeChoices::default()
    })
    .filter(|spread| value_words(spread, precision) <= OPT_IN_VALUE_WORDS)
}

/// The 32-bit register words of the values a thread of `pass` holds.
fn value_words(pass: &Pass, precision: Precision) -> usize {
    pass.values_per_thread * precision.complex_bytes() / 4
}

/// Each axis of `shape` in radices to [`SMALL_RADIX`] (as [`choose`]
/// picks them for its length), innermost axis first.
fn small_radices(shape: &[usize], precision: Precision) -> Option<Vec<usize>> {
    let mut radices = Vec::new();
    for &len in shape.iter().rev() {
        radices.extend(choose(
            len,
            precision.complex_bytes(),
            SMALL_RADIX,
            1024,
            true,
        )?);
    }
    Some(radices)
}

/// Whether the rows of the innermost axis of `shape` lie `layout`'s
/// stride of the axis before it apart, one after another over the outer
/// axes (each outer axis's stride its inner neighbour's times that one's
/// length).
fn evenly_spaced_rows(shape: &[usize], layout: &Layout) -> bool {
    let last = shape.len() - 1;
    (0..last - 1).all(|a| layout.strides[a] == layout.strides[a + 1] * shape[a + 1])
}

/// Stages both ends of `pass` through shared memory, both parts in one
/// reused set of arrays (each FFT's region as long as its staged rows),
/// with as many FFTs a block as the static shared memory holds, and as
/// many blocks an SM as registers hold the values' words (the real step's
/// too); false where one FFT's rows do not fit. The fused C2C pass's own
/// bound (two blocks at most) left few warps to hide the loads (H200,
/// cuFFT/ours R2C / C2R, from the values' words with 4 values beside, not
/// [`real_step_values`]: f32 64x64 0.89 / 1.10 -> 1.41 / 1.51 at four
/// blocks, 32x32 0.85 / 1.65 -> 1.45 / 1.65, 8x13 1.10 / 0.97 -> 1.28 /
/// 1.36, f64 20x30 0.77 / 0.83 -> 1.24 / 1.20; none more than 2% slower;
/// docs/bench/h200_real_whole_shape.txt). With the f32 margin 64x64 keeps
/// three blocks (1.24 / 1.42).
fn stage_both_ends(pass: &mut Pass, precision: Precision, target: &Target) -> bool {
    pass.io = GlobalIo::StagedThroughShared;
    pass.output_io = GlobalIo::StagedThroughShared;
    pass.exchange_width = ExchangeWidth::BothParts;
    pass.exchange_buffers = ExchangeBuffers::Reused;
    // Where a warp's lanes hold different FFTs they stage the same point
    // of each: an odd stride spreads them over the banks.
    pass.fft_stride = match pass.lanes {
        super::LaneLayout::FftMinor => pass.fft_stride.max(pass.n) | 1,
        super::LaneLayout::FftMajor => pass.fft_stride.max(pass.n),
    };
    let bytes_per_fft = pass.fft_stride * 2 * precision.real_bytes();
    let static_limit = target.plannable_shared_bytes();
    let opt_in_limit = target
        .max_opt_in_shared_bytes
        .saturating_sub(target.compiler_shared_bytes);
    let (limit, dynamic) = match bytes_per_fft <= static_limit {
        true => (static_limit, false),
        false => (opt_in_limit, true),
    };
    if bytes_per_fft > limit {
        return false;
    }
    pass.ffts_per_block = pass.ffts_per_block.min(limit / bytes_per_fft).max(1);
    pass.threads_per_block = pass.ffts_per_block * pass.threads_per_fft;
    pass.shared_bytes = pass.ffts_per_block * bytes_per_fft;
    pass.dynamic_shared = dynamic;
    // In opt-in memory the fused pass's own bound (the opt-in kernels'
    // register model) stands, but no more blocks than the staged rows let
    // one SM hold, and only for threads of few values: beside the walks
    // ptxas spilled at 40 words and more (sm_90: f32 20x20x20, 20 values
    // over 400 threads at two blocks, 8 bytes; 120x160, 21 over 960 at
    // one, 36; 96x200, 24 over 1024, 20), not at 32 (128x128, 16x32x32,
    // 64x256: 16 over 1024).
    if dynamic && value_words(pass, precision) > OPT_IN_VALUE_WORDS {
        return false;
    }
    if dynamic {
        let values = pass.values_per_thread;
        let resident = opt_in_resident(
            pass.threads_per_block,
            pass.shared_bytes,
            values,
            precision,
            target,
        );
        pass.min_blocks_per_sm = pass.min_blocks_per_sm.min(resident);
        return resident > 0;
    }
    pass.min_blocks_per_sm = resident_by_value_words(
        pass.threads_per_block,
        pass.shared_bytes,
        pass.values_per_thread + real_step_values(precision),
        precision,
        target,
        target.max_blocks_per_sm,
    )
    .max(1);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TransformKind;

    fn spec(shape: &[usize], precision: Precision) -> FftSpec {
        FftSpec::with_shape(shape)
            .kind(TransformKind::R2c)
            .precision(precision)
            .target(Target::H100)
    }

    #[test]
    fn small_real_shapes_take_one_pass_and_others_do_not() {
        let one = |shape: &[usize], precision| {
            let spec = spec(shape, precision);
            let (real, half) = (spec.planned_input_layout(), spec.planned_output_layout());
            pass(
                &spec,
                spec.planned_target(),
                &real,
                &half,
                Direction::Forward,
            )
        };
        let pass = one(&[96, 18], Precision::F32).expect("96x18 fits one kernel");
        assert_eq!(pass.n, 96 * 18);
        let fused = pass.fused_axes.as_ref().unwrap();
        assert_eq!(
            fused.real_rows,
            Some(RowStrides {
                input: 18,
                output: 10
            })
        );
        assert!(pass.access.columns.is_empty());
        assert!(one(&[8, 13], Precision::F64).is_some());
        // 32 values a thread (radices 32 x 32) spread to 8 (8, 4, 8, 4).
        let spread = one(&[32, 32], Precision::F32).unwrap();
        assert_eq!(
            (spread.radices(), spread.values_per_thread),
            (vec![8, 4, 8, 4], 8)
        );
        assert!(one(&[4, 6, 10], Precision::F32).is_some());
        // f64 252x20 in opt-in memory: 12 values over 720 threads spread
        // to 8 over 1008; outer axes of 8 points keep their passes.
        let opt_in = one(&[252, 20], Precision::F64).expect("252x20 f64 fits one kernel");
        assert_eq!(
            (opt_in.threads_per_fft, opt_in.values_per_thread),
            (1008, 8)
        );
        assert!(opt_in.dynamic_shared);
        assert!(one(&[7, 625], Precision::F64).is_none());
        // One axis, an axis of one point, Bluestein's, past one kernel.
        assert!(one(&[4096], Precision::F32).is_none());
        assert!(one(&[1, 64], Precision::F32).is_none());
        assert!(one(&[2, 37], Precision::F32).is_none());
        assert!(one(&[128, 128], Precision::F32).is_none());
    }
}
