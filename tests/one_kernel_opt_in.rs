//! One kernel past 4096 points: every 31-smooth size whose data fits a
//! block's opt-in shared memory (Hopper: 227 KiB) runs as one pass, and a
//! single pass forced by hand (`--split N`) either plans correctly or is
//! refused with a clear error, never a plan that breaks an invariant.
//!
//! The plan-level check covers every size from 4097 to 24576 on the H200,
//! and the portable target; a fixed sample covering every radix compiles
//! through NVRTC for sm_90 (ptxas checks the opt-in shared memory and the
//! registers), and the sizes a static 48 KiB block holds run on PoCL, as do
//! every other size of the sample planned for the H200's opt-in memory
//! through a client of the manifest alone (the runtime refuses those on
//! OpenCL, as a GPU would). The full sweep on the GPU is
//! scripts/device/opt_in_sweep.sh.

mod common;

use common::manifest_client;
use common::*;
use fftgen::plan::factor::supported_sizes;
use fftgen::plan::pass_planner::max_size;
use fftgen::{Direction, Error, FftSpec, Precision, ShapeChoices, Target};

/// The largest size the sweep plans: VkFFT's and cuFFTDx's one-kernel
/// sizes on Hopper in f32 end about here.
const LARGEST: usize = 24576;

fn forced(n: usize, precision: Precision, target: Target) -> FftSpec {
    FftSpec::new(n)
        .precision(precision)
        .target(target)
        .choices(ShapeChoices {
            split: Some(vec![n]),
            ..ShapeChoices::default()
        })
}

/// Every 13-smooth size, and the sample of those with a prime factor from
/// 17 to 31 ([`in_sample`]: all of them with FFTGEN_FULL_SWEEP=1).
fn thirteen_smooth_or_sampled(n: usize) -> bool {
    fftgen::codelet::largest_prime_factor(n) <= 13 || in_sample(n)
}

/// Every size past 4096 ([`thirteen_smooth_or_sampled`]), each precision
/// and target: the plan (one pass
/// forced, or the planner's own) either keeps its invariants or is refused
/// with an error that is not a planning bug.
#[test]
fn every_size_past_4096_plans_or_is_refused() {
    let mut one_kernel = 0;
    for precision in [Precision::F32, Precision::F64] {
        for n in supported_sizes(LARGEST)
            .into_iter()
            .filter(|&n| n > max_size(precision) && thirteen_smooth_or_sampled(n))
        {
            for target in [Target::H200, Target::PORTABLE] {
                for spec in [
                    forced(n, precision, target.clone()),
                    FftSpec::new(n).precision(precision).target(target.clone()),
                ] {
                    match fftgen::plan::plan(&spec) {
                        Ok(plan) => {
                            for pass in &plan.passes {
                                assert_eq!(pass.radices().iter().product::<usize>(), pass.n);
                            }
                            assert_eq!(plan.axis_factors[0].iter().product::<usize>(), n);
                            if spec.choices.split.is_some() {
                                assert_eq!(plan.passes.len(), 1, "{n} {precision}");
                                one_kernel += 1;
                            }
                        }
                        Err(Error::BrokenPlan { .. }) | Err(Error::Template(_)) => {
                            panic!(
                                "{n} {precision} {}: {:?}",
                                target.name,
                                fftgen::plan::plan(&spec)
                            )
                        }
                        Err(Error::PassTooLarge { .. }) => {}
                        Err(e) => {
                            panic!("{n} {precision} {}: unexpected refusal: {e}", target.name)
                        }
                    }
                }
            }
        }
    }
    assert!(
        one_kernel > 500,
        "{one_kernel} forced single passes planned"
    );
}

