//! How a transform longer than one block holds is split into the lengths of
//! the four-step FFT (seed 001; seed 000 section IV.C): N = N1 x N2 (x N3),
//! as few factors as the block allows (each factor is one pass over the
//! data), as even as possible (the longest factor bounds the tile a block
//! must hold, and so how many neighbouring columns it reads at once).

use super::factor::is_smooth;

/// The factors of `n`, first pass first, each at most `max_len`, in as few
/// factors as possible and then with the smallest largest factor; `None`
/// if `n` needs more than `max_factors`.
pub fn four_step(n: usize, max_len: usize, max_factors: usize) -> Option<Vec<usize>> {
    if n <= max_len {
        return Some(vec![n]);
    }
    (2..=max_factors).find_map(|factors| splits(n, max_len, factors).into_iter().next())
}

/// Every split of `n` into exactly `factors` factors of at most `max_len`
/// (each >= 2, all but the last 31-smooth), each no longer than the one
/// before, most even first (by the largest factor): [`four_step`] takes
/// the first, and a cost model may rank the others against it.
pub fn splits(n: usize, max_len: usize, factors: usize) -> Vec<Vec<usize>> {
    if factors == 1 {
        return match n <= max_len && n >= 2 {
            true => vec![vec![n]],
            false => Vec::new(),
        };
    }
    let mut out = Vec::new();
    for first in divisors(n).into_iter().filter(|&d| d >= 2 && d <= max_len) {
        if !is_smooth(first) || n / first > first.saturating_pow(factors as u32 - 1) {
            continue;
        }
        for mut rest in splits(n / first, first, factors - 1) {
            let mut split = vec![first];
            split.append(&mut rest);
            out.push(split);
        }
    }
    out.sort_by_key(|split| split[0]);
    out
}

/// Every divisor of `n`, ascending (n is 31-smooth, so it has few).
fn divisors(n: usize) -> Vec<usize> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d * d <= n {
        if n % d == 0 {
            small.push(d);
            if d * d != n {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_as_few_and_as_even_as_the_block_allows() {
        assert_eq!(four_step(4096, 4096, 3), Some(vec![4096]));
        assert_eq!(four_step(1 << 20, 1024, 3), Some(vec![1024, 1024]));
        assert_eq!(four_step(1 << 20, 1536, 3), Some(vec![1024, 1024]));
        assert_eq!(four_step(8192, 1536, 3), Some(vec![128, 64]));
        assert_eq!(four_step(1 << 30, 1536, 3), Some(vec![1024, 1024, 1024]));
        assert_eq!(four_step(1 << 27, 1536, 3), Some(vec![512, 512, 512]));
        assert_eq!(four_step(20000, 1536, 3), Some(vec![160, 125]));
        let f = four_step(3usize.pow(10), 1536, 3).unwrap();
        assert_eq!(f.iter().product::<usize>(), 3usize.pow(10));
        assert_eq!(four_step(1 << 30, 1024, 2), None);
    }

    #[test]
    fn splits_list_every_even_enough_factorization_most_even_first() {
        assert_eq!(
            splits(1 << 20, 2048, 2),
            vec![vec![1024, 1024], vec![2048, 512]]
        );
        let all = splits(2737800, 2048, 2);
        assert_eq!(all[0], four_step(2737800, 2048, 2).unwrap());
        assert!(all.contains(&vec![2025, 1352]));
        assert!(all
            .iter()
            .all(|s| s.len() == 2 && s[0] >= s[1] && s[0] * s[1] == 2737800));
        assert!(splits(1 << 30, 1024, 2).is_empty());
        for split in splits(1 << 27, 1024, 3) {
            assert!(split[0] >= split[1] && split[1] >= split[2]);
            assert_eq!(split.iter().product::<usize>(), 1 << 27);
        }
    }
}
