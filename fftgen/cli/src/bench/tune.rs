//! The shape search behind `fftgen tune`: for each size, the plan this GPU
//! gets and its neighbours along the chosen dimensions (launch bound, first
//! write, exchange width, padding search, input caching), each generated,
//! checked against the f64 reference and then timed in one process,
//! interleaved group by group with the others, cuFFT and the copy
//! ([`super::timing::time_interleaved`]), so that the difference between two
//! shapes is not the difference between two runs of the machine.
//!
//! Seed 004 chooses a radix schedule by timing stages on their own and taking
//! the shortest path through the stage graph. The stages of a one-kernel FFT
//! do not time apart: they share the kernel's registers, shared memory and
//! occupancy. So the search times whole kernels, and a winner becomes an entry
//! of a wisdom file (`fftgen tune --write-wisdom FILE`) that names the log
//! holding its times.

use super::timing::Timing;
pub use fftgen::plan::variants::{candidates, split_candidates, Dimension};
use fftgen::plan::{PassScope, Plan, ShapeChoices, WisdomEntry, WisdomFile};
use fftgen::Precision;
use serde::Serialize;
use std::fmt::Write as _;

/// A block shape for the column passes of one length, as a column-pass
/// wisdom entry gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnCandidate {
    /// The passes' FFT length.
    pub n: usize,
    pub choices: ShapeChoices,
}

impl ColumnCandidate {
    /// The column-pass wisdom entry that gives this shape.
    pub fn entry(&self, precision: Precision, evidence: Vec<String>) -> WisdomEntry {
        WisdomEntry {
            precision,
            n: self.n,
            shape: None,
            pass: Some(PassScope::Column),
            choices: self.choices.clone(),
            evidence,
        }
    }
}

/// Block shapes for the column passes of `planned`, one length at a time
/// (the first pass of each length stands for the others): launch bounds
/// of 1 to 4 blocks per SM, half and twice the FFTs per block (half with
/// twice the bound, the same threads per SM), and threads holding 16 values
/// each where the plan holds more (cuFFT's columns: two blocks of 512
/// threads). Each replaces the planner's shape only where it plans; shapes
/// that give another's code are dropped by the caller.
pub fn column_candidates(planned: &Plan) -> Vec<ColumnCandidate> {
    let mut out: Vec<ColumnCandidate> = Vec::new();
    let columns = planned
        .passes
        .iter()
        .filter(|p| planned.passes.len() > 1 && !p.access.is_dense(p.n));
    for pass in columns {
        if out.iter().any(|c| c.n == pass.n) {
            continue;
        }
        let (bound, ffts) = (pass.min_blocks_per_sm, pass.ffts_per_block);
        let mut shapes: Vec<ShapeChoices> = (1..=4)
            .filter(|&b| b != bound)
            .map(|b| ShapeChoices {
                min_blocks_per_sm: Some(b),
                ..ShapeChoices::default()
            })
            .collect();
        let tile = |ffts: usize, bound: usize, threads: Option<usize>| ShapeChoices {
            ffts_per_block: Some(ffts),
            min_blocks_per_sm: Some(bound),
            threads_per_fft: threads,
            ..ShapeChoices::default()
        };
        shapes.push(tile(ffts * 2, bound, None));
        if ffts > 1 {
            shapes.push(tile(ffts / 2, bound, None));
            shapes.push(tile(ffts / 2, bound * 2, None));
        }
        let threads16 = pass.n / 16;
        if pass.values_per_thread > 16 && pass.n % 16 == 0 && threads16 > pass.threads_per_fft {
            shapes.push(ShapeChoices {
                threads_per_fft: Some(threads16),
                ..ShapeChoices::default()
            });
            shapes.push(tile((512 / threads16).max(1), 2, Some(threads16)));
        }
        out.extend(
            shapes
                .into_iter()
                .map(|choices| ColumnCandidate { n: pass.n, choices }),
        );
    }
    out
}

/// `shape` for size `n` as `fftgen bench` arguments, to time it again or
/// against something else.
pub fn bench_args(n: usize, shape: &ShapeChoices) -> String {
    format!("--sizes {n} --shape '{n} {shape}'")
}

/// What to search.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneConfig {
    pub precision: Precision,
    pub sizes: Vec<usize>,
    pub dimensions: Vec<Dimension>,
    pub schedule: super::Schedule,
    /// CUDA device ordinal.
    pub device: usize,
    /// Seed of the random input.
    pub seed: u64,
    /// The command line, recorded in the report.
    pub command: String,
}

