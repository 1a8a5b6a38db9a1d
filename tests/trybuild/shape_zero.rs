//! An axis of length 0 holds no points: the error points at the 0.

use fftgen_macros::fft_kernel;

fft_kernel!(shape = [64, 0]);

fn main() {}
