//! What no shape can fix, checked before any planning: the size (one to
//! three axes, at most [`MAX_POINTS`], each with prime factors a radix or
//! Bluestein's algorithm covers), the layouts and the directions. A spec
//! that passes is one [`super::decompose`] can plan or refuse by its
//! choices alone.

use crate::{Error, FftSpec};

/// Most complex elements of one transform.
pub const MAX_POINTS: usize = 1 << 30;

/// What no shape can fix: the size, the layouts and the directions.
pub(super) fn validate(spec: &FftSpec) -> Result<(), Error> {
    validate_shape(spec)?;
    if spec.kind == crate::TransformKind::R2c {
        if let Some(layout) = &spec.input_layout {
            layout
                .check(&spec.shape)
                .map_err(|reason| Error::BadLayout {
                    side: "input",
                    shape: spec.shape.clone(),
                    reason,
                })?;
        }
        super::real::validate(spec)?;
    } else {
        validate_complex_layouts(spec)?;
    }
    if spec.directions.is_empty() {
        return Err(Error::NoDirection);
    }
    Ok(())
}

/// The axes: one to three, none empty, not all of one point (nor the real
/// axis), at most [`MAX_POINTS`] in all, and those with a prime factor no
/// radix covers within what Bluestein's algorithm takes.
fn validate_shape(spec: &FftSpec) -> Result<(), Error> {
    let shape = &spec.shape;
    let bad_shape = |reason: &str| {
        Err(Error::BadShape {
            shape: shape.clone(),
            reason: reason.into(),
        })
    };
    match shape.as_slice() {
        [] => return bad_shape("it has no axis"),
        [0] => return Err(Error::ZeroSize),
        [1] => return Err(Error::TrivialSize),
        axes if axes.len() > 3 => return bad_shape("it has more than three axes"),
        axes if axes.contains(&0) => return bad_shape("an axis has no points"),
        axes if axes.iter().all(|&n| n == 1) => {
            return bad_shape("every axis has one point, so the transform is the identity")
        }
        [.., 1] if spec.kind == crate::TransformKind::R2c => {
            return bad_shape("the real axis (the last) has one point; give it 2 or more")
        }
        _ => {}
    }
    // Size first: factoring a huge n by trial division would take minutes.
    let points = shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .unwrap_or(usize::MAX);
    if points > MAX_POINTS {
        return Err(Error::TooLarge {
            n: points,
            precision: spec.precision,
            max: MAX_POINTS,
        });
    }
    super::bluestein::validate(spec, MAX_POINTS)?;
    Ok(())
}

/// The layouts of a complex transform: each holds the shape (a stride per
/// axis, none zero, no two elements in one place), and in place both sides
/// have one layout.
fn validate_complex_layouts(spec: &FftSpec) -> Result<(), Error> {
    let shape = &spec.shape;
    for (side, layout) in [
        ("input", spec.input_layout.as_ref()),
        ("output", spec.output_layout.as_ref()),
    ] {
        if let Some(layout) = layout {
            layout.check(shape).map_err(|reason| Error::BadLayout {
                side,
                shape: shape.clone(),
                reason,
            })?;
        }
    }
    if spec.placement == crate::Placement::InPlace {
        if let (Some(input), Some(output)) = (&spec.input_layout, &spec.output_layout) {
            if input != output {
                return Err(Error::BadLayout {
                    side: "output",
                    shape: shape.clone(),
                    reason: "an in-place transform writes where it reads; give the output the \
                             input's layout, or plan it out of place"
                        .into(),
                });
            }
        }
    }
    Ok(())
}
