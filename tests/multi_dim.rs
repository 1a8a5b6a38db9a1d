//! 2D and 3D transforms (one pass per axis, column passes along the strided
//! axes, four-step splits of long axes), contiguous and with embedded
//! layouts, on PoCL against the f64 reference computed axis by axis
//! (`fftgen_cli::accuracy::reference_nd`, itself checked against the
//! textbook N-D DFT in its unit tests).

mod common;

use common::*;
use fftgen::{Direction, FftSpec, Layout, Placement, Precision};
use fftgen_cli::accuracy::reference_nd;
use fftgen_cli::strided::offsets;
use fftgen_runtime::opencl::OpenClFft;
use num_complex::Complex;

/// The element types of the tests, made from the f64 random input.
trait Sample: fftgen_runtime::Real + Into<f64> + PartialEq {
    fn from_f64(value: f64) -> Self;
}

impl Sample for f32 {
    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

impl Sample for f64 {
    fn from_f64(value: f64) -> Self {
        value
    }
}

/// Runs `spec` forward and inverse on PoCL and checks both against the
/// reference; elements of the output buffer outside its layout must keep
/// their values.
fn check_nd<T: Sample>(spec: &FftSpec, batch: usize) {
    let Some(device) = pocl() else { return };
    let shape = &spec.shape;
    let generated =
        fftgen::generate(spec, "tests/multi_dim.rs").unwrap_or_else(|e| panic!("{shape:?}: {e}"));
    let fft = OpenClFft::new(device, &generated.opencl_source, &generated.manifest)
        .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
    let (input_layout, output_layout) = (spec.planned_input_layout(), spec.planned_output_layout());
    let input_len = input_layout.elements(shape, batch);
    let output_len = output_layout.elements(shape, batch);
    let at_in = offsets(&input_layout, shape, batch);
    let at_out = offsets(&output_layout, shape, batch);
    let points: usize = shape.iter().product();
    for direction in [Direction::Forward, Direction::Inverse] {
        let random = random_input(input_len, 7);
        let input: Vec<Complex<T>> = random
            .iter()
            .map(|c| Complex::new(T::from_f64(c.re), T::from_f64(c.im)))
            .collect();
        let sentinel = Complex::new(T::from_f64(1234.5), T::from_f64(-6.75));
        let output = match spec.placement {
            Placement::OutOfPlace => {
                let mut output = vec![sentinel; output_len];
                fft.run(direction, &input, &mut output, batch).unwrap();
                output
            }
            Placement::InPlace => {
                let mut data = input.clone();
                fft.run_in_place(direction, &mut data, batch).unwrap();
                data
            }
        };
        let logical: Vec<Complex<f64>> = at_in
            .iter()
            .map(|&i| Complex::new(input[i].re.into(), input[i].im.into()))
            .collect();
        let expected = reference_nd(shape, &logical, direction, spec.normalization);
        let got: Vec<Complex<f64>> = at_out
            .iter()
            .map(|&i| Complex::new(output[i].re.into(), output[i].im.into()))
            .collect();
        let error = relative_l2(&got, &expected);
        let limit = tolerance(points, spec.precision);
        eprintln!(
            "{shape:?} {} {:?} {direction}: error {:.3} of the tolerance",
            spec.precision,
            spec.placement,
            error / limit
        );
        assert!(
            error <= limit,
            "{shape:?} {direction}: error {error:.3e} > {limit:.3e}"
        );
        if spec.placement == Placement::OutOfPlace {
            let mut touched = vec![false; output_len];
            at_out.iter().for_each(|&i| touched[i] = true);
            let clobbered = (0..output_len)
                .filter(|&i| !touched[i] && output[i] != sentinel)
                .count();
            assert_eq!(
                clobbered, 0,
                "{shape:?}: elements outside the output layout were written"
            );
        }
    }
}

#[test]
fn two_dimensions() {
    for placement in [Placement::OutOfPlace, Placement::InPlace] {
        check_nd::<f32>(&FftSpec::with_shape(&[1000, 1000]).placement(placement), 2);
        check_nd::<f32>(&FftSpec::with_shape(&[48, 2187]).placement(placement), 3);
    }
    check_nd::<f64>(
        &FftSpec::with_shape(&[48, 2187]).precision(Precision::F64),
        2,
    );
}

#[test]
fn three_dimensions() {
    for placement in [Placement::OutOfPlace, Placement::InPlace] {
        check_nd::<f32>(&FftSpec::with_shape(&[64, 48, 40]).placement(placement), 3);
    }
    check_nd::<f64>(
        &FftSpec::with_shape(&[64, 48, 40]).precision(Precision::F64),
        2,
    );
}

/// A long axis among short ones: its four-step passes carry the other axes
/// as columns, both as the contiguous axis and as a strided one.
/// Neighbouring axes whose points one kernel holds run as one pass (their
/// 2D or 3D DFT at once): a whole small shape, the inner axes of a larger
/// one, in place, batched, normalized, and in buffers padded between
/// transforms.
#[test]
fn neighbouring_axes_run_as_one_pass() {
    let cases: [(&[usize], Precision, usize); 6] = [
        (&[7, 480], Precision::F32, 1),
        (&[15, 7], Precision::F64, 1),
        (&[4, 81, 2], Precision::F32, 1),
        (&[22, 156, 15], Precision::F64, 2),
        (&[96, 12, 7], Precision::F32, 2),
        (&[3, 5, 7], Precision::F32, 1),
    ];
    for (shape, precision, passes) in cases {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            let spec = FftSpec::with_shape(shape)
                .precision(precision)
                .placement(placement)
                .normalization(fftgen::Normalization::Unitary);
            let plan = fftgen::plan::plan(&spec).unwrap();
            assert_eq!(plan.passes.len(), passes, "{shape:?}");
            assert!(
                plan.passes.iter().any(|p| p.fused_axes.is_some()),
                "{shape:?}"
            );
            match precision {
                Precision::F32 => check_nd::<f32>(&spec, 5),
                Precision::F64 => check_nd::<f64>(&spec, 3),
            }
        }
    }
    // Transforms apart in padded buffers: the axes are still contiguous.
    let shape = [6, 10];
    let input = Layout::embedded(&shape, &[6, 10], 1, 70).unwrap();
    let output = Layout::embedded(&shape, &[6, 10], 1, 64).unwrap();
    let spec = FftSpec::with_shape(&shape).layouts(input, output);
    assert_eq!(fftgen::plan::plan(&spec).unwrap().passes.len(), 1);
    check_nd::<f32>(&spec, 4);
    // Rows padded apart are not one run of points: one pass per axis.
    let rows_apart = Layout::embedded(&shape, &[6, 12], 1, 72).unwrap();
    let spec = FftSpec::with_shape(&shape).layouts(rows_apart.clone(), rows_apart);
    assert_eq!(fftgen::plan::plan(&spec).unwrap().passes.len(), 2);
    check_nd::<f32>(&spec, 4);
}

