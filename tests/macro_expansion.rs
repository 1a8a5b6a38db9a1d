//! `fft_kernel!` end to end: what it expands to (constants that agree with
//! the manifest, sources whose header records the call, for `kind = r2c`
//! exactly what `fftgen::generate` gives for the same spec), kernels that
//! compute the right transform on PoCL against the f64 rustfft reference
//! (relative L2 error within c * eps * log2 n; R2C and C2R too), and the
//! compile errors it reports for bad calls, pinned with trybuild in
//! tests/trybuild/ (regenerate the .stderr files with `TRYBUILD=overwrite`
//! and review them like code).

mod common;

use common::{pocl, random_input, reference, relative_l2, tolerance, widen};
use fftgen::{Direction, Element, FftSpec, Normalization, Precision, TransformKind};
use fftgen_cli::accuracy::{random_reals, real_forward_reference, real_inverse_reference};
use fftgen_macros::fft_kernel;
use fftgen_runtime::{OpenClFft, Placement, StaticKernels};
use num_complex::Complex;

fft_kernel!(n = 64, radix = [8, 8], name = Fft64);

fft_kernel!(n = 4096, radix = [8, 8, 8, 8]);

fft_kernel!(n = 4096, kind = r2c);

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
    // Both axes in one pass: their 1024 points fit one kernel.
    let manifest = Fft16x64F32::manifest();
    assert_eq!(manifest.shape, vec![16, 64]);
    assert_eq!(manifest.n, 16 * 64);
    assert_eq!(manifest.transforms[0].passes.len(), 1);
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
fn an_r2c_call_expands_to_what_the_generator_gives() {
    let spec = FftSpec::new(4096).kind(TransformKind::R2c);
    let generated = fftgen::generate(&spec, "fft_kernel!(n = 4096, kind = r2c)").unwrap();
    assert_eq!(Fft4096R2cF32::CUDA_SOURCE, generated.cuda_source);
    assert_eq!(Fft4096R2cF32::OPENCL_SOURCE, generated.opencl_source);
    // The same JSON (serde_json's float parsing may move a twiddle by an
    // ulp, so the parsed manifests are compared as text).
    assert_eq!(Fft4096R2cF32::MANIFEST_JSON, generated.manifest.to_json());
    assert_eq!(Fft4096R2cF32::KIND, TransformKind::R2c);
    assert_eq!(
        (Fft4096R2cF32::N, Fft4096R2cF32::SHAPE),
        (4096, &[4096][..])
    );
    assert_eq!(Fft4096R2cF32::COMPLEX_SHAPE, &[2049]);
    // The real axis's pass computes a complex FFT of n / 2.
    assert_eq!(Fft4096R2cF32::RADICES.iter().product::<usize>(), 2048);
    let manifest = Fft4096R2cF32::manifest();
    assert_eq!(manifest.kind, TransformKind::R2c);
    let input = manifest.input_side(Direction::Forward);
    assert_eq!((input.element, input.shape), (Element::Real, vec![4096]));
    let output = manifest.output_side(Direction::Forward);
    assert_eq!(
        (output.element, output.shape),
        (Element::Complex, vec![2049])
    );
    assert_eq!(
        manifest.input_side(Direction::Inverse).element,
        Element::Complex
    );
    let names: Vec<&str> = manifest
        .transforms
        .iter()
        .map(|t| t.passes[0].kernel.as_str())
        .collect();
    assert!(
        names[0].starts_with("fftgen_r2c_") && names[1].starts_with("fftgen_c2r_"),
        "{names:?}"
    );
    // A complex call keeps its kind and its name.
    assert_eq!(Fft4096F32::KIND, TransformKind::C2c);
    assert_eq!(Fft4096F32::COMPLEX_SHAPE, Fft4096F32::SHAPE);
}

#[test]
fn r2c_macro_kernels_match_the_reference_on_pocl() {
    fft_kernel!(shape = [8, 12], kind = r2c);
    let Some(device) = pocl() else { return };
    let manifest = Fft8x12R2cF32::manifest();
    let fft = OpenClFft::new(device, Fft8x12R2cF32::OPENCL_SOURCE, &manifest)
        .unwrap_or_else(|e| panic!("loading Fft8x12R2cF32 on PoCL: {e}"));
    let (shape, batch) = (Fft8x12R2cF32::SHAPE, 5);
    let half: usize = Fft8x12R2cF32::COMPLEX_SHAPE.iter().product();
    let limit = tolerance(Fft8x12R2cF32::N, Precision::F32);
    let reals = random_reals(Fft8x12R2cF32::N * batch, 96);
    let narrow: Vec<f32> = reals.iter().map(|&x| x as f32).collect();
    let widened: Vec<f64> = narrow.iter().map(|&x| x.into()).collect();

    // R2C: reals in, the half spectrum out.
    let mut spectrum = vec![Complex::new(0.0f32, 0.0); half * batch];
    fft.run(Direction::Forward, &narrow, &mut spectrum, batch)
        .unwrap_or_else(|e| panic!("R2C: {e}"));
    let want = real_forward_reference(shape, &widened, Normalization::None);
    let error = relative_l2(&widen(&spectrum), &want);
    assert!(
        error <= limit,
        "R2C: relative L2 error {error:.3e} exceeds {limit:.3e}"
    );

    // C2R of the rounded reference spectrum: n times the reals.
    let input: Vec<Complex<f32>> = want
        .iter()
        .map(|c| Complex::new(c.re as f32, c.im as f32))
        .collect();
    let mut output = vec![0.0f32; Fft8x12R2cF32::N * batch];
    fft.run(Direction::Inverse, &input, &mut output, batch)
        .unwrap_or_else(|e| panic!("C2R: {e}"));
    let want = real_inverse_reference(shape, &widen(&input), Normalization::None);
    let as_complex =
        |v: &[f64]| -> Vec<Complex<f64>> { v.iter().map(|&x| Complex::new(x, 0.0)).collect() };
    let got: Vec<f64> = output.iter().map(|&x| x.into()).collect();
    let error = relative_l2(&as_complex(&got), &as_complex(&want));
    assert!(
        error <= limit,
        "C2R: relative L2 error {error:.3e} exceeds {limit:.3e}"
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
