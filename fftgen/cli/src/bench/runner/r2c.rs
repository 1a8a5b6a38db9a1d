//! One real (`r2c`) shape of the benchmark: two rows, the R2C (forward) and
//! the C2R (inverse), each with our kernels, cuFFT's R2C or C2R (D2Z, Z2D in
//! f64) and a copy of as many bytes, all timed in turn on the same buffers.
//!
//! - The R2C reads the session's random input as reals and writes the half
//!   spectrum into the output buffer.
//! - The C2R reads the half-spectrum buffer and writes reals into the output
//!   buffer. The spectrum's checked transforms hold the f64 reference's half
//!   spectrum of the R2C's checked reals, rounded to the precision (a
//!   Hermitian spectrum, as C2R input must be); the rest hold random values,
//!   which change what is computed, not how much.
//! - cuFFT's C2R overwrites its input, so each checked C2R (ours and cuFFT's)
//!   starts from a fresh copy of that spectrum. The timed launches run back
//!   to back on whatever the last launch left there: values change, the work
//!   does not, and only the executions are timed.
//! - Our kernels get buffers sized by the manifest's sides (reals on the
//!   real side, pairs of reals for each complex value on the other), as the
//!   runtime's launches take them.

use super::{checked_transforms, download, poison, widen, Contender, Prefix, Session};
use crate::accuracy::{real_forward_reference, real_inverse_reference, relative_l2};
use crate::bench::cufft::{CufftPlan, CufftTransform};
use crate::bench::real::RealSides;
use crate::bench::report::BenchRow;
use crate::bench::timing::{time_interleaved, EventClock};
use crate::bench::{BenchError, Sample};
use crate::shape::Shape;
use fftgen::{Direction, Element, FftSpec, Generated, Normalization, ShapeChoices, TransformKind};
use fftgen_runtime::cuda::CudaFft;
use fftgen_runtime::cudarc::driver::{CudaSlice, CudaStream};
use fftgen_runtime::manifest::Side;
use fftgen_runtime::planner::for_target;
use num_complex::Complex;
use std::sync::Arc;

/// The directions of a real shape's rows, in row order.
const DIRECTIONS: [Direction; 2] = [Direction::Forward, Direction::Inverse];

/// The f64 references of a real shape's checked transforms.
struct RealReferences<T> {
    /// The half spectra of the checked reals (what the R2C must give).
    forward: Vec<Complex<f64>>,
    /// `forward` rounded to `T`, interleaved: the C2R's checked input.
    spectrum: Vec<T>,
    /// The C2R of `spectrum` as given (n times the reals, up to rounding),
    /// each real as a complex value with no imaginary part.
    inverse: Vec<Complex<f64>>,
}

/// Reals (`T`s) a device buffer of `side` holds for `batch` transforms:
/// its elements, each complex value a pair of reals.
fn side_reals(side: &Side, batch: usize) -> usize {
    let elements = side.elements(batch);
    match side.element {
        Element::Real => elements,
        Element::Complex => 2 * elements,
    }
}

/// Reals as complex values with no imaginary part, for [`relative_l2`].
fn as_complex<T: Sample>(reals: &[T]) -> Vec<Complex<f64>> {
    reals.iter().map(|&x| Complex::new(x.into(), 0.0)).collect()
}

