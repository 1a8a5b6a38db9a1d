//! The benchmark's results as data, and their three textual forms: the
//! console table, Markdown for docs/perf.md, and JSON for later analysis.
//! Every derived number (GB/s, share of copy bandwidth, cuFFT/ours ratio) is
//! computed here from the raw timings, so the forms always agree. A row is
//! one complex shape (ours both ways, cuFFT forward), or one direction of a
//! real one: `r2c 4096 forward` (R2C) or `c2r 4096 inverse` (C2R), ours and
//! cuFFT's in that direction.

use super::random_shapes::RandomDraw;
use super::real::RealSides;
use super::timing::{Schedule, Timing};
use crate::shape::shape_text;
use fftgen::plan::ShapeChoices;
use fftgen::{Direction, Precision, TransformKind};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// One transform shape: what every contender measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    /// Points of one transform (the length of a 1D one; for `r2c`, reals).
    pub n: usize,
    /// The transform's axes, first axis first (`[n]` for 1D; for `r2c`,
    /// the real side's).
    pub axes: Vec<usize>,
    /// `c2c`, or `r2c` for a row of a real transform.
    pub kind: TransformKind,
    /// The one direction a row of a real transform measures: forward (the
    /// R2C) or inverse (the C2R). `None` for `c2c` rows, which time ours
    /// both ways and cuFFT forward.
    pub direction: Option<Direction>,
    /// Kernels one transform runs (one per axis, two or three for an axis
    /// longer than a block holds); 0 if generation failed.
    pub passes: usize,
    /// Transforms per launch.
    pub batch: usize,
    pub precision: Precision,
    /// Our kernel's shape, every choice the planner made pinned (empty if
    /// generation failed, or for plans of several passes): `fftgen bench
    /// --shape` runs it again.
    pub shape: ShapeChoices,
    /// The fewest bytes one launch must move: the input read once plus the
    /// output written once, `2 * n * batch * complex bytes` (whatever the
    /// passes move in between); for `r2c`, the reals and the half spectrum
    /// once each.
    pub bytes: u64,
    /// Device-to-device copy of half of `bytes` (each byte read and
    /// written: the same bytes moved).
    pub copy: Option<Timing>,
    /// Our forward kernel (a real row: ours in the row's direction).
    pub ours: Option<Timing>,
    /// Our inverse kernel (`c2c` rows only).
    pub ours_inverse: Option<Timing>,
    /// cuFFT C2C (f32) or Z2Z (f64), forward; for a real row R2C (D2Z) or
    /// C2R (Z2D), in the row's direction.
    pub cufft: Option<Timing>,
    /// Our OpenCL kernel on the same GPU through the NVIDIA OpenCL platform.
    pub opencl: Option<Timing>,
    /// Transforms (from the start of the batch) compared with the f64 reference.
    pub checked_transforms: usize,
    /// Relative L2 error of our forward output (a real row's: its
    /// direction's) against the f64 reference.
    pub ours_error: Option<f64>,
    /// Relative L2 error of our inverse output against the f64 reference
    /// (`c2c` rows only).
    pub ours_inverse_error: Option<f64>,
    /// cuFFT's error on the same input as ours.
    pub cufft_error: Option<f64>,
    pub opencl_error: Option<f64>,
    /// The accepted error, `eps * log2(n)` (n all the points).
    pub tolerance: f64,
    /// Non-finite reals left in the whole output (poisoned with NaN before the
    /// checked run) by our forward and inverse kernels: 0 unless some output
    /// was never written.
    pub ours_unwritten: Option<u64>,
    /// The same for cuFFT.
    pub cufft_unwritten: Option<u64>,
    /// Time to make our CUDA plan from its spec (generation, compilation or
    /// cache lookup, module load, every pass), in three cache states.
    pub plan_creation: Option<PlanCreation>,
    /// Anything that failed or was skipped at this size, one line each.
    pub notes: Vec<String>,
}

/// Wall-clock milliseconds from an `FftSpec` to a loaded `CudaFft`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlanCreation {
    /// Empty caches: NVRTC compiles the source.
    pub cold_ms: f64,
    /// A new process's view: nothing in memory, the CUBIN on disk.
    pub disk_ms: f64,
    /// The CUBIN already in this process's memory cache.
    pub memory_ms: f64,
}

impl BenchRow {
    /// A row of a 1D transform of length `n` with nothing measured yet.
    pub fn new(n: usize, batch: usize, precision: Precision) -> BenchRow {
        Self::for_shape(&[n], batch, precision)
    }

