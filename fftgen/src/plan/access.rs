//! Where the FFTs of one pass are: the buffers it reads and writes, the
//! stride between the points of one FFT, and the coordinates (columns) that
//! tell its FFTs apart within one transform of the batch. One description
//! covers every pass of seed 000 section IV: a row of a 1D batch, a column
//! of a 2D or 3D transform (IV.F), and both steps of the hierarchical
//! (four-step) FFT (IV.C, seed 001), whose twiddle ([`StepTwiddle`]) the
//! pass applies to its outputs.

use crate::{Blocks, Buffer};
use serde::{Deserialize, Serialize};

/// A coordinate that tells a pass's FFTs apart, with how far apart its
/// neighbours are in the buffer read and the buffer written (elements).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Column {
    pub count: usize,
    pub input_stride: usize,
    pub output_stride: usize,
}

/// The global-memory side of one pass.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Access {
    pub reads: Buffer,
    pub writes: Buffer,
    /// Elements between consecutive points of one FFT, read and written.
    pub input_stride: usize,
    pub output_stride: usize,
    /// FFT `g` of the pass is transform `g / C` of the batch and, within it,
    /// column coordinates decomposed from `g % C` fastest first (C is the
    /// product of the counts): the FFTs a block computes together differ in
    /// the first column.
    pub columns: Vec<Column>,
    /// Elements between transforms of the batch, read and written.
    pub input_distance: usize,
    pub output_distance: usize,
    /// Elements before transform 0 in the buffer read and the buffer
    /// written: 0 but for the second region of a workspace that holds two
    /// (a pass of a real transform that cannot write where it reads while
    /// the first region holds the data).
    pub input_offset: usize,
    pub output_offset: usize,
    /// Where the buffer read is cut into blocks for an exchange between
    /// GPUs: every element read moves to its blocked place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_blocks: Option<Blocks>,
    /// Where the buffer written is cut into blocks for an exchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_blocks: Option<Blocks>,
}

/// As derived, with the offsets only where they are not 0: kernel names
/// hash this text, and those of passes without offsets stay as they were.
impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("Access");
        s.field("reads", &self.reads)
            .field("writes", &self.writes)
            .field("input_stride", &self.input_stride)
            .field("output_stride", &self.output_stride)
            .field("columns", &self.columns)
            .field("input_distance", &self.input_distance)
            .field("output_distance", &self.output_distance);
        if self.input_offset != 0 || self.output_offset != 0 {
            s.field("input_offset", &self.input_offset)
                .field("output_offset", &self.output_offset);
        }
        if self.input_blocks.is_some() || self.output_blocks.is_some() {
            s.field("input_blocks", &self.input_blocks)
                .field("output_blocks", &self.output_blocks);
        }
        s.finish()
    }
}

impl Access {
    /// A batch of dense transforms of `n` points, input to output.
    pub fn dense(n: usize, reads: Buffer, writes: Buffer) -> Access {
        Access {
            reads,
            writes,
            input_stride: 1,
            output_stride: 1,
            columns: Vec::new(),
            input_distance: n,
            output_distance: n,
            input_offset: 0,
            output_offset: 0,
            input_blocks: None,
            output_blocks: None,
        }
    }

    /// FFTs of this pass per transform of the batch.
    pub fn ffts_per_transform(&self) -> usize {
        self.columns.iter().map(|c| c.count).product()
    }

    /// Whether FFT `g` starts at element `g * n` on both sides with
    /// consecutive points: the kernels of a 1D batch, unchanged.
    pub fn is_dense(&self, n: usize) -> bool {
        self.input_is_dense(n) && self.output_is_dense(n)
    }

    /// Whether FFT `g` reads `n` consecutive elements from `g * n` of the
    /// input: the rows of the batch one run.
    pub fn input_is_dense(&self, n: usize) -> bool {
        self.input_offset == 0
            && self.input_blocks.is_none()
            && self.side_is_dense(
                n,
                self.input_stride,
                self.columns.iter().map(|c| c.input_stride),
                self.input_distance,
            )
    }

    /// [`Self::input_is_dense`] of the output.
    pub fn output_is_dense(&self, n: usize) -> bool {
        self.output_offset == 0
            && self.output_blocks.is_none()
            && self.side_is_dense(
                n,
                self.output_stride,
                self.columns.iter().map(|c| c.output_stride),
                self.output_distance,
            )
    }

