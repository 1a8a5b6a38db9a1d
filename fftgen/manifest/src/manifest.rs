//! The launch manifest: everything a host program needs to run generated
//! kernels (entry points, launch shapes, shared memory, arguments), as plain
//! data that serialises to JSON so that users of any language can launch the
//! kernels. The generator writes it; the runtime reads it. It is the only
//! contract between the two (cuFFTDx keeps description and execution apart the
//! same way).

use crate::{
    Backend, Blocks, Direction, Element, Layout, Normalization, Placement, Precision, TransformKind,
};
use serde::{Deserialize, Serialize};

/// The launch description of every kernel generated for one FFT size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Version of the generator that wrote the kernels.
    pub generator_version: String,
    /// Points of one transform: the product of `shape`.
    pub n: usize,
    /// Length of each axis, row-major (the last axis contiguous by default);
    /// for `r2c`, of the real side.
    pub shape: Vec<usize>,
    /// `c2c`, or `r2c`: real input, half-spectrum output forward (R2C), the
    /// reverse inverse (C2R). Absent in manifests older than real transforms.
    #[serde(default)]
    pub kind: TransformKind,
    pub precision: Precision,
    pub normalization: Normalization,
    pub placement: Placement,
    /// Where the forward direction's input elements are (in place: the
    /// data's). For `r2c`, the real side, in real elements (in place, rows
    /// padded to `2 (n / 2 + 1)` reals, as cuFFT and FFTW lay them out).
    pub input: Layout,
    /// Where the forward direction's output elements are (in place: the
    /// same buffer as `input`). For `r2c`, the half spectrum, in complex
    /// elements. The inverse (C2R) reads this side and writes `input`'s.
    pub output: Layout,
    /// Where the buffer of `input`'s side is cut into the blocks of an
    /// exchange (a local step of a transform spread over GPUs): its
    /// transforms lie [`Blocks::transform_elements`] apart, the padding of
    /// an axis cut unevenly included. Absent: the layout says it all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_blocks: Option<Blocks>,
    /// The same for the buffer of `output`'s side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_blocks: Option<Blocks>,
    /// Complex elements of scratch memory per transform of the batch that
    /// the passes need (0: none). Allocate `batch * scratch_elements`
    /// elements, or pass a buffer of at least that many.
    pub scratch_elements: usize,
    /// One entry per direction that was generated.
    pub transforms: Vec<TransformLaunch>,
    /// Twiddle tables the kernels read through a [`KernelArg::Twiddles`]
    /// argument, as (re, im) pairs computed in f64. The runtime rounds each
    /// to the manifest's precision once and uploads it once per plan; both
    /// directions share a table (the inverse kernels conjugate).
    #[serde(default)]
    pub twiddle_tables: Vec<Vec<[f64; 2]>>,
}

/// The passes that together compute one transform in one direction, run in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransformLaunch {
    pub direction: Direction,
    pub passes: Vec<PassLaunch>,
}

/// How to launch one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassLaunch {
    /// Entry point in both the CUDA and the OpenCL source.
    pub kernel: String,
    /// Threads per block (CUDA) or work-group size (OpenCL).
    pub block: [u32; 3],
    /// How many blocks to launch for a given batch.
    pub grid: GridRule,
    /// Statically declared shared (local) memory, bytes.
    pub shared_bytes: u32,
    /// Dynamic shared memory to launch with, bytes (CUDA; above 48 KiB the
    /// kernel's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` must be
    /// raised to it first). 0 for kernels with static shared memory only.
    #[serde(default)]
    pub dynamic_shared_bytes: u32,
    /// The buffer the pass reads.
    pub reads: Buffer,
    /// The buffer the pass writes.
    pub writes: Buffer,
    /// Kernel arguments, in order.
    pub args: Vec<KernelArg>,
}

/// A buffer the passes of a transform read or write. In place, the input
/// and the output are the one data buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Buffer {
    Input,
    Output,
    /// The plan's workspace ([`Manifest::scratch_elements`]).
    Scratch,
}

/// The rule that turns a batch count into a grid size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum GridRule {
    /// `grid.x = ceil(ceil(batch / transforms_per_fft) * ffts_per_transform
    /// / ffts_per_block)`, `grid.y = grid.z = 1`: a pass along one axis of a
    /// multi-dimensional transform (or one step of a long one) computes
    /// `ffts_per_transform` short FFTs per transform of the batch. (A real
    /// axis whose rows pair up, two to each complex FFT, counts rows in
    /// both numbers; a pass whose FFTs each compute two transforms of the
    /// batch at once has `transforms_per_fft` 2, and counts pairs.)
    FftsPerBlock {
        ffts_per_block: u32,
        #[serde(default = "one")]
        ffts_per_transform: u64,
        #[serde(default = "one", skip_serializing_if = "is_one")]
        transforms_per_fft: u64,
    },
}

fn one() -> u64 {
    1
}

fn is_one(value: &u64) -> bool {
    *value == 1
}

impl GridRule {
    /// Blocks in x, y, z for `batch` transforms.
    pub fn grid(&self, batch: usize) -> [usize; 3] {
        match *self {
            GridRule::FftsPerBlock {
                ffts_per_block,
                ffts_per_transform,
                transforms_per_fft,
            } => [
                ((batch as u64).div_ceil(transforms_per_fft.max(1)) * ffts_per_transform)
                    .div_ceil(u64::from(ffts_per_block)) as usize,
                1,
                1,
            ],
        }
    }
}

