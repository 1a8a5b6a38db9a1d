//! The padded length M of the rows of Bluestein's algorithm
//! ([`super::bluestein`]): a product of 2, 3, 5 and 7 of at least 2N - 1,
//! whose FFT the radices cover. The least such M moves the fewest bytes
//! where its FFT takes as few passes as any longer one; where it takes
//! more (one kernel does not hold it, but a longer M's FFT fits one), the
//! planner weighs the passes: each pass of the FFT of M reads and writes
//! its row once, so the M of least passes x M is the one taken.

use super::pass_planner::max_size;
use super::validate::MAX_POINTS;
use super::wisdom::Wisdom;
use super::Plan;
use crate::{Error, FftSpec, Normalization, Placement, Target, TransformKind};

/// Most points a padded row may have: its chirp's spectrum is an f64 FFT
/// on the host and a table of the manifest (2^22 points: 64 MiB of f64
/// pairs; N to about two million).
pub const MAX_PADDED: usize = 1 << 22;

/// Primes the padded length may have: the FFT of M should be fast, and
/// radices 2, 3, 5 and 7 are the fastest per point.
const PADDED_PRIMES: [usize; 4] = [2, 3, 5, 7];

/// The least padded length of an axis of `n` points: the smallest product
/// of 2, 3, 5 and 7 of at least 2n - 1 (one kernel holds it up to
/// thousands of points, and those radices cost the fewest operations per
/// point). The planner takes a longer one where its FFT takes fewer
/// passes and so moves fewer bytes ([`super::bluestein::AxisRoute`] says which).
pub fn padded_length(n: usize) -> usize {
    (2 * n - 1..)
        .find(|&m| is_padded_length(m))
        .expect("products of 2, 3, 5 and 7 are unbounded")
}

/// The padded length of an axis of `n` points (`rows` rows of it per
/// transform) and the planner's in-place plan of the FFT of one row of it.
/// Each pass of the FFT of M reads and writes its row once, and the
/// transform's kernels move about that (the chirps' reads and writes are
/// of N points), so the length taken is the one of least passes x M: the
/// least product of 2, 3, 5 and 7 of at least 2n - 1, unless a longer one
/// whose FFT takes fewer passes moves fewer bytes (f32 on the H100: the
/// least, 22680, takes two passes; 23040 one). A longer row than one
/// kernel holds takes at least as many passes as the least (the split of
/// a longer row is no shorter), so only the lengths whose row a block's
/// shared memory holds (both parts, as the planner's one-kernel shapes
/// exchange them) are planned; the first that one kernel holds ends the
/// search, as no longer one moves less.
pub(super) fn padded_row_plan(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    n: usize,
    rows: usize,
) -> Result<(usize, Plan), Error> {
    let row_plan = |padded: usize| row_plan(spec, target, wisdom, padded);
    let least = padded_length(n);
    let mut best = (least, row_plan(least)?);
    let cost = |(padded, plan): &(usize, Plan)| padded * plan.passes.len();
    let least_cost = cost(&best);
    let one_kernel_most = one_kernel_most(spec, target);
    let longer = (least + 1..least_cost)
        .take_while(|&m| m <= one_kernel_most.min(MAX_PADDED) && m * rows <= MAX_POINTS)
        .filter(|&m| is_padded_length(m));
    for padded in longer {
        let Ok(plan) = row_plan(padded) else {
            continue;
        };
        let candidate = (padded, plan);
        let one_kernel = candidate.1.passes.len() == 1;
        if cost(&candidate) < cost(&best) {
            best = candidate;
        }
        if one_kernel {
            break;
        }
    }
    Ok(best)
}

