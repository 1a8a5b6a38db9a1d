//! Random specs through `plan` and `emit`, as a user's random command lines
//! would make them: 1 to 3 axes of smooth (and now and then bad) lengths,
//! both kinds and precisions, placements, normalisations, directions,
//! embedded and strided layouts (some overflowing), every target, and random
//! combinations of every shape choice (radices, split, threads, transforms
//! per block, launch bound, exchange, padding, column I/O, first write,
//! input caching). Each spec either plans, keeping the plan invariants, or
//! is refused with an error that is not a planning bug; nothing panics. A
//! sample of the accepted plans is emitted: both dialects, distinct kernel
//! names, every kernel in the manifest; a few small ones run on PoCL
//! against the f64 reference, planned for PoCL's target (the option
//! combinations that gave wrong answers were all of this kind). A fixed
//! seed and count keep CI repeatable; every accepted plan goes through JSON
//! and back unchanged (FFTGEN_PROPERTY_CASES raises the
//! count). For complex plans small enough, every address each pass reads and
//! writes is walked as its kernels compute it: inside what the manifest
//! sizes each buffer to, no element touched twice by one pass, and every
//! output element written by the last.

use fftgen::plan::{
    ColumnIo, ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch,
    StepTwiddleForm, TwiddleTables,
};
use fftgen::{
    Direction, Error, FftSpec, Layout, Normalization, Placement, Precision, ShapeChoices, Target,
    TransformKind,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

mod common;

/// Random cases in CI.
const CASES: usize = 1500;

/// Accepted specs (replanned for PoCL's target) that run on PoCL against
/// the f64 reference, at most, and the most points each may have.
const POCL_RUNS: usize = 10;
const POCL_POINTS: usize = 1 << 14;

fn cases() -> usize {
    std::env::var("FFTGEN_PROPERTY_CASES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(CASES)
}

fn smooth(mut n: usize) -> bool {
    for p in [2, 3, 5, 7, 11, 13] {
        while n % p == 0 {
            n /= p;
        }
    }
    n == 1
}

/// A length: mostly smooth up to 2^20 (1D) or 4096 (an axis of 2D/3D),
/// sometimes 0, 1, a prime past 13 or a length past one kernel.
fn length(rng: &mut ChaCha8Rng, axes: usize) -> usize {
    let largest = if axes == 1 { 1 << 20 } else { 4096 };
    match rng.gen_range(0..20) {
        0 => *[0usize, 1, 17, 4099, 1 << 31].choose(rng).unwrap(),
        1..=4 => *[4375, 6561, 10000, 12000, 15625, 20000, 24576]
            .choose(rng)
            .unwrap(),
        _ => loop {
            let top = if rng.gen_bool(0.7) { 4096 } else { largest };
            let n = rng.gen_range(2..=top);
            if smooth(n) {
                break n;
            }
        },
    }
}

/// Radices whose product is `n` (mostly), or a random list.
fn radices(rng: &mut ChaCha8Rng, n: usize) -> Vec<usize> {
    if rng.gen_bool(0.2) {
        return (0..rng.gen_range(1..5))
            .map(|_| *[2, 3, 4, 5, 7, 8, 16, 17, 32, 64].choose(rng).unwrap())
            .collect();
    }
    let mut left = n.max(1);
    let mut list = Vec::new();
    while left > 1 && list.len() < 10 {
        let fits: Vec<usize> = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 25, 27, 32]
            .into_iter()
            .filter(|r| left % r == 0)
            .collect();
        let Some(&r) = fits.choose(rng) else { break };
        list.push(r);
        left /= r;
    }
    if list.is_empty() {
        list.push(2);
    }
    list
}

/// A split of `n` into pass lengths (mostly), or a random list.
fn split(rng: &mut ChaCha8Rng, n: usize) -> Vec<usize> {
    if rng.gen_bool(0.3) {
        return vec![n];
    }
    let divisors: Vec<usize> = (2..=n.min(8192)).filter(|d| n % d == 0).collect();
    match divisors.choose(rng) {
        Some(&d) if d < n => vec![d, n / d],
        _ => vec![rng.gen_range(1..64), rng.gen_range(1..64)],
    }
}

fn maybe<T>(rng: &mut ChaCha8Rng, p: f64, value: impl FnOnce(&mut ChaCha8Rng) -> T) -> Option<T> {
    rng.gen_bool(p).then(|| value(rng))
}

/// One of `options`, with probability `p`.
fn maybe_one<T: Copy>(rng: &mut ChaCha8Rng, p: f64, options: &[T]) -> Option<T> {
    maybe(rng, p, |r| *options.choose(r).unwrap())
}

fn choices(rng: &mut ChaCha8Rng, n: usize) -> ShapeChoices {
    use ExchangeWidth::{BothParts, Interleaved, OnePartAtATime};
    ShapeChoices {
        radices: maybe(rng, 0.25, |r| radices(r, n)),
        threads_per_fft: maybe_one(rng, 0.15, &[0, 1, 7, 32, 64, 256, 343, 1024, 5000]),
        min_blocks_per_sm: maybe(rng, 0.1, |r| r.gen_range(0..40)),
        ffts_per_block: maybe(rng, 0.1, |r| r.gen_range(0..40)),
        input_caching: maybe_one(rng, 0.1, &[InputCaching::L1AndL2, InputCaching::L2Only]),
        exchange_buffers: maybe_one(
            rng,
            0.1,
            &[ExchangeBuffers::Reused, ExchangeBuffers::Alternating],
        ),
        exchange_width: maybe_one(rng, 0.1, &[BothParts, OnePartAtATime, Interleaved]),
        first_write: maybe_one(rng, 0.1, &[FirstWrite::AfterBarrier, FirstWrite::Immediate]),
        padding_search: maybe_one(
            rng,
            0.1,
            &[PaddingSearch::EvenRadices, PaddingSearch::AllRadices],
        ),
        twiddle_tables: maybe_one(rng, 0.1, TwiddleTables::ALL),
        split: maybe(rng, 0.2, |r| split(r, n)),
        column_io: maybe_one(rng, 0.1, &[ColumnIo::Tile, ColumnIo::Global]),
        step_twiddles: maybe_one(rng, 0.1, StepTwiddleForm::ALL),
    }
}

/// A layout for `shape`: dense, embedded with padding, or absurd strides.
fn layout(rng: &mut ChaCha8Rng, shape: &[usize]) -> Layout {
    let dense = Layout::contiguous(shape);
    match rng.gen_range(0..6) {
        0 => Layout {
            strides: dense.strides.iter().map(|_| usize::MAX).collect(),
            distance: 4096,
        },
        1 => Layout {
            distance: usize::MAX,
            ..dense
        },
        2 | 3 => {
            let embed: Vec<usize> = shape.iter().map(|&n| n + rng.gen_range(0..3)).collect();
            let stride = rng.gen_range(1..3);
            let span = embed.iter().product::<usize>() * stride;
            Layout::embedded(shape, &embed, stride, span + rng.gen_range(0..5)).unwrap_or(dense)
        }
        _ => dense,
    }
}

fn spec(rng: &mut ChaCha8Rng) -> FftSpec {
    let axes = *[1, 1, 1, 2, 2, 3].choose(rng).unwrap();
    let shape: Vec<usize> = (0..axes).map(|_| length(rng, axes)).collect();
    let mut spec = FftSpec::with_shape(&shape)
        .kind(
            *[TransformKind::C2c, TransformKind::R2c]
                .choose(rng)
                .unwrap(),
        )
        .precision(*[Precision::F32, Precision::F64].choose(rng).unwrap())
        .placement(
            *[Placement::OutOfPlace, Placement::InPlace]
                .choose(rng)
                .unwrap(),
        )
        .normalization(
            *[
                Normalization::None,
                Normalization::Inverse,
                Normalization::Unitary,
            ]
            .choose(rng)
            .unwrap(),
        )
        .directions(
            [
                &[Direction::Forward, Direction::Inverse][..],
                &[Direction::Forward],
                &[Direction::Inverse],
            ]
            .choose(rng)
            .unwrap(),
        );
    if rng.gen_bool(0.7) {
        spec = spec.target(Target::PRESETS.choose(rng).unwrap().clone());
    }
    let n = *shape.last().unwrap();
    spec = spec.choices(choices(rng, n));
    if rng.gen_bool(0.2) && !shape.contains(&0) && shape.iter().all(|&n| n < 1 << 20) {
        let input = layout(rng, &shape);
        let output = layout(rng, &spec.complex_shape());
        spec = spec.layouts(input, output);
    }
    spec
}

#[test]
fn random_specs_plan_or_are_refused_and_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026_11_25);
    let (mut planned, mut refused, mut emitted, mut ran) = (0, 0, 0, 0);
    for case in 0..cases() {
        let spec = spec(&mut rng);
        let label = format!("case {case}: {}", spec.emit_command());
        let result = std::panic::catch_unwind(|| fftgen::plan::plan(&spec))
            .unwrap_or_else(|_| panic!("{label}: the planner panicked"));
        match result {
            Ok(plan) => {
                planned += 1;
                // plan -> JSON -> plan gives the same plan.
                let json = serde_json::to_string(&plan).expect("a plan serialises");
                let again = fftgen::Plan::from_json(&json, spec.planned_target());
                assert_eq!(again.as_ref(), Ok(&plan), "{label}: the JSON round trip");
                for pass in plan.passes.iter().chain(&plan.inverse_passes) {
                    // The split or merge apart and Bluestein's chirp steps
                    // apart compute no FFT.
                    let apart = pass.real.map(|r| r.end) == Some(fftgen::plan::RealEnd::Apart)
                        || (pass.chirp.is_some() && pass.stages.is_empty());
                    if !apart {
                        assert_eq!(pass.radices().iter().product::<usize>(), pass.n, "{label}");
                    }
                }
                // Emission costs more: every fourth plan of modest size.
                if case % 4 == 0 && plan.n <= 1 << 16 {
                    emitted += 1;
                    let generated = std::panic::catch_unwind(|| {
                        fftgen::generate(&spec, "tests/spec_properties.rs")
                    })
                    .unwrap_or_else(|_| panic!("{label}: emission panicked"))
                    .unwrap_or_else(|e| panic!("{label}: planned but not emitted: {e}"));
                    let names: Vec<&str> = generated
                        .manifest
                        .transforms
                        .iter()
                        .flat_map(|t| t.passes.iter().map(|p| p.kernel.as_str()))
                        .collect();
                    let distinct: HashSet<&&str> = names.iter().collect();
                    for name in &distinct {
                        assert!(generated.cuda_source.contains(**name), "{label}: {name}");
                        assert!(generated.opencl_source.contains(**name), "{label}: {name}");
                    }
                    // A kernel shared by both directions appears twice; no
                    // two different passes share a name.
                    let passes: HashSet<String> = plan
                        .all_passes()
                        .map(|(d, p)| format!("{d:?}{:?}", p))
                        .collect();
                    assert!(distinct.len() <= passes.len(), "{label}");
                }
                if ran < POCL_RUNS && plan.n <= POCL_POINTS && case % 3 == 0 {
                    let on_pocl = spec.clone().target(Target::POCL);
                    if fftgen::plan::plan(&on_pocl).is_ok() {
                        ran += 1;
                        common::check_spec_on_pocl(&on_pocl, 2, "tests/spec_properties.rs");
                    }
                }
            }
            Err(Error::BrokenPlan { .. }) | Err(Error::Template(_)) => {
                panic!("{label}: {:?}", fftgen::plan::plan(&spec))
            }
            Err(e) => {
                refused += 1;
                let message = e.to_string();
                assert!(
                    !message.is_empty() && !message.contains('\n'),
                    "{label}: {message}"
                );
            }
        }
    }
    eprintln!("{planned} planned ({emitted} emitted, {ran} run on PoCL), {refused} refused");
    assert!(
        planned > cases() / 5 && refused > cases() / 10,
        "{planned} planned, {refused} refused"
    );
}

