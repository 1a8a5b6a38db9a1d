//! The cost model of a one-kernel pass: the time a radix schedule over a
//! number of threads takes, relative to a device-to-device copy of the same
//! bytes, predicted from what the kernel does (seed 000 section IV.B: each
//! Stockham stage is one exchange through shared memory and two barriers,
//! and the threads resident on an SM are what hides the memory latency).
//! The features:
//!
//! - **stages**: each an exchange of every point through shared memory
//!   and a wait at two barriers;
//! - **thread scarcity**: 1024 over the threads resident on an SM (the
//!   blocks the registers, shared memory and threads admit, times the
//!   threads of a block rounded to whole warps).
//!
//! The coefficients are fitted by least squares to measured schedules
//! (`fftgen tune --vary factorization`) per GPU model and kept in that
//! model's wisdom file ([`super::WisdomFile::model`]); the planner ranks
//! the schedules it may launch by this prediction (as FFTW's estimate
//! ranks its solvers), and per-size wisdom entries stay for where the
//! prediction is measured wrong. STYLE.md 16 and 18.

use crate::Precision;
use serde::{Deserialize, Serialize};

/// Coefficients of the one-kernel cost model, fitted on one GPU model.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CostModel {
    /// The precision of the schedules it was fitted to: it ranks those
    /// alone (registers and shared memory per point differ in the other).
    pub precision: Precision,
    /// Time over the copy's of a kernel of no stages and unbounded threads.
    pub intercept: f64,
    /// Per stage.
    pub per_stage: f64,
    /// Per unit of thread scarcity (1024 / threads resident per SM).
    pub per_thread_scarcity: f64,
    /// The fewest blocks per SM of the planner's own choice for which the
    /// model ranks the schedules: the sizes whose choice holds an SM alone
    /// ran up to 1.5x slower on the model's pick than on the planner's
    /// rules in the sizes held out of the fit (docs/bench/h100_cost_model_holdout.txt).
    #[serde(default = "one_block")]
    pub min_resident_blocks: usize,
    /// The measurements it was fitted to (logs or JSON reports), and how
    /// well it ranked the shapes it was not fitted to.
    #[serde(default)]
    pub evidence: Vec<String>,
}

fn one_block() -> usize {
    1
}

/// Coefficients compare by their bits: two files agree on a model only
/// where they hold the same numbers.
impl PartialEq for CostModel {
    fn eq(&self, other: &Self) -> bool {
        self.coefficients()
            .iter()
            .zip(other.coefficients())
            .all(|(a, b)| a.to_bits() == b.to_bits())
            && self.precision == other.precision
            && self.min_resident_blocks == other.min_resident_blocks
            && self.evidence == other.evidence
    }
}

impl Eq for CostModel {}

/// What the model reads of a schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScheduleFeatures {
    pub stages: f64,
    pub thread_scarcity: f64,
}

impl ScheduleFeatures {
    /// The features of `radices` over `threads` threads a block, `blocks`
    /// blocks resident on an SM of warps of `warp_size` threads.
    pub fn of(
        radices: &[usize],
        threads: usize,
        blocks: usize,
        warp_size: usize,
    ) -> ScheduleFeatures {
        let resident = blocks.max(1) * threads.div_ceil(warp_size) * warp_size;
        ScheduleFeatures {
            stages: radices.len() as f64,
            thread_scarcity: 1024.0 / resident as f64,
        }
    }
}

impl CostModel {
    /// The coefficients in the order [`CostModel::fit`] takes features.
    fn coefficients(&self) -> [f64; 3] {
        [self.intercept, self.per_stage, self.per_thread_scarcity]
    }

    /// The row of the least-squares system for `features`.
    fn row(features: &ScheduleFeatures) -> [f64; 3] {
        [1.0, features.stages, features.thread_scarcity]
    }