impl<T: Sample> Session<T> {
    /// The R2C and the C2R rows of the real transform of `shape`, with
    /// `choices` instead of the planner's if given.
    pub(super) fn bench_real_shape(
        &mut self,
        shape: &Shape,
        choices: Option<&ShapeChoices>,
    ) -> Vec<BenchRow> {
        let sides = RealSides::new(&shape.0);
        let batch = sides.batch(T::PRECISION);
        let mut rows = DIRECTIONS.map(|d| BenchRow::real(&shape.0, batch, T::PRECISION, d));
        let note_both = |rows: &mut [BenchRow; 2], note: String| {
            rows.iter_mut().for_each(|row| row.notes.push(note.clone()))
        };
        if let Some(note) = sides.larger_than_batch(T::PRECISION) {
            note_both(&mut rows, note);
        }
        let mut spec = FftSpec::with_shape(&shape.0)
            .kind(TransformKind::R2c)
            .precision(T::PRECISION);
        if let Some(choices) = choices {
            spec = spec.choices(choices.clone());
        }
        let spec = for_target(&spec, self.device.target());
        let generated = match fftgen::generate(&spec, &spec.emit_command()) {
            Ok(generated) => generated,
            Err(e) => {
                note_both(&mut rows, format!("generator: {e}"));
                return rows.into();
            }
        };
        let checked = checked_transforms(sides.reals(), batch);
        for (row, direction) in rows.iter_mut().zip(DIRECTIONS) {
            row.passes = generated.plan.passes_of(direction).len();
            row.shape = ShapeChoices::pinned_plan(&generated.plan);
            row.checked_transforms = checked;
        }
        let references = match self.real_references(&sides, checked) {
            Ok(references) => references,
            Err(e) => {
                note_both(&mut rows, format!("reading the input back: {e}"));
                return rows.into();
            }
        };
        match self.plan_creation(&spec) {
            Ok(times) => rows[0].plan_creation = Some(times),
            Err(e) => rows[0].notes.push(format!("plan creation: {e}")),
        }
        let ours = self
            .ours_real_checked(&mut rows, &generated, &sides, &references)
            .map_err(|e| note_both(&mut rows, format!("ours: {e}")))
            .ok();
        let mut cufft = Vec::new();
        for (row, direction) in rows.iter_mut().zip(DIRECTIONS) {
            match self.cufft_real_checked(row, direction, &sides, &references) {
                Ok(plan) => cufft.push(plan),
                Err(e) => row.notes.push(format!("cuFFT: {e}")),
            }
        }
        if let Err(e) = self.time_real(&mut rows, &sides, ours.as_ref(), &cufft) {
            note_both(&mut rows, format!("timing: {e}"));
        }
        drop((ours, cufft));
        self.restore_input(&mut rows[0].notes);
        rows.into()
    }

    /// The checked transforms' reals as the kernels see them (read back
    /// from the device) and the references of both directions.
    fn real_references(
        &mut self,
        sides: &RealSides,
        checked: usize,
    ) -> Result<RealReferences<T>, BenchError> {
        let mut prefix = vec![T::default(); sides.reals() * checked];
        self.stream
            .memcpy_dtoh(&self.input.slice(..prefix.len()), &mut prefix)
            .map_err(|e| BenchError::driver("cuMemcpyDtoH", e))?;
        self.stream
            .synchronize()
            .map_err(|e| BenchError::driver("cuStreamSynchronize", e))?;
        let reals: Vec<f64> = prefix.iter().map(|&x| x.into()).collect();
        let forward = real_forward_reference(&sides.shape, &reals, Normalization::None);
        let spectrum: Vec<T> = forward
            .iter()
            .flat_map(|c| [T::from_f64(c.re), T::from_f64(c.im)])
            .collect();
        let inverse = real_inverse_reference(&sides.shape, &widen(&spectrum), Normalization::None)
            .into_iter()
            .map(|x| Complex::new(x, 0.0))
            .collect();
        Ok(RealReferences {
            forward,
            spectrum,
            inverse,
        })
    }

    /// Fills the half-spectrum buffer with the C2R input of `batch`
    /// transforms: random values (the session's input), the checked
    /// transforms' reference spectrum first.
    fn fill_spectrum(
        &mut self,
        sides: &RealSides,
        batch: usize,
        references: &RealReferences<T>,
    ) -> Result<(), BenchError> {
        let spectrum = self
            .spectrum
            .as_mut()
            .ok_or_else(|| BenchError::Invalid("the session has no half-spectrum buffer".into()))?;
        let len = sides.half_reals() * batch;
        self.stream
            .memcpy_dtod(&self.input.slice(..len), &mut spectrum.slice_mut(..len))
            .map_err(|e| BenchError::driver("cuMemcpyDtoDAsync (the half spectra)", e))?;
        let checked = references.spectrum.len();
        self.stream
            .memcpy_htod(&references.spectrum, &mut spectrum.slice_mut(..checked))
            .map_err(|e| BenchError::driver("cuMemcpyHtoD (the reference spectra)", e))
    }

    /// Our kernels, loaded and checked in both directions, each on a
    /// poisoned output; each row gets its direction's error (a direction
    /// that fails gets a note instead).
    fn ours_real_checked(
        &mut self,
        rows: &mut [BenchRow; 2],
        generated: &Generated,
        sides: &RealSides,
        references: &RealReferences<T>,
    ) -> Result<CudaFft, BenchError> {
        let fft = CudaFft::new(&self.device, &generated.cuda_source, &generated.manifest)?;
        for (row, direction) in rows.iter_mut().zip(DIRECTIONS) {
            match self.ours_real_run(&fft, direction, row.batch, sides, references) {
                Ok((error, unwritten)) => {
                    row.ours_error = Some(error);
                    row.ours_unwritten = Some(unwritten);
                }
                Err(e) => row
                    .notes
                    .push(format!("ours ({}): {e}", fft_name(direction))),
            }
        }
        Ok(fft)
    }

