//! Sizes with prime factors from 17 to 31: each such prime is a radix of
//! its own, its butterfly built by the codelet generator from the DFT's
//! definition (the symmetric form that pairs x[j] with x[p - j]), planned,
//! padded and launched like the radices to 13. Each shape below runs on
//! PoCL against the f64 reference, forward and inverse, C2C and R2C, in f32
//! and (some shapes) f64 or in place, on a batch whose last block and
//! last pair of real rows are partial; its CUDA kernels compile through
//! NVRTC for sm_90 without spilling. Lengths with a prime factor above 31
//! take Bluestein's algorithm (tests/bluestein.rs).

mod common;

use common::*;
use fftgen::{FftSpec, Placement, Precision, TransformKind};

const ORIGIN: &str = "tests/prime_radices.rs";

/// One prime alone (17, 31), beside a power of two (34, 17 x 64), squared
/// (19^2), two of them (23 x 29), as the axes of a 2D transform (62 x 38)
/// and past one kernel (17^2 x 1024: two passes).
const SHAPES: [&[usize]; 8] = [
    &[17],
    &[31],
    &[34],
    &[17 * 64],
    &[19 * 19],
    &[23 * 29],
    &[62, 38],
    &[17 * 17 * 1024],
];

fn spec(shape: &[usize], kind: TransformKind, precision: Precision) -> FftSpec {
    FftSpec::with_shape(shape).kind(kind).precision(precision)
}

/// Every shape in f32 both ways, C2C and R2C; f64 on 31 and 23 x 29, in
/// place on 17 x 64 and 17^2 x 1024 (the kernels differ only in their types
/// and pointers, and PoCL compiles each program in about a second).
#[test]
fn prime_radices_run_within_tolerance_on_pocl() {
    for (i, shape) in SHAPES.into_iter().enumerate() {
        for kind in [TransformKind::C2c, TransformKind::R2c] {
            check_spec_on_pocl(&spec(shape, kind, Precision::F32), 3, ORIGIN);
            match i % 4 {
                1 => check_spec_on_pocl(&spec(shape, kind, Precision::F64), 3, ORIGIN),
                3 => {
                    let in_place = spec(shape, kind, Precision::F32).placement(Placement::InPlace);
                    check_spec_on_pocl(&in_place, 3, ORIGIN)
                }
                _ => 0.0,
            };
        }
    }
}

#[test]
fn prime_radix_kernels_compile_for_sm_90_without_spilling() {
    if !nvrtc() {
        return;
    }
    for (i, shape) in SHAPES.into_iter().enumerate() {
        for kind in [TransformKind::C2c, TransformKind::R2c] {
            compile_for_sm_90(&spec(shape, kind, Precision::F32), ORIGIN);
            if i % 4 == 1 {
                compile_for_sm_90(&spec(shape, kind, Precision::F64), ORIGIN);
            }
        }
    }
}

#[test]
fn prime_radices_plan_as_radices_and_larger_primes_take_bluestein() {
    let plan = fftgen::plan::plan(&FftSpec::new(23 * 29)).unwrap();
    let mut radices = plan.passes[0].radices();
    radices.sort_unstable();
    assert_eq!(radices, vec![23, 29]);
    let by_hand = FftSpec::new(34).radices(&[17, 2]);
    assert_eq!(
        fftgen::plan::plan(&by_hand).unwrap().passes[0].radices(),
        vec![17, 2]
    );
    // Larger primes run Bluestein's or Rader's algorithm, over the whole
    // axis or the prime factor alone (31 x 37: the FFTs of 31, then Rader's
    // over 37; tests/bluestein.rs).
    for n in [37, 74, 4099, 31 * 37] {
        let plan = fftgen::plan::plan(&FftSpec::new(n)).unwrap();
        assert!(plan.passes.iter().any(|pass| pass.chirp.is_some()), "{n}");
    }
}
