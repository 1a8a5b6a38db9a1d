//! Transforms spread over several GPUs (fftgen/src/distributed/), checked on
//! PoCL with every rank on one device and the exchanges copies between the
//! ranks' buffers (`OpenClRanks`): the same blocks NCCL moves between GPUs.
//! Each case scatters a random batch by the plan's input distribution, runs
//! the forward on every rank, gathers the shares by the output distribution
//! and compares with the f64 reference of the whole array; the inverse runs
//! on those shares and must give the input back. 2D and 3D, slabs and
//! pencils, C2C and R2C/C2R, P = 2, 3, 4.

mod common;

use common::*;
use fftgen::distributed::DistributedSpec;
use fftgen::{Direction, FftSpec, Normalization, Precision, TransformKind};
use fftgen_cli::accuracy::reference_nd;
use fftgen_runtime::distributed::OpenClRanks;
use num_complex::Complex;

fn check(
    shape: &[usize],
    kind: TransformKind,
    precision: Precision,
    gpus: usize,
    grid: Option<Vec<usize>>,
    batch: usize,
) {
    check_in_chunks(shape, kind, precision, gpus, grid, batch, None)
}

/// [`check`] with the slab's exchange in `chunks` (`None`: the planner's).
fn check_in_chunks(
    shape: &[usize],
    kind: TransformKind,
    precision: Precision,
    gpus: usize,
    grid: Option<Vec<usize>>,
    batch: usize,
    chunks: Option<usize>,
) {
    let spec = FftSpec::with_shape(shape).kind(kind);
    check_spec(spec, precision, gpus, grid, batch, chunks)
}

