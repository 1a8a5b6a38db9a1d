//! Transforms longer than one block (two- and three-pass four-step plans),
//! on PoCL against the f64 reference.

mod common;

use common::*;
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
