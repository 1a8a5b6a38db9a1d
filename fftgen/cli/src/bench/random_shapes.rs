//! `fftgen bench --random K --seed S`: K cases (shape, precision, kind)
//! drawn from the space users run, the same K for the same seed on every
//! machine and version of Rust: a splitmix64 generator (Steele, Lea and
//! Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014)
//! and integer arithmetic only, no floating point and no library's RNG.
//!
//! Each case draws, in this order: its axes (one half the time, two or
//! three a quarter each); its precision (f32 or f64) and kind (C2C or R2C,
//! the real axis last), even odds each; whether its lengths are 13-smooth
//! (7 in 8) or any length (1 in 8, where a prime factor above 31 runs
//! Bluestein's algorithm); then each axis log-uniform, as an octave
//! [2^k, 2^(k+1)) drawn uniformly and a length uniform within it (1D from
//! 2 to 2^27, 2D and 3D axes from 2 to 16384), a smooth one moved to the
//! nearest 13-smooth length. The lengths are drawn again until the case
//! fits the bench's 1 GiB batch in its precision (at least one transform
//! per batch, [`larger_than_batch`] and [`RealSides::larger_than_batch`];
//! so within the planner's 2^30 points too) and every axis that runs
//! Bluestein's algorithm is at most [`BLUESTEIN_AXIS_MAX`]. A case drawn
//! before is drawn again, so the K cases differ, and the first K of a
//! longer draw with the same seed are the K of a shorter one.

use super::case::BenchCase;
use super::larger_than_batch;
use super::real::RealSides;
use crate::shape::Shape;
use fftgen::codelet::largest_prime_factor;
use fftgen::{Precision, TransformKind};
use serde::Serialize;
use std::collections::HashSet;

/// The longest 1D transform drawn: 2^27 points.
pub const MAX_1D: usize = 1 << 27;

/// The longest axis of a 2D or 3D transform drawn: 16384.
pub const MAX_AXIS: usize = 1 << 14;

/// The most cases one draw takes.
pub const MAX_CASES: usize = 10_000;

/// The longest axis drawn with a prime factor above 31: Bluestein's rows
/// pad it to at least 2n - 1 points, and a plan holds at most 2^22
/// (`fftgen::plan::bluestein::MAX_PADDED`; a test checks the two agree).
pub const BLUESTEIN_AXIS_MAX: usize = 1 << 21;

/// What a report says of drawn cases: how many, from which seed, and the
/// first of them timed (0: all; a sample cut into parts, one run each,
/// times the cases from `from` on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RandomDraw {
    pub count: usize,
    pub seed: u64,
    pub from: usize,
}

impl RandomDraw {
    /// The cases this draw times: [`draw`]'s from `from` on.
    pub fn cases(&self) -> Vec<BenchCase> {
        draw(self.count, self.seed).split_off(self.from.min(self.count))
    }
}

/// `count` distinct cases drawn from `seed`, in the order drawn.
pub fn draw(count: usize, seed: u64) -> Vec<BenchCase> {
    let mut rng = SplitMix64(seed);
    let mut seen = HashSet::new();
    let mut cases = Vec::with_capacity(count);
    while cases.len() < count {
        let case = draw_case(&mut rng);
        if seen.insert(case.clone()) {
            cases.push(case);
        }
    }
    cases
}

/// One case: axes, precision, kind, smooth or not, then lengths until the
/// case fits ([`fits`]).
fn draw_case(rng: &mut SplitMix64) -> BenchCase {
    let axes = match rng.below(4) {
        0 | 1 => 1,
        2 => 2,
        _ => 3,
    };
    let precision = match rng.below(2) {
        0 => Precision::F32,
        _ => Precision::F64,
    };
    let kind = match rng.below(2) {
        0 => TransformKind::C2c,
        _ => TransformKind::R2c,
    };
    let smooth = rng.below(8) != 0;
    let max = if axes == 1 { MAX_1D } else { MAX_AXIS };
    loop {
        let lengths = (0..axes).map(|_| {
            let n = log_uniform(rng, max);
            match smooth {
                true => nearest_13_smooth(n, max),
                false => n,
            }
        });
        let case = BenchCase {
            shape: Shape(lengths.collect()),
            precision,
            kind,
        };
        if fits(&case) {
            return case;
        }
    }
}

/// A length from 2 to `max` - 1 (`max` a power of two): an octave
/// [2^k, 2^(k+1)) below `max` uniformly, then a length uniformly within it.
fn log_uniform(rng: &mut SplitMix64, max: usize) -> usize {
    let octaves = max.ilog2() as u64 - 1;
    let low = 1usize << (1 + rng.below(octaves));
    low + rng.below(low as u64) as usize
}

/// Whether `case` runs in the bench's 1 GiB batch (at least one transform
/// per batch) and each of its axes that runs Bluestein's algorithm pads
/// within what a plan holds.
pub fn fits(case: &BenchCase) -> bool {
    let over_batch = match case.kind {
        TransformKind::C2c => larger_than_batch(case.shape.points(), case.precision),
        TransformKind::R2c => RealSides::new(&case.shape.0).larger_than_batch(case.precision),
    };
    let bluestein_fits = |&n: &usize| !runs_bluestein(n) || n <= BLUESTEIN_AXIS_MAX;
    over_batch.is_none() && case.shape.0.iter().all(bluestein_fits)
}

