//! Turns an [`FftSpec`] into a [`Plan`]: validates the request, picks the
//! radix sequence, the threads per FFT, the FFTs per block, the lane layout
//! and the shared-memory layout (seed 000, section IV.B, Fig. 4) within what
//! the spec's [`Target`] allows, from the user's choices, then measured
//! shapes ([`Wisdom`]), then heuristics.

use super::choices::ShapeChoices;
use super::factor::{is_smooth, nearest_supported, prime_factors};
use super::padding::{bank_words, Exchange, Padding, PaddingSearch};
use super::radix::{choose, thread_shape, values_per_thread};
use super::wisdom::Wisdom;
use super::{
    Access, Column, ColumnIo, ExchangeBuffers, ExchangeWidth, FirstWrite, GlobalIo, InputCaching,
    LaneLayout, Pass, Plan, Stage, Twiddles,
};
use crate::codelet::is_supported_radix;
use crate::{Buffer, Error, FftSpec, Layout, Precision, Target};
use std::cmp::Reverse;

/// Largest size one kernel handles: 48 KiB of static shared memory holds
/// 4096 complex f32 values with padding, or the real (then imaginary) parts
/// of 4096 f64 values ([`ExchangeWidth::OnePartAtATime`]).
pub const MAX_SINGLE_KERNEL: [(Precision, usize); 2] =
    [(Precision::F32, 4096), (Precision::F64, 4096)];

/// Threads per block the planner aims for: enough warps to hide latency,
/// few enough that several blocks share an SM.
const TARGET_THREADS_PER_BLOCK: usize = 256;

/// Complex values a thread may keep in registers.
fn max_values_per_thread(precision: Precision) -> usize {
    match precision {
        Precision::F32 => 32,
        Precision::F64 => 16,
    }
}

/// Whether one kernel holds a transform of `n` points on `target`: up to
/// [`max_size`] always (static shared memory); past it where the target's
/// opt-in shared memory holds the padded data and a radix schedule fits a
/// block ([`opt_in_shape`]), as VkFFT and cuFFTDx plan every size to about
/// 24576 points in f32 on Hopper.
pub fn fits_one_kernel(n: usize, precision: Precision, target: &Target) -> bool {
    n <= max_size(precision)
        || plan_pass(n, precision, &ShapeChoices::default(), target, &dense(n)).is_ok()
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

/// [`REGISTERS_BESIDE_VALUES`] of a kernel that runs one block per SM.
const LONE_BLOCK_REGISTERS_BESIDE_VALUES: usize = 16;

/// Blocks per SM the opt-in kernels ask for at most: measured up to three
/// (6561: 96% of the copy with three, 95.6% with two; 4375: 93.5% and 87%).
const OPT_IN_MAX_BLOCKS_PER_SM: usize = 3;

/// Blocks of a one-kernel transform past [`max_size`] one SM holds at
/// once: by shared memory, threads, and registers at the values' words
/// plus [`REGISTERS_BESIDE_VALUES`]; 0 where not even one block's
/// registers hold them.
fn opt_in_resident(
    threads: usize,
    shared: usize,
    values: usize,
    precision: Precision,
    target: &Target,
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
        .min(OPT_IN_MAX_BLOCKS_PER_SM))
        .rev()
        .find(|&blocks| granted(blocks) >= words)
        .unwrap_or(1)
}

/// The radices, threads per transform and launch bound of a one-kernel
/// transform of `n` points past [`max_size`] on `target`, if one fits.
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
    let bytes = n.checked_mul(precision.complex_bytes())?;
    // Padding adds about a word in 16 (plan_pass checks the exact layout).
    let shared = bytes + bytes / 16;
    if shared > opt_in_limit(target) {
        return None;
    }
    let max_threads = target
        .launchable_threads_per_block
        .min(target.max_threads_per_block);
    let max_values = max_values_per_thread(precision);
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
                        let guarded = radices.iter().filter(|&&r| (n / r) % threads != 0).count();
                        let score = (Reverse(resident), guarded, radices.len(), Reverse(threads));
                        (score, radices.clone(), threads, resident)
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
    candidates
        .into_iter()
        .min_by_key(|(score, _, _, _)| *score)
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

