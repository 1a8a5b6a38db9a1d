//! The walks of a staged pass: each thread's share of the points of a
//! block's rows copied between global and shared memory, with the real
//! steps that ride on them (paired rows of reals, the merge and split of
//! half spectra, the separation of Bluestein's paired rows, a C2R's real
//! parts).

use super::super::ast::{assign, let_const, uint, var, Builtin, Expr, Stmt, Type};
use super::super::real_split::{merge, split};
use super::super::signature::{batch_strides, TWIDDLES};
use super::{merged_point, mirrored_index, padded, strided, Lowering};
use crate::plan::{AxisSide, Chirp, ChirpRole, LaneLayout, Padding, RealEnd, RealRoute, RealStep};
use crate::{Direction, Precision};

/// A value a load walk reads from global memory ([`Lowering::walk_fetched`]):
/// `value`, of `ty`, where `when` holds (always where it is `None`), else
/// zero.
pub(super) struct Fetch {
    ty: Type,
    value: Expr,
    when: Option<Expr>,
}

impl Fetch {
    pub(super) fn real(value: Expr, when: Option<Expr>) -> Fetch {
        Fetch {
            ty: Type::Real,
            value,
            when,
        }
    }

    pub(super) fn complex(value: Expr, when: Option<Expr>) -> Fetch {
        Fetch {
            ty: Type::Complex,
            value,
            when,
        }
    }

    /// The registers `names` that hold `fetched`, zero until loaded.
    fn declared(fetched: &[Fetch], names: &[String]) -> Vec<Stmt> {
        fetched
            .iter()
            .zip(names)
            .map(|(fetch, name)| Stmt::Let {
                ty: fetch.ty,
                name: name.clone(),
                init: match fetch.ty {
                    Type::Complex => Expr::complex(Expr::Real(0.0), Expr::Real(0.0)),
                    _ => Expr::Real(0.0),
                },
                constant: false,
            })
            .collect()
    }

    /// The loads of `fetched` into `names`.
    fn assigned(fetched: Vec<Fetch>, names: &[String]) -> Vec<Stmt> {
        fetched
            .into_iter()
            .zip(names)
            .map(|(fetch, name)| {
                let load = assign(var(name), fetch.value);
                match fetch.when {
                    Some(when) => Stmt::If(when, vec![load]),
                    None => load,
                }
            })
            .collect()
    }
}

