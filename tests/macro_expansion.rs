//! `fft_kernel!` end to end: what it expands to (constants that agree with
//! the manifest, sources whose header records the call), kernels that compute
//! the right transform on PoCL against the f64 rustfft reference (relative L2
//! error within c * eps * log2 n), and the compile errors it reports for bad
//! calls, pinned with trybuild in tests/trybuild/ (regenerate the .stderr
//! files with `TRYBUILD=overwrite` and review them like code).

mod common;

use common::{pocl, random_input, reference, relative_l2, tolerance, widen};
use fftgen::{Direction, Precision};
use fftgen_macros::fft_kernel;
use fftgen_runtime::{OpenClFft, Placement, StaticKernels};
use num_complex::Complex;

fft_kernel!(n = 64, radix = [8, 8], name = Fft64);

fft_kernel!(n = 4096, radix = [8, 8, 8, 8]);

#[test]
fn constants_agree_with_the_manifest() {
    let manifest = Fft64::manifest();
    assert_eq!(Fft64::N, 64);
    assert_eq!(Fft64::RADICES, &[8, 8]);
    assert_eq!(manifest.n, 64);
    assert_eq!(manifest.precision, Precision::F32);
    assert_eq!(manifest.placement, Placement::OutOfPlace);
    let directions: Vec<Direction> = manifest.transforms.iter().map(|t| t.direction).collect();
    assert_eq!(directions, [Direction::Forward, Direction::Inverse]);
    for pass in manifest.transforms.iter().flat_map(|t| &t.passes) {
        assert!(
            Fft64::CUDA_SOURCE.contains(&pass.kernel),
            "CUDA source lacks kernel {}",
            pass.kernel
        );
        assert!(
            Fft64::OPENCL_SOURCE.contains(&pass.kernel),
            "OpenCL source lacks kernel {}",
            pass.kernel
        );
    }
}

#[test]
fn sources_record_the_call_in_their_header() {
    let call = "fft_kernel!(n = 64, radix = [8, 8], name = Fft64)";
    for source in [Fft64::CUDA_SOURCE, Fft64::OPENCL_SOURCE] {
        assert!(
            source.starts_with("//"),
            "the source does not open with a header comment"
        );
        let header: String = source
            .lines()
            .take_while(|line| line.starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            header.contains("generated, do not edit"),
            "header:\n{header}"
        );
        assert!(header.contains(call), "header lacks `{call}`:\n{header}");
    }
}

#[test]
fn a_shape_names_the_struct_and_is_recorded() {
    fft_kernel!(shape = [16, 64]);
    assert_eq!(Fft16x64F32::SHAPE, &[16, 64]);
    assert!(Fft16x64F32::CUDA_SOURCE.contains("fft_kernel!(shape = [16, 64])"));
    // One pass per axis: the rows of 64, then the columns of 16.
    let manifest = Fft16x64F32::manifest();
    assert_eq!(manifest.shape, vec![16, 64]);
    assert_eq!(manifest.n, 16 * 64);
    assert_eq!(manifest.transforms[0].passes.len(), 2);
}

#[test]
fn defaults_give_a_derived_name_and_the_call_as_written() {
    assert_eq!(Fft4096F32::N, 4096);
    assert_eq!(Fft4096F32::RADICES, &[8, 8, 8, 8]);
    assert_eq!(Fft4096F32::manifest().n, 4096);
    assert!(Fft4096F32::OPENCL_SOURCE.contains("fft_kernel!(n = 4096, radix = [8, 8, 8, 8])"));
}

#[test]
fn one_direction_in_f64_in_place() {
    fft_kernel!(
        n = 48,
        precision = "f64",
        direction = inverse,
        placement = in_place,
        normalization = inverse
    );
    let manifest = Fft48F64InverseInPlaceNormInverse::manifest();
    assert_eq!(manifest.precision, Precision::F64);
    assert_eq!(manifest.placement, Placement::InPlace);
    assert_eq!(manifest.transforms.len(), 1);
    assert_eq!(manifest.transforms[0].direction, Direction::Inverse);
    assert_eq!(
        Fft48F64InverseInPlaceNormInverse::RADICES
            .iter()
            .product::<usize>(),
        48
    );
}

#[test]
fn macro_kernels_match_rustfft_on_pocl() {
    let Some(device) = pocl() else { return };
    let fft = OpenClFft::new(device, Fft64::OPENCL_SOURCE, &Fft64::manifest())
        .unwrap_or_else(|e| panic!("loading Fft64 on PoCL: {e}"));
    let (n, batch) = (Fft64::N, 7);
    let input = random_input(n * batch, 64);
    let narrow: Vec<Complex<f32>> = input
        .iter()
        .map(|c| Complex::new(c.re as f32, c.im as f32))
        .collect();
    for direction in [Direction::Forward, Direction::Inverse] {
        let mut output = vec![Complex::new(0.0f32, 0.0); n * batch];
        fft.run(direction, &narrow, &mut output, batch)
            .unwrap_or_else(|e| panic!("{direction}: {e}"));
        let want: Vec<Complex<f64>> = input
            .chunks(n)
            .flat_map(|x| reference(x, n, direction))
            .collect();
        let error = relative_l2(&widen(&output), &want);
        let limit = tolerance(n, Precision::F32);
        assert!(
            error <= limit,
            "{direction}: relative L2 error {error:.3e} exceeds {limit:.3e}"
        );
    }
}

#[test]
fn macro_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/trybuild/*.rs");
    cases.pass("tests/trybuild/pass/*.rs");
}
