//! The numerical sweep: every supported size (2..=4096 in f32 and in f64; in
//! CI a fixed sample of them, `common::in_sample_of`, all with FFTGEN_FULL_SWEEP=1),
//! forward and inverse, a batch of several transforms that does not
//! fill the last block, random data, run as OpenCL on the CPU through PoCL and
//! compared with the f64 reference by relative L2 error against
//! `c * eps * log2(n)` (c in tests/common).

mod common;

use common::*;
use fftgen::plan::factor::supported_sizes;
use fftgen::plan::pass_planner::max_size;
use fftgen::plan::Wisdom;
use fftgen::plan::{ExchangeBuffers, ExchangeWidth, PaddingSearch, TwiddleTables};
use fftgen::{Direction, FftSpec, Normalization, Placement, Precision, ShapeChoices};
use fftgen_runtime::opencl::OpenClFft;
use num_complex::Complex;

/// Runs `spec` on PoCL (tests/common).
fn check_spec(spec: &FftSpec, batch: usize) {
    check_spec_on_pocl(spec, batch, "tests/opencl_sweep.rs");
}

/// Every supported size in `range` (an index range into the size list, so the
/// sweep splits into tests that run in parallel).
fn sweep(precision: Precision, part: usize, parts: usize) {
    let sizes: Vec<usize> = supported_sizes(max_size(precision))
        .into_iter()
        .filter(|&n| in_sample_of(n, precision))
        .collect();
    let chunk: Vec<usize> = sizes.iter().copied().skip(part).step_by(parts).collect();
    for n in chunk {
        let spec = FftSpec::new(n).precision(precision);
        // Two full blocks and a last one holding a single transform, so the
        // guards on transforms past the batch are exercised too.
        let per_block = fftgen::plan::plan(&spec).map_or(1, |p| p.passes[0].ffts_per_block);
        check_spec(&spec, 2 * per_block + 1);
    }
}

macro_rules! sweep_tests {
    ($precision:expr, $parts:literal: $($name:ident = $part:literal),+) => {
        $(#[test] fn $name() { sweep($precision, $part, $parts) })+
    };
}

sweep_tests!(Precision::F32, 6: f32_sizes_part0 = 0, f32_sizes_part1 = 1, f32_sizes_part2 = 2,
    f32_sizes_part3 = 3, f32_sizes_part4 = 4, f32_sizes_part5 = 5);
sweep_tests!(Precision::F64, 4: f64_sizes_part0 = 0, f64_sizes_part1 = 1, f64_sizes_part2 = 2,
    f64_sizes_part3 = 3);

/// In-place execution and each normalisation, on sizes that cover both lane
/// layouts, guarded stages and multi-FFT blocks.
#[test]
fn placements_and_normalizations() {
    for n in [2, 16, 60, 143, 1000, 4096] {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            for normalization in [
                Normalization::None,
                Normalization::Inverse,
                Normalization::Unitary,
            ] {
                let spec = FftSpec::new(n)
                    .placement(placement)
                    .normalization(normalization);
                check_spec(&spec, 5);
            }
        }
    }
    // The largest f64 size exchanges one part at a time, in place too.
    let spec = FftSpec::new(4096)
        .precision(Precision::F64)
        .placement(Placement::InPlace);
    check_spec(&spec, 3);
}

/// A user-given radix sequence is used as given and gives the same results.
#[test]
fn explicit_radix_sequences() {
    for (n, radices) in [
        (4096, vec![8, 8, 8, 8]),
        (4096, vec![4, 4, 4, 4, 4, 4]),
        (1000, vec![8, 5, 5, 5]),
        (1000, vec![2, 4, 5, 25]),
    ] {
        let spec = FftSpec::new(n).radices(&radices);
        check_spec(&spec, 3);
    }
}

