//! `radices` is not a key (it is `radix`): the error lists the valid keys.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 64, radices = [8, 8]);

fn main() {}
