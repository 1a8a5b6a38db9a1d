//! Real transforms (`r2c`: the forward R2C from reals to the half spectrum,
//! the inverse C2R back, unnormalised) run as OpenCL on the CPU through
//! PoCL and compared with the f64 reference by relative L2 error against
//! `c * eps * log2(n)` (tests/common, through `fftgen_cli::check`: the R2C on
//! random reals, the C2R on their f64 spectrum rounded to the precision; the
//! gaps of every output buffer and the input of every out-of-place
//! transform must keep their values). The references are themselves checked
//! against the textbook DFT here.
//!
//! Covered: every length from 2 to 4096 in f32 and f64 (a sample in CI)
//! runs within tolerance, both directions, those with a prime factor above
//! 31 through Bluestein's algorithm; 12288 and 2^16, 1000x1000 and 64x48x40, real
//! axes past one kernel (2D/3D) and past two passes (1D, to the sizes whose
//! FFT takes three), complex axes past one pass, in place and out of place, every normalisation, batches of several transforms,
//! padded and strided layouts, C2R(R2C(x)) = n x through the runtime's own
//! calls, and the runtime's errors for buffers of the wrong type or length.
//! PoCL missing fails the tests under CI=true (tests/common).

mod common;

use common::*;
use fftgen::plan::factor::{is_smooth, prime_factors};
use fftgen::{
    Direction, FftSpec, Layout, Normalization, Placement, Precision, Target, TransformKind,
};
use fftgen_cli::accuracy::{random_reals, real_forward_reference, real_inverse_reference};
use fftgen_runtime::opencl::OpenClFft;
use fftgen_runtime::{Element, Error};
use num_complex::Complex;

const ORIGIN: &str = "tests/real_transforms.rs";

/// An r2c spec of `shape` in `precision`.
fn real_spec(shape: &[usize], precision: Precision) -> FftSpec {
    FftSpec::with_shape(shape)
        .kind(TransformKind::R2c)
        .precision(precision)
}

/// Checks the r2c transform of length `n` in `precision` on `batch`
/// transforms.
fn check_length(n: usize, precision: Precision, batch: usize) -> bool {
    let spec = real_spec(&[n], precision);
    match fftgen::generate(&spec, ORIGIN) {
        Ok(generated) => {
            check_generated_on_pocl(&generated, batch);
            true
        }
        Err(e) => panic!("n = {n} {precision}: {e}"),
    }
}

/// Lengths in 2..=4096 ([`sampled`]: every one with FFTGEN_FULL_SWEEP=1)
/// whose index is `part` modulo `parts` (so the sweep splits into tests),
/// on a batch of 1 (even lengths) or 3 (odd ones, whose rows pair up in
/// one FFT: a pair and a row alone): every one must run within tolerance
/// (those with a prime factor above 31 by Bluestein's algorithm).
///
/// Compiling each length's kernels dominates (PoCL builds each program and
/// each kernel at its first launch, 0.5 to 1.5 s a length; the runs take
/// microseconds), and PoCL compiles one kernel at a time however many tests
/// run: with a cold PoCL cache on 2 cores all 978 lengths (both precisions)
/// take about 18 minutes, the sample about a sixth of that.
fn sweep(precision: Precision, part: usize, parts: usize) {
    if pocl().is_none() {
        return;
    }
    let mut checked = 0;
    let mut failed = Vec::new();
    let lengths = (2..=4096).filter(|&n| in_sample_of(n, precision));
    for n in lengths.skip(part).step_by(parts) {
        let batch = 1 + 2 * (n % 2);
        // One failure (its message printed) does not hide the lengths after it.
        match std::panic::catch_unwind(|| check_length(n, precision, batch)) {
            Ok(ran) => checked += usize::from(ran),
            Err(_) => failed.push(n),
        }
    }
    assert!(failed.is_empty(), "{precision}: lengths {failed:?} failed");
    assert!(checked >= 5, "only {checked} lengths ran");
}

