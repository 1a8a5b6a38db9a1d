//! `fftgen bench`: our CUDA kernels against cuFFT and a device-to-device
//! copy on one GPU, with the same buffers, data and timing method for all
//! (CUDA events around groups of launches, median per launch; see
//! [`timing`]), plus the accuracy of each against the f64 reference and,
//! where NVIDIA's OpenCL platform is present, our OpenCL kernels on the same
//! GPU. The method follows the workplace's measuring rules: a batch large
//! enough to fill the chip and leave the caches (1 GiB in, 1 GiB out),
//! random never-zero data, poisoned outputs before the checked run, and the
//! copy bandwidth measured alongside as the ceiling of a memory-bound FFT.
//! Any shape the planner accepts is measured: 1D lengths of one kernel or
//! of several passes (four-step), and 2D and 3D shapes; a transform larger
//! than the 1 GiB batch runs alone, in buffers grown to hold it. Real
//! transforms (`--kind r2c`) give two rows per shape, the R2C and the C2R,
//! each against cuFFT's R2C or C2R on the same input ([`real`]).
//!
//! - [`case`]: what a run times, case by case (shape, precision, kind);
//!   [`random_shapes`]: cases drawn at random from a seed (`--random`).
//! - [`runner`]: the run itself (device buffers, per-case loop).
//! - [`timing`]: event-timed groups and their median.
//! - [`cufft`]: a batched cuFFT plan on our buffers (C2C, R2C, C2R).
//! - [`real`]: the sides, batch and bytes of real transforms.
//! - [`opencl`]: the same kernels through OpenCL, timed with profiling events.
//! - [`report`], [`svg`]: rows, console table, Markdown, JSON, and the plot.
//! - [`tune`]: `fftgen tune`, shapes around the plan timed against each other.

pub mod case;
pub mod cufft;
pub mod distributed;
pub mod fit;
pub mod opencl;
pub mod random_shapes;
pub mod real;
pub mod report;
pub mod runner;
pub mod stage_graph;
pub mod svg;
pub mod timing;
pub mod tune;

pub use case::BenchCase;
pub use random_shapes::RandomDraw;
pub use report::{BenchReport, BenchRow};
pub use runner::run;
pub use timing::{Schedule, Timing};

use crate::shape::Shape;
use fftgen::{Precision, TransformKind};
use fftgen_runtime::Real;
use std::path::{Path, PathBuf};

/// Bytes of each device buffer (input and output, and for real transforms
/// the C2R's half spectra): 1 GiB, far beyond the L2 cache, so every launch
/// streams from and to device memory.
pub const BUFFER_BYTES: usize = 1 << 30;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchConfig {
    /// What to time, in this order: each case a shape in its own precision
    /// as its own kind (`r2c`: its R2C and C2R each a row).
    pub cases: Vec<BenchCase>,
    /// How `cases` were drawn, when `--random` drew them (the report says so).
    pub draw: Option<RandomDraw>,
    pub schedule: Schedule,
    /// CUDA device ordinal.
    pub device: usize,
    /// Whether to time the OpenCL kernels too (when an NVIDIA platform exists).
    pub opencl: bool,
    /// Seed of the random input.
    pub seed: u64,
    /// The command line, recorded in the report.
    pub command: String,
    /// Choices to make instead of the planner, by shape (for comparing
    /// schedules; the report's rows name the shape used).
    pub overrides: std::collections::BTreeMap<crate::shape::Shape, fftgen::ShapeChoices>,
    /// Measure each case's plan within this budget first (`--measure`) and
    /// time the winner as ours; `None` times the estimate.
    pub measure: Option<std::time::Duration>,
}

impl BenchConfig {
    /// The default run for `precision`: `c2c` of [`default_shapes`] in
    /// increasing order of points, 3 warm-ups, 7 groups of 10 launches,
    /// device 0, OpenCL on, seed 1.
    pub fn new(precision: Precision) -> Self {
        BenchConfig {
            cases: BenchCase::listed(&default_shapes(precision), precision, TransformKind::C2c),
            draw: None,
            schedule: Schedule::default(),
            device: 0,
            opencl: true,
            seed: 1,
            command: String::new(),
            overrides: Default::default(),
            measure: None,
        }
    }
}

/// The shapes `fftgen bench` times in `precision` when no `--sizes` are
/// given: [`default_sizes`] and [`default_large_shapes`].
pub fn default_shapes(precision: Precision) -> Vec<Shape> {
    default_sizes(precision)
        .into_iter()
        .map(|n| vec![n])
        .chain(default_large_shapes(precision))
        .map(Shape)
        .collect()
}

/// Every power of two from 2 up to the largest single-kernel size (4096),
/// plus, for f32, composite sizes of each supported
/// prime: 1000, 1331 (11^3), 2187 (3^7), 2197 (13^3), 2401 (7^4), 3125 (5^5)
/// and 4000. Sorted.
pub fn default_sizes(precision: Precision) -> Vec<usize> {
    let largest = fftgen::plan::pass_planner::max_size(precision);
    let mut sizes: Vec<usize> = (1..)
        .map(|k| 1usize << k)
        .take_while(|&n| n <= largest)
        .collect();
    if precision == Precision::F32 {
        sizes.extend([1000, 1331, 2187, 2197, 2401, 3125, 4000]);
    }
    sizes.sort_unstable();
    sizes
}

