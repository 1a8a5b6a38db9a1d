//! Measured planning, FFTW's MEASURE (Frigo and Johnson, "The Design and
//! Implementation of FFTW3", section IV: the planner times candidate plans
//! on the machine and keeps the fastest as wisdom). The estimate (the plan
//! the model picks) and its nearest variants are the candidates; the caller
//! times them on its GPU, this module spends the budget on them in the
//! order worth timing (occupancy first: the launch bound and the threads,
//! then the schedules the fitted model ranks fastest, then the exchange's
//! shape) and names the winner, which the caller keeps in a
//! [`MeasuredWisdom`] file so that the next plan of the spec costs nothing.
//!
//! The candidates are those the spec's choices can express
//! ([`ShapeChoices`]): for a one-kernel transform the launch bound, the
//! threads, other radix schedules (ranked by the fitted [`super::CostModel`]
//! where the wisdom has one) and the exchange's shape; for a plan of several
//! passes its splits and column I/O ([`super::variants`]); for one pass per
//! axis the column I/O and each long column axis split into passes. Choices
//! the user made stay made: a candidate varies only what they left open.
//! Plans through Bluestein take no choices, and measure only their estimate.

use super::variants::{self, Dimension};
use super::{ColumnIo, Plan, ScheduleFeatures, ShapeChoices, Wisdom};
use crate::{Error, FftSpec};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// How long measuring one spec may take by default: FFTW's MEASURE takes
/// seconds; a user's first plan of a shape should not.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(1);

/// Candidates a measurement considers at most, the estimate included.
pub const MOST_CANDIDATES: usize = 12;

/// Other radix schedules a one-kernel measurement tries at most.
const MOST_SCHEDULES: usize = 3;

/// One plan a measurement may time: the choices that plan it and the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The spec's choices merged with the variant's (the spec's win).
    pub choices: ShapeChoices,
    pub plan: Plan,
}

/// The estimate (first), then its distinct variants in the order worth
/// timing, at most [`MOST_CANDIDATES`]. Variants that do not plan or plan
/// the estimate's plan again are dropped.
pub fn candidates(spec: &FftSpec) -> Result<Vec<Candidate>, Error> {
    let wisdom = Wisdom::for_spec(spec.wisdom.as_deref())?;
    let estimate = super::plan_with_wisdom(spec, &wisdom)?;
    let target = spec.planned_target();
    let variants: Vec<ShapeChoices> = match estimate.passes.as_slice() {
        [pass] if spec.choices.split.is_none() => {
            let mut near = Vec::new();
            for dimension in [
                Dimension::Bound,
                Dimension::Threads,
                Dimension::Factorization,
                Dimension::ExchangeWidth,
                Dimension::FirstWrite,
                Dimension::InputCaching,
                Dimension::TwiddleTables,
            ] {
                let mut found = variants::candidates(pass, &[dimension], target);
                found.remove(0); // the estimate itself
                if dimension == Dimension::Factorization {
                    found = modelled_fastest(found, spec, &wisdom, MOST_SCHEDULES);
                }
                near.extend(found);
            }
            near
        }
        [_] => Vec::new(),
        // An axis in several passes: the splits the model ranks fastest,
        // the one pass of a narrow column, then its other splits and
        // column I/O.
        passes if passes.len() > axes(spec) => modelled_splits(spec, &estimate, &wisdom)
            .into_iter()
            .chain(column_axis_splits(spec))
            .chain(
                variants::split_candidates(&estimate, target)
                    .into_iter()
                    .skip(1),
            )
            .collect(),
        // One pass per axis, fewer than any split gives: the columns' I/O,
        // then each column axis past a tile of 32-byte runs in two or three
        // passes of tiles (H200: 8575x14336 f64, its 8575-point columns one
        // a lone block reading 16 bytes of each row, R2C / C2R 2.70 / 3.57
        // -> 2.10 / 2.15 ms as 49 x 175, docs/bench/h200_variants_2068_misses.log).
        _ => [ColumnIo::Tile, ColumnIo::Global]
            .into_iter()
            .map(|column_io| ShapeChoices {
                column_io: Some(column_io),
                ..ShapeChoices::default()
            })
            .chain(column_axis_splits(spec))
            .collect(),
    };
    let mut out = vec![Candidate {
        choices: spec.choices.clone(),
        plan: estimate,
    }];
    for variant in variants {
        if out.len() == MOST_CANDIDATES {
            break;
        }
        // The user's choices win over the variant's.
        let choices = spec.choices.or(&variant);
        let Ok(plan) = super::plan_with_wisdom(&spec.clone().choices(choices.clone()), &wisdom)
        else {
            continue;
        };
        if out.iter().all(|c| c.plan != plan) {
            out.push(Candidate { choices, plan });
        }
    }
    Ok(out)
}

