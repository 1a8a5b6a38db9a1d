//! Transforms longer than one block (two- and three-pass four-step plans),
//! on PoCL against the f64 reference.

mod common;

use common::*;
use fftgen::plan::{ColumnIo, GlobalIo, ShapeChoices};
use fftgen::{FftSpec, Normalization, Placement, Precision};

/// Runs `spec` on PoCL (tests/common).
fn check_spec(spec: &FftSpec, batch: usize) {
    check_spec_on_pocl(spec, batch, "tests/large_sizes.rs");
}

/// The sizes of issue 13 in both precisions, out of place and in place.
fn sizes(precision: Precision) {
    for n in [8192usize, 12288, 16384, 20000, 1 << 16, 1 << 18] {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            let batch = if n <= 1 << 16 { 3 } else { 2 };
            check_spec(
                &FftSpec::new(n).precision(precision).placement(placement),
                batch,
            );
        }
    }
}

#[test]
fn f32_sizes() {
    sizes(Precision::F32)
}

#[test]
fn f64_sizes() {
    sizes(Precision::F64)
}

/// Three passes (a tile of at most ~1500 points) and normalisation applied once.
#[test]
fn three_passes_and_normalization() {
    let spec = FftSpec::new(1 << 22).normalization(Normalization::Unitary);
    let plan = fftgen::plan::plan(&spec).unwrap();
    assert_eq!(plan.passes.len(), 3);
    check_spec(&spec, 1);
    check_spec(
        &FftSpec::new(3usize.pow(10)).normalization(Normalization::Inverse),
        1,
    );
}

/// The global-memory FFT of seed 000 IV.A: column passes whose lanes hold
/// adjacent columns go straight between global memory and registers (a
/// one-step pass takes no shared memory), first, last or in the middle of a
/// split, in both precisions, in and out of place, in 1D and along a 2D
/// axis; and the splits the H200's wisdom measured fastest.
#[test]
fn global_memory_passes() {
    let global = |shape: &[usize], split: &[usize]| {
        FftSpec::with_shape(shape).choices(ShapeChoices {
            split: Some(split.to_vec()),
            column_io: Some(ColumnIo::Global),
            ..ShapeChoices::default()
        })
    };
    let spec = global(&[1 << 16], &[16, 16, 256]);
    let plan = fftgen::plan::plan(&spec).unwrap();
    assert_eq!(plan.axis_factors, vec![vec![16, 16, 256]]);
    // The middle pass: one radix-16 step, no shared memory, both sides
    // straight from and to global memory.
    let middle = &plan.passes[1];
    assert_eq!((middle.threads_per_fft, middle.shared_bytes), (1, 0));
    assert_eq!(
        (middle.io, middle.output_io),
        (GlobalIo::Direct, GlobalIo::Direct)
    );
    for placement in [Placement::OutOfPlace, Placement::InPlace] {
        check_spec(&spec.clone().placement(placement), 3);
        check_spec(
            &global(&[1 << 15], &[512, 64])
                .precision(Precision::F64)
                .placement(placement),
            2,
        );
    }
    check_spec(&global(&[1 << 16], &[1024, 64]), 3);
    check_spec(&global(&[3usize.pow(10)], &[243, 243]), 1);
    check_spec(&global(&[1000], &[10, 100]).precision(Precision::F64), 5);
    check_spec(
        &global(&[64, 4096], &[16, 256]).normalization(Normalization::Unitary),
        2,
    );
    // The H200 plans these with the splits its wisdom measured fastest
    // (fftgen/wisdom/h200.json; tests/opencl_sweep.rs runs those that fit
    // OpenCL's static shared memory, the GPU the rest).
    for n in [1usize << 15, 1 << 16, 1 << 17, 59049, 78125] {
        let spec = FftSpec::new(n).target(fftgen::Target::H200);
        let plan = fftgen::plan::plan(&spec).unwrap();
        assert_eq!(plan.column_io, ColumnIo::Global, "n = {n}");
    }
}

/// Column passes shaped by a GPU's column-pass wisdom with whole complex
/// values in shared memory (`--exchange-width interleaved`: the tile's
/// copies too), and first passes whose four-step twiddles are formed
/// base-times-stride or per point: in 1D and 2D, in and out of place, both
/// precisions. The target is the H200's model kept to OpenCL's limits, so
/// its wisdom applies and PoCL runs what a GPU would.
#[test]
fn interleaved_column_tiles_and_step_twiddle_forms() {
    use fftgen::plan::StepTwiddleForm;
    let dir = std::env::temp_dir().join(format!("fftgen-interleaved-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("wisdom.json");
    std::fs::write(
        &file,
        r#"{"gpu": "H200", "fallback": false, "about": "tests/large_sizes.rs", "entries": [
  {"precision": "f32", "n": 2048, "pass": "column", "choices": {"ffts-per-block": 2, "exchange-width": "interleaved"}, "evidence": []},
  {"precision": "f32", "n": 1024, "pass": "column", "choices": {"radix": [16, 16, 4], "threads-per-fft": 64, "ffts-per-block": 4, "exchange-width": "interleaved"}, "evidence": []},
  {"precision": "f64", "n": 1024, "pass": "column", "choices": {"ffts-per-block": 2, "exchange-width": "interleaved"}, "evidence": []},
  {"precision": "f32", "n": 128, "pass": "column", "choices": {"exchange-width": "interleaved"}, "evidence": []}
]}"#,
    )
    .unwrap();
    let target = fftgen::Target::H200.clamped_to(&fftgen::Target::PORTABLE);
    let spec = |shape: &[usize], split: Option<&[usize]>, form: StepTwiddleForm| {
        FftSpec::with_shape(shape)
            .target(target.clone())
            .wisdom(&file)
            .choices(ShapeChoices {
                split: split.map(|s| s.to_vec()),
                step_twiddles: split.is_some().then_some(form),
                ..ShapeChoices::default()
            })
    };
    let base = StepTwiddleForm::BaseTimesStride;
    let cases = [
        (spec(&[1 << 21], Some(&[2048, 1024]), base), 1),
        (
            spec(&[1 << 21], Some(&[1024, 2048]), StepTwiddleForm::PerPoint),
            1,
        ),
        (spec(&[1 << 21], Some(&[128, 128, 128]), base), 1),
        (spec(&[1024, 1000], None, base), 1),
        (
            spec(&[1 << 20], Some(&[1024, 1024]), base).precision(Precision::F64),
            1,
        ),
    ];
    for (spec, batch) in cases {
        let plan = fftgen::plan::plan(&spec).unwrap();
        let interleaved = plan
            .passes
            .iter()
            .filter(|p| p.exchange_width == fftgen::plan::ExchangeWidth::Interleaved)
            .count();
        assert!(
            interleaved > 0,
            "{:?}: no interleaved column pass",
            spec.shape
        );
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            check_spec(&spec.clone().placement(placement), batch);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
