//! Every CUDA kernel the tests emit is compiled by NVRTC for sm_90, a real
//! architecture, so ptxas runs and checks registers and shared memory: every
//! supported size in f32 and f64 (in CI a fixed sample, `common::sampled`;
//! all with FFTGEN_FULL_SWEEP=1), both directions, plus the in-place and
//! normalised variants. Register spills beyond a few words fail too, since a
//! spilling FFT kernel cannot reach the copy bandwidth.

mod common;

use common::{compile_for_sm_90, compile_source_for_sm_90, nvrtc, sampled, spills_for_sm_90};
use fftgen::plan::factor::supported_sizes;
use fftgen::plan::pass_planner::max_size;
use fftgen::plan::Wisdom;
use fftgen::plan::{ExchangeBuffers, ExchangeWidth, PaddingSearch, TwiddleTables};
use fftgen::{FftSpec, Normalization, Placement, Precision, ShapeChoices, Target, TransformKind};

fn compile(spec: &FftSpec) {
    compile_for_sm_90(spec, "tests/nvrtc_compile.rs");
}

fn sweep(precision: Precision, part: usize, parts: usize) {
    if !nvrtc() {
        return;
    }
    for n in sampled(supported_sizes(max_size(precision)))
        .into_iter()
        .skip(part)
        .step_by(parts)
    {
        compile(&FftSpec::new(n).precision(precision));
    }
}

