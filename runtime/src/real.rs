//! The real scalar types a transform can run on. Sealed so that the element
//! type of a host buffer always maps to exactly one manifest [`Precision`],
//! which the runtime checks before it copies any data.

use fftgen_manifest::Precision;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// `f32` or `f64`: the real part type of the complex values a kernel reads.
/// The cudarc bounds let CUDA buffers of it be allocated and copied.
pub trait Real:
    sealed::Sealed
    + Copy
    + Default
    + Send
    + Sync
    + 'static
    + cudarc::driver::DeviceRepr
    + cudarc::driver::ValidAsZeroBits
{
    /// The manifest precision of kernels that read this type.
    const PRECISION: Precision;
}

impl Real for f32 {
    const PRECISION: Precision = Precision::F32;
}

impl Real for f64 {
    const PRECISION: Precision = Precision::F64;
}