/// One shape's outcome at one size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// The `fftgen bench` arguments that run this shape again.
    pub shape: String,
    /// The shape, every choice pinned.
    pub choices: ShapeChoices,
    /// The column passes' shape the variant planned with (as a column-pass
    /// wisdom entry; the bench arguments alone do not give it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<ColumnCandidate>,
    /// Relative L2 error of the forward and inverse transforms.
    pub error: Option<f64>,
    pub inverse_error: Option<f64>,
    /// Whether both directions were within the tolerance with every output
    /// written; a variant that was not is not timed.
    pub passed: bool,
    pub timing: Option<Timing>,
    /// What failed, if anything.
    pub note: Option<String>,
}

/// Every variant of one size, with cuFFT and the copy timed among them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneRow {
    pub n: usize,
    pub batch: usize,
    pub precision: Precision,
    /// Bytes one launch moves at least (input once, output once).
    pub bytes: u64,
    /// The planned shape first, then the others.
    pub variants: Vec<Variant>,
    /// Combinations that did not plan, or generated code another variant has.
    pub skipped: usize,
    pub cufft: Option<Timing>,
    pub copy: Option<Timing>,
    pub notes: Vec<String>,
    /// The stage graph's pick, where `stage-graph` was asked for.
    pub stage_graph: Option<StageGraphPick>,
}

/// The cheapest schedule over the stage costs fitted to the timed variants.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageGraphPick {
    pub radices: Vec<usize>,
    /// The fitted model's time for it, ms.
    pub predicted_ms: f64,
    /// Stages (position, radix) in the graph, and timed schedules fitted.
    pub edges: usize,
    pub schedules: usize,
    /// Whether a timed variant ran this schedule.
    pub among_variants: bool,
    /// Its whole kernel against the plan's, timed in a round of their own
    /// where it was not among the variants (ms, ms).
    pub confirmed: Option<(f64, f64)>,
}

impl StageGraphPick {
    /// The cheapest path over the costs fitted to the timed schedules of
    /// `variants` (None where fewer than two were timed or none reaches N).
    pub fn of(n: usize, variants: &[Variant]) -> Option<StageGraphPick> {
        let timed: Vec<(Vec<usize>, f64)> = variants
            .iter()
            .filter_map(|v| Some((v.choices.radices.clone()?, v.timing.as_ref()?.median_ms)))
            .collect();
        if timed.len() < 2 {
            return None;
        }
        let costs = super::stage_graph::StageCosts::fit(n, &timed);
        let (radices, predicted_ms) = costs.cheapest()?;
        Some(StageGraphPick {
            radices,
            predicted_ms,
            edges: costs.edges.len(),
            schedules: timed.len(),
            among_variants: false,
            confirmed: None,
        })
    }
}

impl TuneRow {
    /// The timed variants, fastest first.
    pub fn ranked(&self) -> Vec<&Variant> {
        let mut timed: Vec<&Variant> = self
            .variants
            .iter()
            .filter(|v| v.timing.is_some())
            .collect();
        timed.sort_by(|a, b| {
            let ms = |v: &Variant| v.timing.as_ref().map_or(f64::INFINITY, |t| t.median_ms);
            ms(a).total_cmp(&ms(b))
        });
        timed
    }

    /// The console table: every timed variant, fastest first, with its
    /// share of the copy's bandwidth and cuFFT's time over its own.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let copy = self.copy.as_ref().map(|t| t.median_ms);
        let cufft = self.cufft.as_ref().map(|t| t.median_ms);
        let _ = writeln!(
            out,
            "N = {} ({}, batch {}): {} variants timed, {} skipped; cuFFT {} ms, copy {} ms",
            self.n,
            self.precision,
            self.batch,
            self.ranked().len(),
            self.skipped,
            cufft.map_or("-".into(), |ms| format!("{ms:.4}")),
            copy.map_or("-".into(), |ms| format!("{ms:.4}")),
        );
        let _ = writeln!(
            out,
            "  {:>8} {:>8} {:>8} {:>7}  shape",
            "ms", "spread", "% copy", "cuFFT/"
        );
        for (rank, variant) in self.ranked().into_iter().enumerate() {
            let timing = variant.timing.as_ref().expect("ranked variants are timed");
            let planned = std::ptr::eq(variant, &self.variants[0]);
            let _ = writeln!(
                out,
                "  {:>8.4} {:>7.2}% {:>8} {:>7}  {}{}",
                timing.median_ms,
                100.0 * timing.spread(),
                copy.map_or("-".into(), |c| format!(
                    "{:.1}",
                    100.0 * c / timing.median_ms
                )),
                cufft.map_or("-".into(), |c| format!("{:.4}", c / timing.median_ms)),
                variant.shape,
                match (planned, rank) {
                    (true, _) => "   <- planned",
                    (false, 0) => "   <- fastest",
                    _ => "",
                }
            );
        }
        for variant in self.variants.iter().filter(|v| v.note.is_some()) {
            let _ = writeln!(
                out,
                "  not timed: {}: {}",
                variant.shape,
                variant.note.as_deref().unwrap_or_default()
            );
        }
        if let Some(pick) = &self.stage_graph {
            let _ = writeln!(
                out,
                "  stage graph (seed 004; {} stages fitted to {} schedules): {:?}, predicted {:.4} ms{}",
                pick.edges,
                pick.schedules,
                pick.radices,
                pick.predicted_ms,
                match (pick.among_variants, pick.confirmed) {
                    (true, _) => "; among the variants above".into(),
                    (false, Some((ours, planned))) => format!(
                        "; timed whole against the plan: {ours:.4} ms against {planned:.4} ms"
                    ),
                    (false, None) => "; not confirmed (its kernel did not plan or check)".into(),
                }
            );
        }
        for note in &self.notes {
            let _ = writeln!(out, "  note: {note}");
        }
        out
    }
}