/// Every address pass `pass` of `plan` touches on `side` (reads or writes)
/// for `batch` transforms, walked point by point as its kernels compute them
/// (transform, column coordinates fastest first, point), not from the
/// planner's own bound.
fn walk(pass: &fftgen::plan::Pass, batch: usize, writes: bool) -> Vec<usize> {
    let access = &pass.access;
    let (offset, stride, distance) = match writes {
        false => (
            access.input_offset,
            access.input_stride,
            access.input_distance,
        ),
        true => (
            access.output_offset,
            access.output_stride,
            access.output_distance,
        ),
    };
    // A Bluestein step's sides hold different points (N on the user's, M
    // in the workspace); one of its own takes a row's points in chunks
    // (column 0), each point once. On a pass of several of the FFT of M,
    // the step's user side walks the axis's points, its index column's
    // stride apart, once per row.
    let user_side = |chirp: &fftgen::plan::Chirp| match chirp.role {
        fftgen::plan::ChirpRole::Load { .. } => !writes,
        fftgen::plan::ChirpRole::Store { .. } => writes,
        fftgen::plan::ChirpRole::Multiply => false,
        fftgen::plan::ChirpRole::Whole { .. } | fftgen::plan::ChirpRole::Separate => true,
    };
    // A pass over pairs of transforms of the batch (an odd real axis's
    // Bluestein rows) steps two at a time; where its side holds both
    // transforms' rows, the second lies half the distance further.
    let second_row = |chirp: &fftgen::plan::Chirp| match chirp.role {
        fftgen::plan::ChirpRole::Load { side } => !writes && side.paired(),
        fftgen::plan::ChirpRole::Store { side } => writes && side.paired(),
        fftgen::plan::ChirpRole::Whole { from, to } => match writes {
            false => from.paired(),
            true => to.paired(),
        },
        fftgen::plan::ChirpRole::Separate => writes,
        fftgen::plan::ChirpRole::Multiply => false,
    };
    let paired_rows = pass.chirp.is_some_and(|chirp| second_row(&chirp));
    let transforms = match pass.transform_pairs {
        true => batch.div_ceil(2),
        false => batch,
    };
    let side_points = |chirp: &fftgen::plan::Chirp| match writes {
        false => chirp.side_points().0,
        true => chirp.side_points().1,
    };
    let (points, stride, along) = match pass.chirp {
        None => (pass.n, stride, None),
        Some(chirp) => match chirp.index {
            None => (side_points(&chirp), stride, None),
            Some(index) if user_side(&chirp) => {
                let column = &access.columns[index.column];
                let column_stride = match writes {
                    false => column.input_stride,
                    true => column.output_stride,
                };
                (side_points(&chirp), column_stride, Some(index.column))
            }
            Some(_) => (pass.n, stride, None),
        },
    };
    let columns: Vec<&fftgen::plan::Column> = match pass.chirp.is_some() && pass.stages.is_empty() {
        true => access.columns[1..].iter().collect(),
        false => access
            .columns
            .iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != along)
            .map(|(_, c)| c)
            .collect(),
    };
    let per_transform: usize = columns.iter().map(|c| c.count).product();
    let mut addresses = Vec::with_capacity(batch * per_transform * points);
    for fft in 0..transforms * per_transform {
        let (transform, mut rest) = (fft / per_transform, fft % per_transform);
        let mut start = offset + transform * distance;
        for column in &columns {
            let column_stride = match writes {
                false => column.input_stride,
                true => column.output_stride,
            };
            start += (rest % column.count) * column_stride;
            rest /= column.count;
        }
        addresses.extend((0..points).map(|point| start + point * stride));
        if paired_rows && 2 * transform + 1 < batch {
            let second = start + distance / 2;
            addresses.extend((0..points).map(|point| second + point * stride));
        }
    }
    addresses
}