macro_rules! sweep_tests {
    ($precision:expr, $parts:literal: $($name:ident = $part:literal),+) => {
        $(#[test] fn $name() { sweep($precision, $part, $parts) })+
    };
}

sweep_tests!(Precision::F32, 4: f32_lengths_part0 = 0, f32_lengths_part1 = 1,
    f32_lengths_part2 = 2, f32_lengths_part3 = 3);
sweep_tests!(Precision::F64, 4: f64_lengths_part0 = 0, f64_lengths_part1 = 1,
    f64_lengths_part2 = 2, f64_lengths_part3 = 3);

/// Lengths with a prime factor above 31 run Bluestein's or Rader's
/// algorithm (an even one over the reals as N / 2 pairs, the C2R's merge
/// first), over the whole axis or its prime factor alone (4094: 2047 = 23
/// x 89, Rader's over 89), and every 31-smooth one the Stockham passes
/// (the sweep's runs prove them right).
#[test]
fn lengths_with_large_prime_factors_run_bluestein() {
    for n in [4093, 4094, 37, 74] {
        let plan = fftgen::plan::plan(&real_spec(&[n], Precision::F32)).unwrap();
        assert!(!is_smooth(n) && prime_factors(n).iter().any(|&p| p > 31));
        let padded_n = if n % 2 == 0 { n / 2 } else { n };
        let large: usize = prime_factors(n).into_iter().filter(|&p| p > 31).product();
        let chirped = |passes: &[fftgen::plan::Pass]| {
            passes
                .iter()
                .filter_map(|pass| pass.chirp.map(|c| c.n))
                .any(|over| over == padded_n || over == large)
        };
        assert!(chirped(&plan.passes), "n = {n}");
        assert!(chirped(&plan.inverse_passes), "n = {n}");
    }
    for n in [4095, 4096, 2, 3, 26, 169, 17, 34, 62, 23 * 29] {
        fftgen::generate(&real_spec(&[n], Precision::F64), ORIGIN)
            .unwrap_or_else(|e| panic!("n = {n}: {e}"));
    }
}

/// A real axis longer than one kernel computes: split into passes.
#[test]
fn length_12288() {
    for precision in [Precision::F32, Precision::F64] {
        check_spec_on_pocl(&real_spec(&[12288], precision), 2, ORIGIN);
    }
}

#[test]
fn length_65536() {
    for precision in [Precision::F32, Precision::F64] {
        check_spec_on_pocl(&real_spec(&[1 << 16], precision), 2, ORIGIN);
    }
}

/// A 1D real axis past one kernel whose FFT of N / 2 runs in C2C passes
/// keeps the split on the last pass's stores (a tile of mirrored columns
/// u and C - u) and the merge on the first pass's loads: 2^16 (256
/// columns, 128 on the C2R's first pass) and 31250 (125 columns: odd, so
/// each row's tile has an idle slot), f32 and f64, in place and out of
/// place, batch 3.
#[test]
fn split_and_merge_fused_into_the_passes_of_long_axes() {
    for n in [1 << 16, 31250] {
        for precision in [Precision::F32, Precision::F64] {
            for placement in [Placement::OutOfPlace, Placement::InPlace] {
                let spec = real_spec(&[n], precision).placement(placement);
                let plan = fftgen::plan::plan(&spec).unwrap();
                for passes in [&plan.passes, &plan.inverse_passes] {
                    let ends: Vec<_> = passes.iter().filter_map(|p| p.real).collect();
                    assert!(
                        matches!(ends[..], [step] if matches!(step.end, fftgen::plan::RealEnd::Mirrored(_))),
                        "{n} {precision} {placement}: {ends:?}"
                    );
                }
                assert_eq!(plan.passes.len(), 2, "{n}: two passes, none apart");
                check_spec_on_pocl(&spec, 3, ORIGIN);
            }
        }
    }
}

/// Real axes past one kernel in 2D and 3D, past two passes in 1D (the
/// portable target's short columns make that happen at a few million
/// points), and complex axes past one pass: the half-length FFT's C2C
/// passes with the split or merge apart, the full-length passes with the
/// reals and half spectrum at their ends, and the workspace's two regions
/// (an odd real axis's C2R out of place after complex axes of two passes).
#[test]
fn axes_past_one_kernel() {
    let portable = |shape: &[usize]| real_spec(shape, Precision::F32).target(Target::PORTABLE);
    for placement in [Placement::OutOfPlace, Placement::InPlace] {
        for shape in [&[16, 16384][..], &[4, 15625], &[8192, 8], &[3, 2, 10000]] {
            let spec = real_spec(shape, Precision::F32).placement(placement);
            check_spec_on_pocl(&spec, 2, ORIGIN);
        }
        // Three passes of the FFT of N / 2 (even) and of N (odd, the
        // workspace's two regions in turn).
        check_spec_on_pocl(&portable(&[1 << 22]).placement(placement), 1, ORIGIN);
        check_spec_on_pocl(&portable(&[4_782_969]).placement(placement), 1, ORIGIN);
    }
    check_spec_on_pocl(&portable(&[2048, 4375]), 1, ORIGIN);
    // f64 rows of 8192 past the portable target's shared memory.
    let f64_rows = real_spec(&[8192], Precision::F64).target(Target::PORTABLE);
    check_spec_on_pocl(&f64_rows, 3, ORIGIN);
    check_spec_on_pocl(&real_spec(&[6, 20000], Precision::F64), 1, ORIGIN);
    // Reals two apart do not pair up: the full length, over two passes.
    let strided = real_spec(&[12288], Precision::F32).layouts(
        Layout {
            strides: vec![2],
            distance: 2 * 12288,
        },
        Layout::contiguous(&[6145]),
    );
    check_spec_on_pocl(&strided, 2, ORIGIN);
    // A split by hand of the FFT of N / 2.
    let split = real_spec(&[1 << 16], Precision::F32).choices(fftgen::plan::ShapeChoices {
        split: Some(vec![64, 512]),
        ..Default::default()
    });
    check_spec_on_pocl(&split, 1, ORIGIN);
}

/// A full-length real axis in two passes keeps one half of the Hermitian
/// symmetry in the workspace: the R2C's first pass stores each FFT's
/// outputs to F0 / 2, its last runs F0 / 2 + 1 columns and writes the
/// points past N / 2 mirrored; the C2R's first runs F1 / 2 + 1 columns and
/// its last reads the points past F1 / 2 mirrored. Every parity of F0 and
/// F1 (odd axes, and even ones whose reals do not pair up), in place and
/// out of place, 2D, f64; three passes keep the whole FFT of N.
#[test]
fn two_full_length_passes_keep_half_the_symmetry() {
    let split = |shape: &[usize], split: &[usize], layout: Option<Layout>| {
        let mut spec = real_spec(shape, Precision::F32).choices(fftgen::plan::ShapeChoices {
            split: Some(split.to_vec()),
            ..Default::default()
        });
        if let Some(layout) = layout {
            let mut half = shape.to_vec();
            *half.last_mut().unwrap() = shape[shape.len() - 1] / 2 + 1;
            spec = spec.layouts(layout, Layout::contiguous(&half));
        }
        spec
    };
    let two_apart = |n: usize| Layout {
        strides: vec![2],
        distance: 2 * n + 3,
    };
    let specs = [
        split(&[45], &[9, 5], None),
        split(&[45], &[5, 9], None),
        split(&[3, 35], &[7, 5], None),
        split(&[24], &[4, 6], Some(two_apart(24))),
        split(&[24], &[3, 8], Some(two_apart(24))),
        split(&[24], &[8, 3], Some(two_apart(24))),
        split(&[30], &[6, 5], Some(two_apart(30))),
        real_spec(&[10935], Precision::F64),
    ];
    for spec in specs {
        let plan = fftgen::plan::plan(&spec).unwrap();
        for direction in [Direction::Forward, Direction::Inverse] {
            let real: Vec<_> = plan
                .passes_of(direction)
                .iter()
                .filter_map(|p| p.real)
                .collect();
            assert_eq!(real.len(), 2, "{:?}", spec.shape);
            assert!(real.iter().all(|r| r.hermitian_half), "{:?}", spec.shape);
        }
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            if placement == Placement::InPlace && spec.input_layout.is_some() {
                continue;
            }
            check_spec_on_pocl(&spec.clone().placement(placement), 3, ORIGIN);
        }
    }
    let three = split(&[27], &[3, 3, 3], None);
    let plan = fftgen::plan::plan(&three).unwrap();
    assert!(plan
        .passes
        .iter()
        .all(|p| p.real.is_none_or(|r| !r.hermitian_half)));
    check_spec_on_pocl(&three, 3, ORIGIN);
}

