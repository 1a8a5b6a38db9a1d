//! The entry point of planning: decides, for an [`FftSpec`] that
//! [`super::validate`] accepted, how the transform decomposes into kernels
//! (seed 000 sections IV.C and IV.F, the hierarchical FFT; seed 001's
//! four-step): one pass where a block holds the whole 1D transform
//! ([`super::one_kernel`]), else
//! one pass per axis and two or three per axis longer than a block holds
//! ([`super::multipass`]), or for a real transform the real axis split from
//! the complex ones ([`super::real`]). Each pass is then shaped by the
//! one-pass planner ([`super::pass_planner`]), from the user's choices,
//! then measured shapes ([`Wisdom`]), then heuristics; no plan leaves
//! without its invariants checked ([`super::invariants`]).

use super::bluestein::needs_bluestein;
use super::validate::validate;
use super::wisdom::Wisdom;
use super::Plan;
use crate::{Error, FftSpec, Layout};

/// Plans `spec` with the wisdom it names (or `FFTGEN_WISDOM`'s, before the
/// built-in files), or says why it cannot be planned.
pub fn plan(spec: &FftSpec) -> Result<Plan, Error> {
    // The size first: a bad size is reported before a bad wisdom file.
    validate(spec)?;
    let wisdom = Wisdom::for_spec(spec.wisdom.as_deref())?;
    checked(spec, plan_without_unit_axes(spec, &wisdom)?)
}

/// Plans `spec` with `wisdom`.
pub fn plan_with_wisdom(spec: &FftSpec, wisdom: &Wisdom) -> Result<Plan, Error> {
    validate(spec)?;
    checked(spec, plan_without_unit_axes(spec, wisdom)?)
}

/// Plans `spec`, whose axes of one point are the identity (as numpy and
/// cuFFT treat them): the transform of the other axes, with the layouts'
/// strides of those axes, given back `spec`'s shape and layouts.
fn plan_without_unit_axes(spec: &FftSpec, wisdom: &Wisdom) -> Result<Plan, Error> {
    if !spec.shape.contains(&1) {
        return plan_validated(spec, wisdom);
    }
    let kept: Vec<usize> = (0..spec.shape.len())
        .filter(|&a| spec.shape[a] != 1)
        .collect();
    let keep = |layout: &Layout| Layout {
        strides: kept.iter().map(|&a| layout.strides[a]).collect(),
        distance: layout.distance,
    };
    let reduced = FftSpec {
        shape: kept.iter().map(|&a| spec.shape[a]).collect(),
        input_layout: Some(keep(&spec.planned_input_layout())),
        output_layout: Some(keep(&spec.planned_output_layout())),
        ..spec.clone()
    };
    let mut plan = plan_validated(&reduced, wisdom)?;
    let mut factors = plan.axis_factors.into_iter();
    plan.axis_factors = spec
        .shape
        .iter()
        .map(|&n| match n {
            1 => vec![1],
            _ => factors.next().expect("one split per axis kept"),
        })
        .collect();
    plan.shape = spec.shape.clone();
    plan.input_layout = spec.planned_input_layout();
    plan.output_layout = spec.planned_output_layout();
    Ok(plan)
}

/// `plan`, if it keeps every invariant of [`super::invariants`] on the
/// spec's target: no plan leaves the planner otherwise.
fn checked(spec: &FftSpec, plan: Plan) -> Result<Plan, Error> {
    super::invariants::check(&plan, spec.planned_target())?;
    Ok(plan)
}

