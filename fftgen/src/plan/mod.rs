//! The execution plan: how a transform is computed, as plain data (RustFFT's
//! Recipe, cuFFTDx's execution description). Planning code holds every
//! heuristic, in layers whose imports point one way: [`decompose`] decides
//! how a transform splits into passes (one kernel, several per axis in
//! [`multipass`], the real axis apart in [`real`]), and [`pass_planner`]
//! shapes each pass without knowing the others. Lowering and emission only
//! read a [`Plan`], so a tuner can later make plans of its own and tests can
//! assert their shape.

pub mod axes;
pub mod choices;
pub mod cost;
pub mod decompose;
pub mod factor;
pub mod fused_axes;
pub mod invariants;
pub mod measure;
pub mod multipass;
pub mod one_kernel;
pub mod padding;
pub mod pass_planner;
pub mod radix;
pub mod real;
pub mod real_shape;
pub mod real_step;
pub mod wisdom;

pub use choices::ShapeChoices;
pub use cost::{CostModel, PlanModel, ScheduleFeatures};
pub use decompose::{plan, plan_with_wisdom};
pub use fused_axes::{FusedAxes, RowStrides};
pub use padding::{Padding, PaddingSearch};
pub use pass_planner::MAX_SINGLE_KERNEL;
pub use wisdom::{PassScope, Wisdom, WisdomEntry, WisdomFile, WISDOM_ENV};

pub mod access;
pub mod bluestein;
mod chirp_fusion;
mod minor_stride;
mod padded_row;
pub mod rader;
pub mod split;
pub mod validate;
pub mod variants;

pub use access::{Access, Column, StepTwiddle, StepTwiddleForm};
pub use bluestein::{AxisSide, Chirp, ChirpRole};
pub use rader::Rader;
pub use real_step::{AxisIndex, MirroredColumns, RealEnd, RealRoute, RealStep};

use crate::{Direction, Layout, Normalization, Placement, Precision, TransformKind};
use serde::{Deserialize, Serialize};

/// A complete plan: what to compute and the passes that compute it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Points of one transform: the product of `shape`.
    pub n: usize,
    /// Length of each axis, row-major (for `r2c`, of the real side).
    pub shape: Vec<usize>,
    /// `c2c`, or `r2c`: the forward passes are the R2C, [`Plan::inverse_passes`] the C2R.
    pub kind: TransformKind,
    pub precision: Precision,
    pub directions: Vec<Direction>,
    pub normalization: Normalization,
    pub placement: Placement,
    /// Where the forward input's elements are (in place, the data's); for
    /// `r2c` the reals, in real elements.
    pub input_layout: Layout,
    /// Where the forward output's elements are; for `r2c` the half
    /// spectrum. The C2R reads this side and writes the input's.
    pub output_layout: Layout,
    /// Complex elements of workspace per transform of the batch (0: none):
    /// intermediate results that may not overwrite the input or that a
    /// pass cannot write over what it reads.
    pub scratch_elements: usize,
    /// How each axis (row-major, like `shape`) is split into passes: the
    /// lengths of its passes' FFTs, first pass first (one length for an
    /// axis one pass computes).
    pub axis_factors: Vec<Vec<usize>>,
    /// How the column passes move their strided sides.
    pub column_io: ColumnIo,
    /// Kernels run one after another: one for a 1D transform that fits a
    /// block, one per axis of a multi-dimensional one, two or three per
    /// axis longer than a block holds (the four-step FFT). For `r2c`, the
    /// R2C: the real axis first.
    pub passes: Vec<Pass>,
    /// For `r2c`, the C2R's passes: the complex axes first, the real axis
    /// last (its pre-processing needs the whole spectrum of each row). Empty
    /// for `c2c`, whose inverse runs [`Plan::passes`].
    pub inverse_passes: Vec<Pass>,
    /// The points the normalization divides by where they are not `n`: a
    /// local step of a transform spread over several GPUs scales by the
    /// whole transform's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalization_points: Option<usize>,
}

impl Plan {
    /// The plan `json` holds (as `fftgen plan --json` writes it, or this
    /// type serialises), if it keeps every invariant of
    /// [`invariants::check`] on `target`: a plan edited by hand into one
    /// whose kernels would compute a wrong answer is refused.
    pub fn from_json(json: &str, target: &crate::Target) -> Result<Plan, crate::Error> {
        let bad = |reason: String| crate::Error::BadPlanJson { reason };
        let plan: Plan = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
        invariants::check(&plan, target).map_err(|e| match e {
            crate::Error::BrokenPlan { pass, n, reason } => {
                bad(format!("pass {pass} ({n} points): {reason}"))
            }
            other => other,
        })?;
        Ok(plan)
    }

