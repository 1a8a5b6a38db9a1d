//! Where the elements of a batch of (multi-dimensional) transforms live in a
//! buffer: cufftPlanMany's advanced layout (embedding, stride, distance), as
//! a stride per axis and a distance between transforms, all in complex
//! elements. Shapes are row-major, the last axis fastest, like numpy's
//! `fftn` over the last axes.

use serde::{Deserialize, Serialize};

/// Most elements a layout may reach: 2^59, so that byte offsets of 16-byte
/// elements stay below 2^63 in the kernels' signed 64-bit arithmetic.
pub const MAX_ADDRESSABLE_ELEMENTS: usize = 1 << 59;

/// The strides of one batch of transforms in a buffer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Layout {
    /// Elements between neighbours along each axis, first axis first.
    pub strides: Vec<usize>,
    /// Elements between the first elements of consecutive transforms.
    pub distance: usize,
}

impl Layout {
    /// Transforms stored one after another, each row-major and dense.
    pub fn contiguous(shape: &[usize]) -> Layout {
        let mut strides = vec![1; shape.len()];
        for a in (0..shape.len().saturating_sub(1)).rev() {
            strides[a] = strides[a + 1] * shape[a + 1];
        }
        Layout {
            strides,
            distance: shape.iter().product(),
        }
    }

    /// cufftPlanMany's layout: each transform is a sub-array of a row-major
    /// array of shape `embed` (the first axis's extent does not matter),
    /// whose last axis is `stride` elements apart; transforms start
    /// `distance` elements apart.
    pub fn embedded(
        shape: &[usize],
        embed: &[usize],
        stride: usize,
        distance: usize,
    ) -> Result<Layout, String> {
        if embed.len() != shape.len() {
            return Err(format!(
                "the embedding {embed:?} has {} axes, the shape {shape:?} {}",
                embed.len(),
                shape.len()
            ));
        }
        if let Some(a) = (1..shape.len()).find(|&a| embed[a] < shape[a]) {
            return Err(format!(
                "axis {a} of the embedding {embed:?} is shorter than the shape's {shape:?}"
            ));
        }
        let mut strides = vec![stride; shape.len()];
        for a in (0..shape.len().saturating_sub(1)).rev() {
            strides[a] = strides[a + 1] * embed[a + 1];
        }
        Ok(Layout { strides, distance })
    }

    /// Elements of the buffer one transform reaches: one past its last
    /// element (`usize::MAX` where that overflows; [`Layout::check`]
    /// refuses such layouts).
    pub fn span(&self, shape: &[usize]) -> usize {
        self.checked_span(shape).unwrap_or(usize::MAX)
    }

    /// [`Layout::span`], or `None` where it overflows 64 bits.
    pub fn checked_span(&self, shape: &[usize]) -> Option<usize> {
        shape
            .iter()
            .zip(&self.strides)
            .try_fold(1usize, |acc, (&n, &s)| {
                acc.checked_add(n.checked_sub(1)?.checked_mul(s)?)
            })
    }

    /// Elements a buffer of `batch` transforms needs (`usize::MAX` where
    /// that overflows, which no buffer holds).
    pub fn elements(&self, shape: &[usize], batch: usize) -> usize {
        self.checked_elements(shape, batch).unwrap_or(usize::MAX)
    }

    /// [`Layout::elements`], or `None` where it overflows 64 bits.
    pub fn checked_elements(&self, shape: &[usize], batch: usize) -> Option<usize> {
        batch
            .saturating_sub(1)
            .checked_mul(self.distance)?
            .checked_add(self.checked_span(shape)?)
    }

    /// Whether this is [`Layout::contiguous`] for `shape`.
    pub fn is_contiguous(&self, shape: &[usize]) -> bool {
        *self == Layout::contiguous(shape)
    }

    /// Why this layout cannot hold transforms of `shape`, if it cannot: a
    /// stride per axis, none zero, and no two elements of a batch in one place.
    pub fn check(&self, shape: &[usize]) -> Result<(), String> {
        if self.strides.len() != shape.len() {
            return Err(format!(
                "the layout has {} strides for the {} axes of shape {shape:?}",
                self.strides.len(),
                shape.len()
            ));
        }
        if self.strides.contains(&0) {
            return Err(format!("the strides {:?} include 0", self.strides));
        }
        // Kernels index with 64-bit arithmetic in elements of up to 16
        // bytes: one transform must stay addressable in bytes.
        if self
            .checked_span(shape)
            .and_then(|span| span.checked_add(self.distance))
            .is_none_or(|reach| reach > MAX_ADDRESSABLE_ELEMENTS)
        {
            return Err(format!(
                "the strides {:?} and distance {} reach past the {MAX_ADDRESSABLE_ELEMENTS} \
                 elements a buffer can address; give strides and a distance whose reach fits",
                self.strides, self.distance
            ));
        }
        // Distinct positions: sorted by stride, each axis must step over the
        // whole extent of the faster ones (a row-major embedding, possibly
        // with axes permuted), and the batch over the whole transform.
        let mut axes: Vec<(usize, usize)> = self
            .strides
            .iter()
            .copied()
            .zip(shape.iter().copied())
            .filter(|&(_, n)| n > 1)
            .collect();
        axes.sort();
        let mut extent = 1;
        for &(stride, n) in &axes {
            if stride < extent {
                return Err(format!(
                    "the strides {:?} make elements of one transform overlap",
                    self.strides
                ));
            }
            extent += stride * (n - 1); // bounded by the span checked above
        }
        if self.distance == 0 {
            return Err("the distance between transforms is 0".into());
        }
        Ok(())
    }

    /// Whether transforms `distance` apart overlap (only a batch of one may).
    pub fn batches_overlap(&self, shape: &[usize]) -> bool {
        self.distance < self.span(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_and_embedded_layouts() {
        let dense = Layout::contiguous(&[4, 5, 6]);
        assert_eq!(dense.strides, vec![30, 6, 1]);
        assert_eq!(dense.distance, 120);
        assert_eq!(dense.span(&[4, 5, 6]), 120);
        assert_eq!(dense.elements(&[4, 5, 6], 3), 360);
        let padded = Layout::embedded(&[4, 5], &[4, 8], 1, 40).unwrap();
        assert_eq!(padded.strides, vec![8, 1]);
        assert_eq!(padded.span(&[4, 5]), 3 * 8 + 5);
        assert!(padded.check(&[4, 5]).is_ok());
        assert!(!padded.batches_overlap(&[4, 5]));
        assert!(Layout::embedded(&[4, 5], &[4, 3], 1, 40).is_err());
        let overlapping = Layout {
            strides: vec![3, 1],
            distance: 20,
        };
        assert!(overlapping.check(&[4, 5]).is_err());
    }
}