#[test]
fn passes_touch_only_what_their_buffers_hold_and_write_each_element_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026_11_26);
    let batch = 3;
    let mut walked = 0;
    // Beside the random specs, Bluestein's steps on the first and last
    // passes of an FFT of M of two (M = 8232 on the portable target).
    let several_passes = [
        FftSpec::new(4099),
        FftSpec::with_shape(&[3, 4099]),
        FftSpec::with_shape(&[4099, 3]).placement(fftgen::Placement::InPlace),
    ];
    let specs: Vec<FftSpec> = (0..cases())
        .map(|_| spec(&mut rng))
        .chain(several_passes)
        .collect();
    for (case, spec) in specs.into_iter().enumerate() {
        let Ok(plan) = fftgen::plan::plan(&spec) else {
            continue;
        };
        // Complex plans whose addresses are few enough to walk; a real
        // plan's passes count reals and half spectra in their own units.
        if plan.kind != TransformKind::C2c || plan.n > 1 << 15 {
            continue;
        }
        walked += 1;
        let label = format!("case {case}: {}", spec.emit_command());
        // What the manifest sizes each buffer to for `batch` transforms.
        let held = |buffer: fftgen::Buffer| match buffer {
            fftgen::Buffer::Input => plan.input_layout.elements(&plan.shape, batch),
            fftgen::Buffer::Output => plan.output_layout.elements(&plan.shape, batch),
            fftgen::Buffer::Scratch => batch * plan.scratch_elements,
        };
        for (i, pass) in plan.passes.iter().enumerate() {
            for writes in [false, true] {
                let buffer = match writes {
                    false => pass.access.reads,
                    true => pass.access.writes,
                };
                let addresses = walk(pass, batch, writes);
                let limit = held(buffer);
                if let Some(&beyond) = addresses.iter().find(|&&a| a >= limit) {
                    panic!("{label}: pass {i} touches {buffer:?}[{beyond}] of {limit}");
                }
                let distinct: HashSet<usize> = addresses.iter().copied().collect();
                assert_eq!(
                    distinct.len(),
                    addresses.len(),
                    "{label}: pass {i} touches an element of {buffer:?} twice"
                );
            }
        }
        // The last pass writes every element of the output's layout.
        let last = plan.passes.last().expect("a plan has passes");
        let written: HashSet<usize> = walk(last, batch, true).into_iter().collect();
        let layout = &plan.output_layout;
        let expected = batch * plan.n;
        assert_eq!(written.len(), expected, "{label}: {layout:?}");
    }
    eprintln!("{walked} plans walked");
    assert!(walked > cases() / 20, "{walked} plans walked");
}