macro_rules! sweep_tests {
    ($precision:expr, $parts:literal: $($name:ident = $part:literal),+) => {
        $(#[test] fn $name() { sweep($precision, $part, $parts) })+
    };
}

sweep_tests!(Precision::F32, 4: f32_sizes_part0 = 0, f32_sizes_part1 = 1, f32_sizes_part2 = 2, f32_sizes_part3 = 3);
sweep_tests!(Precision::F64, 4: f64_sizes_part0 = 0, f64_sizes_part1 = 1, f64_sizes_part2 = 2, f64_sizes_part3 = 3);

/// Every real (`r2c`) size one kernel computes, both directions in one
/// source: even sizes to twice the complex limit (the half-length route),
/// odd ones to the limit (the full-length route).
fn real_sweep(precision: Precision, part: usize, parts: usize) {
    if !nvrtc() {
        return;
    }
    let limit = max_size(precision);
    let sizes = sampled(supported_sizes(2 * limit))
        .into_iter()
        .filter(|&n| n >= 2 && (n <= limit || n % 2 == 0));
    for n in sizes.skip(part).step_by(parts) {
        compile(
            &FftSpec::new(n)
                .kind(TransformKind::R2c)
                .precision(precision),
        );
    }
}

macro_rules! real_sweep_tests {
    ($precision:expr, $parts:literal: $($name:ident = $part:literal),+) => {
        $(#[test] fn $name() { real_sweep($precision, $part, $parts) })+
    };
}

real_sweep_tests!(Precision::F32, 4: r2c_f32_sizes_part0 = 0, r2c_f32_sizes_part1 = 1, r2c_f32_sizes_part2 = 2, r2c_f32_sizes_part3 = 3);
real_sweep_tests!(Precision::F64, 4: r2c_f64_sizes_part0 = 0, r2c_f64_sizes_part1 = 1, r2c_f64_sizes_part2 = 2, r2c_f64_sizes_part3 = 3);

/// Real transforms past one kernel, in 2D and 3D, in place, and on the
/// H200's opt-in shared memory.
#[test]
fn real_multi_pass_and_multi_dimensional_plans() {
    if !nvrtc() {
        return;
    }
    let shapes: Vec<Vec<usize>> = vec![
        vec![12288],
        vec![1 << 16],
        vec![1 << 20],
        vec![5usize.pow(6)],
        vec![1000, 1000],
        vec![1024, 1024],
        vec![64, 48, 40],
        vec![33, 45],
        // Past one kernel in 2D, past two passes in 1D (to 2^30), odd long
        // axes in 2D, long complex axes.
        vec![16, 16384],
        vec![4, 15625],
        vec![8192, 8],
        vec![1 << 30],
        vec![3usize.pow(16)],
    ];
    for shape in &shapes {
        for precision in [Precision::F32, Precision::F64] {
            for target in [None, Some(Target::H200)] {
                let mut spec = FftSpec::with_shape(shape)
                    .kind(TransformKind::R2c)
                    .precision(precision);
                if let Some(target) = target.clone() {
                    spec = spec.target(target);
                }
                compile(&spec);
            }
        }
        compile(
            &FftSpec::with_shape(shape)
                .kind(TransformKind::R2c)
                .placement(Placement::InPlace)
                .normalization(Normalization::Unitary),
        );
    }
}

/// Real transforms whose FFT of N / 2 takes C2C passes, the split on the
/// last one's tile of mirrored columns and the merge on the first one's
/// loads (2^16, 2^20, and 31250 with an odd column count), in and out of
/// place, f32 and f64, on the portable target and the H100.
#[test]
fn real_split_and_merge_on_mirrored_column_tiles() {
    if !nvrtc() {
        return;
    }
    for n in [1 << 16, 1 << 20, 31250] {
        for precision in [Precision::F32, Precision::F64] {
            for placement in [Placement::OutOfPlace, Placement::InPlace] {
                for target in [Target::PORTABLE, Target::H100] {
                    let spec = FftSpec::new(n)
                        .kind(TransformKind::R2c)
                        .precision(precision)
                        .placement(placement)
                        .target(target);
                    let plan = fftgen::plan::plan(&spec).unwrap();
                    if plan.passes.len() == 1 {
                        continue;
                    }
                    let mirrored = |pass: &fftgen::plan::Pass| {
                        matches!(
                            pass.real.map(|r| r.end),
                            Some(fftgen::plan::RealEnd::Mirrored(_))
                        )
                    };
                    assert!(mirrored(plan.passes.last().unwrap()), "{n} {precision}");
                    assert!(mirrored(&plan.inverse_passes[0]), "{n} {precision}");
                    compile(&spec);
                }
            }
        }
    }
}

/// Real transforms whose FFT (of N / 2, or of an odd N) is one kernel in
/// the H100's opt-in shared memory (the split and merge fused into it, the
/// half spectrum staged beside the exchange), in and out of place: ptxas
/// accepts their shared memory and their registers hold.
#[test]
fn real_one_kernel_sizes_in_opt_in_shared_memory() {
    if !nvrtc() {
        return;
    }
    let sizes = [
        (12288, Precision::F32),
        (16384, Precision::F32),
        (20000, Precision::F32),
        (1 << 15, Precision::F32),
        (12288, Precision::F64),
        (16384, Precision::F64),
        // Odd: the FFT of N itself, over the reals.
        (6561, Precision::F32),
        (15625, Precision::F32),
        (6561, Precision::F64),
    ];
    for (n, precision) in sizes {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            let spec = FftSpec::new(n)
                .kind(TransformKind::R2c)
                .precision(precision)
                .placement(placement)
                .target(Target::H100);
            let plan = fftgen::plan::plan(&spec).unwrap();
            assert_eq!(plan.passes.len(), 1, "{n} {precision}");
            compile(&spec);
        }
    }
}

/// The shapes measured for particular GPU models (launch bounds above the
/// register model's among them) compile without spilling too.
#[test]
fn shapes_of_tuned_gpus() {
    if !nvrtc() {
        return;
    }
    for target in Wisdom::tuned_targets() {
        for (precision, shape) in Wisdom::built_in().tuned_shapes(&target) {
            compile(
                &FftSpec::with_shape(&shape)
                    .precision(precision)
                    .target(target.clone()),
            );
        }
    }
}

#[test]
fn variants_and_explicit_radices() {
    if !nvrtc() {
        return;
    }
    for n in [2, 16, 143, 1000, 4096] {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            for normalization in [
                Normalization::None,
                Normalization::Inverse,
                Normalization::Unitary,
            ] {
                compile(
                    &FftSpec::new(n)
                        .placement(placement)
                        .normalization(normalization),
                );
            }
        }
    }
    compile(&FftSpec::new(4096).radices(&[8, 8, 8, 8]));
    compile(&FftSpec::new(1000).radices(&[8, 5, 5, 5]));
    for n in [256, 512, 1000, 1024, 1331, 2048, 2187, 2197, 2401] {
        compile(
            &FftSpec::new(n)
                .choices(ShapeChoices {
                    exchange_buffers: Some(ExchangeBuffers::Alternating),
                    ..ShapeChoices::default()
                })
                .target(Target::H200),
        );
    }
    for n in [512, 1000, 1331, 2187, 2197, 2401, 4000] {
        compile(
            &FftSpec::new(n)
                .choices(ShapeChoices {
                    exchange_width: Some(ExchangeWidth::OnePartAtATime),
                    ..ShapeChoices::default()
                })
                .target(Target::H200),
        );
    }
    for (n, precision) in [
        (24576, Precision::F32),
        (12000, Precision::F32),
        (4096, Precision::F64),
    ] {
        compile(
            &FftSpec::new(n)
                .precision(precision)
                .choices(ShapeChoices {
                    twiddle_tables: Some(TwiddleTables::SplitLarge),
                    ..ShapeChoices::default()
                })
                .target(Target::H200),
        );
    }
    for n in [1000, 1331, 2048, 2187, 2197, 2401, 3125, 4000, 4096] {
        compile(
            &FftSpec::new(n)
                .choices(ShapeChoices {
                    exchange_width: Some(ExchangeWidth::Interleaved),
                    ..ShapeChoices::default()
                })
                .target(Target::H200),
        );
    }
    compile(
        &FftSpec::new(2048)
            .precision(Precision::F64)
            .choices(ShapeChoices {
                exchange_width: Some(ExchangeWidth::Interleaved),
                ..ShapeChoices::default()
            }),
    );
    for n in [1331, 2187, 2197, 2401, 3125] {
        for target in [Target::CUDA, Target::H200] {
            compile(
                &FftSpec::new(n)
                    .choices(ShapeChoices {
                        padding_search: Some(PaddingSearch::AllRadices),
                        ..ShapeChoices::default()
                    })
                    .target(target),
            );
        }
    }
}

