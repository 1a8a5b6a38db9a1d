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
    let row_plan = |padded: usize| {
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
    };
    let least = padded_length(n);
    let mut best = (least, row_plan(least)?);
    let cost = |(padded, plan): &(usize, Plan)| padded * plan.passes.len();
    let least_cost = cost(&best);
    let shared = target.plannable_shared_bytes().max(
        target
            .max_opt_in_shared_bytes
            .saturating_sub(target.compiler_shared_bytes),
    );
    let one_kernel_most = max_size(spec.precision).max(shared / spec.precision.complex_bytes());
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