#[test]
fn two_dimensional_1000x1000() {
    check_spec_on_pocl(&real_spec(&[1000, 1000], Precision::F32), 1, ORIGIN);
    let in_place = real_spec(&[1000, 1000], Precision::F64).placement(Placement::InPlace);
    check_spec_on_pocl(&in_place, 1, ORIGIN);
}

#[test]
fn three_dimensional_64x48x40() {
    let spec = real_spec(&[64, 48, 40], Precision::F32);
    check_spec_on_pocl(&spec, 2, ORIGIN);
    check_spec_on_pocl(&spec.placement(Placement::InPlace), 2, ORIGIN);
    check_spec_on_pocl(&real_spec(&[64, 48, 40], Precision::F64), 1, ORIGIN);
}

/// In place (cuFFT's padded rows) and out of place, even and odd lengths,
/// 1D to 3D, batches that fill no block evenly; each normalisation on two
/// of them.
#[test]
fn placements_normalizations_and_batches() {
    let shapes: [&[usize]; 8] = [
        &[2],
        &[3],
        &[16],
        &[45],
        &[1000],
        &[4096],
        &[12, 10],
        &[6, 4, 9],
    ];
    for shape in shapes {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            for precision in [Precision::F32, Precision::F64] {
                let spec = real_spec(shape, precision).placement(placement);
                check_spec_on_pocl(&spec, 5, ORIGIN);
            }
        }
    }
    for (shape, placement) in [
        (&[45][..], Placement::InPlace),
        (&[12, 10], Placement::OutOfPlace),
    ] {
        for normalization in [Normalization::Inverse, Normalization::Unitary] {
            let spec = real_spec(shape, Precision::F32)
                .placement(placement)
                .normalization(normalization);
            check_spec_on_pocl(&spec, 3, ORIGIN);
        }
    }
}

