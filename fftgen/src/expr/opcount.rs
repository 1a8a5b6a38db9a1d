//! Floating-point operation counts of a scheduled DAG, as printed in every
//! generated file's header (genfft prints the same three numbers).

use super::schedule::{Schedule, StepOp};
use serde::Serialize;
use std::fmt;
use std::ops::{Add, Mul};

/// Real additions (and subtractions), multiplications and fused multiply-adds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OpCount {
    pub adds: u64,
    pub muls: u64,
    pub fmas: u64,
}

impl OpCount {
    pub fn of(schedule: &Schedule) -> OpCount {
        let mut count = OpCount::default();
        for step in &schedule.steps {
            match step.op {
                StepOp::Add(..) | StepOp::Sub(..) => count.adds += 1,
                StepOp::Mul(..) => count.muls += 1,
                StepOp::Fma(..) => count.fmas += 1,
            }
        }
        count
    }

    /// Floating-point operations, an FMA counting as two.
    pub fn flops(self) -> u64 {
        self.adds + self.muls + 2 * self.fmas
    }
}

impl Add for OpCount {
    type Output = OpCount;
    fn add(self, other: OpCount) -> OpCount {
        OpCount {
            adds: self.adds + other.adds,
            muls: self.muls + other.muls,
            fmas: self.fmas + other.fmas,
        }
    }
}

impl Mul<u64> for OpCount {
    type Output = OpCount;
    fn mul(self, times: u64) -> OpCount {
        OpCount {
            adds: self.adds * times,
            muls: self.muls * times,
            fmas: self.fmas * times,
        }
    }
}

impl fmt::Display for OpCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} adds, {} muls, {} fmas ({} flops)",
            self.adds,
            self.muls,
            self.fmas,
            self.flops()
        )
    }
}
