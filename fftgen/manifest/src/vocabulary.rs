//! The words of a transform request, shared by the generator, the runtime,
//! the manifest and the command line, and the one way they are spelled
//! ([`text_enum!`]): `f32`, `inverse`, `out-of-place`, as typed on the
//! command line, written in JSON and named in error messages.

/// Implements `Display`, `FromStr`, `Serialize` and `Deserialize` for a
/// field-less enum from one table of spellings, so that the command line,
/// JSON files and messages agree. `what` names the type in errors
/// ("`f16` is not a precision; expected one of: f32, f64").
#[macro_export]
macro_rules! text_enum {
    ($ty:ident as $what:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The spelling of this value.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $text),+ }
            }
        }
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl ::std::str::FromStr for $ty {
            type Err = String;
            fn from_str(text: &str) -> Result<Self, String> {
                match text {
                    $($text => Ok($ty::$variant),)+
                    other => Err(format!(
                        "`{other}` is not {}; expected one of: {}",
                        $what,
                        [$($text),+].join(", ")
                    )),
                }
            }
        }
        impl $crate::__serde::Serialize for $ty {
            fn serialize<S: $crate::__serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
        impl<'de> $crate::__serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <String as $crate::__serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(<D::Error as $crate::__serde::de::Error>::custom)
            }
        }
    };
}

/// Floating-point precision of the data and of the arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Precision {
    F32,
    F64,
}

impl Precision {
    /// Bytes of one real value.
    pub fn real_bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// Bytes of one complex value (interleaved real, imaginary).
    pub fn complex_bytes(self) -> usize {
        2 * self.real_bytes()
    }

    /// Machine epsilon of the precision: the distance from 1 to the next value.
    pub fn epsilon(self) -> f64 {
        match self {
            Precision::F32 => f32::EPSILON as f64,
            Precision::F64 => f64::EPSILON,
        }
    }
}

/// Sign of the exponent: forward is exp(-2 pi i jk/N), inverse exp(+2 pi i jk/N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    Forward,
    Inverse,
}

impl Direction {
    /// The sign of the exponent in the DFT definition.
    pub fn sign(self) -> i32 {
        match self {
            Direction::Forward => -1,
            Direction::Inverse => 1,
        }
    }
}

/// Which scaling the transform applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Normalization {
    /// No scaling in either direction (cuFFT, FFTW and RustFFT's convention).
    #[default]
    None,
    /// The inverse transform is scaled by 1/N, the forward one is not (numpy's default).
    Inverse,
    /// Both directions are scaled by 1/sqrt(N), so the transform is unitary.
    Unitary,
}

impl Normalization {
    /// The factor applied to every output of a transform of length `n` in `direction`.
    pub fn scale(self, n: usize, direction: Direction) -> f64 {
        match (self, direction) {
            (Normalization::None, _) => 1.0,
            (Normalization::Inverse, Direction::Forward) => 1.0,
            (Normalization::Inverse, Direction::Inverse) => 1.0 / n as f64,
            (Normalization::Unitary, _) => 1.0 / (n as f64).sqrt(),
        }
    }
}

/// Whether the output overwrites the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Placement {
    #[default]
    OutOfPlace,
    InPlace,
}

/// What a transform maps to what: complex to complex, or real input to its
/// non-redundant half spectrum (numpy's `rfftn`, cuFFT's R2C/C2R). For
/// `r2c` the forward direction is the R2C and the inverse the C2R; the last
/// axis is the real one, and its spectrum keeps `n / 2 + 1` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum TransformKind {
    #[default]
    C2c,
    R2c,
}

impl TransformKind {
    /// How kernel names and messages call `direction` of this kind:
    /// `c2c`, `r2c` (forward) or `c2r` (inverse).
    pub fn name(self, direction: Direction) -> &'static str {
        match (self, direction) {
            (TransformKind::C2c, _) => "c2c",
            (TransformKind::R2c, Direction::Forward) => "r2c",
            (TransformKind::R2c, Direction::Inverse) => "c2r",
        }
    }

    /// The shape of the complex side: for `r2c` the last axis keeps
    /// `n / 2 + 1` values (the half spectrum), for `c2c` the shape itself.
    pub fn complex_shape(self, shape: &[usize]) -> Vec<usize> {
        let mut complex = shape.to_vec();
        if let (TransformKind::R2c, Some(last)) = (self, complex.last_mut()) {
            *last = *last / 2 + 1;
        }
        complex
    }
}

/// The type of the elements on one side of a transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Element {
    /// One real value (`float`, `double`).
    Real,
    /// Interleaved real and imaginary parts (`float2`, `double2`).
    Complex,
}

impl Element {
    /// Bytes of one element in `precision`.
    pub fn bytes(self, precision: Precision) -> usize {
        match self {
            Element::Real => precision.real_bytes(),
            Element::Complex => precision.complex_bytes(),
        }
    }
}

/// The two kernel languages fftgen emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Backend {
    Cuda,
    OpenCl,
}

text_enum!(Precision as "a precision" { F32 => "f32", F64 => "f64" });
text_enum!(Direction as "a direction" { Forward => "forward", Inverse => "inverse" });
text_enum!(Normalization as "a normalization" {
    None => "none",
    Inverse => "inverse",
    Unitary => "unitary",
});
text_enum!(Placement as "a placement" { OutOfPlace => "out-of-place", InPlace => "in-place" });
text_enum!(Backend as "a backend" { Cuda => "cuda", OpenCl => "opencl" });
text_enum!(TransformKind as "a transform kind" { C2c => "c2c", R2c => "r2c" });
text_enum!(Element as "an element type" { Real => "real", Complex => "complex" });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip_through_text_and_json() {
        for &p in Placement::ALL {
            assert_eq!(p.to_string().parse::<Placement>(), Ok(p));
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{p}\""));
            assert_eq!(serde_json::from_str::<Placement>(&json).unwrap(), p);
        }
        assert_eq!(
            "f16".parse::<Precision>(),
            Err("`f16` is not a precision; expected one of: f32, f64".to_string())
        );
        assert!(serde_json::from_str::<Backend>("\"vulkan\"").is_err());
    }
}
