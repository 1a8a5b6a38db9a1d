//! The transform the user asks for, before any decision about how to compute
//! it (cuFFTDx's "description", kept apart from the execution shape in
//! [`crate::plan`]).

use crate::plan::{ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch};
use crate::{Backend, Direction, Normalization, Placement, Precision};
use serde::Serialize;

/// A batched, contiguous, interleaved complex-to-complex FFT request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FftSpec {
    /// Transform length.
    pub n: usize,
    pub precision: Precision,
    /// Directions to generate kernels for (one source file holds them all).
    pub directions: Vec<Direction>,
    pub normalization: Normalization,
    pub placement: Placement,
    /// The radix sequence to use, first stage first; `None` lets the planner choose.
    pub radices: Option<Vec<usize>>,
    /// Threads that cooperate on one transform; `None` lets the planner
    /// choose. Fewer threads hold more values each (more registers, fewer
    /// idle lanes); more threads hold fewer (more resident warps). A tuner
    /// or a user who measured sets it.
    pub threads_per_fft: Option<usize>,
    /// Blocks that must fit on one multiprocessor together (CUDA's launch
    /// bounds, which cap registers per thread); `None` lets the occupancy
    /// model choose. OpenCL C has no such hint and ignores it.
    pub min_blocks_per_sm: Option<usize>,
    /// Transforms one block computes; `None` lets the planner fill about 256
    /// threads. More per block share barriers; fewer let blocks finish and
    /// start independently.
    pub ffts_per_block: Option<usize>,
    /// Which caches the input loads go through; `None` lets the planner
    /// choose (L1 and L2 unless measured otherwise).
    pub input_caching: Option<InputCaching>,
    /// One set of shared exchange arrays or two written in turn; `None` lets
    /// the planner choose (one unless measured otherwise).
    pub exchange_buffers: Option<ExchangeBuffers>,
    /// Both parts of each complex value through shared memory at once, or
    /// the real parts then the imaginary parts; `None` lets the planner
    /// choose (both where they fit, unless measured otherwise).
    pub exchange_width: Option<ExchangeWidth>,
    /// Whether the block synchronises before the first stage's shared-memory
    /// writes; `None` lets the planner choose (it does, unless measured
    /// otherwise).
    pub first_write: Option<FirstWrite>,
    /// Which exchanges get a searched shared-memory padding; `None` lets the
    /// planner choose (even radices unless measured otherwise).
    pub padding_search: Option<PaddingSearch>,
    /// The GPU model the plan is for, as a key of the measured table
    /// (`fftgen/src/plan/measured.rs`, e.g. `H200`): shapes measured on that
    /// model win over those measured for any GPU. The runtime fills it from
    /// the device's name; `None` plans for any GPU.
    pub gpu: Option<String>,
    /// The backend whose limits the launch shape may use; `None` plans a
    /// shape every backend launches. NVIDIA's OpenCL driver refuses the
    /// fftgen kernels work-groups over 256 threads that CUDA runs, so a few
    /// sizes have a faster CUDA-only shape (`fftgen/src/plan/measured.rs`).
    pub target: Option<Backend>,
}

impl FftSpec {
    /// A forward and inverse, out-of-place, unnormalised f32 transform of length `n`.
    pub fn new(n: usize) -> Self {
        FftSpec {
            n,
            precision: Precision::F32,
            directions: vec![Direction::Forward, Direction::Inverse],
            normalization: Normalization::None,
            placement: Placement::OutOfPlace,
            radices: None,
            threads_per_fft: None,
            min_blocks_per_sm: None,
            ffts_per_block: None,
            input_caching: None,
            exchange_buffers: None,
            exchange_width: None,
            first_write: None,
            padding_search: None,
            gpu: None,
            target: None,
        }
    }

    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    pub fn directions(mut self, directions: &[Direction]) -> Self {
        self.directions = directions.to_vec();
        self
    }

    pub fn normalization(mut self, normalization: Normalization) -> Self {
        self.normalization = normalization;
        self
    }

    pub fn placement(mut self, placement: Placement) -> Self {
        self.placement = placement;
        self
    }

    pub fn radices(mut self, radices: &[usize]) -> Self {
        self.radices = Some(radices.to_vec());
        self
    }

    pub fn threads_per_fft(mut self, threads: usize) -> Self {
        self.threads_per_fft = Some(threads);
        self
    }

    pub fn min_blocks_per_sm(mut self, blocks: usize) -> Self {
        self.min_blocks_per_sm = Some(blocks);
        self
    }

