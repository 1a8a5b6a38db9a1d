//! The real scalar types a transform can run on, `f32` and `f64`: the values
//! of the real side of an `r2c` transform and the parts of every complex
//! value. Sealed (through [`Value`]) so that the element type of a buffer
//! always maps to exactly one manifest precision, which the runtime checks
//! before it copies any data.

use crate::value::Value;

/// `f32` or `f64`: a real value, and the part type of the complex values a
/// kernel reads. Its precision is [`Value::PRECISION`]. The cudarc bounds
/// let CUDA buffers of it be allocated and copied.
pub trait Real:
    Value<Real = Self> + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits
{
}

impl Real for f32 {}

impl Real for f64 {}
