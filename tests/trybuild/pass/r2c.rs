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
    long_axis::check();
}

/// A real axis past one kernel: the FFT of N / 2 in C2C passes and the
/// split in a pass of its own (`r0`: no radix stages); the C2R merges before
/// its FFT of N / 2 and, out of place, works in the workspace.
mod long_axis {
    use fftgen_macros::fft_kernel;
    use fftgen_runtime::{Direction, StaticKernels};

    fft_kernel!(shape = [16, 16384], kind = r2c);

    pub fn check() {
        let manifest = Fft16x16384R2cF32::manifest();
        let forward = manifest.transform(Direction::Forward).unwrap();
        let inverse = manifest.transform(Direction::Inverse).unwrap();
        assert!(forward.passes.iter().any(|p| p.kernel.starts_with("fftgen_r2c_n8192_r0_")));
        assert!(inverse.passes.iter().any(|p| p.kernel.starts_with("fftgen_c2r_n8192_r0_")));
        assert!(manifest.scratch_elements > 0);
    }
}
