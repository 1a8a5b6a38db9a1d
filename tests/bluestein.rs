//! Lengths with a prime factor above 31 run Bluestein's algorithm
//! (fftgen/src/plan/bluestein.rs): rows of M >= 2N - 1 in the workspace, the
//! FFT of M, the product with the chirp's spectrum and the FFT of M read
//! backwards, the chirps and the product on the FFTs' loads and stores
//! (fftgen/src/plan/chirp_fusion.rs). Each shape below runs on PoCL
//! against the f64 reference, forward and inverse: primes alone (37, 97:
//! one kernel holds the FFT of M; 4099, 10007, 65537: it takes two passes
//! on the portable target, the steps ride on the first and last), beside
//! other factors (101 x 64, 3 x 4099), as one axis of a 2D or 3D transform
//! (1000 x 1022, 37 x 4 x 5, 3 x 4099, 4099 x 3), C2C and R2C/C2R, f32 and
//! f64, in and out of place, over strided layouts, and the steps in
//! kernels of their own (`plan_apart`); plans take one kernel where one
//! block holds the FFT of M and the steps' registers, else 2 x (passes of
//! M) kernels, and their CUDA kernels (the H100's too) compile through NVRTC
//! for sm_90 without spilling.

mod common;

use common::*;
use fftgen::plan::bluestein::{plan_apart, AxisRoute, RouteSteps};
use fftgen::{
    Direction, FftSpec, Layout, Normalization, Placement, Precision, Target, TransformKind,
};

const ORIGIN: &str = "tests/bluestein.rs";

fn spec(shape: &[usize], kind: TransformKind, precision: Precision) -> FftSpec {
    FftSpec::with_shape(shape).kind(kind).precision(precision)
}

/// A 1D layout of points `stride` apart, transforms `distance` apart.
fn strided_layout(stride: usize, distance: usize) -> Layout {
    Layout {
        strides: vec![stride],
        distance,
    }
}

/// 1D lengths: C2C and R2C, f32, with f64 or in place on every other one
/// (the primes whose FFT of M takes passes: [`SEVERAL_PASSES`]).
const LENGTHS: [usize; 4] = [37, 97, 101 * 64, 3 * 4099];

/// Primes whose FFT of M takes two passes on the portable target (M =
/// 8232, 20160, 131220).
const SEVERAL_PASSES: [usize; 3] = [4099, 10007, 65537];

#[test]
fn prime_lengths_run_within_tolerance_on_pocl() {
    for (i, n) in LENGTHS.into_iter().enumerate() {
        for kind in [TransformKind::C2c, TransformKind::R2c] {
            check_spec_on_pocl(&spec(&[n], kind, Precision::F32), 3, ORIGIN);
            let other = match i % 2 {
                0 => spec(&[n], kind, Precision::F64),
                _ => spec(&[n], kind, Precision::F32).placement(Placement::InPlace),
            };
            check_spec_on_pocl(&other, 3, ORIGIN);
        }
    }
}

/// A prime axis beside others, and layouts the chirps must follow.
#[test]
fn prime_axes_and_layouts_run_within_tolerance_on_pocl() {
    let c2c = TransformKind::C2c;
    check_spec_on_pocl(&spec(&[1000, 1022], c2c, Precision::F32), 1, ORIGIN);
    let cube = spec(&[37, 4, 5], c2c, Precision::F64)
        .placement(Placement::InPlace)
        .normalization(Normalization::Unitary);
    check_spec_on_pocl(&cube, 3, ORIGIN);
    check_spec_on_pocl(&spec(&[41, 43], c2c, Precision::F32), 2, ORIGIN);
    let strided =
        spec(&[37], c2c, Precision::F32).layouts(strided_layout(2, 80), strided_layout(3, 120));
    check_spec_on_pocl(&strided, 3, ORIGIN);
    let rows = spec(&[1021], TransformKind::R2c, Precision::F32)
        .normalization(Normalization::Inverse)
        .layouts(strided_layout(2, 2100), strided_layout(1, 520));
    check_spec_on_pocl(&rows, 2, ORIGIN);
}

