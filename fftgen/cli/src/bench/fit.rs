//! Fitting the one-kernel cost model ([`fftgen::plan::CostModel`]) to
//! measured schedules: the rows of `fftgen tune --vary factorization`
//! reports, each a size's schedules timed against the copy in one process.
//! The sizes are split in two halves (alternately by length): the model is
//! fitted on one and judged on the other by how much slower its pick of
//! each held-out size ran than that size's fastest schedule, beside the
//! planner's own ranking; the model written is then fitted on all of them
//! (STYLE.md 18: judge a model on samples it was not fitted on).

use fftgen::plan::pass_planner::max_size;
use fftgen::plan::{CostModel, ScheduleFeatures};
use fftgen::Precision;
use serde_json::Value;
use std::collections::BTreeMap;

/// Most complex values a thread of a planned one-kernel schedule holds:
/// the schedules the planner may launch, which the model ranks.
const MAX_VALUES: [(Precision, usize); 2] = [(Precision::F32, 32), (Precision::F64, 16)];

/// One timed schedule of a size.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub n: usize,
    pub radices: Vec<usize>,
    pub threads: usize,
    pub blocks: usize,
    /// Its time over the copy's of the same bytes.
    pub time_over_copy: f64,
    /// Whether it was the planner's own shape (the report's first variant).
    pub planned: bool,
}

impl Sample {
    fn features(&self, warp_size: usize) -> ScheduleFeatures {
        ScheduleFeatures::of(&self.radices, self.threads, self.blocks, warp_size)
    }
}

/// The one-kernel schedules of `precision` in a tune report (JSON), past
/// [`max_size`], that passed their check and that the planner may launch
/// (radices to 27 or powers of two, at most [`MAX_VALUES`] a thread).
pub fn samples(report: &Value, precision: Precision) -> Result<Vec<Sample>, String> {
    let rows = report["rows"]
        .as_array()
        .ok_or("the report has no rows: give a `fftgen tune` JSON report")?;
    let max_values = MAX_VALUES
        .iter()
        .find(|(p, _)| *p == precision)
        .map_or(32, |m| m.1);
    let mut samples = Vec::new();
    for row in rows {
        let n = row["n"].as_u64().ok_or("a row has no n")? as usize;
        let copy = row["copy"]["median_ms"]
            .as_f64()
            .ok_or("a row has no copy time")?;
        if row["precision"].as_str() != Some(&precision.to_string()) || n <= max_size(precision) {
            continue;
        }
        let variants = row["variants"].as_array().ok_or("a row has no variants")?;
        for (i, variant) in variants.iter().enumerate() {
            let choices = &variant["choices"];
            let number = |key: &str| choices[key].as_u64().map(|v| v as usize);
            let radices: Option<Vec<usize>> = choices["radix"].as_array().map(|r| {
                r.iter()
                    .filter_map(|v| v.as_u64().map(|v| v as usize))
                    .collect()
            });
            let (Some(radices), Some(threads), Some(blocks), Some(ms)) = (
                radices,
                number("threads-per-fft"),
                number("min-blocks-per-sm"),
                variant["timing"]["median_ms"].as_f64(),
            ) else {
                continue;
            };
            let one_fft = number("ffts-per-block").is_none_or(|f| f == 1);
            let launchable = radices.iter().all(|&r| r <= 27 || r.is_power_of_two())
                && fftgen::plan::radix::values_per_thread(n, &radices, threads) <= max_values;
            if variant["passed"].as_bool() == Some(true) && one_fft && launchable {
                samples.push(Sample {
                    n,
                    radices,
                    threads,
                    blocks,
                    time_over_copy: ms / copy,
                    planned: i == 0,
                });
            }
        }
    }
    Ok(samples)
}

/// How a model's picks did on sizes it was not fitted to: per size, how
/// much slower its pick ran than the fastest schedule (0.05: 5%), and the
/// same for the planner's own shape where the report holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOut {
    pub sizes: Vec<usize>,
    pub model_loss: Vec<f64>,
    pub planner_loss: Vec<f64>,
}

impl HeldOut {
    pub fn mean(losses: &[f64]) -> f64 {
        losses.iter().sum::<f64>() / losses.len().max(1) as f64
    }

    pub fn worst(losses: &[f64]) -> f64 {
        losses.iter().copied().fold(0.0, f64::max)
    }
}

/// The samples grouped by size, ascending.
fn by_size(samples: &[Sample]) -> BTreeMap<usize, Vec<&Sample>> {
    let mut sizes: BTreeMap<usize, Vec<&Sample>> = BTreeMap::new();
    for sample in samples {
        sizes.entry(sample.n).or_default().push(sample);
    }
    sizes
}

