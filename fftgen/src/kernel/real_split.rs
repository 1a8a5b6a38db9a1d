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
//! Each thread takes pairs k, M - k of its chunk of the row
//! ([`super::row_chunks`]): one twiddle gives both outputs, and every value
//! it writes is one only it read, so in place is race-free.

use super::ast::{assign, let_const, uint, var, Expr, Function, Stmt, Type};
use super::complex_ops::cmul_name;
use super::row_chunks::{self, Row};
use super::signature::{kernel_params, output_scale, TWIDDLES};
use crate::plan::{Pass, Plan, RealEnd, StepTwiddle};
use crate::Direction;

/// Whether `pass` is a real step of its own, lowered here.
pub fn is_apart(pass: &Pass) -> bool {
    pass.real.is_some_and(|r| r.end == RealEnd::Apart)
}

/// Lowers the split (forward) or merge (inverse) pass `pass` of `plan`.
pub fn lower_real_split(plan: &Plan, pass: &Pass, direction: Direction) -> Function {
    let split = RealSplit::of(plan, pass, direction);
    let (threads, pairs_per_thread) = (pass.threads_per_fft, pass.values_per_thread / 2);
    // Every pair's loads first, then the arithmetic and the stores: in
    // place the stores may alias later loads, so loads after a store would
    // wait for it. A thread past the row's last pair loads nothing (a
    // conditional load) and stores nothing.
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    for j in 0..pairs_per_thread {
        let k = row_chunks::point_of_chunk(j, threads, pairs_per_thread);
        loads.extend(split.pair_loads(j, k));
        stores.push(split.pair_stores(j));
    }
    row_chunks::kernel(
        (plan, pass, direction),
        format!(
            "pairs k, {} - k of a row; {} pairs per block (column 0: the chunk of the row)",
            pass.n,
            threads * pairs_per_thread
        ),
        var("batch").cast(Type::Index),
        loads.into_iter().chain(stores).collect(),
        kernel_params(split.row.placement, false, false, true),
    )
}

/// The split or merge of a pass of its own over pairs k, M - k of a row:
/// where it reads and writes, its step twiddle's tables and its scale.
struct RealSplit<'a> {
    pass: &'a Pass,
    step: StepTwiddle,
    direction: Direction,
    precision: crate::Precision,
    row: Row,
    scale: f64,
}

