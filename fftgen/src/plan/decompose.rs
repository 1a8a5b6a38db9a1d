//! The entry point of planning: decides, for an [`FftSpec`] that
//! [`super::validate`] accepted, how the transform decomposes into kernels
//! (seed 000 sections IV.C and IV.F, the hierarchical FFT; seed 001's
//! four-step): one pass where a block holds the whole 1D transform, else
//! one pass per axis and two or three per axis longer than a block holds
//! ([`super::multipass`]), or for a real transform the real axis split from
//! the complex ones ([`super::real`]). Each pass is then shaped by the
//! one-pass planner ([`super::pass_planner`]), from the user's choices,
//! then measured shapes ([`Wisdom`]), then heuristics; no plan leaves
//! without its invariants checked ([`super::invariants`]).

use super::bluestein::needs_bluestein;
use super::choices::ShapeChoices;
use super::pass_planner::{max_size, plan_pass, validate_radices};
use super::validate::validate;
use super::wisdom::Wisdom;
use super::{Access, ColumnIo, ExchangeBuffers, Pass, Plan};
use crate::{Buffer, Error, FftSpec, Layout, Target};

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
/// transform by [`super::real`], a contiguous 1D batch that one kernel
/// holds as that kernel, anything else in several passes.
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
    let n = spec.n();
    let single = spec.shape.len() == 1
        && spec.planned_input_layout().is_contiguous(&spec.shape)
        && spec.planned_output_layout().is_contiguous(&spec.shape)
        && spec.choices.split.is_none();
    // Past max_size one kernel is what the target's opt-in memory holds:
    // the planner's own pass, planned once (the schedule search and the
    // padding search are the cost of a plan here).
    let opt_in_pass = (single && n > max_size(spec.precision)).then(|| {
        plan_pass(
            n,
            spec.precision,
            &ShapeChoices::default(),
            target,
            &dense(n),
        )
    });
    // Where the planner's own shape does not fit one kernel, shape choices
    // given by the user (or measured in the wisdom) may still: 32768 f32
    // in 1024 threads with the exchange one part at a time.
    let chosen_pass = match &opt_in_pass {
        Some(Err(_)) if single => chosen_one_kernel_pass(spec, target, wisdom),
        _ => None,
    };
    let one_kernel =
        single && (chosen_pass.is_some() || opt_in_pass.as_ref().is_none_or(|pass| pass.is_ok()));
    if !one_kernel {
        return super::multipass::plan(spec, target, wisdom);
    }
    if let Some(column_io) = spec.choices.column_io {
        return Err(Error::ChoiceNeedsSeveralPasses {
            choice: format!("--column-io {column_io}"),
            n: spec.n(),
        });
    }
    if let Some(form) = spec.choices.step_twiddles {
        return Err(Error::ChoiceNeedsSeveralPasses {
            choice: format!("--step-twiddles {form}"),
            n: spec.n(),
        });
    }
    let pass = match chosen_pass {
        Some(pass) => pass,
        None => one_kernel_pass(spec, target, wisdom, opt_in_pass)?,
    };
    Ok(one_kernel_plan(spec, pass))
}

/// The one-kernel pass of a size past [`max_size`] whose planned shape does
/// not fit, from the user's shape choices where they fit, else from the
/// first measured shape the target launches; `None` where neither does (a
/// user's choices are then refused as needing one kernel).
fn chosen_one_kernel_pass(spec: &FftSpec, target: &Target, wisdom: &Wisdom) -> Option<Pass> {
    let n = spec.n();
    let user = spec.choices.one_kernel_only();
    if !user.is_empty() {
        return plan_pass(n, spec.precision, &user, target, &dense(n)).ok();
    }
    wisdom
        .candidates(&spec.shape, spec.precision, target)
        .find_map(|entry| launchable(spec, &entry.choices, target))
}

/// The pass of a one-kernel `spec`: a user's radices as given; otherwise
/// the first measured shape this target launches, then the heuristic
/// (`opt_in_pass`, already planned past [`max_size`]). Choices the user
/// made win over measured ones.
fn one_kernel_pass(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
    opt_in_pass: Option<Result<Pass, Error>>,
) -> Result<Pass, Error> {
    let n = spec.n();
    let user = &spec.choices;
    let measured = match &user.radices {
        Some(radices) => {
            validate_radices(n, radices)?;
            None
        }
        None => wisdom
            .candidates(&spec.shape, spec.precision, target)
            .find_map(|entry| Some((&entry.choices, launchable(spec, &entry.choices, target)?))),
    };
    let pass = match measured {
        // The measured shape as it was planned, where the user chose nothing.
        Some((_, pass)) if user.is_empty() => pass,
        // A measured one-part exchange gives way to alternating buffers asked
        // for by the user, which need both parts.
        Some((measured, _)) if user.exchange_buffers == Some(ExchangeBuffers::Alternating) => {
            let measured = ShapeChoices {
                exchange_width: None,
                ..measured.clone()
            };
            plan_pass(n, spec.precision, &user.or(&measured), target, &dense(n))?
        }
        Some((measured, _)) => plan_pass(n, spec.precision, &user.or(measured), target, &dense(n))?,
        None => match opt_in_pass {
            Some(pass) if user.is_empty() => pass?,
            _ => plan_pass(n, spec.precision, user, target, &dense(n))?,
        },
    };
    Ok(pass)
}