    /// The points the normalization divides by.
    pub fn normalized_points(&self) -> usize {
        self.normalization_points.unwrap_or(self.n)
    }

    /// The passes `direction` runs, in order.
    pub fn passes_of(&self, direction: Direction) -> &[Pass] {
        match (self.kind, direction) {
            (TransformKind::R2c, Direction::Inverse) => &self.inverse_passes,
            _ => &self.passes,
        }
    }

    /// Every pass of the plan, each direction's in order (a pass shared by
    /// both directions appears twice).
    pub fn all_passes(&self) -> impl Iterator<Item = (Direction, &Pass)> {
        self.directions
            .iter()
            .flat_map(move |&d| self.passes_of(d).iter().map(move |p| (d, p)))
    }

    /// The shape of the complex side (for `r2c`, the half spectrum).
    pub fn complex_shape(&self) -> Vec<usize> {
        self.kind.complex_shape(&self.shape)
    }

    /// Whether `pass` reads and writes one buffer (in place, the input is
    /// the output), so its kernel takes one in-out pointer.
    pub fn writes_in_place(&self, pass: &Pass) -> bool {
        let access = &pass.access;
        access.in_place()
            || (self.placement == Placement::InPlace
                && access.reads != crate::Buffer::Scratch
                && access.writes != crate::Buffer::Scratch)
    }

    /// Bytes one transform's passes read and write in global memory (the
    /// forward direction's; for `r2c`, the real side's passes count the
    /// reals and the half spectrum they move).
    pub fn bytes_moved(&self) -> usize {
        match self.kind {
            // Bluestein's rows are longer than the axis, and its steps read
            // or write the axis's points.
            TransformKind::C2c if self.passes.iter().any(|p| p.chirp.is_some()) => {
                self.passes.iter().map(|pass| pass.bytes_moved(self)).sum()
            }
            TransformKind::C2c => self.passes.len() * 2 * self.n * self.precision.complex_bytes(),
            TransformKind::R2c => self.passes.iter().map(|pass| pass.bytes_moved(self)).sum(),
        }
    }
}

/// One kernel: the shared-memory Stockham FFT of seed 000, Fig. 4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pass {
    /// Length of the FFTs this kernel computes.
    pub n: usize,
    /// Radix stages, first to last.
    pub stages: Vec<Stage>,
    /// Threads that cooperate on one FFT (T in seed 000).
    pub threads_per_fft: usize,
    /// Complex values each thread holds in registers at most.
    pub values_per_thread: usize,
    /// FFTs computed by one block, so small sizes still fill a block.
    pub ffts_per_block: usize,
    pub threads_per_block: usize,
    /// Blocks that must fit on one multiprocessor together (CUDA's launch
    /// bounds): the register budget per thread follows from it. A one-pass
    /// FFT is memory bound, so it wants many bytes in flight per SM.
    pub min_blocks_per_sm: usize,
    pub lanes: LaneLayout,
    /// How the kernel reads its input from global memory.
    pub io: GlobalIo,
    /// How the kernel writes its output to global memory.
    pub output_io: GlobalIo,
    /// Which buffers, and where in them, the FFTs of this pass are.
    pub access: Access,
    /// The four-step twiddle the outputs are multiplied by, if any.
    pub step_twiddle: Option<StepTwiddle>,
    /// For the pass of an `r2c` plan along its real axis: how its FFTs meet
    /// the reals and the half spectrum (R2C forward, C2R inverse).
    pub real: Option<RealStep>,
    /// For the steps of Bluestein's algorithm that are not FFTs: which one,
    /// along an axis of how many points ([`bluestein`]). Such a pass has no
    /// stages; its `n` is the padded length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chirp: Option<Chirp>,
    /// Where the pass computes the DFT of several neighbouring axes at
    /// once ([`fused_axes`]): their lengths. Its `n` is their product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fused_axes: Option<FusedAxes>,
    /// Whether each FFT computes two transforms of the batch at once
    /// (transforms 2t and 2t + 1 as the real and imaginary parts of one
    /// complex row: [`bluestein`]'s odd real axis): the access addresses
    /// pair t (its distances two transforms'), the user's side's second row
    /// lies one transform, half the distance, past the first, and the
    /// launch counts pairs (the last of an odd batch has one transform).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transform_pairs: bool,
    /// Whether this pass scales its outputs by the plan's normalization
    /// (the last pass does, for the whole transform's length).
    pub normalizes: bool,
    /// Shared memory beyond the static limit, requested at launch (CUDA's
    /// opt-in dynamic shared memory); the arrays are then carved from it.
    pub dynamic_shared: bool,
    /// Which caches the loads of the input go through.
    pub input_caching: InputCaching,
    /// Shared-memory words (per real/imaginary array) between consecutive FFTs of a block.
    pub fft_stride: usize,
    /// How stages hand their outputs to the next through shared memory.
    pub exchange_width: ExchangeWidth,
    /// Whether every exchange reuses one set of shared arrays or stages
    /// write two sets in turn.
    pub exchange_buffers: ExchangeBuffers,
    /// Whether the block synchronises before the first stage's writes to
    /// shared memory.
    pub first_write: FirstWrite,
    /// Which exchanges had their padding searched (the paddings themselves
    /// are in the stages).
    pub padding_search: PaddingSearch,
    /// Which stages read their twiddles as a product of two short tables
    /// (each stage's form is in the stage).
    #[serde(default)]
    pub twiddle_tables: TwiddleTables,
    /// Static shared memory of the kernel: `ffts_per_block * fft_stride`
    /// values per array, in two arrays (real and imaginary) or one, once or
    /// twice ([`ExchangeBuffers`]).
    pub shared_bytes: usize,
    pub twiddles: Twiddles,
}

