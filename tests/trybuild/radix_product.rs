//! The radices multiply to 32, not n = 64: the error points at the radix list.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, radix = [8, 4]);

fn main() {}
