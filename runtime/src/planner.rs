//! Planning at run time, without the `fft_kernel!` macro: generate the
//! kernels of an [`FftSpec`] with [`generate`] and load them on a device in
//! one call. The CUDA path goes through the runtime's CUBIN cache, so a spec
//! planned before (in this process, or in an earlier one through the disk
//! cache) skips NVRTC. A spec with no target is planned for the backend it
//! is loaded on, and one with no GPU model for the GPU it is loaded on (the
//! shapes measured on that model, where `plan/measured.rs` has some).

use crate::plan::measured::gpu_key;
use crate::{generate, Backend, FftSpec};
use fftgen_runtime::cuda::{CubinCache, CudaDevice, CudaFft};
use fftgen_runtime::{OpenClDevice, OpenClFft};

/// Why a plan could not be made: the spec could not be generated, or the
/// runtime could not compile or load the kernels.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Generate(#[from] crate::Error),
    #[error(transparent)]
    Runtime(#[from] fftgen_runtime::Error),
}

/// Generates `spec` and loads its CUDA kernels on `device`, through the
/// process-wide CUBIN cache.
pub fn cuda_fft(device: &CudaDevice, spec: &FftSpec) -> Result<CudaFft, PlanError> {
    cuda_fft_with_cache(device, spec, CubinCache::global())
}

/// [`cuda_fft`] through `cache`.
pub fn cuda_fft_with_cache(
    device: &CudaDevice,
    spec: &FftSpec,
    cache: &CubinCache,
) -> Result<CudaFft, PlanError> {
    let spec = for_device(spec, Backend::Cuda, device.name());
    let generated = generate(&spec, &spec.emit_command())?;
    Ok(CudaFft::with_cache(
        device,
        &generated.cuda_source,
        &generated.manifest,
        cache,
    )?)
}

/// Generates `spec` and builds its OpenCL kernels on `device`.
pub fn opencl_fft(device: &OpenClDevice, spec: &FftSpec) -> Result<OpenClFft, PlanError> {
    let spec = for_device(spec, Backend::OpenCl, &device.info().name);
    let generated = generate(&spec, &spec.emit_command())?;
    Ok(OpenClFft::new(
        device,
        &generated.opencl_source,
        &generated.manifest,
    )?)
}

/// `spec`, planned for `backend` and for the GPU called `device_name` (its
/// measured shapes, where the table has some for that model) unless it names
/// a target or GPU already.
pub fn for_device(spec: &FftSpec, backend: Backend, device_name: &str) -> FftSpec {
    let mut spec = targeted(spec, backend);
    if spec.gpu.is_none() {
        spec.gpu = gpu_key(device_name).map(str::to_string);
    }
    spec
}

/// `spec`, planned for `backend` unless it names a target already.
pub fn targeted(spec: &FftSpec, backend: Backend) -> FftSpec {
    let mut spec = spec.clone();
    spec.target.get_or_insert(backend);
    spec
}

#[cfg(test)]
mod tests {
    //! One generated transform through each backend against the f64
    //! reference. PoCL missing skips visibly (fails under CI=true); a missing
    //! CUDA driver or GPU always skips, since CI has no GPU.

    use super::*;
    use crate::accuracy::{random_input, reference, relative_l2, tolerance};
    use crate::{Direction, Normalization, Placement, Precision};
    use fftgen_runtime::{driver_available, CacheOrigin};
    use num_complex::Complex;
    use std::io::Write;

    #[test]
    fn plans_for_a_device_use_its_measured_shapes() {
        let bound = |spec: &FftSpec| crate::plan::plan(spec).unwrap().passes[0].min_blocks_per_sm;
        let h200 = for_device(&FftSpec::new(2187), Backend::Cuda, "NVIDIA H200");
        assert_eq!(h200.gpu.as_deref(), Some("H200"));
        assert_eq!(h200.target, Some(Backend::Cuda));
        assert_eq!(bound(&h200), 6);
        let h100 = for_device(&FftSpec::new(2187), Backend::Cuda, "NVIDIA H100 80GB HBM3");
        assert_eq!(h100.gpu, None);
        assert_eq!(bound(&h100), 4);
        // A GPU the caller named is kept.
        let named = for_device(
            &FftSpec::new(2187).gpu("H200"),
            Backend::Cuda,
            "NVIDIA H100",
        );
        assert_eq!(named.gpu.as_deref(), Some("H200"));
        assert!(named.emit_command().contains("--gpu H200"));
    }

