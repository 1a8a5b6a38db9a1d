//! f16 is not a precision: the error lists f32 and f64.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, precision = f16);

fn main() {}
