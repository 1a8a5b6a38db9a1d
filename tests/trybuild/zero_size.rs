//! n = 0 is no transform: the error points at the 0.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 0, radix = [8, 8]);

fn main() {}
