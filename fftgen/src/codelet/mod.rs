//! Radix-R butterflies ("codelets" in FFTW's words): a DFT of length R on
//! values held in registers, generated as a simplified expression DAG. No
//! radix is written by hand; [`dft`] builds any length from its definition.

pub mod dft;

use crate::expr::{schedule, Complex, Dag, OpCount, Schedule};
use crate::Direction;

/// The radices a butterfly may have: 2..=32, every prime to 31 among them
/// (genfft's DFT of any length; primes past 13 by the symmetric form).
pub fn is_supported_radix(radix: usize) -> bool {
    (2..=32).contains(&radix)
}

/// The largest prime factor of `n` (1 for n = 1).
pub fn largest_prime_factor(mut n: usize) -> usize {
    let mut largest = 1;
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            largest = p;
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        n
    } else {
        largest
    }
}

/// A generated length-`radix` DFT: inputs in slots 2k (re) and 2k+1 (im),
/// outputs in natural order.
#[derive(Debug, Clone)]
pub struct Codelet {
    pub radix: usize,
    pub direction: Direction,
    pub dag: Dag,
    pub outputs: Vec<Complex>,
    pub schedule: Schedule,
    pub ops: OpCount,
}

impl Codelet {
    /// Builds, simplifies and schedules the butterfly.
    pub fn generate(radix: usize, direction: Direction) -> Codelet {
        let mut dag = Dag::new();
        let inputs: Vec<Complex> = (0..radix).map(|k| dag.complex_input(k)).collect();
        let outputs = dft::dft(&mut dag, &inputs, direction.sign());
        let flat: Vec<_> = outputs.iter().flat_map(|c| [c.re, c.im]).collect();
        let schedule = schedule(&dag, &flat);
        let ops = OpCount::of(&schedule);
        Codelet {
            radix,
            direction,
            dag,
            outputs,
            schedule,
            ops,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates the codelet's DAG on random inputs and compares with the
    /// textbook DFT in f64.
    #[test]
    fn every_radix_matches_the_dft_definition() {
        for radix in (2..=32).filter(|&r| is_supported_radix(r)) {
            for direction in [Direction::Forward, Direction::Inverse] {
                let codelet = Codelet::generate(radix, direction);
                let inputs: Vec<f64> = (0..2 * radix)
                    .map(|i| ((i * 7919 + 13) % 101) as f64 / 50.0 - 1.0)
                    .collect();
                let flat: Vec<_> = codelet.outputs.iter().flat_map(|c| [c.re, c.im]).collect();
                let got = codelet.dag.eval(&flat, &inputs);
                for k in 0..radix {
                    let (mut re, mut im) = (0.0, 0.0);
                    for j in 0..radix {
                        let angle = direction.sign() as f64
                            * std::f64::consts::TAU
                            * ((j * k) % radix) as f64
                            / radix as f64;
                        let (x, y) = (inputs[2 * j], inputs[2 * j + 1]);
                        re += x * angle.cos() - y * angle.sin();
                        im += x * angle.sin() + y * angle.cos();
                    }
                    assert!(
                        (got[2 * k] - re).abs() < 1e-12,
                        "radix {radix} {direction} re[{k}]"
                    );
                    assert!(
                        (got[2 * k + 1] - im).abs() < 1e-12,
                        "radix {radix} {direction} im[{k}]"
                    );
                }
            }
        }
    }

    /// Known operation counts: radix 2 and 4 need no multiplication, radix 8
    /// only the sqrt(2)/2 ones, and the total stays near the best published.
    #[test]
    fn operation_counts_are_lean() {
        let flops = |r| Codelet::generate(r, Direction::Forward).ops;
        assert_eq!(flops(2).muls + flops(2).fmas, 0);
        assert_eq!(flops(4).muls + flops(4).fmas, 0);
        assert_eq!(flops(4).adds, 16);
        let eight = flops(8);
        assert_eq!(eight.muls + eight.fmas, 4, "radix 8: {eight}");
        assert!(flops(16).flops() <= 170, "radix 16: {}", flops(16));
    }
}