/// Real transforms of two or three axes with a prime factor above 31: a
/// real axis that needs Bluestein's algorithm by its steps (its reals and
/// half spectrum the steps' sides); a smooth real axis by the real
/// planner's passes, the prime axes by Bluestein's over the half spectrum
/// (its padded rows in the workspace past the C2R's half spectrum, out of
/// place, and past the regions of a real axis of several passes).
#[test]
fn real_transforms_of_prime_axes_run_within_tolerance_on_pocl() {
    let r2c = TransformKind::R2c;
    check_spec_on_pocl(&spec(&[64, 37], r2c, Precision::F32), 2, ORIGIN);
    check_spec_on_pocl(&spec(&[37, 64], r2c, Precision::F64), 3, ORIGIN);
    let in_place = spec(&[6, 37, 10], r2c, Precision::F32).placement(Placement::InPlace);
    check_spec_on_pocl(&in_place, 2, ORIGIN);
    check_spec_on_pocl(&spec(&[1000, 1022], r2c, Precision::F32), 1, ORIGIN);
    check_spec_on_pocl(&spec(&[73, 510], r2c, Precision::F32), 2, ORIGIN);
    check_spec_on_pocl(&spec(&[1434, 4], r2c, Precision::F32), 2, ORIGIN);
    check_spec_on_pocl(&spec(&[37, 15625], r2c, Precision::F64), 1, ORIGIN);
    check_spec_on_pocl(&spec(&[3, 37, 30000], r2c, Precision::F32), 1, ORIGIN);
    // Even real axes whose N / 2 needs Bluestein's algorithm: the reals as
    // pairs, the split or merge in a pass of its own.
    check_spec_on_pocl(&spec(&[74], r2c, Precision::F32), 3, ORIGIN);
    check_spec_on_pocl(&spec(&[8198], r2c, Precision::F64), 2, ORIGIN);
    check_spec_on_pocl(&spec(&[37, 74], r2c, Precision::F64), 2, ORIGIN);
    let in_place = spec(&[5, 8198], r2c, Precision::F32).placement(Placement::InPlace);
    check_spec_on_pocl(&in_place, 2, ORIGIN);
}

/// A smooth real axis is never Bluestein's: the prime axes of a real
/// transform leave the real axis to the real planner, whose fused pass
/// moves the reals and the half spectrum once. An even one that needs
/// Bluestein's algorithm pads N / 2 pairs, not N reals.
#[test]
fn a_smooth_real_axis_beside_a_prime_axis_runs_the_real_planners_passes() {
    for (n, precision) in [(74, Precision::F32), (442118, Precision::F64)] {
        let plan = fftgen::plan::plan(&spec(&[n], TransformKind::R2c, precision)).unwrap();
        let route = AxisRoute::of(&plan.passes, n / 2).expect("Bluestein's FFT of N / 2");
        assert!(route.padded < 2 * n - 1, "{n}: pads {}", route.padded);
        let split = plan
            .passes
            .last()
            .unwrap()
            .real
            .expect("the split comes last");
        assert_eq!(split.end, fftgen::plan::real_step::RealEnd::Apart, "{n}");
    }
    for shape in [[73, 510], [1434, 4], [41, 9000]] {
        let plan = fftgen::plan::plan(&spec(&shape, TransformKind::R2c, Precision::F32)).unwrap();
        let real_axis = plan.passes[0]
            .real
            .expect("the real axis's pass comes first");
        assert_eq!(real_axis.real_n, shape[1], "{shape:?}");
        assert!(
            plan.passes
                .iter()
                .all(|p| p.chirp.is_none_or(|c| c.n == shape[0])),
            "{shape:?}: only the prime axis runs Bluestein's steps"
        );
    }
}

/// An axis of m x p (p its one prime factor past 31, m one kernel's and
/// 31-smooth) where Bluestein's algorithm over the whole axis takes
/// several kernels runs the FFTs of m with the four-step twiddle, then
/// Bluestein's algorithm over p alone in one kernel, in place on the axis
/// seen as p x m: two kernels, on PoCL within tolerance forward and
/// inverse, 1D and as an axis of 2D and 3D transforms, C2C and the
/// complex axis of R2C and C2R, f32 and f64, strided and in place; their
/// H100 kernels compile without spilling.
#[test]
fn a_prime_factor_runs_alone_after_the_smooth_ones() {
    let c2c = TransformKind::C2c;
    // The FFTs of m, twiddled, then Bluestein's algorithm over p alone.
    let split = |spec: &FftSpec| {
        let plan = fftgen::plan::plan(spec).unwrap();
        let axis = *spec.shape.iter().max().unwrap();
        let alone = plan.passes.windows(2).any(|pair| {
            pair[0].step_twiddle.is_some()
                && pair[0].chirp.is_none()
                && pair[1]
                    .chirp
                    .is_some_and(|chirp| chirp.n * pair[0].n == axis)
        });
        (plan, alone)
    };
    for (shape, precision) in [
        (vec![20148], Precision::F32),
        (vec![20185], Precision::F64),
        (vec![3, 20148], Precision::F32),
        (vec![20148, 2], Precision::F64),
    ] {
        let spec = spec(&shape, c2c, precision);
        let (plan, alone) = split(&spec);
        assert!(
            alone,
            "{shape:?}: {:?}",
            plan.passes.iter().map(|p| p.n).collect::<Vec<_>>()
        );
        assert_eq!(plan.passes.len(), shape.len() + 1, "{shape:?}");
        check_spec_on_pocl(&spec, 2, ORIGIN);
        compile_for_sm_90(&spec.clone().target(Target::H100), ORIGIN);
    }
    let strided = spec(&[20148], c2c, Precision::F32)
        .normalization(Normalization::Unitary)
        .layouts(strided_layout(2, 40400), strided_layout(3, 60500));
    assert!(split(&strided).1);
    check_spec_on_pocl(&strided, 2, ORIGIN);
    // In place the first step writes the workspace, which Bluestein's
    // algorithm reads: 1D, the R2C's complex axis (in place on the half
    // spectrum; the C2R's reads the input into the workspace), and a 3D
    // transform's first or last axis, its other two seen as one.
    let in_place = spec(&[20148], c2c, Precision::F64).placement(Placement::InPlace);
    assert!(split(&in_place).1);
    check_spec_on_pocl(&in_place, 2, ORIGIN);
    check_spec_on_pocl(
        &spec(&[20148, 6], TransformKind::R2c, Precision::F32),
        1,
        ORIGIN,
    );
    for shape in [[20148, 3, 2], [2, 3, 20148]] {
        let cube = spec(&shape, c2c, Precision::F32).placement(Placement::InPlace);
        assert!(split(&cube).1, "{shape:?}");
        check_spec_on_pocl(&cube, 1, ORIGIN);
    }
    // A middle axis too, its m points and the inner axis seen as one run
    // (a_middle_axis_runs_its_prime_factor_alone).
    assert!(split(&spec(&[2, 20148, 3], c2c, Precision::F32)).1);
}