    /// Predicted time of the schedule over the copy's.
    pub fn predict(&self, features: &ScheduleFeatures) -> f64 {
        Self::row(features)
            .iter()
            .zip(self.coefficients())
            .map(|(x, c)| x * c)
            .sum()
    }

    /// Predicted time of `passes` run one after another, over a copy's of
    /// one pass's bytes: the sum of each pass's prediction. It ranks plans
    /// of as many passes (the splits of an axis, plan/multipass.rs and
    /// plan/real.rs).
    pub fn passes_time<'a>(
        &self,
        passes: impl IntoIterator<Item = &'a super::Pass>,
        warp_size: usize,
    ) -> f64 {
        passes
            .into_iter()
            .map(|pass| {
                self.predict(&ScheduleFeatures::of(
                    &pass.radices(),
                    pass.threads_per_fft * pass.ffts_per_block,
                    pass.min_blocks_per_sm,
                    warp_size,
                ))
            })
            .sum()
    }

    /// The least-squares fit of `samples` (features, time over the copy's),
    /// or `None` where they do not determine the coefficients (fewer
    /// samples than coefficients, or features that do not vary).
    pub fn fit(precision: Precision, samples: &[(ScheduleFeatures, f64)]) -> Option<CostModel> {
        // Normal equations, A^T A c = A^T y, solved by Gaussian elimination
        // with partial pivoting: three unknowns.
        let mut normal = [[0.0f64; 4]; 3];
        for (features, time) in samples {
            let row = Self::row(features);
            for i in 0..3 {
                for j in 0..3 {
                    normal[i][j] += row[i] * row[j];
                }
                normal[i][3] += row[i] * time;
            }
        }
        let c = solve(normal)?;
        Some(CostModel {
            precision,
            intercept: c[0],
            per_stage: c[1],
            per_thread_scarcity: c[2],
            min_resident_blocks: 1,
            evidence: Vec::new(),
        })
    }
}

/// Coefficients of the model of whole plans, fitted on one GPU model: a
/// plan's time over a copy of one pass's bytes is the sum over its passes
/// of a cost per pass, per stage, per unit of thread scarcity (more so in
/// f64) and per pass that reads or writes a tile of columns. Fitted to the
/// plans of a random sample (`scripts/fit_passes.py`), it ranks the splits
/// of an axis into as many passes, which the one-kernel model, blind to
/// columns and fitted to FFTs of thousands of points in one kernel, ranked
/// wrong at as many shapes as right (plan/multipass.rs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PlanModel {
    /// The precision whose plans it ranks: in f32 its picks ran slower
    /// than the most even split at six shapes of six
    /// (docs/bench/h200_ab_plan_model.log).
    pub precision: Precision,
    pub per_pass: f64,
    pub per_stage: f64,
    pub per_thread_scarcity: f64,
    /// Added to `per_thread_scarcity` in f64 passes.
    pub per_f64_thread_scarcity: f64,
    pub per_column_pass: f64,
    /// The measurements it was fitted to, and how well it ranked the
    /// plans it was not fitted to.
    #[serde(default)]
    pub evidence: Vec<String>,
}

impl Eq for PlanModel {}

impl PlanModel {
    /// Predicted time of `passes` of `precision` over a copy of one pass's
    /// bytes, on SMs of warps of `warp_size` threads.
    pub fn plan_time<'a>(
        &self,
        passes: impl IntoIterator<Item = &'a super::Pass>,
        precision: Precision,
        warp_size: usize,
    ) -> f64 {
        let scarcity_cost = self.per_thread_scarcity
            + match precision {
                Precision::F64 => self.per_f64_thread_scarcity,
                _ => 0.0,
            };
        passes
            .into_iter()
            .map(|pass| {
                let features = ScheduleFeatures::of(
                    &pass.radices(),
                    pass.threads_per_block,
                    pass.min_blocks_per_sm,
                    warp_size,
                );
                let column = [pass.io, pass.output_io].contains(&super::GlobalIo::ColumnTile);
                self.per_pass
                    + self.per_stage * features.stages
                    + scarcity_cost * features.thread_scarcity
                    + if column { self.per_column_pass } else { 0.0 }
            })
            .sum()
    }
}

