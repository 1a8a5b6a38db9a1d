//! Lowers the real step of a pass of its own ([`RealEnd::Apart`]): the
//! split of seed 001's real-input FFT (section on real data; seed 000
//! treats the same post-processing) after the complex FFT of M = N / 2,
//! and the matching merge before the inverse one. A real axis too long for
//! one kernel runs its FFT of N / 2 in C2C passes, and this pass joins them
//! to the half spectrum:
//!
//! - R2C, in place on the half spectrum's rows, which hold the FFT's Z[0..M]:
//!   X[k] = ((Z[k] + conj Z[M-k]) - i w^k (Z[k] - conj Z[M-k])) / 2 with
//!   w = w_N = e^(-2 pi i / N) and Z[M] = Z[0] (X[M] included).
//! - C2R, from the half spectrum into the pairs of reals: Z'[k] = (X[k] +
//!   conj X[M-k]) + i conj(w^k) (X[k] - conj X[M-k]), twice Z[k], so the
//!   unnormalised inverse FFT of M gives the N unnormalised reals; the
//!   imaginary parts of X[0] and X[M] are ignored, as numpy's irfft does.
//!
//! Each thread takes pairs k, M - k: one twiddle gives both outputs, and
//! every value it writes is one only it read, so in place is race-free.

use super::ast::{assign, let_const, uint, var, Builtin, Expr, Function, FunctionKind, Stmt, Type};
use super::complex_ops::cmul_name;
use super::key::KernelKey;
use super::stockham::{kernel_params, locate, TWIDDLES};
use crate::plan::{Pass, Plan, RealEnd};
use crate::{Direction, Placement};

/// Whether `pass` is a real step of its own, lowered here.
pub fn is_apart(pass: &Pass) -> bool {
    pass.real.is_some_and(|r| r.end == RealEnd::Apart)
}