/// A real transform's whole shape in one pass each way (fftgen's
/// plan/real_shape.rs): 2D and 3D, odd and even last axes (one of 2),
/// FFTs spread over more threads (32x32, 96x18), a batch of one (an FFT
/// with one transform) and of four, in place, padded layouts, a
/// normalisation.
#[test]
fn whole_real_shapes_in_one_pass() {
    let one_pass = |spec: &FftSpec| {
        let plan = fftgen::plan::plan(spec).unwrap();
        assert_eq!(
            (plan.passes.len(), plan.inverse_passes.len()),
            (1, 1),
            "{:?}",
            spec.shape
        );
        let fused = plan.passes[0]
            .fused_axes
            .as_ref()
            .expect("every axis at once");
        assert!(fused.real_rows.is_some(), "{:?}", spec.shape);
    };
    let shapes: [(&[usize], Precision); 8] = [
        (&[8, 13], Precision::F32),
        (&[7, 2], Precision::F32),
        (&[32, 32], Precision::F32),
        (&[96, 18], Precision::F32),
        (&[3, 4, 6], Precision::F32),
        (&[12, 10], Precision::F64),
        (&[5, 6, 7], Precision::F64),
        (&[9, 2, 4], Precision::F64),
    ];
    for (shape, precision) in shapes {
        let spec = real_spec(shape, precision);
        one_pass(&spec);
        for batch in [1, 4] {
            check_spec_on_pocl(&spec, batch, ORIGIN);
        }
    }
    for precision in [Precision::F32, Precision::F64] {
        let in_place = real_spec(&[6, 10], precision).placement(Placement::InPlace);
        one_pass(&in_place);
        check_spec_on_pocl(&in_place, 3, ORIGIN);
    }
    // Padded rows on both sides, transforms apart.
    let layout = |strides: &[usize], distance| Layout {
        strides: strides.to_vec(),
        distance,
    };
    let padded = real_spec(&[4, 5, 9], Precision::F32)
        .layouts(layout(&[55, 11, 1], 250), layout(&[30, 6, 1], 130));
    one_pass(&padded);
    check_spec_on_pocl(&padded, 3, ORIGIN);
    let unitary = real_spec(&[9, 8], Precision::F32).normalization(Normalization::Unitary);
    one_pass(&unitary);
    check_spec_on_pocl(&unitary, 3, ORIGIN);
}

