//! Lowers the chirp steps of Bluestein's algorithm ([`crate::plan::bluestein`])
//! into kernels, and computes their tables: the chirp c[j] = e^(-pi i j^2 / N)
//! (j^2 reduced mod 2N in integers, then one f64 root rounded once), and the
//! chirp's spectrum B = FFT_M(conj c) / M, from an f64 FFT on the host.
//!
//! Each step apart walks a row in chunks of `T * V` consecutive points
//! ([`super::row_chunks`]).

use super::ast::{assign, let_const, uint, var, Expr, Function, Stmt, Type};
use super::complex_ops::cmul_name;
use super::row_chunks::{self, Row};
use super::signature::{kernel_params, output_scale, transforms_of, TWIDDLES};
use crate::expr::constant::root_of_unity_f64;
use crate::plan::{AxisSide, Chirp, ChirpRole, Pass, Plan, Rader};
use crate::Direction;

/// The table `chirp`'s pass reads, forward direction (the inverse's
/// kernels conjugate it).
pub fn chirp_table(chirp: &Chirp) -> Vec<(f64, f64)> {
    match chirp.role {
        ChirpRole::Load { .. } | ChirpRole::Store { .. } => chirp_values(chirp.n),
        ChirpRole::Multiply => chirp_spectrum(chirp.n, chirp.padded),
        ChirpRole::Whole { .. } => fused_chirp_table(chirp),
        ChirpRole::Separate => Vec::new(),
    }
}

/// The tables an FFT of M with `chirp`'s step in its loads or stores
/// reads after its own twiddles: the chirp, then (for the first FFT in one
/// kernel, whose stores multiply by it) the chirp's spectrum; the spectrum
/// alone for the product on the stores of the first FFT's last pass.
pub fn fused_chirp_table(chirp: &Chirp) -> Vec<(f64, f64)> {
    if let Some(rader) = chirp.rader {
        return rader_table(chirp.n, rader);
    }
    match chirp.role {
        ChirpRole::Multiply => chirp_spectrum(chirp.n, chirp.padded),
        ChirpRole::Load { .. } if chirp.index.is_some() => chirp_values(chirp.n),
        ChirpRole::Load { .. } | ChirpRole::Whole { .. } => {
            let mut table = chirp_values(chirp.n);
            table.extend(chirp_spectrum(chirp.n, chirp.padded));
            table
        }
        ChirpRole::Store { .. } => chirp_values(chirp.n),
        ChirpRole::Separate => Vec::new(),
    }
}

/// Rader's tables for a prime axis of `p` points: the permutation g^j
/// for j < M = p - 1 (as reals, exact), then B = FFT_M(b) / M, b[s] =
/// w_p^(g^-s) ([`crate::plan::rader`]).
fn rader_table(p: usize, rader: Rader) -> Vec<(f64, f64)> {
    let m = p - 1;
    let mut table: Vec<(f64, f64)> = rader
        .permutation(p)
        .into_iter()
        .map(|point| (point as f64, 0.0))
        .collect();
    let b: Vec<(f64, f64)> = rader
        .kernel_exponents(p)
        .into_iter()
        .map(|exponent| root_of_unity_f64(exponent as i64, p as i64, -1))
        .collect();
    let roots: Vec<(f64, f64)> = (0..m as i64)
        .map(|k| root_of_unity_f64(k, m as i64, -1))
        .collect();
    let scale = 1.0 / m as f64;
    table.extend(
        host_fft(&b, &roots, 1)
            .into_iter()
            .map(|(re, im)| (re * scale, im * scale)),
    );
    table
}

/// c[j] = e^(-pi i j^2 / N) = w_2N^(j^2 mod 2N) for j < N.
fn chirp_values(n: usize) -> Vec<(f64, f64)> {
    let period = 2 * n as u64;
    (0..n as u64)
        .map(|j| root_of_unity_f64(((j * j) % period) as i64, period as i64, -1))
        .collect()
}