/// The multi-pass plans of the PoCL tests (tests/large_sizes.rs and
/// tests/multi_dim.rs) and the sizes of the GPU targets, for the portable
/// target and for the H200 (whose plans may use more threads per block).
/// One-kernel 8192 and 16384 (f32) and 8192 (f64) in opt-in dynamic shared
/// memory, for the Hopper targets.
#[test]
fn one_kernel_sizes_in_opt_in_shared_memory() {
    if !nvrtc() {
        return;
    }
    for (n, precision) in [
        (8192, Precision::F32),
        (16384, Precision::F32),
        (8192, Precision::F64),
    ] {
        for target in [Target::H100, Target::H200] {
            let spec = FftSpec::new(n).precision(precision).target(target);
            let plan = fftgen::plan::plan(&spec).unwrap();
            assert_eq!(plan.passes.len(), 1, "{n} {precision}");
            assert!(plan.passes[0].dynamic_shared, "{n} {precision}");
            compile(&spec);
            compile(
                &spec
                    .clone()
                    .placement(Placement::InPlace)
                    .normalization(Normalization::Inverse),
            );
        }
    }
}

/// Neighbouring axes in one pass, within static shared memory and past
/// it in the opt-in memory (rows of several axes to 24576 f32 points), on
/// the Hopper targets: compiled without a spilled byte, and the shapes
/// whose threads would hold too many values keep a pass per axis.
#[test]
fn axes_at_once_compile_without_spills() {
    if !nvrtc() {
        return;
    }
    for (shape, precision, passes) in [
        (&[7usize, 480][..], Precision::F32, 1),
        (&[64, 64], Precision::F32, 1),
        (&[12, 20, 7], Precision::F32, 1),
        (&[96, 12, 7], Precision::F32, 1),
        (&[10, 1000], Precision::F32, 1),
        (&[128, 128], Precision::F32, 1),
        (&[20, 20, 20], Precision::F32, 1),
        (&[6, 1250], Precision::F32, 2),
        (&[3, 7000], Precision::F32, 2),
        (&[15, 7], Precision::F64, 1),
        (&[64, 128], Precision::F64, 1),
        (&[48, 100], Precision::F64, 2),
    ] {
        for target in [Target::H100, Target::H200] {
            let spec = FftSpec::with_shape(shape)
                .precision(precision)
                .target(target);
            let plan = fftgen::plan::plan(&spec).unwrap();
            assert_eq!(plan.passes.len(), passes, "{shape:?} {precision}");
            let generated = fftgen::generate(&spec, "tests/nvrtc_compile.rs").unwrap();
            let label = format!("{shape:?} {precision}");
            let (spilled, line) = spills_for_sm_90(&generated.cuda_source, &label);
            assert_eq!(spilled, 0, "{label}: {line}");
        }
    }
}

