//! The transform options every subcommand shares, and the canonical command
//! line that reproduces them (written into generated headers).

use crate::Failure;
use clap::{Args, ValueEnum};
use fftgen::{Direction, FftSpec, Normalization, Placement, Precision, ShapeChoices, Target};
use fftgen_cli::bench::Schedule;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct TransformArgs {
    /// Transform length.
    #[arg(long)]
    pub n: usize,
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

impl TransformArgs {
    pub fn spec(&self) -> FftSpec {
        let mut spec = FftSpec::new(self.n)
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
        spec
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
    /// Seed of the random input.
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
