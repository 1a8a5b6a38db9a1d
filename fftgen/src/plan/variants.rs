//! The variants of a planned shape that a search may time against it: each
//! choice of [`ShapeChoices`] that `fftgen tune` varies ([`Dimension`]),
//! the splits and column I/O of a plan of several passes, and the radix
//! schedules of one kernel (seed 004's search over stage graphs, timed as
//! whole kernels since the stages of one kernel share its registers and
//! occupancy). `fftgen tune` times every combination; measured planning
//! ([`super::measure`]) times the planned shape's nearest neighbours.

use super::radix::schedules;
use super::{
    ColumnIo, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch, Pass, Plan, ShapeChoices,
    TwiddleTables,
};
use crate::Target;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// One choice the search varies around the planned shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Dimension {
    /// The launch bound, from one below the plan's to two above.
    Bound,
    FirstWrite,
    ExchangeWidth,
    PaddingSearch,
    InputCaching,
    /// Direct twiddle tables, or fine x coarse for the large stages.
    TwiddleTables,
    /// Every distinct order of the planned radices.
    RadixOrder,
    /// Every other radix schedule of the size with one stage fewer to one
    /// more than the plan, largest radix first, each with the threads,
    /// transforms per block and launch bound the planner gives it (the
    /// dimensions after it then vary those). Seed 004's search over stage
    /// graphs, by timing whole kernels.
    Factorization,
    /// Half, the same and twice the planned threads per transform, where a
    /// stage has that many butterflies and a block that many threads.
    Threads,
    /// Seed 004's stage graph ([`super::stage_graph`]): the schedules of
    /// `factorization`, timed whole, give each (position, radix) stage its
    /// cost in place by least squares; the cheapest path over those costs
    /// is then timed against the plan.
    StageGraph,
    /// For sizes of several passes, over the planned split: each column
    /// pass length's launch bound, FFTs per block and threads (16 values
    /// each), one length at a time, as column-pass wisdom entries
    /// ([`column_candidates`]).
    ColumnPasses,
}

impl Dimension {
    /// The choices `fftgen tune` varies unless told otherwise: those that
    /// keep the radices and threads, 96 combinations at most.
    pub const DEFAULT: [Dimension; 5] = [
        Dimension::Bound,
        Dimension::FirstWrite,
        Dimension::ExchangeWidth,
        Dimension::PaddingSearch,
        Dimension::InputCaching,
    ];

    pub const ALL: [Dimension; 11] = [
        Dimension::Bound,
        Dimension::FirstWrite,
        Dimension::ExchangeWidth,
        Dimension::PaddingSearch,
        Dimension::InputCaching,
        Dimension::TwiddleTables,
        Dimension::RadixOrder,
        Dimension::Threads,
        Dimension::Factorization,
        Dimension::StageGraph,
        Dimension::ColumnPasses,
    ];
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dimension::Bound => "bound",
            Dimension::FirstWrite => "first-write",
            Dimension::ExchangeWidth => "exchange-width",
            Dimension::PaddingSearch => "padding-search",
            Dimension::InputCaching => "input-caching",
            Dimension::TwiddleTables => "twiddle-tables",
            Dimension::RadixOrder => "radix-order",
            Dimension::Threads => "threads",
            Dimension::Factorization => "factorization",
            Dimension::StageGraph => "stage-graph",
            Dimension::ColumnPasses => "column-passes",
        })
    }
}

impl FromStr for Dimension {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Dimension::ALL
            .into_iter()
            .find(|d| d.to_string() == text)
            .ok_or_else(|| {
                let names: Vec<String> = Dimension::ALL.iter().map(|d| d.to_string()).collect();
                format!(
                    "`{text}` is not a tuning dimension: give {}",
                    names.join(", ")
                )
            })
    }
}

/// The planned shape (first) and every combination of the values of
/// `dimensions` around it. Some may not plan (a one-part exchange for a staged
/// size, say); the caller drops those, and variants whose code is the same.
pub fn candidates(pass: &Pass, dimensions: &[Dimension], target: &Target) -> Vec<ShapeChoices> {
    let base = ShapeChoices::pinned(pass);
    let mut shapes = vec![base.clone()];
    // A new schedule leaves threads and bound to the planner, so it goes
    // first and the other dimensions vary what it planned.
    let mut dimensions: Vec<Dimension> = dimensions
        .iter()
        .map(|&d| match d {
            // The stage graph is fitted to the factorization's timings.
            Dimension::StageGraph => Dimension::Factorization,
            d => d,
        })
        .collect();
    dimensions.dedup();
    dimensions.sort_by_key(|&d| d != Dimension::Factorization);
    for dimension in dimensions {
        let mut grown = Vec::new();
        for shape in &shapes {
            for value in values(dimension, pass, target) {
                let mut variant = shape.clone();
                value(&mut variant);
                if !grown.contains(&variant) {
                    grown.push(variant);
                }
            }
        }
        shapes = grown;
    }
    // The plan itself first, then the rest in the order generated.
    shapes.retain(|s| *s != base);
    shapes.insert(0, base);
    shapes
}

