//! How fftgen measures accuracy, shared by `fftgen check` and the tests:
//! random inputs from fixed seeds, the f64 reference (RustFFT, itself checked
//! against the textbook DFT in the tests; the N-D DFT as RustFFT along each
//! axis in turn, [`reference_nd`]; for real transforms the half spectrum of
//! the reals, [`real_forward_reference`], and the C2R of a half spectrum as
//! numpy's `irfftn` computes it, [`real_inverse_reference`]), the relative
//! L2 error, and the tolerance `c * eps * log2(n)`.

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

/// The f64 reference of a batch of N-D transforms of `shape` on logical
/// arrays (each transform row-major and dense, one after another, as numpy's
/// `fftn` over the last axes), with the kernels' normalisation over all
/// `shape`'s points. A shape of one axis is [`reference`].
pub fn reference_nd(
    shape: &[usize],
    data: &[Complex<f64>],
    direction: Direction,
    normalization: Normalization,
) -> Vec<Complex<f64>> {
    let points: usize = shape.iter().product();
    let all: Vec<usize> = (0..shape.len()).collect();
    let mut out = data.to_vec();
    transform_axes(shape, &mut out, &all, direction);
    scale(&mut out, normalization.scale(points, direction));
    out
}

/// Transforms `data`, a batch of logical arrays of `shape`, along each of
/// `axes` in turn (unnormalised).
fn transform_axes(
    shape: &[usize],
    data: &mut [Complex<f64>],
    axes: &[usize],
    direction: Direction,
) {
    let points: usize = shape.iter().product();
    let mut planner = rustfft::FftPlanner::<f64>::new();
    for &axis in axes {
        let len = shape[axis];
        if len == 1 {
            continue;
        }
        let fft = match direction {
            Direction::Forward => planner.plan_fft_forward(len),
            Direction::Inverse => planner.plan_fft_inverse(len),
        };
        // Elements between neighbours along `axis`, and lines along it per transform.
        let stride: usize = shape[axis + 1..].iter().product();
        let mut line = vec![Complex::default(); len];
        for transform in data.chunks_mut(points.max(1)) {
            for outer in 0..points / (len * stride) {
                for inner in 0..stride {
                    let start = outer * len * stride + inner;
                    for (k, value) in line.iter_mut().enumerate() {
                        *value = transform[start + k * stride];
                    }
                    fft.process(&mut line);
                    for (k, value) in line.iter().enumerate() {
                        transform[start + k * stride] = *value;
                    }
                }
            }
        }
    }
}

fn scale(values: &mut [Complex<f64>], factor: f64) {
    if factor != 1.0 {
        values.iter_mut().for_each(|c| *c *= factor);
    }
}

