//! Neighbouring axes of a multi-dimensional transform computed by one pass:
//! the whole 2D or 3D DFT of the points they span, in one read and one
//! write of global memory instead of one of each per axis.
//!
//! A DFT over axes of lengths A (outer) and B (inner, contiguous) is the
//! four-step FFT of A B points (seed 001) without its twiddle between the
//! two steps. In the Stockham form of seed 000 (section IV.B) that is:
//!
//! - the radices of the inner axis first, then those of the next axis out
//!   (the first stages consume the most significant digits of their input
//!   index, the last ones give the least significant of the output's, so
//!   the output is in row-major order as it stands);
//! - the first stage reads its inputs transposed: logical point m = b A + a
//!   is the point a B + b of the row-major group (three axes A, B, C:
//!   m = c A B + b A + a is a B C + b C + c);
//! - a stage of an outer axis twiddles only by the digits of its own axis:
//!   where the stages before it span `Ns = D M` (D the product of the inner
//!   axes' lengths, M of its own axis's earlier radices), butterfly p takes
//!   `w_{M R}^{(p / D) r}` instead of `w_{Ns R}^{p r}`; the first stage of
//!   each axis (M = 1) has none.
//!
//! Everything else of the pass (its blocks, exchanges and global memory) is
//! that of one FFT of the group's A B points whose points are the rows of
//! the group in memory order: a row pass where the group holds the last
//! axis, a column pass where axes after it remain.

use super::Padding;
use serde::{Deserialize, Serialize};

/// The lengths of the axes one pass computes, outermost first (as the
/// shape lists them); at least two, each at least 2.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FusedAxes {
    pub lengths: Vec<usize>,
    /// How the group's points are staged in shared memory for the first
    /// stage: where a warp's lanes share an FFT, they read points a row of
    /// the innermost axis apart, so an even row length gets a word of gap
    /// after each row (its stride then odd, over every bank).
    #[serde(default = "no_padding")]
    pub rows_padding: Padding,
    /// Where the group is the whole shape of a real transform
    /// ([`super::RealRoute::PairedRows`]: R2C forward, C2R inverse), how
    /// its rows of the innermost axis lie on each side: N reals on one,
    /// the N / 2 + 1 values of the half spectrum on the other, so the
    /// group is no run of its points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_rows: Option<RowStrides>,
}

/// As derived, with the real rows only where there are some: kernel names
/// hash this text, and those of complex passes stay as they were.
impl std::fmt::Debug for FusedAxes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("FusedAxes");
        s.field("lengths", &self.lengths)
            .field("rows_padding", &self.rows_padding);
        if let Some(rows) = &self.real_rows {
            s.field("real_rows", rows);
        }
        s.finish()
    }
}

/// Elements between consecutive rows of a group's innermost axis in the
/// buffer a pass reads and in the one it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RowStrides {
    pub input: usize,
    pub output: usize,
}

fn no_padding() -> Padding {
    Padding::NONE
}

impl FusedAxes {
    /// The points the group spans.
    pub fn points(&self) -> usize {
        self.lengths.iter().product()
    }

    /// The products of the axes' lengths from the innermost out (B, then
    /// A B for axes A x B): where the stages of each axis end.
    pub fn boundaries(&self) -> Vec<usize> {
        self.lengths
            .iter()
            .rev()
            .scan(1, |span, &len| {
                *span *= len;
                Some(*span)
            })
            .collect()
    }

    /// D of a stage whose earlier stages span `stride` (Ns): the product of
    /// the lengths of the axes inside the stage's own, whose digits its
    /// twiddles leave out.
    pub fn twiddle_divisor(&self, stride: usize) -> usize {
        std::iter::once(1)
            .chain(self.boundaries())
            .take_while(|&span| span <= stride && stride % span == 0)
            .last()
            .unwrap_or(1)
    }

    /// Whether `radices` run the axes in turn, innermost first: the product
    /// of the radices reaches every boundary exactly.
    pub fn aligned(&self, radices: &[usize]) -> bool {
        let mut reached: Vec<usize> = radices
            .iter()
            .scan(1, |span, &r| {
                *span *= r;
                Some(*span)
            })
            .collect();
        reached.retain(|span| self.boundaries().contains(span));
        reached == self.boundaries()
    }

    /// The row-major point (within the group) that the first stage's
    /// logical input `m` is: the digits of `m`, outermost axis fastest,
    /// read back innermost axis fastest.
    pub fn transposed(&self, m: usize) -> usize {
        let mut rest = m;
        let mut point = 0;
        let mut inner_span = self.points();
        for &len in &self.lengths {
            inner_span /= len;
            point += (rest % len) * inner_span;
            rest /= len;
        }
        point
    }

    /// The rows of the innermost axis the group spans.
    pub fn rows(&self) -> usize {
        self.points() / self.lengths.last().copied().unwrap_or(1)
    }

