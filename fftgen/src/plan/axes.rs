//! A transform along the first axis of an array alone, the other axes left
//! as they are: the local steps of a transform spread over several GPUs
//! that take the axis a rank has just received whole. Only that axis is
//! planned: the others are columns, whatever their lengths (the half
//! spectrum of a real transform, 129 of a 256-point real axis, has the
//! prime factor 43, yet no FFT runs along it here). The array is dense, so
//! the other axes read as one of their product; the passes are the
//! multi-pass planner's own column passes (tiled, coalesced along the other
//! axes), as fast as in a whole transform.

use super::bluestein::needs_bluestein;
use super::validate::MAX_POINTS;
use super::wisdom::Wisdom;
use super::Plan;
use crate::{Error, FftSpec, Layout, Placement, TransformKind};

/// The plan of `spec` (complex, dense, out of place) along its first axis only.
pub fn plan_first_axis(spec: &FftSpec) -> Result<Plan, Error> {
    let refuse = |reason: String| Error::BadShape {
        shape: spec.shape.clone(),
        reason,
    };
    if spec.kind != TransformKind::C2c {
        return Err(refuse(
            "a transform along the first axis alone is complex to complex".into(),
        ));
    }
    let n0 = spec.shape.first().copied().unwrap_or(0);
    if n0 < 2 {
        return Err(refuse(
            "the first axis has fewer than two points, so its transform is the identity".into(),
        ));
    }
    if needs_bluestein(n0) {
        return Err(refuse(format!(
            "the first axis of {n0} points has a prime factor above 31, which only a whole \
             transform takes (by Bluestein's algorithm)"
        )));
    }
    let points = spec
        .shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .filter(|&points| points <= MAX_POINTS && points > 0)
        .ok_or(Error::TooLarge {
            n: spec
                .shape
                .iter()
                .fold(1usize, |acc, &n| acc.saturating_mul(n)),
            precision: spec.precision,
            max: MAX_POINTS,
        })?;
    // The other axes, dense, as one axis of their product; where they hold
    // one point, a 1D transform as the planner makes it.
    let inner = points / n0;
    let columns = FftSpec {
        shape: match inner {
            1 => vec![n0],
            _ => vec![n0, inner],
        },
        input_layout: None,
        output_layout: None,
        placement: Placement::OutOfPlace,
        ..spec.clone()
    };
    let target = spec.planned_target();
    let mut plan = match inner {
        1 => super::plan(&columns)?,
        _ => super::multipass::plan_axes(
            &columns,
            target,
            &spec.choices.several_passes_only(),
            &[0],
            false,
            Some(&*Wisdom::for_spec(spec.wisdom.as_deref())?),
        )?,
    };
    let first_axis = std::mem::take(&mut plan.axis_factors[0]);
    plan.axis_factors = vec![Vec::new(); spec.shape.len()];
    plan.axis_factors[0] = first_axis;
    plan.shape = spec.shape.clone();
    let dense = Layout::contiguous(&spec.shape);
    (plan.input_layout, plan.output_layout) = (dense.clone(), dense);
    plan.normalization_points = Some(n0);
    super::invariants::check(&plan, target)?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Buffer;

    /// The other axes are columns whatever their lengths: 129 (3 x 43)
    /// needs no radix, and the passes are those of axis 0 of the array as
    /// one of [96, 12900].
    #[test]
    fn the_other_axes_are_columns_whatever_their_lengths() {
        let plan = plan_first_axis(&FftSpec::with_shape(&[96, 100, 129])).unwrap();
        assert_eq!(plan.shape, vec![96, 100, 129]);
        assert_eq!(plan.axis_factors[0], vec![96]);
        assert!(plan.axis_factors[1..].iter().all(|f| f.is_empty()));
        assert_eq!(plan.passes.len(), 1);
        let access = &plan.passes[0].access;
        assert_eq!(
            (access.reads, access.writes),
            (Buffer::Input, Buffer::Output)
        );
        assert_eq!((access.input_stride, access.output_stride), (12900, 12900));
        // Axes of one point: a batch of 1D transforms.
        assert!(plan_first_axis(&FftSpec::with_shape(&[8, 1, 1])).is_ok());
        let refused = |shape: &[usize]| plan_first_axis(&FftSpec::with_shape(shape)).is_err();
        assert!(refused(&[1, 64]));
        assert!(refused(&[37, 64]));
    }
}
