//! The one-pass planner: shapes one kernel of the plan, the shared-memory
//! Stockham FFT of seed 000 (section IV.B, Fig. 4), for FFTs of a given
//! length wherever the pass's [`Access`] puts them. It picks the radix
//! sequence, the threads per FFT, the lane layout, how each side meets
//! global memory, the shared-memory exchange, the FFTs per block and the
//! launch bound within what the [`Target`] allows, from the choices it is
//! given, then heuristics. It knows nothing of the passes around it: which
//! passes a transform takes, and which measured shapes to try, is decided
//! in [`super::decompose`], [`super::multipass`] and [`super::real`].

use super::choices::ShapeChoices;
use super::cost::ScheduleFeatures;
use super::fused_axes::FusedAxes;
use super::minor_stride::minor_fft_stride;
use super::padding::{bank_words, Exchange, Padding, PaddingSearch};
use super::radix::{choose, nearly_even, thread_shape, values_per_thread};
use super::{
    Access, Column, ColumnIo, ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo, InputCaching,
    LaneLayout, Pass, Stage, StageTwiddles, TwiddleTables, Twiddles,
};
use crate::codelet::{is_supported_radix, largest_prime_factor};
use crate::{Buffer, Error, Precision, Target};
use std::cmp::Reverse;

/// Largest size one kernel handles: 48 KiB of static shared memory holds
/// 4096 complex f32 values with padding, or the real (then imaginary) parts
/// of 4096 f64 values ([`ExchangeWidth::OnePartAtATime`]).
pub const MAX_SINGLE_KERNEL: [(Precision, usize); 2] =
    [(Precision::F32, 4096), (Precision::F64, 4096)];

/// Threads per block the planner aims for: enough warps to hide latency,
/// few enough that several blocks share an SM.
const TARGET_THREADS_PER_BLOCK: usize = 256;

/// Threads per block the planner aims for where f64 FFTs of few threads
/// each share a block ([`LaneLayout::FftMinor`], staged through shared
/// memory). Their butterflies take 130-160 registers, so one block of eight
/// warps is all an SM holds, and each barrier waits for all of them. With
/// the FFTs spread over the banks ([`minor_fft_stride`]), H100, cuFFT/ours:
/// 390 (30 threads an FFT, 7 to a block) 0.54 -> 1.04x, 250 0.65 -> 0.99x,
/// 143 0.78 -> 1.02x, 256 R2C 0.65 -> 0.82x, Bluestein's 79 0.86 -> 1.52x;
/// of 70 sizes 351 lost most, 0.87 -> 0.84x
/// (docs/bench/h100_f64_minor_block.txt).
const F64_MINOR_THREADS_PER_BLOCK: usize = 64;

/// Values a thread holds at most where [`F64_MINOR_THREADS_PER_BLOCK`]
/// applies: past them (prime radices of 17 to 31, two butterflies a
/// thread) ptxas takes all 255 registers whatever the block, and 667's 46
/// values spilled 44 bytes at the stride that spreads 2 or 4 FFTs a block.
const F64_MINOR_MAX_VALUES: usize = 32;

/// Complex values a thread may keep in registers.
fn max_values_per_thread(precision: Precision) -> usize {
    match precision {
        Precision::F32 => 32,
        Precision::F64 => 16,
    }
}

/// The even f32 lengths whose rows run on two threads or more rather than
/// one ([`Request::with_f32_one_thread_values_cap`]): one thread holds 20
/// to 30 values in 127-178 registers (ptxas, sm_90), two blocks of 256 an
/// SM. On the H200, cuFFT/ours (docs/bench/h200_ab_small_rows.log): 20
/// 0.81 -> 1.10x (5 x 4 over four threads), 22 0.78 -> 1.00x (11 x 2), 24
/// 0.91 -> 1.12x (8 x 3), 26 0.80 -> 0.91x, 28 1.17 -> 1.21x, 30 0.73 ->
/// 1.02x, their rows in 2D 5-13% faster. 32 keeps its one-thread codelet
/// (97-101% of the copy).
const ONE_THREAD_F32_SPLIT: std::ops::RangeInclusive<usize> = 20..=30;

/// The most values a thread of an f32 one-kernel shape at two or three
/// blocks per SM holds for its exchanges to go interleaved
/// ([`Request::shared_opt_in_block`]).
const SHARED_OPT_IN_INTERLEAVED_VALUES: usize = 24;

/// Complex f32 values a thread of a real row may keep where its FFT would
/// otherwise have fewer threads than a warp, each of more values, and
/// this cap gives it a warp or more ([`Request::with_f32_real_row_values_cap`]).
/// H100, R2C / C2R cuFFT/ours: 810 0.88 / 0.81 -> 1.38 / 1.36x (405 as 27 x
/// 15 over 15 threads -> 9 x 9 x 5 over 45), 768 0.80 / 0.99 -> 1.51 /
/// 1.51x, 960 1.12 / 1.02 -> 1.83 / 1.84x, 432 1.02 -> 1.45x; on the H200,
/// where the FFT stayed under a warp, it lost (384 1.68 -> 1.23x, 156 1.03
/// -> 0.77x) (docs/bench/h100_f64_values_cap.txt).
const F32_REAL_ROW_FEW_THREADS_MAX_VALUES: usize = 16;

/// Complex f64 values a thread may keep where fewer, larger stages pay:
/// FFTs of fewer threads than a warp ([`Request::with_f64_values_cap`]),
/// and FFTs past [`max_size`] in radices of 2, 3 and 5 ([`opt_in_shape`]),
/// each where that saves a stage. H100, cuFFT/ours at 16 -> 26 (docs/bench/h100_f64_values_cap.txt):
/// 351 0.83 -> 1.03x ([13, 3, 3, 3] -> [13, 9, 3]), 234 0.80 -> 1.01x,
/// 20000 0.68 -> 0.95x (its columns), 8000 0.72 -> 1.15x, 10240 0.71 ->
/// 1.11x, 12288 0.89 -> 1.13x, 100x234 0.88 -> 0.98x, R2C 252 0.91 -> 1.30x,
/// Bluestein's 53 0.78 -> 1.06x. Where it saved no stage it lost (5400
/// 0.89 -> 0.78x, 7200 1.10 -> 0.82x; H200 R2C 192 0.99 -> 0.77x), as did
/// FFTs of a warp's threads or more below the static memory (2002 1.01 ->
/// 0.92x, 3456 0.89 -> 0.81x): those keep 16.
const F64_FEWER_STAGES_MAX_VALUES: usize = 26;

/// Whether one kernel holds a transform of `n` points on `target`: up to
/// [`max_size`] always (static shared memory); past it where the target's
/// opt-in shared memory holds the padded data and a radix schedule fits a
/// block ([`opt_in_shape`]), as VkFFT and cuFFTDx plan every size to about
/// 24576 points in f32 on Hopper.
pub fn fits_one_kernel(n: usize, precision: Precision, target: &Target) -> bool {
    n <= max_size(precision)
        || plan_pass(
            n,
            precision,
            &ShapeChoices::default(),
            target,
            &Access::dense(n, Buffer::Input, Buffer::Output),
        )
        .is_ok()
}

/// Registers a thread of a one-kernel transform past [`max_size`] needs
/// beside its values' words: indices, addresses, a butterfly's
/// temporaries. Fitted on the H100 (2026-11-25, docs/perf.md): 6561 as
/// 27 x 27 x 9 (54 words over 243 threads) runs three blocks per SM at 80
/// registers, 10000 as 20 x 20 x 5 x 5 (40 words over 500) two at 64;
/// 12288 as 24 x 8^3 (48 words over 512) loses a quarter of its speed at
/// two blocks' 64, 7203 as 7^4 x 3 (42 words over 343) a third at three
/// blocks' 56.
const REGISTERS_BESIDE_VALUES: usize = 20;

/// Values a thread of a few-thread f32 row FFT holds from which its
/// threads double ([`Request::doubled_for_registers`]).
const DOUBLED_THREADS_VALUES: usize = 30;

/// Values a thread holds from which an f32 pass with lanes across FFTs asks
/// for two blocks per SM ([`Request::minor_lifted`]). 20 rather than 24, H200
/// cuFFT/ours (docs/bench/h200_ab_minor_values_and_split_margin.log): 220
/// (22 values over 11 threads) 0.78 -> 1.20, 308x242 0.93 -> 1.17; 180 1.24
/// -> 1.20, 28117375 R2C/C2R 0.86/0.74 -> 0.84/0.73.
const MINOR_LIFTED_VALUES: usize = 20;

/// Registers beside the values of an f64 one-kernel schedule past 16 values
/// a thread ([`F64_FEWER_STAGES_MAX_VALUES`]), whose temporaries take two
/// registers each: 11907 as 21 x 21 x 3^3 over 567 threads (84 words in
/// 112 registers) spilled 352 bytes, 11760 as 20 x 7 x 7 x 4 x 3 over 588
/// (84 in 104) 120, 12288 as 24 x 8^3 over 512 (96 in 128) none.
const F64_REGISTERS_BESIDE_VALUES: usize = 32;

/// [`REGISTERS_BESIDE_VALUES`] of a kernel that runs one block per SM.
const LONE_BLOCK_REGISTERS_BESIDE_VALUES: usize = 16;

/// Blocks per SM the opt-in kernels ask for at most: measured up to three
/// (6561: 96% of the copy with three, 95.6% with two; 4375: 93.5% and 87%).
const OPT_IN_MAX_BLOCKS_PER_SM: usize = 3;

/// Blocks of a one-kernel transform past [`max_size`] one SM holds at
/// once: by shared memory, threads, and registers at the values' words
/// plus [`REGISTERS_BESIDE_VALUES`]; 0 where not even one block's
/// registers hold them.
pub(super) fn opt_in_resident(
    threads: usize,
    shared: usize,
    values: usize,
    precision: Precision,
    target: &Target,
) -> usize {
    resident_by_value_words(
        threads,
        shared,
        values,
        precision,
        target,
        OPT_IN_MAX_BLOCKS_PER_SM,
    )
}

/// [`opt_in_resident`]'s count of blocks, up to `most` rather than
/// [`OPT_IN_MAX_BLOCKS_PER_SM`].
pub(super) fn resident_by_value_words(
    threads: usize,
    shared: usize,
    values: usize,
    precision: Precision,
    target: &Target,
    most: usize,
) -> usize {
    let data = values * precision.complex_bytes() / 4;
    let words = data + REGISTERS_BESIDE_VALUES;
    let warp_threads = threads.div_ceil(target.warp_size) * target.warp_size;
    let granule = target.register_granule;
    let granted = |blocks: usize| {
        (target.registers_per_sm / (blocks * warp_threads) / granule * granule)
            .min(target.max_registers_per_thread)
    };
    // A lone block may run tighter: 24576 as 24 values over 1024 threads
    // (48 words in 64 registers) spills 4 bytes and reaches 65% of the copy.
    if granted(1) < data + LONE_BLOCK_REGISTERS_BESIDE_VALUES {
        return 0;
    }
    let by_shared = target.shared_bytes_per_sm / (shared + target.reserved_shared_bytes_per_block);
    let by_threads = target.max_threads_per_sm / warp_threads;
    (1..=by_shared
        .min(by_threads)
        .min(target.max_blocks_per_sm)
        .min(most))
        .rev()
        .find(|&blocks| granted(blocks) >= words)
        .unwrap_or(1)
}

/// The radices, threads per transform and launch bound of a one-kernel
/// transform of `n` points past [`max_size`] on `target`, if one fits:
/// the feasible schedule the target's fitted [`super::CostModel`] predicts
/// fastest, ranked by the rules below where it has no model.
/// Data stays in registers between the stages and one block holds one
/// FFT, so the block is resident for the whole transform: what hides the
/// memory latency is other blocks on the SM. Among the schedules whose
/// threads hold at most the planner's budget of values, in at most one
/// stage more than the fewest, the most blocks resident per SM win
/// ([`opt_in_resident`]), then the fewest guarded
/// stages (where threads share a stage's butterflies unevenly, the block
/// waits at each barrier for its busiest threads), then the fewest stages
/// (each an exchange and two barriers), then the most threads. Measured
/// on the H100 (2026-11-25): 6561 as 27 x 27 x 9 over 243 threads, three
/// blocks per SM, 96% of the copy, 9^4 over 729 threads, one block, 72%;
/// 16000 as 20^3 x 2 over 800 threads (no guard) 83%, as 25 x 16 x 10 x 4
/// over 640 (three guarded) 53%.
pub fn opt_in_shape(
    n: usize,
    precision: Precision,
    target: &Target,
) -> Option<(Vec<usize>, usize, usize)> {
    let shape = opt_in_shape_of_values(n, precision, target, max_values_per_thread(precision));
    if precision != Precision::F64 {
        return shape;
    }
    // f64 takes more values a thread where that saves a stage of a
    // schedule that fits, in radices of 2, 3 and 5 only. Not to fit one
    // where none did (of the 30 sizes from 4097 to 12288 it would, 14
    // spilled, 11088 776 bytes); nor in radices of 7, 11 or 13, whose
    // codelets spilled (ptxas, sm_90: 9450 as 18 x 7 x 5 x 5 x 3 124 bytes
    // against 8, 8624 as 16 x 11 x 7 x 7 112 against 48, 10816 564).
    let fewer_stages = opt_in_shape_of_values(n, precision, target, F64_FEWER_STAGES_MAX_VALUES)
        .filter(|raised| {
            raised
                .0
                .iter()
                .all(|&radix| largest_prime_factor(radix) <= 5)
                && shape
                    .as_ref()
                    .is_some_and(|shape| raised.0.len() < shape.0.len())
        });
    fewer_stages.or(shape)
}