/// Whether `spec`'s plan runs FFTs of `m` with the four-step twiddle, then
/// the algorithm (Bluestein's or Rader's) over the prime factors `p` alone.
fn runs_alone(spec: &FftSpec, m: usize, p: usize) -> bool {
    let plan = fftgen::plan::plan(spec).unwrap();
    plan.passes.windows(2).any(|pair| {
        pair[0].n == m
            && pair[0].step_twiddle.is_some()
            && pair[1].chirp.is_some_and(|chirp| chirp.n == p)
    })
}

/// The prime factors past 31 run alone also where they are several
/// (24272 = 16 x 37 x 41: Bluestein's algorithm over 1517) and along a
/// strided axis at as many kernels as over the whole axis, where the rest
/// is more than 2 points (1825x10 f64: 25, then 73; 1234x20 f64, the rest
/// 2, keeps Bluestein's algorithm over the whole axis): on PoCL within
/// tolerance, C2C and R2C, and their H200 kernels compile for sm_90.
#[test]
fn several_prime_factors_and_strided_axes_run_alone() {
    // PoCL runs the portable target's plans (no opt-in memory); sm_90
    // compiles the H200's.
    let c2c = TransformKind::C2c;
    let several = spec(&[24272], c2c, Precision::F32);
    for spec in [several.clone(), several.clone().target(Target::H200)] {
        assert!(runs_alone(&spec, 16, 37 * 41));
    }
    check_spec_on_pocl(&several, 1, ORIGIN);
    compile_for_sm_90(&several.target(Target::H200), ORIGIN);
    let h200 = spec(&[53631], c2c, Precision::F32).target(Target::H200);
    assert!(runs_alone(&h200, 9, 59 * 101));
    compile_for_sm_90(&h200, ORIGIN);
    for kind in [c2c, TransformKind::R2c] {
        let strided = spec(&[1825, 10], kind, Precision::F64);
        for spec in [strided.clone(), strided.clone().target(Target::H200)] {
            assert!(runs_alone(&spec, 25, 73), "{kind:?}");
        }
        check_spec_on_pocl(&strided, 2, ORIGIN);
        compile_for_sm_90(&strided.target(Target::H200), ORIGIN);
    }
    let rest_of_two = spec(&[1234, 20], c2c, Precision::F64).target(Target::H200);
    assert!(!runs_alone(&rest_of_two, 2, 617));
}

/// A 3D transform's middle axis runs its prime factor alone too, its m
/// points and the inner axis seen as one run (3 x 444 x 10 as 3 x 37 x
/// 120 after the FFTs of 12; 8 x 10396 x 550 as 8 x 113 x 50600 after the
/// FFTs of 92): on PoCL within tolerance, C2C in and out of place and R2C,
/// f32 and f64; the H200's kernels compile for sm_90. A middle axis the
/// layout does not hold as one run with the inner axis keeps Bluestein's
/// over the whole axis, and its result.
#[test]
fn a_middle_axis_runs_its_prime_factor_alone() {
    let c2c = TransformKind::C2c;
    let middle = spec(&[3, 444, 10], c2c, Precision::F32);
    for spec in [
        middle.clone(),
        middle.clone().placement(Placement::InPlace),
        spec(&[3, 444, 10], TransformKind::R2c, Precision::F64),
    ] {
        assert!(
            runs_alone(&spec, 12, 37),
            "{:?} {:?}",
            spec.kind,
            spec.placement
        );
        check_spec_on_pocl(&spec, 2, ORIGIN);
    }
    let long = spec(&[8, 10396, 550], c2c, Precision::F32).target(Target::H200);
    assert!(runs_alone(&long, 92, 113));
    compile_for_sm_90(&long, ORIGIN);
    // Rows of 10 points 16 apart: the m points and the inner axis are no
    // one run.
    let padded = Layout {
        strides: vec![444 * 16, 16, 1],
        distance: 3 * 444 * 16,
    };
    let apart = middle.clone().layouts(padded.clone(), padded);
    assert!(!runs_alone(&apart, 12, 37));
    check_spec_on_pocl(&apart, 1, ORIGIN);
}