/// The shapes users run past one kernel of static shared memory: sizes
/// that are not powers of two to 24576 (one kernel with opt-in shared
/// memory on Hopper), 2^13..2^27 and 3^10, 5^7, 10^5, 10^6 (two and three
/// passes), 2D and 3D. In f64, a few of each.
pub fn default_large_shapes(precision: Precision) -> Vec<Vec<usize>> {
    let mut shapes: Vec<Vec<usize>> = match precision {
        Precision::F32 => [5000, 6561, 10000, 12000, 15625, 20000, 24576]
            .into_iter()
            .chain((13..=27).map(|k| 1usize << k))
            .chain([59049, 78125, 100000, 1000000])
            .map(|n| vec![n])
            .collect(),
        Precision::F64 => [5000, 6561, 8192, 10000, 1 << 16, 1 << 20]
            .into_iter()
            .map(|n| vec![n])
            .collect(),
    };
    shapes.extend(match precision {
        Precision::F32 => vec![
            vec![1000, 1000],
            vec![1024, 1024],
            vec![4096, 4096],
            vec![256, 256, 256],
            vec![512, 512, 512],
        ],
        Precision::F64 => vec![vec![1024, 1024]],
    });
    shapes
}

/// The default lengths of real transforms: every power of two from 2 up to
/// twice the largest single-kernel complex size (a real axis of even N runs
/// a complex FFT of N / 2), plus, for f32, [`default_sizes`]' other sizes
/// (odd ones run a complex FFT of N). Sorted.
pub fn default_real_sizes(precision: Precision) -> Vec<usize> {
    let largest = 2 * fftgen::plan::pass_planner::max_size(precision);
    let mut sizes: Vec<usize> = (1..)
        .map(|k| 1usize << k)
        .take_while(|&n| n <= largest)
        .collect();
    sizes.extend(
        default_sizes(precision)
            .into_iter()
            .filter(|n| !n.is_power_of_two()),
    );
    sizes.sort_unstable();
    sizes
}

/// Complex values each buffer holds: 2^27 for f32, 2^26 for f64.
pub fn buffer_complex(precision: Precision) -> usize {
    BUFFER_BYTES / precision.complex_bytes()
}

/// Transforms per launch for transforms of `points` elements: as many as
/// fill 1 GiB, and at least one (a transform larger than that runs alone;
/// [`larger_than_batch`] says so).
pub fn batch_for(points: usize, precision: Precision) -> usize {
    (buffer_complex(precision) / points.max(1)).max(1)
}

/// Why a transform of `points` elements runs alone, when one is larger than
/// the 1 GiB batch: the note its row carries.
pub fn larger_than_batch(points: usize, precision: Precision) -> Option<String> {
    let bytes = points as u64 * precision.complex_bytes() as u64;
    (bytes > BUFFER_BYTES as u64).then(|| {
        format!(
            "one transform is {} MiB, more than the {} MiB batch: batch 1, in buffers of its size",
            bytes >> 20,
            BUFFER_BYTES >> 20
        )
    })
}

/// Reals each of the two device buffers holds for `shapes`: 1 GiB, or one
/// transform of the largest shape when that is larger.
pub fn buffer_reals(shapes: &[Shape], precision: Precision) -> usize {
    let largest = shapes.iter().map(Shape::points).max().unwrap_or(0);
    2 * buffer_complex(precision).max(largest)
}

/// Where to write the report; `None` skips that form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    pub json: Option<PathBuf>,
    pub svg: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
}

