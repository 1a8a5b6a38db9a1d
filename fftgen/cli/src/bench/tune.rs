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
use fftgen::plan::radix::schedules;
use fftgen::plan::{
    ColumnIo, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch, Pass, PassScope, Plan,
    ShapeChoices, TwiddleTables, WisdomEntry, WisdomFile,
};
use fftgen::{Precision, Target};
use serde::Serialize;
use std::fmt::{self, Write as _};
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
    let longest = fftgen::plan::multipass::column_limit(planned.precision, target);
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
    use fftgen::plan::plan;
    use fftgen::FftSpec;

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
            all.iter().map(|s| bench_args(2401, s)).collect();
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