/// An R2C's odd real axis whose prime factor's whole algorithm is one
/// kernel of small FFTs, where the whole axis's FFTs of M take passes,
/// runs the FFTs of m over the reals (C2R: over the half spectrum and its
/// mirror's conjugates) and then Bluestein's algorithm over p alone, whose
/// closing chirp keeps the half spectrum (C2R: the real parts): two
/// kernels each way, on PoCL within tolerance, 1D and 2D, f32 and f64, in
/// and out of place; their H200 kernels compile for sm_90. (12529 and
/// 17313 run their prime factor by Rader's algorithm.)
#[test]
fn an_odd_real_axis_runs_its_prime_factor_alone() {
    let r2c = TransformKind::R2c;
    let alone = |passes: &[fftgen::plan::Pass], m: usize, p: usize| {
        matches!(passes, [first, second] if first.n == m
            && first.real.is_some()
            && second.chirp.is_some_and(|chirp| chirp.n == p)
            && second.real.is_some())
    };
    let one_d = spec(&[13871], r2c, Precision::F32);
    let in_place = spec(&[12529], r2c, Precision::F64).placement(Placement::InPlace);
    for (spec, m, p) in [(&one_d, 143, 97), (&in_place, 187, 67)] {
        for spec in [spec.clone(), spec.clone().target(Target::H200)] {
            let plan = fftgen::plan::plan(&spec).unwrap();
            assert!(alone(&plan.passes, m, p), "{:?}", spec.shape);
            assert!(alone(&plan.inverse_passes, m, p), "{:?}", spec.shape);
        }
        check_spec_on_pocl(spec, 2, ORIGIN);
        compile_for_sm_90(&spec.clone().target(Target::H200), ORIGIN);
    }
    // The R2C's real axis first, into the output; the C2R's complex axis
    // first, into the workspace, where the real axis keeps the whole.
    let rows = spec(&[5, 12529], r2c, Precision::F64);
    let plan = fftgen::plan::plan(&rows).unwrap();
    assert!(alone(&plan.passes[..2], 187, 67));
    check_spec_on_pocl(&rows, 1, ORIGIN);
    // 17313 = 87 x 199: Bluestein's over 199 (FFTs of 400, one FFT's
    // points across the lanes) kept the whole axis; Rader's over 199 (FFTs
    // of 198, lanes across FFTs) runs it alone.
    let wide = spec(&[17313], r2c, Precision::F64).target(Target::H200);
    let plan = fftgen::plan::plan(&wide).unwrap();
    assert!(alone(&plan.passes, 87, 199));
    assert!(plan.passes[1].chirp.is_some_and(|c| c.rader.is_some()));
}

/// An even real axis whose N / 2 needs Bluestein's algorithm over FFTs of
/// M in passes runs the FFT of N / 2 by its prime factor alone after the
/// FFTs of the rest (29854: the reals as 14927 = 253 x 59 pairs, 2
/// kernels, then the split), on PoCL within tolerance, f32 and f64, in
/// and out of place (and as the last axis of 3x2x29854, planned); the
/// H200's f32 kernels compile for sm_90.
#[test]
fn an_even_real_axis_runs_its_half_by_the_prime_factor_alone() {
    let r2c = TransformKind::R2c;
    let alone = |passes: &[fftgen::plan::Pass]| {
        passes.windows(2).any(|pair| {
            pair[0].n * 59 == 14927
                && pair[0].step_twiddle.is_some()
                && pair[1].chirp.is_some_and(|chirp| chirp.n == 59)
        })
    };
    let one_d = spec(&[29854], r2c, Precision::F32);
    let in_place = spec(&[29854], r2c, Precision::F64).placement(Placement::InPlace);
    let cube = spec(&[3, 2, 29854], r2c, Precision::F64);
    for spec in [&one_d, &in_place, &cube] {
        for spec in [spec.clone(), spec.clone().target(Target::H200)] {
            let plan = fftgen::plan::plan(&spec).unwrap();
            assert!(alone(&plan.passes), "{:?}", spec.shape);
            assert!(alone(&plan.inverse_passes), "{:?}", spec.shape);
        }
    }
    check_spec_on_pocl(&one_d, 1, ORIGIN);
    check_spec_on_pocl(&in_place, 1, ORIGIN);
    compile_for_sm_90(&one_d.target(Target::H200), ORIGIN);
}

