//! Every key at once, with values written as identifiers and as strings.

use fftgen_macros::fft_kernel;
use fftgen_runtime::{
    Direction, Normalization, Placement, Precision, StaticKernels, TransformKind,
};

fft_kernel!(
    n = 1000,
    kind = c2c,
    radix = [10, 10, 10],
    precision = f64,
    direction = "forward",
    normalization = unitary,
    placement = out_of_place,
    name = Fft1000,
);

fn main() {
    let manifest = Fft1000::manifest();
    assert_eq!(Fft1000::N, 1000);
    assert_eq!(Fft1000::KIND, TransformKind::C2c);
    assert_eq!(Fft1000::RADICES, &[10, 10, 10]);
    assert_eq!(manifest.precision, Precision::F64);
    assert_eq!(manifest.normalization, Normalization::Unitary);
    assert_eq!(manifest.placement, Placement::OutOfPlace);
    assert_eq!(manifest.transforms[0].direction, Direction::Forward);
    let _: &'static str = Fft1000::CUDA_SOURCE;
}
