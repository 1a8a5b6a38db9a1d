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