/// One radix-R step of the Stockham algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    pub radix: usize,
    /// Product of the radices of the earlier stages (Ns in seed 000).
    pub stride: usize,
    /// Butterflies each thread computes in this stage: ceil(N / (R * T)).
    pub butterflies_per_thread: usize,
    /// True when N / R is not a multiple of T, so a thread's last butterfly
    /// may not exist and is skipped.
    pub guarded: bool,
    /// Where this stage's twiddles start in the table; `None` when all are 1
    /// (the first stage).
    pub twiddle_offset: Option<usize>,
    /// How the stage reads its twiddles from its part of the table.
    #[serde(default)]
    pub twiddle_form: StageTwiddles,
    /// How this stage's outputs are laid out in shared memory for the next
    /// stage; `None` for the last stage, which writes global memory.
    pub exchange: Option<Padding>,
}

/// How much of each complex value crosses shared memory at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExchangeWidth {
    /// Real and imaginary parts in two arrays, exchanged together: two
    /// barriers per exchange.
    BothParts,
    /// One array that carries the real parts, then the imaginary parts: half
    /// the shared memory for four barriers per exchange. For transforms whose
    /// complex values do not fit in a block's static shared memory (f64
    /// N = 4096 is 64 KiB, over the 48 KiB limit; one part is 32 KiB), and
    /// wherever a measurement prefers the smaller footprint (more of the
    /// SM's unified L1/shared memory stays L1). Only with [`GlobalIo::Direct`].
    OnePartAtATime,
    /// Both parts at once in one array of complex values (`float2`,
    /// `double2`): one load or store per value instead of two, with the
    /// banks of an 8- or 16-byte element, for the same shared memory as
    /// [`ExchangeWidth::BothParts`]; a staged side (a column tile) copies
    /// whole values too. Not for the real steps that stage their sides.
    /// By choice (wisdom, the user), and for an f32 one-kernel block alone
    /// on its SM that reads direct twiddles (not Bluestein's or Rader's).
    Interleaved,
}

fftgen_manifest::text_enum!(ExchangeWidth as "an exchange width" {
    BothParts => "both-parts",
    OnePartAtATime => "one-part-at-a-time",
    Interleaved => "interleaved",
});

/// How many sets of exchange arrays the stages write in turn.
///
/// A stage may only overwrite an array once every thread has read the values
/// the previous exchange left there. With one set that takes a barrier
/// before each write as well as the one after it; with two, stage s writes
/// set s % 2, and the barrier after a write also ends the reads of the set
/// the next write reuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExchangeBuffers {
    /// One set for every exchange: two barriers per exchange, the least
    /// shared memory.
    Reused,
    /// Two sets written in turn: one barrier per exchange for twice the
    /// shared memory. Only with [`ExchangeWidth::BothParts`] and
    /// [`GlobalIo::Direct`] (the other layouts exist to save shared memory
    /// or stage the input through it).
    Alternating,
}

