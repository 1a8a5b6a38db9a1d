//! Measured planning as the commands report it: the choices that won on
//! the GPU (`plan --measure`, `check --measure`, `bench --measure`), what
//! each candidate took, each named by what it changes from the estimate.

use fftgen::plan::measure::Measurement;
use fftgen::{FftSpec, ShapeChoices};
use fftgen_runtime::measure::{cuda_fft_measured, MeasuredFft};
use fftgen_runtime::planner::{for_target, PlanError};
use fftgen_runtime::CudaDevice;
use std::time::Duration;

/// `spec` measured on `device` within `budget` (or taken from the per-user
/// file): the spec with the winner's choices, and the lines that say so.
pub fn measured_spec(
    device: &CudaDevice,
    spec: &FftSpec,
    budget: Duration,
) -> Result<(FftSpec, Vec<String>), PlanError> {
    let spec = for_target(spec, device.target());
    let measured = cuda_fft_measured(device, &spec, budget)?;
    let lines = describe(&spec, &measured);
    Ok((spec.choices(measured.choices), lines))
}

/// The lines that report `measured` for `spec`: a summary, then each
/// candidate timed.
pub fn describe(spec: &FftSpec, measured: &MeasuredFft) -> Vec<String> {
    let estimate = fftgen::plan::plan(spec)
        .map(|plan| ShapeChoices::pinned_plan(&plan))
        .unwrap_or_default();
    let Some(measurement) = &measured.measurement else {
        return vec![format!(
            "measured before on this GPU (the per-user file): {}",
            changed(&measured.choices, &estimate)
        )];
    };
    let mut lines = vec![format!(
        "{} (compiling them took {} ms)",
        summary(measurement, &estimate),
        measured.compiling.as_millis()
    )];
    for (i, timed) in measurement.timed.iter().enumerate() {
        let what = match i {
            0 => "the estimate".to_string(),
            _ => changed(&timed.choices, &estimate),
        };
        let time = match (&timed.milliseconds, &timed.failure) {
            (Some(ms), _) => format!("{ms:.4} ms"),
            (None, Some(why)) => format!("failed: {why}"),
            (None, None) => "not timed".into(),
        };
        let mark = if i == measurement.fastest {
            "  <- fastest"
        } else {
            ""
        };
        lines.push(format!("  {time:>12}  {what}{mark}"));
    }
    lines
}

/// One line: candidates timed, the time spent, and the winner against the
/// estimate.
pub fn summary(measurement: &Measurement, estimate: &ShapeChoices) -> String {
    let timed = measurement.timed.len();
    let all = timed + measurement.untimed;
    let winner = match measurement.fastest {
        0 => "the estimate".to_string(),
        _ => changed(&measurement.winner().choices, estimate),
    };
    format!(
        "measured: {timed} of {all} candidates timed in {} ms; fastest: {winner}, \
         {:.3}x the estimate",
        measurement.spent.as_millis(),
        measurement.speedup()
    )
}

/// The flags of `choices` whose value differs from `from`'s, as command-line
/// flags (`--min-blocks-per-sm 2`); "the same shape" where none does.
pub fn changed(choices: &ShapeChoices, from: &ShapeChoices) -> String {
    let before = from.flags();
    let flags: Vec<String> = choices
        .flags()
        .into_iter()
        .filter(|flag| !before.contains(flag))
        .map(|(flag, value)| format!("--{flag} {value}"))
        .collect();
    match flags.is_empty() {
        true => "the same shape".into(),
        false => flags.join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_named_by_what_they_change() {
        let estimate = ShapeChoices {
            radices: Some(vec![9, 9, 9]),
            min_blocks_per_sm: Some(4),
            ..ShapeChoices::default()
        };
        let bound = ShapeChoices {
            min_blocks_per_sm: Some(2),
            ..estimate.clone()
        };
        assert_eq!(changed(&bound, &estimate), "--min-blocks-per-sm 2");
        assert_eq!(changed(&estimate, &estimate), "the same shape");
    }
}