/// Two sets of exchange arrays written in turn (one barrier per exchange)
/// give the same results: odd and mixed radices, guarded stages (1000 on
/// 100 threads), several transforms per block, in place, f64.
#[test]
fn alternating_exchange_buffers() {
    let alternating = |n: usize| {
        FftSpec::new(n).choices(ShapeChoices {
            exchange_buffers: Some(ExchangeBuffers::Alternating),
            ..ShapeChoices::default()
        })
    };
    for n in [512, 1000, 1331, 2187, 2197, 2401] {
        check_spec(&alternating(n), 3);
    }
    check_spec(&alternating(2048).radices(&[16, 8, 16]), 3);
    check_spec(
        &alternating(1000).choices(ShapeChoices {
            threads_per_fft: Some(40),
            ..ShapeChoices::default()
        }),
        3,
    );
    check_spec(
        &alternating(2401)
            .placement(Placement::InPlace)
            .normalization(Normalization::Inverse),
        3,
    );
    check_spec(&alternating(1024).precision(Precision::F64), 3);
}

/// The one-part exchange chosen where both parts would fit gives the same
/// results: odd radices, guarded stages, several transforms per block, in
/// place.
#[test]
fn one_part_exchange_by_choice() {
    let one_part = |n: usize| {
        FftSpec::new(n).choices(ShapeChoices {
            exchange_width: Some(ExchangeWidth::OnePartAtATime),
            ..ShapeChoices::default()
        })
    };
    for n in [512, 1000, 2187, 2401, 3125, 4000] {
        check_spec(&one_part(n), 3);
    }
    // Past the planner's one-kernel sizes, radices given by hand that fit
    // static shared memory one part at a time.
    check_spec(&FftSpec::new(8192).radices(&[8, 8, 8, 16]), 2);
    check_spec(
        &one_part(1000).choices(ShapeChoices {
            threads_per_fft: Some(40),
            ..ShapeChoices::default()
        }),
        3,
    );
    check_spec(
        &one_part(2187)
            .placement(Placement::InPlace)
            .normalization(Normalization::Unitary),
        3,
    );
}

/// Twiddles read as fine x coarse (the large stages' tables of two short
/// tables) give the same results: power-of-two and mixed spans, odd radices,
/// guarded stages, the inverse, in place, f64.
#[test]
fn fine_coarse_twiddles_by_choice() {
    let split = |n: usize| {
        FftSpec::new(n).choices(ShapeChoices {
            twiddle_tables: Some(TwiddleTables::SplitLarge),
            ..ShapeChoices::default()
        })
    };
    for n in [2187, 3125, 4000, 4096] {
        check_spec(&split(n), 3);
    }
    check_spec(
        &split(4000)
            .placement(Placement::InPlace)
            .normalization(Normalization::Inverse),
        3,
    );
    check_spec(&split(4096).precision(Precision::F64), 3);
    check_spec(&split(3125).precision(Precision::F64), 3);
}

/// Whole complex values through one shared array give the same results:
/// odd, mixed and power-of-two radices, guarded stages, several transforms
/// per block, alternating sets, in place, f64.
#[test]
fn interleaved_exchange() {
    let interleaved = |n: usize| {
        FftSpec::new(n).choices(ShapeChoices {
            exchange_width: Some(ExchangeWidth::Interleaved),
            ..ShapeChoices::default()
        })
    };
    for n in [512, 1000, 1331, 2187, 2401, 4000, 4096] {
        check_spec(&interleaved(n), 3);
    }
    check_spec(
        &interleaved(1000).choices(ShapeChoices {
            threads_per_fft: Some(40),
            ..ShapeChoices::default()
        }),
        3,
    );
    check_spec(
        &interleaved(2401).choices(ShapeChoices {
            exchange_buffers: Some(ExchangeBuffers::Alternating),
            ..ShapeChoices::default()
        }),
        3,
    );
    check_spec(
        &interleaved(2197)
            .placement(Placement::InPlace)
            .normalization(Normalization::Inverse)
            .choices(ShapeChoices {
                padding_search: Some(PaddingSearch::AllRadices),
                ..ShapeChoices::default()
            }),
        3,
    );
    check_spec(&interleaved(2048).precision(Precision::F64), 3);
}