    /// A row of a transform of `axes` with nothing measured yet.
    pub fn for_shape(axes: &[usize], batch: usize, precision: Precision) -> BenchRow {
        let n: usize = axes.iter().product();
        BenchRow {
            n,
            axes: axes.to_vec(),
            kind: TransformKind::C2c,
            direction: None,
            passes: 0,
            batch,
            precision,
            shape: ShapeChoices::default(),
            bytes: 2 * (n * batch * precision.complex_bytes()) as u64,
            copy: None,
            ours: None,
            ours_inverse: None,
            cufft: None,
            opencl: None,
            checked_transforms: 0,
            ours_error: None,
            ours_inverse_error: None,
            cufft_error: None,
            opencl_error: None,
            tolerance: crate::accuracy::tolerance(n, precision),
            ours_unwritten: None,
            cufft_unwritten: None,
            plan_creation: None,
            notes: Vec::new(),
        }
    }

    /// A row of one `direction` of the real transform of `axes` (the real
    /// side's) with nothing measured yet: its bytes are the reals' and the
    /// half spectrum's.
    pub fn real(axes: &[usize], batch: usize, precision: Precision, direction: Direction) -> Self {
        BenchRow {
            kind: TransformKind::R2c,
            direction: Some(direction),
            bytes: RealSides::new(axes).bytes(batch, precision),
            ..Self::for_shape(axes, batch, precision)
        }
    }

    /// What the row measures: `c2c`, `r2c` (a real row's R2C) or `c2r`.
    pub fn transform(&self) -> &'static str {
        self.kind.name(self.direction.unwrap_or(Direction::Forward))
    }

    /// The shape as the command line spells it: `8192`, `1024x1024`; a real
    /// row adds what it measures: `r2c 4096 forward`, `c2r 4096 inverse`.
    pub fn label(&self) -> String {
        match (self.kind, self.direction) {
            (TransformKind::R2c, Some(direction)) => format!(
                "{} {} {direction}",
                self.transform(),
                shape_text(&self.axes)
            ),
            _ => shape_text(&self.axes),
        }
    }

    fn ms(timing: &Option<Timing>) -> Option<f64> {
        timing.as_ref().map(|t| t.median_ms)
    }

    /// GB/s (1e9 bytes) of `bytes` moved in `ms`.
    fn gbs(&self, ms: Option<f64>) -> Option<f64> {
        ms.map(|ms| self.bytes as f64 / (ms * 1e6))
    }

    /// Measured copy bandwidth, GB/s, counting bytes read plus bytes written.
    pub fn copy_gbs(&self) -> Option<f64> {
        self.gbs(Self::ms(&self.copy))
    }

    /// Our forward kernel's effective bandwidth, GB/s.
    pub fn ours_gbs(&self) -> Option<f64> {
        self.gbs(Self::ms(&self.ours))
    }

    /// cuFFT's effective bandwidth, GB/s.
    pub fn cufft_gbs(&self) -> Option<f64> {
        self.gbs(Self::ms(&self.cufft))
    }

    fn percent_of_copy(&self, ms: Option<f64>) -> Option<f64> {
        Some(100.0 * Self::ms(&self.copy)? / ms?)
    }

    /// Our forward kernel's bandwidth as a percentage of the copy's.
    pub fn ours_pct_copy(&self) -> Option<f64> {
        self.percent_of_copy(Self::ms(&self.ours))
    }

    /// cuFFT's bandwidth as a percentage of the copy's.
    pub fn cufft_pct_copy(&self) -> Option<f64> {
        self.percent_of_copy(Self::ms(&self.cufft))
    }

    /// cuFFT time over our time: above 1 means ours is faster.
    pub fn cufft_over_ours(&self) -> Option<f64> {
        Some(Self::ms(&self.cufft)? / Self::ms(&self.ours)?)
    }

    /// Whether our kernels were timed, wrote every output and stayed within tolerance.
    pub fn ours_passed(&self) -> bool {
        self.ours.is_some() && self.ours_accurate()
    }

    /// Whether our kernels' checked runs were within the tolerance in both
    /// directions (a real row: its own) with every output written.
    pub fn ours_accurate(&self) -> bool {
        let within = |e: Option<f64>| e.is_some_and(|e| e <= self.tolerance);
        let inverse = self.direction.is_some() || within(self.ours_inverse_error);
        within(self.ours_error) && inverse && self.ours_unwritten == Some(0)
    }
}

