//! Without n there is no transform: the error is on the whole call.

use fftgen_macros::fft_kernel;

fft_kernel!(radix = [8, 8]);

fn main() {}