/// On the H200 every 13-smooth f32 size to 24576 and f64 size to 12288 is
/// one kernel but the few whose factors leave no schedule that one block's
/// registers hold (each prime 11 or 13 makes a radix whose butterflies do
/// not share the threads evenly; sizes with a prime from 17 to 31, more
/// often so, are counted apart); on the portable target, only what a
/// static 48 KiB block holds.
#[test]
fn opt_in_sizes_are_one_kernel_where_the_target_allows() {
    let mut two_passes = Vec::new();
    let mut large_primes_in_two = 0;
    for (precision, largest) in [(Precision::F32, LARGEST), (Precision::F64, 12288)] {
        for n in supported_sizes(largest)
            .into_iter()
            .filter(|&n| n > max_size(precision) && thirteen_smooth_or_sampled(n))
        {
            let spec = FftSpec::new(n).precision(precision).target(Target::H200);
            let plan = fftgen::plan::plan(&spec).unwrap();
            if plan.passes.len() > 1 {
                match fftgen::codelet::largest_prime_factor(n) <= 13 {
                    true => two_passes.push(format!("{n} {precision}")),
                    false => large_primes_in_two += 1,
                }
                continue;
            }
            let pass = &plan.passes[0];
            let static_limit = Target::H200.plannable_shared_bytes();
            assert_eq!(pass.dynamic_shared, pass.shared_bytes > static_limit, "{n}");
            assert!(pass.threads_per_block <= 1024, "{n}");
            let portable = fftgen::plan::plan(&FftSpec::new(n).precision(precision)).unwrap();
            let portable_limit = Target::PORTABLE.plannable_shared_bytes();
            assert!(
                portable
                    .passes
                    .iter()
                    .all(|p| p.shared_bytes <= portable_limit),
                "{n}"
            );
        }
    }
    eprintln!("two passes on the H200: {}", two_passes.join(", "));
    eprintln!("and {large_primes_in_two} sampled sizes with a prime factor from 17 to 31");
    assert!(
        two_passes.len() <= TWO_PASS_SIZES,
        "{}",
        two_passes.join(", ")
    );
}

/// Sizes to 24576 (f32) and 12288 (f64) that the H200 still runs in two
/// passes, because no radix schedule fits one block's threads and registers
/// (122 of 891 on 2026-11-25: 53 f32 sizes, all but 14157 past 16000, and
/// 69 f64 sizes, most with the primes 11 or 13; docs/perf.md).
const TWO_PASS_SIZES: usize = 125;

/// A fixed sample of sizes past 4096 that covers every radix the opt-in
/// schedules use (2 to 27, and the primes 17 and 29: 17^3, 7^3 x 29), both
/// precisions, and threads holding up to 44 values (13689, 14157, 22000 in
/// f32; 4290, 12150 in f64).
fn sample() -> Vec<(usize, Precision)> {
    let f32_sizes = [
        4375, 5000, 6000, 6561, 7203, 8000, 9000, 10000, 10985, 12000, 13312, 13689, 14157, 14641,
        15625, 16000, 20000, 22000, 24576, 4913, 9947,
    ];
    let f64_sizes = [
        4290, 4608, 6561, 7000, 8192, 9801, 10000, 11907, 12150, 12288, 4913,
    ];
    f32_sizes
        .into_iter()
        .map(|n| (n, Precision::F32))
        .chain(f64_sizes.into_iter().map(|n| (n, Precision::F64)))
        .collect()
}

/// One-kernel sizes past 4096 that PoCL runs: those a 48 KiB block holds
/// (PoCL's device is clamped to the portable target, and OpenCL has no
/// opt-in shared memory), through the same opt-in schedule search, with
/// radices 2 to 13 among them. The larger ones run through CUDA on the
/// device (scripts/device/opt_in_sweep.sh).
#[test]
fn static_one_kernel_sizes_past_4096_on_pocl() {
    for n in [4225, 4375, 4459, 5000, 5488, 5632] {
        let spec = FftSpec::new(n);
        let plan = fftgen::plan::plan(&spec).unwrap();
        assert_eq!(plan.passes.len(), 1, "{n}");
        check_spec_on_pocl(&spec, 3, "tests/one_kernel_opt_in.rs");
    }
}

/// Kernels planned for the H200's opt-in shared memory, run on PoCL through
/// a client of the manifest alone (the runtime refuses them on every OpenCL
/// device, PoCL included: no GPU's OpenCL grants opt-in shared memory):
/// every radix of the sample, both precisions, both directions, against the
/// f64 reference.
#[test]
fn opt_in_sample_on_pocl_through_the_manifest() {
    let Some(device) = pocl() else { return };
    let batch = 2;
    let mut opt_in = 0;
    for (n, precision) in sample().into_iter().step_by(2) {
        let spec = FftSpec::new(n).precision(precision).target(Target::H200);
        let generated = fftgen::generate(&spec, "tests/one_kernel_opt_in.rs").unwrap();
        // (14157 in f32 still takes two passes: see TWO_PASS_SIZES.)
        let [pass] = generated.manifest.transforms[0].passes.as_slice() else {
            continue;
        };
        // The runtime's clamp: PoCL must not pass what a GPU rejects.
        let refused = fftgen_runtime::opencl::OpenClFft::new(
            device,
            &generated.opencl_source,
            &generated.manifest,
        );
        if pass.dynamic_shared_bytes > 0 {
            assert!(
                refused.is_err(),
                "{n} {precision}: the runtime ran an opt-in kernel"
            );
            opt_in += 1;
        }
        let input = random_input(n * batch, n as u64);
        for direction in [Direction::Forward, Direction::Inverse] {
            let want = reference(&input, n, direction);
            let got = manifest_client::run_generated(device, &generated, direction, &input, batch);
            let error = relative_l2(&got, &want);
            let limit = tolerance(n, precision);
            assert!(
                error <= limit,
                "{n} {precision} {direction}: error {error} over {limit}"
            );
        }
    }
    assert!(opt_in >= 8, "{opt_in} opt-in kernels run");
}