impl<'a> RealSplit<'a> {
    fn of(plan: &Plan, pass: &'a Pass, direction: Direction) -> RealSplit<'a> {
        RealSplit {
            pass,
            step: pass
                .step_twiddle
                .expect("the split's w_N^k come from two tables"),
            direction,
            precision: plan.precision,
            row: Row::of(plan, pass),
            scale: output_scale(plan, pass, direction),
        }
    }

    /// `value` times the pass's scale.
    fn scaled(&self, value: Expr) -> Expr {
        match self.scale {
            1.0 => value,
            s => Expr::complex(
                value.clone().re().mul(Expr::Real(s)),
                value.im().mul(Expr::Real(s)),
            ),
        }
    }

    /// The loads of pair `j` of a thread, k (its point `k`) and M - k
    /// (`a{j}` and `b{j}`, zero past the row's last pair, `v{j}` whether
    /// it is one), and its twiddle w_N^k (`w{j}`) from the fine and the
    /// coarse table.
    fn pair_loads(&self, j: usize, k: Expr) -> Vec<Stmt> {
        let m = self.pass.n;
        let step = self.step;
        let named = |name: &str| var(format!("{name}{j}"));
        let name = |name: &str| format!("{name}{j}");
        let kc = named("kc");
        let mirror = match self.direction {
            // Z[M] is Z[0]: k = 0 gives X[0] and X[M] (w^M = -1).
            Direction::Forward => uint(m).sub(named("k")).rem(uint(m)),
            Direction::Inverse => uint(m).sub(named("k")),
        };
        let zero = Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
        let guarded = |index: Expr| Expr::select(named("v"), self.row.load(index), zero.clone());
        let w = Expr::call(
            cmul_name(false, self.precision),
            vec![
                var(TWIDDLES).at(uint(step.offset).add(kc.clone().rem(uint(step.split)))),
                var(TWIDDLES)
                    .at(uint(step.offset + step.split).add(kc.clone().div(uint(step.split)))),
            ],
        );
        vec![
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
        ]
    }

    /// The arithmetic and the stores of pair `j` of a thread, where it is
    /// one: both outputs of the split (R2C) or of the merge (C2R).
    fn pair_stores(&self, j: usize) -> Stmt {
        let m = self.pass.n;
        let named = |name: &str| var(format!("{name}{j}"));
        let (a, b, w, k) = (named("a"), named("b"), named("w"), named("k"));
        // w_N^(M-k) = -conj(w_N^k), for the pair's other output.
        let mut pair = vec![let_const(
            Type::Complex,
            "wm",
            Expr::complex(w.clone().re().neg(), w.clone().im()),
        )];
        let store = |index: Expr, value: Expr| assign(self.row.target(index), value);
        match self.direction {
            Direction::Forward => {
                let mut low = split(a.clone(), b.clone(), w);
                low.push(store(k.clone(), self.scaled(var("x"))));
                let mut high = split(b, a, var("wm"));
                high.push(store(uint(m).sub(k), self.scaled(var("x"))));
                pair.extend([Stmt::Scope(low), Stmt::Scope(high)]);
            }
            Direction::Inverse => {
                // The merge is never the last pass (the FFT of N / 2
                // follows): nothing to scale.
                // X[0] and X[M] are real in a Hermitian spectrum.
                let first = k.clone().lt(uint(1));
                let mut low = vec![
                    let_const(Type::Complex, "a", a.clone()),
                    let_const(Type::Complex, "b", b.clone()),
                    let_const(Type::Complex, "w", w),
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
                ];
                low.extend(merge(self.row.target(k.clone())));
                let mut high = vec![
                    let_const(Type::Complex, "a", b.clone()),
                    let_const(Type::Complex, "b", a.clone()),
                    let_const(Type::Complex, "w", var("wm")),
                    let_const(Type::Real, "ai", b.im()),
                    let_const(Type::Real, "bi", a.im()),
                ];
                high.extend(merge(self.row.target(uint(m).sub(k.clone()))));
                pair.extend([
                    Stmt::Scope(low),
                    Stmt::If(uint(0).lt(k), vec![Stmt::Scope(high)]),
                ]);
            }
        }
        Stmt::If(named("v"), vec![Stmt::Scope(pair)])
    }
}

/// The R2C split of a half-length FFT's outputs `a` = Z[k] and `b` =
/// Z[M - k] with `w` = w_N^k into `x` = X[k]:
/// X[k] = ((a + conj b) - i w (a - conj b)) / 2.
pub(super) fn split(a: Expr, b: Expr, w: Expr) -> Vec<Stmt> {
    let half = |e: Expr| Expr::Real(0.5).mul(e);
    // a + conj b = (sr, si); a - conj b = (dr, di).
    vec![
        let_const(Type::Complex, "a", a),
        let_const(Type::Complex, "b", b),
        let_const(Type::Complex, "w", w),
        let_const(Type::Real, "sr", var("a").re().add(var("b").re())),
        let_const(Type::Real, "si", var("a").im().sub(var("b").im())),
        let_const(Type::Real, "dr", var("a").re().sub(var("b").re())),
        let_const(Type::Real, "di", var("a").im().add(var("b").im())),
        // -i w d = (wr di + wi dr, wi di - wr dr).
        let_const(
            Type::Complex,
            "x",
            Expr::complex(
                half(
                    var("sr")
                        .add(var("w").re().mul(var("di")))
                        .add(var("w").im().mul(var("dr"))),
                ),
                half(
                    var("si")
                        .add(var("w").im().mul(var("di")))
                        .sub(var("w").re().mul(var("dr"))),
                ),
            ),
        ),
    ]
}

/// The C2R merge into `target` of Z'[k] (twice Z[k]) from `a` = X[k], `b`
/// = X[M - k], `w` = w_N^k and the imaginary parts `ai`, `bi` to use
/// (0 for X[0] and X[M]), all declared before:
/// (X[k] + conj X[M-k]) + i conj(w) (X[k] - conj X[M-k]).
pub(super) fn merge(target: Expr) -> Vec<Stmt> {
    let mut out = merge_parts();
    out.push(assign(target, merged()));
    out
}

/// The differences the merge needs (`dr`, `di`), from `a`, `b`, `ai` and
/// `bi` declared before.
fn merge_parts() -> Vec<Stmt> {
    vec![
        let_const(Type::Real, "dr", var("a").re().sub(var("b").re())),
        let_const(Type::Real, "di", var("ai").add(var("bi"))),
    ]
}

/// The merge of [`merge`] as a value: the statements that declare its
/// differences, and the merged value that uses them.
pub(super) fn merged_with_parts() -> (Vec<Stmt>, Expr) {
    (merge_parts(), merged())
}

/// The merged value (X[k] + conj X[M-k]) + i conj(w) (X[k] - conj X[M-k])
/// from `a`, `b`, `w`, `ai`, `bi`, `dr` and `di` declared before.
fn merged() -> Expr {
    // i conj(w) d = (wi dr - wr di, wr dr + wi di).
    Expr::complex(
        var("a")
            .re()
            .add(var("b").re())
            .add(var("w").im().mul(var("dr")))
            .sub(var("w").re().mul(var("di"))),
        var("ai")
            .sub(var("bi"))
            .add(var("w").re().mul(var("dr")))
            .add(var("w").im().mul(var("di"))),
    )
}
