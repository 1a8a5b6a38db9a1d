//! A kind that does not exist: the error lists c2c and r2c.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, kind = real);

fn main() {}
