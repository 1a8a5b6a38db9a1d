//! What a pass along the real axis of an `r2c` plan is, as plain data that
//! [`super::Pass`] carries: the route that computes the axis (half length
//! or full length), which ends of the pass meet the reals and the half
//! spectrum, and where those points lie on the axis. The math is that of
//! seeds 000 and 001 on real data (docs/design/real_transforms.md);
//! [`super::real`] plans these passes and the kernels fuse them.

use super::access::StepTwiddle;
use serde::{Deserialize, Serialize};

/// How a real axis is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RealRoute {
    /// A complex FFT of N / 2 over the reals read in pairs, split (R2C) or
    /// merged (C2R) with the twiddles `w_N^k` at the ends of the pass.
    HalfLength,
    /// A complex FFT of N with zero imaginary parts in (R2C), or the
    /// Hermitian spectrum rebuilt in and real parts out (C2R): the long
    /// axis's passes ([`RealEnd::Loads`], [`RealEnd::Stores`]).
    FullLength,
    /// Two rows x and y (odd N, or reals that do not pair up within a row)
    /// as the real and imaginary parts of one complex FFT of N, Z = x + i y,
    /// so a row costs half an FFT: the R2C separates X[k] = (Z[k] + conj
    /// Z[N-k]) / 2 and Y[k] = (Z[k] - conj Z[N-k]) / 2i on the stores, the
    /// C2R merges Z = X + i Y on the loads and keeps the real parts (row x)
    /// and the imaginary parts (row y). One kernel ([`RealEnd::Both`]);
    /// with an odd count of rows the last FFT has one (y = 0).
    PairedRows,
}

impl RealRoute {
    /// Whether the kernel addresses the real side one real at a time
    /// (rather than as complex pairs of neighbours).
    pub fn reads_single_reals(self) -> bool {
        matches!(self, RealRoute::FullLength | RealRoute::PairedRows)
    }

    /// Rows of the real axis one FFT of the pass computes.
    pub fn rows_per_fft(self) -> usize {
        match self {
            RealRoute::PairedRows => 2,
            _ => 1,
        }
    }
}

/// Which ends of a pass meet the real side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RealEnd {
    /// A pass that computes the whole axis: both ends, staged through
    /// shared memory.
    Both,
    /// The first pass of a long axis (full length): its loads read the
    /// reals (R2C) or rebuild the Hermitian spectrum from the half (C2R).
    Loads(AxisIndex),
    /// The last pass of a long axis (full length): its stores keep the
    /// half spectrum (R2C) or the real parts (C2R).
    Stores(AxisIndex),
    /// A pass of its own (half length, past one kernel): the split, in
    /// place on the output after the C2C passes of N / 2 (R2C), or the
    /// merge from the half spectrum into the pairs of reals before them
    /// (C2R). Each thread takes the pairs k, M - k of a row; the pass's
    /// FFTs are chunks of pairs (its column 0), and `w_N^k` comes from the
    /// two tables of its `step_twiddle` (span N).
    Apart,
    /// The last C2C pass of the FFT of N / 2 past one kernel (R2C: the
    /// split on its stores) or the first (C2R: the merge on its loads),
    /// whose FFTs are the C columns of a row, column c holding k = c + C j.
    /// R2C: Z[M - k] sits in column C - c at point L - 1 - j (L = M / C),
    /// or in column 0 itself at (L - j) mod L, so the tile pairs the
    /// columns: slots 2u and 2u + 1 of a block hold columns u and C - u
    /// (column C / 2 beside column 0 for even C; nothing for odd C), and
    /// each slot writes its column of the half spectrum, column 0 X[M]
    /// too. C2R: each load reads X[k] and X[M - k] from the half spectrum.
    Mirrored(MirroredColumns),
}

/// The columns of a [`RealEnd::Mirrored`] pass and its table of `w_N^k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MirroredColumns {
    /// Columns (FFTs) per row: C.
    pub columns: usize,
    /// `w_N^k` from a fine and a coarse table (span N, its column unused).
    pub twiddle: StepTwiddle,
}

impl MirroredColumns {
    /// Tile slots per row: one per column, and one idle beside column 0
    /// for odd C (2 ceil(C / 2)).
    pub fn slots(&self) -> usize {
        2 * self.columns.div_ceil(2)
    }
}

/// Where point `p` of a pass's FFT lies on the real axis: the coordinate
/// of column `column` plus `points * p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AxisIndex {
    pub column: usize,
    pub points: usize,
}

/// The fusion of a pass along the real axis: how its loads and stores meet
/// the reals and the half spectrum. Forward kernels of the pass are R2C,
/// inverse kernels C2R.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RealStep {
    pub route: RealRoute,
    /// Which ends of the pass the step is fused into.
    pub end: RealEnd,
    /// Points of the real axis (N).
    pub real_n: usize,
    /// Where the table of `w_N^k`, k = 0..=N/2, starts in the pass's
    /// twiddle table ([`RealRoute::HalfLength`] only).
    pub twiddle_offset: Option<usize>,
    /// A full-length axis in two passes whose workspace holds one half of
    /// the Hermitian symmetry between them ([`RealEnd::Loads`] and
    /// [`RealEnd::Stores`] only), so both passes move about half the
    /// complex values. With N = F0 F1 (F0 the first pass's FFT length):
    /// R2C, the first pass's FFTs of real columns keep their outputs
    /// k0 <= F0 / 2 (the rest are their conjugates), the last runs those
    /// columns alone and writes X[i] past N / 2 as conj X[N - i] at N - i;
    /// C2R, the first pass runs the columns c <= F1 / 2 alone, and the
    /// last reads point c past F1 / 2 of its FFTs as the conjugate of
    /// point F1 - c (what its real outputs need).
    #[serde(default)]
    pub hermitian_half: bool,
}

impl RealStep {
    /// Values of the half spectrum per row: N / 2 + 1.
    pub fn half_len(&self) -> usize {
        self.real_n / 2 + 1
    }

    /// Elements per row on the real side as the kernel addresses them:
    /// pairs of reals (half length) or reals.
    pub fn real_side_len(&self) -> usize {
        match self.route {
            RealRoute::HalfLength => self.real_n / 2,
            RealRoute::FullLength | RealRoute::PairedRows => self.real_n,
        }
    }
}