/// The 13-smooth length nearest `n` within 2..=`max`, the larger of two
/// as near.
pub fn nearest_13_smooth(n: usize, max: usize) -> usize {
    (0..)
        .flat_map(|d| [n.saturating_add(d), n.saturating_sub(d)])
        .find(|&m| (2..=max).contains(&m) && largest_prime_factor(m) <= 13)
        .expect("2 is 13-smooth and within every range")
}

/// Whether an axis of `n` points runs Bluestein's algorithm: it has a prime
/// factor no radix covers (the planner's own rule).
pub fn runs_bluestein(n: usize) -> bool {
    fftgen::plan::bluestein::needs_bluestein(n)
}

/// Steele, Lea and Flood's splitmix64: a 64-bit state stepped by a constant
/// and mixed; the same numbers from a seed everywhere.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..`n` (`n` at least 1): the high word of a 128-bit
    /// product, as even as 64 bits allow.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fftgen::Target;

    #[test]
    fn splitmix64_gives_the_published_sequence() {
        // The reference outputs of splitmix64 from seed 1234567.
        let mut rng = SplitMix64(1234567);
        let first: Vec<u64> = (0..3).map(|_| rng.next()).collect();
        assert_eq!(
            first,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
    }

    #[test]
    fn the_same_seed_draws_the_same_cases() {
        let cases = draw(100, 1);
        assert_eq!(cases, draw(100, 1));
        assert_ne!(cases, draw(100, 2));
        // A shorter draw is the start of a longer one; the cases differ.
        assert_eq!(draw(30, 1), cases[..30]);
        let distinct: HashSet<&BenchCase> = cases.iter().collect();
        assert_eq!(distinct.len(), 100);
        assert_eq!(
            RandomDraw {
                count: 5,
                seed: 1,
                from: 0
            }
            .cases(),
            cases[..5]
        );
        assert_eq!(
            RandomDraw {
                count: 5,
                seed: 1,
                from: 3
            }
            .cases(),
            cases[3..5]
        );
    }

    #[test]
    fn drawn_cases_fit_their_ranges_and_the_batch() {
        for seed in [1, 2, 3] {
            for case in draw(200, seed) {
                let axes = &case.shape.0;
                let max = match axes.len() {
                    1 => MAX_1D,
                    2 | 3 => MAX_AXIS,
                    _ => panic!("{case}: {} axes", axes.len()),
                };
                assert!(axes.iter().all(|n| (2..=max).contains(n)), "{case}");
                assert!(fits(&case), "{case}");
                let bytes = match case.kind {
                    TransformKind::C2c => case.shape.points() * case.precision.complex_bytes(),
                    TransformKind::R2c => {
                        RealSides::new(axes).larger_reals() * case.precision.real_bytes()
                    }
                };
                assert!(bytes <= crate::bench::BUFFER_BYTES, "{case}");
                assert!(case.shape.points() <= fftgen::plan::validate::MAX_POINTS);
            }
        }
    }

    #[test]
    fn drawn_cases_plan_for_an_h100() {
        for case in [1, 2, 3].into_iter().flat_map(|seed| draw(100, seed)) {
            let mut spec = case.spec();
            spec.target = Some(Target::H100);
            if let Err(e) = fftgen::plan::plan(&spec) {
                panic!("{case} does not plan: {e}");
            }
        }
    }

    #[test]
    fn a_sample_is_mostly_smooth_and_holds_every_precision_kind_and_dimension() {
        let cases = draw(100, 1);
        let count = |keep: &dyn Fn(&BenchCase) -> bool| cases.iter().filter(|c| keep(c)).count();
        let smooth = count(&|c| c.shape.0.iter().all(|&n| largest_prime_factor(n) <= 13));
        assert!((75..100).contains(&smooth), "{smooth} of 100 13-smooth");
        assert!(count(&|c| c.shape.0.iter().any(|&n| runs_bluestein(n))) > 0);
        for precision in [Precision::F32, Precision::F64] {
            assert!(count(&|c| c.precision == precision) >= 25, "{precision}");
        }
        for kind in [TransformKind::C2c, TransformKind::R2c] {
            assert!(count(&|c| c.kind == kind) >= 25, "{kind}");
        }
        for axes in 1..=3 {
            assert!(count(&|c| c.shape.0.len() == axes) >= 10, "{axes}D");
        }
        // Small and large sizes both appear.
        assert!(count(&|c| c.shape.points() <= 4096) >= 10);
        assert!(count(&|c| c.shape.points() >= 1 << 20) >= 10);
    }

    #[test]
    fn lengths_round_to_near_13_smooth_ones() {
        assert_eq!(nearest_13_smooth(4096, MAX_AXIS), 4096);
        assert_eq!(nearest_13_smooth(17, MAX_AXIS), 18);
        assert_eq!(nearest_13_smooth(1009, MAX_AXIS), 1008);
        assert_eq!(nearest_13_smooth(16383, MAX_AXIS), 16384);
        assert_eq!(nearest_13_smooth(MAX_1D - 1, MAX_1D), MAX_1D);
        assert_eq!(largest_prime_factor(1 << 20), 2);
        assert_eq!(largest_prime_factor(2 * 10007), 10007);
        assert!(runs_bluestein(37) && !runs_bluestein(31 * 29));
    }

    #[test]
    fn bluestein_axes_pad_within_a_plan() {
        use fftgen::plan::bluestein::{padded_length, MAX_PADDED};
        assert!(padded_length(BLUESTEIN_AXIS_MAX) <= MAX_PADDED);
        assert!(padded_length(2 * BLUESTEIN_AXIS_MAX) > MAX_PADDED);
    }
}