/// The four-step split of each axis but the last whose one pass is past a
/// column tile ([`super::multipass::axis_split`]), in both orders, and its
/// one pass (which the estimate splits where that tile is narrow), where
/// no other axis has its length (a split names its axis by the product).
fn column_axis_splits(spec: &FftSpec) -> Vec<ShapeChoices> {
    let shape = &spec.shape;
    let target = spec.planned_target();
    let columns = &shape[..shape.len().saturating_sub(1)];
    columns
        .iter()
        .filter(|&&n| shape.iter().filter(|&&m| m == n).count() == 1)
        .filter_map(|&n| super::multipass::axis_split(n, spec.precision, target))
        // Both orders of the passes: which length runs first changes each
        // pass's tile (49 x 175 ran 3% faster than 343 x 25 there).
        .flat_map(|split| {
            let reversed: Vec<usize> = split.iter().rev().copied().collect();
            let whole = vec![split.iter().product()];
            [split, reversed, whole]
        })
        .map(|split| ShapeChoices {
            split: Some(split),
            ..ShapeChoices::default()
        })
        .collect()
}

/// Other splits of the estimate's axis of most passes into as many, the
/// [`MOST_SPLITS`] the planner's ranking ([`super::multipass::SplitRanking`])
/// predicts fastest, where the spec names no split: timing decides where
/// the model ranks wrong (H200: f64
/// 2737800 as 1352 x 2025 ran 1.03x cuFFT where the estimate was then
/// 1690 x 1620 at 0.82x, docs/bench/h200_variants_2069_misses.log).
fn modelled_splits(spec: &FftSpec, estimate: &Plan, wisdom: &Wisdom) -> Vec<ShapeChoices> {
    let target = spec.planned_target();
    let ranking = super::multipass::SplitRanking::of(Some(wisdom), target, spec.precision);
    if matches!(ranking, super::multipass::SplitRanking::None) || spec.choices.split.is_some() {
        return Vec::new();
    }
    let Some(planned) = estimate
        .axis_factors
        .iter()
        .filter(|factors| factors.len() > 1)
        .max_by_key(|factors| factors.len())
    else {
        return Vec::new();
    };
    let n: usize = planned.iter().product();
    let longest = super::multipass::column_limit(spec.precision, target);
    let mut ranked: Vec<(f64, ShapeChoices)> = super::split::splits(n, longest, planned.len())
        .into_iter()
        .filter(|split| split != planned && super::multipass::comparable(split, planned))
        .take(super::multipass::RANKED_SPLITS)
        .filter_map(|split| {
            let choices = ShapeChoices {
                split: Some(split),
                ..ShapeChoices::default()
            };
            let plan = super::plan_with_wisdom(&spec.clone().choices(choices.clone()), wisdom);
            Some((ranking.time(&plan.ok()?.passes), choices))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    ranked
        .into_iter()
        .take(MOST_SPLITS)
        .map(|(_, c)| c)
        .collect()
}

/// Splits the fitted model ranks that a measurement of several passes tries.
const MOST_SPLITS: usize = 3;

/// Axes of more than one point.
fn axes(spec: &FftSpec) -> usize {
    spec.shape.iter().filter(|&&n| n > 1).count()
}

/// The `most` of `schedules` (choices that name radices and leave the
/// threads to the planner) that the fitted model predicts fastest, where
/// the wisdom holds a model for the spec's precision; else the first `most`.
fn modelled_fastest(
    schedules: Vec<ShapeChoices>,
    spec: &FftSpec,
    wisdom: &Wisdom,
    most: usize,
) -> Vec<ShapeChoices> {
    let target = spec.planned_target();
    let Some(model) = wisdom
        .model(target)
        .filter(|model| model.precision == spec.precision)
    else {
        return schedules.into_iter().take(most).collect();
    };
    let mut ranked: Vec<(f64, ShapeChoices)> = schedules
        .into_iter()
        .filter_map(|choices| {
            let plan = super::plan_with_wisdom(&spec.clone().choices(choices.clone()), wisdom);
            let pass = plan.ok()?.passes.into_iter().next()?;
            let features = ScheduleFeatures::of(
                &pass.radices(),
                pass.threads_per_fft * pass.ffts_per_block,
                pass.min_blocks_per_sm,
                target.warp_size,
            );
            Some((model.predict(&features), choices))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    ranked.into_iter().take(most).map(|(_, c)| c).collect()
}

/// What timing one candidate gave: its time per launch and the wall time
/// the trial took (compiling included), which the budget counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trial {
    pub milliseconds: f64,
    pub spent: Duration,
}

/// One candidate's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timed {
    pub choices: ShapeChoices,
    /// Milliseconds per launch; `None` where the trial failed.
    pub milliseconds: Option<f64>,
    /// Why the trial failed, where it did (a kernel the driver refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// A measurement: every candidate timed, in order, the estimate first.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub timed: Vec<Timed>,
    /// Index in `timed` of the fastest.
    pub fastest: usize,
    /// Candidates left untimed when the budget ran out.
    pub untimed: usize,
    /// Wall time the trials took.
    pub spent: Duration,
}

impl Measurement {
    /// The fastest candidate's outcome.
    pub fn winner(&self) -> &Timed {
        &self.timed[self.fastest]
    }

    /// The estimate's time over the winner's: 1 where the model was right.
    pub fn speedup(&self) -> f64 {
        let time = |t: &Timed| {
            t.milliseconds
                .expect("the estimate and the winner were timed")
        };
        time(&self.timed[0]) / time(self.winner())
    }
}

/// Times `candidates` in order with `trial` until `budget` is spent (the
/// estimate always, whatever its cost), and names the fastest. A trial that
/// fails past the estimate is recorded and skipped; the estimate's failure
/// is returned, since no plan of the spec would run then.
pub fn measure<E: fmt::Display>(
    candidates: &[Candidate],
    budget: Duration,
    mut trial: impl FnMut(&Candidate) -> Result<Trial, E>,
) -> Result<Measurement, E> {
    let mut timed = Vec::new();
    let mut spent = Duration::ZERO;
    for (i, candidate) in candidates.iter().enumerate() {
        if i > 0 && spent >= budget {
            break;
        }
        let outcome = match trial(candidate) {
            Ok(t) => {
                spent += t.spent;
                Timed {
                    choices: candidate.choices.clone(),
                    milliseconds: Some(t.milliseconds),
                    failure: None,
                }
            }
            Err(e) if i == 0 => return Err(e),
            Err(e) => Timed {
                choices: candidate.choices.clone(),
                milliseconds: None,
                failure: Some(e.to_string()),
            },
        };
        timed.push(outcome);
    }
    let fastest = (0..timed.len())
        .filter_map(|i| Some((i, timed[i].milliseconds?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
        .expect("the estimate was timed");
    Ok(Measurement {
        untimed: candidates.len() - timed.len(),
        timed,
        fastest,
        spent,
    })
}

/// The winners measured on one GPU model and driver: a per-user cache
/// (FFTW's wisdom file), kept by the runtime under the user's cache
/// directory. An entry is the whole spec as asked (its choices, target and
/// wisdom file included) and the choices that won.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredWisdom {
    /// The GPU model the entries were timed on (`H100 80GB HBM3`).
    pub gpu: String,
    /// The driver they were timed with (CUDA's version number, `13000`).
    pub driver: String,
    /// The generator that planned them ([`crate::VERSION`]): another
    /// version's choices may plan other kernels, or none.
    #[serde(default)]
    pub generator: String,
    pub entries: Vec<MeasuredEntry>,
}

/// One spec's measured winner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredEntry {
    /// The spec as asked, as its JSON.
    pub spec: serde_json::Value,
    /// The choices that plan the winner.
    pub choices: ShapeChoices,
    /// The winner's and the estimate's milliseconds per launch.
    pub milliseconds: f64,
    pub estimate_milliseconds: f64,
    /// Candidates timed.
    pub timed: usize,
}

impl MeasuredWisdom {
    /// Entries at most: past it the oldest goes.
    pub const CAPACITY: usize = 4096;

    /// An empty file for `gpu` and `driver`.
    pub fn new(gpu: &str, driver: &str) -> MeasuredWisdom {
        MeasuredWisdom {
            gpu: gpu.to_string(),
            driver: driver.to_string(),
            generator: crate::VERSION.to_string(),
            entries: Vec::new(),
        }
    }

    /// The file at `path`, or an empty one for `gpu` and `driver` where it
    /// is missing, unreadable or of another GPU, driver or generator (a cache: what it
    /// cannot use it measures again).
    pub fn load_or_new(path: &Path, gpu: &str, driver: &str) -> MeasuredWisdom {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str::<MeasuredWisdom>(&text).ok())
            .filter(|file| {
                file.gpu == gpu && file.driver == driver && file.generator == crate::VERSION
            })
            .unwrap_or_else(|| MeasuredWisdom::new(gpu, driver))
    }

    /// The winner measured for `spec`, if one was.
    pub fn lookup(&self, spec: &FftSpec) -> Option<&MeasuredEntry> {
        let key = spec_value(spec);
        self.entries.iter().rev().find(|entry| entry.spec == key)
    }

    /// Forgets the entry of `spec` (one whose choices no longer plan).
    pub fn forget(&mut self, spec: &FftSpec) {
        let key = spec_value(spec);
        self.entries.retain(|entry| entry.spec != key);
    }

    /// Records `measurement`'s winner for `spec`, replacing an older entry.
    pub fn record(&mut self, spec: &FftSpec, measurement: &Measurement) {
        let key = spec_value(spec);
        self.entries.retain(|entry| entry.spec != key);
        if self.entries.len() == Self::CAPACITY {
            self.entries.remove(0);
        }
        let winner = measurement.winner();
        self.entries.push(MeasuredEntry {
            spec: key,
            choices: winner.choices.clone(),
            milliseconds: winner.milliseconds.expect("the winner was timed"),
            estimate_milliseconds: measurement.timed[0]
                .milliseconds
                .expect("the estimate was timed"),
            timed: measurement.timed.len(),
        });
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("measured wisdom always serialises") + "\n"
    }
}

fn spec_value(spec: &FftSpec) -> serde_json::Value {
    serde_json::to_value(spec).expect("a spec always serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Precision, Target};

    fn trial_of(
        times: &[f64],
        cost_ms: u64,
    ) -> impl FnMut(&Candidate) -> Result<Trial, String> + '_ {
        let mut next = 0;
        move |_| {
            let ms = times[next];
            next += 1;
            match ms.is_nan() {
                true => Err("refused".to_string()),
                false => Ok(Trial {
                    milliseconds: ms,
                    spent: Duration::from_millis(cost_ms),
                }),
            }
        }
    }

    #[test]
    fn one_kernel_candidates_start_with_the_estimate_and_vary_what_is_open() {
        let spec = FftSpec::new(2187).target(Target::H100);
        let all = candidates(&spec).unwrap();
        assert_eq!(all[0].plan, crate::plan::plan(&spec).unwrap());
        assert!(
            all.len() > 4 && all.len() <= MOST_CANDIDATES,
            "{}",
            all.len()
        );
        for (i, a) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|b| b.plan != a.plan), "repeated plan");
            assert_eq!(
                a.plan,
                crate::plan::plan(&spec.clone().choices(a.choices.clone())).unwrap()
            );
        }
        // A bound the user pinned stays pinned in every candidate.
        let pinned = spec.clone().choices(ShapeChoices {
            min_blocks_per_sm: Some(2),
            ..ShapeChoices::default()
        });
        for c in candidates(&pinned).unwrap() {
            assert_eq!(c.plan.passes[0].min_blocks_per_sm, 2);
        }
    }

    #[test]
    fn several_pass_candidates_vary_the_split_and_bluestein_measures_its_estimate() {
        let spec = FftSpec::new(1 << 20).target(Target::H100);
        let all = candidates(&spec).unwrap();
        assert!(all.len() > 2);
        assert!(all[1..].iter().all(|c| c.choices.split.is_some()));
        let prime = candidates(&FftSpec::new(4099).target(Target::H100)).unwrap();
        assert_eq!(prime.len(), 1);
        // Multi-axis and real plans measure what their choices reach.
        for spec in [
            FftSpec::with_shape(&[64, 4096]).target(Target::H100),
            FftSpec::new(1000)
                .kind(crate::TransformKind::R2c)
                .precision(Precision::F64)
                .target(Target::H100),
        ] {
            let all = candidates(&spec).unwrap();
            assert_eq!(all[0].plan, crate::plan::plan(&spec).unwrap());
        }
    }

    #[test]
    fn narrow_columns_are_split_and_their_one_pass_is_a_candidate() {
        let spec = FftSpec::with_shape(&[8575, 14336])
            .kind(crate::TransformKind::R2c)
            .precision(Precision::F64)
            .target(Target::H200);
        let all = candidates(&spec).unwrap();
        // The estimate: the columns of 8575 in two passes, the rows in one.
        assert_eq!(all[0].plan.passes.len(), 3);
        assert_eq!(all[0].plan.axis_factors[0].iter().product::<usize>(), 8575);
        let whole = all
            .iter()
            .find(|c| c.choices.split == Some(vec![8575]))
            .expect("a candidate computes the columns of 8575 in one pass");
        assert_eq!(whole.plan.passes.len(), 2);
        // Columns of 5000 f32 points: a block's registers hold a tile of them
        // too narrow to be worth one pass, so the estimate splits them (H200,
        // docs/bench/h200_ab_spill_free_tiles.log: C2R 0.96 -> 1.18x cuFFT);
        // their one pass is a candidate.
        let f32_spec = FftSpec::with_shape(&[5000, 14336])
            .kind(crate::TransformKind::R2c)
            .target(Target::H200);
        let all = candidates(&f32_spec).unwrap();
        assert_eq!(all[0].plan.passes.len(), 3);
        assert_eq!(all[0].plan.axis_factors[0].iter().product::<usize>(), 5000);
        assert!(all
            .iter()
            .any(|c| c.choices.split == Some(vec![5000]) && c.plan.passes.len() == 2));
        // Columns a tile holds, and the rows, are not split.
        let short = candidates(&FftSpec::with_shape(&[1024, 14336]).target(Target::H200)).unwrap();
        assert!(short.iter().all(|c| c.choices.split.is_none()));
    }

    #[test]
    fn split_axes_are_measured_first_in_the_splits_the_model_ranks_fastest() {
        let spec = FftSpec::new(2737800)
            .precision(Precision::F64)
            .target(Target::H200);
        let all = candidates(&spec).unwrap();
        // 1800 x 1521, not the most even 1690 x 1620: a block's registers
        // would not hold a tile of 1690-point columns (H200: 0.82 -> 1.09x
        // cuFFT, docs/bench/h200_ab_spill_free_tiles.log). The model's three
        // fastest other splits come next, fastest first.
        assert_eq!(all[0].plan.axis_factors[0], vec![1800, 1521]);
        let wisdom = Wisdom::built_in();
        let ranking =
            super::super::multipass::SplitRanking::of(Some(&wisdom), &Target::H200, Precision::F64);
        let time = |plan: &Plan| ranking.time(&plan.passes);
        let next: Vec<&Candidate> = all[1..=MOST_SPLITS].iter().collect();
        assert!(next.iter().all(|c| c.choices.split.is_some()));
        assert!(next
            .windows(2)
            .all(|w| time(&w[0].plan) <= time(&w[1].plan)));
        assert!(next
            .iter()
            .any(|c| c.choices.split == Some(vec![2025, 1352])));
        // A split by hand stays as given.
        let by_hand = spec.choices(ShapeChoices {
            split: Some(vec![1620, 1690]),
            ..ShapeChoices::default()
        });
        let all = candidates(&by_hand).unwrap();
        assert!(all
            .iter()
            .all(|c| c.choices.split == Some(vec![1620, 1690])));
    }

    #[test]
    fn the_fastest_candidate_wins_within_the_budget() {
        let spec = FftSpec::new(2187).target(Target::H100);
        let all = candidates(&spec).unwrap();
        let mut times = vec![1.0, 0.9, f64::NAN, 0.7, 0.8];
        times.resize(all.len(), 2.0);
        // 300 ms a trial and 1 s: four trials, the fourth (0.7) wins; the
        // failed third is recorded.
        let m = measure(&all, Duration::from_secs(1), trial_of(&times, 300)).unwrap();
        assert_eq!((m.timed.len(), m.fastest), (5, 3));
        assert_eq!(m.untimed, all.len() - 5);
        assert_eq!(m.timed[2].failure.as_deref(), Some("refused"));
        assert_eq!(m.winner().choices, all[3].choices);
        assert!((m.speedup() - 1.0 / 0.7).abs() < 1e-12);
        // No budget: the estimate alone.
        let m = measure(&all, Duration::ZERO, trial_of(&times, 300)).unwrap();
        assert_eq!((m.timed.len(), m.fastest), (1, 0));
        // The estimate's failure is the measurement's.
        let failed = measure(&all, Duration::from_secs(1), trial_of(&[f64::NAN], 1));
        assert_eq!(failed.unwrap_err(), "refused");
    }

    #[test]
    fn measured_wisdom_keeps_winners_by_spec_and_gpu() {
        let spec = FftSpec::new(2187).target(Target::H100);
        let all = candidates(&spec).unwrap();
        let m = measure(
            &all,
            Duration::from_secs(1),
            trial_of(&[1.0, 0.5, 2.0, 2.0], 300),
        )
        .unwrap();
        let mut file = MeasuredWisdom::new("H100 80GB HBM3", "13000");
        assert!(file.lookup(&spec).is_none());
        file.record(&spec, &m);
        file.record(&spec, &m);
        assert_eq!(file.entries.len(), 1);
        let entry = file.lookup(&spec).unwrap();
        assert_eq!(
            (entry.choices.clone(), entry.milliseconds),
            (all[1].choices.clone(), 0.5)
        );
        assert!(file
            .lookup(&spec.clone().precision(Precision::F64))
            .is_none());
        let dir = std::env::temp_dir().join(format!("fftgen-measured-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h100.json");
        std::fs::write(&path, file.to_json()).unwrap();
        assert_eq!(
            MeasuredWisdom::load_or_new(&path, "H100 80GB HBM3", "13000"),
            file
        );
        // Another driver, or a damaged file, starts afresh.
        assert!(
            MeasuredWisdom::load_or_new(&path, "H100 80GB HBM3", "13010")
                .entries
                .is_empty()
        );
        std::fs::write(&path, "{").unwrap();
        assert!(
            MeasuredWisdom::load_or_new(&path, "H100 80GB HBM3", "13000")
                .entries
                .is_empty()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