/// [`check_in_chunks`] of `spec` (its shape, kind and target), normalised
/// on the inverse.
fn check_spec(
    spec: FftSpec,
    precision: Precision,
    gpus: usize,
    grid: Option<Vec<usize>>,
    batch: usize,
    chunks: Option<usize>,
) {
    let Some(device) = pocl() else { return };
    let (shape, kind) = (spec.shape.clone(), spec.kind);
    let shape = &shape[..];
    let spec = DistributedSpec {
        spec: spec
            .precision(precision)
            .normalization(Normalization::Inverse),
        gpus,
        grid,
        chunks,
    };
    let ranks =
        OpenClRanks::new(device, &spec).unwrap_or_else(|e| panic!("{shape:?} over {gpus}: {e}"));
    let plan = ranks.plan().clone();
    let label = format!(
        "{kind} {shape:?} {precision} over grid {:?}, batch {batch}",
        plan.grid
    );
    let complex = plan.complex_shape();
    let points: usize = shape.iter().product();
    let mut input = random_input(points * batch, 26);
    if kind == TransformKind::R2c {
        input.iter_mut().for_each(|c| c.im = 0.0);
    }
    let expected: Vec<Complex<f64>> = {
        let full = reference_nd(shape, &input, Direction::Forward, Normalization::None);
        match kind {
            TransformKind::C2c => full,
            TransformKind::R2c => {
                // The half spectrum: the first n/2 + 1 of the last axis.
                let (n, h) = (shape[shape.len() - 1], complex[complex.len() - 1]);
                full.chunks(n).flat_map(|row| row[..h].to_vec()).collect()
            }
        }
    };
    // Each share in its own order; `None` for the padding of a range cut
    // unevenly, which holds zeros going in and is not read coming out.
    let ins: Vec<Vec<Option<usize>>> = (0..plan.ranks())
        .map(|r| plan.global_offsets(false, r, batch))
        .collect();
    let outs: Vec<Vec<Option<usize>>> = (0..plan.ranks())
        .map(|r| plan.global_offsets(true, r, batch))
        .collect();
    let at = |o: Option<usize>| o.map_or(Complex::new(0.0, 0.0), |o| input[o]);
    let tol = tolerance(points, precision);
    macro_rules! run {
        ($t:ty) => {{
            let forward: Vec<Vec<Complex<$t>>> = match kind {
                TransformKind::C2c => {
                    let shares: Vec<Vec<Complex<$t>>> = ins
                        .iter()
                        .map(|o| {
                            o.iter()
                                .map(|&i| Complex::new(at(i).re as $t, at(i).im as $t))
                                .collect()
                        })
                        .collect();
                    ranks.run(Direction::Forward, &shares, batch).unwrap()
                }
                TransformKind::R2c => {
                    let shares: Vec<Vec<$t>> = ins
                        .iter()
                        .map(|o| o.iter().map(|&i| at(i).re as $t).collect())
                        .collect();
                    ranks.run(Direction::Forward, &shares, batch).unwrap()
                }
            };
            let mut got = vec![Complex::new(0.0, 0.0); expected.len()];
            for (share, offsets) in forward.iter().zip(&outs) {
                for (v, o) in share.iter().zip(offsets) {
                    if let Some(o) = *o {
                        got[o] = Complex::new(v.re as f64, v.im as f64);
                    }
                }
            }
            let error = relative_l2(&got, &expected);
            assert!(
                error <= tol,
                "{label} forward: error {error:.3e} > {tol:.3e}"
            );
            // The inverse (normalised) from the output shares gives the input back.
            let back_error = match kind {
                TransformKind::C2c => {
                    let back: Vec<Vec<Complex<$t>>> =
                        ranks.run(Direction::Inverse, &forward, batch).unwrap();
                    let mut again = vec![Complex::new(0.0, 0.0); input.len()];
                    for (share, offsets) in back.iter().zip(&ins) {
                        for (v, o) in share.iter().zip(offsets) {
                            if let Some(o) = *o {
                                again[o] = Complex::new(v.re as f64, v.im as f64);
                            }
                        }
                    }
                    relative_l2(&again, &input)
                }
                TransformKind::R2c => {
                    let back: Vec<Vec<$t>> =
                        ranks.run(Direction::Inverse, &forward, batch).unwrap();
                    let mut again = vec![Complex::new(0.0, 0.0); input.len()];
                    for (share, offsets) in back.iter().zip(&ins) {
                        for (v, o) in share.iter().zip(offsets) {
                            if let Some(o) = *o {
                                again[o] = Complex::new(*v as f64, 0.0);
                            }
                        }
                    }
                    relative_l2(&again, &input)
                }
            };
            assert!(
                back_error <= tol,
                "{label} inverse: error {back_error:.3e} > {tol:.3e}"
            );
        }};
    }
    match precision {
        Precision::F32 => run!(f32),
        Precision::F64 => run!(f64),
    }
}

use TransformKind::{C2c, R2c};

#[test]
fn slabs_2d_and_3d_match_the_whole_transform_on_pocl() {
    check(&[16, 12], C2c, Precision::F32, 2, None, 2);
    check(&[12, 18], C2c, Precision::F64, 3, None, 1);
    check(&[8, 12, 10], C2c, Precision::F32, 2, None, 2);
    check(&[6, 12, 8], R2c, Precision::F32, 3, None, 2);
    check(&[8, 12, 10], R2c, Precision::F64, 4, Some(vec![4]), 1);
    // A half spectrum of 43 values (prime, past every radix): the steps
    // along axis 0 carry it as columns.
    check(&[8, 6, 84], R2c, Precision::F32, 2, None, 2);
}

/// Local steps that compute several axes in one kernel beside the
/// exchange's blocks, their rows located one FFT at a time and staged in
/// shared memory padded against bank conflicts (the padding the staging
/// walk once ignored: errors of 1 to 3e24 through NCCL), for the portable
/// target and a Hopper's.
#[test]
fn steps_of_several_axes_beside_blocks_match_on_pocl() {
    for target in [None, Some(fftgen::Target::H200)] {
        let spec = |shape: &[usize], kind| {
            let spec = FftSpec::with_shape(shape).kind(kind);
            match target.clone() {
                Some(t) => spec.target(t),
                None => spec,
            }
        };
        match target {
            None => check_spec(spec(&[8, 8, 40], C2c), Precision::F32, 2, None, 2, None),
            Some(_) => check_spec(spec(&[12, 48, 20], R2c), Precision::F32, 2, None, 1, None),
        }
    }
}