    /// One checked run of our `direction` on a poisoned output: its error
    /// against the reference and the non-finite reals it left.
    fn ours_real_run(
        &mut self,
        fft: &CudaFft,
        direction: Direction,
        batch: usize,
        sides: &RealSides,
        references: &RealReferences<T>,
    ) -> Result<(f64, u64), BenchError> {
        let manifest = fft.manifest();
        let input_len = side_reals(&manifest.input_side(direction), batch);
        let output_len = side_reals(&manifest.output_side(direction), batch);
        if direction == Direction::Inverse {
            self.fill_spectrum(sides, batch, references)?;
        }
        let stream = Arc::clone(&self.stream);
        let source = match direction {
            Direction::Forward => &mut self.input,
            Direction::Inverse => self.spectrum.as_mut().expect("filled above"),
        };
        let input = Prefix::new(&stream, source, input_len);
        let mut output = Prefix::new(&stream, &mut self.output, output_len);
        poison(&stream, &mut output)?;
        fft.launch(&stream, direction, &input, &mut output, batch)?;
        checked_error(
            &stream,
            &output,
            &mut self.host_scratch,
            direction,
            references,
        )
    }

    /// cuFFT's plan of `direction` (R2C or C2R) for `row`, checked on the
    /// same input as ours.
    fn cufft_real_checked(
        &mut self,
        row: &mut BenchRow,
        direction: Direction,
        sides: &RealSides,
        references: &RealReferences<T>,
    ) -> Result<CufftPlan, BenchError> {
        let batch = row.batch;
        let stream = Arc::clone(&self.stream);
        let plan = CufftPlan::real(&stream, &sides.shape, batch, T::PRECISION, direction)?;
        let (input_len, output_len) = plan.buffer_reals();
        if direction == Direction::Inverse {
            self.fill_spectrum(sides, batch, references)?;
        }
        let source = match direction {
            Direction::Forward => &mut self.input,
            Direction::Inverse => self.spectrum.as_mut().expect("filled above"),
        };
        let mut input = Prefix::new(&stream, source, input_len);
        let mut output = Prefix::new(&stream, &mut self.output, output_len);
        poison(&stream, &mut output)?;
        plan.execute(&mut input, &mut output)?;
        let (error, unwritten) = checked_error(
            &stream,
            &output,
            &mut self.host_scratch,
            direction,
            references,
        )?;
        row.cufft_error = Some(error);
        row.cufft_unwritten = Some(unwritten);
        Ok(plan)
    }

    /// Times our R2C and C2R, cuFFT's and the copy of as many bytes against
    /// each other ([`time_interleaved`]); each row gets its direction's
    /// timings and the copy's. A contender that fails leaves a note.
    fn time_real(
        &mut self,
        rows: &mut [BenchRow; 2],
        sides: &RealSides,
        ours: Option<&CudaFft>,
        cufft: &[CufftPlan],
    ) -> Result<(), BenchError> {
        let batch = rows[0].batch;
        let mut contenders = Vec::new();
        if let Some(fft) = ours {
            contenders.extend(DIRECTIONS.map(|d| Contender::Ours(fft, d)));
        }
        contenders.extend(cufft.iter().map(Contender::Cufft));
        contenders.push(Contender::Copy);
        let (reals, half, copy) = (
            sides.reals() * batch,
            sides.half_reals() * batch,
            sides.copy_reals(batch),
        );
        let stream = Arc::clone(&self.stream);
        let spectrum = self
            .spectrum
            .as_mut()
            .ok_or_else(|| BenchError::Invalid("the session has no half-spectrum buffer".into()))?;
        let [mut real_input, copy_input] = Prefix::several(&stream, &mut self.input, [reals, copy]);
        let [mut half_output, mut real_output, mut copy_output] =
            Prefix::several(&stream, &mut self.output, [half, reals, copy]);
        let mut half_input = Prefix::new(&stream, spectrum, half);
        let mut clock = EventClock::new(&stream)?;
        let timings =
            time_interleaved(
                &mut clock,
                self.schedule,
                contenders.len(),
                |c| match contenders[c] {
                    Contender::Ours(fft, Direction::Forward) => Ok(fft.launch(
                        &stream,
                        Direction::Forward,
                        &real_input,
                        &mut half_output,
                        batch,
                    )?),
                    Contender::Ours(fft, Direction::Inverse) => Ok(fft.launch(
                        &stream,
                        Direction::Inverse,
                        &half_input,
                        &mut real_output,
                        batch,
                    )?),
                    Contender::Cufft(plan) => match plan.transform() {
                        CufftTransform::RealToHalf => {
                            Ok(plan.execute(&mut real_input, &mut half_output)?)
                        }
                        CufftTransform::HalfToReal => {
                            Ok(plan.execute(&mut half_input, &mut real_output)?)
                        }
                        CufftTransform::Complex => Err(BenchError::Invalid(
                            "a complex cuFFT plan among a real shape's contenders".into(),
                        )),
                    },
                    Contender::Copy => stream
                        .memcpy_dtod(&*copy_input, &mut *copy_output)
                        .map_err(|e| BenchError::driver("cuMemcpyDtoDAsync", e)),
                },
            )?;
        for (contender, timing) in contenders.iter().zip(timings) {
            let timing = match timing {
                Ok(timing) => timing,
                Err(e) => {
                    let note = format!("{}: {e}", contender.name());
                    match row_of(contender) {
                        Some(i) => rows[i].notes.push(note),
                        None => rows.iter_mut().for_each(|r| r.notes.push(note.clone())),
                    }
                    continue;
                }
            };
            match contender {
                Contender::Ours(..) | Contender::Cufft(_) => {
                    let row = &mut rows[row_of(contender).expect("a transform has a row")];
                    match contender {
                        Contender::Ours(..) => row.ours = Some(timing),
                        _ => row.cufft = Some(timing),
                    }
                }
                Contender::Copy => rows.iter_mut().for_each(|r| r.copy = Some(timing.clone())),
            }
        }
        Ok(())
    }
}

