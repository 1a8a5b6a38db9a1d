//! Moving batches of transforms between a buffer laid out as a [`Layout`]
//! says (cufftPlanMany's strides and distance) and logical arrays: each
//! transform row-major and dense, transforms one after another, as numpy
//! holds an array of shape `(batch, n1, n2, ...)`. `fftgen check` gathers the
//! input the kernels read and the output they wrote through these, and
//! checks that the elements no layout position names stay untouched. A
//! buffer of either side of a real transform is handled as its reals
//! ([`real_offsets`]): a side of complex values puts each value's real part
//! at twice its offset and the imaginary part after it.

use fftgen::{Element, Layout};

/// The buffer offset of every element of `batch` transforms of `shape`
/// under `layout`, in logical order (transform, then row-major).
pub fn offsets(layout: &Layout, shape: &[usize], batch: usize) -> Vec<usize> {
    let points: usize = shape.iter().product();
    let mut offsets = Vec::with_capacity(batch * points);
    let mut index = vec![0usize; shape.len()];
    for b in 0..batch {
        index.iter_mut().for_each(|i| *i = 0);
        for _ in 0..points {
            let within: usize = index.iter().zip(&layout.strides).map(|(i, s)| i * s).sum();
            offsets.push(b * layout.distance + within);
            // Row-major: the last axis fastest.
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
    }
    offsets
}

/// The logical array of `batch` transforms that `buffer` holds under `layout`.
pub fn gather<T: Copy>(layout: &Layout, shape: &[usize], buffer: &[T], batch: usize) -> Vec<T> {
    offsets(layout, shape, batch)
        .into_iter()
        .map(|o| buffer[o])
        .collect()
}

/// Writes the logical array `values` into `buffer` under `layout`.
pub fn scatter<T: Copy>(layout: &Layout, shape: &[usize], values: &[T], buffer: &mut [T]) {
    let points: usize = shape.iter().product();
    let batch = values.len() / points.max(1);
    for (o, &v) in offsets(layout, shape, batch).into_iter().zip(values) {
        buffer[o] = v;
    }
}

/// Whether each element of a buffer of `len` elements is a position of the
/// layout (`true`) or a gap between them.
pub fn covered(layout: &Layout, shape: &[usize], batch: usize, len: usize) -> Vec<bool> {
    let mut covered = vec![false; len];
    for o in offsets(layout, shape, batch) {
        covered[o] = true;
    }
    covered
}

/// Offsets in reals of every element of `batch` transforms of `shape` under
/// `layout` whose elements are `element`s, in logical order: a real's own
/// offset, a complex value's real part (its imaginary part is the next real).
pub fn real_offsets(
    layout: &Layout,
    shape: &[usize],
    element: Element,
    batch: usize,
) -> Vec<usize> {
    let per = reals_per(element);
    offsets(layout, shape, batch)
        .into_iter()
        .map(|o| o * per)
        .collect()
}

/// Whether each real of a buffer of `len` reals belongs to an element of
/// `layout` (`true`) or lies in a gap between them.
pub fn covered_reals(
    layout: &Layout,
    shape: &[usize],
    element: Element,
    batch: usize,
    len: usize,
) -> Vec<bool> {
    let mut covered = vec![false; len];
    for o in real_offsets(layout, shape, element, batch) {
        covered[o..o + reals_per(element)].fill(true);
    }
    covered
}

/// Reals of one element.
pub fn reals_per(element: Element) -> usize {
    match element {
        Element::Real => 1,
        Element::Complex => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_and_scatter_invert_each_other_through_a_padded_layout() {
        let shape = [2, 3];
        let padded = Layout::embedded(&shape, &[2, 5], 1, 12).unwrap();
        let batch = 2;
        let len = padded.elements(&shape, batch);
        assert_eq!(len, 12 + 5 + 3);
        assert_eq!(
            offsets(&padded, &shape, batch),
            [0, 1, 2, 5, 6, 7, 12, 13, 14, 17, 18, 19]
        );
        let logical: Vec<usize> = (100..112).collect();
        let mut buffer = vec![0; len];
        scatter(&padded, &shape, &logical, &mut buffer);
        assert_eq!(gather(&padded, &shape, &buffer, batch), logical);
        let covered = covered(&padded, &shape, batch, len);
        assert_eq!(covered.iter().filter(|&&c| c).count(), 12);
        assert!(!covered[3] && !covered[11]);
        // A dense layout is the identity.
        let dense = Layout::contiguous(&shape);
        assert_eq!(offsets(&dense, &shape, 2), (0..12).collect::<Vec<_>>());
    }

    #[test]
    fn sides_of_reals_and_of_complex_values_are_addressed_in_reals() {
        let shape = [2, 3];
        let padded = Layout::embedded(&shape, &[2, 5], 1, 12).unwrap();
        let reals = real_offsets(&padded, &shape, Element::Real, 1);
        assert_eq!(reals, [0, 1, 2, 5, 6, 7]);
        let complex = real_offsets(&padded, &shape, Element::Complex, 1);
        assert_eq!(complex, [0, 2, 4, 10, 12, 14]);
        let covered = covered_reals(&padded, &shape, Element::Complex, 1, 16);
        let gaps: Vec<usize> = (0..16).filter(|&i| !covered[i]).collect();
        assert_eq!(gaps, [6, 7, 8, 9]);
    }
}
