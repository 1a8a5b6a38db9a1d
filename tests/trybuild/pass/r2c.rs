//! A real transform: its name, kind, sides and kernels.

use fftgen_macros::fft_kernel;
use fftgen_runtime::{Direction, Element, StaticKernels, TransformKind};

fft_kernel!(n = 1000, kind = "r2c", direction = forward);

fn main() {
    let manifest = Fft1000R2cF32Forward::manifest();
    assert_eq!(Fft1000R2cF32Forward::KIND, TransformKind::R2c);
    assert_eq!(Fft1000R2cF32Forward::COMPLEX_SHAPE, &[501]);
    assert_eq!(manifest.kind, TransformKind::R2c);
    assert_eq!(
        manifest.input_side(Direction::Forward).element,
        Element::Real
    );
    assert_eq!(manifest.transforms.len(), 1);
    assert!(manifest.transforms[0].passes[0]
        .kernel
        .starts_with("fftgen_r2c_"));
}