/// Plans `spec` with the wisdom it names (or `FFTGEN_WISDOM`'s, before the
/// built-in files), or says why it cannot be planned.
pub fn plan(spec: &FftSpec) -> Result<Plan, Error> {
    // The size first: a bad size is reported before a bad wisdom file.
    validate(spec)?;
    let wisdom = Wisdom::for_spec(spec.wisdom.as_deref())?;
    checked(spec, plan_without_unit_axes(spec, &wisdom)?)
}

/// Plans `spec` with `wisdom`.
pub fn plan_with_wisdom(spec: &FftSpec, wisdom: &Wisdom) -> Result<Plan, Error> {
    validate(spec)?;
    checked(spec, plan_without_unit_axes(spec, wisdom)?)
}

/// Plans `spec`, whose axes of one point are the identity (as numpy and
/// cuFFT treat them): the transform of the other axes, with the layouts'
/// strides of those axes, given back `spec`'s shape and layouts.
fn plan_without_unit_axes(spec: &FftSpec, wisdom: &Wisdom) -> Result<Plan, Error> {
    if !spec.shape.contains(&1) {
        return plan_validated(spec, wisdom);
    }
    let kept: Vec<usize> = (0..spec.shape.len())
        .filter(|&a| spec.shape[a] != 1)
        .collect();
    let keep = |layout: &Layout| Layout {
        strides: kept.iter().map(|&a| layout.strides[a]).collect(),
        distance: layout.distance,
    };
    let reduced = FftSpec {
        shape: kept.iter().map(|&a| spec.shape[a]).collect(),
        input_layout: Some(keep(&spec.planned_input_layout())),
        output_layout: Some(keep(&spec.planned_output_layout())),
        ..spec.clone()
    };
    let mut plan = plan_validated(&reduced, wisdom)?;
    let mut factors = plan.axis_factors.into_iter();
    plan.axis_factors = spec
        .shape
        .iter()
        .map(|&n| match n {
            1 => vec![1],
            _ => factors.next().expect("one split per axis kept"),
        })
        .collect();
    plan.shape = spec.shape.clone();
    plan.input_layout = spec.planned_input_layout();
    plan.output_layout = spec.planned_output_layout();
    Ok(plan)
}

/// `plan`, if it keeps every invariant of [`super::invariants`] on the
/// spec's target: no plan leaves the planner otherwise.
fn checked(spec: &FftSpec, plan: Plan) -> Result<Plan, Error> {
    super::invariants::check(&plan, spec.planned_target())?;
    Ok(plan)
}

