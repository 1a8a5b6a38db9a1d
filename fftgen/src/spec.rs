//! The transform the user asks for, before any decision about how to compute
//! it (cuFFTDx's "description", kept apart from the execution shape in
//! [`crate::plan`]), with the choices they made in place of the planner, the
//! device it is for and the wisdom to plan with.

use crate::plan::ShapeChoices;
use crate::{Direction, Layout, Normalization, Placement, Precision, Target, TransformKind};
use serde::Serialize;
use std::path::PathBuf;

/// A batched FFT request of one, two or three dimensions: complex to
/// complex, or real to half spectrum and back ([`TransformKind::R2c`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FftSpec {
    /// Length of each axis, row-major: `[n]` for a 1D transform,
    /// `[rows, columns]` for 2D (the last axis contiguous by default). For
    /// `r2c`, of the real side; the last axis is the real one.
    pub shape: Vec<usize>,
    /// `c2c` or `r2c` (forward R2C, inverse C2R).
    pub kind: TransformKind,
    /// Where the forward input's elements are (for `r2c` the reals, in real
    /// elements); `None`: dense, transform after transform
    /// ([`Layout::contiguous`]), and for `r2c` in place, rows padded to
    /// `2 (n / 2 + 1)` reals. The inverse writes this side.
    pub input_layout: Option<Layout>,
    /// Where the forward output's elements are (for `r2c` the half
    /// spectrum, in complex elements); `None`: dense. In place, the same
    /// buffer as the input. The inverse reads this side.
    pub output_layout: Option<Layout>,
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
        Self::with_shape(&[n])
    }

    /// A forward and inverse, out-of-place, unnormalised f32 transform of
    /// `shape` (row-major, last axis contiguous).
    pub fn with_shape(shape: &[usize]) -> Self {
        FftSpec {
            shape: shape.to_vec(),
            kind: TransformKind::C2c,
            input_layout: None,
            output_layout: None,
            precision: Precision::F32,
            directions: vec![Direction::Forward, Direction::Inverse],
            normalization: Normalization::None,
            placement: Placement::OutOfPlace,
            choices: ShapeChoices::default(),
            target: None,
            wisdom: None,
        }
    }

    /// Elements of one transform: the product of the shape.
    pub fn points(&self) -> usize {
        self.shape.iter().product()
    }

    /// The length of a 1D transform (the last axis of a multi-dimensional one).
    pub fn n(&self) -> usize {
        self.shape.last().copied().unwrap_or(0)
    }

    /// Where input and output live (cufftPlanMany's advanced layout).
    pub fn layouts(mut self, input: Layout, output: Layout) -> Self {
        self.input_layout = Some(input);
        self.output_layout = Some(output);
        self
    }

    /// The shape of the complex side: for `r2c`, the half spectrum (last
    /// axis `n / 2 + 1`).
    pub fn complex_shape(&self) -> Vec<usize> {
        self.kind.complex_shape(&self.shape)
    }

    /// The input layout the plan uses.
    pub fn planned_input_layout(&self) -> Layout {
        if let Some(layout) = &self.input_layout {
            return layout.clone();
        }
        match (self.kind, self.placement, &self.output_layout) {
            (TransformKind::R2c, Placement::InPlace, Some(output)) => Layout {
                strides: real_strides_over(output),
                distance: 2 * output.distance,
            },
            // In place the reals sit in rows of 2 (n / 2 + 1), where their
            // half spectrum will go.
            (TransformKind::R2c, Placement::InPlace, None) => {
                let complex = Layout::contiguous(&self.complex_shape());
                Layout {
                    strides: real_strides_over(&complex),
                    distance: 2 * complex.distance,
                }
            }
            _ => Layout::contiguous(&self.shape),
        }
    }

    /// The output layout the plan uses (in place, the input's buffer).
    pub fn planned_output_layout(&self) -> Layout {
        if (self.kind, self.placement) == (TransformKind::C2c, Placement::InPlace) {
            return self.planned_input_layout();
        }
        if let Some(layout) = &self.output_layout {
            return layout.clone();
        }
        match (self.kind, self.placement, &self.input_layout) {
            // The complex view of the padded real rows: half the strides.
            (TransformKind::R2c, Placement::InPlace, Some(input)) => Layout {
                strides: complex_strides_over(input),
                distance: input.distance / 2,
            },
            _ => Layout::contiguous(&self.complex_shape()),
        }
    }

    /// A real (`r2c`) or complex transform.
    pub fn kind(mut self, kind: TransformKind) -> Self {
        self.kind = kind;
        self
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
        let shape: Vec<String> = self.shape.iter().map(|n| n.to_string()).collect();
        let mut line = format!("fftgen emit --n {}", shape.join("x"));
        if self.kind != TransformKind::C2c {
            line.push_str(&format!(" --kind {}", self.kind));
        }
        for (flag, layout) in [
            ("input", &self.input_layout),
            ("output", &self.output_layout),
        ] {
            if let Some(layout) = layout {
                let strides: Vec<String> = layout.strides.iter().map(|s| s.to_string()).collect();
                line.push_str(&format!(
                    " --{flag}-strides {} --{flag}-distance {}",
                    strides.join(","),
                    layout.distance
                ));
            }
        }
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

/// The real strides of a buffer whose complex view has `complex`'s strides:
/// each complex element is two reals, the last axis's reals adjacent.
fn real_strides_over(complex: &Layout) -> Vec<usize> {
    let last = complex.strides.len().saturating_sub(1);
    complex
        .strides
        .iter()
        .enumerate()
        .map(|(a, &s)| if a == last { s } else { 2 * s })
        .collect()
}

/// The complex strides over a real layout: the inverse of
/// [`real_strides_over`] (validation checks the strides are even).
fn complex_strides_over(real: &Layout) -> Vec<usize> {
    let last = real.strides.len().saturating_sub(1);
    real.strides
        .iter()
        .enumerate()
        .map(|(a, &s)| if a == last { s } else { s / 2 })
        .collect()
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