fftgen_manifest::text_enum!(ExchangeBuffers as "an exchange-buffer layout" {
    Reused => "reused",
    Alternating => "alternating",
});

/// Whether the block synchronises before the first stage's writes to shared
/// memory. With direct global input nothing has read shared memory before
/// them, so no barrier is needed for correctness; it only decides whether
/// every warp waits for the block's loads and first butterflies before any
/// stores, which changes how the compiler schedules the stage. Neither wins
/// everywhere (`docs/bench/h200_tune_round6_first_write_and_small.log`), so
/// it is measured per size and GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FirstWrite {
    /// A barrier first, like every later exchange write: the default.
    AfterBarrier,
    /// No barrier: each warp stores as soon as its butterflies are done.
    Immediate,
}

fftgen_manifest::text_enum!(FirstWrite as "a first-write choice" {
    AfterBarrier => "after-barrier",
    Immediate => "immediate",
});

/// How one stage reads its twiddles `w_span^(p r)` (span = stride * radix,
/// p < stride, 1 <= r < radix) from its part of the pass's table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StageTwiddles {
    /// One entry per twiddle, `(radix - 1) * stride` in all: one load each.
    #[default]
    Direct,
    /// `w^e = fine[e mod 2^fine_bits] * coarse[e >> fine_bits]` (the four-step
    /// twiddle's scheme): `2^fine_bits + ceil(span / 2^fine_bits)` entries,
    /// few enough to stay in L1 beside a large shared-memory exchange, for
    /// one more complex product per twiddle and about one more rounding.
    FineCoarse { fine_bits: u32 },
}

impl StageTwiddles {
    /// The form of a stage of `radix` at `stride` under `tables`, for
    /// complex values of `complex_bytes`: fine x coarse where the direct
    /// slice would pass [`TwiddleTables::LARGE_SLICE_BYTES`].
    pub fn for_stage(
        tables: TwiddleTables,
        radix: usize,
        stride: usize,
        complex_bytes: usize,
    ) -> StageTwiddles {
        let direct_bytes = (radix - 1) * stride * complex_bytes;
        match tables {
            TwiddleTables::SplitLarge if direct_bytes > TwiddleTables::LARGE_SLICE_BYTES => {
                // The fine table: the power of two nearest sqrt(span) from
                // above, so both tables are about sqrt(span) entries.
                let span = radix * stride;
                let fine_bits = span.isqrt().next_power_of_two().trailing_zeros();
                StageTwiddles::FineCoarse { fine_bits }
            }
            _ => StageTwiddles::Direct,
        }
    }

    /// Entries of the stage's part of the table.
    pub fn table_len(self, radix: usize, stride: usize) -> usize {
        match self {
            StageTwiddles::Direct => (radix - 1) * stride,
            StageTwiddles::FineCoarse { fine_bits } => {
                let fine = 1usize << fine_bits;
                fine + (radix * stride).div_ceil(fine)
            }
        }
    }
}

/// Which stages of a pass read their twiddles as fine x coarse
/// ([`StageTwiddles::FineCoarse`]). A large one-kernel pass fills most of an
/// SM's unified L1 and shared memory with its exchange, so a direct table
/// of about N entries streams from L2 at every stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TwiddleTables {
    /// Every stage reads one entry per twiddle.
    #[default]
    Direct,
    /// Stages whose direct slice passes [`TwiddleTables::LARGE_SLICE_BYTES`]
    /// read fine x coarse.
    SplitLarge,
}

impl TwiddleTables {
    /// A stage's direct slice past this many bytes is split.
    pub const LARGE_SLICE_BYTES: usize = 16 * 1024;
}

fftgen_manifest::text_enum!(TwiddleTables as "a twiddle-table choice" {
    Direct => "direct",
    SplitLarge => "split-large",
});

/// Which threads of a block work on which FFT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaneLayout {
    /// Thread `tid` works on FFT `tid / T` as its thread `tid % T`: for T of a
    /// warp or more, so a warp's accesses stay within one FFT.
    FftMajor,
    /// Thread `tid` works on FFT `tid % M` as its thread `tid / M`: for T
    /// under a warp, so a warp's lanes touch 32 different FFTs at the same
    /// index, which an odd `fft_stride` spreads over all banks.
    FftMinor,
}