type Setter = Box<dyn Fn(&mut ShapeChoices)>;

/// The values `dimension` takes around `pass`, as setters.
fn values(dimension: Dimension, pass: &Pass, target: &Target) -> Vec<Setter> {
    match dimension {
        Dimension::Bound => {
            let bound = pass.min_blocks_per_sm;
            (bound.saturating_sub(1).max(1)..=(bound + 2).min(target.max_blocks_per_sm))
                .map(|b| {
                    Box::new(move |s: &mut ShapeChoices| s.min_blocks_per_sm = Some(b)) as Setter
                })
                .collect()
        }
        Dimension::TwiddleTables => TwiddleTables::ALL
            .iter()
            .map(|&v| Box::new(move |s: &mut ShapeChoices| s.twiddle_tables = Some(v)) as Setter)
            .collect(),
        Dimension::FirstWrite => [FirstWrite::AfterBarrier, FirstWrite::Immediate]
            .into_iter()
            .map(|v| Box::new(move |s: &mut ShapeChoices| s.first_write = Some(v)) as Setter)
            .collect(),
        Dimension::ExchangeWidth => [
            ExchangeWidth::BothParts,
            ExchangeWidth::OnePartAtATime,
            ExchangeWidth::Interleaved,
        ]
        .into_iter()
        .map(|v| Box::new(move |s: &mut ShapeChoices| s.exchange_width = Some(v)) as Setter)
        .collect(),
        Dimension::PaddingSearch => [PaddingSearch::EvenRadices, PaddingSearch::AllRadices]
            .into_iter()
            .map(|v| Box::new(move |s: &mut ShapeChoices| s.padding_search = Some(v)) as Setter)
            .collect(),
        Dimension::InputCaching => [InputCaching::L1AndL2, InputCaching::L2Only]
            .into_iter()
            .map(|v| Box::new(move |s: &mut ShapeChoices| s.input_caching = Some(v)) as Setter)
            .collect(),
        // Column passes exist only in plans of several passes.
        Dimension::ColumnPasses => vec![Box::new(|_: &mut ShapeChoices| {}) as Setter],
        Dimension::RadixOrder => orders(&pass.radices())
            .into_iter()
            .map(|r| Box::new(move |s: &mut ShapeChoices| s.radices = Some(r.clone())) as Setter)
            .collect(),
        Dimension::Factorization | Dimension::StageGraph => {
            let planned = pass.radices();
            let stages = planned.len();
            let mut schedules = schedules(pass.n, stages.saturating_sub(1).max(1), stages + 1);
            let mut sorted = planned.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            // The plan's own schedule stays as pinned, in its own order.
            schedules.retain(|r| *r != sorted);
            let keep: Setter = Box::new(|_: &mut ShapeChoices| {});
            std::iter::once(keep)
                .chain(schedules.into_iter().map(|r| {
                    Box::new(move |s: &mut ShapeChoices| {
                        s.radices = Some(r.clone());
                        s.threads_per_fft = None;
                        s.ffts_per_block = None;
                        s.min_blocks_per_sm = None;
                    }) as Setter
                }))
                .collect()
        }
        Dimension::Threads => {
            let most = (pass.n / pass.radices().into_iter().min().unwrap_or(pass.n))
                .min(target.max_threads_per_block);
            let t = pass.threads_per_fft;
            let mut threads = vec![t.div_ceil(2), t, 2 * t];
            threads.retain(|&c| (1..=most).contains(&c));
            threads.dedup();
            let planned = t;
            threads
                .into_iter()
                .map(|t| {
                    Box::new(move |s: &mut ShapeChoices| {
                        if t != planned {
                            s.threads_per_fft = Some(t);
                            // The planner fills a block for the new count
                            // and bounds it anew (six blocks of 243 threads
                            // fit an SM, six of 486 do not).
                            s.ffts_per_block = None;
                            s.min_blocks_per_sm = None;
                        }
                    }) as Setter
                })
                .collect()
        }
    }
}

