//! Checking each call of a loaded transform before any data moves: the
//! method matches the manifest's placement, and each buffer holds values of
//! the manifest's precision, of the type of its side of the direction called
//! (reals on the real side of `r2c`, complex values elsewhere; in place,
//! either side's), as many as the side's layout spans for the batch. Host
//! slices are checked by their element type and length, device buffers by
//! their bytes only (kernels take device pointers). OpenCL and CUDA calls
//! share it, so both reject the same mistakes with the same errors.

use crate::error::{Error, Result};
use crate::memory::check_batch;
use crate::value::{type_name, Value};
use fftgen_manifest::{
    Direction, Element, Manifest, Placement, Precision, Side, TransformKind, TransformLaunch,
};

/// How errors name the host conveniences of both backends (out of place, in place).
const HOST_METHODS: [&str; 2] = [
    "run(direction, input, output, batch)",
    "run_in_place(direction, data, batch)",
];

/// One buffer of a call as the caller gave it: its role (`input`,
/// `output`, or `data` in place), the type of its elements and how many.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Given {
    pub role: &'static str,
    pub element: Element,
    pub precision: Precision,
    /// Bytes of one element of the caller's type.
    pub unit: usize,
    /// Elements of the caller's type the buffer holds (whole ones, for a
    /// device buffer).
    pub len: usize,
    /// Bytes the buffer holds.
    pub bytes: usize,
}

impl Given {
    /// A host slice (or a typed device buffer) of `len` values of `V`.
    pub fn of<V: Value>(role: &'static str, len: usize) -> Given {
        Given {
            role,
            element: V::ELEMENT,
            precision: V::PRECISION,
            unit: std::mem::size_of::<V>(),
            len,
            bytes: len * std::mem::size_of::<V>(),
        }
    }

    /// A device buffer of `bytes` bytes, given as values of `V`.
    pub fn bytes_of<V: Value>(role: &'static str, bytes: usize) -> Given {
        Given {
            bytes,
            ..Given::of::<V>(role, bytes / std::mem::size_of::<V>())
        }
    }
}