/// The C2R takes any half spectrum as numpy's `irfftn` does, Hermitian or
/// not: the values whose mirror is in the half spectrum too (last
/// coordinate 0, or N / 2) count by the real part of the inverse along the
/// other axes (against the reference, which runs those axes and then the
/// real axis's inverse as numpy does). Whole shapes in one pass (f64), and
/// f32 paired rows of odd lengths that read both half spectra as one run
/// and merge them in the first stage (a batch of 3: a pair and a row alone).
#[test]
fn c2r_of_any_half_spectrum_is_numpys() {
    let Some(device) = pocl() else { return };
    let whole_shapes = [vec![6, 8], vec![5, 9], vec![3, 4, 6]].map(|s| (s, Precision::F64));
    let paired_rows = [11, 45, 117].map(|n| (vec![n], Precision::F32));
    for (shape, precision) in whole_shapes.into_iter().chain(paired_rows) {
        let spec = real_spec(&shape, precision);
        let generated = fftgen::generate(&spec, ORIGIN).unwrap();
        let manifest = &generated.manifest;
        let fft = OpenClFft::new(device, &generated.opencl_source, manifest).unwrap();
        let batch = 3;
        let elements = manifest.input_elements(Direction::Inverse, batch);
        let parts = random_reals(2 * elements, 11);
        let half: Vec<Complex<f64>> = parts.chunks(2).map(|p| Complex::new(p[0], p[1])).collect();
        let points: usize = shape.iter().product();
        let reals: Vec<f64> = match precision {
            Precision::F64 => {
                let mut reals = vec![0.0f64; batch * points];
                fft.run(Direction::Inverse, &half, &mut reals, batch)
                    .unwrap();
                reals
            }
            Precision::F32 => {
                let half: Vec<Complex<f32>> = half
                    .iter()
                    .map(|z| Complex::new(z.re as f32, z.im as f32))
                    .collect();
                let mut reals = vec![0.0f32; batch * points];
                fft.run(Direction::Inverse, &half, &mut reals, batch)
                    .unwrap();
                reals.into_iter().map(f64::from).collect()
            }
        };
        let per_transform = elements / batch;
        let want: Vec<Complex<f64>> = half
            .chunks(per_transform)
            .flat_map(|h| real_inverse_reference(&shape, h, Normalization::None))
            .map(|r| Complex::new(r, 0.0))
            .collect();
        let got: Vec<Complex<f64>> = reals.iter().map(|&r| Complex::new(r, 0.0)).collect();
        let error = relative_l2(&got, &want);
        let bound = tolerance(points, precision);
        assert!(
            error < bound,
            "{shape:?} {precision}: {error:.3e} > {bound:.3e}"
        );
    }
}

/// Layouts with gaps between transforms, padded rows and strided elements
/// on either side (the gaps of the outputs must keep their values).
#[test]
fn padded_and_strided_layouts() {
    let layout = |strides: &[usize], distance| Layout {
        strides: strides.to_vec(),
        distance,
    };
    let cases = [
        // Transforms 20 reals apart; half spectra 12 apart.
        (vec![16], layout(&[1], 20), layout(&[1], 12)),
        // Every other real; every other complex value.
        (vec![16], layout(&[2], 40), layout(&[2], 20)),
        (vec![15], layout(&[1], 17), layout(&[2], 20)),
        // Padded rows on both sides.
        (vec![6, 10], layout(&[12, 1], 80), layout(&[8, 1], 50)),
        (vec![5, 9], layout(&[11, 1], 60), layout(&[6, 1], 31)),
    ];
    for (shape, input, output) in cases {
        for precision in [Precision::F32, Precision::F64] {
            let spec = real_spec(&shape, precision).layouts(input.clone(), output.clone());
            check_spec_on_pocl(&spec, 3, ORIGIN);
        }
    }
}