/// The padded lengths past `padded` (whose row plan takes one kernel, but
/// not the whole algorithm) to try for the whole of Bluestein's algorithm
/// in one kernel ([`super::chirp_fusion::whole`]), with their row plans of
/// one kernel, the shortest first: the whole algorithm reads N points and
/// writes N where two kernels also write and read the row of M, so a row
/// up to [`WHOLE_LONGER_MOST`] longer whose FFT's threads hold few enough
/// values for both FFTs moves fewer bytes (2022's FFTs of 4050 hold 30
/// values a thread in radices of 15 and 18; 4096's hold 16). Only rows a
/// block holds without opt-in shared memory: H100, cuFFT/ours against two
/// kernels of the least M (docs/bench/h100_bluestein_longer_rows.txt), f32
/// 2022 0.46 -> 1.04x, 1986 0.71 -> 1.04x, 1231 0.69 -> 0.91x, 1027 1.05
/// -> 1.39x, R2C 3764 0.75 -> 0.99x, f64 854 1.07 -> 1.46x; 954 1.39 ->
/// 1.27x and R2C 2752 0.96 -> 0.84x lost; in opt-in memory (past 4096 f32
/// points, 3072 f64) lone blocks of many threads lost at every size
/// (2851's 5880 over 588 threads 0.77 -> 0.48x, 2265's 4802 0.99 ->
/// 0.25x, f64 1639's 4116 0.72 -> 0.33x). The caller takes a row's whole
/// algorithm only at two or more blocks an SM.
pub(super) fn longer_rows_for_the_whole<'a>(
    spec: &'a FftSpec,
    target: &'a Target,
    wisdom: &'a Wisdom,
    padded: usize,
    rows: usize,
) -> impl Iterator<Item = (usize, Plan)> + 'a {
    let most = (padded * WHOLE_LONGER_MOST.0 / WHOLE_LONGER_MOST.1)
        .min(max_size(spec.precision))
        .min(target.plannable_shared_bytes() / spec.precision.complex_bytes());
    (padded + 1..=most)
        .filter(move |&m| is_padded_length(m) && m * rows <= MAX_POINTS)
        .filter_map(move |m| Some((m, row_plan(spec, target, wisdom, m).ok()?)))
        .filter(|(_, plan)| plan.passes.len() == 1)
}

/// How much longer than the planned padded length a row may grow for the
/// whole algorithm to fit one kernel ([`longer_rows_for_the_whole`]), as
/// a fraction.
const WHOLE_LONGER_MOST: (usize, usize) = (5, 4);

/// The most points of a row of M one kernel may hold: both parts in a
/// block's shared memory, opt-in where the target grants it.
fn one_kernel_most(spec: &FftSpec, target: &Target) -> usize {
    let shared = target.plannable_shared_bytes().max(
        target
            .max_opt_in_shared_bytes
            .saturating_sub(target.compiler_shared_bytes),
    );
    max_size(spec.precision).max(shared / spec.precision.complex_bytes())
}

/// The planner's in-place plan of the FFT of one row of `padded` points.
pub(super) fn row_plan(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    padded: usize,
) -> Result<Plan, Error> {
    let row_spec = FftSpec {
        shape: vec![padded],
        kind: TransformKind::C2c,
        input_layout: None,
        output_layout: None,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: Normalization::None,
        placement: Placement::InPlace,
        choices: Default::default(),
        target: Some(target.clone()),
        wisdom: spec.wisdom.clone(),
    };
    super::plan_with_wisdom(&row_spec, wisdom)
}

/// Whether `m` is a product of 2, 3, 5 and 7 only.
fn is_padded_length(m: usize) -> bool {
    let mut rest = m;
    for p in PADDED_PRIMES {
        while rest % p == 0 {
            rest /= p;
        }
    }
    rest == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_lengths_are_fast_sizes_of_at_least_2n_minus_1() {
        assert_eq!(padded_length(37), 75);
        assert_eq!(padded_length(4099), 8232);
        assert_eq!(padded_length(10007), 20160);
        for n in [37, 41, 97, 4099, 65537] {
            let m = padded_length(n);
            assert!(m >= 2 * n - 1 && m < 2 * (2 * n - 1), "{n}: {m}");
        }
    }
}