/// The model fitted on every other size of `samples` (the first, third,
/// ... by length) and its picks on the others; `None` where a half does
/// not determine a model.
pub fn fit_on_half(
    samples: &[Sample],
    precision: Precision,
    warp_size: usize,
) -> Option<(CostModel, HeldOut)> {
    let sizes = by_size(samples);
    let (fit, held): (Vec<_>, Vec<_>) = sizes.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let training: Vec<_> = fit
        .iter()
        .flat_map(|(_, (_, group))| group.iter())
        .map(|s| (s.features(warp_size), s.time_over_copy))
        .collect();
    let model = CostModel::fit(precision, &training)?;
    let mut report = HeldOut {
        sizes: Vec::new(),
        model_loss: Vec::new(),
        planner_loss: Vec::new(),
    };
    for (_, (&n, group)) in held {
        let fastest = group
            .iter()
            .map(|s| s.time_over_copy)
            .fold(f64::MAX, f64::min);
        let pick = group.iter().min_by(|a, b| {
            model
                .predict(&a.features(warp_size))
                .total_cmp(&model.predict(&b.features(warp_size)))
        })?;
        report.sizes.push(n);
        report.model_loss.push(pick.time_over_copy / fastest - 1.0);
        if let Some(planned) = group.iter().find(|s| s.planned) {
            report
                .planner_loss
                .push(planned.time_over_copy / fastest - 1.0);
        }
    }
    Some((model, report))
}

/// The model fitted on every sample.
pub fn fit_all(samples: &[Sample], precision: Precision, warp_size: usize) -> Option<CostModel> {
    let training: Vec<_> = samples
        .iter()
        .map(|s| (s.features(warp_size), s.time_over_copy))
        .collect();
    CostModel::fit(precision, &training)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Timings a known model gives, with the planner's shape the slowest.
    fn synthetic(known: &CostModel) -> Vec<Sample> {
        let schedules: [(usize, &[usize], usize, usize); 8] = [
            (6804, &[27, 14, 9, 2], 252, 3),
            (6804, &[27, 18, 14], 252, 2),
            (6930, &[21, 11, 10, 3], 330, 2),
            (6930, &[30, 21, 11], 231, 2),
            (8624, &[14, 14, 11, 2, 2], 616, 1),
            (8624, &[28, 11, 7, 4], 308, 2),
            (4212, &[18, 18, 13], 234, 3),
            (4212, &[18, 13, 9, 2], 234, 3),
        ];
        schedules
            .iter()
            .enumerate()
            .map(|(i, &(n, radices, threads, blocks))| {
                let features = ScheduleFeatures::of(radices, threads, blocks, 32);
                Sample {
                    n,
                    radices: radices.to_vec(),
                    threads,
                    blocks,
                    time_over_copy: known.predict(&features),
                    planned: i % 2 == 0,
                }
            })
            .collect()
    }

    #[test]
    fn a_fit_to_a_models_timings_recovers_it_and_picks_the_fastest() {
        let known = CostModel {
            precision: Precision::F32,
            intercept: 0.5,
            per_stage: 0.15,
            per_thread_scarcity: 0.12,
            min_resident_blocks: 1,
            evidence: Vec::new(),
        };
        let samples = synthetic(&known);
        let all = fit_all(&samples, Precision::F32, 32).unwrap();
        assert!((all.per_stage - known.per_stage).abs() < 1e-9);
        assert!((all.per_thread_scarcity - known.per_thread_scarcity).abs() < 1e-9);
        let (_, held) = fit_on_half(&samples, Precision::F32, 32).unwrap();
        assert_eq!(held.sizes.len(), 2);
        assert!(HeldOut::worst(&held.model_loss) < 1e-9);
    }

    #[test]
    fn reports_give_their_launchable_one_kernel_schedules() {
        let report: Value = serde_json::from_str(
            r#"{"rows": [{"n": 6804, "precision": "f32", "copy": {"median_ms": 0.7},
                "variants": [
                  {"choices": {"radix": [27, 14, 9, 2], "threads-per-fft": 252, "min-blocks-per-sm": 3},
                   "passed": true, "timing": {"median_ms": 1.0}},
                  {"choices": {"radix": [28, 18, 14], "threads-per-fft": 243, "min-blocks-per-sm": 2},
                   "passed": true, "timing": {"median_ms": 0.8}},
                  {"choices": {"radix": [27, 18, 14], "threads-per-fft": 252, "min-blocks-per-sm": 2},
                   "passed": false, "timing": {"median_ms": 0.7}}]},
               {"n": 4096, "precision": "f32", "copy": {"median_ms": 0.7}, "variants": []}]}"#,
        )
        .unwrap();
        let samples = samples(&report, Precision::F32).unwrap();
        // Radix 28 is not launched by the planner; a failed check is no timing.
        assert_eq!(samples.len(), 1);
        assert!(samples[0].planned);
        assert!((samples[0].time_over_copy - 1.0 / 0.7).abs() < 1e-12);
        assert!(super::samples(&Value::Null, Precision::F32).is_err());
    }
}