/// Downloads `output` (into `host`) once the run that writes it is done:
/// the relative L2 error of its checked transforms against `direction`'s
/// reference, and how many of its reals are not finite.
fn checked_error<T: Sample>(
    stream: &Arc<CudaStream>,
    output: &CudaSlice<T>,
    host: &mut [T],
    direction: Direction,
    references: &RealReferences<T>,
) -> Result<(f64, u64), BenchError> {
    let unwritten = download(stream, output, host)?;
    let error = match direction {
        Direction::Forward => {
            let want = &references.forward;
            relative_l2(&widen(&host[..2 * want.len()]), want)
        }
        Direction::Inverse => {
            let want = &references.inverse;
            relative_l2(&as_complex(&host[..want.len()]), want)
        }
    };
    Ok((error, unwritten))
}

/// The row (0: R2C, 1: C2R) a contender of a real shape belongs to; `None`
/// for the copy, which both rows share.
fn row_of(contender: &Contender) -> Option<usize> {
    match contender {
        Contender::Ours(_, Direction::Forward) => Some(0),
        Contender::Ours(_, Direction::Inverse) => Some(1),
        Contender::Cufft(plan) => match plan.transform() {
            CufftTransform::HalfToReal => Some(1),
            _ => Some(0),
        },
        Contender::Copy => None,
    }
}

/// `R2C` or `C2R`.
fn fft_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Forward => "R2C",
        Direction::Inverse => "C2R",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fftgen::Precision;

    #[test]
    fn device_buffers_hold_each_side_in_reals() {
        let spec = FftSpec::with_shape(&[8, 6]).kind(TransformKind::R2c);
        let manifest = fftgen::generate(&spec, &spec.emit_command())
            .unwrap()
            .manifest;
        let sides = RealSides::new(&[8, 6]);
        let batch = 3;
        // Forward: the reals in, the half spectrum (8 x 4) out as pairs.
        let forward = |side: Side| side_reals(&side, batch);
        assert_eq!(forward(manifest.input_side(Direction::Forward)), 48 * batch);
        assert_eq!(
            forward(manifest.output_side(Direction::Forward)),
            2 * 32 * batch
        );
        assert_eq!(sides.half_reals() * batch, 2 * 32 * batch);
        // The C2R the other way round.
        assert_eq!(
            forward(manifest.input_side(Direction::Inverse)),
            sides.half_reals() * batch
        );
        assert_eq!(
            forward(manifest.output_side(Direction::Inverse)),
            sides.reals() * batch
        );
        // cuFFT's dense layouts are the same sizes.
        let r2c = CufftTransform::of(TransformKind::R2c, Direction::Forward);
        assert_eq!(r2c.reals_per_transform(&[8, 6]), (48, 64));
        let c2r = CufftTransform::of(TransformKind::R2c, Direction::Inverse);
        assert_eq!(c2r.reals_per_transform(&[8, 6]), (64, 48));
        assert_eq!(manifest.precision, Precision::F32);
    }

    #[test]
    fn reals_widen_with_no_imaginary_part() {
        assert_eq!(
            as_complex(&[1.0f32, -2.0]),
            [Complex::new(1.0, 0.0), Complex::new(-2.0, 0.0)]
        );
        assert_eq!(fft_name(Direction::Inverse), "C2R");
    }
}
