//! Lowers the chirp steps of Bluestein's algorithm ([`crate::plan::bluestein`])
//! into kernels, and computes their tables: the chirp c[j] = e^(-pi i j^2 / N)
//! (j^2 reduced mod 2N in integers, then one f64 root rounded once), and the
//! chirp's spectrum B = FFT_M(conj c) / M, from an f64 FFT on the host.
//!
//! Each block takes a chunk of `T * V` consecutive points of one row
//! (column 0 of the pass's access), each thread every T-th of them, so a
//! warp's accesses are consecutive along the row at both ends.

use super::ast::{assign, let_const, uint, var, Builtin, Expr, Function, FunctionKind, Stmt, Type};
use super::complex_ops::cmul_name;
use super::key::KernelKey;
use super::signature::{kernel_params, locate, transforms_of, TWIDDLES};
use crate::expr::constant::root_of_unity_f64;
use crate::plan::{AxisSide, Chirp, ChirpRole, Pass, Plan};
use crate::{Direction, Placement};

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

/// Lowers the chirp pass `pass` of `plan` in `direction`.
pub fn lower_chirp(plan: &Plan, pass: &Pass, direction: Direction) -> Function {
    let chirp = pass.chirp.expect("a chirp pass");
    let in_place = plan.writes_in_place(pass);
    let (input, output) = match in_place {
        true => ("data", "data"),
        false => ("input", "output"),
    };
    let real_input = matches!(chirp.role, ChirpRole::Load { side } if side.reals());
    let real_output = matches!(chirp.role, ChirpRole::Store { side } if side.reals());
    let access = &pass.access;
    let (threads, points) = (pass.threads_per_fft, pass.values_per_thread);
    let (n, padded) = (chirp.n, chirp.padded);
    let conjugate = direction == Direction::Inverse;
    let cmul = |a: Expr, w: Expr| Expr::call(cmul_name(conjugate, plan.precision), vec![a, w]);
    let table = |index: Expr| var(TWIDDLES).at(index);
    let load =
        |index: Expr| var(input).at(var("in_base").add(index.mul(uint(access.input_stride))));
    let target =
        |index: Expr| var(output).at(var("out_base").add(index.mul(uint(access.output_stride))));
    let zero = || Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
    let scale = match pass.normalizes {
        true => plan
            .normalization
            .scale(plan.normalized_points(), direction),
        false => 1.0,
    };

    let (_, written) = chirp.side_points();
    let mut per_point: Vec<Stmt> = Vec::new();
    let p = var("p");
    match chirp.role {
        ChirpRole::Whole { .. } => {
            unreachable!("the invariants give Bluestein's algorithm in one kernel its FFTs' stages")
        }
        ChirpRole::Separate => {
            per_point.extend(separated(pass, n, (&load, &target), (output, scale)))
        }
        ChirpRole::Load { side } => {
            // Past the axis's N points the row is zero; the loads read
            // point 0 there, so every address is inside the buffer.
            per_point.push(let_const(Type::Bool, "inside", p.clone().lt(uint(n))));
            per_point.push(let_const(
                Type::Index,
                "j",
                Expr::select(var("inside"), p.clone(), uint(0)),
            ));
            let value = match side {
                AxisSide::PairedReals | AxisSide::PairedHalfSpectra => {
                    unreachable!("the invariants pair rows only on the FFTs of M")
                }
                AxisSide::Complex => load(var("j")),
                AxisSide::Reals => Expr::complex(
                    var(input).at(var("in_base").add(var("j").mul(uint(access.input_stride)))),
                    Expr::Real(0.0),
                ),
                // Above N / 2 the conjugate of the mirror point.
                AxisSide::HalfSpectrum => {
                    per_point.extend([
                        let_const(Type::Bool, "mirrored", uint(n / 2).lt(var("j"))),
                        let_const(
                            Type::Complex,
                            "held",
                            load(Expr::select(
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
            per_point.push(let_const(Type::Complex, "x", value));
            per_point.push(assign(
                target(p.clone()),
                Expr::select(var("inside"), cmul(var("x"), table(var("j"))), zero()),
            ));
        }
        ChirpRole::Multiply => {
            per_point.push(assign(
                target(p.clone()),
                cmul(load(p.clone()), table(p.clone())),
            ));
        }
        ChirpRole::Store { side } => {
            // The second FFT's output read backwards is the inverse FFT's.
            per_point.push(let_const(
                Type::Index,
                "back",
                Expr::select(uint(0).lt(p.clone()), uint(padded).sub(p.clone()), uint(0)),
            ));
            let y = cmul(load(var("back")), table(p.clone()));
            per_point.push(let_const(Type::Complex, "y", y));
            let part = |e: Expr| match scale {
                1.0 => e,
                s => e.mul(Expr::Real(s)),
            };
            per_point.push(match side {
                AxisSide::PairedReals | AxisSide::PairedHalfSpectra => {
                    unreachable!("the invariants pair rows only on the FFTs of M")
                }
                AxisSide::Reals => assign(target(p.clone()), part(var("y").re())),
                AxisSide::Complex | AxisSide::HalfSpectrum => assign(
                    target(p.clone()),
                    Expr::complex(part(var("y").re()), part(var("y").im())),
                ),
            });
        }
    }

    let mut body = vec![
        let_const(Type::Uint, "tid", Expr::Builtin(Builtin::ThreadIndex)),
        Stmt::Comment(format!(
            "{} of Bluestein's algorithm for N = {n} in rows of {padded}: {} points per block",
            match chirp.role {
                ChirpRole::Load { .. } => "the chirped load",
                ChirpRole::Multiply => "the product with the chirp's spectrum",
                ChirpRole::Store { .. } => "the chirped store",
                ChirpRole::Whole { .. } => "Bluestein's algorithm",
                ChirpRole::Separate => "the separation of two rows' half spectra",
            },
            threads * points
        )),
        let_const(
            Type::Index,
            "g",
            Expr::Builtin(Builtin::BlockIndex).cast(Type::Index),
        ),
    ];
    body.extend(locate(access, "g", "in_base", "out_base"));
    let mut work = Vec::new();
    for i in 0..points {
        let mut point = vec![let_const(
            Type::Index,
            "p",
            var("g_c0")
                .mul(uint(threads * points))
                .add(uint(i * threads))
                .add(var("tid").cast(Type::Index)),
        )];
        point.push(Stmt::If(p.clone().lt(uint(written)), per_point.clone()));
        work.push(Stmt::Scope(point));
    }
    let transform = var("g").div(uint(access.ffts_per_transform()));
    body.push(Stmt::If(
        transform.lt(transforms_of(pass).cast(Type::Index)),
        work,
    ));
    let placement = match in_place {
        true => Placement::InPlace,
        false => Placement::OutOfPlace,
    };
    Function {
        kind: FunctionKind::Kernel {
            threads_per_block: pass.threads_per_block,
            min_blocks_per_sm: pass.min_blocks_per_sm,
        },
        name: KernelKey::of(plan, pass, direction).to_string(),
        params: kernel_params(
            placement,
            real_input,
            real_output,
            chirp.role != ChirpRole::Separate,
        ),
        body,
    }
}

/// Point p (to N / 2) of the two half spectra of the pair of rows whose
/// spectrum Z the workspace holds (`load`, along the row): X[p] = (Z[p] +
/// conj Z[N - p]) / 2 to this pair's first transform (`target`), Y[p] =
/// (Z[p] - conj Z[N - p]) / 2i to its second, half the distance further,
/// where the batch has it; both times `scale`.
fn separated(
    pass: &Pass,
    n: usize,
    (load, target): (&dyn Fn(Expr) -> Expr, &dyn Fn(Expr) -> Expr),
    (output, scale): (&str, f64),
) -> Vec<Stmt> {
    let access = &pass.access;
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
        let_const(Type::Complex, "a", load(p.clone())),
        let_const(
            Type::Complex,
            "b",
            load(Expr::select(
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
            target(p),
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