/// Slabs whose exchange runs in chunks, each chunk's kernels a column and
/// an offset of the step's plan: every chunk count that cuts the planes.
#[test]
fn slabs_exchanged_in_chunks_match_on_pocl() {
    check_in_chunks(&[8, 12, 10], C2c, Precision::F32, 2, None, 2, Some(4));
    check_in_chunks(&[12, 6, 10], R2c, Precision::F32, 3, None, 2, Some(4));
    check_in_chunks(&[8, 8, 6], R2c, Precision::F32, 2, None, 1, Some(3));
}

/// Axes P does not divide: ranges of n / P rounded up, the last rank's
/// padded (FFTW-MPI's block distribution), on axis 0, axis 1 or both, the
/// exchange in chunks too; cuFFTMp and heFFTe take such shapes.
#[test]
fn uneven_slabs_match_the_whole_transform_on_pocl() {
    check(&[10, 14], C2c, Precision::F32, 3, None, 2);
    check(&[9, 10, 6], C2c, Precision::F64, 2, None, 2);
    check(&[6, 10, 12], C2c, Precision::F32, 3, None, 1);
    check(&[7, 10, 8], R2c, Precision::F32, 4, None, 2);
    check(&[12, 14], R2c, Precision::F32, 3, None, 2);
    check(&[64, 64], R2c, Precision::F64, 2, None, 1);
    check_in_chunks(&[9, 12, 10], C2c, Precision::F32, 2, None, 2, Some(5));
}

/// A seeded sample of small shapes whose planned slabs are uneven: every
/// one matches the whole transform both ways.
#[test]
fn uneven_slabs_of_random_shapes_match_on_pocl() {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    if pocl().is_none() {
        return;
    }
    let lengths = [3, 5, 6, 7, 9, 10, 12, 14, 15, 18, 20, 25];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x0e7e_5ab5);
    let mut checked = 0;
    while checked < 8 {
        let dims = rng.gen_range(2..=3);
        let shape: Vec<usize> = (0..dims)
            .map(|_| *lengths.choose(&mut rng).unwrap())
            .collect();
        let kind = *[C2c, R2c].choose(&mut rng).unwrap();
        let gpus = rng.gen_range(2..=5);
        let spec = DistributedSpec {
            spec: FftSpec::with_shape(&shape).kind(kind),
            gpus,
            grid: None,
            chunks: None,
        };
        let Ok(plan) = fftgen::distributed::plan_distributed(&spec) else {
            continue;
        };
        let complex = plan.complex_shape();
        let uneven = plan.grid.len() == 1 && complex[..2].iter().any(|n| n % gpus != 0);
        if uneven {
            check(
                &shape,
                kind,
                Precision::F32,
                gpus,
                None,
                rng.gen_range(1..=3),
            );
            checked += 1;
        }
    }
}

#[test]
fn pencils_match_the_whole_transform_on_pocl() {
    check(&[8, 12, 10], C2c, Precision::F32, 4, Some(vec![2, 2]), 2);
    check(&[6, 12, 12], C2c, Precision::F64, 3, Some(vec![3, 1]), 1);
    check(&[8, 12, 10], R2c, Precision::F32, 4, Some(vec![2, 2]), 1);
    check(&[4, 6, 10], R2c, Precision::F32, 2, Some(vec![1, 2]), 2);
}

#[test]
fn shapes_the_gpus_cannot_cut_are_refused() {
    let refused = |shape: &[usize], kind, gpus, grid: Option<Vec<usize>>| {
        let spec = DistributedSpec {
            spec: FftSpec::with_shape(shape).kind(kind),
            gpus,
            grid,
            chunks: None,
        };
        let error = fftgen::distributed::plan_distributed(&spec)
            .expect_err("refused")
            .to_string();
        assert!(error.contains("cannot be spread"), "{error}");
    };
    refused(&[5, 64], C2c, 4, None); // ranges of 2 planes leave the fourth none
    refused(&[2, 64], C2c, 3, None); // ranges of 1 plane leave the third none
    refused(&[4096], C2c, 2, None);
    refused(&[64, 37], C2c, 2, None);
    refused(&[8, 8, 8], C2c, 4, Some(vec![3, 2]));
    refused(&[8, 8, 8], C2c, 0, None);
}