/// The sample through NVRTC for sm_90: ptxas accepts the opt-in shared
/// memory and the registers hold every value (a few spilled words at most).
#[test]
fn sample_compiles_for_sm_90_without_spills() {
    if !nvrtc() {
        return;
    }
    for (n, precision) in sample() {
        let spec = FftSpec::new(n).precision(precision).target(Target::H200);
        compile_for_sm_90(&spec, "tests/one_kernel_opt_in.rs");
    }
}

/// A real scalar of either precision, as the manifest client moves it.
trait Scalar: Copy + Default + Into<f64> {
    fn from_f64(x: f64) -> Self;
}

impl Scalar for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Scalar for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
}

/// Where element `i` (row-major over `shape`) of transform `b` of a side
/// laid out as `layout` is, in elements.
fn at(layout: &fftgen::Layout, shape: &[usize], b: usize, i: usize) -> usize {
    let mut rest = i;
    let mut offset = b * layout.distance;
    for (&len, &stride) in shape.iter().zip(&layout.strides).rev() {
        offset += rest % len * stride;
        rest /= len;
    }
    offset
}

/// The R2C and the C2R of the real plan `generated` of `shape` through the
/// manifest client, `batch` transforms: the R2C of random reals against the
/// f64 reference half spectrum, and the C2R of that spectrum against the
/// reals times the points. Returns both relative L2 errors.
fn real_errors<T: Scalar>(
    device: &fftgen_runtime::OpenClDevice,
    generated: &fftgen::Generated,
    shape: &[usize],
    batch: usize,
) -> (f64, f64) {
    real_errors_with_dc::<T>(device, generated, shape, batch, 0.0)
}

/// [`real_errors`], the C2R's input X[0] of each transform given the
/// imaginary part `imaginary_dc` (1D), which a C2R ignores (numpy's irfft,
/// cuFFT): the reals it gives back are the same.
fn real_errors_with_dc<T: Scalar>(
    device: &fftgen_runtime::OpenClDevice,
    generated: &fftgen::Generated,
    shape: &[usize],
    batch: usize,
    imaginary_dc: f64,
) -> (f64, f64) {
    let manifest = &generated.manifest;
    let (real, half) = (&manifest.input, &manifest.output);
    let points: usize = shape.iter().product();
    let half_shape = fftgen::TransformKind::R2c.complex_shape(shape);
    let kept: usize = half_shape.iter().product();
    let reals = fftgen_cli::accuracy::random_reals(points * batch, points as u64 + 7);
    let spectrum =
        fftgen_cli::accuracy::real_forward_reference(shape, &reals, fftgen::Normalization::None);
    let run = |direction, input: &[T]| {
        manifest_client::run_passes_scalars(
            device,
            &generated.opencl_source,
            manifest,
            direction,
            input,
            batch,
        )
    };
    // R2C: the reals in, the half spectrum out.
    let mut input = vec![T::default(); manifest.input_elements(Direction::Forward, batch)];
    for b in 0..batch {
        for i in 0..points {
            input[at(real, shape, b, i)] = T::from_f64(reals[b * points + i]);
        }
    }
    let output = run(Direction::Forward, &input);
    let got: Vec<num_complex::Complex<f64>> = (0..batch)
        .flat_map(|b| (0..kept).map(move |k| (b, k)))
        .map(|(b, k)| {
            let e = 2 * at(half, &half_shape, b, k);
            num_complex::Complex::new(output[e].into(), output[e + 1].into())
        })
        .collect();
    let forward = relative_l2(&got, &spectrum);
    // C2R: the reference spectrum in, the points times the reals out.
    let mut input = vec![T::default(); 2 * manifest.input_elements(Direction::Inverse, batch)];
    for b in 0..batch {
        for k in 0..kept {
            let value = spectrum[b * kept + k];
            let e = 2 * at(half, &half_shape, b, k);
            input[e] = T::from_f64(value.re);
            input[e + 1] = T::from_f64(match k {
                0 => value.im + imaginary_dc,
                _ => value.im,
            });
        }
    }
    let output = run(Direction::Inverse, &input);
    let as_complex = |x: f64| num_complex::Complex::new(x, 0.0);
    let got: Vec<_> = (0..batch)
        .flat_map(|b| (0..points).map(move |i| (b, i)))
        .map(|(b, i)| as_complex(output[at(real, shape, b, i)].into()))
        .collect();
    let want: Vec<_> = reals
        .iter()
        .map(|&x| as_complex(points as f64 * x))
        .collect();
    (forward, relative_l2(&got, &want))
}

