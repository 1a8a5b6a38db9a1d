//! A buffer cut into blocks along one axis, one block per peer of an
//! all-to-all exchange (seed-free: the slab and pencil decompositions of
//! FFTW-MPI and heFFTe). The elements keep their natural row-major place
//! within a block; block `s` holds those whose coordinate along the axis
//! is in `[s q, (s + 1) q)` (q = len / parts rounded up, FFTW-MPI's block
//! size), so each peer's share is one contiguous run that NCCL sends as is.
//! Where `parts` does not divide `len` the last block's coordinates past
//! `len` are padding: every block has the same size, and the exchange
//! stays one all-to-all of equal blocks. A pass that reads or writes such
//! a buffer moves every element to its blocked place in its own loads and
//! stores: the packing and unpacking of the exchange ride on the passes.

use serde::{Deserialize, Serialize};

/// Where the elements of a natural row-major buffer go once it is cut into
/// `parts` blocks along one axis (all in elements of the buffer).
///
/// A natural offset `o` decomposes as `o = ((t H + h) len + i) stride + l`:
/// `l` below `stride` (the faster axes), `i` the axis's coordinate, `h`
/// below `outer` (the slower axes of one transform), `t` the transform of
/// the batch. Its blocked offset is
/// `t H P q stride + (i / q) H q stride + h q stride + (i % q) stride + l`
/// (P = parts, P q = len where P divides it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Blocks {
    /// Elements between neighbours along the axis (the product of the faster axes).
    pub stride: usize,
    /// Points along the axis.
    pub len: usize,
    /// Blocks: the peers of the exchange. Each holds at least one point.
    pub parts: usize,
    /// The product of the slower axes of one transform.
    pub outer: usize,
}

impl Blocks {
    /// Points of the axis in each block (the last block's past `len` are
    /// padding).
    pub fn part_len(&self) -> usize {
        self.len.div_ceil(self.parts)
    }

    /// Whether `parts` divides `len`: no block holds padding.
    pub fn is_even(&self) -> bool {
        self.len % self.parts == 0
    }

    /// Elements of one transform in its natural row-major order.
    pub fn natural_elements(&self) -> usize {
        self.outer * self.len * self.stride
    }

    /// Elements of one transform cut into blocks: every block of it, the
    /// padding of the last too.
    pub fn transform_elements(&self) -> usize {
        self.parts * self.block_elements()
    }

    /// Elements of one block of one transform.
    pub fn block_elements(&self) -> usize {
        self.outer * self.part_len() * self.stride
    }

    /// Whether blocking moves nothing: one block, or an axis that is the
    /// slowest of its transform cut evenly (its blocks are already
    /// contiguous; padded, the transforms of a batch lie further apart).
    pub fn is_identity(&self) -> bool {
        self.parts == 1 || (self.outer == 1 && self.is_even())
    }

    /// Why these blocks cannot be, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.stride == 0 || self.len == 0 || self.outer == 0 || self.parts == 0 {
            return Err(format!("the blocks {self:?} have an empty dimension"));
        }
        if (self.parts - 1) * self.part_len() >= self.len {
            return Err(format!(
                "an axis of {} points cut into {} blocks of {} leaves the last block empty",
                self.len,
                self.parts,
                self.part_len()
            ));
        }
        Ok(())
    }

    /// The blocked offset of natural offset `natural` (the kernels compute
    /// the same with constants folded).
    pub fn place(&self, natural: usize) -> usize {
        let q = self.part_len();
        let lo = natural % self.stride;
        let u = natural / self.stride;
        let i = u % self.len;
        let u = u / self.len;
        let (t, h) = (u / self.outer, u % self.outer);
        t * self.transform_elements()
            + (i / q) * self.block_elements()
            + h * q * self.stride
            + (i % q) * self.stride
            + lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_hold_each_peers_share_contiguously() {
        // Two transforms of [3][4][2], cut in 2 along the middle axis.
        let blocks = Blocks {
            stride: 2,
            len: 4,
            parts: 2,
            outer: 3,
        };
        let mut seen = vec![false; 48];
        for t in 0..2 {
            for h in 0..3 {
                for i in 0..4 {
                    for l in 0..2 {
                        let natural = t * 24 + h * 8 + i * 2 + l;
                        let placed = blocks.place(natural);
                        assert!(!seen[placed], "two elements at {placed}");
                        seen[placed] = true;
                        // Block i / 2 of transform t, in natural order within it.
                        let block = t * 24 + (i / 2) * 12;
                        assert_eq!(placed, block + h * 4 + (i % 2) * 2 + l);
                    }
                }
            }
        }
        assert!(Blocks { outer: 1, ..blocks }.is_identity());
        assert_eq!(Blocks { outer: 1, ..blocks }.place(13), 13);
        // Four points in 4 blocks of 1; in 3 the last block would be empty.
        assert!(Blocks { parts: 4, ..blocks }.check().is_ok());
        assert!(Blocks {
            parts: 3,
            len: 4,
            ..blocks
        }
        .check()
        .is_err());
    }

    #[test]
    fn uneven_blocks_pad_the_last_one() {
        // Two transforms of [2][5][3], cut in 2 along the middle axis:
        // blocks of 3 points, the second padded by one.
        let blocks = Blocks {
            stride: 3,
            len: 5,
            parts: 2,
            outer: 2,
        };
        assert!(blocks.check().is_ok() && !blocks.is_even());
        assert_eq!(
            (blocks.block_elements(), blocks.transform_elements()),
            (18, 36)
        );
        let mut seen = vec![false; 72];
        for t in 0..2 {
            for h in 0..2 {
                for i in 0..5 {
                    for l in 0..3 {
                        let natural = t * 30 + h * 15 + i * 3 + l;
                        let placed = blocks.place(natural);
                        assert!(!seen[placed], "two elements at {placed}");
                        seen[placed] = true;
                        assert_eq!(placed, t * 36 + (i / 3) * 18 + h * 9 + (i % 3) * 3 + l);
                    }
                }
            }
        }
        // The slowest axis cut unevenly still moves the batch's transforms.
        let slowest = Blocks { outer: 1, ..blocks };
        assert!(!slowest.is_identity());
        assert_eq!(slowest.place(15 + 4), 18 + 4);
        assert!(Blocks { len: 6, ..slowest }.is_identity());
    }
}
