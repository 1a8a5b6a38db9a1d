//! The element types of the buffers a transform reads and writes: reals
//! (`f32`, `f64`) on the real side of an `r2c` transform, complex values
//! (`Complex<f32>`, `Complex<f64>`) on every other side. Sealed, so that each
//! type names exactly one manifest [`Precision`] and [`Element`], which the
//! runtime checks against the side of the direction called (the manifest's
//! [`Manifest::input_side`](fftgen_manifest::Manifest::input_side)) before
//! any data moves.

use crate::real::Real;
use fftgen_manifest::{Element, Precision};
use num_complex::Complex;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl<T: crate::Real> Sealed for num_complex::Complex<T> {}
}

/// What a host slice or device buffer of a transform holds: [`Real`]s, or
/// `Complex` values of them (interleaved real and imaginary parts).
pub trait Value: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// The real type the value is made of (itself, for a real).
    type Real: Real;
    /// The manifest precision of kernels that read this type.
    const PRECISION: Precision;
    /// Whether this is one real or one complex value.
    const ELEMENT: Element;

    /// The reals of `values`, in memory order (for complex values, each
    /// real part before its imaginary part).
    fn as_reals(values: &[Self]) -> &[Self::Real];

    /// The reals of `values`, writable.
    fn as_reals_mut(values: &mut [Self]) -> &mut [Self::Real];
}

/// A real is its own single real.
macro_rules! real_value {
    ($real:ty, $precision:expr) => {
        impl Value for $real {
            type Real = $real;
            const PRECISION: Precision = $precision;
            const ELEMENT: Element = Element::Real;

            fn as_reals(values: &[Self]) -> &[Self] {
                values
            }

            fn as_reals_mut(values: &mut [Self]) -> &mut [Self] {
                values
            }
        }
    };
}

real_value!(f32, Precision::F32);
real_value!(f64, Precision::F64);

impl<T: Real> Value for Complex<T> {
    type Real = T;
    const PRECISION: Precision = T::PRECISION;
    const ELEMENT: Element = Element::Complex;

    fn as_reals(values: &[Self]) -> &[T] {
        // SAFETY: Complex<T> is #[repr(C)] { re: T, im: T }: two Ts, no
        // padding, aligned as T; the slice covers the same bytes.
        unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<T>(), 2 * values.len()) }
    }

    fn as_reals_mut(values: &mut [Self]) -> &mut [T] {
        // SAFETY: as in as_reals; the borrow is exclusive.
        unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<T>(), 2 * values.len()) }
    }
}

/// How messages spell the Rust type of `element`s in `precision`
/// (`f32`, `Complex<f64>`).
pub(crate) fn type_name(element: Element, precision: Precision) -> &'static str {
    match (element, precision) {
        (Element::Real, Precision::F32) => "f32",
        (Element::Real, Precision::F64) => "f64",
        (Element::Complex, Precision::F32) => "Complex<f32>",
        (Element::Complex, Precision::F64) => "Complex<f64>",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_names_its_precision_element_and_reals() {
        assert_eq!(<f32 as Value>::PRECISION, Precision::F32);
        assert_eq!(<Complex<f64> as Value>::PRECISION, Precision::F64);
        assert_eq!(<f64 as Value>::ELEMENT, Element::Real);
        assert_eq!(<Complex<f32> as Value>::ELEMENT, Element::Complex);
        let values = [Complex::new(1.0f32, 2.0), Complex::new(3.0, 4.0)];
        assert_eq!(Complex::as_reals(&values), &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(type_name(Element::Complex, Precision::F32), "Complex<f32>");
    }
}
