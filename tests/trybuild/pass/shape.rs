//! A shape names the struct and sets `SHAPE`; one axis is the same as `n`.

use fftgen_macros::fft_kernel;

fft_kernel!(shape = [4, 64]);
fft_kernel!(shape = [64], precision = f64);
fft_kernel!(n = 8192);

fn main() {
    assert_eq!(Fft4x64F32::SHAPE, &[4, 64]);
    assert_eq!(Fft4x64F32::N, 256);
    assert_eq!(Fft64F64::SHAPE, &[64]);
    assert_eq!(Fft8192F32::N, 8192);
}
