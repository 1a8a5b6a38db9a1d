//! The shape of a transform as the command line spells it: a length
//! (`4096`) or axes joined by `x` (`1024x1024`, `64x48x40`), row-major with
//! the last axis contiguous. `fftgen emit/plan/check --n` and `fftgen bench
//! --sizes` parse it here, and reports print it back the same way.

use std::fmt;

/// The lengths of a transform's axes, first axis first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape(pub Vec<usize>);

impl Shape {
    /// Elements of one transform: the product of the axes.
    pub fn points(&self) -> usize {
        self.0.iter().product()
    }
}

impl fmt::Display for Shape {
    /// `4096`, `1024x1024`: what [`parse_shape`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shape_text(&self.0))
    }
}

/// `axes` joined by `x` (`64x48x40`; one axis is its length).
pub fn shape_text(axes: &[usize]) -> String {
    let axes: Vec<String> = axes.iter().map(|n| n.to_string()).collect();
    axes.join("x")
}

/// A shape: 1 to 3 lengths joined by `x` (lengths of 0 are the planner's to
/// refuse, in one line like every planning error).
pub fn parse_shape(text: &str) -> Result<Shape, String> {
    let axes: Vec<&str> = text.split(['x', 'X']).collect();
    if axes.len() > 3 {
        return Err(format!(
            "`{text}` has {} axes; give 1 to 3 lengths joined by `x`, like 1024x1024",
            axes.len()
        ));
    }
    axes.iter()
        .map(|axis| {
            axis.trim().parse::<usize>().map_err(|_| {
                format!(
                    "`{text}` is not a shape; give a length (4096) or lengths joined by `x` \
                     (1024x1024, 64x48x40)"
                )
            })
        })
        .collect::<Result<_, _>>()
        .map(Shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_and_print_back() {
        for (text, axes) in [
            ("8192", vec![8192]),
            ("1024x1024", vec![1024, 1024]),
            ("256x256x256", vec![256, 256, 256]),
        ] {
            let shape = parse_shape(text).unwrap();
            assert_eq!(shape.0, axes);
            assert_eq!(shape.to_string(), text);
        }
        assert_eq!(parse_shape("64X48x40").unwrap().points(), 64 * 48 * 40);
        assert!(parse_shape("2x2x2x2").unwrap_err().contains("4 axes"));
        assert!(parse_shape("1024x").is_err());
        assert!(parse_shape("abc").unwrap_err().contains("not a shape"));
    }
}