/// One-kernel f32 real rows whose lanes run across FFTs ask for as many
/// blocks as their values' words leave registers for (odd rows paired and
/// read as one run, even rows at half length), and f64 rows of one radix:
/// compiled for sm_90 within [`common::MAX_SPILL_BYTES`].
#[test]
fn one_kernel_real_rows_compile_within_the_spill_limit() {
    if !nvrtc() {
        return;
    }
    let f32_rows = [13, 21, 35, 45, 63, 84, 99, 117, 128, 256, 275, 375, 550];
    let f64_rows = [3, 5, 7, 11, 13, 17, 19, 23, 29, 31];
    let rows = (f32_rows.iter().map(|&n| (n, Precision::F32)))
        .chain(f64_rows.iter().map(|&n| (n, Precision::F64)));
    for (n, precision) in rows {
        for target in [Target::H100, Target::H200] {
            let spec = FftSpec::new(n)
                .kind(TransformKind::R2c)
                .precision(precision)
                .target(target.clone());
            let plan = fftgen::plan::plan(&spec).unwrap();
            assert_eq!(plan.passes.len(), 1, "{n}");
            let generated = fftgen::generate(&spec, "tests/nvrtc_compile.rs").unwrap();
            let label = format!("R2C {n} {precision} on {}", target.name);
            compile_source_for_sm_90(&generated.cuda_source, &label);
        }
    }
}

/// f64 real rows past max_size planned over more threads than their FFT's
/// own shape, where the register file's parts grant their words
/// (fftgen/src/plan/real.rs `row_held_by_registers`): one kernel each way,
/// compiled for sm_90 within [`common::MAX_SPILL_BYTES`].
#[test]
fn f64_real_rows_held_by_registers_compile_within_the_spill_limit() {
    if !nvrtc() {
        return;
    }
    for n in [12348, 14336, 18900, 20000, 22528] {
        let spec = f64_r2c_on_h200(n);
        let plan = fftgen::plan::plan(&spec).unwrap();
        assert_eq!(plan.passes.len(), 1, "{n}");
        compile_f64_r2c_on_h200(&spec, n);
    }
}

/// An f64 R2C of `n` points planned for the H200.
fn f64_r2c_on_h200(n: usize) -> FftSpec {
    FftSpec::new(n)
        .kind(TransformKind::R2c)
        .precision(Precision::F64)
        .target(Target::H200)
}

/// Compiles `spec` (an f64 R2C of `n` on the H200) for sm_90.
fn compile_f64_r2c_on_h200(spec: &FftSpec, n: usize) {
    let generated = fftgen::generate(spec, "tests/nvrtc_compile.rs").unwrap();
    compile_source_for_sm_90(&generated.cuda_source, &format!("R2C {n} f64 on h200"));
}

#[test]
fn odd_f64_real_rows_at_their_risen_bounds_compile_within_the_spill_limit() {
    if !nvrtc() {
        return;
    }
    for n in [3, 7, 9, 27, 55, 63, 99, 175, 189, 243] {
        compile_f64_r2c_on_h200(&f64_r2c_on_h200(n), n);
    }
}