/// Where and how the benchmark ran, and every row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    /// CUDA device name, e.g. `NVIDIA H100 80GB HBM3`.
    pub device: String,
    /// Compute capability, e.g. `9.0`.
    pub compute_capability: String,
    /// When the run started, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date_utc: String,
    /// The command line that produced the report.
    pub command: String,
    pub generator_version: String,
    /// The precision of every row; `None` (JSON null) when the rows mix f32
    /// and f64 (`--random`: each row names its own).
    pub precision: Option<Precision>,
    /// How many cases were drawn at random and from which seed, when
    /// `--random` drew them (in the order drawn); `None` for listed shapes.
    pub random: Option<RandomDraw>,
    /// cuFFT's version number, if it was loaded.
    pub cufft_version: Option<i32>,
    /// The OpenCL device used, or why the OpenCL column is empty.
    pub opencl: String,
    /// Bytes of each of the two device buffers.
    pub buffer_bytes: u64,
    pub seed: u64,
    pub schedule: Schedule,
    pub rows: Vec<BenchRow>,
}

impl BenchReport {
    /// The transforms the rows measure, as a heading names them.
    pub fn kinds(&self) -> &'static str {
        let complex = self.rows.iter().any(|r| r.kind == TransformKind::C2c);
        let real = self.rows.iter().any(|r| r.kind == TransformKind::R2c);
        match (complex, real) {
            (true, true) => "C2C, R2C and C2R",
            (false, true) => "R2C and C2R",
            _ => "C2C",
        }
    }

    /// The precisions the rows measure, as a heading names them: `f32`,
    /// `f64`, or `f32 and f64`.
    pub fn precisions(&self) -> String {
        if let Some(precision) = self.precision {
            return precision.to_string();
        }
        let mut precisions: Vec<Precision> = self.rows.iter().map(|r| r.precision).collect();
        precisions.sort_unstable();
        precisions.dedup();
        let words: Vec<String> = precisions.iter().map(|p| p.to_string()).collect();
        words.join(" and ")
    }

    /// What the report says of drawn cases, if `--random` drew them: how
    /// many, from which seed, and the command that lists them.
    fn random_words(&self) -> String {
        self.random
            .map_or(String::new(), |RandomDraw { count, seed, from }| {
                let timed = match from {
                    0 => format!("{count} cases"),
                    _ => format!("Cases {} to {count} of {count}", from + 1),
                };
                format!(
                    "{timed} (shape, precision, kind) drawn at random with seed {seed}, in \
                 the order drawn (`fftgen bench --random {count} --seed {seed} --list` lists \
                 them)."
                )
            })
    }

    /// What the Markdown adds about real rows, if there are any.
    fn real_words(&self) -> &'static str {
        match self.rows.iter().any(|r| r.kind == TransformKind::R2c) {
            true => {
                " A real transform has a row per direction (R2C `r2c N forward`, C2R `c2r N \
                 inverse`), ours against cuFFT's R2C or C2R (D2Z, Z2D in f64) on the same \
                 input; its bytes are the reals and the half spectrum (last axis N/2 + 1), \
                 each once, the copy moving as many, and the buffers hold as many transforms \
                 as fill 1 GiB with the larger side. Each checked C2R starts from a fresh copy \
                 of the input (cuFFT's C2R overwrites it), whose checked transforms hold the \
                 reference spectrum of the R2C's input."
            }
            false => "",
        }
    }

    /// The date part of [`Self::date_utc`].
    pub fn date(&self) -> &str {
        self.date_utc.get(..10).unwrap_or(&self.date_utc)
    }

    /// The report as pretty-printed JSON: the fields above, each row with its
    /// derived numbers, and the copy bandwidth per size.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Row<'a> {
            #[serde(flatten)]
            row: &'a BenchRow,
            transform: &'static str,
            copy_gbs: Option<f64>,
            ours_gbs: Option<f64>,
            cufft_gbs: Option<f64>,
            ours_pct_copy: Option<f64>,
            cufft_pct_copy: Option<f64>,
            cufft_over_ours: Option<f64>,
            ours_passed: bool,
        }
        #[derive(Serialize)]
        struct Copy {
            n: usize,
            gbs: Option<f64>,
        }
        let rows: Vec<Row> = self
            .rows
            .iter()
            .map(|row| Row {
                row,
                transform: row.transform(),
                copy_gbs: row.copy_gbs(),
                ours_gbs: row.ours_gbs(),
                cufft_gbs: row.cufft_gbs(),
                ours_pct_copy: row.ours_pct_copy(),
                cufft_pct_copy: row.cufft_pct_copy(),
                cufft_over_ours: row.cufft_over_ours(),
                ours_passed: row.ours_passed(),
            })
            .collect();
        let copy: Vec<Copy> = self
            .rows
            .iter()
            .map(|r| Copy {
                n: r.n,
                gbs: r.copy_gbs(),
            })
            .collect();
        let mut value = serde_json::to_value(self).expect("a report always serialises");
        value["copy_bandwidth_gbs"] = serde_json::to_value(copy).expect("numbers always serialise");
        value["rows"] = serde_json::to_value(rows).expect("rows always serialise");
        serde_json::to_string_pretty(&value).expect("a JSON value always serialises")
    }

    /// The report as Markdown: a short paragraph saying where it ran and a
    /// table with one row per shape.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "### {} batched {} FFT, {} (compute capability {})\n",
            self.precisions(),
            self.kinds(),
            self.device,
            self.compute_capability
        );
        let _ = writeln!(
            out,
            "Measured {} with `{}`. Each launch reads a {} MiB input and writes a separate {} MiB \
             output (out of place); times are the median per launch of {} groups of {} launches \
             after {} warm-ups each, timed with CUDA events, our kernels, cuFFT and the copy taking \
             turns group by group. Bandwidth counts the input read once and the output \
             written once; \"% copy\" compares with a device-to-device copy of the same bytes. \
             Errors are relative L2 against an f64 reference on the first transforms of the batch \
             (tolerance eps * log2 N, N all the points of a transform); a transform of several \
             passes is timed whole. Plan creation is cold (NVRTC, empty caches), from the disk \
             cache and from memory.{}{} cuFFT version: {}. OpenCL: {}.\n",
            self.date_utc,
            self.command,
            self.buffer_bytes >> 20,
            self.buffer_bytes >> 20,
            self.schedule.groups,
            self.schedule.repeats,
            self.schedule.warmup,
            self.real_words(),
            match self.random {
                Some(_) => format!(" {}", self.random_words()),
                None => String::new(),
            },
            self.cufft_version.map_or("not loaded".to_string(), |v| v.to_string()),
            self.opencl,
        );
        let header = COLUMNS.iter().map(|c| c.title).collect::<Vec<_>>();
        let _ = writeln!(out, "| {} |", header.join(" | "));
        let rule = COLUMNS
            .iter()
            .map(|c| if c.right { "---:" } else { ":---" })
            .collect::<Vec<_>>();
        let _ = writeln!(out, "|{}|", rule.join("|"));
        for row in &self.rows {
            let cells = COLUMNS.iter().map(|c| (c.cell)(row)).collect::<Vec<_>>();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        let notes: Vec<String> = self
            .rows
            .iter()
            .flat_map(|r| {
                r.notes
                    .iter()
                    .map(move |note| format!("- N = {}: {}", r.label(), first_line(note)))
            })
            .collect();
        if !notes.is_empty() {
            let _ = writeln!(out, "\nNotes:\n\n{}", notes.join("\n"));
        }
        out
    }

    /// The report as an aligned plain-text table for the console.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} (compute capability {}), {}, {}, cuFFT {}, OpenCL: {}",
            self.device,
            self.compute_capability,
            self.precisions(),
            self.date_utc,
            self.cufft_version
                .map_or("not loaded".to_string(), |v| v.to_string()),
            self.opencl
        );
        if self.random.is_some() {
            let _ = writeln!(out, "{}", self.random_words());
        }
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| COLUMNS.iter().map(|c| (c.cell)(r)).collect())
            .collect();
        let widths: Vec<usize> = COLUMNS
            .iter()
            .enumerate()
            .map(|(i, c)| {
                cells
                    .iter()
                    .map(|row| row[i].len())
                    .chain([c.title.len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |texts: Vec<&str>| {
            let padded: Vec<String> = texts
                .iter()
                .zip(&widths)
                .zip(COLUMNS)
                .map(|((t, &w), c)| {
                    if c.right {
                        format!("{t:>w$}")
                    } else {
                        format!("{t:<w$}")
                    }
                })
                .collect();
            padded.join("  ").trim_end().to_string()
        };
        let _ = writeln!(out, "{}", line(COLUMNS.iter().map(|c| c.title).collect()));
        for row in &cells {
            let _ = writeln!(out, "{}", line(row.iter().map(String::as_str).collect()));
        }
        for row in &self.rows {
            for note in &row.notes {
                let _ = writeln!(out, "  N = {}: {}", row.label(), first_line(note));
            }
        }
        out
    }
}

/// One column of the tables.
struct Column {
    title: &'static str,
    right: bool,
    cell: fn(&BenchRow) -> String,
}

const COLUMNS: &[Column] = &[
    Column {
        title: "N",
        right: true,
        cell: |r| r.label(),
    },
    Column {
        title: "batch",
        right: true,
        cell: |r| r.batch.to_string(),
    },
    Column {
        title: "prec",
        right: false,
        cell: |r| r.precision.to_string(),
    },
    Column {
        title: "passes",
        right: true,
        cell: |r| r.passes.to_string(),
    },
    Column {
        title: "ours ms",
        right: true,
        cell: |r| ms(&r.ours),
    },
    Column {
        title: "ours inv ms",
        right: true,
        cell: |r| ms(&r.ours_inverse),
    },
    Column {
        title: "cuFFT ms",
        right: true,
        cell: |r| ms(&r.cufft),
    },
    Column {
        title: "cuFFT/ours",
        right: true,
        cell: |r| fixed(r.cufft_over_ours(), 2),
    },
    Column {
        title: "ours GB/s",
        right: true,
        cell: |r| fixed(r.ours_gbs(), 0),
    },
    Column {
        title: "copy GB/s",
        right: true,
        cell: |r| fixed(r.copy_gbs(), 0),
    },
    Column {
        title: "ours % copy",
        right: true,
        cell: |r| fixed(r.ours_pct_copy(), 1),
    },
    Column {
        title: "cuFFT % copy",
        right: true,
        cell: |r| fixed(r.cufft_pct_copy(), 1),
    },
    Column {
        title: "ours err",
        right: true,
        cell: |r| error(r.ours_error, r.ours_unwritten),
    },
    Column {
        title: "cuFFT err",
        right: true,
        cell: |r| error(r.cufft_error, r.cufft_unwritten),
    },
    Column {
        title: "OpenCL ms",
        right: true,
        cell: |r| ms(&r.opencl),
    },
    Column {
        title: "plan ms cold/disk/mem",
        right: true,
        cell: |r| match r.plan_creation {
            Some(p) => format!("{:.0}/{:.1}/{:.2}", p.cold_ms, p.disk_ms, p.memory_ms),
            None => "-".to_string(),
        },
    },
];

/// The first line of a note (compiler logs follow it in the JSON only),
/// marked when more was cut.
fn first_line(note: &str) -> String {
    match note.split_once('\n') {
        Some((first, _)) => format!("{} [...; full text in the JSON]", first.trim_end()),
        None => note.to_string(),
    }
}

fn ms(timing: &Option<Timing>) -> String {
    timing
        .as_ref()
        .map_or("-".to_string(), |t| format!("{:.4}", t.median_ms))
}

fn fixed(value: Option<f64>, digits: usize) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.digits$}"))
}