/// B = FFT_M(b) / M, b[m] = conj(c[|m|]) for |m| < N (m < 0 at M + m), 0
/// between.
fn chirp_spectrum(n: usize, padded: usize) -> Vec<(f64, f64)> {
    let chirp = chirp_values(n);
    let mut b = vec![(0.0, 0.0); padded];
    for (m, &(re, im)) in chirp.iter().enumerate() {
        b[m] = (re, -im);
        if m > 0 {
            b[padded - m] = (re, -im);
        }
    }
    let roots: Vec<(f64, f64)> = (0..padded as i64)
        .map(|k| root_of_unity_f64(k, padded as i64, -1))
        .collect();
    let scale = 1.0 / padded as f64;
    host_fft(&b, &roots, 1)
        .into_iter()
        .map(|(re, im)| (re * scale, im * scale))
        .collect()
}

/// The forward DFT of `x` in f64, decimated in time by its smallest prime
/// factor at each level; `roots[k * step]` is w_len^k. O(len * sum of the
/// prime factors): the padded lengths are products of 2, 3, 5 and 7.
fn host_fft(x: &[(f64, f64)], roots: &[(f64, f64)], step: usize) -> Vec<(f64, f64)> {
    let len = x.len();
    if len == 1 {
        return x.to_vec();
    }
    let p = (2..=len).find(|p| len % p == 0).expect("len >= 2");
    let m = len / p;
    let parts: Vec<Vec<(f64, f64)>> = (0..p)
        .map(|r| {
            let sub: Vec<(f64, f64)> = (0..m).map(|j| x[j * p + r]).collect();
            host_fft(&sub, roots, step * p)
        })
        .collect();
    let mut out = vec![(0.0, 0.0); len];
    for (k, slot) in out.iter_mut().enumerate() {
        let (mut re, mut im) = (0.0, 0.0);
        for (r, part) in parts.iter().enumerate() {
            let (a, b) = part[k % m];
            let (c, s) = roots[(r * k % len) * step];
            re += a * c - b * s;
            im += a * s + b * c;
        }
        *slot = (re, im);
    }
    out
}

/// Lowers the chirp pass `pass` of `plan` in `direction`: each point of
/// the block's chunk ([`row_chunks`]) that the step writes, by
/// [`ChirpStep::point`].
pub fn lower_chirp(plan: &Plan, pass: &Pass, direction: Direction) -> Function {
    let step = ChirpStep::of(plan, pass, direction);
    let (threads, points) = (pass.threads_per_fft, pass.values_per_thread);
    let (_, written) = step.chirp.side_points();
    let per_point = step.point();
    let work = (0..points)
        .map(|i| {
            Stmt::Scope(vec![
                let_const(
                    Type::Index,
                    "p",
                    row_chunks::point_of_chunk(i, threads, points),
                ),
                Stmt::If(var("p").lt(uint(written)), per_point.clone()),
            ])
        })
        .collect();
    let role = step.chirp.role;
    let params = kernel_params(
        step.row.placement,
        matches!(role, ChirpRole::Load { side } if side.reals()),
        matches!(role, ChirpRole::Store { side } if side.reals()),
        role != ChirpRole::Separate,
    );
    row_chunks::kernel(
        (plan, pass, direction),
        step.comment(threads * points),
        transforms_of(pass).cast(Type::Index),
        work,
        params,
    )
}

/// What the step `role` does, in words.
pub fn step_name(role: ChirpRole) -> &'static str {
    match role {
        ChirpRole::Load { .. } => "the chirped load",
        ChirpRole::Multiply => "the product with the chirp's spectrum",
        ChirpRole::Store { .. } => "the chirped store",
        ChirpRole::Whole { .. } => "Bluestein's algorithm",
        ChirpRole::Separate => "the separation of two rows' half spectra",
    }
}

/// A chirp step of its own over the points of a row: where it reads and
/// writes, and how it scales and conjugates.
struct ChirpStep<'a> {
    pass: &'a Pass,
    chirp: Chirp,
    precision: crate::Precision,
    row: Row,
    conjugate: bool,
    scale: f64,
}