#[test]
fn multi_pass_and_multi_dimensional_plans() {
    if !nvrtc() {
        return;
    }
    let shapes: Vec<Vec<usize>> = vec![
        vec![8192],
        vec![12288],
        vec![16384],
        vec![20000],
        vec![1 << 16],
        vec![1 << 18],
        vec![1 << 20],
        vec![1 << 22],
        vec![1 << 24],
        vec![1 << 27],
        vec![3usize.pow(10)],
        vec![5usize.pow(7)],
        vec![6usize.pow(8)],
        vec![1000, 1000],
        vec![48, 2187],
        vec![1024, 1024],
        vec![4096, 4096],
        vec![64, 48, 40],
        vec![256, 256, 256],
        vec![6, 8192],
    ];
    for shape in &shapes {
        for precision in [Precision::F32, Precision::F64] {
            for target in [None, Some(Target::H200)] {
                let mut spec = FftSpec::with_shape(shape).precision(precision);
                if let Some(target) = target.clone() {
                    spec = spec.target(target);
                }
                compile(&spec);
            }
        }
        compile(
            &FftSpec::with_shape(shape)
                .placement(Placement::InPlace)
                .normalization(Normalization::Unitary),
        );
    }
}

/// A real transform's whole shape in one pass (plan/real_shape.rs) asks
/// for as many blocks an SM as its values' words leave registers for: a
/// seeded sample of 2D and 3D real shapes within one kernel's points (and
/// the spread ones measured), both directions, on the Hopper targets,
/// compiled for sm_90 without a spilled byte.
#[test]
fn whole_real_shapes_compile_without_spills() {
    if !nvrtc() {
        return;
    }
    let smooth = [
        2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 21, 22, 24, 25, 26, 27, 28, 30,
        32, 33, 35, 36, 40, 42, 44, 45, 48, 49, 50, 52, 55, 56, 60, 63, 64, 65, 72, 75, 77, 80, 81,
        88, 90, 96, 99, 100, 104, 112, 117, 120, 125, 128, 144, 169, 192, 256,
    ];
    // A small linear congruential draw: the same shapes every run.
    let mut state = 2027u64;
    let mut next = |len: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % len
    };
    let mut shapes: Vec<(Vec<usize>, Precision)> = vec![
        (vec![32, 32], Precision::F32),
        (vec![96, 18], Precision::F32),
        (vec![20, 2], Precision::F32),
        (vec![72, 52], Precision::F32),
        (vec![16, 16, 8], Precision::F64),
        // In opt-in shared memory.
        (vec![64, 128], Precision::F64),
        (vec![32, 32, 8], Precision::F64),
    ];
    while shapes.len() < 18 {
        let axes = 2 + next(2);
        let shape: Vec<usize> = (0..axes).map(|_| smooth[next(smooth.len())]).collect();
        let precision = [Precision::F32, Precision::F64][next(2)];
        if shape.iter().product::<usize>() <= max_size(precision) {
            shapes.push((shape, precision));
        }
    }
    for (shape, precision) in shapes {
        for target in [Target::H100, Target::H200] {
            let spec = FftSpec::with_shape(&shape)
                .kind(TransformKind::R2c)
                .precision(precision)
                .target(target.clone());
            let generated = fftgen::generate(&spec, "tests/nvrtc_compile.rs").unwrap();
            let plan = &generated.plan;
            assert_eq!(
                (plan.passes.len(), plan.inverse_passes.len()),
                (1, 1),
                "{shape:?}"
            );
            let label = format!("R2C {shape:?} {precision} on {}", target.name);
            let (spilled, line) = spills_for_sm_90(&generated.cuda_source, &label);
            assert_eq!(spilled, 0, "{label}: {line}");
        }
    }
}

/// Every kernel of a seeded sample of the shapes `fftgen bench --random`
/// draws (1D to 2^27, 2D and 3D axes to 16384, f32 and f64, C2C and R2C),
/// planned for the H100: one pass per axis in opt-in shared memory, the
/// fitted one-kernel model's schedules and Bluestein's fused passes
/// compile for sm_90 (twelve cases, seed 36) and keep their values in
/// registers (15592500 f64, whose column passes of 4050 x 3850 spilled 164
/// bytes, now splits into passes of at most 2048 points).
#[test]
fn random_shapes_on_the_h100() {
    if !nvrtc() {
        return;
    }
    for case in fftgen_cli::bench::random_shapes::draw(12, 36) {
        let spec = case.spec().target(Target::H100);
        let generated = fftgen::generate(&spec, "tests/nvrtc_compile.rs")
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        let (spilled, line) = spills_for_sm_90(&generated.cuda_source, &case.to_string());
        assert!(spilled <= 32, "{case}: registers spill: {line}");
    }
}