/// [`opt_in_shape`] with threads of at most `max_values` values each.
fn opt_in_shape_of_values(
    n: usize,
    precision: Precision,
    target: &Target,
    max_values: usize,
) -> Option<(Vec<usize>, usize, usize)> {
    let bytes = n.checked_mul(precision.complex_bytes())?;
    // Padding adds about a word in 16 (plan_pass checks the exact layout).
    let shared = bytes + bytes / 16;
    if shared > opt_in_limit(target) {
        return None;
    }
    let max_threads = target
        .launchable_threads_per_block
        .min(target.max_threads_per_block);
    let model = super::Wisdom::built_in()
        .model(target)
        .filter(|model| model.precision == precision);
    // Feasible schedules of `stages` stages, each with its score.
    let feasible = |stages: usize| {
        super::radix::schedules(n, stages, stages)
            .into_iter()
            // Radices 28 and 30 spill past one block's registers (ptxas for
            // sm_90: 6000 as 30 x 10 x 10 x 2, 12000 as 30 x 10 x 10 x 2 x 2).
            .filter(|radices| radices.iter().all(|&r| r <= 27 || r.is_power_of_two()))
            .flat_map(|radices| {
                opt_in_threads(n, &radices, max_values, max_threads)
                    .into_iter()
                    .filter(|&(threads, values)| values <= max_values && threads <= max_threads)
                    .map(|(threads, values)| {
                        let resident = opt_in_resident(threads, shared, values, precision, target);
                        // Past the usual cap (f64's raised one) the values
                        // need a wider margin of registers, or none runs.
                        let beside = F64_REGISTERS_BESIDE_VALUES;
                        let held = values <= max_values_per_thread(precision)
                            || holds_values_beside(
                                target, threads, resident, values, precision, beside,
                            );
                        let resident = if held { resident } else { 0 };
                        let guarded = radices.iter().filter(|&&r| (n / r) % threads != 0).count();
                        let score = (Reverse(resident), guarded, radices.len(), Reverse(threads));
                        let predicted = model.map(|model| {
                            let features =
                                ScheduleFeatures::of(&radices, threads, resident, target.warp_size);
                            model.predict(&features)
                        });
                        ((predicted, score), radices.clone(), threads, resident)
                    })
                    .filter(|(_, _, _, resident)| *resident > 0)
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    // More resident blocks do not pay for more than one extra stage
    // (12000 as 6 x 5^3 x 2^4 in eight stages over two blocks): the fewest
    // stages that plan at all, and one more (radices of at most 32).
    let fewest = (1..8).find(|&s| 32usize.pow(s) >= n).unwrap_or(8) as usize;
    let (stages, mut candidates) = (fewest..=8)
        .map(|stages| (stages, feasible(stages)))
        .find(|(_, found)| !found.is_empty())?;
    candidates.extend(feasible(stages + 1));
    // The score's choice; where it shares an SM with other blocks and the
    // target has a model, the model's cheapest instead (ties by the score).
    let by_score = candidates
        .iter()
        .min_by_key(|(score, _, _, _)| score.1)?
        .clone();
    let ranked_by_model = model.is_some_and(|model| by_score.3 >= model.min_resident_blocks);
    if !ranked_by_model {
        return Some((by_score.1, by_score.2, by_score.3));
    }
    candidates
        .into_iter()
        .min_by(|(a, _, _, _), (b, _, _, _)| {
            let predicted = match (a.0, b.0) {
                (Some(a), Some(b)) => a.total_cmp(&b),
                _ => std::cmp::Ordering::Equal,
            };
            predicted.then(a.1.cmp(&b.1))
        })
        .map(|(_, radices, threads, resident)| (radices, threads, resident))
}

/// Threads per transform for `radices` past [`max_size`], with the values
/// each then holds: n / lcm (every stage even) where the lcm is at most
/// `max_values`, else n / the largest radix; where that exceeds
/// `max_threads`, the butterflies spread evenly over fewer threads, or over
/// `max_threads` of them (14157 = 13 x 11 x 11 x 9: 26 values over 1024
/// threads, 33 over 545).
fn opt_in_threads(
    n: usize,
    radices: &[usize],
    max_values: usize,
    max_threads: usize,
) -> Vec<(usize, usize)> {
    let lcm = radices.iter().fold(1, |acc, &r| acc / gcd(acc, r) * r);
    let threads = match lcm <= max_values {
        true => n / lcm,
        false => n / radices.iter().copied().max().unwrap_or(1),
    };
    let options = match threads <= max_threads {
        true => vec![threads],
        false => vec![threads.div_ceil(threads.div_ceil(max_threads)), max_threads],
    };
    options
        .into_iter()
        .map(|threads| (threads, values_per_thread(n, radices, threads)))
        .collect()
}

fn gcd(a: usize, b: usize) -> usize {
    match b {
        0 => a,
        _ => gcd(b, a % b),
    }
}

/// Threads of a block from which a tile of columns reads its input past L1
/// ([`Request::input_caching`]).
const WIDE_TILE_THREADS: usize = 768;

/// Shared memory a block may request past the static limit on `target`.
fn opt_in_limit(target: &Target) -> usize {
    target
        .max_opt_in_shared_bytes
        .saturating_sub(target.compiler_shared_bytes)
}

/// The largest single-kernel size for `precision`.
pub fn max_size(precision: Precision) -> usize {
    MAX_SINGLE_KERNEL
        .iter()
        .find(|(p, _)| *p == precision)
        .map_or(0, |&(_, n)| n)
}

/// Refuses radices given by hand that are none, one the codelets lack, or
/// whose product is not `n`.
pub(super) fn validate_radices(n: usize, radices: &[usize]) -> Result<(), Error> {
    if radices.is_empty() {
        return Err(Error::EmptyRadixList);
    }
    if let Some(&radix) = radices.iter().find(|&&r| !is_supported_radix(r)) {
        return Err(Error::UnsupportedRadix { radix });
    }
    let product = radices
        .iter()
        .try_fold(1usize, |acc, &r| acc.checked_mul(r))
        .unwrap_or(usize::MAX);
    if product != n {
        return Err(Error::RadixProduct {
            radices: radices.to_vec(),
            product,
            n,
        });
    }
    Ok(())
}

/// The single-kernel pass of `n` points with `choices` made, the rest
/// planned for `target`. Each decision is a step of [`Request`], read by
/// those after it: the radices, the threads, the stages, how the sides
/// meet global memory, the exchange, the block and the launch bound.
pub(super) fn plan_pass(
    n: usize,
    precision: Precision,
    choices: &ShapeChoices,
    target: &Target,
    access: &Access,
) -> Result<Pass, Error> {
    plan_request(
        Request::new(n, precision, choices, target, access).with_f32_one_thread_values_cap(),
    )
}

/// The pass that computes the DFT over the neighbouring axes `fused` at
/// once ([`FusedAxes`]): the radices of each axis in turn, innermost
/// first, each axis's as [`choose`] picks them for its length alone; its
/// first stage reads its inputs from shared memory (a tile, or the block's
/// rows staged), where it takes them transposed.
pub(super) fn plan_fused_pass(
    fused: &FusedAxes,
    precision: Precision,
    choices: &ShapeChoices,
    target: &Target,
    access: &Access,
) -> Result<Pass, Error> {
    let mut request = Request::new(fused.points(), precision, choices, target, access);
    request.fused = Some(fused);
    // Each axis's radices as a pass of its own would have them.
    request.max_values = max_values_per_thread(precision);
    plan_request(request)
}

/// The row FFT of a real axis's one-kernel pass (its real step fused into
/// its ends, plan/real.rs): threads as [`thread_shape`] gives them, never
/// doubled for registers (C2R 116-900 f32 ran 57 -> 41% of the copy so,
/// docs/bench/h100_small_lane_minor_threads.txt).
pub(super) fn plan_real_row_pass(
    n: usize,
    precision: Precision,
    choices: &ShapeChoices,
    target: &Target,
    access: &Access,
) -> Result<Pass, Error> {
    let mut request = Request::new(n, precision, choices, target, access);
    request.real_row = true;
    plan_request(request.with_f32_real_row_values_cap())
}

fn plan_request(request: Request) -> Result<Pass, Error> {
    let (n, choices, target, access) = (request.n, request.choices, request.target, request.access);
    let (radices, planned_opt_in) = request.radices()?;
    request.check_launch_bound_choice()?;
    let threads = request.threads(&radices, planned_opt_in.as_ref())?;
    let stages = request.stages(&radices, threads.per_fft, choices.exchange_width);
    let io = request.global_io(&stages, &threads);
    let lone_block = request.lone_opt_in_block(planned_opt_in.as_ref());
    let interleaves =
        lone_block || request.shared_opt_in_block(planned_opt_in.as_ref(), threads.values);
    let exchange = request.exchange(&io, threads.per_fft, interleaves)?;
    let (stages, io, exchange) =
        request.padded_for_width(&radices, &threads, interleaves, (stages, io, exchange));
    let block = request.block(&io, &stages, &exchange, &threads)?;
    let (io, exchange, block) = request.spread_minor_ffts(io, exchange, block, &stages, &threads);
    let min_blocks_per_sm =
        request.launch_bound(&stages, &threads, &block, planned_opt_in.as_ref())?;
    request.check_fused_registers(&block, min_blocks_per_sm, threads.values)?;
    let input_caching = request.input_caching(lone_block, &io, &block);
    Ok(Pass {
        n,
        stages: stages.stages,
        threads_per_fft: threads.per_fft,
        values_per_thread: threads.values,
        ffts_per_block: block.ffts,
        threads_per_block: block.threads,
        min_blocks_per_sm,
        lanes: stages.lanes,
        io: io.input,
        output_io: io.output,
        access: access.clone(),
        step_twiddle: None,
        transform_pairs: false,
        real: None,
        chirp: None,
        fused_axes: request.fused_axes(stages.lanes),
        normalizes: true,
        dynamic_shared: block.shared_bytes > target.plannable_shared_bytes(),
        input_caching,
        fft_stride: io.fft_stride,
        exchange_width: exchange.width,
        exchange_buffers: exchange.buffers,
        first_write: choices.first_write.unwrap_or(match lone_block {
            true => FirstWrite::Immediate,
            false => FirstWrite::AfterBarrier,
        }),
        padding_search: stages.padding_search,
        twiddle_tables: request.twiddle_tables(),
        shared_bytes: block.shared_bytes,
        twiddles: Twiddles::RoundedF64Table {
            len: stages.twiddle_len,
        },
    })
}

/// `pass` with both parts in its exchange where the planner made it
/// interleaved, its stages padded for them: planned again with every choice
/// it made pinned but the width, of which only the exchange's fields are
/// taken (steps and ends set after planning stay). `pass` as it is where it
/// does not plan so.
pub(super) fn with_both_parts(pass: &Pass, precision: Precision, target: &Target) -> Pass {
    let choices = ShapeChoices {
        exchange_width: Some(ExchangeWidth::BothParts),
        ..ShapeChoices::pinned(pass)
    };
    match plan_pass(pass.n, precision, &choices, target, &pass.access) {
        Ok(planned) => Pass {
            stages: planned.stages,
            exchange_width: planned.exchange_width,
            shared_bytes: planned.shared_bytes,
            fft_stride: planned.fft_stride,
            dynamic_shared: planned.dynamic_shared,
            ..pass.clone()
        },
        Err(_) => pass.clone(),
    }
}

/// One pass to plan: its length, the choices made, where its FFTs are, and
/// the limits every decision of [`plan_pass`] reads.
struct Request<'a> {
    n: usize,
    precision: Precision,
    choices: &'a ShapeChoices,
    target: &'a Target,
    access: &'a Access,
    /// Complex values a thread may keep in registers.
    max_values: usize,
    /// Threads a block may have.
    max_threads: usize,
    /// Whether `n` is past [`max_size`], so its block needs opt-in shared
    /// memory.
    opt_in: bool,
    /// The axes the pass computes at once, where it computes several.
    fused: Option<&'a FusedAxes>,
    /// Whether the pass is a real axis's row FFT ([`plan_real_row_pass`]).
    real_row: bool,
}

/// A schedule of [`opt_in_shape`]: its radices, threads per FFT, and the
/// blocks per SM it was scored with.
type OptInShape = (Vec<usize>, usize, usize);

/// The threads that cooperate on one FFT, and the complex values each holds.
struct Threads {
    per_fft: usize,
    values: usize,
    /// Whether the threads were doubled for registers
    /// ([`Request::doubled_for_registers`]).
    doubled: bool,
}

/// The Stockham stages of a pass, with what their shared-memory layout was
/// decided from.
struct Stages {
    stages: Vec<Stage>,
    /// Length of the twiddle table all stages share.
    twiddle_len: usize,
    lanes: LaneLayout,
    /// Shared-memory banks, in words of the element an exchange stores.
    banks: usize,
    padding_search: PaddingSearch,
}

/// How a pass's sides meet global memory, and the shared memory its FFTs
/// are laid out in.
struct Io {
    /// Bytes of shared memory a block may declare.
    shared_limit: usize,
    /// Whether the input side moves through a tile of columns.
    tiled_in: bool,
    /// Whether the output side moves through a tile of columns.
    tiled_out: bool,
    /// Shared-memory words between consecutive FFTs of a block.
    fft_stride: usize,
    input: GlobalIo,
    output: GlobalIo,
}

impl Io {
    /// Whether both sides read and write global memory directly.
    fn direct(&self) -> bool {
        self.input == GlobalIo::Direct && self.output == GlobalIo::Direct
    }
}

/// How the stages hand values to each other through shared memory, and the
/// bytes that takes per FFT.
struct ExchangeLayout {
    width: ExchangeWidth,
    buffers: ExchangeBuffers,
    bytes_per_fft: usize,
}

/// The block: its FFTs, its threads and the shared memory they declare.
struct Block {
    ffts: usize,
    threads: usize,
    shared_bytes: usize,
}

impl<'a> Request<'a> {
    fn new(
        n: usize,
        precision: Precision,
        choices: &'a ShapeChoices,
        target: &'a Target,
        access: &'a Access,
    ) -> Self {
        Request {
            n,
            precision,
            choices,
            target,
            access,
            max_values: max_values_per_thread(precision),
            max_threads: target.max_threads_per_block,
            opt_in: n > max_size(precision),
            fused: None,
            real_row: false,
        }
        .with_f64_values_cap()
    }

    /// The radices [`choose`] picks for this pass with threads of at most
    /// `max_values` values each, and the threads an FFT they give.
    fn chosen_with(&self, max_values: usize) -> Option<(Vec<usize>, usize)> {
        let (n, bytes) = (self.n, self.precision.complex_bytes());
        let radices = choose(
            n,
            bytes,
            max_values,
            self.max_threads,
            self.access.is_dense(n),
        )?;
        let threads = thread_shape(n, &radices, max_values, self.max_threads).0;
        Some((radices, threads))
    }

    /// The request with f64's cap on values a thread raised to
    /// [`F64_FEWER_STAGES_MAX_VALUES`] where the radices that cap allows
    /// take fewer stages and leave each FFT fewer threads than a warp.
    fn with_f64_values_cap(mut self) -> Self {
        if self.precision != Precision::F64 || self.choices.radices.is_some() {
            return self;
        }
        let raised = F64_FEWER_STAGES_MAX_VALUES;
        let usual_stages = self
            .chosen_with(self.max_values)
            .map(|(radices, _)| radices.len());
        let fewer_stages_few_threads =
            self.chosen_with(raised).is_some_and(|(radices, threads)| {
                usual_stages.is_none_or(|usual| radices.len() < usual)
                    && threads < self.target.warp_size
            });
        if fewer_stages_few_threads {
            self.max_values = raised;
        }
        self
    }

    /// The request of an f32 real row with its cap on values a thread
    /// lowered to [`F32_REAL_ROW_FEW_THREADS_MAX_VALUES`] where the radices
    /// the usual cap allows leave each FFT fewer threads than a warp, each
    /// holding more values, and the lowered cap's give it a warp or more.
    fn with_f32_real_row_values_cap(mut self) -> Self {
        if self.precision != Precision::F32 || self.choices.radices.is_some() {
            return self;
        }
        let (lowered, warp) = (F32_REAL_ROW_FEW_THREADS_MAX_VALUES, self.target.warp_size);
        let few_threads_of_many_values =
            self.chosen_with(self.max_values)
                .is_some_and(|(radices, threads)| {
                    threads < warp && values_per_thread(self.n, &radices, threads) > lowered
                });
        let a_warp_lowered = || {
            self.chosen_with(lowered)
                .is_some_and(|(_, threads)| threads >= warp)
        };
        if few_threads_of_many_values && a_warp_lowered() {
            self.max_values = lowered;
        }
        self
    }

    /// The request with f32's cap on values a thread lowered to about half
    /// the FFT's points where rows of an even length below 32 would run one
    /// thread each ([`ONE_THREAD_F32_SPLIT`]): the FFT then takes two
    /// threads or more, of m x 2 and the like.
    fn with_f32_one_thread_values_cap(mut self) -> Self {
        let n = self.n;
        let free = self.choices.radices.is_none() && self.choices.threads_per_fft.is_none();
        if self.precision != Precision::F32
            || !free
            || !ONE_THREAD_F32_SPLIT.contains(&n)
            || n % 2 != 0
            || !self.access.is_dense(n)
        {
            return self;
        }
        if self
            .chosen_with(self.max_values)
            .is_some_and(|(_, threads)| threads == 1)
        {
            // m x 2 over two threads: m values, and the radix-2 stage's
            // m butterflies rounded up to an even count.
            let half = n / 2;
            self.max_values = half + half % 2;
        }
        self
    }

    /// The error of a pass that no shape fits in the shared memory a block
    /// may request.
    fn too_large(&self) -> Error {
        Error::PassTooLarge {
            n: self.n,
            precision: self.precision,
            target: self.target.name.to_string(),
            shared_bytes: opt_in_limit(self.target).max(self.target.plannable_shared_bytes()),
        }
    }

    /// The radices: the user's (checked), else past [`max_size`] the
    /// schedule [`opt_in_shape`] scores best (returned whole, for the
    /// threads and launch bound it was scored with), else [`choose`]'s.
    fn radices(&self) -> Result<(Vec<usize>, Option<OptInShape>), Error> {
        let (n, precision) = (self.n, self.precision);
        let planned_opt_in = match (self.opt_in, &self.choices.radices) {
            // A pass of several axes takes each axis's radices, and its
            // threads from a schedule of the usual values.
            (true, None) if self.fused.is_some() => Some(
                opt_in_shape_of_values(n, precision, self.target, self.max_values)
                    .ok_or_else(|| self.too_large())?,
            ),
            (true, None) => {
                Some(opt_in_shape(n, precision, self.target).ok_or_else(|| self.too_large())?)
            }
            _ => None,
        };
        let radices = match (&self.choices.radices, &planned_opt_in) {
            (Some(radices), _) => {
                validate_radices(n, radices)?;
                radices.clone()
            }
            (None, _) if self.fused.is_some() => self.fused_radices()?,
            (None, Some((radices, _, _))) => radices.clone(),
            (None, None) => choose(
                n,
                precision.complex_bytes(),
                self.max_values,
                self.max_threads,
                self.access.is_dense(n),
            )
            .ok_or_else(|| self.too_large())?,
        };
        if let Some(fused) = self.fused.filter(|fused| !fused.aligned(&radices)) {
            return Err(Error::UnlaunchableRadices {
                radices,
                reason: format!(
                    "a pass over the axes {:?} at once runs their radices axis by axis, innermost first",
                    fused.lengths
                ),
            });
        }
        Ok((radices, planned_opt_in))
    }

    /// The axes a pass of several computes, their rows staged padded where
    /// a warp's lanes share an FFT.
    fn fused_axes(&self, lanes: LaneLayout) -> Option<FusedAxes> {
        self.fused.map(|fused| FusedAxes {
            rows_padding: fused.rows_padding_for(lanes == LaneLayout::FftMajor),
            ..fused.clone()
        })
    }

    /// Refuses a column pass of several axes whose block's threads would
    /// not keep their values in registers at its launch bound (the opt-in
    /// sizes' model: the values' words + [`REGISTERS_BESIDE_VALUES`]): the
    /// H200's tile of eight 3072-point columns of 64x48 (1024 threads, 24
    /// values each, 68 words) spilled 36 bytes at 64 registers. The axes
    /// then keep a pass each. Rows of several axes are not refused: 10x1000's
    /// 20 values over 500 threads fit two blocks' 64 registers.
    fn check_fused_registers(
        &self,
        block: &Block,
        blocks_per_sm: usize,
        values: usize,
    ) -> Result<(), Error> {
        if self.fused.is_none() || self.access.is_dense(self.n) {
            return Ok(());
        }
        match holds_values(
            self.target,
            block.threads,
            blocks_per_sm,
            values,
            self.precision,
        ) {
            true => Ok(()),
            false => Err(self.too_large()),
        }
    }

    /// The radices of a pass of several axes: each axis's as [`choose`]
    /// picks them for its length, innermost axis first.
    fn fused_radices(&self) -> Result<Vec<usize>, Error> {
        let fused = self.fused.expect("a pass of several axes");
        let mut radices = Vec::new();
        for &len in fused.lengths.iter().rev() {
            radices.extend(
                choose(
                    len,
                    self.precision.complex_bytes(),
                    self.max_values,
                    self.max_threads,
                    self.access.is_dense(self.n),
                )
                .ok_or_else(|| self.too_large())?,
            );
        }
        Ok(radices)
    }

    /// Refuses a launch bound chosen by the user of no block or of more
    /// blocks than an SM holds (its threads are checked once the block is
    /// known, in [`Request::launch_bound`]).
    fn check_launch_bound_choice(&self) -> Result<(), Error> {
        if let Some(blocks) = self.choices.min_blocks_per_sm {
            if blocks == 0 || blocks > self.target.max_blocks_per_sm {
                return Err(Error::BadMinBlocksPerSm {
                    blocks,
                    max: self.target.max_blocks_per_sm,
                });
            }
        }
        Ok(())
    }

    /// Threads per FFT and the values each holds: those the opt-in shape
    /// was scored with, the user's (from the fewest that hold their values
    /// in registers to the most that have a butterfly), or the heuristic's;
    /// never more than a block holds.
    fn threads(
        &self,
        radices: &[usize],
        planned_opt_in: Option<&OptInShape>,
    ) -> Result<Threads, Error> {
        let (n, max_threads) = (self.n, self.max_threads);
        let mut doubled = false;
        let (threads_per_fft, values) = match (self.choices.threads_per_fft, planned_opt_in) {
            (None, Some((_, threads, _))) => (*threads, values_per_thread(n, radices, *threads)),
            // Radices by hand past max_size: the option with fewer values.
            (None, None) if self.opt_in => opt_in_threads(
                n,
                radices,
                self.max_values,
                self.target.launchable_threads_per_block.min(max_threads),
            )
            .into_iter()
            .min_by_key(|&(_, values)| values)
            .expect("at least one option"),
            (None, None) => {
                // Along strided points (a column pass) more threads an FFT
                // leave fewer FFTs, so narrower tiles of columns, a block:
                // those keep their shape.
                let shape = thread_shape(n, radices, self.max_values, max_threads);
                let rows = self.access.input_stride == 1 && self.access.output_stride == 1;
                let shape = match rows {
                    true => nearly_even(n, radices, shape, max_threads),
                    false => shape,
                };
                let (threads, values, for_registers) = self.doubled_for_registers(radices, shape);
                doubled = for_registers;
                (threads, values)
            }
            (Some(threads), _) => {
                // A thread past the largest stage's butterflies would never
                // work; too few threads hold more values than registers do.
                let most_butterflies = n / radices.iter().copied().min().unwrap_or(n);
                let max = most_butterflies.min(max_threads);
                let held = super::invariants::MAX_VALUES_PER_THREAD;
                let min = (1..=max)
                    .find(|&t| values_per_thread(n, radices, t) <= held)
                    .unwrap_or(max);
                if threads < min.max(1) || threads > max {
                    return Err(Error::BadThreadsPerFft {
                        threads,
                        n,
                        radices: radices.to_vec(),
                        min,
                        max,
                    });
                }
                (threads, values_per_thread(n, radices, threads))
            }
        };
        if threads_per_fft > max_threads {
            return Err(Error::UnlaunchableRadices {
                radices: radices.to_vec(),
                reason: format!(
                    "they need {threads_per_fft} threads per transform (n / lcm of the radices), more than the {max_threads} a block can hold"
                ),
            });
        }
        // A pass of several axes in opt-in memory takes each axis's radices
        // as they are: where its threads would hold more values than
        // registers do (6x1250 f32: 50, spilling 596 bytes), the axes keep
        // a pass each.
        if self.fused.is_some() && self.opt_in && values > self.max_values {
            return Err(self.too_large());
        }
        Ok(Threads {
            per_fft: threads_per_fft,
            values,
            doubled,
        })
    }

    /// An f32 row FFT of even length over a few threads that each hold
    /// many values (30 or more) takes twice the threads where each still
    /// has a butterfly in every stage: ptxas gave 750 as 30 x 5 x 5 over 25
    /// threads 205 registers a thread, 11% of the SM's warps resident, 61%
    /// of the copy; over 50 threads it ran at 93%. On the H100
    /// (docs/bench/h100_small_lane_minor_threads.txt) 12 even sizes of 21
    /// gained up to 50% (58 66 -> 93%, 150 74 -> 98%, 522 43 -> 61%), 696
    /// lost 20% and 248 2%; odd sizes lost 1-10% (319, 377), so keep theirs.
    ///
    /// A C2C of 2p (p a prime radix of 17 to 23) over two threads, whose
    /// radix-2 stage gives each p + 1 values, takes four, each then holding
    /// the prime's p: on the H200 (docs/bench/h200_variants_prime_times_small.log)
    /// f32 34 0.91 -> 1.00x cuFFT, 38 0.85 -> 0.88x, 46 0.84 -> 0.94x, f64
    /// 46 0.94 -> 0.97x. 58 and 62 take four already (eight lost 30%); for
    /// 3p over six threads 51 and 87 gained, 57, 69 and 93 lost 2-11%, so
    /// those keep theirs. Such a pass takes the launch bound four threads
    /// chosen by hand take ([`Self::minor_lifted`]: two blocks an SM for
    /// f32 46, which at one ran 0.76x). Returns the threads, their values
    /// and whether they were doubled for registers.
    fn doubled_for_registers(
        &self,
        radices: &[usize],
        (threads, values): (usize, usize),
    ) -> (usize, usize, bool) {
        let doubled = 2 * threads;
        let smallest = radices.iter().copied().min().unwrap_or(self.n);
        let dense_c2c_rows = self.access.is_dense(self.n) && self.fused.is_none() && !self.real_row;
        let prime_by_two =
            matches!(radices, [p, 2] | [2, p] if (17..=23).contains(p)) && threads == 2;
        let applies = self.precision == Precision::F32
            && self.n % 2 == 0
            && dense_c2c_rows
            && threads < self.target.warp_size
            && values >= DOUBLED_THREADS_VALUES
            && doubled <= self.n / smallest;
        match (applies, dense_c2c_rows && prime_by_two) {
            (true, _) => (doubled, values_per_thread(self.n, radices, doubled), true),
            (false, true) => (doubled, values_per_thread(self.n, radices, doubled), false),
            (false, false) => (threads, values, false),
        }
    }

    /// Whether an f32 pass whose lanes hold different FFTs, each thread
    /// keeping [`MINOR_LIFTED_VALUES`] or more values, runs at two blocks
    /// per SM rather than the compiler's free choice: left free, ptxas gave
    /// 336 as 24 x 14 135 registers over 252 threads, one block per SM.
    /// On the H100 (docs/bench/h100_tune_minor_bounds.log), two blocks took
    /// 336 71 -> 93% of the copy, 390 68 -> 88%, 420 67 -> 89%, 260 67 ->
    /// 90%; on 40 sizes of 125-480 it was not set on
    /// (docs/bench/h100_minor_bounds.txt) 240 0.70 -> 0.98x cuFFT, 384 0.68
    /// -> 0.91x, 480 0.64 -> 0.86x, 270 0.99 -> 0.93x, none other lost more
    /// than 1%; on the H200 (docs/bench/h200_tune_minor_bounds_v32.log)
    /// two blocks ran 320, 416 and 448 fastest of every bound and thread
    /// count, 480 8% slower than three. Not measured: the rule's sizes
    /// below 125 and past 480 (46-124 and 483-961 in the stored plans
    /// list, two stages with a radix of 17 to 31), where 62 took 24% less
    /// time at 3-4 blocks than at one (docs/bench/h200_prime_radix_bounds.log).
    /// Threads doubled for registers keep theirs (300 over 20 threads lost
    /// 35% at two blocks), as do FFTs of one thread (24 to 32 points, not
    /// measured so). Tiles of columns rise too: left free, ptxas gave the
    /// C2R 46373600's first pass (338-point columns as 26 x 13 over 208
    /// threads, merging X[k] and X[N - k]) 134 registers, one block per SM;
    /// on the H200 (docs/bench/h200_register_partitions_and_column_bounds.txt)
    /// two blocks took its C2R 0.57 -> 0.78x cuFFT and 46592's 1.04 ->
    /// 1.18x, 17 other shapes of two random samples within 2.5% (300x256,
    /// 270x270 and 31500 among them; an older build's H100 run had those
    /// 3% slower).
    fn minor_lifted(&self, threads: &Threads, block: &Block) -> bool {
        self.precision == Precision::F32
            && self.fused.is_none()
            && !self.real_row
            && !threads.doubled
            && threads.per_fft > 1
            && threads.values >= MINOR_LIFTED_VALUES
            && resident_by_value_words(
                block.threads,
                block.shared_bytes,
                threads.values,
                self.precision,
                self.target,
                2,
            ) >= 2
    }

    /// Which lanes work on which FFT, and each stage: its butterflies per
    /// thread, where its twiddles start in the table, and the padding of
    /// its exchange (searched where a warp's lanes share one FFT, so their
    /// accesses spread over the banks) for an exchange of `width` (none:
    /// the width is yet to be planned, and padded as for both parts).
    fn stages(
        &self,
        radices: &[usize],
        threads_per_fft: usize,
        width: Option<ExchangeWidth>,
    ) -> Stages {
        let n = self.n;
        // An interleaved exchange stores whole complex values: its banks are
        // those of an element twice as wide.
        let banks = match width {
            Some(ExchangeWidth::Interleaved) => bank_words(self.precision.complex_bytes()),
            _ => bank_words(self.precision.real_bytes()),
        };
        let padding_search = self
            .choices
            .padding_search
            .unwrap_or(PaddingSearch::EvenRadices);
        let lanes = if threads_per_fft >= self.target.warp_size {
            LaneLayout::FftMajor
        } else {
            LaneLayout::FftMinor
        };
        let mut stages = Vec::with_capacity(radices.len());
        let mut stride = 1;
        let mut twiddle_len = 0;
        for (s, &radix) in radices.iter().enumerate() {
            let last = s + 1 == radices.len();
            let exchange = (!last).then(|| match lanes {
                LaneLayout::FftMajor => Padding::for_exchange(
                    Exchange {
                        n,
                        threads: threads_per_fft,
                        radix,
                        stride,
                        next_radix: radices[s + 1],
                        bank_words: banks,
                    },
                    padding_search,
                ),
                // Lanes of a warp read the same index of different FFTs: the odd
                // FFT stride alone spreads them over the banks.
                LaneLayout::FftMinor => Padding::NONE,
            });
            // The first stage of each axis has no twiddles (all 1).
            let twiddled = stride > self.fused.map_or(1, |f| f.twiddle_divisor(stride));
            let twiddle_offset = twiddled.then_some(twiddle_len);
            let twiddle_form = match twiddled {
                true => StageTwiddles::for_stage(
                    self.twiddle_tables(),
                    radix,
                    stride,
                    self.precision.complex_bytes(),
                ),
                false => StageTwiddles::Direct,
            };
            if twiddled {
                twiddle_len += twiddle_form.table_len(radix, stride);
            }
            stages.push(Stage {
                radix,
                stride,
                butterflies_per_thread: (n / radix).div_ceil(threads_per_fft),
                guarded: (n / radix) % threads_per_fft != 0,
                twiddle_offset,
                twiddle_form,
                exchange,
            });
            stride *= radix;
        }
        Stages {
            stages,
            twiddle_len,
            lanes,
            banks,
            padding_search,
        }
    }

    /// Whether the pass is a planned one-kernel shape past [`max_size`] that
    /// holds an SM alone (one block per SM). Such a block loads, computes
    /// and stores in turn with nothing to overlap its phases, so each warp
    /// stores its first exchange without waiting for the block
    /// ([`FirstWrite::Immediate`]) and the input skips L1, which the
    /// twiddles keep ([`InputCaching::L2Only`]). On the H100, every such
    /// size tuned was faster so (docs/bench/h100_tune_lone_blocks.log):
    /// 15625 0.878 -> 0.816 ms, 20000 0.918 -> 0.855, 24576 1.021 -> 0.949,
    /// f64 6561 0.922 -> 0.823; sizes of two or three blocks per SM gained
    /// 0-1% and keep the defaults.
    fn lone_opt_in_block(&self, planned: Option<&OptInShape>) -> bool {
        self.opt_in
            && self.choices.threads_per_fft.is_none()
            && self
                .choices
                .min_blocks_per_sm
                .is_none_or(|blocks| blocks == 1)
            && matches!(planned, Some((_, _, 1)))
    }

    /// Whether the pass is a planned one-kernel shape past [`max_size`]
    /// (not axes at once) at two or three blocks per SM whose threads hold at most
    /// [`SHARED_OPT_IN_INTERLEAVED_VALUES`] values: its exchanges go
    /// interleaved as a lone block's do. H200, cuFFT/ours, padded as in
    /// [`Request::padded_for_width`]
    /// (docs/bench/h200_ab_interleaved_padding_and_lone_groups.log): 7840
    /// 0.78 -> 0.88x, 5832 0.85 -> 0.91x, 10368 0.79 -> 0.83x, 6300 0.77 ->
    /// 0.79x, 63x7840 0.85 -> 0.91x; 10000 lost 13% (padding every radix's
    /// exchange did not help, docs/bench/h200_variants_2113_misses.log) and
    /// keeps both parts by a wisdom entry; 6480, 32 values a thread in 105
    /// registers, lost 4% (docs/bench/h200_variants_opt_in_interleaved.log).
    fn shared_opt_in_block(&self, planned: Option<&OptInShape>, values: usize) -> bool {
        self.opt_in
            && self.fused.is_none()
            && self.choices.threads_per_fft.is_none()
            && self.choices.min_blocks_per_sm.is_none()
            && matches!(planned, Some((_, _, 2..=3)))
            && values <= SHARED_OPT_IN_INTERLEAVED_VALUES
    }

    /// Which caches the input loads go through: as chosen; past L1 for a
    /// one-kernel shape alone on its SM ([`Request::lone_opt_in_block`]) and
    /// for an f32 tile of columns read by a block of [`WIDE_TILE_THREADS`]
    /// or more, whose shared memory leaves L1 little room beside the twiddles.
    /// On the H100 (docs/bench/h100_columns_l2.log) that took 1000x1000 from
    /// 1.691 to 1.619 ms, 2^23 2.140 -> 2.085, 2^24 2.375 -> 2.317; the
    /// 512-thread column passes of 2^20 were 3% slower so, and keep L1.
    fn input_caching(&self, lone_block: bool, io: &Io, block: &Block) -> InputCaching {
        let wide_tile =
            self.precision == Precision::F32 && io.tiled_in && block.threads >= WIDE_TILE_THREADS;
        self.choices
            .input_caching
            .unwrap_or(match lone_block || wide_tile {
                true => InputCaching::L2Only,
                false => InputCaching::L1AndL2,
            })
    }

    /// How stages read their twiddles: as chosen, else direct. Fine x
    /// coarse was slower on the H100 for every one-kernel size but 12000 and
    /// 24576, whose exchanges leave L1 the least room, and for every column
    /// pass (docs/bench/h100_twiddle_tables.log); the wisdom picks it there.
    fn twiddle_tables(&self) -> TwiddleTables {
        // A pass of several axes divides its stages' twiddle exponents,
        // which only the direct table holds.
        match self.fused {
            Some(_) => TwiddleTables::Direct,
            None => self.choices.twiddle_tables.unwrap_or(TwiddleTables::Direct),
        }
    }

    /// Shared memory a block may declare: past the static limit only in
    /// opt-in (dynamic) shared memory, and only for the one-kernel sizes
    /// that need it and for tiles of columns (for longer runs of columns).
    fn shared_limit(&self) -> usize {
        let tiled = !self.access.is_dense(self.n);
        match self.opt_in || tiled {
            true => opt_in_limit(self.target).max(self.target.plannable_shared_bytes()),
            false => self.target.plannable_shared_bytes(),
        }
    }

    /// Whether the pass moves a tile of columns through `shared_bytes` of
    /// static shared memory.
    fn static_tile(&self, shared_bytes: usize) -> bool {
        !self.access.is_dense(self.n) && shared_bytes <= self.target.plannable_shared_bytes()
    }

    /// Whether the pass moves a tile of columns through `shared_bytes` of
    /// shared memory past the static limit.
    fn opt_in_tile(&self, shared_bytes: usize) -> bool {
        !self.access.is_dense(self.n) && shared_bytes > self.target.plannable_shared_bytes()
    }

    /// Which sides (input, output) move through shared memory as a tile of
    /// neighbouring FFTs: in a pass whose FFTs are not a dense batch, the
    /// strided sides, and every side where a warp's lanes hold different
    /// FFTs, unless column I/O `global` takes that side straight to
    /// registers.
    fn tiled_sides(&self, lanes: LaneLayout) -> (bool, bool) {
        let (access, precision) = (self.access, self.precision);
        let dense = access.is_dense(self.n);
        // Column I/O `global` (seed 000 IV.A): where a warp's lanes hold
        // neighbouring FFTs adjacent in memory (at least 32 bytes of them), a
        // side goes straight between global memory and registers.
        let global =
            self.choices.column_io == Some(ColumnIo::Global) && lanes == LaneLayout::FftMinor;
        let adjacent = |stride: fn(&Column) -> usize| {
            global
                && access
                    .columns
                    .first()
                    .is_some_and(|c| stride(c) == 1 && c.count * precision.complex_bytes() >= 32)
        };
        let tiled_in = !dense
            && (access.input_stride != 1 || lanes == LaneLayout::FftMinor)
            && !adjacent(|c| c.input_stride);
        let tiled_out = !dense
            && (access.output_stride != 1 || lanes == LaneLayout::FftMinor)
            && !adjacent(|c| c.output_stride);
        (tiled_in, tiled_out)
    }

    /// How each side meets global memory (a tile of columns, directly, or
    /// staged through shared memory for small FFTs of different lanes),
    /// and the shared-memory words between a block's FFTs that follow.
    fn global_io(&self, stages: &Stages, threads: &Threads) -> Io {
        let (n, threads_per_fft) = (self.n, threads.per_fft);
        let rows_padding = self
            .fused_axes(stages.lanes)
            .map_or(Padding::NONE, |fused| fused.rows_padding);
        let padded = stages
            .stages
            .iter()
            .filter_map(|s| s.exchange)
            .chain([rows_padding])
            .map(|p| p.padded_len(n))
            .max()
            .unwrap_or(n);
        let shared_limit = self.shared_limit();
        let dense = self.access.is_dense(n);
        let lanes = stages.lanes;
        let (tiled_in, tiled_out) = self.tiled_sides(lanes);
        // A pass of several axes reads its first stage's inputs transposed,
        // from shared memory.
        let tiled_in = tiled_in || (self.fused.is_some() && !dense);
        let side = |tiled: bool| match tiled {
            true => GlobalIo::ColumnTile,
            false => GlobalIo::Direct,
        };
        let (fft_stride, input, output) = match (tiled_in || tiled_out, lanes) {
            (true, _) => {
                let base = match lanes {
                    LaneLayout::FftMajor => padded,
                    LaneLayout::FftMinor => n,
                };
                let ffts = match self.choices.ffts_per_block {
                    Some(ffts) => ffts,
                    None => tile_ffts(
                        base,
                        (threads_per_fft, threads.values),
                        stages.banks,
                        self.precision,
                        self.target,
                        shared_limit,
                    ),
                };
                (
                    tile_stride(base, ffts, stages.banks),
                    side(tiled_in),
                    side(tiled_out),
                )
            }
            (false, LaneLayout::FftMajor) if self.fused.is_some() => {
                (padded, GlobalIo::StagedThroughShared, GlobalIo::Direct)
            }
            (false, LaneLayout::FftMajor) => (padded, GlobalIo::Direct, GlobalIo::Direct),
            // Columns in and out of registers: shared memory only for exchanges
            // (none for one stage), an odd stride spreading the lanes' FFTs.
            (false, LaneLayout::FftMinor) if !dense => (
                if stages.stages.len() == 1 { 0 } else { n | 1 },
                GlobalIo::Direct,
                GlobalIo::Direct,
            ),
            (false, LaneLayout::FftMinor) => (
                n | 1,
                GlobalIo::StagedThroughShared,
                GlobalIo::StagedThroughShared,
            ),
        };
        Io {
            shared_limit,
            tiled_in,
            tiled_out,
            fft_stride,
            input,
            output,
        }
    }

    /// `planned` (stages, global I/O and exchange), or where the planner
    /// made the exchange interleaved, its stages padded as a chosen
    /// interleaved exchange's are: for the banks of a complex value, not
    /// of one part (7840 f32 ran 1% faster than both parts padded for
    /// them, docs/bench/h200_ab_shared_opt_in_interleaved.log, and 13%
    /// faster padded so, docs/bench/h200_ab_interleaved_padding_and_lone_groups.log).
    fn padded_for_width(
        &self,
        radices: &[usize],
        threads: &Threads,
        interleaves: bool,
        planned: (Stages, Io, ExchangeLayout),
    ) -> (Stages, Io, ExchangeLayout) {
        let chose_width = self.choices.exchange_width.is_some();
        if chose_width || planned.2.width != ExchangeWidth::Interleaved {
            return planned;
        }
        let stages = self.stages(radices, threads.per_fft, Some(ExchangeWidth::Interleaved));
        let io = self.global_io(&stages, threads);
        match self.exchange(&io, threads.per_fft, interleaves) {
            Ok(exchange) if exchange.width == ExchangeWidth::Interleaved => (stages, io, exchange),
            _ => planned,
        }
    }

    /// The exchange's width and buffers, and the bytes per FFT they take.
    fn exchange(
        &self,
        io: &Io,
        threads_per_fft: usize,
        interleaves: bool,
    ) -> Result<ExchangeLayout, Error> {
        let (width, bytes_per_fft) = self.exchange_width(io, threads_per_fft, interleaves)?;
        if self.fused.is_some() && width == ExchangeWidth::OnePartAtATime {
            return Err(self.too_large());
        }
        let (buffers, bytes_per_fft) =
            self.exchange_buffers(io, width, bytes_per_fft, threads_per_fft)?;
        Ok(ExchangeLayout {
            width,
            buffers,
            bytes_per_fft,
        })
    }

    /// The exchange width and its bytes per FFT: the user's where it fits;
    /// else both parts where they fit (interleaved, where `interleaves`,
    /// for an f32 one-kernel shape alone on its SM or at two or three blocks
    /// per SM ([`Request::shared_opt_in_block`]) that reads direct twiddles
    /// and global memory directly), one part at a time (half the shared memory) where only
    /// that fits and both sides are direct. A lone block has no other
    /// block's work to hide its exchanges' latency behind, and one 8-byte
    /// access per value halves their instructions. H200, cuFFT/ours
    /// (docs/bench/h200_ab_middle_axis_and_lone_interleaved.log): 16807
    /// 0.63 -> 0.78x, 15840 0.76 -> 0.85x, 13860 0.80 -> 0.91x, 21000 1.62
    /// -> 2.08x, all 11 sizes faster; H100 ms with direct twiddles
    /// (docs/bench/h100_tune_lone_blocks.log): 15625 0.815 -> 0.794, 24576
    /// 1.142 -> 1.057. With fine x coarse tables 24576 lost (0.949 ->
    /// 1.069), so those keep both parts.
    fn exchange_width(
        &self,
        io: &Io,
        threads_per_fft: usize,
        interleaves: bool,
    ) -> Result<(ExchangeWidth, usize), Error> {
        let (n, shared_limit) = (self.n, io.shared_limit);
        let direct = io.direct();
        let both_parts = io.fft_stride * 2 * self.precision.real_bytes();
        let one_part = io.fft_stride * self.precision.real_bytes();
        let one_part_fits = one_part <= shared_limit && direct;
        let interleaved_default = interleaves
            && direct
            && !self.real_row
            && self.precision == Precision::F32
            && self.twiddle_tables() == TwiddleTables::Direct;
        let width = match self.choices.exchange_width {
            None if both_parts <= shared_limit && interleaved_default => {
                (ExchangeWidth::Interleaved, both_parts)
            }
            None if both_parts <= shared_limit => (ExchangeWidth::BothParts, both_parts),
            None if one_part_fits => (ExchangeWidth::OnePartAtATime, one_part),
            None => return Err(self.too_large()),
            Some(ExchangeWidth::BothParts) if both_parts <= shared_limit => {
                (ExchangeWidth::BothParts, both_parts)
            }
            Some(ExchangeWidth::OnePartAtATime) if one_part_fits => {
                (ExchangeWidth::OnePartAtATime, one_part)
            }
            Some(ExchangeWidth::Interleaved) if both_parts <= shared_limit => {
                (ExchangeWidth::Interleaved, both_parts)
            }
            Some(width) => {
                return Err(Error::ExchangeWidthUnfit {
                    n,
                    width,
                    reason: match width {
                        ExchangeWidth::OnePartAtATime => format!(
                            "its {threads_per_fft} threads per transform stage the input through \
                             shared memory, which needs both parts"
                        ),
                        ExchangeWidth::BothParts | ExchangeWidth::Interleaved => format!(
                            "both parts take {both_parts} bytes, over the {shared_limit} \
                             bytes of shared memory a block may declare"
                        ),
                    },
                })
            }
        };
        Ok(width)
    }

    /// The exchange buffers and the bytes per FFT they take: one reused
    /// set, or two written in turn where the user asks for them and they
    /// fit (both parts, direct sides, twice the bytes).
    fn exchange_buffers(
        &self,
        io: &Io,
        width: ExchangeWidth,
        bytes_per_fft: usize,
        threads_per_fft: usize,
    ) -> Result<(ExchangeBuffers, usize), Error> {
        let (n, shared_limit) = (self.n, io.shared_limit);
        let exchange_buffers = self
            .choices
            .exchange_buffers
            .unwrap_or(ExchangeBuffers::Reused);
        let bytes_per_fft = match exchange_buffers {
            ExchangeBuffers::Reused => bytes_per_fft,
            ExchangeBuffers::Alternating => {
                let unfit = |reason: String| Error::AlternatingBuffersUnfit { n, reason };
                if width == ExchangeWidth::OnePartAtATime {
                    return Err(unfit(
                        "the one-part exchange, there to save shared memory, keeps one set".into(),
                    ));
                }
                if !io.direct() {
                    return Err(unfit(format!(
                        "its {threads_per_fft} threads per transform stage the input through shared memory"
                    )));
                }
                if 2 * bytes_per_fft > shared_limit {
                    return Err(unfit(format!(
                        "two sets of its exchange arrays take {} bytes, over the {shared_limit} \
                         bytes of shared memory a block may declare",
                        2 * bytes_per_fft
                    )));
                }
                2 * bytes_per_fft
            }
        };
        Ok((exchange_buffers, bytes_per_fft))
    }

    /// FFTs per block, within the block's threads and shared memory: the
    /// user's, else a tile's worth where a side is tiled ([`tile_ffts`]),
    /// else enough for [`TARGET_THREADS_PER_BLOCK`] threads
    /// ([`F64_MINOR_THREADS_PER_BLOCK`] for f64 FFTs of few threads each).
    fn block(
        &self,
        io: &Io,
        stages: &Stages,
        exchange: &ExchangeLayout,
        threads: &Threads,
    ) -> Result<Block, Error> {
        let threads_per_fft = threads.per_fft;
        let (max_threads, shared_limit) = (self.max_threads, io.shared_limit);
        let bytes_per_fft = exchange.bytes_per_fft;
        let most_ffts = match bytes_per_fft {
            0 => max_threads / threads_per_fft,
            bytes => (shared_limit / bytes).min(max_threads / threads_per_fft),
        };
        let ffts_per_block = match self.choices.ffts_per_block {
            None if io.tiled_in || io.tiled_out => tile_ffts(
                io.fft_stride,
                (threads_per_fft, threads.values),
                stages.banks,
                self.precision,
                self.target,
                shared_limit,
            )
            .min(most_ffts)
            .max(1),
            None => {
                let threads = match self.small_f64_minor_blocks(stages.lanes, threads.values) {
                    true => F64_MINOR_THREADS_PER_BLOCK,
                    false => TARGET_THREADS_PER_BLOCK,
                };
                (threads / threads_per_fft).max(1).min(most_ffts)
            }
            Some(ffts) if (1..=most_ffts).contains(&ffts) => ffts,
            Some(ffts) => {
                return Err(Error::BadFftsPerBlock {
                    ffts,
                    n: self.n,
                    max: most_ffts,
                    threads_per_fft,
                    bytes_per_fft,
                })
            }
        };
        Ok(Block {
            ffts: ffts_per_block,
            threads: ffts_per_block * threads_per_fft,
            shared_bytes: ffts_per_block * bytes_per_fft,
        })
    }

    /// The block with its FFTs `minor_fft_stride` words apart where f64
    /// FFTs of few threads each share it ([`F64_MINOR_THREADS_PER_BLOCK`]),
    /// so that each access's threads of several FFTs meet distinct banks;
    /// as it was where that stride takes no fewer wavefronts or does not fit.
    fn spread_minor_ffts(
        &self,
        io: Io,
        exchange: ExchangeLayout,
        block: Block,
        stages: &Stages,
        threads: &Threads,
    ) -> (Io, ExchangeLayout, Block) {
        let threads_per_fft = threads.per_fft;
        let staged_minor = self.small_f64_minor_blocks(stages.lanes, threads.values)
            && self.fused.is_none()
            && !io.tiled_in
            && !io.tiled_out
            && io.fft_stride == (self.n | 1);
        if !staged_minor {
            return (io, exchange, block);
        }
        let stride = minor_fft_stride(
            self.n,
            block.ffts,
            threads_per_fft,
            &stages.stages,
            stages.banks,
        );
        if stride == io.fft_stride {
            return (io, exchange, block);
        }
        let spread = Io {
            fft_stride: stride,
            ..io
        };
        // The same width as the narrower stride's.
        let interleaves = exchange.width == ExchangeWidth::Interleaved;
        match self.exchange(&spread, threads_per_fft, interleaves) {
            Ok(wider)
                if wider.width == exchange.width
                    && block.ffts * wider.bytes_per_fft <= spread.shared_limit =>
            {
                let block = Block {
                    shared_bytes: block.ffts * wider.bytes_per_fft,
                    ..block
                };
                (spread, wider, block)
            }
            _ => (io, exchange, block),
        }
    }

    /// Whether FFTs of `values` a thread with these lanes take blocks of
    /// [`F64_MINOR_THREADS_PER_BLOCK`]: f64 FFTs of few threads each, of at
    /// most [`F64_MINOR_MAX_VALUES`] values a thread.
    fn small_f64_minor_blocks(&self, lanes: LaneLayout, values: usize) -> bool {
        self.precision == Precision::F64
            && lanes == LaneLayout::FftMinor
            && values <= F64_MINOR_MAX_VALUES
    }

    /// Blocks per SM the kernel asks for (CUDA's launch bounds), which
    /// caps the registers per thread: the user's, within the threads an SM
    /// holds; past [`max_size`] with one FFT a block, the residency the
    /// shape was chosen for; else, where a warp's lanes share an FFT, the
    /// blocks whose registers hold [`row_registers_needed`] (tiles of columns
    /// by their own rules), and 1 for staged small transforms unless
    /// [`Request::minor_lifted`].
    fn launch_bound(
        &self,
        stages: &Stages,
        threads: &Threads,
        block: &Block,
        planned_opt_in: Option<&OptInShape>,
    ) -> Result<usize, Error> {
        let (precision, target) = (self.precision, self.target);
        let (threads_per_block, shared_bytes) = (block.threads, block.shared_bytes);
        let values = threads.values;
        let lanes = stages.lanes;
        let largest_radix = stages.stages.iter().map(|s| s.radix).max().unwrap_or(1);
        let min_blocks_per_sm = match (self.choices.min_blocks_per_sm, lanes) {
            // Also within the threads an SM holds, now that the block is known.
            (Some(blocks), _) if blocks * threads_per_block > target.max_threads_per_sm => {
                return Err(Error::BadMinBlocksPerSm {
                    blocks,
                    max: (target.max_threads_per_sm / threads_per_block).max(1),
                })
            }
            (Some(blocks), _) => blocks,
            // Past max_size one block per FFT: the bound the shape was chosen for.
            (None, LaneLayout::FftMajor) if self.opt_in && block.ffts == 1 => {
                match (planned_opt_in, self.choices.threads_per_fft) {
                    (Some((_, _, resident)), None) => *resident,
                    _ => {
                        opt_in_resident(threads_per_block, shared_bytes, values, precision, target)
                            .max(1)
                    }
                }
            }
            // An f32 tile of columns in opt-in memory: two blocks per SM
            // where shared memory, threads and the one-kernel sizes' register
            // model (values' words + 20) hold them. On the H100
            // (docs/bench/h100_column_tiles.log): 1000x1000 1.89 -> 1.70 ms,
            // 10^6 2.31 -> 2.02 ms, 1000x1000's R2C 11% faster and its C2R
            // 7% slower; in f64 10^6's R2C ran 47% slower. 6^8's columns of
            // 18 values would spill in two blocks: one.
            (None, LaneLayout::FftMajor)
                if precision == Precision::F32 && self.opt_in_tile(shared_bytes) =>
            {
                opt_in_resident(threads_per_block, shared_bytes, values, precision, target)
                    .clamp(1, 2)
            }
            // An f64 tile of columns in static shared memory: two blocks
            // per SM where the one-kernel sizes' register model holds them,
            // where the static sizes' model leaves one. On the H100:
            // 336x500 f64's columns of 336 (14 values over 42 threads,
            // eight to a block) 1.878 -> 1.556 ms, 8x352x770 unchanged.
            (None, LaneLayout::FftMajor)
                if precision == Precision::F64 && self.static_tile(shared_bytes) =>
            {
                let blocks =
                    min_blocks_per_sm(threads_per_block, shared_bytes, values, precision, target);
                let two =
                    opt_in_resident(threads_per_block, shared_bytes, values, precision, target)
                        .clamp(1, 2);
                blocks.max(two)
            }
            (None, LaneLayout::FftMajor) => {
                // A radix of 23 or more keeps the wider model: its
                // butterfly's temporaries spilled at two blocks.
                let need = if largest_radix < LIFTED_F64_RADIX_LIMIT {
                    row_registers_needed(values, precision)
                } else {
                    registers_needed(values, precision)
                };
                let blocks = blocks_granting(threads_per_block, shared_bytes, need, target);
                match (precision, blocks) {
                    (Precision::F64, 1) if largest_radix < LIFTED_F64_RADIX_LIMIT => {
                        lone_f64_block_lifted(threads_per_block, shared_bytes, values, target)
                    }
                    _ => blocks,
                }
            }
            (None, LaneLayout::FftMinor) if self.minor_lifted(threads, block) => 2,
            // Staged small transforms were measured fastest with the compiler
            // free to use registers (commit c23e3fc and its docs/perf.md):
            // shared memory, not latency, bounds them.
            (None, LaneLayout::FftMinor) => 1,
        };
        Ok(min_blocks_per_sm)
    }
}

/// FFTs a block moves together as a tile when its FFTs are columns: as many
/// neighbouring columns as make 128-byte runs, fewer where the block's
/// threads or shared memory run out (at least 32-byte runs where they fit).
fn tile_ffts(
    fft_words: usize,
    (threads_per_fft, values): (usize, usize),
    banks: usize,
    precision: Precision,
    target: &Target,
    shared_limit: usize,
) -> usize {
    let threads = target
        .launchable_threads_per_block
        .min(target.max_threads_per_block);
    // A block of so many threads that one block's registers no longer
    // hold a thread's values spills: 1760000 f64's 1375-point columns, 15
    // values over 125 threads eight to a 1000-thread block, held to 64
    // registers, spilled 264 bytes (docs/bench/sm90_occupancy_2103_2104_misses.txt).
    // Fewer FFTs a tile, H200 cuFFT/ours (docs/bench/h200_ab_spill_free_tiles.log):
    // 1760000 f64 0.82 -> 0.89, 2737800 f64 0.82 -> 1.09, 7581600 f64 C2R
    // 0.85 -> 0.97, 5000x14336 f32 C2R 0.96 -> 1.18; 4x770x2340 f64 lost
    // 1.43 -> 1.24.
    let spills = |ffts: usize| !holds_values(target, ffts * threads_per_fft, 1, values, precision);
    let fit = |limit: usize| {
        // Short columns: enough of them for the block's threads as well.
        let mut ffts = (TILE_RUN_BYTES / precision.complex_bytes())
            .max((TARGET_THREADS_PER_BLOCK / threads_per_fft).next_power_of_two());
        while ffts > 1
            && (ffts * threads_per_fft > threads
                || spills(ffts)
                || ffts * tile_stride(fft_words, ffts, banks) * 2 * precision.real_bytes() > limit)
        {
            ffts /= 2;
        }
        ffts
    };
    // Opt-in memory (one block per SM) only where a static block would
    // read runs shorter than 64 bytes: on the H200 2^17..2^19 (8 columns
    // static) ran faster static, 2^20, 1024x1024 and 6^8 (4 columns static)
    // faster with 16 in opt-in memory (docs/bench/h200_tile_ab_*.json and
    // h200_large_bench_16_columns.json).
    let static_ffts = fit(target.plannable_shared_bytes());
    match static_ffts * precision.complex_bytes() >= 64 {
        true => static_ffts,
        false => fit(shared_limit),
    }
}

/// Bytes of neighbouring columns a tile reads in one run, at most: a whole
/// 128-byte line where the target's opt-in shared memory holds 16 columns
/// (on the H200 2^20 and 1024x1024 ran 5% faster than with the 4 columns of
/// a static 48 KiB block, and 8 columns slower than both:
/// docs/bench/h200_tile_ab_*.json).
pub(super) const TILE_RUN_BYTES: usize = 128;

/// Shared-memory words between the FFTs of a tile: at least `fft_words`,
/// and such that the tile copy, whose warp touches `ffts` FFTs at a run of
/// points each, hits every bank once (`stride % banks == banks / ffts`;
/// odd for a warp's worth of FFTs or more).
fn tile_stride(fft_words: usize, ffts: usize, banks: usize) -> usize {
    // One FFT's points are consecutive words: any stride serves.
    if ffts <= 1 {
        return fft_words;
    }
    let want = if ffts >= banks { 1 } else { banks / ffts };
    (fft_words..)
        .find(|s| s % banks == want || (want == 1 && s % 2 == 1))
        .expect("some stride matches")
}

/// Registers a thread needs to hold `values` complex values and the
/// butterfly's temporaries without spilling: about four per complex value
/// held (in 32-bit words) plus a fixed overhead, for passes other than
/// one-kernel rows ([`row_registers_needed`]): tiles of columns, Bluestein's
/// whole algorithm, real rows. Fitted to ptxas reports for sm_90 over every
/// supported size: three per value spilled for composite radices such as 12
/// and 18; `tests/nvrtc_compile.rs` fails past `MAX_SPILL_BYTES`.
fn registers_needed(values: usize, precision: Precision) -> usize {
    let words = precision.real_bytes() / 4;
    4 * values * words + 16
}

/// [`registers_needed`] of a one-kernel row (lanes within an FFT): the
/// values' words and half again, plus [`REGISTERS_BESIDE_VALUES`]. Twice
/// the values' words left such rows two blocks an SM where ptxas (sm_90)
/// fits three: 1944 f64 as 9 x 6^3 over 216 threads uses 78 registers at
/// three blocks and 72 at four, none spilled. H200, cuFFT/ours
/// (docs/bench/h200_ab_row_registers.log): 1944 f64 0.83 -> 0.91, 2401
/// f64 0.78 -> 0.89, 81x12 f64 1.57 -> 1.74, 3564 f32 0.77 -> 0.86, 495
/// f32 1.25 -> 1.33; 2592 f64 1.17 -> 1.12 (20 bytes spilled at three).
fn row_registers_needed(values: usize, precision: Precision) -> usize {
    let words = precision.real_bytes() / 4;
    3 * values * words + REGISTERS_BESIDE_VALUES
}

/// Register words per complex f64 value that an f64 kernel whose static
/// model ([`min_blocks_per_sm`]: 8) leaves one block per SM is lifted to
/// two blocks with, beside [`REGISTERS_BESIDE_VALUES`]: the values' own 4
/// words and half again for the butterflies' temporaries. The values' words
/// alone (the opt-in model) spilled hundreds of bytes at radices of 13 and
/// more in these kernels; H100, cuFFT/ours: 3500 f64 (15 values over 250
/// threads, 110 of the 128 registers two blocks grant) 0.76 at one block,
/// 0.95 at two.
const LIFTED_F64_WORDS_PER_VALUE: usize = 6;

/// The radix from which an f64 kernel is not lifted: ptxas (sm_90, H100
/// target) spilled 16-56 bytes in eight of the nine lifted kernels with a
/// radix of 23 and in none of the 115 others but 3645 (12 bytes).
const LIFTED_F64_RADIX_LIMIT: usize = 23;

/// Two blocks per SM for an f64 kernel the static model leaves alone on
/// its SM, where shared memory holds two and two blocks' registers hold
/// [`LIFTED_F64_WORDS_PER_VALUE`] words a value and 20 more; else one.
fn lone_f64_block_lifted(
    threads_per_block: usize,
    shared_bytes: usize,
    values: usize,
    target: &Target,
) -> usize {
    let warp_threads = threads_per_block.div_ceil(target.warp_size) * target.warp_size;
    let granule = target.register_granule;
    let granted = (target.registers_per_sm / (2 * warp_threads) / granule * granule)
        .min(target.max_registers_per_thread);
    let by_shared =
        target.shared_bytes_per_sm / (shared_bytes + target.reserved_shared_bytes_per_block);
    let by_threads = target.max_threads_per_sm / warp_threads;
    let fits = granted >= LIFTED_F64_WORDS_PER_VALUE * values + REGISTERS_BESIDE_VALUES
        && by_shared.min(by_threads).min(target.max_blocks_per_sm) >= 2;
    1 + usize::from(fits)
}

/// Whether the registers a thread is granted where `blocks_per_sm` blocks
/// of `threads` share an SM hold `values` complex values and the
/// [`REGISTERS_BESIDE_VALUES`] beside them.
pub(super) fn holds_values(
    target: &Target,
    threads: usize,
    blocks_per_sm: usize,
    values: usize,
    precision: Precision,
) -> bool {
    holds_values_beside(
        target,
        threads,
        blocks_per_sm,
        values,
        precision,
        REGISTERS_BESIDE_VALUES,
    )
}

/// [`holds_values`] with `beside` registers for what is not the values.
fn holds_values_beside(
    target: &Target,
    threads: usize,
    blocks_per_sm: usize,
    values: usize,
    precision: Precision,
    beside: usize,
) -> bool {
    let warp_threads = threads.div_ceil(target.warp_size) * target.warp_size;
    let granted = (target.registers_per_sm / (blocks_per_sm.max(1) * warp_threads))
        .min(target.max_registers_per_thread);
    granted >= values * precision.complex_bytes() / 4 + beside
}

/// Blocks per SM to ask the compiler for: enough for half the threads an SM
/// holds (enough loads in flight to cover memory latency), no more than
/// shared memory allows, and few enough that the register budget this
/// implies still holds the thread's values.
pub(super) fn min_blocks_per_sm(
    threads_per_block: usize,
    shared_bytes: usize,
    values: usize,
    precision: Precision,
    target: &Target,
) -> usize {
    let need = registers_needed(values, precision);
    blocks_granting(threads_per_block, shared_bytes, need, target)
}

/// [`min_blocks_per_sm`] for a thread that needs `need` registers.
fn blocks_granting(
    threads_per_block: usize,
    shared_bytes: usize,
    need: usize,
    target: &Target,
) -> usize {
    let wanted = (target.max_threads_per_sm / 2).div_ceil(threads_per_block);
    let fit = target.shared_bytes_per_sm / (shared_bytes + target.reserved_shared_bytes_per_block);
    let warp_threads = threads_per_block.div_ceil(target.warp_size) * target.warp_size;
    let granule = target.register_granule;
    let budget =
        |blocks: usize| target.registers_per_sm / (blocks * warp_threads) / granule * granule;
    // A block of a few threads (a user's --ffts-per-block) would want more
    // blocks than an SM holds.
    (1..=wanted.min(fit).min(target.max_blocks_per_sm))
        .rev()
        .find(|&blocks| budget(blocks) >= need.min(target.max_registers_per_thread))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{plan, LaneLayout};
    use crate::FftSpec;

    #[test]
    fn blocks_of_few_threads_ask_no_more_blocks_than_an_sm_holds() {
        for target in [Target::H100, Target::H200] {
            for threads in [1, 2, 8, 32] {
                let bound = min_blocks_per_sm(threads, 64, 3, Precision::F32, &target);
                assert!(bound <= target.max_blocks_per_sm, "{threads}: {bound}");
            }
            // R2C of 3, two FFTs a block: two threads (was refused as a bug).
            for precision in [Precision::F32, Precision::F64] {
                let spec = FftSpec::new(3)
                    .kind(crate::TransformKind::R2c)
                    .precision(precision)
                    .target(target.clone())
                    .choices(crate::plan::ShapeChoices {
                        ffts_per_block: Some(2),
                        ..Default::default()
                    });
                plan(&spec).unwrap();
            }
        }
    }

    #[test]
    fn tile_strides_spread_a_warp_over_the_banks() {
        for banks in [16, 32] {
            for ffts in [1, 2, 4, 8, 16, 32, 64] {
                for words in [40, 1296, 1297, 4096] {
                    let stride = tile_stride(words, ffts, banks);
                    assert!(stride >= words && stride < words + banks + 1);
                    // A warp's lanes: FFT lane % ffts, point lane / ffts.
                    let lanes = banks.min(32);
                    let mut hit: Vec<usize> = (0..lanes)
                        .map(|lane| ((lane % ffts) * stride + lane / ffts) % banks)
                        .collect();
                    hit.sort();
                    hit.dedup();
                    assert_eq!(hit.len(), lanes.min(banks), "{banks} {ffts} {words}");
                }
            }
        }
    }

    const PLANNED_SHARED_BYTES: usize = 48 * 1024 - 256;
    const MAX_BLOCKS_PER_SM: usize = 32;
    const MAX_THREADS_PER_BLOCK: usize = 1024;

    #[test]
    fn n4096_radix_8_plan_shape() {
        let plan = plan(&FftSpec::new(4096).radices(&[8, 8, 8, 8])).unwrap();
        let pass = &plan.passes[0];
        assert_eq!(pass.radices(), vec![8, 8, 8, 8]);
        // n / lcm = 512 threads, split to the portable 256 with two butterflies each.
        assert_eq!(pass.threads_per_fft, 256);
        assert_eq!(pass.values_per_thread, 16);
        assert!(pass
            .stages
            .iter()
            .all(|s| s.butterflies_per_thread == 2 && !s.guarded));
        assert_eq!(pass.ffts_per_block, 1);
        assert_eq!(pass.lanes, LaneLayout::FftMajor);
        assert_eq!(
            pass.stages.iter().map(|s| s.stride).collect::<Vec<_>>(),
            vec![1, 8, 64, 512]
        );
        assert_eq!(pass.stages[0].twiddle_offset, None);
        assert_eq!(pass.stages[1].twiddle_offset, Some(0));
        assert_eq!(pass.twiddles, Twiddles::RoundedF64Table { len: 4096 - 8 });
        assert_eq!(
            pass.stages[0].exchange,
            Some(Padding { period: 32, gap: 1 })
        );
        assert_eq!(
            pass.stages[1].exchange,
            Some(Padding { period: 64, gap: 8 })
        );
        assert_eq!(pass.stages[2].exchange, Some(Padding::NONE));
        assert!(pass.shared_bytes <= PLANNED_SHARED_BYTES);
    }

    #[test]
    fn f64_4096_exchanges_one_part_at_a_time() {
        let pass = &plan(&FftSpec::new(4096).precision(Precision::F64))
            .unwrap()
            .passes[0];
        assert_eq!(pass.exchange_width, ExchangeWidth::OnePartAtATime);
        assert_eq!(pass.io, GlobalIo::Direct);
        assert_eq!(pass.shared_bytes, pass.ffts_per_block * pass.fft_stride * 8);
        assert!(pass.shared_bytes <= PLANNED_SHARED_BYTES);
        // Everything that fits both parts keeps the two-barrier exchange.
        let pass = &plan(&FftSpec::new(2048).precision(Precision::F64))
            .unwrap()
            .passes[0];
        assert_eq!(pass.exchange_width, ExchangeWidth::BothParts);
    }

    #[test]
    fn small_sizes_fill_a_block_with_interleaved_lanes() {
        let pass = &plan(&FftSpec::new(16)).unwrap().passes[0];
        assert_eq!(pass.radices(), vec![16]);
        assert_eq!(pass.threads_per_fft, 1);
        assert_eq!(pass.ffts_per_block, 256);
        assert_eq!(pass.lanes, LaneLayout::FftMinor);
        assert_eq!(pass.fft_stride, 17);
    }

    #[test]
    fn threads_per_fft_can_be_chosen() {
        // 2401 = 7^4 on 343 threads: one radix-7 butterfly each, no guard.
        let spec = FftSpec::new(2401)
            .radices(&[7, 7, 7, 7])
            .choices(ShapeChoices {
                threads_per_fft: Some(343),
                ..ShapeChoices::default()
            });
        let pass = &plan(&spec).unwrap().passes[0];
        assert_eq!(pass.threads_per_fft, 343);
        assert_eq!(pass.values_per_thread, 7);
        assert!(pass
            .stages
            .iter()
            .all(|s| s.butterflies_per_thread == 1 && !s.guarded));
        // 100 threads: four butterflies for some, three for others.
        let spec = FftSpec::new(2401).choices(ShapeChoices {
            threads_per_fft: Some(100),
            ..ShapeChoices::default()
        });
        let pass = &plan(&spec).unwrap().passes[0];
        assert_eq!(pass.values_per_thread, 28);
        assert!(pass.stages.iter().all(|s| s.guarded));
        for threads in [0, 344] {
            let spec = FftSpec::new(2401)
                .radices(&[7, 7, 7, 7])
                .choices(ShapeChoices {
                    threads_per_fft: Some(threads),
                    ..ShapeChoices::default()
                });
            assert_eq!(
                plan(&spec),
                Err(Error::BadThreadsPerFft {
                    threads,
                    n: 2401,
                    radices: vec![7, 7, 7, 7],
                    min: 39,
                    max: 343
                })
            );
        }
        assert!(matches!(
            plan(&FftSpec::new(4096).radices(&[2; 12]).choices(ShapeChoices {
                threads_per_fft: Some(1025),
                ..ShapeChoices::default()
            })),
            Err(Error::BadThreadsPerFft { max: 1024, .. })
        ));
    }

    #[test]
    fn ffts_per_block_can_be_chosen_within_what_a_block_holds() {
        let pass = &plan(&FftSpec::new(1331).choices(ShapeChoices {
            ffts_per_block: Some(1),
            ..ShapeChoices::default()
        }))
        .unwrap()
        .passes[0];
        assert_eq!((pass.ffts_per_block, pass.threads_per_block), (1, 121));
        assert_eq!(pass.shared_bytes, 1331 * 8);
        // 121 threads each: 8 fit in 1024.
        for ffts in [0, 9] {
            assert!(
                matches!(
                    plan(&FftSpec::new(1331).choices(ShapeChoices {
                        ffts_per_block: Some(ffts),
                        ..ShapeChoices::default()
                    })),
                    Err(Error::BadFftsPerBlock { max: 4, .. })
                ),
                "{ffts}"
            );
        }
    }

    #[test]
    fn launch_bound_can_be_chosen_within_what_an_sm_holds() {
        let pass = &plan(&FftSpec::new(1331).choices(ShapeChoices {
            min_blocks_per_sm: Some(3),
            ..ShapeChoices::default()
        }))
        .unwrap()
        .passes[0];
        assert_eq!(pass.min_blocks_per_sm, 3);
        for blocks in [0, MAX_BLOCKS_PER_SM + 1] {
            assert_eq!(
                plan(&FftSpec::new(1331).choices(ShapeChoices {
                    min_blocks_per_sm: Some(blocks),
                    ..ShapeChoices::default()
                })),
                Err(Error::BadMinBlocksPerSm {
                    blocks,
                    max: MAX_BLOCKS_PER_SM
                })
            );
        }
    }

    #[test]
    fn exchange_layouts_can_be_chosen_where_they_fit() {
        let pass = |spec: FftSpec| plan(&spec).map(|p| p.passes[0].clone());
        // Two sets of arrays double the shared memory of the same shape.
        let reused = pass(FftSpec::new(2401)).unwrap();
        let alternating = pass(FftSpec::new(2401).choices(ShapeChoices {
            exchange_buffers: Some(ExchangeBuffers::Alternating),
            ..ShapeChoices::default()
        }))
        .unwrap();
        assert_eq!(reused.exchange_buffers, ExchangeBuffers::Reused);
        assert_eq!(alternating.shared_bytes, 2 * reused.shared_bytes);
        // Not where two sets exceed a block's shared memory, nor for staged
        // small sizes, nor with the one-part exchange.
        for spec in [
            FftSpec::new(4000),
            FftSpec::new(64),
            FftSpec::new(2401).choices(ShapeChoices {
                exchange_width: Some(ExchangeWidth::OnePartAtATime),
                ..ShapeChoices::default()
            }),
        ] {
            assert!(matches!(
                pass(spec.choices(ShapeChoices {
                    exchange_buffers: Some(ExchangeBuffers::Alternating),
                    ..ShapeChoices::default()
                })),
                Err(Error::AlternatingBuffersUnfit { .. })
            ));
        }
        // The one-part exchange halves it, where the input is read directly.
        let one_part = pass(
            FftSpec::new(2401)
                .radices(&[7, 7, 7, 7])
                .choices(ShapeChoices {
                    exchange_width: Some(ExchangeWidth::OnePartAtATime),
                    ..ShapeChoices::default()
                }),
        )
        .unwrap();
        assert_eq!(one_part.exchange_width, ExchangeWidth::OnePartAtATime);
        assert_eq!(one_part.shared_bytes, 2401 * 4);
        assert!(matches!(
            pass(FftSpec::new(64).choices(ShapeChoices {
                exchange_width: Some(ExchangeWidth::OnePartAtATime),
                ..ShapeChoices::default()
            })),
            Err(Error::ExchangeWidthUnfit { .. })
        ));
        // Whole complex values: the shared memory of both parts, padded for
        // 8-byte elements.
        let interleaved = pass(
            FftSpec::new(4096)
                .radices(&[16, 16, 16])
                .choices(ShapeChoices {
                    exchange_width: Some(ExchangeWidth::Interleaved),
                    ..ShapeChoices::default()
                }),
        )
        .unwrap();
        assert_eq!(interleaved.exchange_width, ExchangeWidth::Interleaved);
        assert_eq!(interleaved.shared_bytes, interleaved.fft_stride * 8);
        assert_eq!(
            interleaved.stages[0].exchange,
            Some(Padding::for_stage(16, 1, 16))
        );
        // Staged through shared memory (FFTs of fewer threads than a warp),
        // the tile's copies move whole values too.
        let staged = pass(FftSpec::new(64).choices(ShapeChoices {
            exchange_width: Some(ExchangeWidth::Interleaved),
            ..ShapeChoices::default()
        }))
        .unwrap();
        assert_eq!(staged.io, GlobalIo::StagedThroughShared);
        assert_eq!(staged.exchange_width, ExchangeWidth::Interleaved);
        assert!(matches!(
            pass(
                FftSpec::new(4096)
                    .precision(Precision::F64)
                    .choices(ShapeChoices {
                        exchange_width: Some(ExchangeWidth::BothParts),
                        ..ShapeChoices::default()
                    })
            ),
            Err(Error::ExchangeWidthUnfit { .. })
        ));
    }

    #[test]
    fn odd_radices_are_padded_only_when_asked() {
        let paddings = |spec: FftSpec| -> Vec<Option<Padding>> {
            plan(&spec).unwrap().passes[0]
                .stages
                .iter()
                .map(|s| s.exchange)
                .collect()
        };
        let n2197 = || FftSpec::new(2197).radices(&[13, 13, 13]);
        assert_eq!(
            paddings(n2197()),
            vec![Some(Padding::NONE), Some(Padding::NONE), None]
        );
        assert_eq!(
            paddings(n2197().choices(ShapeChoices {
                padding_search: Some(PaddingSearch::AllRadices),
                ..ShapeChoices::default()
            })),
            vec![
                Some(Padding::NONE),
                Some(Padding {
                    period: 169,
                    gap: 4
                }),
                None
            ]
        );
        let pass = &plan(&n2197().choices(ShapeChoices {
            padding_search: Some(PaddingSearch::AllRadices),
            ..ShapeChoices::default()
        }))
        .unwrap()
        .passes[0];
        assert_eq!(pass.padding_search, PaddingSearch::AllRadices);
        assert_eq!(
            pass.fft_stride,
            Padding {
                period: 169,
                gap: 4
            }
            .padded_len(2197)
        );
    }

    #[test]
    fn every_supported_size_plans_within_gpu_limits() {
        for (precision, max) in MAX_SINGLE_KERNEL {
            for n in crate::plan::factor::supported_sizes(max) {
                let plan = plan(&FftSpec::new(n).precision(precision))
                    .unwrap_or_else(|e| panic!("{n}: {e}"));
                let pass = &plan.passes[0];
                assert!(pass.threads_per_block <= MAX_THREADS_PER_BLOCK, "{n}");
                assert!(pass.shared_bytes <= PLANNED_SHARED_BYTES, "{n}");
                assert_eq!(pass.radices().iter().product::<usize>(), n);
            }
        }
    }

    #[test]
    fn f32_column_tiles_in_opt_in_memory_ask_for_two_blocks() {
        let bounds = |precision: Precision| -> Vec<usize> {
            let spec = FftSpec::with_shape(&[1000, 1000])
                .precision(precision)
                .target(Target::H100);
            let plan = crate::plan::plan(&spec).unwrap();
            plan.passes.iter().map(|p| p.min_blocks_per_sm).collect()
        };
        // The rows (dense) keep the model's bound; the tiled columns take two.
        assert_eq!(bounds(Precision::F32)[1], 2);
        assert_eq!(bounds(Precision::F64)[1], 1);
    }

    #[test]
    fn lone_f32_one_kernel_blocks_exchange_interleaved_values_where_twiddles_are_direct() {
        let pass = |spec: FftSpec| {
            crate::plan::plan(&spec.target(Target::H200))
                .unwrap()
                .passes[0]
                .clone()
        };
        // 15840: 792 threads alone on the SM, direct twiddles.
        let lone = pass(FftSpec::new(15840));
        assert_eq!(lone.min_blocks_per_sm, 1);
        assert_eq!(lone.exchange_width, ExchangeWidth::Interleaved);
        // Fine x coarse tables, f64, blocks that share an SM, and the
        // user's width keep theirs.
        let split = pass(FftSpec::new(15840).choices(ShapeChoices {
            twiddle_tables: Some(TwiddleTables::SplitLarge),
            ..ShapeChoices::default()
        }));
        assert_eq!(split.exchange_width, ExchangeWidth::BothParts);
        let f64_lone = pass(FftSpec::new(6561).precision(Precision::F64));
        assert_ne!(f64_lone.exchange_width, ExchangeWidth::Interleaved);
        // Blocks that share an SM with over 24 values a thread.
        let shared = pass(FftSpec::new(6480));
        assert!(shared.min_blocks_per_sm > 1 && shared.values_per_thread > 24);
        assert_eq!(shared.exchange_width, ExchangeWidth::BothParts);
        let chosen = pass(FftSpec::new(15840).choices(ShapeChoices {
            exchange_width: Some(ExchangeWidth::BothParts),
            ..ShapeChoices::default()
        }));
        assert_eq!(chosen.exchange_width, ExchangeWidth::BothParts);
    }

    #[test]
    fn f32_opt_in_blocks_sharing_an_sm_exchange_interleaved_values_padded_for_them() {
        let plan = |spec: FftSpec| crate::plan::plan(&spec.target(Target::H200)).unwrap();
        // 7840: 560 threads of 16 values, two blocks an SM.
        let planned = plan(FftSpec::new(7840)).passes[0].clone();
        assert_eq!(planned.min_blocks_per_sm, 2);
        assert_eq!(planned.exchange_width, ExchangeWidth::Interleaved);
        // Its stages are padded as a chosen interleaved exchange's are.
        let chosen = plan(FftSpec::new(7840).choices(ShapeChoices {
            exchange_width: Some(ExchangeWidth::Interleaved),
            ..ShapeChoices::default()
        }));
        assert_eq!(planned.stages, chosen.passes[0].stages);
        assert_eq!(planned.shared_bytes, chosen.passes[0].shared_bytes);
        // A lone block's too (15840).
        let lone = plan(FftSpec::new(15840)).passes[0].clone();
        let lone_chosen = plan(FftSpec::new(15840).choices(ShapeChoices {
            exchange_width: Some(ExchangeWidth::Interleaved),
            ..ShapeChoices::default()
        }));
        assert_eq!(lone.stages, lone_chosen.passes[0].stages);
        // Not in f64, nor within one kernel's static memory, nor the user's
        // bound.
        let f64 = plan(FftSpec::new(7840).precision(Precision::F64)).passes[0].clone();
        assert_ne!(f64.exchange_width, ExchangeWidth::Interleaved);
        let bounded = plan(FftSpec::new(7840).choices(ShapeChoices {
            min_blocks_per_sm: Some(2),
            ..ShapeChoices::default()
        }));
        assert_eq!(bounded.passes[0].exchange_width, ExchangeWidth::BothParts);
    }

    #[test]
    fn c2c_of_a_prime_from_17_to_23_times_two_takes_four_threads_as_chosen_by_hand() {
        for precision in [Precision::F32, Precision::F64] {
            let spec = |n: usize| FftSpec::new(n).precision(precision).target(Target::H200);
            let pass = |spec: FftSpec| crate::plan::plan(&spec).unwrap().passes[0].clone();
            for n in [34, 38, 46] {
                let row = pass(spec(n));
                assert_eq!(
                    (row.threads_per_fft, row.values_per_thread),
                    (4, n / 2),
                    "{n}"
                );
                // The shape four threads chosen by hand take, launch bound
                // and all.
                let chosen = pass(spec(n).choices(ShapeChoices {
                    threads_per_fft: Some(4),
                    ..ShapeChoices::default()
                }));
                let shape = |p: &Pass| (p.min_blocks_per_sm, p.ffts_per_block, p.threads_per_block);
                assert_eq!(shape(&row), shape(&chosen), "{n} {precision}");
            }
            // 3p keeps its three threads.
            assert_eq!(pass(spec(57)).threads_per_fft, 3);
        }
    }

    #[test]
    fn f32_rows_of_20_to_30_points_take_two_threads_or_more() {
        for target in [Target::H200, Target::PORTABLE] {
            let pass = |n: usize| {
                crate::plan::plan(&FftSpec::new(n).target(target.clone()))
                    .unwrap()
                    .passes[0]
                    .clone()
            };
            for n in (20..=30).step_by(2) {
                let row = pass(n);
                assert!(
                    row.threads_per_fft >= 2 && row.values_per_thread <= n / 2 + 1,
                    "{n}: {row:?}"
                );
            }
            // 32's one-thread codelet and odd lengths keep one thread.
            for n in [21, 25, 32] {
                assert_eq!(pass(n).threads_per_fft, 1, "{n}");
            }
        }
        // The user's radices or threads keep theirs.
        let chosen = crate::plan::plan(&FftSpec::new(22).radices(&[22]))
            .unwrap()
            .passes[0]
            .clone();
        assert_eq!(chosen.threads_per_fft, 1);
    }

    #[test]
    fn f32_column_tiles_of_many_values_with_lanes_across_ffts_ask_for_two_blocks() {
        let spec = FftSpec::new(46373600)
            .kind(crate::TransformKind::R2c)
            .target(Target::H200);
        let plan = crate::plan::plan(&spec).unwrap();
        // The R2C's first pass: 338-point columns as 26 x 13 over 13
        // threads each, 16 to a tile (the C2R's, which merges X[k] with
        // X[N - k] on its loads, takes more: real.rs's widened_merge).
        let first = &plan.passes[0];
        assert_eq!((first.n, first.values_per_thread), (338, 26));
        assert_eq!(first.lanes, LaneLayout::FftMinor);
        assert_eq!(first.io, crate::plan::GlobalIo::ColumnTile);
        assert_eq!(first.min_blocks_per_sm, 2);
    }

    #[test]
    fn f64_column_tiles_in_static_memory_ask_for_two_blocks() {
        let spec = FftSpec::with_shape(&[336, 500])
            .precision(Precision::F64)
            .target(Target::H100);
        let plan = crate::plan::plan(&spec).unwrap();
        let columns = &plan.passes[1];
        assert_eq!(columns.n, 336);
        assert!(columns.shared_bytes <= Target::H100.plannable_shared_bytes());
        assert_eq!(columns.min_blocks_per_sm, 2);
    }

    #[test]
    fn lone_f64_blocks_take_two_where_their_registers_allow() {
        let bound = |n: usize| {
            let spec = FftSpec::new(n)
                .precision(Precision::F64)
                .target(Target::H100);
            let pass = crate::plan::plan(&spec).unwrap().passes[0].clone();
            (
                pass.radices().into_iter().max().unwrap(),
                pass.min_blocks_per_sm,
            )
        };
        // 15 values over 250 threads: 110 of the 128 registers two grant.
        assert_eq!(bound(3500).1, 2);
        // A radix of 23 stays alone (ptxas spilled it at two).
        assert_eq!(bound(3174), (23, 1));
    }

    #[test]
    fn the_fitted_model_ranks_shapes_that_share_an_sm() {
        let model = crate::plan::Wisdom::built_in()
            .model(&Target::H100)
            .expect("the H100 file holds a model")
            .clone();
        let predicted = |n: usize| {
            let (radices, threads, blocks) =
                opt_in_shape(n, Precision::F32, &Target::H100).unwrap();
            let features = ScheduleFeatures::of(&radices, threads, blocks, 32);
            (radices, blocks, model.predict(&features))
        };
        // 6804: the rules' 27 x 14 x 9 x 2 (3 blocks, four stages) ran at
        // 69% of the copy, the model's pick at 89%
        // (docs/bench/h100_fit_one_kernel_a.json).
        let (radices, blocks, cost) = predicted(6804);
        assert_ne!(radices, vec![27, 14, 9, 2]);
        assert!(blocks >= model.min_resident_blocks);
        let rules = ScheduleFeatures::of(&[27, 14, 9, 2], 252, 3, 32);
        assert!(cost <= model.predict(&rules));
        // A size whose choice holds an SM alone keeps the rules' choice.
        let (radices, blocks, _) = predicted(18000);
        assert_eq!(blocks, 1);
        assert_eq!(radices, vec![15, 10, 10, 6, 2]);
        // f64 has no model: the rules decide.
        assert!(opt_in_shape(6804, Precision::F64, &Target::H100).is_some());
    }

    #[test]
    fn one_kernel_shapes_alone_on_an_sm_store_at_once_and_load_past_l1() {
        let pass = |n: usize, precision: Precision, choices: ShapeChoices| -> Pass {
            let spec = FftSpec::new(n)
                .precision(precision)
                .target(Target::H200)
                .choices(choices);
            crate::plan::plan(&spec).unwrap().passes.remove(0)
        };
        for (n, precision) in [(20000, Precision::F32), (6561, Precision::F64)] {
            let lone = pass(n, precision, ShapeChoices::default());
            assert_eq!(lone.min_blocks_per_sm, 1, "{n}");
            assert_eq!(lone.first_write, FirstWrite::Immediate, "{n}");
            assert_eq!(lone.input_caching, InputCaching::L2Only, "{n}");
        }
        // Shapes that share an SM (5082 has no wisdom entry on the H200),
        // and shapes given by hand, keep the defaults.
        let shared = pass(5082, Precision::F32, ShapeChoices::default());
        assert!(shared.min_blocks_per_sm > 1);
        assert_eq!(shared.first_write, FirstWrite::AfterBarrier);
        let given = pass(
            20000,
            Precision::F32,
            ShapeChoices {
                threads_per_fft: Some(1000),
                ..ShapeChoices::default()
            },
        );
        assert_eq!(given.first_write, FirstWrite::AfterBarrier);
        assert_eq!(given.input_caching, InputCaching::L1AndL2);
    }

    #[test]
    fn wide_f32_column_tiles_read_past_l1() {
        let caching = |shape: &[usize], precision: Precision| -> Vec<InputCaching> {
            let spec = FftSpec::with_shape(shape)
                .precision(precision)
                .target(Target::H100);
            let plan = crate::plan::plan(&spec).unwrap();
            plan.passes.iter().map(|p| p.input_caching).collect()
        };
        use InputCaching::{L1AndL2, L2Only};
        // 1000x1000: dense rows keep L1, the 800-thread column tile skips it.
        assert_eq!(caching(&[1000, 1000], Precision::F32), [L1AndL2, L2Only]);
        assert_eq!(caching(&[1 << 24], Precision::F32), [L2Only, L2Only]);
        // 512-thread tiles (2^20) and f64 keep L1.
        assert_eq!(caching(&[1 << 20], Precision::F32), [L1AndL2, L1AndL2]);
        assert_eq!(caching(&[1000, 1000], Precision::F64), [L1AndL2, L1AndL2]);
    }

    #[test]
    fn values_caps_move_where_a_stage_or_a_warp_is_gained() {
        let row = |n: usize, precision: Precision, kind: crate::TransformKind| {
            let spec = FftSpec::new(n)
                .precision(precision)
                .kind(kind)
                .target(Target::H100);
            let pass = crate::plan::plan(&spec).unwrap().passes[0].clone();
            (pass.radices(), pass.threads_per_fft)
        };
        let (c2c, r2c) = (crate::TransformKind::C2c, crate::TransformKind::R2c);
        // f64 FFTs of few threads: a stage fewer at more values each.
        assert_eq!(row(351, Precision::F64, c2c), (vec![13, 9, 3], 27));
        assert_eq!(row(234, Precision::F64, c2c), (vec![18, 13], 13));
        // No stage saved (192 R2C's FFT of 96), or a warp's threads or
        // more (2002): the cap of 16.
        assert_eq!(row(192, Precision::F64, r2c), (vec![12, 8], 8));
        assert_eq!(row(2002, Precision::F64, c2c), (vec![14, 13, 11], 182));
        // Past max_size: where the raised cap saves a stage.
        assert_eq!(row(8000, Precision::F64, c2c), (vec![20, 20, 20], 400));
        assert_eq!(row(5400, Precision::F64, c2c), (vec![15, 15, 8, 3], 360));
        // f32 real rows of few threads of many values take more threads
        // where that makes a warp an FFT (810 R2C: 405 as 27 x 15 over 15
        // threads of 30 values -> 9 x 9 x 5 over 45), not where it does not
        // (384 R2C: 192 as 24 x 8 over 8 threads).
        assert_eq!(row(810, Precision::F32, r2c), (vec![9, 9, 5], 45));
        assert_eq!(row(384, Precision::F32, r2c), (vec![24, 8], 8));
    }
}