/// How the kernel moves data between global and shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GlobalIo {
    /// The first stage reads and the last stage writes global memory directly;
    /// both access consecutive addresses across consecutive threads (the
    /// Stockham index pattern is unit-stride at both ends).
    Direct,
    /// The block copies its contiguous slice of the batch into shared memory
    /// (and out again) with unit-stride accesses: for small N, where one FFT
    /// is shorter than a warp's worth of loads.
    StagedThroughShared,
    /// The block's FFTs are neighbouring columns (points far apart,
    /// neighbouring FFTs adjacent): it copies the tile between global and
    /// shared memory with the FFTs fastest across threads, so a warp's
    /// accesses are runs of neighbouring columns (seed 000, Fig. 5,
    /// FftShMemCol). Also any side whose FFTs are not dense.
    ColumnTile,
}

/// How the passes of a multi-pass plan move the sides of their FFTs whose
/// points are strided in memory (columns). Either way a warp's accesses are
/// runs of neighbouring columns; they differ in what the data goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnIo {
    /// A tile of neighbouring columns copied through shared memory (seed
    /// 000 IV.C, Fig. 5, FftShMemCol): any FFT length, any side. The
    /// default.
    Tile,
    /// Straight between global memory and registers wherever a warp's
    /// lanes hold neighbouring columns that are adjacent in memory (FFTs of
    /// fewer threads than a warp): the global-memory FFT of seed 000 IV.A,
    /// whose passes of one radix-R step take no shared memory at all. Sides
    /// where that would not coalesce still go through the tile.
    Global,
}

fftgen_manifest::text_enum!(ColumnIo as "a column I/O choice" {
    Tile => "tile",
    Global => "global",
});

/// Which caches a kernel's loads of its input go through.
///
/// Each input value is read exactly once, while every transform of the batch
/// reads the same twiddle table again; in L1 the input only evicts the
/// table. Skipping L1 keeps the table there, but costs where neighbouring
/// warps would have shared a sector through L1, so it is chosen per size by
/// measurement (the wisdom files, [`super::Wisdom`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputCaching {
    /// The default: L1 and L2.
    L1AndL2,
    /// L2 only (CUDA's `ld.global.cg`). OpenCL C has no such hint; its
    /// kernels load normally.
    L2Only,
}

fftgen_manifest::text_enum!(InputCaching as "an input caching" {
    L1AndL2 => "l1-and-l2",
    L2Only => "l2-only",
});

/// Where twiddle factors come from.
///
/// Accuracy comes first: a table computed in f64 from exact angle reductions
/// and rounded once to the kernel's precision is correct to half an ulp,
/// better than on-the-fly `sincos` (one to two ulps, and slow when accurate)
/// and far better than recurrences. The table is at most N - R0 values and
/// stays in L1/L2. Constants inside a butterfly are inlined exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Twiddles {
    /// A table of `len` roots of unity in the kernel source.
    RoundedF64Table { len: usize },
}

impl Pass {
    /// Radices of the stages, first to last.
    pub fn radices(&self) -> Vec<usize> {
        self.stages.iter().map(|s| s.radix).collect()
    }

    /// Whether the pass has two stages or more and exchanges through one
    /// set of shared arrays of both parts: Bluestein's algorithm in one
    /// kernel needs it, its second FFT reading what the first left there.
    pub fn exchanges_through_one_set(&self) -> bool {
        self.stages.len() >= 2
            && self.exchange_buffers == ExchangeBuffers::Reused
            && self.exchange_width != ExchangeWidth::OnePartAtATime
    }

    /// D of the stage whose earlier stages span `stride`: its twiddles are
    /// `w_{stride R / D}^{(p / D) r}` (1 but in a pass of several axes,
    /// [`fused_axes`]), and it has none where `stride` is D.
    pub fn twiddle_divisor(&self, stride: usize) -> usize {
        self.fused_axes
            .as_ref()
            .map_or(1, |fused| fused.twiddle_divisor(stride))
    }

    /// Blocks needed for `batch` transforms.
    pub fn blocks(&self, batch: usize) -> usize {
        (batch * self.launch_ffts_per_transform()).div_ceil(self.launch_ffts_per_block())
    }

