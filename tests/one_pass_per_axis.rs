//! One pass per axis: a 2D or 3D transform whose axes each fit one kernel
//! on the target runs one pass per axis, rows and columns alike, past 4096
//! points where the target's opt-in shared memory holds the axis (Hopper:
//! 227 KiB), as a 1D transform of that length does (seed 000 section
//! IV.F: one read and one write of the data per axis), but for columns
//! whose one pass would read less than 32 bytes of each row: those take
//! two passes of full tiles, measured faster.
//!
//! On the CPU: a seeded sample of shapes planned for the H100 and the
//! H200. On PoCL: a sample whose axes need opt-in memory, through a client
//! of the manifest alone (the runtime refuses opt-in kernels on OpenCL, as
//! a GPU would), against the f64 reference, both directions.

mod common;

use common::*;
use fftgen::plan::pass_planner::fits_one_kernel;
use fftgen::plan::ShapeChoices;
use fftgen::{FftSpec, Precision, Target};
use rand::{Rng, SeedableRng};

/// A 13-smooth length near `n` (the nearest at or above it).
fn smooth_at_least(n: usize) -> usize {
    (n..)
        .find(|&m| fftgen::codelet::largest_prime_factor(m) <= 13)
        .expect("smooth lengths are unbounded")
}

/// `count` shapes of two or three axes, each axis 13-smooth, drawn
/// log-uniformly from 2 to 24576 with `seed`, that fit one kernel each on
/// `target` in `precision`, at most 2^28 points in all.
fn one_kernel_axes_sample(
    count: usize,
    seed: u64,
    precision: Precision,
    target: &Target,
) -> Vec<Vec<usize>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut shapes = Vec::new();
    while shapes.len() < count {
        let axes = rng.gen_range(2..=3);
        let shape: Vec<usize> = (0..axes)
            .map(|_| smooth_at_least(2f64.powf(rng.gen_range(1.0..14.6)) as usize))
            .collect();
        let fits = shape.iter().all(|&n| fits_one_kernel(n, precision, target));
        if fits && shape.iter().product::<usize>() <= 1 << 28 {
            shapes.push(shape);
        }
    }
    shapes
}

#[test]
fn axes_that_fit_one_kernel_each_take_one_pass() {
    for (target, seed) in [(Target::H100, 36), (Target::H200, 37)] {
        for precision in [Precision::F32, Precision::F64] {
            let shapes = one_kernel_axes_sample(40, seed, precision, &target);
            let past_4096 = shapes.iter().filter(|s| s.iter().any(|&n| n > 4096));
            let past_4096 = past_4096.count();
            assert!(
                past_4096 >= 5,
                "{past_4096} shapes of the sample reach opt-in axes"
            );
            for shape in shapes {
                let spec = FftSpec::with_shape(&shape)
                    .precision(precision)
                    .target(target.clone());
                let plan = fftgen::plan::plan(&spec)
                    .unwrap_or_else(|e| panic!("{shape:?} {precision}: {e}"));
                // One pass per axis, or one for neighbouring axes at once;
                // a column whose one pass holds less than a 32-byte run of
                // each row in two passes (it lost to the split where
                // measured).
                let axes = shape.iter().filter(|&&n| n > 1).count();
                let last = shape.iter().rposition(|&n| n > 1).unwrap_or(0);
                let mut split_columns = 0;
                for (axis, factors) in plan.axis_factors.iter().enumerate() {
                    if factors.len() == 1 {
                        continue;
                    }
                    assert!(axis < last, "{shape:?} {precision}: rows split");
                    let n = shape[axis];
                    split_columns += factors.len() - 1;
                    // A split by hand names the last axis of its length.
                    if shape[axis + 1..].contains(&n) {
                        continue;
                    }
                    let whole = fftgen::plan::plan(&spec.clone().choices(ShapeChoices {
                        split: Some(vec![n]),
                        ..ShapeChoices::default()
                    }))
                    .unwrap();
                    let pass = whole.passes.iter().find(|p| p.n == n).unwrap();
                    assert!(
                        pass.ffts_per_block * precision.complex_bytes() < 32,
                        "{shape:?} {precision}: columns of {n} split though one pass fills a tile"
                    );
                }
                let shared: usize = plan
                    .passes
                    .iter()
                    .filter_map(|p| p.fused_axes.as_ref())
                    .map(|f| f.lengths.len() - 1)
                    .sum();
                assert_eq!(
                    plan.passes.len() + shared,
                    axes + split_columns,
                    "{shape:?} {precision} on {}: {:?}",
                    target.name,
                    plan.axis_factors
                );
            }
        }
    }
}

/// Shapes small enough for PoCL whose axes past 4096 need the H100's
/// opt-in memory: rows, columns, the middle axis of a 3D shape, and
/// neighbouring axes in one pass.
const OPT_IN_SHAPES: [(&[usize], Precision); 7] = [
    (&[6, 8192], Precision::F32),
    (&[10, 1000], Precision::F32),
    (&[20, 20, 20], Precision::F32),
    (&[10000, 4], Precision::F32),
    (&[3, 5000, 2], Precision::F32),
    (&[4375, 6], Precision::F64),
    (&[2, 3, 6561], Precision::F64),
];

#[test]
fn opt_in_axes_on_pocl_through_the_manifest() {
    if pocl().is_none() {
        return;
    }
    for (shape, precision) in OPT_IN_SHAPES {
        // Columns past 4096 points may be split unless one pass is asked.
        let columns = shape[..shape.len() - 1].iter();
        let long_column = columns.filter(|&&n| n > 4096).max();
        let spec = FftSpec::with_shape(shape)
            .precision(precision)
            .target(Target::H100)
            .choices(ShapeChoices {
                split: long_column.map(|&n| vec![n]),
                ..ShapeChoices::default()
            });
        let generated = fftgen::generate(&spec, "tests/one_pass_per_axis.rs").unwrap();
        let passes = &generated.manifest.transforms[0].passes;
        let plan = fftgen::plan::plan(&spec).unwrap();
        let shared = plan.passes.iter().filter_map(|p| p.fused_axes.as_ref());
        let shared: usize = shared.map(|f| f.lengths.len() - 1).sum();
        assert_eq!(
            passes.len() + shared,
            shape.len(),
            "{shape:?}: one pass per axis"
        );
        assert!(
            passes.iter().any(|p| p.dynamic_shared_bytes > 48 * 1024),
            "{shape:?}: an axis in opt-in memory"
        );
        check_c2c_through_the_manifest_on_pocl(&spec, 2, "tests/one_pass_per_axis.rs");
    }
}