/// The solution of the 3x3 system `augmented` (each row its three
/// coefficients and its right-hand side), if it is not singular.
fn solve(mut augmented: [[f64; 4]; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3)
            .max_by(|&a, &b| augmented[a][col].abs().total_cmp(&augmented[b][col].abs()))?;
        if augmented[pivot][col].abs() < 1e-12 {
            return None;
        }
        augmented.swap(col, pivot);
        for row in 0..3 {
            if row != col {
                let factor = augmented[row][col] / augmented[col][col];
                for k in col..4 {
                    augmented[row][k] -= factor * augmented[col][k];
                }
            }
        }
    }
    Some(std::array::from_fn(|i| augmented[i][3] / augmented[i][i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_count_stages_and_resident_threads() {
        // 6804 as 27 x 14 x 9 x 2 over 252 threads, three blocks an SM:
        // 3 x 256 threads resident.
        let f = ScheduleFeatures::of(&[27, 14, 9, 2], 252, 3, 32);
        assert_eq!(f.stages, 4.0);
        assert_eq!(f.thread_scarcity, 1024.0 / 768.0);
    }

    #[test]
    fn the_fit_recovers_known_coefficients() {
        let known = CostModel {
            precision: Precision::F32,
            intercept: 0.48,
            per_stage: 0.16,
            per_thread_scarcity: 0.13,
            min_resident_blocks: 1,
            evidence: Vec::new(),
        };
        let schedules: [(&[usize], usize, usize); 5] = [
            (&[27, 14, 9, 2], 252, 3),
            (&[27, 18, 14], 252, 2),
            (&[21, 11, 10, 3], 330, 2),
            (&[14, 14, 11, 2, 2], 616, 1),
            (&[18, 18, 13], 234, 3),
        ];
        let samples: Vec<_> = schedules
            .iter()
            .map(|&(radices, threads, blocks)| {
                let f = ScheduleFeatures::of(radices, threads, blocks, 32);
                (f, known.predict(&f))
            })
            .collect();
        let fitted = CostModel::fit(Precision::F32, &samples).unwrap();
        for (a, b) in fitted.coefficients().iter().zip(known.coefficients()) {
            assert!((a - b).abs() < 1e-9, "{a} against {b}");
        }
        // Too few samples determine nothing.
        assert!(CostModel::fit(Precision::F32, &samples[..2]).is_none());
    }

    #[test]
    fn the_plan_model_sums_its_passes() {
        let model = PlanModel {
            precision: Precision::F64,
            per_pass: 1.0,
            per_stage: 0.25,
            per_thread_scarcity: 0.5,
            per_f64_thread_scarcity: 0.25,
            per_column_pass: 0.5,
            evidence: Vec::new(),
        };
        let spec = crate::FftSpec::new(1944000)
            .precision(Precision::F64)
            .target(crate::Target::H200);
        let plan = crate::plan::plan(&spec).unwrap();
        let expected: f64 = plan
            .passes
            .iter()
            .map(|pass| {
                let resident =
                    pass.min_blocks_per_sm.max(1) * pass.threads_per_block.div_ceil(32) * 32;
                let column = [pass.io, pass.output_io].contains(&crate::plan::GlobalIo::ColumnTile);
                1.0 + 0.25 * pass.stages.len() as f64
                    + 0.75 * 1024.0 / resident as f64
                    + if column { 0.5 } else { 0.0 }
            })
            .sum();
        let predicted = model.plan_time(&plan.passes, Precision::F64, 32);
        assert!(
            (predicted - expected).abs() < 1e-12,
            "{predicted} against {expected}"
        );
        // In f32 the f64 scarcity term drops out.
        assert!(model.plan_time(&plan.passes, Precision::F32, 32) < predicted);
    }
}