#[test]
fn bluestein_kernels_compile_for_sm_90_without_spilling() {
    if !nvrtc() {
        return;
    }
    for n in [37, 4099, 65537] {
        compile_for_sm_90(&spec(&[n], TransformKind::C2c, Precision::F32), ORIGIN);
        compile_for_sm_90(&spec(&[n], TransformKind::R2c, Precision::F64), ORIGIN);
    }
    compile_for_sm_90(
        &spec(&[1000, 1022], TransformKind::C2c, Precision::F32),
        ORIGIN,
    );
    // The H100's plans: the steps on two passes of M (in its opt-in
    // shared memory), a longer M of one kernel, and the whole algorithm
    // in one kernel (FFTs of few threads each and of a block's, along
    // columns straight and through tiles).
    for (shape, kind, precision) in [
        (&[1388611][..], TransformKind::C2c, Precision::F32),
        (&[442118], TransformKind::R2c, Precision::F64),
        (&[16141], TransformKind::C2c, Precision::F64),
        (&[11257], TransformKind::C2c, Precision::F32),
        (&[227], TransformKind::C2c, Precision::F32),
        (&[199], TransformKind::C2c, Precision::F32),
        (&[2039], TransformKind::C2c, Precision::F32),
        (&[509], TransformKind::R2c, Precision::F64),
        (&[359], TransformKind::C2c, Precision::F64),
        (&[718], TransformKind::R2c, Precision::F64),
        (&[478, 26], TransformKind::C2c, Precision::F32),
        (&[491, 12], TransformKind::C2c, Precision::F32),
    ] {
        compile_for_sm_90(&spec(shape, kind, precision).target(Target::H100), ORIGIN);
    }
}

/// The steps on the first and last passes of FFTs of M that take two:
/// C2C and R2C/C2R, f32 and f64, batch 2, each length in two of the four
/// (kind, precision) pairs, each pair at one length or two (all four are
/// planned).
#[test]
fn steps_on_several_passes_run_within_tolerance_on_pocl() {
    let pairs = [
        (TransformKind::C2c, Precision::F32),
        (TransformKind::R2c, Precision::F64),
        (TransformKind::R2c, Precision::F32),
        (TransformKind::C2c, Precision::F64),
    ];
    for (i, n) in SEVERAL_PASSES.into_iter().enumerate() {
        for (j, &(kind, precision)) in pairs.iter().enumerate() {
            let spec = spec(&[n], kind, precision);
            let plan = fftgen::plan::plan(&spec).unwrap();
            let route = AxisRoute::of(&plan.passes, n).unwrap();
            assert_eq!(route.steps, RouteSteps::OnPasses, "{n} {kind} {precision}");
            if j / 2 == i % 2 {
                check_spec_on_pocl(&spec, 2, ORIGIN);
            }
        }
    }
}

/// The steps on several passes where the axis is not the user's dense
/// rows: beside another axis (the rows of M told apart by it, or the prime
/// axis strided by it), over strided layouts, in place, and for real
/// transforms with the prime axis over the half spectrum and the C2R's
/// real axis read from the workspace; on passes of other column I/O and
/// on three; then the steps in kernels of their own, the route the
/// planner falls back to.
#[test]
fn steps_on_several_passes_follow_layouts_on_pocl() {
    let (c2c, r2c) = (TransformKind::C2c, TransformKind::R2c);
    check_spec_on_pocl(&spec(&[3, 4099], c2c, Precision::F32), 2, ORIGIN);
    let columns = spec(&[4099, 3], c2c, Precision::F64)
        .placement(Placement::InPlace)
        .normalization(Normalization::Unitary);
    check_spec_on_pocl(&columns, 2, ORIGIN);
    let strided = spec(&[4099], c2c, Precision::F32)
        .layouts(strided_layout(2, 8200), strided_layout(3, 12300));
    check_spec_on_pocl(&strided, 2, ORIGIN);
    let in_place = spec(&[4099], r2c, Precision::F32)
        .placement(Placement::InPlace)
        .normalization(Normalization::Inverse);
    check_spec_on_pocl(&in_place, 2, ORIGIN);
    check_spec_on_pocl(&spec(&[2, 4099], r2c, Precision::F32), 2, ORIGIN);
    check_spec_on_pocl(&spec(&[4099, 4], r2c, Precision::F64), 2, ORIGIN);
    // Passes whose columns go straight between global memory and registers
    // (the H200's measured 243 x 243 split of 59049, column I/O global),
    // and an FFT of M of three passes (1605632), its middle one between.
    let direct = spec(&[29411], c2c, Precision::F32).target(Target::H200);
    check_spec_on_pocl(&direct, 2, ORIGIN);
    check_spec_on_pocl(&spec(&[800011], c2c, Precision::F64), 1, ORIGIN);

    for spec in [
        spec(&[4099], c2c, Precision::F32),
        spec(&[10007], r2c, Precision::F64),
    ] {
        let plan = plan_apart(&spec).unwrap();
        let n = spec.shape[0];
        let route = AxisRoute::of(&plan.passes, n).unwrap();
        assert_eq!(route.steps, RouteSteps::Apart, "{n}");
        if pocl().is_some() {
            let generated = fftgen::emit::generate_plan(plan, ORIGIN).unwrap();
            check_generated_on_pocl(&generated, 2);
        }
    }
}

