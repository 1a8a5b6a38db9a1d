//! The transform options every subcommand shares, and the canonical command
//! line that reproduces them (written into generated headers).

use clap::{Args, ValueEnum};
use fftgen::plan::measured::TUNED_GPUS;
use fftgen::plan::{ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch};
use fftgen::spec::ShapeOverride;
use fftgen::{Backend, Direction, FftSpec, Normalization, Placement, Precision};

#[derive(Args, Debug, Clone)]
pub struct TransformArgs {
    /// Transform length.
    #[arg(long)]
    pub n: usize,
    /// Radix sequence, first stage first (e.g. 8,8,8,8); the planner chooses when omitted.
    #[arg(long, value_delimiter = ',')]
    pub radix: Option<Vec<usize>>,
    /// Threads per transform; the planner chooses when omitted.
    #[arg(long)]
    pub threads_per_fft: Option<usize>,
    /// CUDA launch bound: blocks that must fit on one SM together (caps
    /// registers per thread); the occupancy model chooses when omitted.
    #[arg(long)]
    pub min_blocks_per_sm: Option<usize>,
    /// Transforms per block; the planner chooses when omitted.
    #[arg(long)]
    pub ffts_per_block: Option<usize>,
    /// Caches the input loads go through (l2-only skips L1, CUDA only); the
    /// planner chooses when omitted.
    #[arg(long)]
    pub input_caching: Option<InputCaching>,
    /// Shared exchange arrays: one set reused by every stage (two barriers
    /// per exchange) or two written in turn (one barrier, twice the shared
    /// memory); the planner chooses when omitted.
    #[arg(long)]
    pub exchange_buffers: Option<ExchangeBuffers>,
    /// Complex values through shared memory: both parts at once, or the real
    /// parts then the imaginary parts (half the shared memory, twice the
    /// barriers); the planner chooses when omitted.
    #[arg(long)]
    pub exchange_width: Option<ExchangeWidth>,
    /// Whether the block synchronises before the first stage's shared-memory
    /// writes (after-barrier) or each warp stores at once (immediate); the
    /// planner chooses when omitted.
    #[arg(long)]
    pub first_write: Option<FirstWrite>,
    /// Which exchanges get a searched shared-memory padding: those of even
    /// radices or of all radices; the planner chooses when omitted.
    #[arg(long)]
    pub padding_search: Option<PaddingSearch>,
    /// Use the shapes measured on this GPU model where there are some; the
    /// runtime and the bench choose it from the device's name.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(TUNED_GPUS))]
    pub gpu: Option<String>,
    /// Tune the launch shape for this backend's limits; by default the shape
    /// runs on every backend.
    #[arg(long, value_enum)]
    pub target: Option<TargetArg>,
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
pub enum TargetArg {
    Cuda,
    Opencl,
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
        spec = ShapeOverride {
            radices: self.radix.clone(),
            threads_per_fft: self.threads_per_fft,
            min_blocks_per_sm: self.min_blocks_per_sm,
            ffts_per_block: self.ffts_per_block,
            input_caching: self.input_caching,
            exchange_buffers: self.exchange_buffers,
            exchange_width: self.exchange_width,
            first_write: self.first_write,
            padding_search: self.padding_search,
        }
        .apply(spec);
        if let Some(gpu) = &self.gpu {
            spec = spec.gpu(gpu.clone());
        }
        if let Some(target) = self.target {
            spec = spec.target(match target {
                TargetArg::Cuda => Backend::Cuda,
                TargetArg::Opencl => Backend::OpenCl,
            });
        }
        spec
    }
}