    fn skip(test: &str, why: &str) {
        let _ = writeln!(std::io::stderr(), "SKIPPED: {why}: {test}");
    }

    fn in_ci() -> bool {
        std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
    }

    fn pocl(test: &str) -> Option<&'static OpenClDevice> {
        match OpenClDevice::shared_pocl() {
            Ok(device) => Some(device),
            Err(e) if in_ci() => panic!("{test}: CI=true but PoCL is unavailable: {e}"),
            Err(e) => {
                skip(test, &format!("PoCL unavailable: {e}"));
                None
            }
        }
    }

    fn narrow(values: &[Complex<f64>]) -> Vec<Complex<f32>> {
        values
            .iter()
            .map(|c| Complex::new(c.re as f32, c.im as f32))
            .collect()
    }

    fn widen(values: &[Complex<f32>]) -> Vec<Complex<f64>> {
        values
            .iter()
            .map(|c| Complex::new(c.re.into(), c.im.into()))
            .collect()
    }

    /// Relative L2 error of `output` against the reference of `input`.
    fn error(input: &[Complex<f32>], output: &[Complex<f32>], n: usize, d: Direction) -> f64 {
        let want: Vec<_> = widen(input)
            .chunks(n)
            .flat_map(|x| reference(x, n, d, Normalization::None))
            .collect();
        relative_l2(&widen(output), &want)
    }

    #[test]
    fn opencl_plans_run_and_generator_errors_are_plan_errors() {
        let Some(device) = pocl("opencl_plans_run_and_generator_errors_are_plan_errors") else {
            return;
        };
        let err = opencl_fft(device, &FftSpec::new(0)).unwrap_err();
        assert_eq!(err, PlanError::Generate(crate::Error::ZeroSize));

        let (n, batch) = (64, 3);
        let fft = opencl_fft(device, &FftSpec::new(n)).unwrap_or_else(|e| panic!("{e}"));
        let input = narrow(&random_input(n * batch, 7));
        let mut output = vec![Complex::default(); n * batch];
        fft.run(Direction::Forward, &input, &mut output, batch)
            .unwrap();
        let e = error(&input, &output, n, Direction::Forward);
        assert!(e <= tolerance(n, Precision::F32), "error {e}");

        // A runtime error comes back as PlanError::Runtime.
        let err = fft
            .run(Direction::Forward, &input[..1], &mut output, batch)
            .map_err(PlanError::from)
            .unwrap_err();
        assert!(matches!(err, PlanError::Runtime(_)), "{err}");
    }

    #[test]
    fn cuda_plans_run_on_a_gpu() {
        let test = "cuda_plans_run_on_a_gpu";
        if !driver_available() {
            return skip(test, "no CUDA driver");
        }
        let device = match CudaDevice::new(0) {
            Ok(device) => device,
            Err(fftgen_runtime::Error::NoCudaDevice { .. }) => return skip(test, "no CUDA device"),
            Err(e) => panic!("{test}: {e}"),
        };
        let cache = CubinCache::memory_only();
        let (n, batch) = (4096, 5);
        let spec = FftSpec::new(n);
        let fft = cuda_fft_with_cache(&device, &spec, &cache).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fft.cache_origin(), CacheOrigin::Compiled);
        let input = narrow(&random_input(n * batch, 11));
        for direction in [Direction::Forward, Direction::Inverse] {
            let mut output = vec![Complex::default(); n * batch];
            fft.run(direction, &input, &mut output, batch)
                .unwrap_or_else(|e| panic!("{e}"));
            let e = error(&input, &output, n, direction);
            assert!(e <= tolerance(n, Precision::F32), "{direction}: error {e}");
        }
        let again = cuda_fft_with_cache(&device, &spec, &cache).unwrap();
        assert_eq!(again.cache_origin(), CacheOrigin::Memory);

        let in_place = spec.clone().placement(Placement::InPlace);
        let fft = cuda_fft_with_cache(&device, &in_place, &cache).unwrap();
        let mut data = input.clone();
        fft.run_in_place(Direction::Forward, &mut data, batch)
            .unwrap();
        let e = error(&input, &data, n, Direction::Forward);
        assert!(e <= tolerance(n, Precision::F32), "in place: error {e}");
    }
}