/// The buffers of one call. Host slices hold values whose type must be their
/// side's (in place, either side's), counted in those values; device
/// buffers only need their side's bytes, whatever type they are given as.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Buffers<'a> {
    Host(&'a [Given]),
    Device(&'a [Given]),
}

/// Checks one call before any data moves and returns the transform to run,
/// in the order a caller fixes them: the method matches the manifest's
/// placement (`called`; `methods` spells the caller's out-of-place and
/// in-place methods), then the precision and the element type of each
/// buffer, the batch, the lengths of host slices, the direction, and the
/// sizes of device buffers.
pub(crate) fn check_call<'m>(
    manifest: &'m Manifest,
    direction: Direction,
    called: Placement,
    methods: [&'static str; 2],
    buffers: Buffers<'_>,
    batch: usize,
) -> Result<&'m TransformLaunch> {
    if manifest.placement != called {
        return Err(Error::PlacementMismatch {
            manifest: manifest.placement,
            use_instead: match manifest.placement {
                Placement::OutOfPlace => methods[0],
                Placement::InPlace => methods[1],
            },
        });
    }
    let (Buffers::Host(given) | Buffers::Device(given)) = buffers;
    if let Some(wrong) = given.iter().find(|g| g.precision != manifest.precision) {
        return Err(Error::PrecisionMismatch {
            manifest: manifest.precision,
            buffer: wrong.precision,
        });
    }
    if let Buffers::Host(given) = buffers {
        for g in given {
            check_element(manifest, direction, g)?;
        }
    }
    check_batch(manifest, batch)?;
    if let Buffers::Host(given) = buffers {
        for g in given {
            let (expected, needs) = expected_len(manifest, direction, g, batch);
            if g.len != expected {
                return Err(Error::WrongLength {
                    buffer: g.role,
                    element: g.element,
                    expected,
                    got: g.len,
                    needs,
                });
            }
        }
    }
    let transform = manifest
        .transform(direction)
        .ok_or_else(|| Error::MissingDirection {
            direction,
            available: manifest
                .transforms
                .iter()
                .map(|t| t.direction.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    if let Buffers::Device(given) = buffers {
        for g in given {
            let (expected, needs) = expected_len(manifest, direction, g, batch);
            if g.bytes != expected * g.unit {
                return Err(Error::WrongDeviceBytes {
                    buffer: g.role,
                    expected: expected * g.unit,
                    got: g.bytes,
                    needs,
                });
            }
        }
    }
    Ok(transform)
}

/// The sides a buffer of `role` holds: its own side, or in place both.
fn sides_of<'m>(manifest: &'m Manifest, direction: Direction, role: &str) -> Vec<Side<'m>> {
    match role {
        "input" => vec![manifest.input_side(direction)],
        "output" => vec![manifest.output_side(direction)],
        _ => vec![
            manifest.input_side(direction),
            manifest.output_side(direction),
        ],
    }
}

/// A host buffer's values are of its side's type (in place, of either side's).
fn check_element(manifest: &Manifest, direction: Direction, given: &Given) -> Result<()> {
    let sides = sides_of(manifest, direction, given.role);
    if sides.iter().any(|side| side.element == given.element) {
        return Ok(());
    }
    let side = sides[0].element;
    let placed = match manifest.placement {
        Placement::InPlace => "in-place ",
        Placement::OutOfPlace => "",
    };
    let name = manifest.kind.name(direction);
    let described = match manifest.kind {
        TransformKind::C2c => format!("{placed}c2c {direction} transform"),
        TransformKind::R2c => format!("{placed}{name} transform (the {direction} of an r2c plan)"),
    };
    // "an in-place", "an r2c", "a c2r", "a c2c".
    let article = match described.starts_with(['i', 'r']) {
        true => "an",
        false => "a",
    };
    let transform = format!("{article} {described}");
    Err(Error::WrongElement {
        buffer: given.role,
        transform,
        side,
        expected: type_name(side, manifest.precision),
        got: type_name(given.element, given.precision),
    })
}

/// The elements of the caller's type that `given` must hold for `batch`
/// transforms, and why in words: its side's bytes (in place, the larger
/// side's) in whole elements. `batch` is within check_batch's bound, so
/// nothing overflows.
fn expected_len(
    manifest: &Manifest,
    direction: Direction,
    given: &Given,
    batch: usize,
) -> (usize, String) {
    let precision = manifest.precision;
    let sides = sides_of(manifest, direction, given.role);
    let side = sides
        .iter()
        .max_by_key(|side| side.bytes(precision, batch))
        .expect("a buffer holds at least one side");
    let bytes = side.bytes(precision, batch);
    let words = format!(
        "{batch} transform(s) of {:?} {} values at (batch - 1) * {} + {} elements, {bytes} \
         bytes{}",
        side.shape,
        side.element,
        side.layout.distance,
        side.layout.span(&side.shape),
        if sides.len() > 1 {
            ", the larger of the transform's two sides in place"
        } else {
            ""
        }
    );
    (bytes.div_ceil(given.unit), words)
}

/// Checks a call of the host conveniences, `run` (with an `output`) or
/// `run_in_place` (`input` is the data), and returns the transform to run.
pub(crate) fn check_host_call<'m, I: Value, O: Value>(
    manifest: &'m Manifest,
    direction: Direction,
    input: &[I],
    output: Option<&[O]>,
    batch: usize,
) -> Result<&'m TransformLaunch> {
    let (called, buffers) = match output {
        Some(output) => (
            Placement::OutOfPlace,
            vec![
                Given::of::<I>("input", input.len()),
                Given::of::<O>("output", output.len()),
            ],
        ),
        None => (
            Placement::InPlace,
            vec![Given::of::<I>("data", input.len())],
        ),
    };
    check_call(
        manifest,
        direction,
        called,
        HOST_METHODS,
        Buffers::Host(&buffers),
        batch,
    )
}

