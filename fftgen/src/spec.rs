//! The transform the user asks for, before any decision about how to compute
//! it (cuFFTDx's "description", kept apart from the execution shape in
//! [`crate::plan`]), with the choices they made in place of the planner, the
//! device it is for and the wisdom to plan with.

use crate::plan::ShapeChoices;
use crate::{Direction, Normalization, Placement, Precision, Target};
use serde::Serialize;
use std::path::PathBuf;

/// A batched, contiguous, interleaved complex-to-complex FFT request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FftSpec {
    /// Transform length.
    pub n: usize,
    pub precision: Precision,
    /// Directions to generate kernels for (one source file holds them all).
    pub directions: Vec<Direction>,
    pub normalization: Normalization,
    pub placement: Placement,
    /// Choices made in place of the planner (by a user, a tuner); the rest
    /// come from wisdom or the planner's heuristics.
    pub choices: ShapeChoices,
    /// The device the plan is for; `None` plans a shape that every GPU
    /// launches through either backend ([`Target::PORTABLE`]). The runtime
    /// fills it from the device it opened.
    pub target: Option<Target>,
    /// A wisdom file consulted before the built-in ones; `None` reads the
    /// one `FFTGEN_WISDOM` names, if any.
    pub wisdom: Option<PathBuf>,
}

impl FftSpec {
    /// A forward and inverse, out-of-place, unnormalised f32 transform of length `n`.
    pub fn new(n: usize) -> Self {
        FftSpec {
            n,
            precision: Precision::F32,
            directions: vec![Direction::Forward, Direction::Inverse],
            normalization: Normalization::None,
            placement: Placement::OutOfPlace,
            choices: ShapeChoices::default(),
            target: None,
            wisdom: None,
        }
    }

    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    pub fn directions(mut self, directions: &[Direction]) -> Self {
        self.directions = directions.to_vec();
        self
    }

    pub fn normalization(mut self, normalization: Normalization) -> Self {
        self.normalization = normalization;
        self
    }

    pub fn placement(mut self, placement: Placement) -> Self {
        self.placement = placement;
        self
    }

    /// The radix sequence, first stage first (the choice users make most).
    pub fn radices(mut self, radices: &[usize]) -> Self {
        self.choices.radices = Some(radices.to_vec());
        self
    }

    /// `choices` in place of the planner's (over any made before).
    pub fn choices(mut self, choices: ShapeChoices) -> Self {
        self.choices = choices.or(&self.choices);
        self
    }

    pub fn target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }

    pub fn wisdom(mut self, file: impl Into<PathBuf>) -> Self {
        self.wisdom = Some(file.into());
        self
    }

    /// The device the plan is for.
    pub fn planned_target(&self) -> &Target {
        self.target.as_ref().unwrap_or(&Target::PORTABLE)
    }

    /// The `fftgen emit` command line that generates this spec, every option
    /// spelled out; generated headers carry it so the file can be reproduced.
    pub fn emit_command(&self) -> String {
        let mut line = format!("fftgen emit --n {}", self.n);
        for (flag, value) in self.choices.flags() {
            line.push_str(&format!(" --{flag} {value}"));
        }
        if let Some(target) = &self.target {
            // A device's own name (`NVIDIA H200`) is quoted for the shell.
            match target.name.contains(char::is_whitespace) {
                true => line.push_str(&format!(" --target '{}'", target.name)),
                false => line.push_str(&format!(" --target {}", target.name)),
            }
        }
        if let Some(file) = &self.wisdom {
            line.push_str(&format!(" --wisdom {}", file.display()));
        }
        let direction = match self.directions.as_slice() {
            [single] => single.to_string(),
            _ => "both".to_string(),
        };
        line.push_str(&format!(
            " --precision {} --direction {direction} --normalization {} --placement {}",
            self.precision, self.normalization, self.placement
        ));
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_names_every_choice_and_the_target() {
        let spec = FftSpec::new(2401)
            .choices(ShapeChoices {
                threads_per_fft: Some(343),
                ..ShapeChoices::default()
            })
            .target(Target::H200)
            .wisdom("mine.json");
        assert_eq!(
            spec.emit_command(),
            "fftgen emit --n 2401 --threads-per-fft 343 --target h200 --wisdom mine.json \
             --precision f32 --direction both --normalization none --placement out-of-place"
        );
        let device = Target {
            name: "NVIDIA H200".into(),
            ..Target::H200
        };
        let line = FftSpec::new(64).target(device).emit_command();
        assert!(line.contains(" --target 'NVIDIA H200' "), "{line}");
    }
}
