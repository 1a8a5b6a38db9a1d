//! The transform options every subcommand shares, and the canonical command
//! line that reproduces them (written into generated headers).

use clap::{Args, ValueEnum};
use fftgen::{Direction, FftSpec, Normalization, Placement, Precision, ShapeChoices, Target};
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