/// Passes of one row's FFT of `padded` points for `spec`'s precision and
/// target, as the planner plans the FFT of M (in place).
fn passes_of_m(spec: &FftSpec, padded: usize) -> usize {
    let row = FftSpec::new(padded)
        .precision(spec.precision)
        .target(spec.planned_target().clone())
        .placement(Placement::InPlace);
    fftgen::plan::plan(&row).unwrap().passes.len()
}

/// Where the FFT of M takes k passes, each direction runs 2k kernels (the
/// steps apart: 2k + 3), and moves fewer bytes: on the portable target and
/// at the lengths measured slow on the H100 (7 kernels before).
#[test]
fn steps_on_several_passes_take_twice_the_passes_of_m() {
    let h100 = |n: usize, kind: TransformKind, precision: Precision| {
        spec(&[n], kind, precision).target(Target::H100)
    };
    let mut specs: Vec<FftSpec> = SEVERAL_PASSES
        .iter()
        .flat_map(|&n| {
            [
                spec(&[n], TransformKind::C2c, Precision::F32),
                spec(&[n], TransformKind::R2c, Precision::F64),
            ]
        })
        .collect();
    specs.extend([
        // 1388611 (7^2 x 17 x 1667) runs its prime factor alone in C2C.
        h100(1388623, TransformKind::C2c, Precision::F32),
        h100(1388611, TransformKind::R2c, Precision::F32),
        h100(16141, TransformKind::C2c, Precision::F64),
        h100(1458246, TransformKind::C2c, Precision::F64),
    ]);
    for spec in &specs {
        let n = spec.shape[0];
        let plan = fftgen::plan::plan(spec).unwrap();
        let apart = plan_apart(spec).unwrap();
        let route = AxisRoute::of(&plan.passes, n).unwrap();
        let label = format!("{n} {} {}", spec.kind, spec.precision);
        assert_eq!(route.steps, RouteSteps::OnPasses, "{label}");
        let k = passes_of_m(spec, route.padded);
        assert!(
            k >= 2,
            "{label}: the FFT of {} takes {k} pass(es)",
            route.padded
        );
        assert_eq!(route.passes, k, "{label}");
        for &direction in &plan.directions {
            // An odd real axis pairs the batch's transforms; the R2C
            // separates their half spectra in one kernel more.
            let separation =
                usize::from(spec.kind == TransformKind::R2c && direction == Direction::Forward);
            assert_eq!(
                plan.passes_of(direction).len(),
                2 * k + separation,
                "{label} {direction}"
            );
            assert_eq!(apart.passes_of(direction).len(), 2 * k + 3, "{label}");
        }
        let bytes = |plan: &fftgen::Plan| -> usize {
            plan.passes_of(Direction::Forward)
                .iter()
                .map(|p| p.bytes_moved(plan))
                .sum()
        };
        assert!(bytes(&plan) < bytes(&apart), "{label}");
        let line = fftgen::plan::bluestein::routes(&plan).join("\n");
        assert!(line.contains(&format!("({} kernels)", 2 * k)), "{line}");
    }
}

/// Where one block holds the FFT of M and its registers the steps', the
/// whole algorithm is one kernel and the axis crosses memory once (C2C,
/// R2C and C2R, beside another axis, in place; along strided columns,
/// through tiles of neighbouring columns where one FFT's points span a
/// warp). Where they do not (1249's
/// R2C: FFTs of 2500, 28 f32 values over 100 threads; 11257's of 23040,
/// 32 over 768), the FFT's two kernels take the steps. Both run within tolerance on PoCL.
#[test]
fn one_block_runs_the_whole_algorithm_in_one_kernel() {
    let h100 = |shape: &[usize], kind| spec(shape, kind, Precision::F32).target(Target::H100);
    let (c2c, r2c) = (TransformKind::C2c, TransformKind::R2c);
    for (spec, axis, steps, passes) in [
        (h100(&[227], c2c), 227, RouteSteps::Whole, 1),
        // (1018 = 2 x 509, 508 = 4 x 127: no Rader's.)
        (h100(&[1018], c2c), 1018, RouteSteps::Whole, 1),
        (
            spec(&[97], r2c, Precision::F64).target(Target::H100),
            97,
            RouteSteps::Whole,
            1,
        ),
        // (Its transforms paired, the R2C separates them on the last stores.)
        (h100(&[1249], r2c), 1249, RouteSteps::OneKernel, 2),
        // Columns: FFTs of few threads each straight to registers (their
        // lanes hold neighbouring columns), 491's FFTs of 1000 through
        // tiles of neighbouring columns, 478's of 960 (whose tile's
        // registers fall short) straight.
        (h100(&[41, 20], c2c), 41, RouteSteps::Whole, 2),
        (h100(&[491, 12], c2c), 491, RouteSteps::Whole, 2),
        (h100(&[478, 26], c2c), 478, RouteSteps::Whole, 2),
        (
            h100(&[6, 41], c2c).placement(Placement::InPlace),
            41,
            RouteSteps::Whole,
            2,
        ),
        (
            spec(&[97], c2c, Precision::F64).target(Target::H100),
            97,
            RouteSteps::Whole,
            1,
        ),
        (h100(&[11257], c2c), 11257, RouteSteps::OneKernel, 2),
        // f64 FFTs of M with one FFT's points across the lanes, one FFT a
        // block: 359's FFTs of 720 over 60 threads, also along a column.
        (
            spec(&[359], c2c, Precision::F64).target(Target::H100),
            359,
            RouteSteps::Whole,
            1,
        ),
        (
            spec(&[24, 359], c2c, Precision::F64).target(Target::H100),
            359,
            RouteSteps::Whole,
            2,
        ),
    ] {
        let plan = fftgen::plan::plan(&spec).unwrap();
        for direction in [Direction::Forward, Direction::Inverse] {
            let route = AxisRoute::of(plan.passes_of(direction), axis).unwrap();
            assert_eq!(route.steps, steps, "{:?} {direction:?}", spec.shape);
            assert_eq!(plan.passes_of(direction).len(), passes, "{:?}", spec.shape);
            let tiled = plan.passes_of(direction).iter().any(|p| {
                p.chirp.is_some_and(|c| c.n == axis) && p.io == fftgen::plan::GlobalIo::ColumnTile
            });
            assert_eq!(tiled, axis == 491, "{:?}: tiles", spec.shape);
        }
        match plan.passes.iter().any(|p| p.dynamic_shared) {
            false => _ = check_spec_on_pocl(&spec, 2, ORIGIN),
            // Opt-in kernels run through the manifest alone (the runtime
            // refuses them on OpenCL).
            true => check_c2c_through_the_manifest_on_pocl(&spec, 2, ORIGIN),
        }
    }
}