/// Where the search ran, and every size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuneReport {
    pub device: String,
    /// The GPU model, as wisdom files name it.
    pub model: String,
    pub date_utc: String,
    pub command: String,
    pub generator_version: String,
    pub precision: Precision,
    pub schedule: super::Schedule,
    pub dimensions: Vec<Dimension>,
    pub rows: Vec<TuneRow>,
}

impl TuneReport {
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{}, {}, {} ({} warm-ups, {} groups of {} launches, all contenders of a size in turn)\n",
            self.device,
            self.precision,
            self.date_utc,
            self.schedule.warmup,
            self.schedule.groups,
            self.schedule.repeats
        );
        for row in &self.rows {
            out.push_str(&row.to_text());
        }
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a tuning report always serialises")
    }

    /// `file` (a new one for this GPU model where `None`) with each size's
    /// fastest accurate shape in place of any entry it had for that size,
    /// citing `evidence` (where the report's timings are kept).
    pub fn wisdom(&self, file: Option<WisdomFile>, evidence: &str) -> WisdomFile {
        let file = file.unwrap_or_else(|| WisdomFile {
            gpu: self.model.clone(),
            fallback: false,
            about: format!(
                "Shapes `fftgen tune` measured fastest on {}, {} ({}).",
                self.device, self.date_utc, self.command
            ),
            model: None,
            plan_model: None,
            entries: Vec::new(),
        });
        self.rows
            .iter()
            .fold(file, |file, row| match row.ranked().first() {
                // A column shape's entry is for its passes' length.
                Some(Variant {
                    column: Some(column),
                    ..
                }) => file.with_entry(column.entry(row.precision, vec![evidence.to_string()])),
                Some(fastest) => file.with_entry(WisdomEntry {
                    precision: row.precision,
                    n: row.n,
                    shape: None,
                    pass: None,
                    choices: fastest.choices.clone(),
                    evidence: vec![evidence.to_string()],
                }),
                None => file,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fftgen::plan::{plan, Pass};
    use fftgen::{FftSpec, Target};

    fn pass(spec: FftSpec) -> Pass {
        plan(&spec).unwrap().passes[0].clone()
    }

    #[test]
    fn column_candidates_vary_each_column_length_and_become_column_entries() {
        // Without wisdom, 2^20 on the H200 is two passes of 1024-point
        // columns, 16 to a block of 512 threads holding 32 values each.
        let spec = FftSpec::new(1 << 20).target(Target::H200);
        let planned = fftgen::plan::plan_with_wisdom(&spec, &fftgen::plan::Wisdom::none()).unwrap();
        let all = column_candidates(&planned);
        assert!(all.iter().all(|c| c.n == 1024));
        let bounds: Vec<_> = all
            .iter()
            .filter_map(|c| c.choices.min_blocks_per_sm)
            .collect();
        assert!(bounds.contains(&2) && bounds.contains(&4));
        // cuFFT's columns: 16 values over 64 threads, eight to a block, two per SM.
        let cufft_like = ShapeChoices {
            threads_per_fft: Some(64),
            ffts_per_block: Some(8),
            min_blocks_per_sm: Some(2),
            ..ShapeChoices::default()
        };
        let column = all.into_iter().find(|c| c.choices == cufft_like).unwrap();
        // The fastest variant's column shape is written as a column-pass entry.
        let row = TuneRow {
            n: 1 << 20,
            batch: 128,
            precision: Precision::F32,
            bytes: 1 << 31,
            variants: vec![Variant {
                shape: String::new(),
                choices: ShapeChoices::pinned_plan(&planned),
                column: Some(column.clone()),
                error: Some(1e-7),
                inverse_error: Some(1e-7),
                passed: true,
                timing: Some(Timing::constant(1.0)),
                note: None,
            }],
            skipped: 0,
            cufft: None,
            copy: None,
            notes: Vec::new(),
            stage_graph: None,
        };
        let report = TuneReport {
            device: "NVIDIA H200".into(),
            model: "H200".into(),
            date_utc: String::new(),
            command: String::new(),
            generator_version: String::new(),
            precision: Precision::F32,
            schedule: super::super::Schedule::default(),
            dimensions: vec![Dimension::ColumnPasses],
            rows: vec![row],
        };
        let file = report.wisdom(None, "tune.json");
        let entry = &file.entries[0];
        assert_eq!((entry.n, entry.pass), (1024, Some(PassScope::Column)));
        assert_eq!(entry.choices, cufft_like);
    }

    #[test]
    fn bench_args_name_every_choice() {
        let planned = pass(FftSpec::new(1331).target(Target::H200));
        assert_eq!(
            bench_args(1331, &ShapeChoices::pinned(&planned)),
            "--sizes 1331 --shape '1331 --radix 11,11,11 --threads-per-fft 121 \
             --min-blocks-per-sm 8 --ffts-per-block 1 --input-caching l1-and-l2 \
             --exchange-buffers reused --exchange-width one-part-at-a-time \
             --first-write after-barrier --padding-search all-radices --twiddle-tables direct'"
        );
        assert!("bound".parse::<Dimension>().is_ok());
        assert!("radix"
            .parse::<Dimension>()
            .unwrap_err()
            .contains("first-write"));
    }

    #[test]
    fn the_table_ranks_timed_variants() {
        let variant = |shape: &str, ms: Option<f64>| Variant {
            shape: shape.into(),
            choices: ShapeChoices::default(),
            column: None,
            error: Some(1e-7),
            inverse_error: Some(1e-7),
            passed: ms.is_some(),
            timing: ms.map(Timing::constant),
            note: ms.is_none().then(|| "inaccurate".to_string()),
        };
        let row = TuneRow {
            n: 2401,
            batch: 55900,
            precision: Precision::F32,
            bytes: 2 * 2401 * 55900 * 8,
            variants: vec![
                variant("planned", Some(0.59)),
                variant("faster", Some(0.55)),
                variant("broken", None),
            ],
            skipped: 3,
            cufft: Some(Timing::constant(0.585)),
            copy: Some(Timing::constant(0.503)),
            notes: vec![],
            stage_graph: None,
        };
        let ranked: Vec<&str> = row.ranked().iter().map(|v| v.shape.as_str()).collect();
        assert_eq!(ranked, vec!["faster", "planned"]);
        let text = row.to_text();
        assert!(text.contains("2 variants timed, 3 skipped"));
        assert!(text.contains("faster   <- fastest"));
        assert!(text.contains("planned   <- planned"));
        assert!(text.contains("91.5"));
        assert!(text.contains("not timed: broken: inaccurate"));
    }

    #[test]
    fn the_stage_graph_is_fitted_to_the_timed_schedules() {
        // 64 points as [8, 8] and [4, 4, 4] and [4, 16] and [16, 4]: each
        // stage costs 0.1 ms but radix 16 at position 4, which costs 0.5;
        // a broken variant is left out.
        let variant = |radices: &[usize], ms: Option<f64>| Variant {
            shape: format!("{radices:?}"),
            choices: ShapeChoices {
                radices: Some(radices.to_vec()),
                ..ShapeChoices::default()
            },
            column: None,
            error: Some(1e-7),
            inverse_error: Some(1e-7),
            passed: ms.is_some(),
            timing: ms.map(Timing::constant),
            note: None,
        };
        let variants = vec![
            variant(&[8, 8], Some(1.2)),
            variant(&[4, 4, 4], Some(1.3)),
            variant(&[16, 4], Some(1.2)),
            variant(&[4, 16], Some(1.6)),
            variant(&[2, 32], None),
        ];
        let pick = StageGraphPick::of(64, &variants).unwrap();
        assert_eq!(pick.schedules, 4);
        assert!(
            pick.radices.len() == 2 && pick.radices != vec![4, 16],
            "{pick:?}"
        );
        assert!((pick.predicted_ms - 1.2).abs() < 1e-6, "{pick:?}");
        assert!(StageGraphPick::of(64, &variants[..1]).is_none());
    }
}
