//! One thing `fftgen bench` times: a shape, in a precision, as a kind of
//! transform (C2C, or R2C with its C2R), and the list a run times, in its
//! order. Listed shapes (`--sizes`, one `--precision` and one `--kind` for
//! all) run in increasing order of their points; drawn ones
//! ([`super::random_shapes`], each with its own precision and kind) in the
//! order drawn. A case prints as `fftgen bench --list` writes it, one per
//! line: `1024x1024 f32 c2c`.

use crate::shape::Shape;
use fftgen::{FftSpec, Precision, TransformKind};
use std::fmt;

/// A shape to time, in a precision, as a kind of transform.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BenchCase {
    /// The axes, first axis first (for `r2c`, the real side's; the real
    /// axis last).
    pub shape: Shape,
    pub precision: Precision,
    pub kind: TransformKind,
}

impl BenchCase {
    /// Every shape of `shapes` in `precision` as `kind`, in increasing order
    /// of points (axes breaking ties), each once: what `--sizes` runs.
    pub fn listed(shapes: &[Shape], precision: Precision, kind: TransformKind) -> Vec<BenchCase> {
        let mut shapes = shapes.to_vec();
        shapes.sort_by_key(|shape| (shape.points(), shape.0.clone()));
        shapes.dedup();
        shapes
            .into_iter()
            .map(|shape| BenchCase {
                shape,
                precision,
                kind,
            })
            .collect()
    }

    /// The transform the case describes, as planned for any GPU (the runner
    /// plans it again for the device it runs on).
    pub fn spec(&self) -> FftSpec {
        FftSpec::with_shape(&self.shape.0)
            .kind(self.kind)
            .precision(self.precision)
    }
}

impl fmt::Display for BenchCase {
    /// `1024x1024 f32 c2c`: the shape as `--sizes` takes it, the precision
    /// and the kind as `--precision` and `--kind` take them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.shape, self.precision, self.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::parse_shape;

    #[test]
    fn listed_shapes_run_by_points_once_each() {
        let shapes: Vec<Shape> = ["1024x1024", "8192", "64x64", "8192", "4096"]
            .iter()
            .map(|t| parse_shape(t).unwrap())
            .collect();
        let cases = BenchCase::listed(&shapes, Precision::F64, TransformKind::R2c);
        let lines: Vec<String> = cases.iter().map(|c| c.to_string()).collect();
        assert_eq!(
            lines,
            [
                "64x64 f64 r2c",
                "4096 f64 r2c",
                "8192 f64 r2c",
                "1024x1024 f64 r2c"
            ]
        );
        assert_eq!(cases[3].spec().shape, vec![1024, 1024]);
        assert_eq!(cases[3].spec().kind, TransformKind::R2c);
    }
}