/// `len` reals uniform in [-1, 1) from `seed`: the real input of `r2c`
/// transforms (never zeros).
pub fn random_reals(len: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

/// The f64 reference of a batch of R2C transforms of `shape` (the reals'
/// shape, the real axis last): the complex DFT of the reals, each
/// transform's last axis cut to `n / 2 + 1` (numpy's `rfftn`), with the
/// kernels' normalisation over all `shape`'s points.
pub fn real_forward_reference(
    shape: &[usize],
    reals: &[f64],
    normalization: Normalization,
) -> Vec<Complex<f64>> {
    let complex: Vec<Complex<f64>> = reals.iter().map(|&x| Complex::new(x, 0.0)).collect();
    let full = reference_nd(shape, &complex, Direction::Forward, normalization);
    let n = shape[shape.len() - 1];
    full.chunks(n)
        .flat_map(|row| row[..n / 2 + 1].iter().copied())
        .collect()
}

/// The f64 reference of a batch of C2R transforms of `shape` (the reals'
/// shape) from `half`, their half spectra (last axis `n / 2 + 1`), as
/// numpy's `irfftn` computes it and the kernels must: the inverse DFT along
/// every axis but the last, then along the last the real signal whose
/// spectrum is each row extended by `X[n - k] = conj X[k]` (the imaginary
/// parts of `X[0]` and, for even `n`, `X[n / 2]` ignored). Unnormalised it
/// is `n` times the reals a Hermitian `half` came from; the kernels'
/// normalisation scales it.
pub fn real_inverse_reference(
    shape: &[usize],
    half: &[Complex<f64>],
    normalization: Normalization,
) -> Vec<f64> {
    let last = shape.len() - 1;
    let n = shape[last];
    let kept = n / 2 + 1;
    let half_shape = fftgen::TransformKind::R2c.complex_shape(shape);
    let mut outer = half.to_vec();
    let axes: Vec<usize> = (0..last).collect();
    transform_axes(&half_shape, &mut outer, &axes, Direction::Inverse);
    let fft = rustfft::FftPlanner::<f64>::new().plan_fft_inverse(n);
    let mut line = vec![Complex::default(); n];
    let mut reals = Vec::with_capacity(outer.len() / kept * n);
    for row in outer.chunks(kept) {
        for (k, value) in line.iter_mut().enumerate() {
            *value = match k < kept {
                true => row[k],
                false => row[n - k].conj(),
            };
        }
        // The values that must be real count by their real parts: X[0],
        // and X[n / 2] where it is its own mirror (even n).
        line[0].im = 0.0;
        if 2 * (n / 2) == n {
            line[n / 2].im = 0.0;
        }
        fft.process(&mut line);
        reals.extend(line.iter().map(|c| c.re));
    }
    let factor = normalization.scale(shape.iter().product(), Direction::Inverse);
    if factor != 1.0 {
        reals.iter_mut().for_each(|x| *x *= factor);
    }
    reals
}

/// `||got - want|| / ||want||`.
pub fn relative_l2(got: &[Complex<f64>], want: &[Complex<f64>]) -> f64 {
    let diff: f64 = got.iter().zip(want).map(|(a, b)| (a - b).norm_sqr()).sum();
    let norm: f64 = want.iter().map(|b| b.norm_sqr()).sum();
    (diff / norm).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook N-D DFT of one transform.
    fn dft_nd(shape: &[usize], x: &[Complex<f64>], sign: f64) -> Vec<Complex<f64>> {
        let index = |mut flat: usize| -> Vec<usize> {
            let mut idx = vec![0; shape.len()];
            for a in (0..shape.len()).rev() {
                idx[a] = flat % shape[a];
                flat /= shape[a];
            }
            idx
        };
        (0..x.len())
            .map(|k| {
                let kk = index(k);
                (0..x.len())
                    .map(|j| {
                        let jj = index(j);
                        let phase: f64 = (0..shape.len())
                            .map(|a| (kk[a] * jj[a]) as f64 / shape[a] as f64)
                            .sum();
                        x[j] * Complex::from_polar(1.0, sign * 2.0 * std::f64::consts::PI * phase)
                    })
                    .sum()
            })
            .collect()
    }

    #[test]
    fn the_nd_reference_is_the_nd_dft() {
        for shape in [&[6][..], &[4, 6], &[3, 4, 5], &[1, 8], &[4, 1]] {
            let points: usize = shape.iter().product();
            let batch = 2;
            let x = random_input(batch * points, 7);
            for (direction, sign) in [(Direction::Forward, -1.0), (Direction::Inverse, 1.0)] {
                let got = reference_nd(shape, &x, direction, Normalization::Inverse);
                let scale = Normalization::Inverse.scale(points, direction);
                let want: Vec<_> = x
                    .chunks(points)
                    .flat_map(|t| dft_nd(shape, t, sign))
                    .map(|c| c * scale)
                    .collect();
                let error = relative_l2(&got, &want);
                assert!(error < 1e-13, "{shape:?} {direction}: {error}");
            }
        }
        // One axis: the same as the 1-D reference.
        let x = random_input(3 * 16, 3);
        assert_eq!(
            reference_nd(&[16], &x, Direction::Forward, Normalization::None),
            x.chunks(16)
                .flat_map(|t| reference(t, 16, Direction::Forward, Normalization::None))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_real_references_are_the_dft_of_the_reals_and_its_inverse() {
        for shape in [&[1][..], &[2], &[7], &[8], &[4, 6], &[3, 5], &[2, 3, 4]] {
            let points: usize = shape.iter().product();
            let n = shape[shape.len() - 1];
            let batch = 2;
            let reals = random_reals(batch * points, 11);
            let half = real_forward_reference(shape, &reals, Normalization::None);
            // The forward: the DFT of the reals, each row cut to n / 2 + 1.
            let want: Vec<_> = reals
                .chunks(points)
                .flat_map(|t| {
                    let complex: Vec<_> = t.iter().map(|&x| Complex::new(x, 0.0)).collect();
                    dft_nd(shape, &complex, -1.0)
                })
                .collect::<Vec<_>>()
                .chunks(n)
                .flat_map(|row| row[..n / 2 + 1].to_vec())
                .collect();
            let error = relative_l2(&half, &want);
            assert!(error < 1e-13, "{shape:?} forward: {error}");
            // The inverse of a Hermitian half spectrum: n times the reals.
            let back = real_inverse_reference(shape, &half, Normalization::Unitary);
            let widen = |v: &[f64]| -> Vec<Complex<f64>> {
                v.iter().map(|&x| Complex::new(x, 0.0)).collect()
            };
            let scaled: Vec<f64> = reals.iter().map(|x| x * (points as f64).sqrt()).collect();
            let error = relative_l2(&widen(&back), &widen(&scaled));
            assert!(error < 1e-13, "{shape:?} inverse: {error}");
        }
        // What the imaginary parts of X[0] and X[n / 2] hold does not count.
        let mut half = real_forward_reference(&[6], &random_reals(6, 3), Normalization::None);
        let want = real_inverse_reference(&[6], &half, Normalization::None);
        half[0].im = 5.0;
        half[3].im = -2.0;
        assert_eq!(
            real_inverse_reference(&[6], &half, Normalization::None),
            want
        );
    }
}
