//! Test bodies that the CUDA and the OpenCL launch tests share: both
//! backends' plans offer the same host-slice calls ([`HostPlan`] runs
//! either), so what those calls promise is written once and checked on each.

use super::plans::{in_place_forward, in_place_inverse, map, signal, widen, N};
use fftgen_runtime::{
    Complex, CudaFft, Direction, Error, OpenClFft, Placement, Precision, Real, Value,
};

/// A plan of either backend; both offer the same host-slice calls (upload,
/// run every pass, download).
#[derive(Clone, Copy)]
pub enum HostPlan<'a> {
    Cuda(&'a CudaFft),
    OpenCl(&'a OpenClFft),
}

impl HostPlan<'_> {
    fn run<I: Value, O: Value<Real = I::Real>>(
        self,
        direction: Direction,
        input: &[I],
        output: &mut [O],
        batch: usize,
    ) -> Result<(), Error> {
        match self {
            HostPlan::Cuda(fft) => fft.run(direction, input, output, batch),
            HostPlan::OpenCl(fft) => fft.run(direction, input, output, batch),
        }
    }

    fn run_in_place<T: Real>(
        self,
        direction: Direction,
        data: &mut [Complex<T>],
        batch: usize,
    ) -> Result<(), Error> {
        match self {
            HostPlan::Cuda(fft) => fft.run_in_place(direction, data, batch),
            HostPlan::OpenCl(fft) => fft.run_in_place(direction, data, batch),
        }
    }
}

/// The plan of `plans::out_of_place` in `T`'s precision, on batches that
/// fill the last block raggedly: the forward pass gets its arguments by role
/// (the batch arrives), the inverse runs its three passes in order, and the
/// input is never written.
pub fn runs_out_of_place<T: Real + From<f32> + Into<f64>>(fft: HostPlan) {
    let p = T::PRECISION;
    for batch in [1, 2, 3, 5] {
        let input = signal::<T>(batch * N);
        let kept = input.clone();
        let mut output = vec![Complex::new(T::from(f32::NAN), T::from(f32::NAN)); batch * N];
        fft.run(Direction::Forward, &input, &mut output, batch)
            .unwrap_or_else(|e| panic!("{p} batch {batch}: {e}"));
        let b = batch as f64;
        assert_eq!(
            widen(&output),
            map(&input, |re, im| (2.0 * re, 2.0 * im + b)),
            "{p} batch {batch}"
        );
        fft.run(Direction::Inverse, &input, &mut output, batch)
            .unwrap_or_else(|e| panic!("{p} batch {batch}: {e}"));
        assert_eq!(
            widen(&output),
            map(&input, |re, im| (re / 8.0, im / 8.0)),
            "{p} batch {batch}: three passes in order"
        );
        assert_eq!(widen(&input), widen(&kept), "the input is never written");
    }
}

/// The plan of `plans::in_place` on host slices: in-out and out-of-place
/// passes mixed in either order, the result back in the caller's data.
pub fn runs_in_place(fft: HostPlan) {
    for batch in [1, 5, 6] {
        let original = signal::<f32>(batch * N);
        let mut data = original.clone();
        fft.run_in_place(Direction::Forward, &mut data, batch)
            .unwrap_or_else(|e| panic!("batch {batch}: {e}"));
        assert_eq!(
            widen(&data),
            in_place_forward(&original, batch),
            "batch {batch}"
        );
        let mut data = original.clone();
        fft.run_in_place(Direction::Inverse, &mut data, batch)
            .unwrap_or_else(|e| panic!("batch {batch}: {e}"));
        assert_eq!(widen(&data), in_place_inverse(&original), "batch {batch}");
    }
}

/// Every mistake of a host-slice call to the f32 plan of
/// `plans::out_of_place` fails with its own error before anything is written.
pub fn refuses_bad_host_calls(fft: HostPlan) {
    let sentinel = Complex::new(-7.0f32, 7.0);
    let input = signal::<f32>(2 * N);
    let mut output = vec![sentinel; 2 * N];

    let err = fft
        .run(Direction::Forward, &input[..N], &mut output, 2)
        .unwrap_err();
    assert_eq!(wrong_length(&err), Some(("input", 2 * N, N)), "{err}");
    assert!(err.to_string().contains("nothing was written"), "{err}");

    let mut long = vec![sentinel; 3 * N];
    let err = fft
        .run(Direction::Forward, &input, &mut long, 2)
        .unwrap_err();
    assert_eq!(wrong_length(&err), Some(("output", 2 * N, 3 * N)), "{err}");
    assert!(long.iter().all(|&x| x == sentinel));

    // Reals where the side is complex: the element type is named.
    let reals = vec![0.5f32; 4 * N];
    let err = fft
        .run(Direction::Forward, &reals, &mut output, 2)
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::WrongElement {
                buffer: "input",
                expected: "Complex<f32>",
                got: "f32",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("pass a slice of Complex<f32>"),
        "{err}"
    );

    assert_eq!(
        fft.run(Direction::Forward, &input[..0], &mut output[..0], 0),
        Err(Error::ZeroBatch)
    );

    let wide_sentinel = Complex::new(-7.0f64, 7.0);
    let mut wide_output = vec![wide_sentinel; 2 * N];
    let mismatch = Error::PrecisionMismatch {
        manifest: Precision::F32,
        buffer: Precision::F64,
    };
    assert_eq!(
        fft.run(Direction::Forward, &widen(&input), &mut wide_output, 2),
        Err(mismatch)
    );
    assert!(wide_output.iter().all(|&x| x == wide_sentinel));

    let mut data = input.clone();
    let err = fft
        .run_in_place(Direction::Forward, &mut data, 2)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::PlacementMismatch {
                manifest: Placement::OutOfPlace,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(data, input);
    assert!(output.iter().all(|&x| x == sentinel));
}

/// The buffer, expected and given lengths of a [`Error::WrongLength`].
pub fn wrong_length(err: &Error) -> Option<(&'static str, usize, usize)> {
    match *err {
        Error::WrongLength {
            buffer,
            expected,
            got,
            ..
        } => Some((buffer, expected, got)),
        _ => None,
    }
}

/// The buffer, expected and given bytes of a [`Error::WrongDeviceBytes`].
pub fn wrong_bytes(err: &Error) -> Option<(&'static str, usize, usize)> {
    match *err {
        Error::WrongDeviceBytes {
            buffer,
            expected,
            got,
            ..
        } => Some((buffer, expected, got)),
        _ => None,
    }
}

/// A plan of the forward f32 transform only refuses the inverse, saying
/// which directions it has, and writes nothing.
pub fn refuses_a_missing_direction(forward_only: HostPlan) {
    let sentinel = Complex::new(-7.0f32, 7.0);
    let input = signal::<f32>(2 * N);
    let mut output = vec![sentinel; 2 * N];
    let missing = Error::MissingDirection {
        direction: Direction::Inverse,
        available: "forward".to_string(),
    };
    assert_eq!(
        forward_only.run(Direction::Inverse, &input, &mut output, 2),
        Err(missing)
    );
    assert!(output.iter().all(|&x| x == sentinel));
}
