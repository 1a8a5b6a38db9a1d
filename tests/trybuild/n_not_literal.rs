//! A constant is not evaluated by the macro: the error asks for the number itself.

use fftgen_macros::fft_kernel;

const N: usize = 64;
fft_kernel!(n = N, radix = [8, 8]);

fn main() {}