/// Plans `spec`, whose size and directions [`validate`] accepted: a real
/// transform by [`super::real`], an axis with a prime factor no radix
/// covers by [`super::bluestein`], a contiguous 1D batch that one kernel
/// holds as that kernel ([`super::one_kernel`]), anything else in several
/// passes ([`super::multipass`]).
fn plan_validated(spec: &FftSpec, wisdom: &Wisdom) -> Result<Plan, Error> {
    let target = spec.planned_target();
    // A real transform whose real axis the real planner computes is its,
    // the complex axes by Bluestein's algorithm where they need it.
    if spec.kind == crate::TransformKind::R2c && super::real::plans_real_axis(spec) {
        return super::real::plan(spec, target, wisdom);
    }
    if spec.shape.iter().any(|&n| needs_bluestein(n)) {
        return super::bluestein::plan(spec, target, wisdom);
    }
    match super::one_kernel::plan(spec, target, wisdom) {
        Some(plan) => plan,
        None => super::multipass::plan(spec, target, wisdom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::validate::MAX_POINTS;
    use crate::Precision;

    #[test]
    fn bad_requests_are_errors() {
        assert_eq!(plan(&FftSpec::new(0)), Err(Error::ZeroSize));
        // A prime factor no radix covers takes Rader's algorithm where its
        // p - 1 is smooth, else Bluestein's.
        let rader = plan(&FftSpec::new(37)).unwrap();
        assert!(rader.passes[0]
            .chirp
            .is_some_and(|c| c.padded == 36 && c.rader.is_some()));
        let bluestein = plan(&FftSpec::new(83)).unwrap();
        assert!(bluestein.passes[0]
            .chirp
            .is_some_and(|c| c.padded >= 165 && c.rader.is_none()));
        assert!(plan(&FftSpec::with_shape(&[64, 74]).kind(crate::TransformKind::R2c)).is_ok());
        assert!(matches!(
            plan(&FftSpec::new((1 << 29) + 11)),
            Err(Error::PrimeAxisUnsupported { axis: 0, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new((1 << 30) + 1024)),
            Err(Error::TooLarge { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::with_shape(&[1 << 16, 1 << 15]).precision(Precision::F64)),
            Err(Error::TooLarge {
                max: MAX_POINTS,
                ..
            })
        ));
        // An axis of one point is the identity: 64x1x8 is the 2D 64x8 with
        // the shape and layouts it was given.
        let unit = plan(&FftSpec::with_shape(&[64, 1, 8])).unwrap();
        let plain = plan(&FftSpec::with_shape(&[64, 8])).unwrap();
        assert_eq!(unit.passes, plain.passes);
        assert_eq!(unit.shape, vec![64, 1, 8]);
        assert_eq!(unit.axis_factors, vec![vec![64], vec![1], vec![8]]);
        assert_eq!(unit.input_layout, Layout::contiguous(&[64, 1, 8]));
        for shape in [&[1, 1][..], &[1]] {
            assert!(plan(&FftSpec::with_shape(shape)).is_err());
        }
        assert!(matches!(
            plan(&FftSpec::with_shape(&[64, 1]).kind(crate::TransformKind::R2c)),
            Err(Error::BadShape { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::with_shape(&[2, 2, 2, 2])),
            Err(Error::BadShape { .. })
        ));
        assert!(plan(&FftSpec::with_shape(&[64, 74])).is_ok());
        // Shape choices that fit one kernel where the planner's shape does
        // not are planned as one (32768 f32 in 1024 threads, one part at a
        // time); others are refused as needing one kernel.
        let one_part = crate::ShapeChoices {
            radices: Some(vec![32, 32, 32]),
            threads_per_fft: Some(1024),
            exchange_width: Some(crate::plan::ExchangeWidth::OnePartAtATime),
            ..crate::ShapeChoices::default()
        };
        let h100 = FftSpec::new(32768).target(crate::Target::H100);
        assert_eq!(plan(&h100).unwrap().passes.len(), 2);
        assert_eq!(
            plan(&h100.clone().choices(one_part)).unwrap().passes.len(),
            1
        );
        let unfit = crate::ShapeChoices {
            threads_per_fft: Some(100_000),
            ..crate::ShapeChoices::default()
        };
        assert!(plan(&h100.choices(unfit)).is_err());
        // Shape choices are for single kernels: 8192 in f32 fits the
        // portable target's static shared memory one part at a time; in
        // f64 it does not.
        assert_eq!(
            plan(&FftSpec::new(8192).radices(&[8, 8, 8, 16]))
                .unwrap()
                .passes
                .len(),
            1
        );
        assert!(matches!(
            plan(
                &FftSpec::new(8192)
                    .precision(Precision::F64)
                    .radices(&[8, 8, 8, 16])
            ),
            Err(Error::ChoiceNeedsOneKernel { passes: 2, .. })
        ));
        let padded = crate::Layout::embedded(&[8, 8], &[8, 9], 1, 72).unwrap();
        assert!(matches!(
            plan(
                &FftSpec::with_shape(&[8, 8])
                    .layouts(padded, crate::Layout::contiguous(&[8, 8]))
                    .placement(crate::Placement::InPlace)
            ),
            Err(Error::BadLayout { .. })
        ));
        let overlapping = crate::Layout {
            strides: vec![4, 1],
            distance: 64,
        };
        assert!(matches!(
            plan(&FftSpec::with_shape(&[8, 8]).layouts(overlapping.clone(), overlapping)),
            Err(Error::BadLayout { .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(64).radices(&[8, 4])),
            Err(Error::RadixProduct { product: 32, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(74).radices(&[2, 37])),
            Err(Error::ChoiceWithBluestein { padded: 147, .. })
        ));
        assert!(matches!(
            plan(&FftSpec::new(4096).radices(&[2; 12])),
            Err(Error::UnlaunchableRadices { .. })
        ));
    }
}