/// One kernel argument, by role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum KernelArg {
    /// Pointer to the input buffer (read only).
    Input { name: String },
    /// Pointer to the output buffer (write only).
    Output { name: String },
    /// Pointer to the buffer that is read and overwritten (in place).
    InOut { name: String },
    /// Number of transforms in the batch, as an unsigned 32-bit integer.
    BatchCount { name: String },
    /// Pointer to twiddle table `table` of [`Manifest::twiddle_tables`] in
    /// the manifest's precision (read only). A kernel argument rather than
    /// a table in the source: NVIDIA's OpenCL serves program-scope
    /// `__constant` arrays through the constant cache, which serialises a
    /// warp's reads of different twiddles (up to 5.5x slower kernels).
    Twiddles { name: String, table: usize },
}

impl Manifest {
    /// The launch description of `direction`, if it was generated.
    pub fn transform(&self, direction: Direction) -> Option<&TransformLaunch> {
        self.transforms.iter().find(|t| t.direction == direction)
    }

    /// The forward direction's input side: real for `r2c`.
    fn forward_input(&self) -> Side<'_> {
        Side {
            element: match self.kind {
                TransformKind::C2c => Element::Complex,
                TransformKind::R2c => Element::Real,
            },
            shape: self.shape.clone(),
            layout: &self.input,
            blocks: self.input_blocks,
        }
    }

    /// The forward direction's output side: the half spectrum for `r2c`.
    fn forward_output(&self) -> Side<'_> {
        Side {
            element: Element::Complex,
            shape: self.kind.complex_shape(&self.shape),
            layout: &self.output,
            blocks: self.output_blocks,
        }
    }

    /// What the input buffer of `direction` holds: for the inverse of an
    /// `r2c` transform (C2R), the forward output's side.
    pub fn input_side(&self, direction: Direction) -> Side<'_> {
        match (self.kind, direction) {
            (TransformKind::R2c, Direction::Inverse) => self.forward_output(),
            _ => self.forward_input(),
        }
    }

    /// What the output buffer of `direction` holds: for the inverse of an
    /// `r2c` transform (C2R), the forward input's side.
    pub fn output_side(&self, direction: Direction) -> Side<'_> {
        match (self.kind, direction) {
            (TransformKind::R2c, Direction::Inverse) => self.forward_input(),
            _ => self.forward_output(),
        }
    }

    /// Elements (of its side's type) the input buffer of `batch`
    /// transforms in `direction` needs.
    pub fn input_elements(&self, direction: Direction, batch: usize) -> usize {
        self.input_side(direction).elements(batch)
    }

    /// Elements (of its side's type) the output buffer of `batch`
    /// transforms in `direction` needs.
    pub fn output_elements(&self, direction: Direction, batch: usize) -> usize {
        self.output_side(direction).elements(batch)
    }

    /// Whether both sides are dense batches, transform after transform.
    pub fn is_contiguous(&self) -> bool {
        let input = self.forward_input();
        let output = self.forward_output();
        input.layout.is_contiguous(&input.shape) && output.layout.is_contiguous(&output.shape)
    }

    /// Reads a manifest written by the generator.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The twiddle tables as the kernels read them: interleaved (re, im),
    /// rounded once from f64 to the manifest's precision, in the host's byte
    /// order (which the GPU shares: both are little-endian). Upload each once
    /// per plan and pass it where a [`KernelArg::Twiddles`] names it.
    pub fn twiddle_bytes(&self) -> Vec<Vec<u8>> {
        self.twiddle_tables
            .iter()
            .map(|table| {
                let values = table.iter().flatten();
                match self.precision {
                    Precision::F32 => values.flat_map(|&v| (v as f32).to_ne_bytes()).collect(),
                    Precision::F64 => values.flat_map(|&v| v.to_ne_bytes()).collect(),
                }
            })
            .collect()
    }

    /// The manifest as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a manifest always serialises")
    }
}

/// One side of a transform in one direction: the type, shape and layout of
/// the elements its buffer holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side<'a> {
    pub element: Element,
    /// The side's shape: for the complex side of `r2c`, the half spectrum.
    pub shape: Vec<usize>,
    pub layout: &'a Layout,
    /// The blocks its buffer is cut into, if it is.
    pub blocks: Option<Blocks>,
}

impl Side<'_> {
    /// Elements a buffer of `batch` transforms needs: in blocks, each run of
    /// the transforms the blocks cover takes every block, padding included.
    pub fn elements(&self, batch: usize) -> usize {
        match self.blocks.filter(|b| !b.is_identity()) {
            Some(blocks) => {
                let covered = (blocks.natural_elements() / self.layout.distance.max(1)).max(1);
                batch.div_ceil(covered) * blocks.transform_elements()
            }
            None => self.layout.elements(&self.shape, batch),
        }
    }

    /// Bytes a buffer of `batch` transforms needs in `precision`.
    pub fn bytes(&self, precision: Precision, batch: usize) -> usize {
        self.elements(batch) * self.element.bytes(precision)
    }
}

/// Kernels generated at build time by `fft_kernel!`: the type the macro
/// defines implements this trait, so the runtime can load it like a plan made
/// at run time.
pub trait StaticKernels {
    /// The CUDA C++ source of every kernel.
    const CUDA_SOURCE: &'static str;
    /// The OpenCL C source of every kernel.
    const OPENCL_SOURCE: &'static str;
    /// The manifest, as JSON.
    const MANIFEST_JSON: &'static str;

    /// The manifest, parsed.
    fn manifest() -> Manifest {
        Manifest::from_json(Self::MANIFEST_JSON).expect("fft_kernel! writes a valid manifest")
    }

    /// The source for `backend`.
    fn source(backend: Backend) -> &'static str {
        match backend {
            Backend::Cuda => Self::CUDA_SOURCE,
            Backend::OpenCl => Self::OPENCL_SOURCE,
        }
    }
}