/// The plan of a contiguous 1D batch that `pass` computes alone.
fn one_kernel_plan(spec: &FftSpec, pass: Pass) -> Plan {
    let n = spec.n();
    Plan {
        n,
        shape: spec.shape.clone(),
        kind: crate::TransformKind::C2c,
        precision: spec.precision,
        directions: spec.directions.clone(),
        normalization: spec.normalization,
        placement: spec.placement,
        input_layout: Layout::contiguous(&spec.shape),
        output_layout: Layout::contiguous(&spec.shape),
        scratch_elements: 0,
        axis_factors: vec![vec![n]],
        column_io: ColumnIo::Tile,
        passes: vec![pass],
        inverse_passes: Vec::new(),
        normalization_points: None,
    }
}

/// The access of a single-kernel 1D batch.
fn dense(n: usize) -> Access {
    Access::dense(n, Buffer::Input, Buffer::Output)
}

/// The pass `choices` describe for `spec`, if it plans and launches on
/// `target` (NVIDIA's OpenCL, say, takes fewer threads per block than a
/// shape measured through CUDA may need).
fn launchable(spec: &FftSpec, choices: &ShapeChoices, target: &Target) -> Option<Pass> {
    plan_pass(spec.n(), spec.precision, choices, target, &dense(spec.n()))
        .ok()
        .filter(|pass| pass.threads_per_block <= target.launchable_threads_per_block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::validate::MAX_POINTS;
    use crate::plan::{FirstWrite, InputCaching};
    use crate::Precision;

    #[test]
    fn input_caching_comes_from_the_user_then_a_measurement() {
        let planned = |spec: FftSpec| plan(&spec).unwrap().passes[0].input_caching;
        assert_eq!(planned(FftSpec::new(1331)), InputCaching::L2Only);
        assert_eq!(planned(FftSpec::new(64)), InputCaching::L2Only);
        assert_eq!(planned(FftSpec::new(4096)), InputCaching::L1AndL2);
        assert_eq!(
            planned(FftSpec::new(1331).choices(ShapeChoices {
                input_caching: Some(InputCaching::L1AndL2),
                ..ShapeChoices::default()
            })),
            InputCaching::L1AndL2
        );
        assert_eq!(
            planned(FftSpec::new(256).choices(ShapeChoices {
                input_caching: Some(InputCaching::L2Only),
                ..ShapeChoices::default()
            })),
            InputCaching::L2Only
        );
        // Radices given by hand skip the wisdom, its caching too.
        assert_eq!(
            planned(FftSpec::new(1331).radices(&[11, 11, 11])),
            InputCaching::L1AndL2
        );
    }

    #[test]
    fn first_write_comes_from_the_user_then_a_measurement() {
        let planned = |spec: FftSpec| plan(&spec).unwrap().passes[0].first_write;
        assert_eq!(planned(FftSpec::new(2187)), FirstWrite::AfterBarrier);
        assert_eq!(
            planned(FftSpec::new(2187).target(Target::H200)),
            FirstWrite::Immediate
        );
        assert_eq!(
            planned(FftSpec::new(512).target(Target::H200)),
            FirstWrite::AfterBarrier
        );
        assert_eq!(
            planned(
                FftSpec::new(2187)
                    .target(Target::H200)
                    .choices(ShapeChoices {
                        first_write: Some(FirstWrite::AfterBarrier),
                        ..ShapeChoices::default()
                    })
            ),
            FirstWrite::AfterBarrier
        );
        assert_eq!(
            planned(FftSpec::new(512).choices(ShapeChoices {
                first_write: Some(FirstWrite::Immediate),
                ..ShapeChoices::default()
            })),
            FirstWrite::Immediate
        );
    }

    #[test]
    fn measured_shapes_are_planned_only_where_the_target_launches_them() {
        let threads = |target: Option<Target>| {
            let mut spec = FftSpec::new(2401);
            spec.target = target;
            plan(&spec).unwrap().passes[0].threads_per_fft
        };
        // 343 threads per block, as measured through CUDA on the H100 and H200.
        assert_eq!(threads(Some(Target::CUDA)), 343);
        assert_eq!(threads(Some(Target::H200)), 343);
        // NVIDIA's OpenCL grants these kernels 256: the heuristic's shape.
        assert!(threads(None) <= 256);
        assert!(threads(Some(Target::OPENCL_NVIDIA)) <= 256);
        let h200_opencl = Target::H200.clamped_to(&Target::OPENCL_NVIDIA);
        assert!(threads(Some(h200_opencl)) <= 256);
        // A target with less shared memory than the shape needs gets its own.
        let small = Target {
            max_static_shared_bytes: 8 * 1024,
            ..Target::H200
        };
        let pass = &plan(&FftSpec::new(1000).target(small)).unwrap().passes[0];
        assert!(pass.shared_bytes <= 8 * 1024 - 256, "{}", pass.shared_bytes);
    }

    #[test]
    fn bad_requests_are_errors() {
        assert_eq!(plan(&FftSpec::new(0)), Err(Error::ZeroSize));
        // A prime factor no radix covers takes Bluestein's algorithm.
        let bluestein = plan(&FftSpec::new(37)).unwrap();
        assert!(bluestein.passes[0].chirp.is_some_and(|c| c.padded == 75));
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