    /// What a block covers in the units of [`Self::launch_ffts_per_transform`]:
    /// its FFTs, or the rows they compute where each FFT computes two
    /// ([`RealRoute::PairedRows`]: `ceil(rows / 2 / m)` blocks is
    /// `ceil(rows / 2m)`).
    pub fn launch_ffts_per_block(&self) -> usize {
        let rows = self.real.map_or(1, |r| r.route.rows_per_fft());
        self.ffts_per_block * rows
    }

    /// The FFTs of one transform the launch counts blocks by: the pass's
    /// FFTs (rows of the real axis where they pair up), or the slots of a
    /// tile of mirrored columns.
    pub fn launch_ffts_per_transform(&self) -> usize {
        match self.real.map(|r| r.end) {
            Some(RealEnd::Mirrored(mirrored)) => mirrored.slots(),
            _ => self.access.ffts_per_transform(),
        }
    }

    /// Bytes this pass reads and writes per transform of `plan`'s batch.
    pub fn bytes_moved(&self, plan: &Plan) -> usize {
        match self.transform_pairs {
            // Its access addresses pairs of transforms.
            true => self.bytes_moved_per_access_transform(plan) / 2,
            false => self.bytes_moved_per_access_transform(plan),
        }
    }

    /// Bytes this pass reads and writes per transform its access addresses.
    fn bytes_moved_per_access_transform(&self, plan: &Plan) -> usize {
        let ffts = self.access.ffts_per_transform();
        let complex = plan.precision.complex_bytes();
        if let Some(chirp) = self.chirp {
            // Rows of M per transform: a step's own kernel takes chunks of
            // a row (its column 0), an FFT of M's pass M / n FFTs of one.
            let rows = match self.stages.is_empty() {
                true => ffts / self.access.columns.first().map_or(1, |c| c.count.max(1)),
                false => ffts * self.n / chirp.padded,
            };
            let bytes = rows * chirp.bytes_per_row(plan.precision);
            // An R2C's odd real axis seen as p x m (its prime factor alone,
            // plan/bluestein.rs): the stores keep the half spectrum of the
            // axis's rows of N, not all their points.
            let complex_stores = matches!(
                chirp.role,
                ChirpRole::Whole {
                    to: AxisSide::Complex,
                    ..
                } | ChirpRole::Store {
                    side: AxisSide::Complex
                }
            );
            return match self.real {
                Some(real) if complex_stores && matches!(real.end, RealEnd::Stores(_)) => {
                    let axis_rows = rows * chirp.n / real.real_n;
                    bytes - rows * chirp.n * complex + axis_rows * real.half_len() * complex
                }
                _ => bytes,
            };
        }
        match self.real {
            None => 2 * self.n * ffts * complex,
            Some(RealStep {
                hermitian_half: true,
                end: RealEnd::Loads(index) | RealEnd::Stores(index),
                real_n,
                ..
            }) => {
                // The real side, and one half of the symmetry on the
                // workspace's: the columns halved (R2C's last pass, C2R's
                // first) or the points to n / 2 of each FFT.
                let columns = self.access.columns[index.column].count;
                let halved = columns < index.points;
                let (side, values) = match halved {
                    true => ((real_n / 2 + 1) * complex, columns * self.n),
                    false => (
                        real_n * plan.precision.real_bytes(),
                        columns * (self.n / 2 + 1),
                    ),
                };
                (ffts / columns) * (side + values * complex)
            }
            Some(real) => {
                let reals = real.real_n * plan.precision.real_bytes();
                let half = (real.real_n / 2 + 1) * complex;
                let full = real.real_n * complex;
                // The forward pass's sides (the inverse's mirror them).
                let per_row = match real.end {
                    // Reads the FFT's N / 2 values and writes the half spectrum.
                    RealEnd::Apart => {
                        let rows = plan.n / real.real_n;
                        return (real.real_n / 2) * complex * rows + half * rows;
                    }
                    RealEnd::Both => reals + half,
                    RealEnd::Loads(_) => reals + full,
                    RealEnd::Stores(_) => full + half,
                    // The FFT's N / 2 values on one side, the half
                    // spectrum on the other.
                    RealEnd::Mirrored(_) => (real.real_n / 2) * complex + half,
                };
                per_row * ffts * self.n / real.real_side_len().max(1)
            }
        }
    }
}