/// The other axes of a transform with an axis by Bluestein's algorithm
/// are planned with that axis of one point, then run once per its points:
/// their passes meet global memory as their columns finally lie. Rows of
/// the last axis one after another are staged as one run, not tiled as
/// columns a row apart (H200, 1031x64 0.62 -> 0.85x cuFFT), and the FFTs
/// a block takes are neighbours, the nearest column first (232x1233x19
/// 0.68 -> 0.88x; docs/bench/h200_bluestein_other_axes_columns.txt).
#[test]
fn the_other_axes_meet_memory_as_their_columns_lie() {
    for (shape, precision) in [
        (vec![1031usize, 64], Precision::F32),
        (vec![2003, 60], Precision::F32),
        (vec![232, 1233, 19], Precision::F32),
        (vec![35, 212, 7], Precision::F64),
        (vec![5476, 18], Precision::F64),
    ] {
        for target in [Target::H100, Target::PORTABLE] {
            let spec = spec(&shape, TransformKind::C2c, precision).target(target);
            let plan = fftgen::plan::plan(&spec).unwrap();
            let others: Vec<_> = plan.passes.iter().filter(|p| p.chirp.is_none()).collect();
            assert!(!others.is_empty(), "{shape:?}");
            for pass in others {
                let strides: Vec<usize> =
                    pass.access.columns.iter().map(|c| c.input_stride).collect();
                assert!(
                    strides.windows(2).all(|w| w[0] <= w[1]),
                    "{shape:?} {precision}: the FFTs of {} at columns {strides:?}",
                    pass.n
                );
                if pass.access.is_dense(pass.n) {
                    assert_ne!(
                        pass.io,
                        fftgen::plan::GlobalIo::ColumnTile,
                        "{shape:?} {precision}: rows of {} tiled",
                        pass.n
                    );
                }
            }
        }
    }
}

/// A longer padded length whose FFT one kernel holds, where the least
/// takes two passes, moves fewer bytes and is taken: on the H100, 11257's
/// least M (22680) takes two passes in f32 and 23040 one; 6101's (12250)
/// two in f64 and 12288 one. Where the least is one kernel it stays.
#[test]
fn a_longer_padded_length_of_fewer_passes_is_taken() {
    for (n, precision, least, taken) in [
        (11257, Precision::F32, 22680, 23040),
        (6101, Precision::F64, 12250, 12288),
        (4099, Precision::F32, 8232, 8232),
    ] {
        let spec = spec(&[n], TransformKind::C2c, precision).target(Target::H100);
        let plan = fftgen::plan::plan(&spec).unwrap();
        let route = AxisRoute::of(&plan.passes, n).unwrap();
        assert_eq!(route.padded, taken, "{n} {precision}");
        assert_eq!(route.passes, 1, "{n} {precision}");
        if taken != least {
            assert!(passes_of_m(&spec, least) > 1, "{n}: {least}");
            let line = fftgen::plan::bluestein::routes(&plan).join("\n");
            assert!(line.contains(&format!("past the least")), "{line}");
        }
    }
}

