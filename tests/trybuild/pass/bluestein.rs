//! A prime length runs Bluestein's algorithm: the chirp passes around the
//! FFTs of the padded length (37 pads to 75 = 3 x 5 x 5).

use fftgen_macros::fft_kernel;
use fftgen_runtime::StaticKernels;

fft_kernel!(n = 37, name = Fft37);

fn main() {
    let manifest = Fft37::manifest();
    assert_eq!(Fft37::N, 37);
    let mut radices = Fft37::RADICES.to_vec();
    radices.sort_unstable();
    assert_eq!(radices, [3, 3, 5, 5, 5, 5]);
    assert_eq!(manifest.transforms[0].passes.len(), 5);
    assert!(manifest.scratch_elements >= 75);
}
