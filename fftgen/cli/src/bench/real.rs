//! Real transforms (`r2c`) in the benchmark: how large each side of one
//! transform is (the reals, and the half spectrum whose last axis is
//! n / 2 + 1), the batch that fills the 1 GiB buffers with the larger side,
//! the bytes a launch must move (the reals once and the half spectrum once,
//! whichever way) and the copy that moves as many. The f64 references of
//! both directions are [`crate::accuracy`]'s.

use super::{buffer_complex, BUFFER_BYTES};
use fftgen::{Precision, TransformKind};

/// The two sides of one real transform of `shape` (the real side's shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealSides {
    /// The real side's shape, row-major, the real axis last.
    pub shape: Vec<usize>,
    /// The half spectrum's shape: the last axis n / 2 + 1.
    pub half_shape: Vec<usize>,
}

impl RealSides {
    pub fn new(shape: &[usize]) -> RealSides {
        RealSides {
            shape: shape.to_vec(),
            half_shape: TransformKind::R2c.complex_shape(shape),
        }
    }

    /// Reals of one transform.
    pub fn reals(&self) -> usize {
        self.shape.iter().product()
    }

    /// Complex values of one transform's half spectrum.
    pub fn half(&self) -> usize {
        self.half_shape.iter().product()
    }

    /// Reals (`T`s) the half spectrum of one transform takes.
    pub fn half_reals(&self) -> usize {
        2 * self.half()
    }

    /// Reals (`T`s) of the larger side of one transform: the half spectrum
    /// but for an axis of 1 (where both hold n values).
    pub fn larger_reals(&self) -> usize {
        self.reals().max(self.half_reals())
    }

    /// Transforms per launch: as many as fill a 1 GiB buffer with the
    /// larger side, at least one.
    pub fn batch(&self, precision: Precision) -> usize {
        (2 * buffer_complex(precision) / self.larger_reals()).max(1)
    }

    /// The fewest bytes a launch of `batch` transforms moves in either
    /// direction: the reals read (R2C) or written (C2R) once and the half
    /// spectrum written or read once.
    pub fn bytes(&self, batch: usize, precision: Precision) -> u64 {
        let one = self.reals() * precision.real_bytes() + self.half() * precision.complex_bytes();
        (one * batch) as u64
    }

    /// Reals (`T`s) a device-to-device copy of `batch` transforms copies to
    /// move the same bytes as the transform (each copied byte is read once
    /// and written once): half the reals of both sides, rounded up.
    pub fn copy_reals(&self, batch: usize) -> usize {
        ((self.reals() + self.half_reals()) * batch).div_ceil(2)
    }

    /// Why one transform runs alone, when its larger side is more than
    /// the 1 GiB batch: the note its rows carry.
    pub fn larger_than_batch(&self, precision: Precision) -> Option<String> {
        let bytes = (self.larger_reals() * precision.real_bytes()) as u64;
        (bytes > BUFFER_BYTES as u64).then(|| {
            format!(
                "one transform's larger side is {} MiB, more than the {} MiB batch: batch 1, in \
                 buffers of its size",
                bytes >> 20,
                BUFFER_BYTES >> 20
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_batches_and_bytes() {
        let sides = RealSides::new(&[4096]);
        assert_eq!(
            (sides.reals(), sides.half(), sides.half_reals()),
            (4096, 2049, 4098)
        );
        // The half spectrum is the larger side: it fills the 1 GiB.
        let batch = sides.batch(Precision::F32);
        assert_eq!(batch, (1 << 28) / 4098);
        assert!(batch * 4098 * 4 <= BUFFER_BYTES);
        // Each launch reads the reals and writes the half spectrum once.
        assert_eq!(sides.bytes(1, Precision::F32), 4096 * 4 + 2049 * 8);
        assert_eq!(sides.bytes(3, Precision::F64), 3 * (4096 * 8 + 2049 * 16));
        // The copy moves as many bytes: each copied real is read and written.
        assert_eq!(
            2 * sides.copy_reals(batch) * 4,
            sides.bytes(batch, Precision::F32) as usize
        );

        let square = RealSides::new(&[1024, 1024]);
        assert_eq!(square.half_shape, vec![1024, 513]);
        assert_eq!(square.batch(Precision::F32), (1 << 28) / (1024 * 1026));
        assert_eq!(
            square.bytes(1, Precision::F32),
            (1024 * 1024 * 4 + 1024 * 513 * 8) as u64
        );
        // Odd counts round the copy up by half a real.
        assert_eq!(RealSides::new(&[5]).copy_reals(1), 6);
        // An axis of 1: both sides hold one value per point.
        assert_eq!(RealSides::new(&[1]).larger_reals(), 2);
        assert_eq!(sides.larger_than_batch(Precision::F32), None);
        let huge = RealSides::new(&[1 << 30]);
        assert_eq!(huge.batch(Precision::F32), 1);
        assert!(huge
            .larger_than_batch(Precision::F32)
            .is_some_and(|note| note.contains("batch 1")));
    }
}