/// NCCL and at least `gpus` GPUs, or `None` with a visible message (CI has
/// no GPU: these run on the device machine).
fn nccl_gpus(gpus: usize) -> bool {
    use fftgen_runtime::distributed::nccl::nccl_available;
    let count = fftgen_runtime::CudaDevice::count().unwrap_or(0);
    let ok = nccl_available() && count >= gpus;
    if !ok {
        skip(&format!(
            "NCCL and {gpus} GPUs needed (NCCL loads: {}, GPUs: {count})",
            nccl_available()
        ));
    }
    ok
}

/// One process driving `gpus` GPUs through NCCL: the forward against the f64
/// reference, the inverse back to the input.
fn check_nccl(
    shape: &[usize],
    kind: TransformKind,
    gpus: usize,
    grid: Option<Vec<usize>>,
    batch: usize,
) {
    use fftgen_runtime::distributed::nccl::{on_every_rank, CudaRank};
    if !nccl_gpus(gpus) {
        return;
    }
    let spec = DistributedSpec {
        spec: FftSpec::with_shape(shape)
            .kind(kind)
            .normalization(Normalization::Inverse),
        gpus,
        grid,
        chunks: None,
    };
    let ranks = CudaRank::<f32>::all_devices(&spec)
        .unwrap_or_else(|e| panic!("{shape:?} over {gpus}: {e}"));
    let plan = ranks[0].plan().clone();
    let label = format!(
        "NCCL {kind} {shape:?} over grid {:?}, batch {batch}",
        plan.grid
    );
    let points: usize = shape.iter().product();
    let complex = plan.complex_shape();
    let mut input = random_input(points * batch, 27);
    let real = kind == TransformKind::R2c;
    if real {
        input.iter_mut().for_each(|c| c.im = 0.0);
    }
    let full = reference_nd(shape, &input, Direction::Forward, Normalization::None);
    let expected: Vec<Complex<f64>> = match real {
        false => full,
        true => {
            let (n, h) = (shape[shape.len() - 1], complex[complex.len() - 1]);
            full.chunks(n).flat_map(|row| row[..h].to_vec()).collect()
        }
    };
    let results = on_every_rank(&ranks, |rank| {
        let stream = rank.device().stream();
        let ins = plan.global_offsets(false, rank.rank(), batch);
        let at = |o: Option<usize>| o.map_or(Complex::new(0.0, 0.0), |o| input[o]);
        let host: Vec<f32> = match real {
            true => ins.iter().map(|&o| at(o).re as f32).collect(),
            false => ins
                .iter()
                .flat_map(|&o| [at(o).re as f32, at(o).im as f32])
                .collect(),
        };
        let (_, output_len) = rank.share_lens(Direction::Forward);
        let slab = stream.clone_htod(&host).unwrap();
        let mut spectrum = stream.alloc_zeros::<f32>(2 * output_len * batch).unwrap();
        let mut back = stream.alloc_zeros::<f32>(host.len()).unwrap();
        rank.launch(Direction::Forward, &slab, &mut spectrum, batch)
            .unwrap();
        rank.launch(Direction::Inverse, &spectrum, &mut back, batch)
            .unwrap();
        (
            host,
            stream.clone_dtoh(&spectrum).unwrap(),
            stream.clone_dtoh(&back).unwrap(),
        )
    });
    let mut got = vec![Complex::new(0.0, 0.0); expected.len()];
    let (mut sent, mut returned) = (Vec::new(), Vec::new());
    for (rank, (host, spectrum, back)) in results.iter().enumerate() {
        for (i, o) in plan.global_offsets(true, rank, batch).iter().enumerate() {
            if let Some(o) = *o {
                got[o] = Complex::new(spectrum[2 * i] as f64, spectrum[2 * i + 1] as f64);
            }
        }
        // The round trip compares the values, not the padding.
        let values = plan.global_offsets(false, rank, batch);
        let per_value = host.len() / values.len();
        for (i, o) in values.iter().enumerate() {
            if o.is_some() {
                let at = per_value * i..per_value * (i + 1);
                sent.extend(
                    host[at.clone()]
                        .iter()
                        .map(|&v| Complex::new(v as f64, 0.0)),
                );
                returned.extend(back[at].iter().map(|&v| Complex::new(v as f64, 0.0)));
            }
        }
    }
    let tol = tolerance(points, Precision::F32);
    let error = relative_l2(&got, &expected);
    assert!(
        error <= tol,
        "{label} forward: error {error:.3e} > {tol:.3e}"
    );
    let back_error = relative_l2(&returned, &sent);
    assert!(
        back_error <= tol,
        "{label} inverse: error {back_error:.3e} > {tol:.3e}"
    );
    println!(
        "{label}: forward error {error:.2e}, round trip {back_error:.2e} (tolerance {tol:.2e})"
    );
}