/// Real sizes whose FFT is one kernel in the H100's opt-in shared memory,
/// with the staged half spectrum beside it: of N / 2 for 12288 (6144 = 24
/// x 8 x 8 x 4) and 20000 (10000 = 20 x 20 x 5 x 5) in f32 and 12288 in
/// f64; of N itself for the odd 6561 (f32, f64) and 15625 (f32).
fn real_opt_in_sample() -> [(usize, Precision); 7] {
    [
        (12288, Precision::F32),
        // A row over more threads than the model's (8 values over 1024).
        (14336, Precision::F64),
        (20000, Precision::F32),
        (12288, Precision::F64),
        (6561, Precision::F32),
        (15625, Precision::F32),
        (6561, Precision::F64),
    ]
}

/// The spec of a real transform of `n` points planned for the H100.
fn real_on_h100(n: usize, precision: Precision, placement: fftgen::Placement) -> FftSpec {
    FftSpec::new(n)
        .kind(fftgen::TransformKind::R2c)
        .precision(precision)
        .placement(placement)
        .target(Target::H100)
}

/// R2C and C2R past 4096 points as one kernel per direction on the H100,
/// the split fused into the R2C's stores and the merge into the C2R's
/// loads, run on PoCL through the manifest client (the runtime refuses
/// their opt-in shared memory on OpenCL): in and out of place, a batch of
/// 3, against the f64 reference. On the portable target they stay in
/// several passes, as before.
#[test]
fn real_opt_in_kernels_on_pocl_through_the_manifest() {
    let Some(device) = pocl() else { return };
    let batch = 3;
    for (n, precision) in real_opt_in_sample() {
        let portable = FftSpec::new(n)
            .kind(fftgen::TransformKind::R2c)
            .precision(precision);
        assert!(fftgen::plan::plan(&portable).unwrap().passes.len() > 1);
        for placement in [fftgen::Placement::OutOfPlace, fftgen::Placement::InPlace] {
            let spec = real_on_h100(n, precision, placement);
            let generated = fftgen::generate(&spec, "tests/one_kernel_opt_in.rs").unwrap();
            let label = format!("{n} {precision} {placement:?}");
            let step = generated.plan.passes[0].real.unwrap();
            assert_eq!(step.end, fftgen::plan::RealEnd::Both, "{label}");
            assert_one_opt_in_pass_each_way(device, &generated, &label);
            let (forward, inverse) = match precision {
                Precision::F32 => real_errors::<f32>(device, &generated, &[n], batch),
                Precision::F64 => real_errors::<f64>(device, &generated, &[n], batch),
            };
            let limit = tolerance(n, precision);
            eprintln!(
                "{label}: R2C error {forward:.3e}, C2R error {inverse:.3e} (tolerance {limit:.3e})"
            );
            assert!(
                forward <= limit,
                "{label} R2C: error {forward} over {limit}"
            );
            assert!(
                inverse <= limit,
                "{label} C2R: error {inverse} over {limit}"
            );
        }
    }
}

/// One pass per direction, in opt-in shared memory, which the runtime
/// refuses on OpenCL (its clamp: PoCL must not pass what a GPU rejects).
fn assert_one_opt_in_pass_each_way(
    device: &fftgen_runtime::OpenClDevice,
    generated: &fftgen::Generated,
    label: &str,
) {
    for transform in &generated.manifest.transforms {
        let [pass] = transform.passes.as_slice() else {
            panic!("{label}: one pass per direction");
        };
        assert!(pass.dynamic_shared_bytes > 48 * 1024, "{label}: opt-in");
    }
    let refused = fftgen_runtime::opencl::OpenClFft::new(
        device,
        &generated.opencl_source,
        &generated.manifest,
    );
    assert!(
        refused.is_err(),
        "{label}: the runtime ran an opt-in kernel"
    );
}

