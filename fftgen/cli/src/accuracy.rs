//! How fftgen measures accuracy, shared by `fftgen check` and the tests:
//! random inputs from fixed seeds, the f64 reference (RustFFT, itself checked
//! against the textbook DFT in the tests), the relative L2 error, and the
//! tolerance `c * eps * log2(n)`.

use fftgen::{Direction, Normalization, Precision};
use num_complex::Complex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The constant c of the tolerance `c * eps * log2(n)`, eps being the machine
/// epsilon of the precision. A well-implemented FFT has a relative L2 error
/// of order `eps * sqrt(log2 n)` on random data (Higham, Accuracy and
/// Stability of Numerical Algorithms, section 24.1), observed here at about
/// 0.1 * eps * log2(n); c = 1 leaves a margin of several times that while a
/// wrong twiddle or a lost sign gives an error of order one.
pub const TOLERANCE_C: f64 = 1.0;

/// The largest acceptable relative L2 error for a length-`n` transform.
pub fn tolerance(n: usize, precision: Precision) -> f64 {
    TOLERANCE_C * precision.epsilon() * (n as f64).log2().max(1.0)
}

/// `len` complex values uniform in [-1, 1)^2 from `seed` (never zeros).
pub fn random_input(len: usize, seed: u64) -> Vec<Complex<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len)
        .map(|_| Complex::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect()
}

/// The f64 reference of a batch of contiguous length-`n` transforms, with
/// the same normalisation as the kernels.
pub fn reference(
    input: &[Complex<f64>],
    n: usize,
    direction: Direction,
    normalization: Normalization,
) -> Vec<Complex<f64>> {
    let mut planner = rustfft::FftPlanner::<f64>::new();
    let fft = match direction {
        Direction::Forward => planner.plan_fft_forward(n),
        Direction::Inverse => planner.plan_fft_inverse(n),
    };
    let mut out = input.to_vec();
    fft.process(&mut out);
    let scale = normalization.scale(n, direction);
    if scale != 1.0 {
        out.iter_mut().for_each(|c| *c *= scale);
    }
    out
}

/// `||got - want|| / ||want||`.
pub fn relative_l2(got: &[Complex<f64>], want: &[Complex<f64>]) -> f64 {
    let diff: f64 = got.iter().zip(want).map(|(a, b)| (a - b).norm_sqr()).sum();
    let norm: f64 = want.iter().map(|b| b.norm_sqr()).sum();
    (diff / norm).sqrt()
}
