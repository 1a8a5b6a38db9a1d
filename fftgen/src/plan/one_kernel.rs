//! One kernel for a contiguous 1D batch (seed 000 section IV.C: the whole
//! FFT in one block, its data in registers and shared memory between the
//! stages): where the target holds the transform (in its opt-in shared
//! memory past [`max_size`]), the pass from the user's shape choices, then
//! a measured shape the target launches ([`Wisdom`]), then the one-pass
//! planner's own ([`super::pass_planner`]). [`super::decompose`] plans the
//! transform in several passes where this offers none.

use super::choices::ShapeChoices;
use super::pass_planner::{max_size, plan_pass, validate_radices};
use super::wisdom::Wisdom;
use super::{Access, ColumnIo, ExchangeBuffers, Pass, Plan};
use crate::{Buffer, Error, FftSpec, Layout, Target};

/// The one-kernel plan of `spec`, a C2C transform whose lengths are
/// smooth, or why its choices cannot be planned as one; `None` where
/// `spec` is no contiguous 1D batch one kernel holds (nor one the user's
/// or measured shape choices fit), or names a split.
pub(super) fn plan(
    spec: &FftSpec,
    target: &Target,
    wisdom: &Wisdom,
) -> Option<Result<Plan, Error>> {
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
        return None;
    }
    if let Some(column_io) = spec.choices.column_io {
        return Some(Err(Error::ChoiceNeedsSeveralPasses {
            choice: format!("--column-io {column_io}"),
            n: spec.n(),
        }));
    }
    if let Some(form) = spec.choices.step_twiddles {
        return Some(Err(Error::ChoiceNeedsSeveralPasses {
            choice: format!("--step-twiddles {form}"),
            n: spec.n(),
        }));
    }
    let pass = match chosen_pass {
        Some(pass) => Ok(pass),
        None => one_kernel_pass(spec, target, wisdom, opt_in_pass),
    };
    Some(pass.map(|pass| one_kernel_plan(spec, pass)))
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
    use crate::plan::plan;
    use crate::plan::{FirstWrite, InputCaching};

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
}
