//! 8192 points do not fit one f32 kernel: the error points at n.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 8192, radix = [16, 16, 32]);

fn main() {}
