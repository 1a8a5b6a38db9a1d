mod common;
use common::*;
use fftgen::{Direction, FftSpec, Precision};
use fftgen_runtime::opencl::OpenClFft;
use num_complex::Complex;

#[test]
fn scratch() {
    let dev = pocl().unwrap();
    for n in [2usize, 4, 8, 16, 12, 64, 100, 143, 256, 1000, 4096] {
        let g = fftgen::generate(&FftSpec::new(n), "test").unwrap();
        let fft = OpenClFft::new(dev, &g.opencl_source, &g.manifest).unwrap_or_else(|e| panic!("{n}: {e}\n"));
        let batch = 3;
        let x = random_input(n * batch, 1);
        let xf: Vec<Complex<f32>> = x.iter().map(|c| Complex::new(c.re as f32, c.im as f32)).collect();
        let mut y = vec![Complex::new(0f32, 0.0); n * batch];
        fft.run(Direction::Forward, &xf, &mut y, batch).unwrap();
        let mut want = Vec::new();
        for b in 0..batch { want.extend(reference(&x[b*n..(b+1)*n], n, Direction::Forward)); }
        let err = relative_l2(&widen(&y), &want);
        eprintln!("n={n} err={err:.2e} tol={:.2e} plan={:?}", tolerance(n, Precision::F32), g.plan.passes[0].radices());
    }
}