/// Every kernel of the local steps of plans spread over several GPUs: each
/// step is a plan of one direction with a source of its own (a C2R's or an
/// inverse's step emits no forward kernel beside it), so the helpers its
/// kernels call must come with it. 12000x12000 over two GPUs (the bench's
/// shape, whose axes twiddle by the product of a fine and a coarse table)
/// on the portable target and the H100, a 3D R2C whose half spectrum (129)
/// no radix covers, then a seeded sample of shapes, kinds, precisions, GPU
/// counts and targets.
#[test]
fn distributed_local_steps() {
    use fftgen::distributed::{plan_distributed, DistributedSpec, Step};
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    if !nvrtc() {
        return;
    }
    let spread = |spec: FftSpec, gpus: usize| DistributedSpec {
        spec,
        gpus,
        grid: None,
        chunks: None,
    };
    let mut cases = vec![
        spread(FftSpec::with_shape(&[12000, 12000]), 2),
        spread(FftSpec::with_shape(&[12000, 12000]).target(Target::H100), 2),
        spread(
            FftSpec::with_shape(&[96, 200, 256])
                .kind(TransformKind::R2c)
                .target(Target::H100),
            2,
        ),
        // Uneven slabs: the last range padded.
        spread(FftSpec::with_shape(&[96, 100, 120]).target(Target::H100), 3),
        spread(
            FftSpec::with_shape(&[99, 100])
                .kind(TransformKind::R2c)
                .target(Target::H200),
            2,
        ),
    ];
    let lengths = [
        12, 48, 64, 96, 100, 128, 130, 200, 256, 384, 1000, 1024, 4096, 6000, 12000, 16384,
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed_d157);
    let sampled = cases.len() + 8;
    for _ in 0..1000 {
        if cases.len() == sampled {
            break;
        }
        let dims = rng.gen_range(2..=3);
        let shape: Vec<usize> = (0..dims)
            .map(|_| *lengths.choose(&mut rng).unwrap())
            .collect();
        if shape.iter().product::<usize>() > 1 << 28 {
            continue;
        }
        let kind = *[TransformKind::C2c, TransformKind::R2c]
            .choose(&mut rng)
            .unwrap();
        let precision = *[Precision::F32, Precision::F64].choose(&mut rng).unwrap();
        let target = [Target::PORTABLE, Target::H100, Target::H200]
            .choose(&mut rng)
            .unwrap()
            .clone();
        let spec = FftSpec::with_shape(&shape)
            .kind(kind)
            .precision(precision)
            .target(target);
        let case = spread(spec, rng.gen_range(2..=4));
        if plan_distributed(&case).is_ok() {
            cases.push(case);
        }
    }
    assert_eq!(cases.len(), sampled, "the sample found too few plans");
    for case in &cases {
        let plan = plan_distributed(case).unwrap();
        let label = format!(
            "{} {:?} {} over grid {:?} for {}",
            plan.kind,
            plan.shape,
            plan.precision,
            plan.grid,
            case.spec.target.as_ref().map_or("portable", |t| &t.name)
        );
        let mut compiled = std::collections::BTreeSet::new();
        for direction in [fftgen::Direction::Forward, fftgen::Direction::Inverse] {
            for (i, step) in plan.steps(direction).iter().enumerate() {
                let Step::Local { plan: local, .. } = step else {
                    continue;
                };
                let generated =
                    fftgen::emit::generate_plan(local.clone(), "tests/nvrtc_compile.rs")
                        .unwrap_or_else(|e| panic!("{label}: {direction} step {i}: {e}"));
                if compiled.insert(generated.cuda_source.clone()) {
                    compile_source_for_sm_90(
                        &generated.cuda_source,
                        &format!("{label}: {direction} step {i}"),
                    );
                }
            }
        }
    }
}