/// Exchanges of odd radices padded by the search give the same results,
/// with several transforms per block and guarded stages too.
#[test]
fn odd_radices_padded_by_the_search() {
    let searched = |n: usize| {
        FftSpec::new(n).choices(ShapeChoices {
            padding_search: Some(PaddingSearch::AllRadices),
            ..ShapeChoices::default()
        })
    };
    for n in [1331, 2187, 2197, 2401, 3125, 675, 6 * 343] {
        check_spec(&searched(n), 3);
    }
    check_spec(
        &searched(2187).choices(ShapeChoices {
            threads_per_fft: Some(100),
            ..ShapeChoices::default()
        }),
        3,
    );
    check_spec(&searched(2197).placement(Placement::InPlace), 3);
}

/// The shapes measured for particular GPU models (their own radices, launch
/// shapes, exchange layouts and first writes) give the same results. The
/// CUDA-only shapes run here too: PoCL takes their larger work-groups.
#[test]
fn shapes_of_tuned_gpus() {
    for target in Wisdom::tuned_targets() {
        for (precision, shape) in Wisdom::built_in().tuned_shapes(&target) {
            let spec = FftSpec::with_shape(&shape)
                .precision(precision)
                .target(target.clone());
            // Shapes in CUDA's opt-in shared memory (8192 on the H200, column
            // passes of 4096 points) do not run through OpenCL, which
            // refuses them; NVRTC compiles them (tests/nvrtc_compile.rs) and
            // the GPU runs them.
            let plan = fftgen::plan::plan(&spec).unwrap();
            if plan.passes.iter().any(|pass| pass.dynamic_shared) {
                continue;
            }
            // Plans of several passes: one transform is enough points.
            let batch = if plan.passes.len() > 1 { 1 } else { 3 };
            check_spec(&spec, batch);
        }
    }
}

/// f64 FFTs of few threads each (lanes across FFTs) as the H100 plans them:
/// blocks of about 64 threads, their FFTs a stride apart that spreads each
/// access's threads of several FFTs over the banks (208: 4 FFTs of 16
/// threads at 212 words, not the odd 209), on batches that leave the last
/// block part full.
#[test]
fn f64_ffts_of_few_threads_in_small_blocks() {
    for (n, kind) in [
        (208, fftgen::TransformKind::C2c),
        (390, fftgen::TransformKind::C2c),
        (143, fftgen::TransformKind::C2c),
        (256, fftgen::TransformKind::R2c),
    ] {
        let spec = FftSpec::new(n)
            .kind(kind)
            .precision(Precision::F64)
            .target(fftgen::Target::H100);
        let plan = fftgen::plan::plan(&spec).unwrap();
        let pass = &plan.passes[0];
        assert_eq!(pass.lanes, fftgen::plan::LaneLayout::FftMinor, "{n}");
        assert!(
            pass.threads_per_block <= 64,
            "{n}: {}",
            pass.threads_per_block
        );
        if n == 208 {
            assert_eq!((pass.ffts_per_block, pass.fft_stride), (4, 212));
        }
        check_spec(&spec, 2 * pass.ffts_per_block + 1);
    }
}

/// The reference itself agrees with the textbook DFT.
#[test]
fn reference_matches_naive_dft() {
    for n in [2, 3, 12, 17, 100, 243] {
        for direction in [Direction::Forward, Direction::Inverse] {
            let x = random_input(n, 7);
            let error = relative_l2(&reference(&x, n, direction), &naive_dft(&x, direction));
            assert!(error < 1e-13, "n = {n}: {error}");
        }
    }
}

/// An input that is one batch too short is refused and leaves the output untouched.
#[test]
fn wrong_lengths_are_refused() {
    let Some(device) = pocl() else { return };
    let generated = fftgen::generate(&FftSpec::new(64), "test").unwrap();
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest).unwrap();
    let input = vec![Complex::new(1.0f32, 0.5); 64 * 2];
    let mut output = vec![Complex::new(7.0f32, 7.0); 64 * 3];
    assert!(fft.run(Direction::Forward, &input, &mut output, 3).is_err());
    assert!(output.iter().all(|c| *c == Complex::new(7.0, 7.0)));
}