impl<'a> ChirpStep<'a> {
    fn of(plan: &Plan, pass: &'a Pass, direction: Direction) -> ChirpStep<'a> {
        ChirpStep {
            pass,
            chirp: pass.chirp.expect("a chirp pass"),
            precision: plan.precision,
            row: Row::of(plan, pass),
            conjugate: direction == Direction::Inverse,
            scale: output_scale(plan, pass, direction),
        }
    }

    /// What the kernel's comment says it does, `chunk` points a block.
    fn comment(&self, chunk: usize) -> String {
        let Chirp { n, padded, .. } = self.chirp;
        format!(
            "{} of Bluestein's algorithm for N = {n} in rows of {padded}: {chunk} points per block",
            step_name(self.chirp.role)
        )
    }

    /// a * w, or a * conj w for the inverse.
    fn cmul(&self, a: Expr, w: Expr) -> Expr {
        Expr::call(cmul_name(self.conjugate, self.precision), vec![a, w])
    }

    /// Entry `index` of the step's table.
    fn table(&self, index: Expr) -> Expr {
        var(TWIDDLES).at(index)
    }

    /// What a thread does with point `p` of its chunk.
    fn point(&self) -> Vec<Stmt> {
        match self.chirp.role {
            ChirpRole::Whole { .. } => {
                unreachable!(
                    "the invariants give Bluestein's algorithm in one kernel its FFTs' stages"
                )
            }
            ChirpRole::Separate => self.separated(),
            ChirpRole::Load { side } => self.chirped_load(side),
            ChirpRole::Multiply => {
                let p = var("p");
                vec![assign(
                    self.row.target(p.clone()),
                    self.cmul(self.row.load(p.clone()), self.table(p)),
                )]
            }
            ChirpRole::Store { side } => self.chirped_store(side),
        }
    }

    /// Point p (to N / 2) of the two half spectra of the pair of rows
    /// whose spectrum Z the workspace holds (the row read): X[p] = (Z[p] +
    /// conj Z[N - p]) / 2 to this pair's first transform (the row written),
    /// Y[p] = (Z[p] - conj Z[N - p]) / 2i to its second, half the distance
    /// further, where the batch has it; both scaled.
    fn separated(&self) -> Vec<Stmt> {
        let (n, scale, output) = (self.chirp.n, self.scale, self.row.output);
        let access = &self.pass.access;
        let p = var("p");
        let half = Expr::Real(0.5 * scale);
        let pair = var("g").div(uint(access.ffts_per_transform()));
        let has_y = pair
            .mul(uint(2))
            .add(uint(1))
            .lt(var("batch").cast(Type::Index));
        let partner = var("out_base")
            .add(uint(access.output_distance / 2))
            .add(p.clone().mul(uint(access.output_stride)));
        vec![
            let_const(Type::Complex, "a", self.row.load(p.clone())),
            let_const(
                Type::Complex,
                "b",
                self.row.load(Expr::select(
                    uint(0).lt(p.clone()),
                    uint(n).sub(p.clone()),
                    uint(0),
                )),
            ),
            // a + conj b and a - conj b.
            let_const(
                Type::Complex,
                "sum",
                Expr::complex(
                    var("a").re().add(var("b").re()),
                    var("a").im().sub(var("b").im()),
                ),
            ),
            let_const(
                Type::Complex,
                "difference",
                Expr::complex(
                    var("a").re().sub(var("b").re()),
                    var("a").im().add(var("b").im()),
                ),
            ),
            assign(
                self.row.target(p),
                Expr::complex(
                    var("sum").re().mul(half.clone()),
                    var("sum").im().mul(half.clone()),
                ),
            ),
            // (d / 2i) = (d.im, -d.re) / 2.
            Stmt::If(
                has_y,
                vec![assign(
                    var(output).at(partner),
                    Expr::complex(
                        var("difference").im().mul(half.clone()),
                        var("difference").re().neg().mul(half),
                    ),
                )],
            ),
        ]
    }

    /// Point p of the row of M: point p of the axis (`side` as the axis
    /// holds it) times the chirp, zero past the axis's N points.
    fn chirped_load(&self, side: AxisSide) -> Vec<Stmt> {
        let (p, n) = (var("p"), self.chirp.n);
        // Past the axis's N points the row is zero; the loads read
        // point 0 there, so every address is inside the buffer.
        let mut out = vec![
            let_const(Type::Bool, "inside", p.clone().lt(uint(n))),
            let_const(
                Type::Index,
                "j",
                Expr::select(var("inside"), p.clone(), uint(0)),
            ),
        ];
        let value = match side {
            AxisSide::PairedReals | AxisSide::PairedHalfSpectra => {
                unreachable!("the invariants pair rows only on the FFTs of M")
            }
            AxisSide::Complex => self.row.load(var("j")),
            AxisSide::Reals => Expr::complex(self.row.load(var("j")), Expr::Real(0.0)),
            // Above N / 2 the conjugate of the mirror point.
            AxisSide::HalfSpectrum => {
                out.extend([
                    let_const(Type::Bool, "mirrored", uint(n / 2).lt(var("j"))),
                    let_const(
                        Type::Complex,
                        "held",
                        self.row.load(Expr::select(
                            var("mirrored"),
                            uint(n).sub(var("j")),
                            var("j"),
                        )),
                    ),
                ]);
                Expr::complex(
                    var("held").re(),
                    Expr::select(var("mirrored"), var("held").im().neg(), var("held").im()),
                )
            }
        };
        let zero = Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
        out.push(let_const(Type::Complex, "x", value));
        out.push(assign(
            self.row.target(p),
            Expr::select(
                var("inside"),
                self.cmul(var("x"), self.table(var("j"))),
                zero,
            ),
        ));
        out
    }

    /// Point p of the axis (`side` as the axis holds it, scaled): the
    /// second FFT of M's output read backwards (the inverse FFT's) times
    /// the chirp.
    fn chirped_store(&self, side: AxisSide) -> Vec<Stmt> {
        let (p, padded) = (var("p"), self.chirp.padded);
        let y = self.cmul(self.row.load(var("back")), self.table(p.clone()));
        let part = |e: Expr| match self.scale {
            1.0 => e,
            s => e.mul(Expr::Real(s)),
        };
        let store = match side {
            AxisSide::PairedReals | AxisSide::PairedHalfSpectra => {
                unreachable!("the invariants pair rows only on the FFTs of M")
            }
            AxisSide::Reals => assign(self.row.target(p.clone()), part(var("y").re())),
            AxisSide::Complex | AxisSide::HalfSpectrum => assign(
                self.row.target(p.clone()),
                Expr::complex(part(var("y").re()), part(var("y").im())),
            ),
        };
        vec![
            let_const(
                Type::Index,
                "back",
                Expr::select(uint(0).lt(p.clone()), uint(padded).sub(p), uint(0)),
            ),
            let_const(Type::Complex, "y", y),
            store,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_fft_is_the_dft() {
        for len in [1usize, 2, 6, 35, 60, 49] {
            let x: Vec<(f64, f64)> = (0..len)
                .map(|j| ((j as f64).sin(), (j * j) as f64 % 3.0))
                .collect();
            let roots: Vec<(f64, f64)> = (0..len as i64)
                .map(|k| root_of_unity_f64(k, len as i64, -1))
                .collect();
            let fast = host_fft(&x, &roots, 1);
            for (k, &(re, im)) in fast.iter().enumerate() {
                let (mut er, mut ei) = (0.0, 0.0);
                for (j, &(a, b)) in x.iter().enumerate() {
                    let (c, s) = roots[j * k % len];
                    er += a * c - b * s;
                    ei += a * s + b * c;
                }
                assert!(
                    (re - er).abs() < 1e-9 && (im - ei).abs() < 1e-9,
                    "{len} {k}"
                );
            }
        }
    }

    #[test]
    fn the_chirp_reduces_its_exponent_exactly() {
        // j^2 mod 2N: j = N gives j^2 = N^2, and e^(-pi i N) = (-1)^N.
        let c = chirp_values(7);
        assert_eq!(c[0], (1.0, 0.0));
        let (re, im) = c[3];
        let angle = -std::f64::consts::PI * 9.0 / 7.0;
        assert!((re - angle.cos()).abs() < 1e-15 && (im - angle.sin()).abs() < 1e-15);
    }
}
