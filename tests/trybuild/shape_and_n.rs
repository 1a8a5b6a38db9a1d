//! `n` and `shape` both describe the size: give one; the error points at the second.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, shape = [64]);

fn main() {}