/// The runtime's own calls: the R2C of reals, then the C2R of the spectrum
/// it gave, is n times the reals (out of place on slices of f32 and complex
/// values, in place on one buffer of reals).
#[test]
fn c2r_of_r2c_is_n_times_the_input() {
    let Some(device) = pocl() else { return };
    for (shape, placement) in [
        (vec![12, 20], Placement::OutOfPlace),
        (vec![45], Placement::InPlace),
        // The split and the merge fused into the passes of the FFT of N / 2.
        (vec![1 << 16], Placement::InPlace),
        (vec![31250], Placement::OutOfPlace),
    ] {
        let spec = real_spec(&shape, Precision::F32).placement(placement);
        let generated = fftgen::generate(&spec, ORIGIN).unwrap();
        let manifest = &generated.manifest;
        let fft = OpenClFft::new(device, &generated.opencl_source, manifest).unwrap();
        let batch = 3;
        let points: usize = shape.iter().product();
        let x: Vec<f32> = random_reals(batch * points, 5)
            .into_iter()
            .map(|v| v as f32)
            .collect();
        let back: Vec<f32> = match placement {
            Placement::OutOfPlace => {
                let mut spectrum =
                    vec![Complex::default(); manifest.output_elements(Direction::Forward, batch)];
                fft.run(Direction::Forward, &x, &mut spectrum, batch)
                    .unwrap();
                let mut back = vec![0.0f32; batch * points];
                fft.run(Direction::Inverse, &spectrum, &mut back, batch)
                    .unwrap();
                back
            }
            Placement::InPlace => {
                // Rows of 2 (n / 2 + 1) reals: the reals, then the spectrum over them.
                let n = shape[shape.len() - 1];
                let row = 2 * (n / 2 + 1);
                let mut data = vec![0.0f32; batch * row];
                for (t, chunk) in x.chunks(n).enumerate() {
                    data[t * row..t * row + n].copy_from_slice(chunk);
                }
                fft.run_in_place(Direction::Forward, &mut data, batch)
                    .unwrap();
                fft.run_in_place(Direction::Inverse, &mut data, batch)
                    .unwrap();
                data.chunks(row).flat_map(|r| r[..n].to_vec()).collect()
            }
        };
        let widen = |v: &[f32], scale: f64| -> Vec<Complex<f64>> {
            v.iter()
                .map(|&r| Complex::new(r as f64 * scale, 0.0))
                .collect()
        };
        let error = relative_l2(&widen(&back, 1.0), &widen(&x, points as f64));
        // Two transforms, each within the tolerance.
        let bound = 2.0 * tolerance(points, Precision::F32);
        assert!(
            error < bound,
            "{shape:?} {placement}: {error:.3e} > {bound:.3e}"
        );
    }
}

/// Buffers of the wrong element type or length are refused with errors
/// that say what to pass, before anything is written.
#[test]
fn wrong_buffers_are_refused_with_what_to_pass() {
    let Some(device) = pocl() else { return };
    let n = 16;
    let batch = 2;
    let generated = fftgen::generate(&real_spec(&[n], Precision::F32), ORIGIN).unwrap();
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest).unwrap();
    let sentinel = Complex::new(-7.25f32, 7.25);
    let reals = vec![0.5f32; batch * n];
    let mut spectrum = vec![sentinel; batch * (n / 2 + 1)];

    // Complex values where the forward's input is real.
    let complex_input = vec![Complex::new(0.5f32, 0.0); batch * n];
    let err = fft
        .run(Direction::Forward, &complex_input, &mut spectrum, batch)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongElement {
                buffer: "input",
                side: Element::Real,
                ..
            }
        ),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("the input of an r2c transform")
            && message.contains("is real: pass a slice of f32, not of Complex<f32>"),
        "{message}"
    );
    // Reals where the inverse's input (the half spectrum) is complex.
    let mut out = vec![0.0f32; batch * n];
    let err = fft
        .run(
            Direction::Inverse,
            &reals[..batch * (n / 2 + 1)],
            &mut out,
            batch,
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("is complex: pass a slice of Complex<f32>, not of f32"),
        "{err}"
    );
    assert!(err.to_string().contains("c2r"), "{err}");
    // The wrong precision.
    let wide = vec![0.5f64; batch * n];
    let mut wide_spectrum = vec![Complex::new(0.0f64, 0.0); batch * (n / 2 + 1)];
    assert_eq!(
        fft.run(Direction::Forward, &wide, &mut wide_spectrum, batch),
        Err(Error::PrecisionMismatch {
            manifest: Precision::F32,
            buffer: Precision::F64
        })
    );
    // Lengths count the side's values: the reals, and the half spectrum.
    let err = fft
        .run(Direction::Forward, &reals[1..], &mut spectrum, batch)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongLength {
                buffer: "input",
                expected: 32,
                got: 31,
                ..
            }
        ),
        "{err}"
    );
    let mut full = vec![sentinel; batch * n];
    let err = fft
        .run(Direction::Forward, &reals, &mut full, batch)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongLength {
                buffer: "output",
                expected: 18,
                got: 32,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("[9] complex values"), "{err}");
    assert!(spectrum.iter().chain(&full).all(|&c| c == sentinel));

    // In place, the buffer holds the padded rows: unpadded reals are short.
    let spec = real_spec(&[n], Precision::F32).placement(Placement::InPlace);
    let generated = fftgen::generate(&spec, ORIGIN).unwrap();
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest).unwrap();
    let mut unpadded = vec![0.5f32; batch * n];
    let err = fft
        .run_in_place(Direction::Forward, &mut unpadded, batch)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongLength {
                buffer: "data",
                expected: 36,
                got: 32,
                ..
            }
        ),
        "{err}"
    );
    assert!(unpadded.iter().all(|&x| x == 0.5));
}

