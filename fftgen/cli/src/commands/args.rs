//! The transform options every subcommand shares, and the canonical command
//! line that reproduces them (written into generated headers): the shape
//! (`--n 4096`, `--n 1024x1024`, `--n 64x48x40`, row-major with the last axis
//! contiguous) and cufftPlanMany-style layouts (`--input-strides 1040,1
//! --input-distance 1040000`, the same for the output), as
//! [`fftgen::FftSpec::emit_command`] prints them.

use crate::Failure;
use clap::{Args, ValueEnum};
use fftgen::{
    Direction, FftSpec, Layout, Normalization, Placement, Precision, ShapeChoices, Target,
    TransformKind,
};
use fftgen_cli::bench::Schedule;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct TransformArgs {
    /// Transform shape: a length (`4096`) or axes joined by `x`
    /// (`1024x1024`, `64x48x40`), row-major, the last axis contiguous.
    #[arg(long = "n", value_name = "SHAPE", value_parser = parse_shape)]
    pub shape: Shape,
    /// c2c, or r2c: real input and its half spectrum (last axis n/2 + 1),
    /// forward R2C and inverse C2R (numpy's rfftn/irfftn). Layouts of r2c
    /// count the input in reals and the output in complex values.
    #[arg(long, default_value = "c2c")]
    pub kind: TransformKind,
    /// Elements between neighbours along each axis of the input, first axis
    /// first (`1040,1`); with --input-distance. Default: dense.
    #[arg(long, value_name = "S1,S2,..", value_delimiter = ',')]
    pub input_strides: Option<Vec<usize>>,
    /// Elements between the first elements of consecutive input transforms;
    /// with --input-strides.
    #[arg(long, value_name = "ELEMENTS")]
    pub input_distance: Option<usize>,
    /// Like --input-strides, for the output (out of place only).
    #[arg(long, value_name = "S1,S2,..", value_delimiter = ',')]
    pub output_strides: Option<Vec<usize>>,
    /// Like --input-distance, for the output; with --output-strides.
    #[arg(long, value_name = "ELEMENTS")]
    pub output_distance: Option<usize>,
    #[command(flatten)]
    pub choices: ShapeChoices,
    /// The device to plan for, by preset: portable (the default: any GPU,
    /// either backend), cuda, h100, h200, opencl-nvidia, pocl. Its limits
    /// bound the shape, and shapes measured on its GPU model (wisdom) win.
    #[arg(long)]
    pub target: Option<Target>,
    /// A wisdom file (written by `fftgen tune --write-wisdom`) consulted
    /// before the built-in ones; FFTGEN_WISDOM names one otherwise.
    #[arg(long)]
    pub wisdom: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32)]
    pub precision: PrecisionArg,
    #[arg(long, value_enum, default_value_t = DirectionArg::Both)]
    pub direction: DirectionArg,
    #[arg(long, value_enum, default_value_t = NormalizationArg::None)]
    pub normalization: NormalizationArg,
    #[arg(long, value_enum, default_value_t = PlacementArg::OutOfPlace)]
    pub placement: PlacementArg,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum PrecisionArg {
    F32,
    F64,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum DirectionArg {
    Forward,
    Inverse,
    Both,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum NormalizationArg {
    /// No scaling (cuFFT, FFTW, RustFFT).
    None,
    /// 1/N on the inverse transform (numpy).
    Inverse,
    /// 1/sqrt(N) both ways.
    Unitary,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum PlacementArg {
    OutOfPlace,
    InPlace,
}

pub use fftgen_cli::shape::{parse_shape, Shape};

impl TransformArgs {
    /// The spec the options describe, its layouts checked.
    pub fn spec(&self) -> Result<FftSpec, Failure> {
        let shape = &self.shape.0;
        // The last axis's length is the planner's to check, with its messages.
        if shape[..shape.len() - 1].contains(&0) {
            return Err(Failure::Usage(format!(
                "the shape {shape:?} has an axis of length 0; every length must be at least 1"
            )));
        }
        let mut spec = FftSpec::with_shape(shape)
            .kind(self.kind)
            .precision(match self.precision {
                PrecisionArg::F32 => Precision::F32,
                PrecisionArg::F64 => Precision::F64,
            })
            .directions(match self.direction {
                DirectionArg::Forward => &[Direction::Forward],
                DirectionArg::Inverse => &[Direction::Inverse],
                DirectionArg::Both => &[Direction::Forward, Direction::Inverse],
            })
            .normalization(match self.normalization {
                NormalizationArg::None => Normalization::None,
                NormalizationArg::Inverse => Normalization::Inverse,
                NormalizationArg::Unitary => Normalization::Unitary,
            })
            .placement(match self.placement {
                PlacementArg::OutOfPlace => Placement::OutOfPlace,
                PlacementArg::InPlace => Placement::InPlace,
            });
        spec.choices = self.choices.clone();
        spec.target = self.target.clone();
        spec.wisdom = self.wisdom.clone();
        let input = layout("input", shape, &self.input_strides, self.input_distance)?;
        let complex_shape = self.kind.complex_shape(shape);
        let output = layout(
            "output",
            &complex_shape,
            &self.output_strides,
            self.output_distance,
        )?;
        if output.is_some() && spec.placement == Placement::InPlace {
            return Err(Failure::Usage(
                "--output-strides and --output-distance are for out-of-place transforms; in \
                 place the output is the input's layout (give --input-strides and \
                 --input-distance)"
                    .into(),
            ));
        }
        spec.input_layout = input;
        spec.output_layout = output;
        Ok(spec)
    }
}

/// The layout `--{role}-strides` and `--{role}-distance` give, checked
/// against `shape`; `None` when neither is given (dense).
fn layout(
    role: &str,
    shape: &[usize],
    strides: &Option<Vec<usize>>,
    distance: Option<usize>,
) -> Result<Option<Layout>, Failure> {
    let layout = match (strides, distance) {
        (None, None) => return Ok(None),
        (Some(strides), Some(distance)) => Layout {
            strides: strides.clone(),
            distance,
        },
        _ => {
            return Err(Failure::Usage(format!(
                "--{role}-strides and --{role}-distance go together; give both (e.g. \
                 --{role}-strides {} --{role}-distance {})",
                Layout::contiguous(shape)
                    .strides
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                shape.iter().product::<usize>()
            )))
        }
    };
    layout.check(shape).map_err(|why| {
        Failure::Usage(format!(
            "the {role} layout does not hold shape {shape:?}: {why}; give one stride per axis \
             (first axis first), each stepping over the faster axes' extent, and a distance \
             of at least one transform's span"
        ))
    })?;
    if layout.batches_overlap(shape) {
        return Err(Failure::Usage(format!(
            "--{role}-distance {} is less than one transform's span ({} elements), so \
             transforms of the batch would overlap; give a distance of at least {}",
            layout.distance,
            layout.span(shape),
            layout.span(shape)
        )));
    }
    Ok(Some(layout))
}

/// Measured planning (FFTW's MEASURE), on `plan`, `check` and `bench`.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeasureArgs {
    /// Time the planner's best few candidates on the CUDA device and plan
    /// with the fastest, kept per user (under the disk cache directory, per
    /// GPU model and driver) so that the next plan of the spec measures
    /// nothing. Without it the planner estimates.
    #[arg(long)]
    pub measure: bool,
    /// With --measure, the most milliseconds timing one spec's candidates
    /// may take (the estimate is timed whatever it costs; compiling them
    /// comes before, and is cached on disk).
    #[arg(long, requires = "measure", default_value_t = 1000, value_name = "MS")]
    pub measure_budget_ms: u64,
}

impl MeasureArgs {
    /// The budget, where --measure was given.
    pub fn budget(&self) -> Option<std::time::Duration> {
        self.measure
            .then(|| std::time::Duration::from_millis(self.measure_budget_ms))
    }
}

/// How `bench` and `tune` run and time on the GPU.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Launches per timed group (events bracket each group).
    #[arg(long, default_value_t = Schedule::default().repeats)]
    pub repeats: usize,
    /// Timed groups per contender and size; the median is reported
    /// (default: 7 for bench, 5 for tune).
    #[arg(long)]
    pub groups: Option<usize>,
    /// Untimed launches before the groups.
    #[arg(long, default_value_t = Schedule::default().warmup)]
    pub warmup: usize,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Seed of the random input (and of the cases `bench --random` draws).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl RunArgs {
    /// The timing schedule, with `default_groups` unless given.
    pub fn schedule(&self, default_groups: usize) -> Result<Schedule, Failure> {
        let groups = self.groups.unwrap_or(default_groups);
        if self.repeats == 0 || groups == 0 {
            return Err(Failure::Usage(
                "--repeats and --groups must be at least 1".into(),
            ));
        }
        Ok(Schedule {
            warmup: self.warmup,
            repeats: self.repeats,
            groups,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches, Parser};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The options as `fftgen plan` takes them.
    #[derive(Parser, Debug)]
    struct PlanCommand {
        #[command(flatten)]
        transform: TransformArgs,
    }

    /// A value for `flag`, valid or not: what a user might type.
    fn value(rng: &mut ChaCha8Rng, flag: &str) -> String {
        let pick = |rng: &mut ChaCha8Rng, options: &[&str]| {
            options[rng.gen_range(0..options.len())].to_string()
        };
        let numbers = [
            "0", "1", "2", "3", "8", "16", "64", "125", "1000", "4096", "-1", "x",
        ];
        let list = |rng: &mut ChaCha8Rng| {
            let len = rng.gen_range(1..5);
            (0..len)
                .map(|_| pick(rng, &numbers))
                .collect::<Vec<_>>()
                .join(",")
        };
        if rng.gen_bool(0.15) {
            return pick(
                rng,
                &[
                    "",
                    "18446744073709551616",
                    "18446744073709551615",
                    "1,,2",
                    "ab",
                ],
            );
        }
        match flag {
            "--n" => pick(
                rng,
                &[
                    "4096",
                    "6561",
                    "1x1024",
                    "64x48x40",
                    "1000x1022",
                    "0",
                    "12x",
                    "x",
                    "2x3x4x5",
                    "1",
                ],
            ),
            "--kind" => pick(rng, &["c2c", "r2c", "c2r"]),
            "--radix" | "--split" | "--input-strides" | "--output-strides" => list(rng),
            "--precision" => pick(rng, &["f32", "f64", "f16"]),
            "--placement" => pick(rng, &["in-place", "out-of-place", "inplace"]),
            "--target" => pick(
                rng,
                &["portable", "h100", "h200", "pocl", "opencl-nvidia", "a100"],
            ),
            "--exchange-width" => pick(rng, &["both-parts", "one-part-at-a-time", "interleaved"]),
            "--exchange-buffers" => pick(rng, &["reused", "alternating"]),
            "--column-io" => pick(rng, &["tile", "global"]),
            "--first-write" => pick(rng, &["after-barrier", "immediate"]),
            _ => pick(rng, &numbers),
        }
    }

    /// Random `fftgen plan` command lines, valid and not, through the parser,
    /// the spec and the planner: each plans or is refused with one line,
    /// never a panic.
    #[test]
    fn random_command_lines_plan_or_are_refused_and_never_panic() {
        let flags = [
            "--n",
            "--kind",
            "--radix",
            "--split",
            "--threads-per-fft",
            "--ffts-per-block",
            "--min-blocks-per-sm",
            "--input-strides",
            "--input-distance",
            "--output-strides",
            "--output-distance",
            "--precision",
            "--placement",
            "--target",
            "--exchange-width",
            "--exchange-buffers",
            "--column-io",
            "--first-write",
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(2026_11_25);
        let (mut planned, mut refused) = (0, 0);
        for case in 0..600 {
            let mut args = vec!["plan".to_string(), "--n".into(), value(&mut rng, "--n")];
            for _ in 0..rng.gen_range(0..5) {
                let flag = flags[rng.gen_range(0..flags.len())];
                args.extend([flag.to_string(), value(&mut rng, flag)]);
            }
            let line = args.join(" ");
            let outcome = std::panic::catch_unwind(|| -> Result<(), String> {
                let text = |e: clap::Error| e.to_string();
                let matches = PlanCommand::command()
                    .try_get_matches_from(&args)
                    .map_err(text)?;
                let command = PlanCommand::from_arg_matches(&matches).map_err(text)?;
                let spec = command.transform.spec().map_err(|failure| match failure {
                    Failure::Usage(message) => message,
                    Failure::Inaccurate => "inaccurate".into(),
                })?;
                match fftgen::plan::plan(&spec) {
                    Ok(_) => Ok(()),
                    // The planner's refusals are one line.
                    Err(e) if e.to_string().contains('\n') => panic!("{e}"),
                    Err(e) => Err(e.to_string()),
                }
            });
            match outcome {
                Ok(Ok(())) => planned += 1,
                Ok(Err(message)) => {
                    refused += 1;
                    assert!(!message.trim().is_empty(), "case {case}: {line}");
                }
                Err(_) => panic!("case {case}: `{line}` panicked"),
            }
        }
        eprintln!("{planned} planned, {refused} refused");
        assert!(
            planned > 30 && refused > 100,
            "{planned} planned, {refused} refused"
        );
    }
}