#[test]
fn nccl_ranks_match_the_whole_transform_on_gpus() {
    // One rank: the NCCL path on a single GPU.
    check_nccl(&[64, 48, 40], C2c, 1, None, 2);
    check_nccl(&[64, 48, 40], R2c, 1, None, 1);
    // Steps of several axes in one kernel beside the blocks (axes 1 and 2).
    check_nccl(&[256, 128, 64], C2c, 2, None, 1);
    check_nccl(&[64, 48, 40], C2c, 2, None, 2);
    check_nccl(&[64, 48, 40], R2c, 2, None, 1);
    check_nccl(&[128, 96, 64], R2c, 2, None, 2);
    // A half spectrum of 129 (3 x 43) values, carried by the steps along axis 0.
    check_nccl(&[96, 200, 256], R2c, 2, None, 1);
    check_nccl(&[1024, 512], C2c, 2, None, 3);
    check_nccl(&[64, 64, 64], C2c, 4, None, 1);
    check_nccl(&[64, 48, 40], C2c, 4, Some(vec![2, 2]), 1);
    check_nccl(&[64, 48, 38], R2c, 4, Some(vec![2, 2]), 1);
    // Uneven slabs: 99 planes as 50 + 49; the R2C's half spectrum of 51
    // columns as 26 + 25.
    check_nccl(&[99, 100, 64], C2c, 2, None, 2);
    check_nccl(&[99, 100], R2c, 2, None, 2);
}

/// One process per GPU, as MPI jobs run (here a thread per rank, each
/// joining by the shared id): ranks whose plans agree run; ranks that
/// planned different transforms stop with an error before any exchange.
#[test]
fn ranks_joined_by_id_compare_their_plans() {
    use fftgen_runtime::distributed::nccl::{CudaRank, NcclId};
    if !nccl_gpus(2) {
        return;
    }
    let spec = |shape: &[usize]| DistributedSpec {
        spec: FftSpec::with_shape(shape),
        gpus: 2,
        grid: None,
        chunks: None,
    };
    let join = |specs: [DistributedSpec; 2]| -> Vec<Result<(), String>> {
        let id = NcclId::new().unwrap();
        let id = NcclId::from_hex(&id.to_hex()).unwrap();
        std::thread::scope(|scope| {
            let handles: Vec<_> = specs
                .iter()
                .enumerate()
                .map(|(rank, spec)| {
                    scope.spawn(move || {
                        let device =
                            fftgen_runtime::CudaDevice::new(rank).map_err(|e| e.to_string())?;
                        CudaRank::<f32>::join(device, rank, &id, spec)
                            .map(|_| ())
                            .map_err(|e| e.to_string())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    };
    for result in join([spec(&[64, 64]), spec(&[64, 64])]) {
        result.expect("ranks with one plan join");
    }
    for result in join([spec(&[64, 64]), spec(&[64, 32])]) {
        let error = result.expect_err("ranks with different plans are refused");
        assert!(error.contains("planned another transform"), "{error}");
    }
}