/// How errors name the device buffer of a role.
pub(crate) fn device_buffer_words(buffer: &str) -> &'static str {
    match buffer {
        "input" => "input buffer",
        "output" => "output buffer",
        "workspace" => "workspace buffer",
        _ => "data buffer",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use fftgen_manifest::{
        Buffer, GridRule, KernelArg, Layout, Normalization, PassLaunch, TransformLaunch,
    };
    use num_complex::Complex;

    /// An r2c manifest of `shape` with one pass per direction, its layouts
    /// as the generator makes them (in place: cuFFT's padded rows).
    pub(crate) fn r2c(shape: &[usize], placement: Placement) -> Manifest {
        let half = TransformKind::R2c.complex_shape(shape);
        let output = Layout::contiguous(&half);
        let input = match placement {
            Placement::OutOfPlace => Layout::contiguous(shape),
            Placement::InPlace => {
                let last = shape.len() - 1;
                Layout {
                    strides: (0..shape.len())
                        .map(|a| if a == last { 1 } else { 2 * output.strides[a] })
                        .collect(),
                    distance: 2 * output.distance,
                }
            }
        };
        let pass = |direction: Direction| PassLaunch {
            kernel: format!("k_{direction}"),
            block: [1, 1, 1],
            grid: GridRule::FftsPerBlock {
                ffts_per_block: 1,
                ffts_per_transform: 1,
                transforms_per_fft: 1,
            },
            shared_bytes: 0,
            dynamic_shared_bytes: 0,
            reads: Buffer::Input,
            writes: Buffer::Output,
            args: match placement {
                Placement::OutOfPlace => vec![
                    KernelArg::Input { name: "i".into() },
                    KernelArg::Output { name: "o".into() },
                ],
                Placement::InPlace => vec![KernelArg::InOut { name: "d".into() }],
            },
        };
        Manifest {
            generator_version: "test".into(),
            n: shape.iter().product(),
            shape: shape.to_vec(),
            kind: TransformKind::R2c,
            precision: Precision::F32,
            normalization: Normalization::None,
            placement,
            input,
            output,
            input_blocks: None,
            output_blocks: None,
            scratch_elements: 0,
            transforms: vec![
                TransformLaunch {
                    direction: Direction::Forward,
                    passes: vec![pass(Direction::Forward)],
                },
                TransformLaunch {
                    direction: Direction::Inverse,
                    passes: vec![pass(Direction::Inverse)],
                },
            ],
            twiddle_tables: vec![],
        }
    }

    fn host<I: Value, O: Value>(
        manifest: &Manifest,
        direction: Direction,
        input: usize,
        output: Option<usize>,
        batch: usize,
    ) -> Result<()> {
        let input = vec![I::default(); input];
        let output = output.map(|len| vec![O::default(); len]);
        check_host_call(manifest, direction, &input, output.as_deref(), batch).map(|_| ())
    }

    #[test]
    fn host_calls_take_reals_on_the_real_side_and_complex_values_on_the_other() {
        type C = Complex<f32>;
        let oop = r2c(&[16], Placement::OutOfPlace);
        let (forward, inverse) = (Direction::Forward, Direction::Inverse);
        host::<f32, C>(&oop, forward, 2 * 16, Some(2 * 9), 2).unwrap();
        host::<C, f32>(&oop, inverse, 2 * 9, Some(2 * 16), 2).unwrap();

        let err = host::<C, C>(&oop, forward, 2 * 16, Some(2 * 9), 2).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the input of an r2c transform (the forward of an r2c plan) is real: pass a slice \
             of f32, not of Complex<f32>; nothing was written"
        );
        let err = host::<C, C>(&oop, inverse, 2 * 9, Some(2 * 16), 2).unwrap_err();
        assert!(
            matches!(
                err,
                Error::WrongElement {
                    buffer: "output",
                    expected: "f32",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("c2r"), "{err}");
        let err = host::<f64, Complex<f64>>(&oop, forward, 32, Some(18), 2).unwrap_err();
        assert_eq!(
            err,
            Error::PrecisionMismatch {
                manifest: Precision::F32,
                buffer: Precision::F64
            }
        );
        // Lengths count the side's values: reals, or the half spectrum.
        let err = host::<f32, C>(&oop, forward, 2 * 16, Some(2 * 16), 2).unwrap_err();
        assert!(
            matches!(
                err,
                Error::WrongLength {
                    buffer: "output",
                    element: Element::Complex,
                    expected: 18,
                    got: 32,
                    ..
                }
            ),
            "{err}"
        );
        let err = host::<C, f32>(&oop, inverse, 2 * 9, Some(2 * 9), 2).unwrap_err();
        assert!(
            matches!(
                err,
                Error::WrongLength {
                    buffer: "output",
                    expected: 32,
                    got: 18,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn in_place_data_holds_the_larger_side_as_either_type() {
        type C = Complex<f32>;
        // Rows of 2 * (16 / 2 + 1) = 18 reals: 9 complex values.
        let ip = r2c(&[16], Placement::InPlace);
        for direction in [Direction::Forward, Direction::Inverse] {
            host::<f32, f32>(&ip, direction, 3 * 18, None, 3).unwrap();
            host::<C, C>(&ip, direction, 3 * 9, None, 3).unwrap();
            // The reals alone are short of the spectrum's last row.
            let err = host::<f32, f32>(&ip, direction, 2 * 18 + 16, None, 3).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::WrongLength {
                        buffer: "data",
                        expected: 54,
                        ..
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains("larger of"), "{err}");
        }
        // A c2c plan's data is complex only.
        let mut c2c = r2c(&[16], Placement::OutOfPlace);
        c2c.kind = TransformKind::C2c;
        c2c.placement = Placement::InPlace;
        c2c.input = c2c.output.clone();
        c2c.shape = vec![9];
        c2c.n = 9;
        let err = host::<f32, f32>(&c2c, Direction::Forward, 18, None, 1).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("the data of an in-place c2c forward transform is complex"),
            "{err}"
        );
    }

    #[test]
    fn device_buffers_are_sized_in_bytes_of_their_side() {
        let oop = r2c(&[16], Placement::OutOfPlace);
        let device = |direction, given: &[Given]| {
            check_call(
                &oop,
                direction,
                Placement::OutOfPlace,
                HOST_METHODS,
                Buffers::Device(given),
                2,
            )
            .map(|_| ())
        };
        // Any element type: the forward's reals as complex values, its
        // spectrum as reals.
        let reals = Given::bytes_of::<Complex<f32>>("input", 2 * 16 * 4);
        let spectrum = Given::bytes_of::<f32>("output", 2 * 9 * 8);
        device(Direction::Forward, &[reals, spectrum]).unwrap();
        let short = Given::bytes_of::<f32>("output", 2 * 9 * 8 - 4);
        let err = device(Direction::Forward, &[reals, short]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::WrongDeviceBytes {
                    buffer: "output",
                    expected: 144,
                    got: 140,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("[9] complex values"), "{err}");
    }

    #[test]
    fn the_batch_bound_counts_reals_on_the_real_side() {
        let mut huge = r2c(&[1 << 40], Placement::OutOfPlace);
        huge.precision = Precision::F64;
        // The half spectrum (2^39 + 1 complex values) is the larger side.
        let half = (1usize << 39) + 1;
        let elements = isize::MAX as usize / 16;
        assert_eq!(
            crate::memory::max_batch(&huge),
            (elements - half) / half + 1
        );
    }
}
