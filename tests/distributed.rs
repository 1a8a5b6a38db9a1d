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
use fftgen::distributed::{DistributedPlan, DistributedSpec, Distribution};
use fftgen::{Direction, FftSpec, Normalization, Precision, TransformKind};
use fftgen_cli::accuracy::reference_nd;
use fftgen_runtime::distributed::OpenClRanks;
use num_complex::Complex;

/// The global offset of each element of rank `rank`'s share of a batch of
/// arrays of `shape` cut by `cut`, in the share's row-major order.
fn share_offsets(
    plan: &DistributedPlan,
    shape: &[usize],
    cut: &Distribution,
    rank: usize,
    batch: usize,
) -> Vec<usize> {
    let local = cut.local_shape(shape, &plan.grid);
    let coords = plan.coords(rank);
    let points: usize = shape.iter().product();
    let local_points: usize = local.iter().product();
    let mut offsets = Vec::with_capacity(local_points * batch);
    for t in 0..batch {
        for flat in 0..local_points {
            let mut rest = flat;
            let mut index = vec![0; shape.len()];
            for a in (0..shape.len()).rev() {
                index[a] = rest % local[a];
                rest /= local[a];
            }
            let mut global = 0;
            for a in 0..shape.len() {
                let start = cut.cut_by[a].map_or(0, |d| coords[d] * local[a]);
                global = global * shape[a] + start + index[a];
            }
            offsets.push(t * points + global);
        }
    }
    offsets
}

fn check(
    shape: &[usize],
    kind: TransformKind,
    precision: Precision,
    gpus: usize,
    grid: Option<Vec<usize>>,
    batch: usize,
) {
    let Some(device) = pocl() else { return };
    let spec = DistributedSpec {
        spec: FftSpec::with_shape(shape)
            .kind(kind)
            .precision(precision)
            .normalization(Normalization::Inverse),
        gpus,
        grid,
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
    let ins: Vec<Vec<usize>> = (0..plan.ranks())
        .map(|r| share_offsets(&plan, shape, &plan.input, r, batch))
        .collect();
    let outs: Vec<Vec<usize>> = (0..plan.ranks())
        .map(|r| share_offsets(&plan, &complex, &plan.output, r, batch))
        .collect();
    let tol = tolerance(points, precision);
    macro_rules! run {
        ($t:ty) => {{
            let forward: Vec<Vec<Complex<$t>>> = match kind {
                TransformKind::C2c => {
                    let shares: Vec<Vec<Complex<$t>>> = ins
                        .iter()
                        .map(|o| {
                            o.iter()
                                .map(|&i| Complex::new(input[i].re as $t, input[i].im as $t))
                                .collect()
                        })
                        .collect();
                    ranks.run(Direction::Forward, &shares, batch).unwrap()
                }
                TransformKind::R2c => {
                    let shares: Vec<Vec<$t>> = ins
                        .iter()
                        .map(|o| o.iter().map(|&i| input[i].re as $t).collect())
                        .collect();
                    ranks.run(Direction::Forward, &shares, batch).unwrap()
                }
            };
            let mut got = vec![Complex::new(0.0, 0.0); expected.len()];
            for (share, offsets) in forward.iter().zip(&outs) {
                for (v, &o) in share.iter().zip(offsets) {
                    got[o] = Complex::new(v.re as f64, v.im as f64);
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
                        for (v, &o) in share.iter().zip(offsets) {
                            again[o] = Complex::new(v.re as f64, v.im as f64);
                        }
                    }
                    relative_l2(&again, &input)
                }
                TransformKind::R2c => {
                    let back: Vec<Vec<$t>> =
                        ranks.run(Direction::Inverse, &forward, batch).unwrap();
                    let mut again = vec![Complex::new(0.0, 0.0); input.len()];
                    for (share, offsets) in back.iter().zip(&ins) {
                        for (v, &o) in share.iter().zip(offsets) {
                            again[o] = Complex::new(*v as f64, 0.0);
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
    check(&[16, 12], C2c, Precision::F32, 4, None, 1);
    check(&[8, 12, 10], C2c, Precision::F32, 2, None, 2);
    check(&[6, 12, 8], R2c, Precision::F32, 3, None, 1);
    check(&[8, 12, 10], R2c, Precision::F64, 4, Some(vec![4]), 1);
}

#[test]
fn pencils_match_the_whole_transform_on_pocl() {
    check(&[8, 12, 10], C2c, Precision::F32, 4, Some(vec![2, 2]), 2);
    check(&[6, 12, 12], C2c, Precision::F64, 3, Some(vec![3, 1]), 1);
    check(&[6, 12, 12], C2c, Precision::F32, 3, Some(vec![1, 3]), 1);
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
        };
        let error = fftgen::distributed::plan_distributed(&spec)
            .expect_err("refused")
            .to_string();
        assert!(error.contains("cannot be spread"), "{error}");
    };
    refused(&[64, 64], R2c, 2, None); // 2 does not divide 33
    refused(&[30, 30], C2c, 4, None);
    refused(&[4096], C2c, 2, None);
    refused(&[64, 37], C2c, 2, None);
    refused(&[8, 8, 8], C2c, 4, Some(vec![3, 2]));
    refused(&[8, 8, 8], C2c, 0, None);
}