/// Plans `spec`, whose size and directions [`validate`] accepted.
fn plan_validated(spec: &FftSpec, wisdom: &Wisdom) -> Result<Plan, Error> {
    let target = spec.planned_target();
    if spec.kind == crate::TransformKind::R2c {
        return super::real::plan(spec, target, wisdom);
    }
    let n = spec.n();
    let single = spec.shape.len() == 1
        && spec.planned_input_layout().is_contiguous(&spec.shape)
        && spec.planned_output_layout().is_contiguous(&spec.shape)
        && spec.choices.split.is_none();
    // Past max_size one kernel is what the target's opt-in memory holds:
    // the planner's own pass, planned once (the schedule search and the
    // padding search are the cost of a plan here).
    let opt_in_pass = (single && n > max_size(spec.precision)).then(|| {
        plan_pass(
            n,
            spec.precision,
            &ShapeChoices::default(),
            target,
            &dense(n),
        )
    });
    let one_kernel = single && opt_in_pass.as_ref().is_none_or(|pass| pass.is_ok());
    if !one_kernel {
        return super::multipass::plan(spec, target, wisdom);
    }
    if let Some(column_io) = spec.choices.column_io {
        return Err(Error::ChoiceNeedsSeveralPasses {
            choice: format!("--column-io {column_io}"),
            n: spec.n(),
        });
    }
    let user = &spec.choices;
    // A user's radices are used as given; otherwise the first measured shape
    // this target launches, then the heuristic. Choices the user made win
    // over measured ones.
    let measured = match &user.radices {
        Some(radices) => {
            validate_radices(n, radices)?;
            None
        }
        None => wisdom
            .candidates(&spec.shape, spec.precision, target)
            .find_map(|entry| Some((&entry.choices, launchable(spec, &entry.choices, target)?))),
    };
    let pass = match measured {
        // The measured shape as it was planned, where the user chose nothing.
        Some((_, pass)) if user.is_empty() => pass,
        // A measured one-part exchange gives way to alternating buffers asked
        // for by the user, which need both parts.
        Some((measured, _)) if user.exchange_buffers == Some(ExchangeBuffers::Alternating) => {
            let measured = ShapeChoices {
                exchange_width: None,
                ..measured.clone()
            };
            plan_pass(n, spec.precision, &user.or(&measured), target, &dense(n))?
        }
        Some((measured, _)) => plan_pass(n, spec.precision, &user.or(measured), target, &dense(n))?,
        None => match opt_in_pass {
            Some(pass) if user.is_empty() => pass?,
            _ => plan_pass(n, spec.precision, user, target, &dense(n))?,
        },
    };
    Ok(Plan {
        n,
        shape: spec.shape.clone(),
        kind: crate::TransformKind::C2c,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: spec.normalization,
        placement: spec.placement,
        input_layout: Layout::contiguous(&spec.shape),
        output_layout: Layout::contiguous(&spec.shape),
        scratch_elements: 0,
        axis_factors: vec![vec![n]],
        column_io: ColumnIo::Tile,
        passes: vec![pass],
        inverse_passes: Vec::new(),
    })
}

/// The access of a single-kernel 1D batch.
fn dense(n: usize) -> Access {
    Access::dense(n, Buffer::Input, Buffer::Output)
}

/// The pass `choices` describe for `spec`, if it plans and launches on
/// `target` (NVIDIA's OpenCL, say, takes fewer threads per block than a
/// shape measured through CUDA may need).
fn launchable(spec: &FftSpec, choices: &ShapeChoices, target: &Target) -> Option<Pass> {
    plan_pass(spec.n(), spec.precision, choices, target, &dense(spec.n()))
        .ok()
        .filter(|pass| pass.threads_per_block <= target.launchable_threads_per_block)
}

/// Most complex elements of one transform.
pub const MAX_POINTS: usize = 1 << 30;

/// What no shape can fix: the size, the layouts and the directions.
fn validate(spec: &FftSpec) -> Result<(), Error> {
    let shape = &spec.shape;
    let bad_shape = |reason: &str| {
        Err(Error::BadShape {
            shape: shape.clone(),
            reason: reason.into(),
        })
    };
    match shape.as_slice() {
        [] => return bad_shape("it has no axis"),
        [0] => return Err(Error::ZeroSize),
        [1] => return Err(Error::TrivialSize),
        axes if axes.len() > 3 => return bad_shape("it has more than three axes"),
        axes if axes.contains(&0) => return bad_shape("an axis has no points"),
        axes if axes.iter().all(|&n| n == 1) => {
            return bad_shape("every axis has one point, so the transform is the identity")
        }
        [.., 1] if spec.kind == crate::TransformKind::R2c => {
            return bad_shape("the real axis (the last) has one point; give it 2 or more")
        }
        _ => {}
    }
    // Size first: factoring a huge n by trial division would take minutes.
    let points = shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .unwrap_or(usize::MAX);
    if points > MAX_POINTS {
        return Err(Error::TooLarge {
            n: points,
            precision: spec.precision,
            max: MAX_POINTS,
        });
    }
    for &n in shape {
        if !is_smooth(n) {
            let prime = *prime_factors(n).last().expect("n >= 2 has a prime factor");
            return Err(Error::UnsupportedPrime {
                n,
                prime,
                suggestion: nearest_supported(n, MAX_POINTS),
            });
        }
    }
    if spec.kind == crate::TransformKind::R2c {
        if let Some(layout) = &spec.input_layout {
            layout.check(shape).map_err(|reason| Error::BadLayout {
                side: "input",
                shape: shape.clone(),
                reason,
            })?;
        }
        super::real::validate(spec)?;
        if spec.directions.is_empty() {
            return Err(Error::NoDirection);
        }
        return Ok(());
    }
    for (side, layout) in [
        ("input", spec.input_layout.as_ref()),
        ("output", spec.output_layout.as_ref()),
    ] {
        if let Some(layout) = layout {
            layout.check(shape).map_err(|reason| Error::BadLayout {
                side,
                shape: shape.clone(),
                reason,
            })?;
        }
    }
    if spec.placement == crate::Placement::InPlace {
        if let (Some(input), Some(output)) = (&spec.input_layout, &spec.output_layout) {
            if input != output {
                return Err(Error::BadLayout {
                    side: "output",
                    shape: shape.clone(),
                    reason: "an in-place transform writes where it reads; give the output the \
                             input's layout, or plan it out of place"
                        .into(),
                });
            }
        }
    }
    if spec.directions.is_empty() {
        return Err(Error::NoDirection);
    }
    Ok(())
}