#[test]
fn long_axes_split_inside_multi_dimensional_shapes() {
    for shape in [[6, 8192], [8192, 6]] {
        let spec = FftSpec::with_shape(&shape);
        assert_eq!(
            fftgen::plan::plan(&spec).unwrap().passes.len(),
            3,
            "{shape:?}"
        );
        check_nd::<f32>(&spec, 2);
    }
}

/// Embedded sub-arrays with padding between rows (cufftPlanMany's
/// inembed/onembed), a stride on the last axis, a strided 1D batch, and an
/// in-place transform in a padded layout.
#[test]
fn strided_layouts() {
    let shape = [100, 60];
    let input = Layout::embedded(&shape, &[100, 64], 1, 100 * 64 + 8).unwrap();
    let output = Layout::embedded(&shape, &[100, 70], 1, 100 * 70 + 3).unwrap();
    check_nd::<f32>(
        &FftSpec::with_shape(&shape).layouts(input.clone(), output),
        3,
    );
    check_nd::<f32>(
        &FftSpec::with_shape(&shape)
            .layouts(input.clone(), input)
            .placement(Placement::InPlace),
        2,
    );
    let shape = [12, 10, 8];
    let input = Layout::embedded(&shape, &[12, 11, 9], 2, 12 * 11 * 9 * 2 + 5).unwrap();
    let output = Layout::embedded(&shape, &[12, 10, 10], 1, 12 * 10 * 10).unwrap();
    check_nd::<f64>(
        &FftSpec::with_shape(&shape)
            .precision(Precision::F64)
            .layouts(input, output),
        3,
    );
    // A 1D batch interleaved with another signal, and one of a long size.
    for n in [1000, 8192] {
        let strided = Layout {
            strides: vec![2],
            distance: 2 * n + 1,
        };
        check_nd::<f32>(
            &FftSpec::with_shape(&[n]).layouts(strided.clone(), Layout::contiguous(&[n])),
            2,
        );
    }
}

/// Axes of one point are the identity (numpy, cuFFT): 1x1024, 64x1x32 and
/// 16x1 transform their other axes, in and out of place, and a real
/// 1x1000 its real axis; the buffers keep the shape given.
#[test]
fn axes_of_one_point_are_the_identity() {
    for shape in [&[1, 1024][..], &[64, 1, 32], &[16, 1]] {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            check_nd::<f32>(&FftSpec::with_shape(shape).placement(placement), 3);
        }
    }
    let real = FftSpec::with_shape(&[1, 1000]).kind(fftgen::TransformKind::R2c);
    check_spec_on_pocl(&real, 3, "tests/multi_dim.rs");
}