/// The plan `planned` of several passes (first) and its variants: each
/// split of its longest axis with one or two passes of one small radix step
/// (8, 16, 32 or 64 points) first or last, the global-memory FFT's passes
/// of seed 000 IV.A, and into two passes of 1024 to 4096 points last, each
/// with its columns through a shared-memory tile and straight through
/// registers; then three passes of tiled columns, the longest first, the
/// first two of 256 to 4096 points (the only splits of sizes past what two
/// passes hold). Those that repeat another's code are dropped by the caller.
pub fn split_candidates(planned: &Plan, target: &Target) -> Vec<ShapeChoices> {
    let base = ShapeChoices::pinned_plan(planned);
    let n = planned.shape.iter().copied().max().unwrap_or(1);
    // Every pass of a split axis reads or writes strided points.
    let longest = super::multipass::column_limit(planned.precision, target);
    let mut splits: Vec<Vec<usize>> = Vec::new();
    let add_to = |splits: &mut Vec<Vec<usize>>, split: Vec<usize>| {
        let fits = split.iter().all(|&f| (2..=longest).contains(&f));
        if fits && split.iter().product::<usize>() == n && !splits.contains(&split) {
            splits.push(split);
        }
    };
    let mut add = |split: Vec<usize>| add_to(&mut splits, split);
    if let Some(split) = &base.split {
        add(split.clone());
    }
    for step in [8, 16, 32, 64] {
        if n % step == 0 {
            add(vec![step, n / step]);
            add(vec![n / step, step]);
        }
        if n % (step * step) == 0 {
            add(vec![step, step, n / (step * step)]);
            add(vec![n / (step * step), step, step]);
        }
    }
    for last in [1024, 2048, 4096] {
        if n % last == 0 {
            add(vec![n / last, last]);
        }
    }
    let two_or_fewer = splits.len();
    let column_lengths = [4096, 2048, 1024, 512, 256];
    for &first in &column_lengths {
        for &second in column_lengths.iter().filter(|&&l| l <= first) {
            let third = n / (first * second);
            if n % (first * second) == 0 && (8..=second).contains(&third) {
                add_to(&mut splits, vec![first, second, third]);
            }
        }
    }
    let mut shapes = vec![base.clone()];
    for (i, split) in splits.into_iter().enumerate() {
        let column_ios: &[ColumnIo] = match i < two_or_fewer {
            true => &[ColumnIo::Tile, ColumnIo::Global],
            false => &[ColumnIo::Tile],
        };
        for &column_io in column_ios {
            let shape = ShapeChoices {
                split: Some(split.clone()),
                column_io: Some(column_io),
                ..ShapeChoices::default()
            };
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
    }
    shapes
}

/// The distinct orders of `radices`, the given one first.
fn orders(radices: &[usize]) -> Vec<Vec<usize>> {
    let mut sorted = radices.to_vec();
    sorted.sort_unstable();
    let mut all = vec![radices.to_vec()];
    // Lexicographic permutations of the sorted multiset visit each distinct
    // order once.
    loop {
        if sorted != radices {
            all.push(sorted.clone());
        }
        let Some(i) = (1..sorted.len()).rev().find(|&i| sorted[i - 1] < sorted[i]) else {
            return all;
        };
        let j = (i..sorted.len())
            .rev()
            .find(|&j| sorted[j] > sorted[i - 1])
            .expect("a larger element follows position i - 1");
        sorted.swap(i - 1, j);
        sorted[i..].reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan;
    use crate::{FftSpec, Precision};

    fn pass(spec: FftSpec) -> Pass {
        plan(&spec).unwrap().passes[0].clone()
    }

    #[test]
    fn sizes_past_two_passes_try_balanced_three_pass_splits() {
        let spec = FftSpec::new(1 << 27).target(Target::H200);
        let planned = plan(&spec).unwrap();
        let splits: Vec<Vec<usize>> = split_candidates(&planned, &Target::H200)
            .into_iter()
            .filter_map(|c| c.split)
            .collect();
        for split in [
            vec![512, 512, 512],
            vec![1024, 1024, 128],
            vec![4096, 4096, 8],
        ] {
            assert!(splits.contains(&split), "{split:?} in {splits:?}");
        }
        // Tiled columns only: once each.
        let count = splits.iter().filter(|s| **s == [1024, 1024, 128]).count();
        assert_eq!(count, 1);
    }

    #[test]
    fn candidates_start_with_the_plan_and_cover_every_combination() {
        let planned = pass(FftSpec::new(2401).target(Target::H200));
        let all = candidates(&planned, &Dimension::DEFAULT, &Target::H200);
        assert_eq!(all[0], ShapeChoices::pinned(&planned));
        // Bound 5: 4, 5, 6, 7; three exchange widths; two values for each
        // of three other choices.
        assert_eq!(all.len(), 4 * 2 * 3 * 2 * 2);
        let distinct: std::collections::HashSet<String> =
            all.iter().map(|s| s.to_string()).collect();
        assert_eq!(distinct.len(), all.len());
        assert!(all
            .iter()
            .all(|s| s.radices == Some(vec![7, 7, 7, 7]) && s.threads_per_fft == Some(343)));
        // Bounds stay within what an SM takes.
        let bound_one = pass(FftSpec::new(2).radices(&[2]));
        let bounds: Vec<_> = candidates(&bound_one, &[Dimension::Bound], &Target::H200)
            .iter()
            .map(|s| s.min_blocks_per_sm.unwrap())
            .collect();
        assert_eq!(bounds, vec![1, 2, 3]);
        assert_eq!(
            candidates(&planned, &[], &Target::H200),
            vec![ShapeChoices::pinned(&planned)]
        );
    }

    #[test]
    fn radix_orders_and_thread_counts() {
        assert_eq!(orders(&[7, 7, 7, 7]), vec![vec![7, 7, 7, 7]]);
        assert_eq!(
            orders(&[9, 3, 9, 9]),
            vec![
                vec![9, 3, 9, 9],
                vec![3, 9, 9, 9],
                vec![9, 9, 3, 9],
                vec![9, 9, 9, 3]
            ]
        );
        assert_eq!(orders(&[20, 20, 10]).len(), 3);
        assert_eq!(orders(&[2, 3, 5]).len(), 6);
        let planned = pass(FftSpec::new(2187).target(Target::H200));
        let threads: Vec<_> = candidates(&planned, &[Dimension::Threads], &Target::H200)
            .iter()
            .map(|s| s.threads_per_fft.unwrap())
            .collect();
        // 243 planned; 486 is at most the radix-3 stage's 729 butterflies.
        assert_eq!(threads, vec![243, 122, 486]);
        let all = candidates(
            &planned,
            &[Dimension::RadixOrder, Dimension::Threads],
            &Target::H200,
        );
        assert_eq!(all.len(), 4 * 3);
        // Every combination plans.
        for shape in &all {
            plan(
                &FftSpec::new(2187)
                    .target(Target::H200)
                    .choices(shape.clone()),
            )
            .unwrap();
        }
    }

    #[test]
    fn other_factorizations_are_planned_afresh() {
        let spec = FftSpec::new(128)
            .precision(Precision::F64)
            .target(Target::H200);
        let planned = pass(spec.clone());
        assert_eq!(planned.radices(), vec![32, 4]);
        let all = candidates(&planned, &[Dimension::Factorization], &Target::H200);
        assert_eq!(all[0], ShapeChoices::pinned(&planned));
        let radices: Vec<Vec<usize>> = all.iter().map(|s| s.radices.clone().unwrap()).collect();
        // One to three stages, the plan's multiset only once.
        assert!(radices.contains(&vec![16, 8]));
        assert!(radices.contains(&vec![8, 4, 4]));
        assert!(!radices.contains(&vec![4, 32]));
        assert!(radices.iter().all(|r| (1..=3).contains(&r.len())));
        for shape in &all[1..] {
            assert_eq!(shape.threads_per_fft, None);
            assert_eq!(shape.min_blocks_per_sm, None);
        }
        // With threads varied too, the new schedules come first and keep
        // the planner's count as one of the three.
        let both = candidates(
            &planned,
            &[Dimension::Threads, Dimension::Factorization],
            &Target::H200,
        );
        assert!(both
            .iter()
            .any(|s| s.radices == Some(vec![16, 8]) && s.threads_per_fft.is_none()));
        assert!(both.len() > all.len());
        for shape in all
            .iter()
            .filter(|s| s.radices.as_ref().unwrap().len() <= 2)
        {
            plan(&spec.clone().choices(shape.clone())).unwrap();
        }
        assert_eq!(
            "factorization".parse::<Dimension>(),
            Ok(Dimension::Factorization)
        );
    }

    #[test]
    fn a_pinned_shape_plans_the_same_pass() {
        for spec in [
            FftSpec::new(2401).target(Target::H200),
            FftSpec::new(1331).target(Target::H200),
            FftSpec::new(64),
            FftSpec::new(4096).precision(Precision::F64),
        ] {
            let planned = pass(spec.clone());
            let again = pass(spec.choices(ShapeChoices::pinned(&planned)));
            assert_eq!(again, planned);
        }
    }
}
