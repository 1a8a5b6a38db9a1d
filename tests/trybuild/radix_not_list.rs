//! A single radix must still be a list: the error shows the form.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 8, radix = 8);

fn main() {}
