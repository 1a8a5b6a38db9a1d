//! C2R is the inverse of r2c, not a kind: the error says how to ask for it.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, kind = c2r);

fn main() {}