/// An odd real axis by Bluestein's algorithm takes two transforms of the
/// batch to each row of M, z = x + i y, where its steps ride on the FFTs
/// of M: one kernel's route and several passes', batches of one, two and
/// three (the last pair of an odd batch has one transform), beside a
/// complex axis (in place and over a layout: the tests named below). The
/// R2C separates the two
/// half spectra on the second FFT's stores where one block holds the FFT
/// of M, else in a kernel of its own; the whole algorithm in one kernel
/// keeps one transform to a row where its FFTs are few threads each.
#[test]
fn odd_real_axes_pair_two_transforms_of_the_batch_on_pocl() {
    let r2c = TransformKind::R2c;
    let paired = |spec: &FftSpec| {
        let plan = fftgen::plan::plan(spec).unwrap();
        let chirped: Vec<_> = plan
            .passes
            .iter()
            .chain(&plan.inverse_passes)
            .filter(|p| p.chirp.is_some())
            .collect();
        assert!(!chirped.is_empty(), "{:?}", spec.shape);
        chirped.iter().all(|p| p.transform_pairs)
    };
    let one_kernel = spec(&[1283], r2c, Precision::F32).target(Target::H100);
    let several = spec(&[8321], r2c, Precision::F64);
    let beside = spec(&[3, 1283], r2c, Precision::F32).target(Target::H100);
    let in_place = one_kernel.clone().placement(Placement::InPlace);
    let strided = one_kernel
        .clone()
        .normalization(Normalization::Inverse)
        .layouts(strided_layout(1, 1300), strided_layout(1, 700));
    for spec in [&one_kernel, &several, &beside, &in_place, &strided] {
        assert!(paired(spec), "{:?} pairs its transforms", spec.shape);
    }
    // The whole algorithm in one kernel keeps one transform to a row where
    // its FFTs of M are few threads each (37, 97); where one FFT's points
    // span the lanes (1021's FFT of 2048), the paired rows' two kernels
    // are taken.
    let whole_or_paired = |n: usize| spec(&[n], r2c, Precision::F32).target(Target::H100);
    assert!(!paired(&spec(&[37], r2c, Precision::F32)), "37: unpaired");
    assert!(!paired(&whole_or_paired(97)), "97: one kernel, unpaired");
    assert!(
        paired(&whole_or_paired(1021)),
        "1021: paired in two kernels"
    );
    for batch in [1, 2, 3] {
        check_spec_on_pocl(&one_kernel, batch, ORIGIN);
    }
    // (8321 f64 runs in tests/one_kernel_opt_in.rs, an in-place paired
    // axis in prime_lengths_run_within_tolerance_on_pocl (12297), a strided
    // one in prime_axes_and_layouts_run_within_tolerance_on_pocl (1021).)
    check_spec_on_pocl(&beside, 3, ORIGIN);
}

/// A prime axis whose p - 1 the radices cover runs Rader's algorithm in
/// one kernel (plan/rader.rs): alone (37 f32, 1201 f64: 1200 over FFTs of
/// one FFT's points across the lanes), as a 2D shape's strided axis (101x6
/// in place), as the prime factor alone of a longer axis (12529 f64 R2C:
/// the FFTs of 187, then Rader's over 67 keeping the half spectrum; in
/// place) and as an even real axis's FFT of N / 2 (362 f64 R2C: 181 = 180
/// + 1); on PoCL within tolerance, and its H200 kernels compile for
/// sm_90. A prime whose p - 1 is not smooth (83 = 2 x 41 + 1) keeps
/// Bluestein's.
#[test]
fn a_prime_axis_runs_raders_algorithm() {
    let rader_over = |plan: &fftgen::plan::Plan, p: usize| {
        plan.passes
            .iter()
            .chain(&plan.inverse_passes)
            .filter_map(|pass| pass.chirp)
            .filter(|chirp| chirp.n == p)
            .all(|chirp| chirp.rader.is_some() && chirp.padded == p - 1)
    };
    let cases = [
        (spec(&[37], TransformKind::C2c, Precision::F32), 37),
        (spec(&[1201], TransformKind::C2c, Precision::F64), 1201),
        (
            spec(&[101, 6], TransformKind::C2c, Precision::F32).placement(Placement::InPlace),
            101,
        ),
        (
            spec(&[12529], TransformKind::R2c, Precision::F64).placement(Placement::InPlace),
            67,
        ),
        (spec(&[362], TransformKind::R2c, Precision::F64), 181),
    ];
    for (spec, p) in &cases {
        let h200 = spec.clone().target(Target::H200);
        let plan = fftgen::plan::plan(&h200).unwrap();
        assert!(rader_over(&plan, *p), "{:?}", spec.shape);
        assert!(plan.passes.iter().any(|pass| pass.chirp.is_some()));
        check_spec_on_pocl(&h200, 2, ORIGIN);
    }
    compile_for_sm_90(&cases[3].0.clone().target(Target::H200), ORIGIN);
    let plan = fftgen::plan::plan(&spec(&[83], TransformKind::C2c, Precision::F32)).unwrap();
    assert!(plan.passes[0]
        .chirp
        .is_some_and(|chirp| chirp.rader.is_none()));
}