fn validate_radices(n: usize, radices: &[usize]) -> Result<(), Error> {
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
/// planned for `target`.
pub(super) fn plan_pass(
    n: usize,
    precision: Precision,
    choices: &ShapeChoices,
    target: &Target,
    access: &Access,
) -> Result<Pass, Error> {
    let max_values = max_values_per_thread(precision);
    let max_threads = target.max_threads_per_block;
    let opt_in = n > max_size(precision);
    let too_large = || Error::PassTooLarge {
        n,
        precision,
        target: target.name.to_string(),
        shared_bytes: opt_in_limit(target).max(target.plannable_shared_bytes()),
    };
    let planned_opt_in = match (opt_in, &choices.radices) {
        (true, None) => Some(opt_in_shape(n, precision, target).ok_or_else(too_large)?),
        _ => None,
    };
    let radices = match (&choices.radices, &planned_opt_in) {
        (Some(radices), _) => {
            validate_radices(n, radices)?;
            radices.clone()
        }
        (None, Some((radices, _, _))) => radices.clone(),
        (None, None) => {
            choose(n, precision.complex_bytes(), max_values, max_threads).ok_or_else(too_large)?
        }
    };
    let radices = radices.as_slice();
    if let Some(blocks) = choices.min_blocks_per_sm {
        if blocks == 0 || blocks > target.max_blocks_per_sm {
            return Err(Error::BadMinBlocksPerSm {
                blocks,
                max: target.max_blocks_per_sm,
            });
        }
    }
    let (threads_per_fft, values) = match (choices.threads_per_fft, &planned_opt_in) {
        (None, Some((_, threads, _))) => (*threads, values_per_thread(n, radices, *threads)),
        // Radices by hand past max_size: the option with fewer values.
        (None, None) if opt_in => opt_in_threads(
            n,
            radices,
            max_values,
            target.launchable_threads_per_block.min(max_threads),
        )
        .into_iter()
        .min_by_key(|&(_, values)| values)
        .expect("at least one option"),
        (None, None) => thread_shape(n, radices, max_values, max_threads),
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
    let unlaunchable = |reason: String| Error::UnlaunchableRadices {
        radices: radices.to_vec(),
        reason,
    };
    if threads_per_fft > max_threads {
        return Err(unlaunchable(format!(
            "they need {threads_per_fft} threads per transform (n / lcm of the radices), more than the {max_threads} a block can hold"
        )));
    }

    // An interleaved exchange stores whole complex values: its banks are
    // those of an element twice as wide.
    let banks = match choices.exchange_width {
        Some(ExchangeWidth::Interleaved) => bank_words(precision.complex_bytes()),
        _ => bank_words(precision.real_bytes()),
    };
    let padding_search = choices.padding_search.unwrap_or(PaddingSearch::EvenRadices);
    let lanes = if threads_per_fft >= target.warp_size {
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
        let twiddle_offset = (stride > 1).then_some(twiddle_len);
        if stride > 1 {
            twiddle_len += stride * (radix - 1);
        }
        stages.push(Stage {
            radix,
            stride,
            butterflies_per_thread: (n / radix).div_ceil(threads_per_fft),
            guarded: (n / radix) % threads_per_fft != 0,
            twiddle_offset,
            exchange,
        });
        stride *= radix;
    }

    let padded = stages
        .iter()
        .filter_map(|s| s.exchange)
        .map(|p| p.padded_len(n))
        .max()
        .unwrap_or(n);
    // Past the static limit only in opt-in (dynamic) shared memory, and only
    // for the one-kernel sizes that need it.
    // Tiles of columns take opt-in memory too, for longer runs of columns.
    let tiled = !access.is_dense(n);
    let shared_limit = match opt_in || tiled {
        true => opt_in_limit(target).max(target.plannable_shared_bytes()),
        false => target.plannable_shared_bytes(),
    };
    // A pass whose FFTs are not a dense batch moves strided sides through
    // shared memory as a tile of neighbouring FFTs.
    let dense = access.is_dense(n);
    // Column I/O `global` (seed 000 IV.A): where a warp's lanes hold
    // neighbouring FFTs adjacent in memory (at least 32 bytes of them), a
    // side goes straight between global memory and registers.
    let global = choices.column_io == Some(ColumnIo::Global) && lanes == LaneLayout::FftMinor;
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
    let side = |tiled: bool| match tiled {
        true => GlobalIo::ColumnTile,
        false => GlobalIo::Direct,
    };
    let (fft_stride, io, output_io) = match (tiled_in || tiled_out, lanes) {
        (true, _) => {
            let base = match lanes {
                LaneLayout::FftMajor => padded,
                LaneLayout::FftMinor => n,
            };
            let ffts = match choices.ffts_per_block {
                Some(ffts) => ffts,
                None => tile_ffts(
                    base,
                    threads_per_fft,
                    banks,
                    precision,
                    target,
                    shared_limit,
                ),
            };
            (
                tile_stride(base, ffts, banks),
                side(tiled_in),
                side(tiled_out),
            )
        }
        (false, LaneLayout::FftMajor) => (padded, GlobalIo::Direct, GlobalIo::Direct),
        // Columns in and out of registers: shared memory only for exchanges
        // (none for one stage), an odd stride spreading the lanes' FFTs.
        (false, LaneLayout::FftMinor) if !dense => (
            if stages.len() == 1 { 0 } else { n | 1 },
            GlobalIo::Direct,
            GlobalIo::Direct,
        ),
        (false, LaneLayout::FftMinor) => (
            n | 1,
            GlobalIo::StagedThroughShared,
            GlobalIo::StagedThroughShared,
        ),
    };
    let direct = io == GlobalIo::Direct && output_io == GlobalIo::Direct;
    let both_parts = fft_stride * 2 * precision.real_bytes();
    let one_part = fft_stride * precision.real_bytes();
    let one_part_fits = one_part <= shared_limit && direct;
    let (exchange_width, bytes_per_fft) = match choices.exchange_width {
        None if both_parts <= shared_limit => (ExchangeWidth::BothParts, both_parts),
        None if one_part_fits => (ExchangeWidth::OnePartAtATime, one_part),
        None => return Err(too_large()),
        Some(ExchangeWidth::BothParts) if both_parts <= shared_limit => {
            (ExchangeWidth::BothParts, both_parts)
        }
        Some(ExchangeWidth::OnePartAtATime) if one_part_fits => {
            (ExchangeWidth::OnePartAtATime, one_part)
        }
        Some(ExchangeWidth::Interleaved) if both_parts <= shared_limit && direct => {
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
                    ExchangeWidth::Interleaved if !direct => format!(
                        "its {threads_per_fft} threads per transform stage the input through \
                         shared memory in two arrays"
                    ),
                    ExchangeWidth::BothParts | ExchangeWidth::Interleaved => format!(
                        "both parts take {both_parts} bytes, over the {shared_limit} \
                         bytes of shared memory a block may declare"
                    ),
                },
            })
        }
    };
    let exchange_buffers = choices.exchange_buffers.unwrap_or(ExchangeBuffers::Reused);
    let bytes_per_fft = match exchange_buffers {
        ExchangeBuffers::Reused => bytes_per_fft,
        ExchangeBuffers::Alternating => {
            let unfit = |reason: String| Error::AlternatingBuffersUnfit { n, reason };
            if exchange_width == ExchangeWidth::OnePartAtATime {
                return Err(unfit(
                    "the one-part exchange, there to save shared memory, keeps one set".into(),
                ));
            }
            if !direct {
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
    let most_ffts = match bytes_per_fft {
        0 => max_threads / threads_per_fft,
        bytes => (shared_limit / bytes).min(max_threads / threads_per_fft),
    };
    let ffts_per_block = match choices.ffts_per_block {
        None if tiled_in || tiled_out => tile_ffts(
            fft_stride,
            threads_per_fft,
            banks,
            precision,
            target,
            shared_limit,
        )
        .min(most_ffts)
        .max(1),
        None => (TARGET_THREADS_PER_BLOCK / threads_per_fft)
            .max(1)
            .min(most_ffts),
        Some(ffts) if (1..=most_ffts).contains(&ffts) => ffts,
        Some(ffts) => {
            return Err(Error::BadFftsPerBlock {
                ffts,
                n,
                max: most_ffts,
                threads_per_fft,
                bytes_per_fft,
            })
        }
    };
    let threads_per_block = ffts_per_block * threads_per_fft;
    let shared_bytes = ffts_per_block * bytes_per_fft;
    let min_blocks_per_sm = match (choices.min_blocks_per_sm, lanes) {
        // Also within the threads an SM holds, now that the block is known.
        (Some(blocks), _) if blocks * threads_per_block > target.max_threads_per_sm => {
            return Err(Error::BadMinBlocksPerSm {
                blocks,
                max: (target.max_threads_per_sm / threads_per_block).max(1),
            })
        }
        (Some(blocks), _) => blocks,
        // Past max_size one block per FFT: the bound the shape was chosen for.
        (None, LaneLayout::FftMajor) if opt_in && ffts_per_block == 1 => {
            match (&planned_opt_in, choices.threads_per_fft) {
                (Some((_, _, resident)), None) => *resident,
                _ => opt_in_resident(threads_per_block, shared_bytes, values, precision, target)
                    .max(1),
            }
        }
        (None, LaneLayout::FftMajor) => {
            min_blocks_per_sm(threads_per_block, shared_bytes, values, precision, target)
        }
        // Staged small transforms were measured fastest with the compiler
        // free to use registers (commit c23e3fc and its docs/perf.md):
        // shared memory, not latency, bounds them.
        (None, LaneLayout::FftMinor) => 1,
    };
    Ok(Pass {
        n,
        stages,
        threads_per_fft,
        values_per_thread: values,
        ffts_per_block,
        threads_per_block,
        min_blocks_per_sm,
        lanes,
        io,
        output_io,
        access: access.clone(),
        step_twiddle: None,
        real: None,
        normalizes: true,
        dynamic_shared: shared_bytes > target.plannable_shared_bytes(),
        input_caching: choices.input_caching.unwrap_or(InputCaching::L1AndL2),
        fft_stride,
        exchange_width,
        exchange_buffers,
        first_write: choices.first_write.unwrap_or(FirstWrite::AfterBarrier),
        padding_search,
        shared_bytes,
        twiddles: Twiddles::RoundedF64Table { len: twiddle_len },
    })
}

/// FFTs a block moves together as a tile when its FFTs are columns: as many
/// neighbouring columns as make 128-byte runs, fewer where the block's
/// threads or shared memory run out (at least 32-byte runs where they fit).
fn tile_ffts(
    fft_words: usize,
    threads_per_fft: usize,
    banks: usize,
    precision: Precision,
    target: &Target,
    shared_limit: usize,
) -> usize {
    let threads = target
        .launchable_threads_per_block
        .min(target.max_threads_per_block);
    let fit = |limit: usize| {
        // Short columns: enough of them for the block's threads as well.
        let mut ffts = (TILE_RUN_BYTES / precision.complex_bytes())
            .max((TARGET_THREADS_PER_BLOCK / threads_per_fft).next_power_of_two());
        while ffts > 1
            && (ffts * threads_per_fft > threads
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
const TILE_RUN_BYTES: usize = 128;

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
/// held (in 32-bit words) plus a fixed overhead. Fitted to ptxas reports for
/// sm_90 over every supported size: three per value spilled for composite
/// radices such as 12 and 18; `tests/nvrtc_compile.rs` fails on any spill.
fn registers_needed(values: usize, precision: Precision) -> usize {
    let words = precision.real_bytes() / 4;
    4 * values * words + 16
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
    let wanted = (target.max_threads_per_sm / 2).div_ceil(threads_per_block);
    let fit = target.shared_bytes_per_sm / (shared_bytes + target.reserved_shared_bytes_per_block);
    let warp_threads = threads_per_block.div_ceil(target.warp_size) * target.warp_size;
    let granule = target.register_granule;
    let budget =
        |blocks: usize| target.registers_per_sm / (blocks * warp_threads) / granule * granule;
    let need = registers_needed(values, precision);
    (1..=wanted.min(fit))
        .rev()
        .find(|&blocks| budget(blocks) >= need.min(target.max_registers_per_thread))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LaneLayout;

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
    fn input_caching_comes_from_the_user_then_a_measurement() {
        let planned = |spec: FftSpec| plan(&spec).unwrap().passes[0].input_caching;
        assert_eq!(planned(FftSpec::new(1331)), InputCaching::L2Only);
        assert_eq!(planned(FftSpec::new(64)), InputCaching::L2Only);
        assert_eq!(planned(FftSpec::new(4096)), InputCaching::L1AndL2);
        assert_eq!(
            planned(FftSpec::new(1331).choices(ShapeChoices {
                input_caching: Some(InputCaching::L1AndL2),
                ..ShapeChoices::default()
            })),
            InputCaching::L1AndL2
        );
        assert_eq!(
            planned(FftSpec::new(256).choices(ShapeChoices {
                input_caching: Some(InputCaching::L2Only),
                ..ShapeChoices::default()
            })),
            InputCaching::L2Only
        );
        // Radices given by hand skip the wisdom, its caching too.
        assert_eq!(
            planned(FftSpec::new(1331).radices(&[11, 11, 11])),
            InputCaching::L1AndL2
        );
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
        assert!(matches!(
            pass(FftSpec::new(64).choices(ShapeChoices {
                exchange_width: Some(ExchangeWidth::Interleaved),
                ..ShapeChoices::default()
            })),
            Err(Error::ExchangeWidthUnfit { .. })
        ));
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
    fn first_write_comes_from_the_user_then_a_measurement() {
        let planned = |spec: FftSpec| plan(&spec).unwrap().passes[0].first_write;
        assert_eq!(planned(FftSpec::new(2187)), FirstWrite::AfterBarrier);
        assert_eq!(
            planned(FftSpec::new(2187).target(Target::H200)),
            FirstWrite::Immediate
        );
        assert_eq!(
            planned(FftSpec::new(512).target(Target::H200)),
            FirstWrite::AfterBarrier
        );
        assert_eq!(
            planned(
                FftSpec::new(2187)
                    .target(Target::H200)
                    .choices(ShapeChoices {
                        first_write: Some(FirstWrite::AfterBarrier),
                        ..ShapeChoices::default()
                    })
            ),
            FirstWrite::AfterBarrier
        );
        assert_eq!(
            planned(FftSpec::new(512).choices(ShapeChoices {
                first_write: Some(FirstWrite::Immediate),
                ..ShapeChoices::default()
            })),
            FirstWrite::Immediate
        );
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
    fn measured_shapes_are_planned_only_where_the_target_launches_them() {
        let threads = |target: Option<Target>| {
            let mut spec = FftSpec::new(2401);
            spec.target = target;
            plan(&spec).unwrap().passes[0].threads_per_fft
        };
        // 343 threads per block, as measured through CUDA on the H100 and H200.
        assert_eq!(threads(Some(Target::CUDA)), 343);
        assert_eq!(threads(Some(Target::H200)), 343);
        // NVIDIA's OpenCL grants these kernels 256: the heuristic's shape.
        assert!(threads(None) <= 256);
        assert!(threads(Some(Target::OPENCL_NVIDIA)) <= 256);
        let h200_opencl = Target::H200.clamped_to(&Target::OPENCL_NVIDIA);
        assert!(threads(Some(h200_opencl)) <= 256);
        // A target with less shared memory than the shape needs gets its own.
        let small = Target {
            max_static_shared_bytes: 8 * 1024,
            ..Target::H200
        };
        let pass = &plan(&FftSpec::new(1000).target(small)).unwrap().passes[0];
        assert!(pass.shared_bytes <= 8 * 1024 - 256, "{}", pass.shared_bytes);
    }

    #[test]
    fn bad_requests_are_errors() {
        assert_eq!(plan(&FftSpec::new(0)), Err(Error::ZeroSize));
        assert!(matches!(
            plan(&FftSpec::new(17)),
            Err(Error::UnsupportedPrime { prime: 17, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new((1 << 30) + 1024)),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::with_shape(&[1 << 16, 1 << 15]).precision(Precision::F64)),
            Err(Error::TooLarge {
                max: MAX_POINTS,
                ..
            })
        ));
        // An axis of one point is the identity: 64x1x8 is the 2D 64x8 with
        // the shape and layouts it was given.
        let unit = plan(&FftSpec::with_shape(&[64, 1, 8])).unwrap();
        let plain = plan(&FftSpec::with_shape(&[64, 8])).unwrap();
        assert_eq!(unit.passes, plain.passes);
        assert_eq!(unit.shape, vec![64, 1, 8]);
        assert_eq!(unit.axis_factors, vec![vec![64], vec![1], vec![8]]);
        assert_eq!(unit.input_layout, Layout::contiguous(&[64, 1, 8]));
        for shape in [&[1, 1][..], &[1]] {
            assert!(plan(&FftSpec::with_shape(shape)).is_err());
        }
        assert!(matches!(
            plan(&FftSpec::with_shape(&[64, 1]).kind(crate::TransformKind::R2c)),
            Err(Error::BadShape { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::with_shape(&[2, 2, 2, 2])),
            Err(Error::BadShape { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::with_shape(&[64, 34])),
            Err(Error::UnsupportedPrime { prime: 17, .. })
        ));
        // Shape choices are for single kernels.
        assert!(matches!(
            plan(&FftSpec::new(8192).radices(&[8, 8, 8, 16])),
            Err(Error::ChoiceNeedsOneKernel { passes: 2, .. })
        ));
        let padded = crate::Layout::embedded(&[8, 8], &[8, 9], 1, 72).unwrap();
        assert!(matches!(
            plan(
                &FftSpec::with_shape(&[8, 8])
                    .layouts(padded, crate::Layout::contiguous(&[8, 8]))
                    .placement(crate::Placement::InPlace)
            ),
            Err(Error::BadLayout { .. })
        ));
        let overlapping = crate::Layout {
            strides: vec![4, 1],
            distance: 64,
        };
        assert!(matches!(
            plan(&FftSpec::with_shape(&[8, 8]).layouts(overlapping.clone(), overlapping)),
            Err(Error::BadLayout { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(64).radices(&[8, 4])),
            Err(Error::RadixProduct { product: 32, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(34).radices(&[2, 17])),
            Err(Error::UnsupportedPrime { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(4096).radices(&[2; 12])),
            Err(Error::UnlaunchableRadices { .. })
        ));
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
}