impl Outputs {
    /// Writes each requested form of `report`, creating parent folders, and
    /// returns the paths written.
    pub fn write(&self, report: &BenchReport) -> Result<Vec<PathBuf>, BenchError> {
        let forms = [
            (&self.json, report.to_json()),
            (&self.svg, svg::render_report(report)),
            (&self.markdown, report.to_markdown()),
        ];
        let mut written = Vec::new();
        for (path, text) in forms {
            if let Some(path) = path {
                write_file(path, &text)?;
                written.push(path.clone());
            }
        }
        Ok(written)
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), BenchError> {
    let failed = |e: std::io::Error| BenchError::Write {
        path: path.display().to_string(),
        error: e.to_string(),
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    std::fs::write(path, text).map_err(failed)
}

/// `f32` or `f64` as the benchmark handles them on the host.
pub trait Sample: Real + Into<f64> {
    /// `x` rounded to this precision.
    fn from_f64(x: f64) -> Self;
}

impl Sample for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Sample for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
}

/// Why the benchmark could not run at all (failures at one size are notes in
/// its row instead).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The CUDA driver library cannot be loaded.
    #[error(
        "no CUDA driver (libcuda.so) could be loaded; `fftgen bench` and `fftgen tune` need an NVIDIA GPU and its \
         driver (use `fftgen check --backend opencl` elsewhere)"
    )]
    NoCudaDriver,
    /// A CUDA driver call failed.
    #[error("CUDA call {call} failed: {error}")]
    Driver {
        call: String,
        error: fftgen_runtime::cudarc::driver::DriverError,
    },
    /// The runtime refused or failed (device missing, NVRTC missing, a launch).
    #[error(transparent)]
    Runtime(#[from] fftgen_runtime::Error),
    /// The generator refused a size.
    #[error(transparent)]
    Generate(#[from] fftgen::Error),
    #[error(transparent)]
    Cufft(#[from] cufft::CufftFailure),
    /// An OpenCL call failed.
    #[error("OpenCL: {0}")]
    OpenCl(String),
    /// The configuration asks for something impossible.
    #[error("{0}")]
    Invalid(String),
    /// A result file could not be written.
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: String },
}

impl From<fftgen_runtime::planner::PlanError> for BenchError {
    fn from(error: fftgen_runtime::planner::PlanError) -> Self {
        match error {
            fftgen_runtime::planner::PlanError::Generate(e) => BenchError::Generate(e),
            fftgen_runtime::planner::PlanError::Runtime(e) => BenchError::Runtime(e),
        }
    }
}

impl BenchError {
    /// A failed driver call.
    pub fn driver(
        call: impl Into<String>,
        error: fftgen_runtime::cudarc::driver::DriverError,
    ) -> Self {
        BenchError::Driver {
            call: call.into(),
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sizes_and_batches() {
        let f32_sizes = default_sizes(Precision::F32);
        assert_eq!(f32_sizes.len(), 12 + 7);
        assert_eq!((f32_sizes[0], *f32_sizes.last().unwrap()), (2, 4096));
        assert!(f32_sizes.windows(2).all(|w| w[0] < w[1]));
        assert!(f32_sizes.contains(&2197) && f32_sizes.contains(&1000));
        let f64_sizes = default_sizes(Precision::F64);
        assert_eq!(f64_sizes, (1..=12).map(|k| 1 << k).collect::<Vec<_>>());
        // 1 GiB of input either way.
        assert_eq!(batch_for(4096, Precision::F32) * 4096 * 8, BUFFER_BYTES);
        assert_eq!(batch_for(2048, Precision::F64) * 2048 * 16, BUFFER_BYTES);
        assert_eq!(batch_for(1000, Precision::F32), 134_217);
    }

    #[test]
    fn batches_of_shapes_fill_a_gib_and_hold_at_least_one_transform() {
        let shape = |text: &str| crate::shape::parse_shape(text).unwrap();
        // 2D and 3D shapes count all their points.
        assert_eq!(batch_for(shape("1024x1024").points(), Precision::F32), 128);
        assert_eq!(batch_for(shape("4096x4096").points(), Precision::F32), 8);
        assert_eq!(batch_for(shape("256x256x256").points(), Precision::F32), 8);
        assert_eq!(batch_for(shape("256x256x256").points(), Precision::F64), 4);
        assert_eq!(batch_for(59049, Precision::F32), 2272);
        // 2^27 f32 points are exactly 1 GiB: one transform, no note.
        assert_eq!(batch_for(1 << 27, Precision::F32), 1);
        assert_eq!(larger_than_batch(1 << 27, Precision::F32), None);
        // Larger transforms run alone, and their rows say so.
        assert_eq!(batch_for(1 << 30, Precision::F32), 1);
        assert_eq!(batch_for(1 << 27, Precision::F64), 1);
        let note = larger_than_batch(1 << 30, Precision::F32).unwrap();
        assert!(
            note.contains("8192 MiB") && note.contains("batch 1"),
            "{note}"
        );
        assert!(larger_than_batch(1 << 27, Precision::F64).is_some());
        // The buffers grow to hold the largest transform, never below 1 GiB.
        let reals = |shapes: &[&str], precision| {
            let shapes: Vec<Shape> = shapes.iter().map(|s| shape(s)).collect();
            buffer_reals(&shapes, precision)
        };
        assert_eq!(reals(&["8192", "1024x1024"], Precision::F32), 1 << 28);
        assert_eq!(reals(&["8192", "1073741824"], Precision::F32), 1 << 31);
        assert_eq!(reals(&[], Precision::F64), 1 << 27);
    }

    #[test]
    fn outputs_write_every_requested_form() {
        let dir = std::env::temp_dir().join(format!("fftgen-bench-outputs-{}", std::process::id()));
        let outputs = Outputs {
            json: Some(dir.join("nested/bench.json")),
            svg: Some(dir.join("bench.svg")),
            markdown: None,
        };
        let written = outputs.write(&report::tests::synthetic_report()).unwrap();
        assert_eq!(written.len(), 2);
        let json = std::fs::read_to_string(dir.join("nested/bench.json")).unwrap();
        assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
        assert!(std::fs::read_to_string(dir.join("bench.svg"))
            .unwrap()
            .ends_with("</svg>\n"));
        assert!(!dir.join("bench.md").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