    pub fn ffts_per_block(mut self, ffts: usize) -> Self {
        self.ffts_per_block = Some(ffts);
        self
    }

    pub fn input_caching(mut self, caching: InputCaching) -> Self {
        self.input_caching = Some(caching);
        self
    }

    pub fn exchange_buffers(mut self, buffers: ExchangeBuffers) -> Self {
        self.exchange_buffers = Some(buffers);
        self
    }

    pub fn exchange_width(mut self, width: ExchangeWidth) -> Self {
        self.exchange_width = Some(width);
        self
    }

    pub fn first_write(mut self, first_write: FirstWrite) -> Self {
        self.first_write = Some(first_write);
        self
    }

    pub fn padding_search(mut self, search: PaddingSearch) -> Self {
        self.padding_search = Some(search);
        self
    }

    pub fn gpu(mut self, model: impl Into<String>) -> Self {
        self.gpu = Some(model.into());
        self
    }

    pub fn target(mut self, backend: Backend) -> Self {
        self.target = Some(backend);
        self
    }

    /// The `fftgen emit` command line that generates this spec, every option
    /// spelled out; generated headers carry it so the file can be reproduced.
    pub fn emit_command(&self) -> String {
        let mut line = format!("fftgen emit --n {}", self.n);
        if let Some(radices) = &self.radices {
            let list: Vec<String> = radices.iter().map(|r| r.to_string()).collect();
            line.push_str(&format!(" --radix {}", list.join(",")));
        }
        if let Some(threads) = self.threads_per_fft {
            line.push_str(&format!(" --threads-per-fft {threads}"));
        }
        if let Some(blocks) = self.min_blocks_per_sm {
            line.push_str(&format!(" --min-blocks-per-sm {blocks}"));
        }
        if let Some(ffts) = self.ffts_per_block {
            line.push_str(&format!(" --ffts-per-block {ffts}"));
        }
        if let Some(caching) = self.input_caching {
            line.push_str(&format!(" --input-caching {caching}"));
        }
        if let Some(buffers) = self.exchange_buffers {
            line.push_str(&format!(" --exchange-buffers {buffers}"));
        }
        if let Some(width) = self.exchange_width {
            line.push_str(&format!(" --exchange-width {width}"));
        }
        if let Some(first_write) = self.first_write {
            line.push_str(&format!(" --first-write {first_write}"));
        }
        if let Some(search) = self.padding_search {
            line.push_str(&format!(" --padding-search {search}"));
        }
        if let Some(backend) = self.target {
            line.push_str(&format!(" --target {backend}"));
        }
        if let Some(gpu) = &self.gpu {
            line.push_str(&format!(" --gpu {gpu}"));
        }
        let direction = match self.directions.as_slice() {
            [single] => single.to_string(),
            _ => "both".to_string(),
        };
        line.push_str(&format!(
            " --precision {} --direction {direction} --normalization {} --placement {}",
            self.precision, self.normalization, self.placement
        ));
        line
    }
}

/// Planner choices fixed by hand for one size: what a tuner varies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShapeOverride {
    pub radices: Option<Vec<usize>>,
    pub threads_per_fft: Option<usize>,
    pub min_blocks_per_sm: Option<usize>,
    pub ffts_per_block: Option<usize>,
    pub input_caching: Option<InputCaching>,
    pub exchange_buffers: Option<ExchangeBuffers>,
    pub exchange_width: Option<ExchangeWidth>,
    pub first_write: Option<FirstWrite>,
    pub padding_search: Option<PaddingSearch>,
}

impl ShapeOverride {
    /// `spec` with these choices in place of the planner's.
    pub fn apply(&self, mut spec: FftSpec) -> FftSpec {
        if let Some(radices) = &self.radices {
            spec = spec.radices(radices);
        }
        if let Some(threads) = self.threads_per_fft {
            spec = spec.threads_per_fft(threads);
        }
        if let Some(blocks) = self.min_blocks_per_sm {
            spec = spec.min_blocks_per_sm(blocks);
        }
        if let Some(ffts) = self.ffts_per_block {
            spec = spec.ffts_per_block(ffts);
        }
        if let Some(caching) = self.input_caching {
            spec = spec.input_caching(caching);
        }
        if let Some(buffers) = self.exchange_buffers {
            spec = spec.exchange_buffers(buffers);
        }
        if let Some(width) = self.exchange_width {
            spec = spec.exchange_width(width);
        }
        if let Some(first_write) = self.first_write {
            spec = spec.first_write(first_write);
        }
        if let Some(search) = self.padding_search {
            spec = spec.padding_search(search);
        }
        spec
    }
}
