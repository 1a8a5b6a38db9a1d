//! The DFT of any length as an expression DAG (genfft's fft.ml): odd primes
//! use the symmetric form that pairs x[j] with x[R-j] and halves the
//! multiplications; coprime factors use the prime-factor (Good-Thomas)
//! algorithm, which needs no twiddles; other composites use Cooley-Tukey with
//! exact twiddle constants that the simplifier folds (seed 000, section IV.A:
//! the radix-R Stockham step is built from such DFTs). For each composite
//! length every split is tried and the one with the fewest operations kept.

use crate::expr::{schedule, Complex, Dag, OpCount};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// `X[k] = sum_j x[j] exp(sign * 2 pi i j k / n)` for `n = x.len()`.
pub fn dft(dag: &mut Dag, x: &[Complex], sign: i32) -> Vec<Complex> {
    let n = x.len();
    match n {
        0 | 1 => x.to_vec(),
        2 => vec![dag.cadd(x[0], x[1]), dag.csub(x[0], x[1])],
        _ => match best_split(n, sign) {
            None => odd_prime(dag, x, sign),
            Some((r1, r2)) if gcd(r1, r2) == 1 => prime_factor(dag, x, r1, r2, sign),
            Some((r1, r2)) => cooley_tukey(dag, x, r1, r2, sign),
        },
    }
}

/// Odd prime `p`: with a[j] = x[j] + x[p-j] and b[j] = x[j] - x[p-j],
/// X[k] = x0 + sum a[j] cos(2pi jk/p) + i sign sum b[j] sin(2pi jk/p) and
/// X[p-k] the same with the second sum subtracted.
fn odd_prime(dag: &mut Dag, x: &[Complex], sign: i32) -> Vec<Complex> {
    let p = x.len();
    let half = (p - 1) / 2;
    let sums: Vec<Complex> = (1..=half).map(|j| dag.cadd(x[j], x[p - j])).collect();
    let diffs: Vec<Complex> = (1..=half).map(|j| dag.csub(x[j], x[p - j])).collect();
    let mut out = vec![x[0]; p];
    out[0] = sums.iter().fold(x[0], |acc, &s| dag.cadd(acc, s));
    for k in 1..=half {
        let mut even = x[0];
        let mut odd: Option<Complex> = None;
        for j in 1..=half {
            let turn = crate::expr::Turn::new((j * k) as i64, p as i64);
            let cos = dag.signed(crate::expr::Constant::cos(turn));
            let sin = dag.signed(crate::expr::Constant::sin(turn));
            let term = dag.cscale(sums[j - 1], cos);
            even = dag.cadd(even, term);
            let term = dag.cscale(diffs[j - 1], sin);
            odd = Some(match odd {
                None => term,
                Some(acc) => dag.cadd(acc, term),
            });
        }
        let rotated = dag.ctimes_i(odd.expect("p >= 3 has one pair"), sign);
        out[k] = dag.cadd(even, rotated);
        out[p - k] = dag.csub(even, rotated);
    }
    out
}

/// Cooley-Tukey, decimation in time: n = r1 * r2, x index r2*n1 + n2,
/// X index k1 + r1*k2, twiddle exp(sign 2 pi i n2 k1 / n) between the two layers.
fn cooley_tukey(dag: &mut Dag, x: &[Complex], r1: usize, r2: usize, sign: i32) -> Vec<Complex> {
    let n = r1 * r2;
    let columns: Vec<Vec<Complex>> = (0..r2)
        .map(|n2| {
            let column: Vec<Complex> = (0..r1).map(|n1| x[r2 * n1 + n2]).collect();
            let transformed = dft(dag, &column, sign);
            transformed
                .into_iter()
                .enumerate()
                .map(|(k1, y)| dag.ctwiddle(y, (n2 * k1) as i64, n as i64, sign))
                .collect()
        })
        .collect();
    let mut out = vec![x[0]; n];
    for k1 in 0..r1 {
        let row: Vec<Complex> = (0..r2).map(|n2| columns[n2][k1]).collect();
        for (k2, value) in dft(dag, &row, sign).into_iter().enumerate() {
            out[k1 + r1 * k2] = value;
        }
    }
    out
}

/// Good-Thomas for coprime r1, r2: input index (r2*n1 + r1*n2) mod n, output
/// index by the Chinese remainder theorem, no twiddles at all.
fn prime_factor(dag: &mut Dag, x: &[Complex], r1: usize, r2: usize, sign: i32) -> Vec<Complex> {
    let n = r1 * r2;
    let columns: Vec<Vec<Complex>> = (0..r2)
        .map(|n2| {
            let column: Vec<Complex> = (0..r1).map(|n1| x[(r2 * n1 + r1 * n2) % n]).collect();
            dft(dag, &column, sign)
        })
        .collect();
    let (e1, e2) = (r2 * inverse_mod(r2, r1) % n, r1 * inverse_mod(r1, r2) % n);
    let mut out = vec![x[0]; n];
    for k1 in 0..r1 {
        let row: Vec<Complex> = (0..r2).map(|n2| columns[n2][k1]).collect();
        for (k2, value) in dft(dag, &row, sign).into_iter().enumerate() {
            out[(k1 * e1 + k2 * e2) % n] = value;
        }
    }
    out
}

/// The split `(r1, r2)` of `n` with the fewest operations, or `None` for a prime.
fn best_split(n: usize, sign: i32) -> Option<(usize, usize)> {
    static BEST: OnceLock<Mutex<HashMap<(usize, i32), Option<(usize, usize)>>>> = OnceLock::new();
    let cache = BEST.get_or_init(Default::default);
    if let Some(&known) = cache.lock().expect("split cache").get(&(n, sign)) {
        return known;
    }
    let best = (2..n)
        .filter(|r1| n % r1 == 0)
        .map(|r1| (r1, n / r1))
        .min_by_key(|&(r1, r2)| {
            let mut dag = Dag::new();
            let x: Vec<Complex> = (0..n).map(|k| dag.complex_input(k)).collect();
            let y = if gcd(r1, r2) == 1 {
                prime_factor(&mut dag, &x, r1, r2, sign)
            } else {
                cooley_tukey(&mut dag, &x, r1, r2, sign)
            };
            let flat: Vec<_> = y.iter().flat_map(|c| [c.re, c.im]).collect();
            let ops = OpCount::of(&schedule(&dag, &flat));
            (ops.flops(), ops.muls + ops.fmas, r1.abs_diff(r2))
        });
    cache.lock().expect("split cache").insert((n, sign), best);
    best
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `a^-1 mod m` for coprime a, m (m small).
fn inverse_mod(a: usize, m: usize) -> usize {
    if m == 1 {
        return 0;
    }
    (1..m)
        .find(|&x| a * x % m == 1)
        .expect("coprime factors have inverses")
}
