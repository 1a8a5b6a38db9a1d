//! Rader's algorithm for a prime axis p (seed 003, "Rader's FFT
//! algorithm ... as a length convolution, using the convolution theorem"):
//! with g a generator of the integers mod p, the DFT's points but X[0] are
//! a cyclic convolution of p - 1 points,
//!
//! ```text
//! X[g^j] = x[0] + sum_r x[g^r] w_p^(g^(j + r)) = x[0] + (a * b)[-j],
//! a[r] = x[g^r],  b[s] = w_p^(g^-s),  X[0] = sum x,
//! ```
//!
//! run as Bluestein's algorithm in one kernel runs its convolution of M
//! ([`super::bluestein`]'s [`super::ChirpRole::Whole`]), with M = p - 1
//! and no padding: the first FFT of M loads x[g^j] (the permutation is a
//! table), its outputs A are multiplied by B = FFT_M(b) / M, b[s] =
//! w_p^(g^-s), with x[0] added to the product's point 0, and the second FFT
//! of M (read forwards: its output j is the convolution's point -j) stores
//! its output j as X[g^j]. X[0] = x[0] + A[0] is stored where the product
//! is taken. Where p - 1 is smooth, M is about half Bluestein's least
//! padded length (2p - 1 up to a product of 2, 3, 5 and 7).

use super::factor::{is_smooth, prime_factors};
use serde::{Deserialize, Serialize};

/// Rader's algorithm over a prime axis: its generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rader {
    /// The least generator g of the multiplicative group mod p.
    pub generator: usize,
}

impl Rader {
    /// Rader's algorithm for an axis of `n` points, where `n` is a prime
    /// past 2 whose convolution of n - 1 points the radices cover.
    pub fn of(n: usize) -> Option<Rader> {
        if n < 3 || !is_prime(n) || !is_smooth(n - 1) {
            return None;
        }
        Some(Rader {
            generator: least_generator(n),
        })
    }

    /// g^j mod p for j < p - 1: the axis's point the convolution's point j
    /// loads, and the output its second FFT's point j is.
    pub fn permutation(&self, p: usize) -> Vec<usize> {
        let mut at = 1;
        (0..p - 1)
            .map(|_| {
                let here = at;
                at = at * self.generator % p;
                here
            })
            .collect()
    }

    /// The exponents g^-s mod p for s < p - 1 of b[s] = w_p^(g^-s).
    pub fn kernel_exponents(&self, p: usize) -> Vec<usize> {
        let inverse = power_mod(self.generator, p - 2, p);
        let mut at = 1;
        (0..p - 1)
            .map(|_| {
                let here = at;
                at = at * inverse % p;
                here
            })
            .collect()
    }
}

pub(super) fn is_prime(n: usize) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

fn power_mod(base: usize, exponent: usize, p: usize) -> usize {
    let (mut result, mut base, mut exponent) = (1u128, base as u128 % p as u128, exponent);
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result * base % p as u128;
        }
        base = base * base % p as u128;
        exponent >>= 1;
    }
    result as usize
}

/// The least g whose powers mod the prime `p` reach every nonzero residue:
/// g^((p - 1) / q) != 1 for each prime q dividing p - 1.
fn least_generator(p: usize) -> usize {
    let order = p - 1;
    let factors = prime_factors(order);
    (2..p)
        .find(|&g| factors.iter().all(|&q| power_mod(g, order / q, p) != 1))
        .expect("every prime has a generator")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_visits_every_nonzero_point_once() {
        for p in [3, 5, 7, 37, 53, 67, 101, 181, 281] {
            let rader = Rader::of(p).expect("p - 1 is smooth");
            let mut seen = rader.permutation(p);
            seen.sort_unstable();
            assert_eq!(seen, (1..p).collect::<Vec<_>>(), "{p}");
            let (forward, inverse) = (rader.permutation(p), rader.kernel_exponents(p));
            for s in 0..p - 1 {
                assert_eq!(forward[s] * inverse[s] % p, 1, "{p}: g^s g^-s");
            }
        }
        assert_eq!(Rader::of(7).map(|r| r.generator), Some(3));
        assert_eq!(Rader::of(2), None);
        assert_eq!(Rader::of(9), None);
        // 223 - 1 = 2 x 3 x 37: no radix covers 37.
        assert_eq!(Rader::of(223), None);
    }

    /// The convolution Rader's algorithm computes is the DFT, in f64.
    #[test]
    fn the_convolution_is_the_dft() {
        let p = 37;
        let rader = Rader::of(p).unwrap();
        let x: Vec<(f64, f64)> = (0..p)
            .map(|i| ((i as f64 * 0.7).sin(), (i as f64 * 1.3).cos()))
            .collect();
        let w = |e: usize| {
            let angle = -2.0 * std::f64::consts::PI * e as f64 / p as f64;
            (angle.cos(), angle.sin())
        };
        let mul = |a: (f64, f64), b: (f64, f64)| (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
        let (perm, kernel) = (rader.permutation(p), rader.kernel_exponents(p));
        let m = p - 1;
        for j in 0..m {
            let mut sum = x[0];
            for r in 0..m {
                // b at -j - r mod M: the cyclic convolution's point -j.
                let term = mul(x[perm[r]], w(kernel[(2 * m - j - r) % m]));
                sum = (sum.0 + term.0, sum.1 + term.1);
            }
            let k = perm[j];
            let direct = (0..p).fold((0.0, 0.0), |acc, i| {
                let term = mul(x[i], w(i * k % p));
                (acc.0 + term.0, acc.1 + term.1)
            });
            assert!((sum.0 - direct.0).abs() < 1e-9 && (sum.1 - direct.1).abs() < 1e-9);
        }
    }
}