    /// The padding of the staged rows when a warp's lanes share an FFT
    /// (`lanes_share_fft`): a word after each even row of the innermost
    /// axis.
    pub fn rows_padding_for(&self, lanes_share_fft: bool) -> Padding {
        let row = self.lengths.last().copied().unwrap_or(1);
        match lanes_share_fft && row % 2 == 0 {
            true => Padding {
                period: row,
                gap: 1,
            },
            false => Padding::NONE,
        }
    }

    /// `lengths` as a group, if it is one: two axes or more, each of two
    /// points or more.
    pub fn of(lengths: &[usize]) -> Option<FusedAxes> {
        (lengths.len() >= 2 && lengths.iter().all(|&n| n >= 2)).then(|| FusedAxes {
            lengths: lengths.to_vec(),
            rows_padding: Padding::NONE,
            real_rows: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Stockham algorithm of [`super`] in f64, stage by stage, as the
    /// kernels run it: the transposed first reads and the twiddles by the
    /// divisor give the row-major multi-dimensional DFT.
    fn stockham(x: &[(f64, f64)], radices: &[usize], fused: &FusedAxes) -> Vec<(f64, f64)> {
        let n = x.len();
        let mut data: Vec<(f64, f64)> = (0..n).map(|m| x[fused.transposed(m)]).collect();
        let mut stride = 1;
        for &radix in radices {
            let mut out = vec![(0.0, 0.0); n];
            let d = fused.twiddle_divisor(stride);
            for j in 0..n / radix {
                let p = j % stride;
                let v: Vec<(f64, f64)> = (0..radix)
                    .map(|r| {
                        let (re, im) = data[j + r * n / radix];
                        let angle = -2.0 * std::f64::consts::PI * ((p / d) * r) as f64
                            / (stride * radix / d) as f64;
                        let (s, c) = angle.sin_cos();
                        (re * c - im * s, re * s + im * c)
                    })
                    .collect();
                for k in 0..radix {
                    let mut sum = (0.0, 0.0);
                    for (r, &(re, im)) in v.iter().enumerate() {
                        let angle = -2.0 * std::f64::consts::PI * (r * k) as f64 / radix as f64;
                        let (s, c) = angle.sin_cos();
                        sum.0 += re * c - im * s;
                        sum.1 += re * s + im * c;
                    }
                    out[(j / stride) * stride * radix + j % stride + k * stride] = sum;
                }
            }
            data = out;
            stride *= radix;
        }
        data
    }

    /// The row-major DFT over every axis of `shape`, directly.
    fn dft(x: &[(f64, f64)], shape: &[usize]) -> Vec<(f64, f64)> {
        let n = x.len();
        let digits = |mut i: usize| -> Vec<usize> {
            let mut d = vec![0; shape.len()];
            for a in (0..shape.len()).rev() {
                d[a] = i % shape[a];
                i /= shape[a];
            }
            d
        };
        (0..n)
            .map(|k| {
                let kd = digits(k);
                x.iter()
                    .enumerate()
                    .fold((0.0, 0.0), |sum, (i, &(re, im))| {
                        let id = digits(i);
                        let turns: f64 = (0..shape.len())
                            .map(|a| (kd[a] * id[a] % shape[a]) as f64 / shape[a] as f64)
                            .sum();
                        let (s, c) = (-2.0 * std::f64::consts::PI * turns).sin_cos();
                        (sum.0 + re * c - im * s, sum.1 + re * s + im * c)
                    })
            })
            .collect()
    }

    #[test]
    fn transposed_reads_and_divided_twiddles_give_the_multi_dimensional_dft() {
        for (shape, radices) in [
            (vec![3, 4], vec![2, 2, 3]),
            (vec![6, 10], vec![5, 2, 3, 2]),
            (vec![3, 4, 5], vec![5, 2, 2, 3]),
            (vec![2, 7, 4], vec![4, 7, 2]),
        ] {
            let fused = FusedAxes::of(&shape).unwrap();
            assert!(fused.aligned(&radices), "{shape:?} {radices:?}");
            let n = fused.points();
            let x: Vec<(f64, f64)> = (0..n)
                .map(|i| ((i as f64 * 0.37).sin(), (i as f64 * 1.3).cos()))
                .collect();
            let (got, want) = (stockham(&x, &radices, &fused), dft(&x, &shape));
            let err = got
                .iter()
                .zip(&want)
                .map(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1))
                .fold(0.0, f64::max);
            assert!(err < 1e-9, "{shape:?}: {err}");
        }
    }

    #[test]
    fn divisors_and_alignment_follow_the_axes() {
        let fused = FusedAxes::of(&[3, 4, 5]).unwrap();
        assert_eq!(fused.boundaries(), vec![5, 20, 60]);
        let divisors: Vec<usize> = [1, 5, 10, 20, 60].map(|s| fused.twiddle_divisor(s)).into();
        assert_eq!(divisors, vec![1, 5, 5, 20, 60]);
        assert!(fused.aligned(&[5, 4, 3]));
        assert!(!fused.aligned(&[4, 5, 3]));
        assert!(!fused.aligned(&[10, 2, 3]));
        assert_eq!(FusedAxes::of(&[5]), None);
        assert_eq!(FusedAxes::of(&[1, 5]), None);
    }
}
