//! A shape lists at least one axis.

use fftgen_macros::fft_kernel;

fft_kernel!(shape = []);

fn main() {}
