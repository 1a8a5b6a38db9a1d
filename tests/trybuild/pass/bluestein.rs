//! A prime length runs Bluestein's algorithm: two FFTs of the padded length
//! (83 pads to 180 = 2^2 x 3^2 x 5, whose threads hold both FFTs) in one
//! kernel, the chirps in its loads and stores, the product with the chirp's
//! spectrum between them; or, where p - 1 is smooth, Rader's algorithm: two
//! FFTs of p - 1 (37: 36) in one kernel.

use fftgen_macros::fft_kernel;
use fftgen_runtime::StaticKernels;

fft_kernel!(n = 83, name = Fft83);
fft_kernel!(n = 37, name = Fft37);

fn main() {
    let manifest = Fft83::manifest();
    assert_eq!(Fft83::N, 83);
    assert_eq!(Fft83::RADICES.iter().product::<usize>(), 180);
    assert_eq!(manifest.transforms[0].passes.len(), 1);
    assert_eq!(manifest.scratch_elements, 0);
    let manifest = Fft37::manifest();
    assert_eq!(Fft37::RADICES.iter().product::<usize>(), 36);
    assert_eq!(manifest.transforms[0].passes.len(), 1);
    assert_eq!(manifest.scratch_elements, 0);
}
