//! Writing and reading NumPy `.npy` files (format version 1.0) of real and
//! complex arrays, so `fftgen check --save` output can be cross-checked with
//! `numpy.fft` (`fftn`, or `rfftn` and `irfftn` for real transforms) in one
//! line of Python.

use num_complex::Complex;
use std::io::{self, Read, Write};

/// Element types that have a NumPy dtype: `f32`, `f64` and complex values of them.
pub trait NpyValue: Copy {
    /// The dtype descriptor, little-endian.
    const DESCR: &'static str;
    fn write_le(self, out: &mut Vec<u8>);
    fn read_le(bytes: &[u8]) -> Self;
}

/// `NpyValue` for a real of `$bytes` bytes.
macro_rules! npy_real {
    ($real:ty, $bytes:literal, $descr:literal) => {
        impl NpyValue for $real {
            const DESCR: &'static str = $descr;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(b: &[u8]) -> Self {
                <$real>::from_le_bytes(b[..$bytes].try_into().expect("one real"))
            }
        }
    };
}

npy_real!(f32, 4, "<f4");
npy_real!(f64, 8, "<f8");

/// `NpyValue` for `Complex<$real>`: two little-endian reals of `$bytes` bytes.
macro_rules! npy_complex {
    ($real:ty, $bytes:literal, $descr:literal) => {
        impl NpyValue for Complex<$real> {
            const DESCR: &'static str = $descr;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.re.to_le_bytes());
                out.extend_from_slice(&self.im.to_le_bytes());
            }
            fn read_le(b: &[u8]) -> Self {
                let f = |i: usize| {
                    <$real>::from_le_bytes(b[i..i + $bytes].try_into().expect("one real"))
                };
                Complex::new(f(0), f($bytes))
            }
        }
    };
}

npy_complex!(f32, 4, "<c8");
npy_complex!(f64, 8, "<c16");

const MAGIC: &[u8] = b"\x93NUMPY";

/// Writes `data` as a C-ordered array of `shape`.
pub fn write<T: NpyValue>(mut out: impl Write, data: &[T], shape: &[usize]) -> io::Result<()> {
    let elements: usize = shape.iter().product();
    if elements != data.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "shape {shape:?} holds {elements} values but {} were given",
                data.len()
            ),
        ));
    }
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape_text}, }}",
        T::DESCR
    );
    // Magic (6) + version (2) + length (2) + header + newline is a multiple of 64.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut bytes = Vec::with_capacity(unpadded + 64 + std::mem::size_of_val(data));
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for &value in data {
        value.write_le(&mut bytes);
    }
    out.write_all(&bytes)
}

/// Reads an array written by [`write`] (or by NumPy with the same dtype):
/// the values and the shape.
pub fn read<T: NpyValue>(mut input: impl Read) -> io::Result<(Vec<T>, Vec<usize>)> {
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes)?;
    if bytes.len() < 10 || &bytes[..6] != MAGIC || bytes[6] != 1 {
        return Err(invalid("not a version 1 .npy file"));
    }
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(
        bytes
            .get(10..10 + header_len)
            .ok_or_else(|| invalid("truncated header"))?,
    )
    .map_err(|_| invalid("header is not text"))?;
    if !header.contains(&format!("'descr': '{}'", T::DESCR)) {
        return Err(invalid(&format!(
            "expected dtype {}, header is {header}",
            T::DESCR
        )));
    }
    let shape_text = header
        .split("'shape': (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .ok_or_else(|| invalid("header has no shape"))?;
    let shape: Vec<usize> = shape_text
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().map_err(|_| invalid("bad shape")))
        .collect::<io::Result<_>>()?;
    let size = std::mem::size_of::<T>();
    let body = &bytes[10 + header_len..];
    if body.len() != shape.iter().product::<usize>() * size {
        return Err(invalid("data length does not match the shape"));
    }
    Ok((body.chunks_exact(size).map(T::read_le).collect(), shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_header_alignment() {
        let data: Vec<Complex<f32>> = (0..6)
            .map(|i| Complex::new(i as f32, -(i as f32) / 2.0))
            .collect();
        let mut bytes = Vec::new();
        write(&mut bytes, &data, &[2, 3]).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        let (back, shape) = read::<Complex<f32>>(&bytes[..]).unwrap();
        assert_eq!((back, shape), (data, vec![2, 3]));
        assert!(write(&mut Vec::new(), &[Complex::new(0.0f64, 0.0)], &[2]).is_err());
        // Reals, as numpy's float32 and float64.
        let reals = [1.5f64, -2.25, 3.0];
        let mut bytes = Vec::new();
        write(&mut bytes, &reals, &[3]).unwrap();
        assert!(String::from_utf8_lossy(&bytes).contains("'descr': '<f8'"));
        assert_eq!(read::<f64>(&bytes[..]).unwrap(), (reals.to_vec(), vec![3]));
        assert!(read::<f32>(&bytes[..]).is_err());
    }
}
