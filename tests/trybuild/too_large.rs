//! 2^31 points are more than a plan holds (2^30): the error points at n.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 2147483648);

fn main() {}
