//! A prime length runs Bluestein's algorithm: two FFTs of the padded length
//! (37 pads to 75 = 3 x 5 x 5) in one kernel, the chirps in its loads and
//! stores, the product with the chirp's spectrum between them.

use fftgen_macros::fft_kernel;
use fftgen_runtime::StaticKernels;

fft_kernel!(n = 37, name = Fft37);

fn main() {
    let manifest = Fft37::manifest();
    assert_eq!(Fft37::N, 37);
    assert_eq!(Fft37::RADICES.iter().product::<usize>(), 75);
    assert_eq!(manifest.transforms[0].passes.len(), 1);
    assert_eq!(manifest.scratch_elements, 0);
}