fn error(value: Option<f64>, unwritten: Option<u64>) -> String {
    match (value, unwritten) {
        (_, Some(count)) if count > 0 => format!("{count} unwritten"),
        (Some(e), _) => format!("{e:.2e}"),
        (None, _) => "-".to_string(),
    }
}

/// `t` as `YYYY-MM-DDTHH:MM:SSZ` (UTC), computed from the Unix time with the
/// proleptic Gregorian calendar (no time-zone database needed).
pub fn utc_timestamp(t: SystemTime) -> String {
    let secs = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    };
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Year, month (1-12), day (1-31) of the day `days` after 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::time::Duration;

    /// A report with made-up numbers: three sizes, one of them without cuFFT.
    pub(crate) fn synthetic_report() -> BenchReport {
        let rows = [
            (256usize, 0.50, Some(0.55)),
            (1000, 0.70, None),
            (4096, 0.60, Some(0.58)),
        ]
        .into_iter()
        .map(|(n, ours, cufft)| {
            let batch = (1usize << 27) / n;
            let mut row = BenchRow::new(n, batch, Precision::F32);
            row.shape.radices = Some(vec![n]);
            row.passes = 1;
            row.copy = Some(Timing::constant(0.36));
            row.ours = Some(Timing::constant(ours));
            row.ours_inverse = Some(Timing::constant(ours * 1.01));
            row.cufft = cufft.map(Timing::constant);
            row.checked_transforms = 64;
            row.ours_error = Some(3.0e-8);
            row.ours_inverse_error = Some(3.1e-8);
            row.ours_unwritten = Some(0);
            if cufft.is_some() {
                row.cufft_error = Some(4.0e-8);
                row.cufft_unwritten = Some(0);
            } else {
                row.notes
                    .push("cuFFT: cufftPlanMany failed: CUFFT_ALLOC_FAILED".into());
            }
            row
        })
        .collect();
        BenchReport {
            device: "NVIDIA H100 80GB HBM3 <test & co>".into(),
            compute_capability: "9.0".into(),
            date_utc: "2026-11-20T12:34:56Z".into(),
            command: "fftgen bench --sizes 256,1000,4096".into(),
            generator_version: fftgen::VERSION.into(),
            precision: Some(Precision::F32),
            random: None,
            cufft_version: Some(12000),
            opencl: "not available: no NVIDIA OpenCL platform".into(),
            buffer_bytes: 1 << 30,
            seed: 1,
            schedule: Schedule::default(),
            rows,
        }
    }

    #[test]
    fn derived_numbers() {
        let report = synthetic_report();
        let row = &report.rows[0];
        assert_eq!(row.bytes, 2 << 30);
        let copy = row.copy_gbs().unwrap();
        assert!((copy - 2.0 * 1073741824.0 / 0.36e6).abs() < 1e-6);
        assert!((row.ours_pct_copy().unwrap() - 72.0).abs() < 1e-9);
        assert!((row.cufft_over_ours().unwrap() - 1.1).abs() < 1e-9);
        assert!(row.ours_passed());
        assert_eq!(report.rows[1].cufft_over_ours(), None);
    }

    #[test]
    fn markdown_has_a_header_and_one_row_per_size() {
        let mut report = synthetic_report();
        report.rows[2]
            .notes
            .push("ours: NVRTC failed to compile for sm_90; log:\nline 1\nline 2".into());
        let markdown = report.to_markdown();
        let table: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(table.len(), 2 + report.rows.len(), "{markdown}");
        assert!(
            table[0].contains("| N |")
                && table[0].contains("cuFFT ms")
                && table[0].contains("OpenCL ms")
        );
        assert!(table[1].chars().all(|c| matches!(c, '|' | '-' | ':')));
        let columns = table[0].matches('|').count();
        for (line, row) in table[2..].iter().zip(&report.rows) {
            assert!(
                line.starts_with(&format!("| {} | {} |", row.n, row.batch)),
                "{line}"
            );
            assert_eq!(line.matches('|').count(), columns, "{line}");
        }
        assert!(markdown.contains("N = 1000: cuFFT: cufftPlanMany failed:"));
        assert!(markdown.contains("2026-11-20T12:34:56Z"));
        // Multi-line notes keep their first line only.
        assert!(markdown.contains(
            "N = 4096: ours: NVRTC failed to compile for sm_90; log: [...; full text in the JSON]"
        ));
        assert!(!markdown.contains("line 1"));
    }

    #[test]
    fn json_holds_the_setting_and_every_row() {
        let report = synthetic_report();
        let value: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert_eq!(value["device"], "NVIDIA H100 80GB HBM3 <test & co>");
        assert_eq!(value["date_utc"], "2026-11-20T12:34:56Z");
        assert_eq!(value["command"], "fftgen bench --sizes 256,1000,4096");
        assert_eq!(value["precision"], "f32");
        let rows = value["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0]["n"], 256);
        assert_eq!(rows[0]["ours"]["median_ms"], 0.5);
        assert!((rows[0]["ours_pct_copy"].as_f64().unwrap() - 72.0).abs() < 1e-9);
        assert!(rows[1]["cufft"].is_null());
        assert!(rows[1]["cufft_over_ours"].is_null());
        let copy = value["copy_bandwidth_gbs"].as_array().unwrap();
        assert_eq!(copy.len(), 3);
        assert_eq!(copy[2]["n"], 4096);
        assert!(copy[2]["gbs"].as_f64().unwrap() > 5000.0);
    }

    #[test]
    fn text_table_is_aligned() {
        let text = synthetic_report().to_text();
        let lines: Vec<&str> = text.lines().skip(1).take(4).collect();
        let titles: Vec<&str> = lines[0].split_whitespace().take(3).collect();
        assert_eq!(titles, ["N", "batch", "prec"], "{text}");
        // Right-aligned numeric columns end at the same place in every line.
        let end = lines[0].find("ours ms").unwrap() + "ours ms".len();
        for line in &lines[1..] {
            assert!(
                line[..end].ends_with(|c: char| c.is_ascii_digit()),
                "{text}"
            );
        }
        assert!(
            text.contains("N = 1000: cuFFT: cufftPlanMany failed:"),
            "{text}"
        );
    }

    /// The synthetic report with a 2D shape of two passes and a 1D length
    /// of three passes whose cuFFT plan failed.
    fn report_with_shapes() -> BenchReport {
        let mut report = synthetic_report();
        let mut square = BenchRow::for_shape(&[1024, 1024], 128, Precision::F32);
        square.passes = 2;
        square.copy = Some(Timing::constant(0.36));
        square.ours = Some(Timing::constant(0.90));
        square.ours_inverse = Some(Timing::constant(0.91));
        square.cufft = Some(Timing::constant(0.99));
        square.checked_transforms = 1;
        square.ours_error = Some(5.0e-8);
        square.ours_inverse_error = Some(5.1e-8);
        square.ours_unwritten = Some(0);
        square.cufft_error = Some(6.0e-8);
        square.cufft_unwritten = Some(0);
        square.plan_creation = Some(PlanCreation {
            cold_ms: 812.4,
            disk_ms: 3.25,
            memory_ms: 0.5,
        });
        report.rows.push(square);
        let mut long = BenchRow::for_shape(&[1 << 30], 1, Precision::F32);
        long.passes = 3;
        long.notes
            .push("one transform is 8192 MiB, more than the 1024 MiB batch: batch 1".into());
        long.notes
            .push("cuFFT: cufftPlanMany failed: CUFFT_INVALID_SIZE".into());
        report.rows.push(long);
        report
    }

    #[test]
    fn shape_rows_name_their_axes_and_passes() {
        let report = report_with_shapes();
        let square = &report.rows[3];
        assert_eq!(
            (square.n, square.label()),
            (1 << 20, "1024x1024".to_string())
        );
        // The bytes one launch must move: 2 * points * 8 * batch, as for 1D.
        assert_eq!(square.bytes, 2 << 30);
        assert!((square.ours_pct_copy().unwrap() - 40.0).abs() < 1e-9);
        assert!((square.cufft_over_ours().unwrap() - 1.1).abs() < 1e-9);
        // The tolerance counts every point.
        assert_eq!(
            square.tolerance,
            crate::accuracy::tolerance(1 << 20, Precision::F32)
        );
        assert!(square.ours_passed());

        let markdown = report.to_markdown();
        let table: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).collect();
        assert!(table[0].contains("| prec | passes |"), "{}", table[0]);
        assert!(
            table[2].starts_with("| 256 | 524288 | f32 | 1 |"),
            "{}",
            table[2]
        );
        let row = table[5];
        assert!(
            row.starts_with("| 1024x1024 | 128 | f32 | 2 | 0.9000 |"),
            "{row}"
        );
        assert!(row.ends_with("| 812/3.2/0.50 |"), "{row}");
        assert!(
            table[6].starts_with("| 1073741824 | 1 | f32 | 3 | - |"),
            "{}",
            table[6]
        );
        assert!(
            markdown.contains("- N = 1073741824: cuFFT: cufftPlanMany failed: CUFFT_INVALID_SIZE")
        );
        assert!(markdown.contains("- N = 1073741824: one transform is 8192 MiB"));
        let text = report.to_text();
        assert!(text.contains("1024x1024"), "{text}");

        let value: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        let rows = value["rows"].as_array().unwrap();
        assert_eq!(rows[3]["axes"], serde_json::json!([1024, 1024]));
        assert_eq!(rows[3]["n"], 1 << 20);
        assert_eq!(rows[3]["passes"], 2);
        assert_eq!(rows[3]["plan_creation"]["cold_ms"], 812.4);
        assert!((rows[3]["ours_pct_copy"].as_f64().unwrap() - 40.0).abs() < 1e-9);
        assert!(rows[4]["cufft"].is_null() && rows[4]["cufft_over_ours"].is_null());
        assert_eq!(rows[0]["axes"], serde_json::json!([256]));
    }

    /// A report of the real transform of 4096: its R2C and C2R rows.
    fn real_report() -> BenchReport {
        let sides = RealSides::new(&[4096]);
        let batch = sides.batch(Precision::F32);
        let rows = [Direction::Forward, Direction::Inverse]
            .into_iter()
            .map(|direction| {
                let mut row = BenchRow::real(&[4096], batch, Precision::F32, direction);
                row.passes = 1;
                row.copy = Some(Timing::constant(0.36));
                row.ours = Some(Timing::constant(0.40));
                row.cufft = Some(Timing::constant(0.44));
                row.checked_transforms = 64;
                row.ours_error = Some(3.0e-8);
                row.ours_unwritten = Some(0);
                row.cufft_error = Some(4.0e-8);
                row.cufft_unwritten = Some(0);
                row
            })
            .collect();
        BenchReport {
            command: "fftgen bench --kind r2c --n 4096".into(),
            rows,
            ..synthetic_report()
        }
    }

    #[test]
    fn real_rows_name_their_transform_and_count_both_sides() {
        let report = real_report();
        let (r2c, c2r) = (&report.rows[0], &report.rows[1]);
        assert_eq!(r2c.label(), "r2c 4096 forward");
        assert_eq!(c2r.label(), "c2r 4096 inverse");
        assert_eq!((r2c.transform(), c2r.transform()), ("r2c", "c2r"));
        // The reals and the half spectrum, once each.
        let batch = r2c.batch as u64;
        assert_eq!(r2c.bytes, batch * (4096 * 4 + 2049 * 8));
        assert_eq!(c2r.bytes, r2c.bytes);
        assert!((r2c.cufft_over_ours().unwrap() - 1.1).abs() < 1e-9);
        // A real row passes on its own direction's error.
        assert!(r2c.ours_passed() && c2r.ours_passed());
        let mut wrong = c2r.clone();
        wrong.ours_error = Some(1.0);
        assert!(!wrong.ours_passed());
        // A complex row still needs both directions.
        let mut complex = BenchRow::new(4096, 1, Precision::F32);
        complex.ours = Some(Timing::constant(1.0));
        complex.ours_error = Some(1e-8);
        complex.ours_unwritten = Some(0);
        assert!(!complex.ours_passed());

        let markdown = report.to_markdown();
        assert!(
            markdown.starts_with("### f32 batched R2C and C2R FFT,"),
            "{markdown}"
        );
        assert!(markdown.contains("cuFFT's R2C or C2R"), "{markdown}");
        let table: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).collect();
        assert!(
            table[2].starts_with(&format!(
                "| r2c 4096 forward | {batch} | f32 | 1 | 0.4000 | - |"
            )),
            "{}",
            table[2]
        );
        assert!(table[3].starts_with("| c2r 4096 inverse |"), "{}", table[3]);
        // Our error next to cuFFT's.
        assert!(table[3].contains("| 3.00e-8 | 4.00e-8 |"), "{}", table[3]);
        assert!(synthetic_report()
            .to_markdown()
            .starts_with("### f32 batched C2C FFT,"));

        let value: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        let rows = value["rows"].as_array().unwrap();
        assert_eq!(rows[0]["transform"], "r2c");
        assert_eq!(rows[1]["transform"], "c2r");
        assert_eq!(rows[1]["kind"], "r2c");
        assert_eq!(rows[1]["direction"], "inverse");
        let complex: serde_json::Value =
            serde_json::from_str(&synthetic_report().to_json()).unwrap();
        assert_eq!(complex["rows"][0]["transform"], "c2c");
        assert!(complex["rows"][0]["direction"].is_null());
        let text = report.to_text();
        assert!(text.contains("c2r 4096 inverse"), "{text}");
        let svg = crate::bench::svg::render_report(&report);
        assert!(svg.contains(">r2c 4096 forward</text>"), "{svg}");
    }

    #[test]
    fn drawn_reports_name_their_draw_and_each_rows_precision() {
        let mut report = synthetic_report();
        let mut f64_row = BenchRow::for_shape(&[64, 48], 1 << 14, Precision::F64);
        f64_row.notes.push("drawn".into());
        report.rows.insert(1, f64_row);
        report.precision = None;
        report.random = Some(RandomDraw {
            count: 4,
            seed: 7,
            from: 0,
        });
        report.command = "fftgen bench --random 4 --seed 7".into();
        assert_eq!(report.precisions(), "f32 and f64");
        let markdown = report.to_markdown();
        assert!(
            markdown.starts_with("### f32 and f64 batched C2C FFT,"),
            "{markdown}"
        );
        let listing = "`fftgen bench --random 4 --seed 7 --list` lists them";
        assert!(markdown.contains("4 cases (shape, precision, kind) drawn at random with seed 7"));
        assert!(markdown.contains(listing), "{markdown}");
        let table: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).collect();
        // The rows keep the order they ran in, each with its precision.
        assert!(
            table[3].starts_with("| 64x48 | 16384 | f64 |"),
            "{}",
            table[3]
        );
        assert!(
            table[4].starts_with("| 1000 | 134217 | f32 |"),
            "{}",
            table[4]
        );
        let text = report.to_text();
        assert!(
            text.lines().next().unwrap().contains(", f32 and f64, "),
            "{text}"
        );
        assert!(text.contains(listing), "{text}");
        let value: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert!(value["precision"].is_null());
        assert_eq!(
            value["random"],
            serde_json::json!({"count": 4, "seed": 7, "from": 0})
        );
        // A part of a draw says which cases it timed.
        report.random = Some(RandomDraw {
            count: 4,
            seed: 7,
            from: 2,
        });
        let part = report.to_markdown();
        assert!(
            part.contains("Cases 3 to 4 of 4 (shape, precision, kind) drawn at random with seed 7"),
            "{part}"
        );
        assert_eq!(value["rows"][1]["precision"], "f64");
        // Listed shapes: one precision, no draw.
        let listed: serde_json::Value =
            serde_json::from_str(&synthetic_report().to_json()).unwrap();
        assert_eq!(listed["precision"], "f32");
        assert!(listed["random"].is_null());
        assert!(!synthetic_report().to_text().contains("drawn at random"));
    }

    #[test]
    fn utc_timestamps() {
        let at = |secs: u64| utc_timestamp(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(at(4_102_444_799), "2099-12-31T23:59:59Z");
    }
}