/// The f64 references of both directions against the textbook DFT
/// (tests/common's `naive_dft`, along each axis in turn for 2D).
#[test]
fn the_real_references_are_the_naive_dft() {
    for shape in [
        vec![1],
        vec![2],
        vec![3],
        vec![8],
        vec![15],
        vec![16],
        vec![17],
        vec![4, 6],
        vec![5, 7],
    ] {
        let points: usize = shape.iter().product();
        let batch = 2;
        let x = random_reals(batch * points, 9);
        let widened: Vec<Complex<f64>> = x.iter().map(|&r| Complex::new(r, 0.0)).collect();
        let full: Vec<Complex<f64>> = widened
            .chunks(points)
            .flat_map(|t| naive_nd(&shape, t, Direction::Forward))
            .collect();
        let n = shape[shape.len() - 1];
        let half: Vec<Complex<f64>> = full
            .chunks(n)
            .flat_map(|row| row[..n / 2 + 1].to_vec())
            .collect();
        let got = real_forward_reference(&shape, &x, Normalization::None);
        let error = relative_l2(&got, &half);
        assert!(error < 1e-13, "{shape:?} forward: {error:.3e}");
        // The inverse DFT of the whole (Hermitian) spectrum is n x.
        let want: Vec<Complex<f64>> = full
            .chunks(points)
            .flat_map(|t| naive_nd(&shape, t, Direction::Inverse))
            .collect();
        let got: Vec<Complex<f64>> = real_inverse_reference(&shape, &half, Normalization::None)
            .into_iter()
            .map(|r| Complex::new(r, 0.0))
            .collect();
        let error = relative_l2(&got, &want);
        assert!(error < 1e-13, "{shape:?} inverse: {error:.3e}");
        let nx: Vec<Complex<f64>> = widened.iter().map(|c| c * points as f64).collect();
        assert!(relative_l2(&got, &nx) < 1e-13, "{shape:?}: not n x");
    }
}

/// The textbook N-D DFT of one row-major transform of `shape`: the naive
/// DFT along each axis in turn.
fn naive_nd(shape: &[usize], x: &[Complex<f64>], direction: Direction) -> Vec<Complex<f64>> {
    let mut data = x.to_vec();
    for axis in 0..shape.len() {
        let len = shape[axis];
        let stride: usize = shape[axis + 1..].iter().product();
        for outer in 0..data.len() / (len * stride) {
            for inner in 0..stride {
                let start = outer * len * stride + inner;
                let line: Vec<_> = (0..len).map(|k| data[start + k * stride]).collect();
                for (k, value) in naive_dft(&line, direction).into_iter().enumerate() {
                    data[start + k * stride] = value;
                }
            }
        }
    }
    data
}
