//! Which sizes a single kernel supports and the nearest supported size to
//! suggest when one is not.

/// Prime factors a size may have: the primes the codelet generator builds
/// radices of (every prime to 31, radix 32 being the largest).
pub const SUPPORTED_PRIMES: [usize; 11] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31];

/// Prime factors of `n` with multiplicity, ascending.
pub fn prime_factors(mut n: usize) -> Vec<usize> {
    let mut factors = Vec::new();
    let mut p = 2;
    while p <= n / p {
        while n % p == 0 {
            factors.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

/// True when every prime factor of `n` is a supported one.
pub fn is_smooth(n: usize) -> bool {
    n >= 1
        && prime_factors(n)
            .iter()
            .all(|p| SUPPORTED_PRIMES.contains(p))
}

/// The nearest size to `n` (at most `max`) whose prime factors are supported,
/// preferring a larger one as zero-padding would.
pub fn nearest_supported(n: usize, max: usize) -> usize {
    (n..=max)
        .find(|&m| is_smooth(m))
        .or_else(|| (2..n.min(max + 1)).rev().find(|&m| is_smooth(m)))
        .unwrap_or(2)
}

/// Every supported single-kernel size from 2 to `max`.
pub fn supported_sizes(max: usize) -> Vec<usize> {
    (2..=max).filter(|&n| is_smooth(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_and_smoothness() {
        assert_eq!(prime_factors(4000), vec![2, 2, 2, 2, 2, 5, 5, 5]);
        assert!(is_smooth(2197));
        assert!(is_smooth(17 * 64) && is_smooth(23 * 29));
        assert!(!is_smooth(4099) && !is_smooth(37));
        assert_eq!(nearest_supported(37, 4096), 38);
        assert_eq!(nearest_supported(4099, 4096), 4096);
    }
}