    /// Whether a side of `stride` between points, `strides` between the
    /// columns' FFTs and `distance` between transforms holds FFT `g` at
    /// `g * n`, its points consecutive.
    fn side_is_dense(
        &self,
        n: usize,
        stride: usize,
        strides: impl Iterator<Item = usize>,
        distance: usize,
    ) -> bool {
        let mut next = n;
        for (column, s) in self.columns.iter().zip(strides) {
            if s != next {
                return false;
            }
            next *= column.count;
        }
        stride == 1 && distance == next
    }

    /// Whether the pass reads and writes one buffer (in place).
    pub fn in_place(&self) -> bool {
        self.reads == self.writes
    }

    /// Elements read, then written, per transform of the batch.
    pub fn elements(&self, n: usize) -> usize {
        n * self.ffts_per_transform()
    }
}

/// The twiddle of the four-step FFT of seed 001, applied to a pass's
/// outputs: output `k` of the FFT at coordinate `c` of column `column` is
/// multiplied by `w_span^(c k)` (conjugated for the inverse). `c k` is below
/// `span`, so no reduction is needed; the root comes from two tables of
/// f64-computed values rounded once (`w_span^(m % split)` and
/// `w_span^(split (m / split))`), whose product is within an ulp or two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StepTwiddle {
    /// Which of the pass's columns holds `c`.
    pub column: usize,
    /// Length of the transform this step belongs to.
    pub span: usize,
    /// Entries of the fine table (a power of two); the coarse table has
    /// `span.div_ceil(split)`.
    pub split: usize,
    /// Where the fine table starts in the pass's twiddle table (after the
    /// stages' twiddles); the coarse table follows it.
    pub offset: usize,
    /// How a thread forms the twiddles of the points it stores.
    #[serde(default)]
    pub form: StepTwiddleForm,
}

/// How a thread forms the four-step twiddles of the points it stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StepTwiddleForm {
    /// `w_span^(c k)` of each point from its fine and coarse entries: two
    /// loads per point, at addresses that differ from lane to lane.
    #[default]
    PerPoint,
    /// The points a thread stores from its last stage's registers are
    /// `j + r s` (s the stage's stride): `w^(c j)` once per butterfly, times
    /// `w^(c r s)`, whose entries are the same for every lane of a warp that
    /// shares `c` (one broadcast load each). For passes whose lanes run along
    /// one FFT and store straight from registers; the product of two
    /// fine x coarse roots stays within about two ulps.
    BaseTimesStride,
}

fftgen_manifest::text_enum!(StepTwiddleForm as "a step twiddle form" {
    PerPoint => "per-point",
    BaseTimesStride => "base-times-stride",
});

impl StepTwiddleForm {
    /// Whether `pass`'s stores can take [`StepTwiddleForm::BaseTimesStride`]:
    /// straight from its last stage's registers, the lanes of each warp
    /// (of `warp_size` threads) within one FFT (one `c` per warp).
    pub fn fits(self, pass: &super::Pass, warp_size: usize) -> bool {
        match self {
            StepTwiddleForm::PerPoint => true,
            StepTwiddleForm::BaseTimesStride => {
                pass.output_io == super::GlobalIo::Direct
                    && pass.lanes == super::LaneLayout::FftMajor
                    && pass.threads_per_fft % warp_size == 0
            }
        }
    }
}

impl StepTwiddle {
    /// The twiddle of a step of a transform of `span` points at `column`,
    /// its tables at `offset`.
    pub fn new(column: usize, span: usize, offset: usize) -> StepTwiddle {
        // About sqrt(span) entries per table: two small tables stay in cache.
        let mut split = 1;
        while split * split < span {
            split *= 2;
        }
        StepTwiddle {
            column,
            span,
            split,
            offset,
            form: StepTwiddleForm::PerPoint,
        }
    }

    /// The twiddle of a step of `span` points at `column` applied by
    /// `pass`, its tables after the pass's own (per point).
    pub fn after_tables_of(pass: &super::Pass, column: usize, span: usize) -> StepTwiddle {
        let super::Twiddles::RoundedF64Table { len } = pass.twiddles;
        StepTwiddle::new(column, span, len)
    }

    /// Entries of the coarse table.
    pub fn coarse_len(&self) -> usize {
        self.span.div_ceil(self.split)
    }

    /// Entries of both tables.
    pub fn len(&self) -> usize {
        self.split + self.coarse_len()
    }
}
