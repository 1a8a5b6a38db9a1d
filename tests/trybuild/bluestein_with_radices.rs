//! 4099 is prime: it runs Bluestein's algorithm, whose passes the planner
//! shapes, so a radix list is refused, pointing at the list.

use fftgen_macros::fft_kernel;

fft_kernel!(n = 4099, radix = [8, 8]);

fn main() {}
