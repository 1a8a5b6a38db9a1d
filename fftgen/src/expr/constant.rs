//! Exact real constants: the cosines and sines of rational fractions of a
//! turn that appear in DFT butterflies (seed 000, section IV: the radix-R
//! kernels). Every such value is reduced to `+-cos(2 pi t)` with `t` in
//! `[0, 1/4]`, where cosine is one-to-one, so two constants are equal exactly
//! when their reduced turns are equal: `sin(pi/4)` and `cos(pi/4)` become one
//! constant, and so do `cos(2 pi / 6)` and `1/2`.

use serde::Serialize;
use std::fmt;

/// A fraction of a full turn `num / den`, reduced, with `0 <= num < den`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Turn {
    pub num: i64,
    pub den: i64,
}

impl Turn {
    /// `num / den` reduced modulo one turn.
    pub fn new(num: i64, den: i64) -> Turn {
        assert!(den > 0, "a turn needs a positive denominator");
        let num = num.rem_euclid(den);
        let g = gcd(num, den);
        Turn {
            num: num / g,
            den: den / g,
        }
    }

    fn minus(self, other: Turn) -> Turn {
        Turn::new(
            self.num * other.den - other.num * self.den,
            self.den * other.den,
        )
    }

    /// `self <= num / den`.
    fn at_most(self, num: i64, den: i64) -> bool {
        self.num * den <= num * self.den
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs().max(1)
    } else {
        gcd(b, a % b)
    }
}

/// A non-negative exact constant: `cos(2 pi t)` for a turn `t` in `[0, 1/4]`.
/// Zero is `t = 1/4`, one is `t = 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Constant {
    turn: Turn,
}

/// A constant with a sign, the result of reducing a cosine or sine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signed {
    pub negative: bool,
    pub magnitude: Constant,
}

impl Constant {
    pub const ZERO: Constant = Constant {
        turn: Turn { num: 1, den: 4 },
    };
    pub const ONE: Constant = Constant {
        turn: Turn { num: 0, den: 1 },
    };

    pub fn is_zero(self) -> bool {
        self == Constant::ZERO
    }

    pub fn is_one(self) -> bool {
        self == Constant::ONE
    }

    /// `cos(2 pi t)`, reduced to a sign and a magnitude.
    pub fn cos(t: Turn) -> Signed {
        // cos is even: fold (1/2, 1) onto (0, 1/2).
        let t = if t.at_most(1, 2) {
            t
        } else {
            Turn::new(t.den - t.num, t.den)
        };
        if t.at_most(1, 4) {
            Signed {
                negative: false,
                magnitude: Constant { turn: t },
            }
        } else {
            // cos(2 pi t) = -cos(2 pi (1/2 - t)) for t in (1/4, 1/2].
            let folded = Turn::new(1, 2).minus(t);
            Signed {
                negative: !Constant { turn: folded }.is_zero(),
                magnitude: Constant { turn: folded },
            }
        }
    }

    /// `sin(2 pi t) = cos(2 pi (1/4 - t))`.
    pub fn sin(t: Turn) -> Signed {
        Constant::cos(Turn::new(1, 4).minus(t))
    }

    /// The value, as accurately as f64 allows: exact for the values that have
    /// short closed forms, within one ulp otherwise (the angle is at most pi/4
    /// after reduction, so the argument's rounding moves the result by less
    /// than half an ulp).
    pub fn value(self) -> f64 {
        let Turn { num, den } = self.turn;
        match (num, den) {
            (0, _) => 1.0,
            (1, 4) => 0.0,
            (1, 6) => 0.5,
            (1, 8) => std::f64::consts::FRAC_1_SQRT_2,
            (1, 12) => 0.866_025_403_784_438_6,
            _ => {
                // Use the sine of the complement for t > 1/8 so the argument stays <= pi/4.
                if self.turn.at_most(1, 8) {
                    (std::f64::consts::TAU * num as f64 / den as f64).cos()
                } else {
                    let c = Turn::new(1, 4).minus(self.turn);
                    (std::f64::consts::TAU * c.num as f64 / c.den as f64).sin()
                }
            }
        }
    }

    /// A name for the constant in generated code, FFTW style: `KP` and the
    /// leading digits of the value (`KP707106781` is sqrt(2)/2).
    pub fn name(self) -> String {
        let digits = format!("{:.9}", self.value());
        format!("KP{}", digits.replace('.', "").trim_start_matches('0'))
    }

    pub fn turn(self) -> Turn {
        self.turn
    }
}

impl fmt::Display for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cos(2pi*{}/{})", self.turn.num, self.turn.den)
    }
}

/// `exp(sign * 2 pi i * k / n)` as exact (cos, sin) constants.
pub fn root_of_unity(k: i64, n: i64, sign: i32) -> (Signed, Signed) {
    let t = Turn::new(k, n);
    let cos = Constant::cos(t);
    let mut sin = Constant::sin(t);
    if sign < 0 && !sin.magnitude.is_zero() {
        sin.negative = !sin.negative;
    }
    (cos, sin)
}

/// `exp(sign * 2 pi i * k / n)` in f64, through the same exact reduction, so
/// tables and inlined constants agree to the last bit.
pub fn root_of_unity_f64(k: i64, n: i64, sign: i32) -> (f64, f64) {
    let (c, s) = root_of_unity(k, n, sign);
    let value = |v: Signed| {
        if v.negative {
            -v.magnitude.value()
        } else {
            v.magnitude.value()
        }
    };
    (value(c), value(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_are_one_constant() {
        let eighth = Turn::new(1, 8);
        assert_eq!(Constant::cos(eighth), Constant::sin(eighth));
        assert_eq!(Constant::cos(Turn::new(1, 6)).magnitude.value(), 0.5);
        assert!(Constant::cos(Turn::new(1, 4)).magnitude.is_zero());
        assert!(Constant::cos(Turn::new(3, 4)).magnitude.is_zero());
        assert!(!Constant::cos(Turn::new(3, 4)).negative);
    }

    #[test]
    fn roots_of_unity_match_libm() {
        for n in 1..=64i64 {
            for k in 0..n {
                for sign in [-1, 1] {
                    let (c, s) = root_of_unity_f64(k, n, sign);
                    let a = std::f64::consts::TAU * k as f64 / n as f64;
                    assert!(
                        (c - a.cos()).abs() < 4e-15,
                        "cos {k}/{n} {sign}: {c} vs {}",
                        a.cos()
                    );
                    assert!((s - sign as f64 * a.sin()).abs() < 4e-15, "sin {k}/{n}");
                }
            }
        }
    }
}
