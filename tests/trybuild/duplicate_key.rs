//! n given twice: the error points at the second one.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, radix = [8, 8], n = 128);

fn main() {}
