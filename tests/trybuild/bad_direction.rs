//! backward is not a direction: the error lists the valid ones.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, direction = backward);

fn main() {}
