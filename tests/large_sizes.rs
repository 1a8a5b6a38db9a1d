//! Transforms longer than one block (two- and three-pass four-step plans),
//! on PoCL against the f64 reference.

mod common;

use common::*;
use fftgen::{FftSpec, Placement, Precision};
use fftgen_cli::check::check_opencl;

fn check_spec(spec: &FftSpec, batch: usize) {
    let Some(device) = pocl() else { return };
    let n = spec.points();
    let generated =
        fftgen::generate(spec, "tests/large_sizes.rs").unwrap_or_else(|e| panic!("n = {n}: {e}"));
    let report = check_opencl(&generated, device, batch, n as u64)
        .unwrap_or_else(|e| panic!("n = {n}: {e}"));
    let label = format!(
        "n = {n} {} {:?} passes {:?}",
        spec.precision,
        spec.placement,
        generated
            .plan
            .passes
            .iter()
            .map(|p| p.n)
            .collect::<Vec<_>>()
    );
    let worst = assert_accurate(&report, &label);
    eprintln!("{label}: worst {worst:.3} of the tolerance");
}

#[test]
fn quick() {
    for n in [8192usize, 12288] {
        for placement in [Placement::OutOfPlace, Placement::InPlace] {
            check_spec(&FftSpec::new(n).placement(placement), 3);
        }
    }
}
