//! Radix 64 is above 32: the error points at that radix, not the whole list.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 256, radix = [4, 64]);

fn main() {}