/// A real transform's whole shape in one pass past 2048 f64 points, its
/// group staged in the H100's opt-in shared memory (plan/real_shape.rs):
/// one kernel per direction, refused by the runtime on OpenCL and run on
/// PoCL through the manifest client against the f64 reference, a batch of
/// 3; 252x20 and 192x28 with their values spread over more threads (1008
/// and 896) to fit registers. f32 shapes past 4096 points keep their
/// passes.
#[test]
fn whole_real_shapes_in_opt_in_memory_on_pocl() {
    let Some(device) = pocl() else { return };
    let f32_shape = FftSpec::with_shape(&[128, 128])
        .kind(fftgen::TransformKind::R2c)
        .target(Target::H100);
    assert!(fftgen::plan::plan(&f32_shape).unwrap().passes.len() > 1);
    let batch = 3;
    for (shape, precision) in [
        (vec![64usize, 128], Precision::F64),
        (vec![32, 32, 8], Precision::F64),
        (vec![16, 16, 32], Precision::F64),
        (vec![252, 20], Precision::F64),
        (vec![192, 28], Precision::F64),
    ] {
        let spec = FftSpec::with_shape(&shape)
            .kind(fftgen::TransformKind::R2c)
            .precision(precision)
            .target(Target::H100);
        let generated = fftgen::generate(&spec, "tests/one_kernel_opt_in.rs").unwrap();
        let label = format!("{shape:?} {precision}");
        assert_one_opt_in_pass_each_way(device, &generated, &label);
        let (forward, inverse) = match precision {
            Precision::F32 => real_errors::<f32>(device, &generated, &shape, batch),
            Precision::F64 => real_errors::<f64>(device, &generated, &shape, batch),
        };
        let limit = tolerance(shape.iter().product(), precision);
        assert!(
            forward <= limit,
            "{label} R2C: error {forward} over {limit}"
        );
        assert!(
            inverse <= limit,
            "{label} C2R: error {inverse} over {limit}"
        );
    }
}

/// An odd real axis by Bluestein's algorithm whose FFT of M one block holds
/// in opt-in memory (3269's 6561 on the H100) pairs two transforms of the
/// batch to each row of M; its R2C separates their half spectra on the
/// second FFT's stores, through shared memory. An odd batch leaves the
/// last pair one transform; an imaginary part in X[0] of the C2R's input
/// is ignored, as numpy's irfft does, not carried into the other
/// transform of the pair.
#[test]
fn paired_bluestein_rows_in_opt_in_memory_on_pocl() {
    let Some(device) = pocl() else { return };
    let spec = FftSpec::new(3269)
        .kind(fftgen::TransformKind::R2c)
        .target(Target::H100);
    let generated = fftgen::generate(&spec, "tests/one_kernel_opt_in.rs").unwrap();
    let plan = &generated.plan;
    assert!(plan
        .passes
        .iter()
        .all(|p| p.transform_pairs && p.dynamic_shared));
    assert_eq!((plan.passes.len(), plan.inverse_passes.len()), (2, 2));
    // X[0]'s imaginary part is ignored, not carried into the pair's other
    // transform.
    let (forward, inverse) = real_errors_with_dc::<f32>(device, &generated, &[3269], 3, 1e3);
    let limit = tolerance(3269, Precision::F32);
    assert!(
        forward <= limit && inverse <= limit,
        "{forward} {inverse} over {limit}"
    );
    // Several passes of the FFT of M (8321 f64 on the portable target).
    let several = FftSpec::new(8321)
        .kind(fftgen::TransformKind::R2c)
        .precision(Precision::F64);
    let generated = fftgen::generate(&several, "tests/one_kernel_opt_in.rs").unwrap();
    assert!(generated.plan.passes.iter().all(|p| p.transform_pairs));
    let (forward, inverse) = real_errors_with_dc::<f64>(device, &generated, &[8321], 2, 1e3);
    let limit = tolerance(8321, Precision::F64);
    assert!(
        forward <= limit && inverse <= limit,
        "{forward} {inverse} over {limit}"
    );
}