/// Lowers the split (forward) or merge (inverse) pass `pass` of `plan`.
pub fn lower_real_split(plan: &Plan, pass: &Pass, direction: Direction) -> Function {
    let step = pass
        .step_twiddle
        .expect("the split's w_N^k come from two tables");
    let placement = match plan.writes_in_place(pass) {
        true => Placement::InPlace,
        false => Placement::OutOfPlace,
    };
    let (input, output) = match placement {
        Placement::InPlace => ("data", "data"),
        Placement::OutOfPlace => ("input", "output"),
    };
    let access = &pass.access;
    let m = pass.n;
    let threads = pass.threads_per_fft;
    let pairs_per_thread = pass.values_per_thread / 2;
    let precision = plan.precision;
    let scale = match pass.normalizes {
        true => plan.normalization.scale(plan.n, direction),
        false => 1.0,
    };
    let scaled = |value: Expr| match scale {
        1.0 => value,
        s => Expr::complex(
            value.clone().re().mul(Expr::Real(s)),
            value.im().mul(Expr::Real(s)),
        ),
    };
    let (s_in, s_out) = (access.input_stride, access.output_stride);
    let load = |index: Expr| var(input).at(var("in_base").add(index.mul(uint(s_in))));
    let store = |index: Expr, value: Expr| {
        assign(
            var(output).at(var("out_base").add(index.mul(uint(s_out)))),
            value,
        )
    };

    let mut body = vec![
        let_const(Type::Uint, "tid", Expr::Builtin(Builtin::ThreadIndex)),
        Stmt::Comment(format!(
            "pairs k, {m} - k of a row; {} pairs per block (column 0: the chunk of the row)",
            threads * pairs_per_thread
        )),
        let_const(
            Type::Index,
            "g",
            Expr::Builtin(Builtin::BlockIndex).cast(Type::Index),
        ),
    ];
    body.extend(locate(access, "g", "in_base", "out_base"));
    let per_transform = access.ffts_per_transform();
    // Every pair's loads first, then the arithmetic and the stores: in
    // place the stores may alias later loads, so loads after a store would
    // wait for it. A thread past the row's last pair loads nothing (a
    // conditional load) and stores nothing.
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    for j in 0..pairs_per_thread {
        let named = |name: &str| var(format!("{name}{j}"));
        let name = |name: &str| format!("{name}{j}");
        let k = var("g_c0")
            .mul(uint(threads * pairs_per_thread))
            .add(uint(j * threads))
            .add(var("tid").cast(Type::Index));
        let kc = named("kc");
        let mirror = match direction {
            // Z[M] is Z[0]: k = 0 gives X[0] and X[M] (w^M = -1).
            Direction::Forward => uint(m).sub(named("k")).rem(uint(m)),
            Direction::Inverse => uint(m).sub(named("k")),
        };
        let zero = Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
        let guarded = |index: Expr| Expr::select(named("v"), load(index), zero.clone());
        // w_N^k from the fine and the coarse table.
        let w = Expr::call(
            cmul_name(false, precision),
            vec![
                var(TWIDDLES).at(uint(step.offset).add(kc.clone().rem(uint(step.split)))),
                var(TWIDDLES)
                    .at(uint(step.offset + step.split).add(kc.clone().div(uint(step.split)))),
            ],
        );
        loads.extend([
            let_const(Type::Index, name("k"), k),
            let_const(Type::Bool, name("v"), named("k").lt(uint(m / 2 + 1))),
            let_const(
                Type::Index,
                name("kc"),
                Expr::select(named("v"), named("k"), uint(0)),
            ),
            let_const(Type::Complex, name("a"), guarded(named("k"))),
            let_const(Type::Complex, name("b"), guarded(mirror)),
            let_const(Type::Complex, name("w"), w),
        ]);
        let (a, b, w, k) = (named("a"), named("b"), named("w"), named("k"));
        // w_N^(M-k) = -conj(w_N^k), for the pair's other output.
        let mut pair = vec![let_const(
            Type::Complex,
            "wm",
            Expr::complex(w.clone().re().neg(), w.clone().im()),
        )];
        match direction {
            Direction::Forward => pair.extend([
                let_const(Type::Complex, "x", split(a.clone(), b.clone(), w)),
                let_const(Type::Complex, "y", split(b, a, var("wm"))),
                store(k.clone(), scaled(var("x"))),
                store(uint(m).sub(k), scaled(var("y"))),
            ]),
            Direction::Inverse => {
                // X[0] and X[M] are real in a Hermitian spectrum.
                let first = k.clone().lt(uint(1));
                pair.extend([
                    let_const(
                        Type::Real,
                        "ai",
                        Expr::select(first.clone(), Expr::Real(0.0), a.clone().im()),
                    ),
                    let_const(
                        Type::Real,
                        "bi",
                        Expr::select(first, Expr::Real(0.0), b.clone().im()),
                    ),
                    store(
                        k.clone(),
                        scaled(merge(
                            a.clone().re(),
                            var("ai"),
                            b.clone().re(),
                            var("bi"),
                            w,
                        )),
                    ),
                    Stmt::If(
                        uint(0).lt(k.clone()),
                        vec![store(
                            uint(m).sub(k),
                            scaled(merge(b.re(), var("bi"), a.re(), var("ai"), var("wm"))),
                        )],
                    ),
                ]);
            }
        }
        stores.push(Stmt::If(named("v"), vec![Stmt::Scope(pair)]));
    }
    let pairs: Vec<Stmt> = loads.into_iter().chain(stores).collect();
    let transform = var("g").div(uint(per_transform));
    body.push(Stmt::If(
        transform.lt(var("batch").cast(Type::Index)),
        pairs,
    ));
    Function {
        kind: FunctionKind::Kernel {
            threads_per_block: pass.threads_per_block,
            min_blocks_per_sm: pass.min_blocks_per_sm,
        },
        name: KernelKey::of(plan, pass, direction).to_string(),
        params: kernel_params(placement, false, false, true),
        body,
    }
}

/// X[k] from `a` = Z[k], `b` = Z[M - k] and `w` = w_N^k:
/// ((a + conj b) - i w (a - conj b)) / 2.
fn split(a: Expr, b: Expr, w: Expr) -> Expr {
    let half = |e: Expr| Expr::Real(0.5).mul(e);
    // a + conj b = (sr, si); a - conj b = (dr, di); -i w d = (wr di + wi dr, wi di - wr dr).
    let sr = a.clone().re().add(b.clone().re());
    let si = a.clone().im().sub(b.clone().im());
    let dr = a.clone().re().sub(b.clone().re());
    let di = a.im().add(b.im());
    Expr::complex(
        half(
            sr.add(w.clone().re().mul(di.clone()))
                .add(w.clone().im().mul(dr.clone())),
        ),
        half(si.add(w.clone().im().mul(di)).sub(w.re().mul(dr))),
    )
}

/// Z'[k] (twice Z[k]) from X[k] = (ar, ai), X[M - k] = (br, bi) and `w` =
/// w_N^k: (X[k] + conj X[M-k]) + i conj(w) (X[k] - conj X[M-k]).
fn merge(ar: Expr, ai: Expr, br: Expr, bi: Expr, w: Expr) -> Expr {
    // d = (dr, di); i conj(w) d = (wi dr - wr di, wr dr + wi di).
    let dr = ar.clone().sub(br.clone());
    let di = ai.clone().add(bi.clone());
    Expr::complex(
        ar.add(br)
            .add(w.clone().im().mul(dr.clone()))
            .sub(w.clone().re().mul(di.clone())),
        ai.sub(bi).add(w.clone().re().mul(dr)).add(w.im().mul(di)),
    )
}
