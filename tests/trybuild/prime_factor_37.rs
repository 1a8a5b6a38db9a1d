//! 37 is not a supported prime factor: the error points at n and suggests a size.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 37);

fn main() {}