impl Lowering<'_> {
    /// The block's rows, `len` elements each, walked with unit stride: for
    /// each element `k` of row `walk_f` (FFT `walk_g` of the batch, which
    /// starts at `walk_in` and `walk_out`), `copy(k, slot)` with `slot`
    /// its place in shared memory. Consecutive threads take consecutive
    /// elements of a row whatever the lane layout and the strides between
    /// rows, so every row is one coalesced run.
    pub(super) fn walk(&self, len: usize, copy: impl Fn(Expr, Expr) -> Vec<Stmt>) -> Vec<Stmt> {
        self.walk_padded(len, Padding::NONE, copy)
    }

    /// [`Self::walk`] with each FFT's points at their `padding`ed places in
    /// shared memory: where a pass of several axes stages its rows
    /// ([`Self::rows_padding`]), as the dense path's copy places them.
    pub(super) fn walk_padded(
        &self,
        len: usize,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        match self.rows_by_fft() {
            true => self.walk_own_rows(len, padding, copy),
            false => self.walk_across_block(len, padding, copy),
        }
    }

    /// [`Self::walk`] where a warp's lanes share one FFT.
    pub(super) fn walk_own_rows(
        &self,
        len: usize,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        // A warp's lanes share one FFT: each thread walks its own row,
        // k = t, t + T, ..., with no division to find row and element.
        let t = pass.threads_per_fft;
        (0..len.div_ceil(t))
            .map(|i| {
                let k = var("walk_k");
                let mut cond = var("active");
                if (i + 1) * t > len {
                    cond = cond.and(k.clone().lt(uint(len)));
                }
                let mut inner = vec![
                    let_const(Type::Index, "walk_in", var("in_base")),
                    let_const(Type::Index, "walk_out", var("out_base")),
                    let_const(Type::Uint, "walk_f", var("fft_local")),
                ];
                if self.paired() {
                    inner.extend([
                        let_const(Type::Index, "walk_in_y", var("in_base_y")),
                        let_const(Type::Index, "walk_out_y", var("out_base_y")),
                        let_const(Type::Bool, "walk_has_y", var("fft_has_y")),
                    ]);
                }
                inner.extend(copy(k.clone(), var("region").add(padded(k, padding))));
                Stmt::Scope(vec![
                    let_const(Type::Uint, "walk_k", var("t").add(uint(i * t))),
                    Stmt::If(cond, inner),
                ])
            })
            .collect()
    }

    /// [`Self::walk`] where a warp's lanes hold different FFTs: the block's
    /// elements in turn, each locating its row.
    pub(super) fn walk_across_block(
        &self,
        len: usize,
        padding: Padding,
        copy: impl Fn(Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        self.walk_across_block_indexed(len, padding, |_, k, slot| copy(k, slot))
    }

    /// [`Self::walk_across_block`] whose `copy(i, k, slot)` also takes the
    /// thread's element `i` of the walk.
    fn walk_across_block_indexed(
        &self,
        len: usize,
        padding: Padding,
        copy: impl Fn(usize, Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let (m, block) = (pass.ffts_per_block, pass.threads_per_block);
        let count = m * len;
        (0..count.div_ceil(block))
            .map(|i| {
                let mut cond = var("walk_f").lt(var("walk_block_ffts"));
                if (i + 1) * block > count {
                    cond = Self::walk_element(i).lt(uint(count)).and(cond);
                }
                let mut inner = self.walk_locate();
                inner.extend(copy(i, var("walk_k"), self.walk_slot(padding)));
                let mut body = self.walk_element_at(i, len);
                // FFT walk_g of the launch, where the walk locates its FFTs
                // from it or a chirp's separation names it.
                if self.walk_run().is_none() || self.pass.chirp.is_some() {
                    body.push(let_const(
                        Type::Index,
                        "walk_g",
                        Expr::Builtin(Builtin::BlockIndex)
                            .cast(Type::Index)
                            .mul(uint(m))
                            .add(var("walk_f")),
                    ));
                }
                body.push(Stmt::If(cond, inner));
                Stmt::Scope(body)
            })
            .collect()
    }

    /// Whether [`Self::walk_fetched`] loads before it stores: where the
    /// FFT is one stage or holds at most 18 values a thread. Past both,
    /// f64 C2R 667's merged rows (29 x 23 in 255 registers) spilled 108
    /// bytes at sm_90.
    fn loads_in_two_phases(&self) -> bool {
        self.pass.stages.len() == 1 || self.pass.values_per_thread <= 18
    }

    /// How many of a thread's elements a two-phase walk
    /// ([`Self::walk_fetched`]) loads before it stores them: as many as
    /// half the words of the FFT's values hold, which ptxas keeps beside
    /// the walk's indices (all of them at once spilled C2R f64 17's and
    /// 13's merged rows, 52 bytes at sm_90).
    fn fetched_at_once(&self, fetched: &[Fetch]) -> usize {
        let complex_words = self.plan.precision.complex_bytes() / 4;
        let words: usize = fetched
            .iter()
            .map(|f| match f.ty {
                Type::Complex => complex_words,
                _ => complex_words / 2,
            })
            .sum();
        (self.pass.values_per_thread * complex_words / 2 / words.max(1)).max(1)
    }

    /// The rows of the block's FFTs' run of the batch, where its FFTs are
    /// one ([`batch_strides`]): the strides between them, and the rows an
    /// FFT holds (two where it pairs them).
    fn walk_run(&self) -> Option<(usize, usize, usize)> {
        let (input, output) = batch_strides(&self.pass.access)?;
        let rows = if self.paired() { 2 } else { 1 };
        // A block's offsets stay in 32 bits.
        let span = self.pass.ffts_per_block * rows * input.max(output);
        (span < u32::MAX as usize && !self.rows_by_fft()).then_some((input, output, rows))
    }

    /// Where the block's first FFT starts in the input and the output
    /// (`walk_in_block`, `walk_out_block`), once a kernel, where the
    /// walk's FFTs are one run of the batch ([`Self::walk_run`]).
    pub(super) fn walk_block_starts(&self) -> Vec<Stmt> {
        let Some((input, output, rows)) = self.walk_run() else {
            return Vec::new();
        };
        let access = &self.pass.access;
        let block = Expr::Builtin(Builtin::BlockIndex).cast(Type::Index);
        let first_row = block.mul(uint(self.pass.ffts_per_block * rows));
        vec![
            let_const(
                Type::Index,
                "walk_in_block",
                uint(access.input_offset).add(first_row.clone().mul(uint(input))),
            ),
            let_const(
                Type::Index,
                "walk_out_block",
                uint(access.output_offset).add(first_row.mul(uint(output))),
            ),
        ]
    }

    /// Where the walk's FFT `walk_f` of the block starts (`walk_in`,
    /// `walk_out`; for paired rows `walk_in_y`, `walk_out_y` and
    /// `walk_has_y` as [`Self::locate_rows`] has them): from the block's
    /// starts by 32-bit offsets where its FFTs are one run of the batch,
    /// else from FFT `walk_g` of the launch.
    fn walk_locate(&self) -> Vec<Stmt> {
        let Some((input, output, rows)) = self.walk_run() else {
            return self.locate_rows("walk_g", ("walk_in", "walk_out"), "walk_has_y");
        };
        let start = |block: &str, stride: usize| {
            var(block).add(var("walk_f").mul(uint(rows * stride)).cast(Type::Index))
        };
        let mut out = vec![
            let_const(Type::Index, "walk_in", start("walk_in_block", input)),
            let_const(Type::Index, "walk_out", start("walk_out_block", output)),
        ];
        if rows == 2 {
            let has_y = var("walk_f")
                .mul(uint(2))
                .add(uint(1))
                .lt(var("block_rows"));
            out.push(let_const(Type::Bool, "walk_has_y", has_y));
            for (name, stride) in [("walk_in", input), ("walk_out", output)] {
                out.push(let_const(
                    Type::Index,
                    format!("{name}_y"),
                    Expr::select(var("walk_has_y"), var(name).add(uint(stride)), var(name)),
                ));
            }
        }
        out
    }

    /// Element `i` of this thread's share of the block's walk (`e{i}`).
    fn walk_element(i: usize) -> Expr {
        var(format!("e{i}"))
    }

    /// Element `i` of the walk over rows of `len`: `e{i}`, its FFT of the
    /// block `walk_f` and its point `walk_k`.
    fn walk_element_at(&self, i: usize, len: usize) -> Vec<Stmt> {
        let e = Self::walk_element(i);
        vec![
            let_const(
                Type::Uint,
                format!("e{i}"),
                var("tid").add(uint(i * self.pass.threads_per_block)),
            ),
            let_const(Type::Uint, "walk_f", e.clone().div(uint(len))),
            let_const(Type::Uint, "walk_k", e.rem(uint(len))),
        ]
    }

    /// Where point `walk_k` of the block's FFT `walk_f` lives in shared
    /// memory, laid out by `padding`.
    fn walk_slot(&self, padding: Padding) -> Expr {
        var("walk_f")
            .mul(uint(self.pass.fft_stride))
            .add(padded(var("walk_k"), padding))
    }

    /// A walk that fills shared memory from global memory: `fetch(k)`
    /// gives the values point `k` of the walk's row(s) reads, where its
    /// row is located, and `place(k, slot, values)` puts them in shared
    /// memory. Where a warp's lanes hold different FFTs the walk runs in
    /// two phases, every load of the thread first, into registers, then
    /// every store to shared memory: a store waits for its load, so loads
    /// between stores would each wait for the one before (H200, R2C f64
    /// 17: 71% -> 96% of the copy, 31 36% -> 78%,
    /// docs/bench/h200_walk_kernels.log).
    pub(super) fn walk_fetched(
        &self,
        len: usize,
        padding: Padding,
        fetch: impl Fn(Expr) -> Vec<Fetch>,
        place: impl Fn(Expr, Expr, &[Expr]) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        if self.rows_by_fft() || !self.loads_in_two_phases() {
            return self.walk_padded(len, padding, |k, slot| {
                let fetched = fetch(k.clone());
                let names: Vec<String> = (0..fetched.len()).map(|j| format!("walk_v{j}")).collect();
                let mut out = Fetch::declared(&fetched, &names);
                out.extend(Fetch::assigned(fetched, &names));
                out.extend(place(k, slot, &names.iter().map(var).collect::<Vec<_>>()));
                out
            });
        }
        let pass = self.pass;
        let count = pass.ffts_per_block * len;
        let elements = count.div_ceil(pass.threads_per_block);
        let names = |i: usize, values: usize| -> Vec<String> {
            (0..values).map(|j| format!("walk_v{i}_{j}")).collect()
        };
        let fetched = fetch(var("walk_k"));
        let values = fetched.len();
        let group = self.fetched_at_once(&fetched);
        let loads = self.walk_across_block_indexed(len, padding, |i, k, _| {
            Fetch::assigned(fetch(k), &names(i, values))
        });
        let stores: Vec<Stmt> = (0..elements)
            .map(|i| {
                let fetched: Vec<Expr> = names(i, values).iter().map(var).collect();
                let placed = place(var("walk_k"), self.walk_slot(padding), &fetched);
                let mut scope = self.walk_element_at(i, len);
                match (i + 1) * pass.threads_per_block > count {
                    true => scope.push(Stmt::If(Self::walk_element(i).lt(uint(count)), placed)),
                    false => scope.extend(placed),
                }
                Stmt::Scope(scope)
            })
            .collect();
        Self::in_groups(group, &loads, &stores, |i| {
            Fetch::declared(&fetched, &names(i, values))
        })
    }

    /// A two-phase walk's elements' `loads` and `stores`, `group` loads
    /// at a time before their stores, each group's registers declared
    /// (`declared(i)` for element i) in its scope.
    fn in_groups(
        group: usize,
        loads: &[Stmt],
        stores: &[Stmt],
        declared: impl Fn(usize) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        (0..loads.len())
            .step_by(group)
            .zip(loads.chunks(group).zip(stores.chunks(group)))
            .map(|(first, (loads, stores))| {
                let mut scope: Vec<Stmt> =
                    (first..first + loads.len()).flat_map(&declared).collect();
                scope.extend_from_slice(loads);
                scope.extend_from_slice(stores);
                Stmt::Scope(scope)
            })
            .collect()
    }

    /// Whether an R2C's paired rows of reals follow each other with unit
    /// stride, so the block's rows are one run ([`Self::walk_pairs`]), in
    /// an FFT of at most two stages. Measured on an H100 (R2C, cuFFT/ours):
    /// 13 0.81 -> 0.98, 15 0.89 -> 0.95, 63 0.89 -> 0.94, 99 0.98 -> 1.11,
    /// 375 1.66 -> 1.78, 35 and 45 2% slower; 275 (three stages over 25
    /// threads) lost 17%, not profiled. Stores stay row by row: a run's
    /// store of the half spectra needs both rows' values, and lost 5-20%
    /// (C2R's real parts 5-15%). f32 only: in f64 the walk ran fast (R2C
    /// 17 0.58 -> 0.97x, 31 0.58 -> 1.23x) but ptxas spilled past the
    /// suite's limit for sm_90 (225: 36 bytes, 13: 40, 23: 44), and the
    /// form that did not spill (the load in a select) ran at a fifth of
    /// the speed (f32 13 0.98 -> 0.57x, f64 17 0.97 -> 0.26x).
    pub(super) fn paired_reals_in_one_run(&self) -> bool {
        // Odd N: X[0] alone is its own mirror (merged_staged_point).
        self.paired()
            && self.plan.precision == Precision::F32
            && self.pass.n % 2 == 1
            && self.pass.stages.len() <= 2
            && self.direction == Direction::Forward
            && !self.rows_by_fft()
            && self.pass.access.input_is_dense(self.pass.n)
    }

    /// Whether a C2R's paired rows read their half spectra as one run
    /// ([`Self::paired_half_spectra_run_walk`]): as the R2C's reals
    /// ([`Self::paired_reals_in_one_run`]), where each FFT's region holds
    /// both rows' half spectra; the first stage merges them.
    pub(super) fn paired_half_spectra_in_one_run(&self) -> bool {
        let Some(real) = self.c2r() else {
            return false;
        };
        // Odd N: X[0] alone is its own mirror (merged_staged_point).
        self.paired()
            && self.plan.precision == Precision::F32
            && self.pass.n % 2 == 1
            && self.pass.stages.len() <= 2
            && !self.rows_by_fft()
            && self.pass.fft_stride >= 2 * real.half_len()
            && self.pass.access.input_is_dense(real.half_len())
    }

    /// A C2R's paired rows' half spectra X and Y as they are, the block's
    /// rows one run (one coalesced load a thread): FFT f's region holds X
    /// from its start, Y from N / 2 + 1 on (0 past the last row).
    pub(super) fn paired_half_spectra_run_walk(&self, real: RealStep) -> Vec<Stmt> {
        let half = real.half_len();
        if !self.loads_in_two_phases() {
            // C2R 243 (27 x 9) lost 4% in two phases.
            return self.walk_pairs(half, |row_y, exists, at, slot| {
                let zero = Expr::complex(Expr::Real(0.0), Expr::Real(0.0));
                let mut out = vec![
                    Stmt::Let {
                        ty: Type::Complex,
                        name: "v".into(),
                        init: zero,
                        constant: false,
                    },
                    Stmt::If(exists, vec![assign(var("v"), self.input_load(at))]),
                ];
                out.extend(Self::store_shared(
                    slot.add(row_y.mul(uint(half))),
                    var("v").re(),
                    var("v").im(),
                ));
                out
            });
        }
        let fetched = [Fetch::complex(Expr::Real(0.0), None)];
        let name = |i: usize| format!("walk_v{i}");
        // Two phases, as walk_fetched's: H200 cuFFT/ours C2R f32 25 0.94
        // -> 0.98x, 33 2.37 -> 2.47x, 55 1.53 -> 1.57x
        // (docs/bench/h200_walk_kernels.log).
        let loads = self.walk_pairs_indexed(half, |i, _, exists, at, _| {
            vec![Stmt::If(
                exists,
                vec![assign(var(name(i)), self.input_load(at))],
            )]
        });
        let stores = self.walk_pairs_indexed(half, |i, row_y, _, _, slot| {
            Self::store_shared(
                slot.add(row_y.mul(uint(half))),
                var(name(i)).re(),
                var(name(i)).im(),
            )
        });
        Self::in_groups(self.fetched_at_once(&fetched), &loads, &stores, |i| {
            Fetch::declared(&fetched, &[name(i)])
        })
    }

    /// Input `point` of a C2R's FFT of paired rows from their half spectra
    /// staged as they are ([`Self::paired_half_spectra_run_walk`]) into
    /// `target`: Z[p] = X[p] + i Y[p] below N / 2 + 1, conj X[N - p] + i
    /// conj Y[N - p] above (X[0] and Y[0] real, as numpy's irfft has them).
    pub(super) fn merged_staged_point(
        &self,
        real: RealStep,
        point: Expr,
        target: Expr,
    ) -> Vec<Stmt> {
        let (n, half) = (self.pass.n, real.half_len());
        let at = |index: Expr| {
            Expr::complex(
                var("shared_re").at(var("region").add(index.clone())),
                var("shared_im").at(var("region").add(index)),
            )
        };
        let zero = Expr::Real(0.0);
        let low = var("p").lt(uint(half));
        let [p, q] = mirrored_index(point, n, low.clone());
        vec![
            p,
            q,
            let_const(Type::Complex, "a", at(var("q"))),
            let_const(Type::Complex, "b", at(var("q").add(uint(half)))),
            // Odd N: only X[0] and Y[0] are their own mirrors.
            let_const(
                Type::Real,
                "ai",
                Expr::select(uint(0).lt(var("q")), var("a").im(), zero.clone()),
            ),
            let_const(
                Type::Real,
                "bi",
                Expr::select(uint(0).lt(var("q")), var("b").im(), zero),
            ),
            assign(target, merged_point(low, var("a").re(), var("b").re())),
        ]
    }

    /// The block's 2m paired rows of `len` elements as one run with unit
    /// stride (rows 2f and 2f + 1 of the block are FFT f's x and y): for
    /// each element, `copy(row_y, exists, at, slot)` with `row_y` 1 on row
    /// y, `exists` whether its row is in the batch, `at` its index in the
    /// buffer and `slot` its place in FFT f's shared row (`walk_k` holds
    /// its element of the row). One coalesced access a thread, where
    /// [`Self::walk`] takes two half-used ones and locates both rows.
    pub(super) fn walk_pairs(
        &self,
        len: usize,
        copy: impl Fn(Expr, Expr, Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        self.walk_pairs_indexed(len, |_, row_y, exists, at, slot| {
            copy(row_y, exists, at, slot)
        })
    }

    /// [`Self::walk_pairs`] whose `copy` also takes the thread's element
    /// `i` of the walk.
    fn walk_pairs_indexed(
        &self,
        len: usize,
        copy: impl Fn(usize, Expr, Expr, Expr, Expr) -> Vec<Stmt>,
    ) -> Vec<Stmt> {
        let pass = self.pass;
        let (rows, block) = (2 * pass.ffts_per_block, pass.threads_per_block);
        let count = rows * len;
        let start = Expr::Builtin(Builtin::BlockIndex)
            .cast(Type::Index)
            .mul(uint(count));
        (0..count.div_ceil(block))
            .map(|i| {
                let e = var(format!("e{i}"));
                let row = var("walk_row");
                let slot = row
                    .clone()
                    .div(uint(2))
                    .mul(uint(pass.fft_stride))
                    .add(var("walk_k"));
                let mut inner = vec![
                    let_const(Type::Uint, "walk_row", e.clone().div(uint(len))),
                    let_const(Type::Uint, "walk_k", e.clone().rem(uint(len))),
                ];
                inner.extend(copy(
                    i,
                    row.clone().rem(uint(2)),
                    row.lt(var("block_rows")),
                    start.clone().add(e.clone()),
                    slot,
                ));
                let mut body = vec![let_const(
                    Type::Uint,
                    format!("e{i}"),
                    var("tid").add(uint(i * block)),
                )];
                match (i + 1) * block > count {
                    true => body.push(Stmt::If(e.lt(uint(count)), inner)),
                    false => body.extend(inner),
                }
                Stmt::Scope(body)
            })
            .collect()
    }

    /// Whether the rows of a real step's staged ends are walked FFT by FFT
    /// (a warp's lanes in one FFT) rather than across the block's rows.
    pub(super) fn rows_by_fft(&self) -> bool {
        self.pass.real.is_some_and(|r| r.end == RealEnd::Both)
            && self.pass.lanes == LaneLayout::FftMajor
    }

    /// The walk that fills shared memory: whole rows of the input (for a
    /// C2R the half spectrum, N / 2 + 1 values; for paired rows the two
    /// rows' reals as real and imaginary parts, or their half spectra
    /// merged into the whole spectrum of N, Z = X + i Y).
    pub(super) fn walk_load(&self) -> Vec<Stmt> {
        if let Some((fused, rows)) = self.whole_real_shape() {
            return match self.direction {
                Direction::Forward => self.whole_shape_reals_walk(fused, rows),
                Direction::Inverse => self.whole_shape_merge_walk(fused, rows),
            };
        }
        match self.c2r() {
            _ if self.paired() && self.direction == Direction::Forward => {
                match self.paired_reals_in_one_run() {
                    true => self.paired_reals_run_walk(),
                    false => self.paired_reals_walk(),
                }
            }
            Some(real) if self.paired_half_spectra_in_one_run() => {
                self.paired_half_spectra_run_walk(real)
            }
            Some(real) if self.paired() => self.merged_rows_walk(real),
            Some(real) => self.values_load_walk(real.half_len()),
            None => self.values_load_walk(self.pass.n),
        }
    }

    /// Point `k` of the walk's row at `base` (`walk_in` or `walk_in_y`), on
    /// the input's stride.
    pub(super) fn walk_in(&self, base: &str, k: Expr) -> Expr {
        var(base).add(strided(k, self.pass.access.input_stride))
    }

    /// `y`, of type `ty`: `value` where the walk has a second row, else
    /// `zero` (past the last row).
    pub(super) fn row_y(value: Expr, ty: Type, zero: Expr) -> Vec<Stmt> {
        vec![
            Stmt::Let {
                ty,
                name: "y".into(),
                init: zero,
                constant: false,
            },
            Stmt::If(var("walk_has_y"), vec![assign(var("y"), value)]),
        ]
    }

    /// Stores `re` and `im` at `slot` of shared memory.
    pub(super) fn store_shared(slot: Expr, re: Expr, im: Expr) -> Vec<Stmt> {
        vec![
            assign(var("shared_re").at(slot.clone()), re),
            assign(var("shared_im").at(slot), im),
        ]
    }

    /// Paired R2C rows read as one run: row x's reals the real parts, row
    /// y's the imaginary (0 past the last row).
    pub(super) fn paired_reals_run_walk(&self) -> Vec<Stmt> {
        let input = self.buffers.input;
        self.walk_pairs(self.pass.n, |row_y, exists, at, slot| {
            let value = self.real_load(input, self.real_input, at);
            vec![
                Stmt::Let {
                    ty: Type::Real,
                    name: "v".into(),
                    init: Expr::Real(0.0),
                    constant: false,
                },
                Stmt::If(exists, vec![assign(var("v"), value)]),
                // Row x's reals to the real parts, row y's to the
                // imaginary: one store through the part's array, where two
                // guarded stores diverge within a warp.
                assign(
                    Expr::select(uint(0).lt(row_y), var("shared_im"), var("shared_re")).at(slot),
                    var("v"),
                ),
            ]
        })
    }

    /// Paired R2C rows read row by row, point by point: row x's reals the
    /// real parts, row y's the imaginary.
    pub(super) fn paired_reals_walk(&self) -> Vec<Stmt> {
        let input = self.buffers.input;
        self.walk_fetched(
            self.pass.n,
            Padding::NONE,
            |k| {
                let load =
                    |base| self.real_load(input, self.real_input, self.walk_in(base, k.clone()));
                vec![
                    Fetch::real(load("walk_in"), None),
                    Fetch::real(load("walk_in_y"), Some(var("walk_has_y"))),
                ]
            },
            |_, slot, values| Self::store_shared(slot, values[0].clone(), values[1].clone()),
        )
    }

    /// Paired C2R rows: two rows' half spectra X and Y merged into Z[k] =
    /// X[k] + i Y[k] and its mirror Z[N - k] = conj X[k] + i conj Y[k].
    pub(super) fn merged_rows_walk(&self, real: RealStep) -> Vec<Stmt> {
        let n = self.pass.n;
        self.walk_fetched(
            real.half_len(),
            Padding::NONE,
            |k| {
                let load = |base| self.input_load(self.walk_in(base, k.clone()));
                vec![
                    Fetch::complex(load("walk_in"), None),
                    Fetch::complex(load("walk_in_y"), Some(var("walk_has_y"))),
                ]
            },
            |k, slot, values| {
                let mut out = vec![
                    let_const(Type::Complex, "a", values[0].clone()),
                    let_const(Type::Complex, "y", values[1].clone()),
                ];
                // X[0] (and X[N / 2] of an even N) are real in a Hermitian
                // spectrum, their own mirrors: their imaginary parts are
                // ignored, as numpy's irfft does.
                let mirrored = uint(0)
                    .lt(k.clone())
                    .and(k.clone().mul(uint(2)).lt(uint(n)));
                out.extend([
                    let_const(Type::Bool, "mirrored", mirrored),
                    let_const(
                        Type::Real,
                        "ai",
                        Expr::select(var("mirrored"), var("a").im(), Expr::Real(0.0)),
                    ),
                    let_const(
                        Type::Real,
                        "bi",
                        Expr::select(var("mirrored"), var("y").im(), Expr::Real(0.0)),
                    ),
                ]);
                // Z[k] = X[k] + i Y[k], Z[N - k] = conj X[k] + i conj Y[k].
                out.extend(Self::store_shared(
                    slot.clone(),
                    var("a").re().sub(var("bi")),
                    var("ai").add(var("y").re()),
                ));
                let mirror = slot.add(uint(n)).sub(k.mul(uint(2)));
                out.push(Stmt::If(
                    var("mirrored"),
                    Self::store_shared(
                        mirror,
                        var("a").re().add(var("bi")),
                        var("y").re().sub(var("ai")),
                    ),
                ));
                out
            },
        )
    }

    /// The first `len` values of each FFT (a C2R's half spectrum, else all
    /// of them) as they are, at the places a pass of several axes stages
    /// its rows. In f64, loaded in two phases where [`Self::walk_fetched`]
    /// does: in one, ptxas branched around each load (a load then its
    /// store, ten times over) once the walks' indices spilled no more, and
    /// R2C f64 100 fell from 0.94x cuFFT to 0.73x; in two it ran 0.95x.
    /// In f32 one phase: two lost 2-5% (C2R 21, 27 and 100) and spilled
    /// 52 bytes at C2R 100 (docs/bench/h200_ab_walks_32bit{,_2}.log).
    pub(super) fn values_load_walk(&self, len: usize) -> Vec<Stmt> {
        let load = |k: Expr| self.input_load(self.walk_in("walk_in", k));
        if self.plan.precision == Precision::F64 {
            return self.walk_fetched(
                len,
                self.rows_padding(),
                |k| vec![Fetch::complex(load(k), None)],
                |_, slot, values| {
                    Self::store_shared(slot, values[0].clone().re(), values[0].clone().im())
                },
            );
        }
        self.walk_padded(len, self.rows_padding(), |k, slot| {
            let mut out = vec![let_const(Type::Complex, "x", load(k))];
            out.extend(Self::store_shared(slot, var("x").re(), var("x").im()));
            out
        })
    }

    /// The walk that empties shared memory (the FFTs' outputs in natural
    /// order) to the output: for an R2C the half spectrum, split from the
    /// half-length FFT's Z[k] and Z[M - k] or separated into two rows' from
    /// paired rows' Z[k] and Z[N - k]; for a C2R of paired rows the real
    /// and imaginary parts; else the values as they are.
    pub(super) fn walk_store(&self) -> Vec<Stmt> {
        if let Some(chirp) = self.pass.chirp.filter(|c| {
            c.role
                == ChirpRole::Store {
                    side: AxisSide::PairedHalfSpectra,
                }
        }) {
            return self.separated_chirp_walk(chirp);
        }
        if let Some((fused, rows)) = self.whole_real_shape() {
            return match self.direction {
                Direction::Forward => self.whole_shape_separate_walk(fused, rows),
                Direction::Inverse => self.whole_shape_real_parts_walk(fused, rows),
            };
        }
        match (self.r2c(), self.c2r()) {
            (Some(real), _) if real.route == RealRoute::HalfLength && self.rows_by_fft() => {
                self.split_by_pairs_walk(real)
            }
            (Some(real), _) if real.route == RealRoute::HalfLength => self.split_walk(real),
            (Some(real), _) => self.separated_rows_walk(real),
            (_, Some(real)) if real.route == RealRoute::PairedRows => {
                match self.paired_real_parts_in_one_run() {
                    true => self.paired_real_parts_run_walk(),
                    false => self.paired_real_parts_walk(),
                }
            }
            _ => self.values_walk(),
        }
    }

    /// Value `index` of the walk's FFT `walk_f` in shared memory.
    pub(super) fn walk_shared(&self, index: Expr) -> Expr {
        let at = var("walk_f").mul(uint(self.pass.fft_stride)).add(index);
        Expr::complex(var("shared_re").at(at.clone()), var("shared_im").at(at))
    }

    /// The half-length split walked by pairs: Z[k] and Z[M - k] give X[k]
    /// and X[M - k] (w_N^(M - k) = -conj w_N^k), one twiddle and two shared
    /// loads for two outputs.
    pub(super) fn split_by_pairs_walk(&self, real: RealStep) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let shared = |index: Expr| self.walk_shared(index);
        let offset = real
            .twiddle_offset
            .expect("a half-length step has its twiddles");
        self.walk(n / 2 + 1, |k, _| {
            let mirror = Expr::select(uint(0).lt(k.clone()), uint(n).sub(k.clone()), uint(0));
            let loads = vec![
                let_const(Type::Complex, "zk", shared(k.clone())),
                let_const(Type::Complex, "zm", shared(mirror)),
                let_const(
                    Type::Complex,
                    "wk",
                    var(TWIDDLES).at(uint(offset).add(k.clone())),
                ),
            ];
            let mut low = split(var("zk"), var("zm"), var("wk"));
            low.push(assign(
                self.output_element(at(k.clone())),
                self.scaled(var("x")),
            ));
            let mut high = split(
                var("zm"),
                var("zk"),
                Expr::complex(var("wk").re().neg(), var("wk").im()),
            );
            high.push(assign(
                self.output_element(at(uint(n).sub(k))),
                self.scaled(var("x")),
            ));
            let mut out = loads;
            out.extend([Stmt::Scope(low), Stmt::Scope(high)]);
            out
        })
    }

    /// The half-length split walked value by value: X[k] from Z[k] and
    /// Z[M - k].
    pub(super) fn split_walk(&self, real: RealStep) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let shared = |index: Expr| self.walk_shared(index);
        let offset = real
            .twiddle_offset
            .expect("a half-length step has its twiddles");
        self.walk(real.half_len(), |k, _| {
            let mut out = split(
                shared(k.clone().rem(uint(n))),
                shared(uint(n).sub(k.clone()).rem(uint(n))),
                var(TWIDDLES).at(uint(offset).add(k.clone())),
            );
            out.push(assign(self.output_element(at(k)), self.scaled(var("x"))));
            out
        })
    }

    /// Paired rows' half spectra: Z[k] and Z[N - k] give the rows' X[k] =
    /// (Z[k] + conj Z[N - k]) / 2 and Y[k] = (Z[k] - conj Z[N - k]) / 2i.
    pub(super) fn separated_rows_walk(&self, real: RealStep) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let at_y = |k: Expr| var("walk_out_y").add(strided(k, stride));
        self.walk(real.half_len(), |k, slot| {
            let staged = |slot: Expr| {
                Expr::complex(var("shared_re").at(slot.clone()), var("shared_im").at(slot))
            };
            let mirror = Expr::select(
                uint(0).lt(k.clone()),
                slot.clone().add(uint(n)).sub(k.clone().mul(uint(2))),
                slot.clone(),
            );
            let mut out = vec![
                let_const(Type::Complex, "zk", staged(slot)),
                let_const(Type::Complex, "zm", staged(mirror)),
            ];
            out.extend(self.separated_stores(at(k.clone()), at_y(k)));
            out
        })
    }

    /// The R2C's two half spectra of a pair of transforms from the second
    /// FFT of Bluestein's algorithm in shared memory (one block holds the
    /// row of M): Z[j] = c[j] A[(M - j) mod M] at j = k and (N - k) mod N,
    /// separated into X[k] (transform 2t) and Y[k] (2t + 1, half the
    /// distance further, where the batch has it) for k to N / 2.
    pub(super) fn separated_chirp_walk(&self, chirp: Chirp) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let partner = self.pass.access.output_distance / 2;
        let (n, m) = (chirp.n, chirp.padded);
        let fft = match self.rows_by_fft() {
            true => "fft",
            false => "walk_g",
        };
        self.walk(n / 2 + 1, |k, _| {
            let z = |j: Expr| {
                let back = Expr::select(uint(0).lt(j.clone()), uint(m).sub(j.clone()), uint(0));
                self.chirp_product(self.walk_shared(back), uint(chirp.table_offset).add(j))
            };
            let mirror = Expr::select(uint(0).lt(k.clone()), uint(n).sub(k.clone()), uint(0));
            let at = var("walk_out").add(strided(k.clone(), stride));
            let mut out = vec![
                let_const(Type::Bool, "walk_has_y", self.has_partner(fft)),
                let_const(Type::Complex, "zk", z(k)),
                let_const(Type::Complex, "zm", z(mirror)),
            ];
            out.extend(self.separated_stores(at.clone(), at.add(uint(partner))));
            out
        })
    }

    /// The stores of two rows' X[k] = (Z[k] + conj Z[-k]) / 2 at `x` and,
    /// where the walk has a second row, Y[k] = (Z[k] - conj Z[-k]) / 2i at
    /// `y`, from `zk` and `zm` (Z[k] and Z[-k]), scaled.
    pub(super) fn separated_stores(&self, x: Expr, y: Expr) -> Vec<Stmt> {
        let half = |value: Expr| value.mul(Expr::Real(0.5 * self.scale()));
        let (zk, zm) = (var("zk"), var("zm"));
        vec![
            assign(
                self.output_element(x),
                Expr::complex(
                    half(zk.clone().re().add(zm.clone().re())),
                    half(zk.clone().im().sub(zm.clone().im())),
                ),
            ),
            Stmt::If(
                var("walk_has_y"),
                vec![assign(
                    self.output_element(y),
                    Expr::complex(
                        half(zk.clone().im().add(zm.clone().im())),
                        half(zm.re().sub(zk.re())),
                    ),
                )],
            ),
        ]
    }

    /// Whether a C2R's paired rows store their reals as one run
    /// ([`Self::paired_real_parts_run_walk`]): the output's rows follow
    /// each other with unit stride, the FFT is one stage, and in f32 its
    /// codelet holds at most 18 values (H200, cuFFT/ours C2R: f32 11
    /// 0.81 -> 0.87x, 13 0.82 -> 0.91x, 15 0.95 -> 1.02x; 19 (40 bytes
    /// spilled), 25, 9 (two stages), 99 and 243 lost 2-11%; f64 with the
    /// two-phase walk of merged rows 17 0.87 -> 1.02x, 31 0.71 -> 0.96x,
    /// docs/bench/h200_walk_kernels.log). Past one stage f64 667's rows
    /// (29 x 23 in 255 registers) spilled 44 bytes so.
    pub(super) fn paired_real_parts_in_one_run(&self) -> bool {
        let fits = match self.plan.precision {
            Precision::F64 => true,
            _ => self.pass.values_per_thread <= 18,
        };
        self.paired()
            && self.c2r().is_some()
            && !self.rows_by_fft()
            && self.pass.access.output_is_dense(self.pass.n)
            && self.pass.stages.len() == 1
            && fits
    }

    /// A C2R's paired rows' reals stored as one run with unit stride (rows
    /// 2f and 2f + 1 of the block are FFT f's real and imaginary parts):
    /// one coalesced store a thread, where [`Self::paired_real_parts_walk`]
    /// takes two half-used ones and locates both rows (H200, C2R f32 11:
    /// 81% -> 86% of the copy, docs/bench/h200_walk_kernels.log).
    pub(super) fn paired_real_parts_run_walk(&self) -> Vec<Stmt> {
        let output = self.buffers.output;
        self.walk_pairs(self.pass.n, |row_y, exists, at, slot| {
            let part = Expr::select(uint(0).lt(row_y), var("shared_im"), var("shared_re"));
            let value = self.scaled_real(part.at(slot));
            vec![Stmt::If(
                exists,
                self.real_store(output, self.real_output, at, value),
            )]
        })
    }

    /// A C2R's paired rows: the real parts are row x's, the imaginary row y's.
    pub(super) fn paired_real_parts_walk(&self) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        let at_y = |k: Expr| var("walk_out_y").add(strided(k, stride));
        let output = self.buffers.output;
        self.walk(n, |k, slot| {
            let scaled = |value: Expr| self.scaled_real(value);
            let mut out = self.real_store(
                output,
                self.real_output,
                at(k.clone()),
                scaled(var("shared_re").at(slot.clone())),
            );
            out.push(Stmt::If(
                var("walk_has_y"),
                self.real_store(
                    output,
                    self.real_output,
                    at_y(k),
                    scaled(var("shared_im").at(slot)),
                ),
            ));
            out
        })
    }

    /// The values as they are.
    pub(super) fn values_walk(&self) -> Vec<Stmt> {
        let stride = self.pass.access.output_stride;
        let n = self.pass.n;
        let at = |k: Expr| var("walk_out").add(strided(k, stride));
        self.walk(n, |k, slot| {
            let value = Expr::complex(var("shared_re").at(slot.clone()), var("shared_im").at(slot));
            vec![assign(self.output_element(at(k)), self.scaled(value))]
        })
    }

    /// Input `point` of a half-length C2R's FFT, built from the half
    /// spectrum of this thread's row in shared memory into `target`: the
    /// merge Z'[p] = (X[p] + conj X[M-p]) + i conj(w_N^p) (X[p] - conj
    /// X[M-p]) (twice Z[p], so the inverse needs no scale).
    pub(super) fn c2r_point(&self, real: RealStep, point: Expr, target: Expr) -> Vec<Stmt> {
        let at = |index: Expr| {
            Expr::complex(
                var("shared_re").at(var("region").add(index.clone())),
                var("shared_im").at(var("region").add(index)),
            )
        };
        let offset = real
            .twiddle_offset
            .expect("a half-length step has its twiddles");
        let m = self.pass.n;
        vec![
            let_const(Type::Uint, "p", point),
            let_const(Type::Complex, "a", at(var("p"))),
            let_const(Type::Complex, "b", at(uint(m).sub(var("p")))),
            let_const(
                Type::Complex,
                "w",
                var(TWIDDLES).at(uint(offset).add(var("p"))),
            ),
            // X[0] and X[M] are real in a Hermitian spectrum: their
            // imaginary parts are ignored, as numpy's irfft does.
            let_const(
                Type::Real,
                "ai",
                Expr::select(uint(0).lt(var("p")), var("a").im(), Expr::Real(0.0)),
            ),
            let_const(
                Type::Real,
                "bi",
                Expr::select(uint(0).lt(var("p")), var("b").im(), Expr::Real(0.0)),
            ),
        ]
        .into_iter()
        .chain(merge(target))
        .collect()
    }
}
