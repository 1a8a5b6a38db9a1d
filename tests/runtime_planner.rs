//! Run-time planning (`fftgen_runtime::planner`, feature `planner`): a spec
//! generated and loaded in one call, through PoCL and (on a machine with a
//! GPU) CUDA, against the f64 reference; errors of the generator and of the
//! runtime come back as `PlanError`s. A missing PoCL fails under CI=true; a
//! missing CUDA driver or GPU always skips, since CI has no GPU.

mod common;

use common::*;
use fftgen::{Direction, FftSpec, Placement, Precision, Target};
use fftgen_runtime::cuda::CubinCache;
use fftgen_runtime::planner::{cuda_fft_with_cache, opencl_fft, GeneratedCache, PlanError};
use fftgen_runtime::CacheOrigin;
use num_complex::Complex;

fn narrow(values: &[Complex<f64>]) -> Vec<Complex<f32>> {
    values
        .iter()
        .map(|c| Complex::new(c.re as f32, c.im as f32))
        .collect()
}

/// Relative L2 error of `output` against the reference of `input`.
fn error(input: &[Complex<f32>], output: &[Complex<f32>], n: usize, d: Direction) -> f64 {
    let want = reference(&widen(input), n, d);
    relative_l2(&widen(output), &want)
}

#[test]
fn opencl_plans_run_for_the_device_they_are_loaded_on() {
    let Some(device) = pocl() else { return };
    let err = opencl_fft(device, &FftSpec::new(0)).unwrap_err();
    assert_eq!(err, PlanError::Generate(fftgen::Error::ZeroSize));

    // PoCL is kept to what GPUs allow: the measured 343-thread shape of 2401
    // is not planned for it, as it would not be for NVIDIA's OpenCL.
    assert_eq!(device.target().launchable_threads_per_block, 256);
    let (n, batch) = (2401, 3);
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

    // A target the caller names wins over the device's.
    let named = opencl_fft(device, &FftSpec::new(64).target(Target::POCL));
    assert!(named.is_ok());

    // A spec planned before is generated once: its source comes back.
    let cache = GeneratedCache::default();
    let spec = FftSpec::new(1000).target(Target::POCL);
    let first = cache.get_or_generate(&spec).unwrap();
    let again = cache.get_or_generate(&spec).unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    let other = cache.get_or_generate(&spec.clone().precision(Precision::F64));
    assert!(!std::sync::Arc::ptr_eq(&first, &other.unwrap()));
    assert_eq!(cache.len(), 2);
}

#[test]
fn cuda_plans_run_on_a_gpu() {
    let Some(device) = gpu("cuda_plans_run_on_a_gpu") else {
        return;
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
    assert_eq!(cache.plans().len(), 2);

    // A repeated plan of two passes comes from the plan cache in well under
    // a millisecond, with a workspace of its own: both run side by side.
    let (long, batch) = (1 << 16, 3);
    let spec = FftSpec::new(long);
    let first = cuda_fft_with_cache(&device, &spec, &cache).unwrap();
    let started = std::time::Instant::now();
    let second = cuda_fft_with_cache(&device, &spec, &cache).unwrap();
    let ms = started.elapsed().as_secs_f64() * 1e3;
    println!("a repeated plan of {long} points took {ms:.3} ms");
    assert_eq!(second.cache_origin(), CacheOrigin::Memory);
    assert!(ms < 5.0, "a repeated plan took {ms} ms");
    let input = narrow(&random_input(long * batch, 13));
    for fft in [&first, &second] {
        let mut output = vec![Complex::default(); long * batch];
        fft.run(Direction::Forward, &input, &mut output, batch)
            .unwrap();
        let e = error(&input, &output, long, Direction::Forward);
        assert!(e <= tolerance(long, Precision::F32), "error {e}");
    }
    cache.clear_memory();
    assert!(cache.plans().is_empty());
}

#[test]
fn measured_plans_take_the_fastest_candidate_and_remember_it() {
    use fftgen_runtime::measure::{cuda_fft_measured, cuda_fft_with_effort, PlanEffort};
    use std::time::{Duration, Instant};
    let Some(device) = gpu("measured_plans") else {
        return;
    };
    // A private cache directory: the per-user file starts empty.
    let dir = std::env::temp_dir().join(format!("fftgen-measured-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var(fftgen_runtime::cuda::CACHE_DIR_ENV, &dir);
    let budget = Duration::from_secs(1);
    println!("host threads: {:?}", std::thread::available_parallelism());
    for spec in [
        FftSpec::new(18225),
        FftSpec::new(990)
            .kind(fftgen::TransformKind::R2c)
            .precision(Precision::F64),
        FftSpec::with_shape(&[1024, 8192]),
    ] {
        let started = Instant::now();
        let measured = cuda_fft_measured(&device, &spec, budget).unwrap_or_else(|e| panic!("{e}"));
        let took = started.elapsed();
        let m = measured.measurement.expect("measured now");
        println!(
            "{:?} {:?}: {} of {} candidates timed in {} ms (compiled in {} ms, wall {} ms), fastest {:.4} ms, estimate {:.4} ms",
            spec.shape,
            spec.kind,
            m.timed.len(),
            m.timed.len() + m.untimed,
            m.spent.as_millis(),
            measured.compiling.as_millis(),
            took.as_millis(),
            m.winner().milliseconds.unwrap(),
            m.timed[0].milliseconds.unwrap(),
        );
        assert!(m.timed.iter().all(|t| t.failure.is_none()), "{:?}", m.timed);
        // The budget holds, but for the last trial's overrun.
        assert!(
            m.spent < budget + Duration::from_millis(300),
            "timing took {:?}",
            m.spent
        );
        let fastest = m
            .timed
            .iter()
            .filter_map(|t| t.milliseconds)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(m.winner().milliseconds, Some(fastest));
        // The winner runs correctly (a C2C spec checked here).
        if spec.kind == fftgen::TransformKind::C2c && spec.shape.len() == 1 {
            let (n, batch) = (spec.n(), 3);
            let input = narrow(&random_input(n * batch, 5));
            let mut output = vec![Complex::default(); n * batch];
            measured
                .fft
                .run(Direction::Forward, &input, &mut output, batch)
                .unwrap();
            let e = error(&input, &output, n, Direction::Forward);
            assert!(e <= tolerance(n, Precision::F32), "error {e}");
        }
        // The next plan of the spec takes the winner from the file.
        let again = cuda_fft_measured(&device, &spec, budget).unwrap();
        assert!(again.measurement.is_none());
        assert_eq!(again.choices, measured.choices);
        cuda_fft_with_effort(&device, &spec, PlanEffort::measure()).unwrap();
    }
    let files: Vec<_> = std::fs::read_dir(dir.join("measured")).unwrap().collect();
    assert_eq!(files.len(), 1, "one file per GPU model");
    std::env::remove_var(fftgen_runtime::cuda::CACHE_DIR_ENV);
    let _ = std::fs::remove_dir_all(&dir);
}
