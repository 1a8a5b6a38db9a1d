//! Lengths with a prime factor above 31 run Bluestein's algorithm
//! (fftgen/src/plan/bluestein.rs): a chirped load into rows of M >= 2N - 1
//! in the workspace, the FFT of M, the product with the chirp's spectrum,
//! the FFT of M read backwards and a chirped store. Each shape below runs
//! on PoCL against the f64 reference, forward and inverse, on an odd batch:
//! primes alone (37, 97, 4099, 10007, 65537, whose FFT of M takes passes of
//! its own), beside other factors (101 x 64, 3 x 4099), as one axis of a 2D
//! or 3D transform (1000 x 1022, 37 x 4 x 5), C2C and R2C/C2R, f32 and
//! f64, in and out of place, over strided layouts; their CUDA kernels
//! compile through NVRTC for sm_90 without spilling.

mod common;

use common::*;
use fftgen::{FftSpec, Layout, Normalization, Placement, Precision, TransformKind};

const ORIGIN: &str = "tests/bluestein.rs";

fn spec(shape: &[usize], kind: TransformKind, precision: Precision) -> FftSpec {
    FftSpec::with_shape(shape).kind(kind).precision(precision)
}

/// 1D lengths: C2C and R2C, f32, with f64 or in place on every other one.
const LENGTHS: [usize; 7] = [37, 97, 101 * 64, 3 * 4099, 4099, 10007, 65537];

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
    let strided = spec(&[37], c2c, Precision::F32).layouts(
        Layout {
            strides: vec![2],
            distance: 80,
        },
        Layout {
            strides: vec![3],
            distance: 120,
        },
    );
    check_spec_on_pocl(&strided, 3, ORIGIN);
    let rows = spec(&[1021], TransformKind::R2c, Precision::F32)
        .normalization(Normalization::Inverse)
        .layouts(
            Layout {
                strides: vec![2],
                distance: 2100,
            },
            Layout {
                strides: vec![1],
                distance: 520,
            },
        );
    check_spec_on_pocl(&rows, 2, ORIGIN);
}

/// Real transforms of two or three axes with a prime factor above 31: the
/// real axis by Bluestein's steps (whatever its length), the complex axes
/// over the half spectrum; the C2R out of place through the workspace.
#[test]
fn real_transforms_of_prime_axes_run_within_tolerance_on_pocl() {
    let r2c = TransformKind::R2c;
    check_spec_on_pocl(&spec(&[64, 37], r2c, Precision::F32), 2, ORIGIN);
    check_spec_on_pocl(&spec(&[37, 64], r2c, Precision::F64), 3, ORIGIN);
    let in_place = spec(&[6, 37, 10], r2c, Precision::F32).placement(Placement::InPlace);
    check_spec_on_pocl(&in_place, 2, ORIGIN);
    check_spec_on_pocl(&spec(&[1000, 1022], r2c, Precision::F32), 1, ORIGIN);
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
}
