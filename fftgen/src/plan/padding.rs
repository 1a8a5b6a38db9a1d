//! The shared-memory padding rule that keeps the Stockham exchange free of
//! bank conflicts for power-of-two radices (seed 000, section IV.A: "pad with
//! Ns empty values between every 16 values", restated for 32 banks).
//!
//! Shared memory has 32 banks of 4 bytes. Real and imaginary parts live in
//! separate arrays (writing float2 would hit every bank twice), so one warp
//! access touches 32 words of one array; for f64 a half-warp touches 16
//! eight-byte words. Call B the words one conflict-free access covers: 32 for
//! f32, 16 for f64.
//!
//! Stage s with radix R and stride Ns writes output r of butterfly j to
//! `(j / Ns) * Ns * R + j % Ns + r * Ns`. For Ns >= B a warp writes runs of B
//! consecutive words: no conflict. For Ns < B, lane groups of Ns consecutive
//! words start Ns * R words apart and, R being even, collide. Inserting Ns
//! empty words after every `period = max(B, Ns * R)` words shifts group q by
//! q * Ns banks, which separates all groups, while the next stage's
//! unit-stride reads still see B consecutive words. The cost is at most N/R
//! extra words. Odd radices need no padding: their strides are coprime with
//! the bank count.

use serde::Serialize;

/// `index + (index / period) * gap`; the identity when `gap` is zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Padding {
    pub period: usize,
    pub gap: usize,
}

impl Padding {
    pub const NONE: Padding = Padding { period: 1, gap: 0 };

    /// The padding for the outputs of a stage of `radix` and `stride` when a
    /// conflict-free access covers `bank_words` words.
    pub fn for_stage(radix: usize, stride: usize, bank_words: usize) -> Padding {
        if stride >= bank_words || radix % 2 == 1 {
            Padding::NONE
        } else {
            Padding {
                period: bank_words.max(stride * radix),
                gap: stride,
            }
        }
    }

    pub fn is_none(self) -> bool {
        self.gap == 0
    }

    /// The padded position of `index`.
    pub fn apply(self, index: usize) -> usize {
        index + (index / self.period) * self.gap
    }

    /// Words needed to hold `len` padded values.
    pub fn padded_len(self, len: usize) -> usize {
        if len == 0 {
            0
        } else {
            self.apply(len - 1) + 1
        }
    }
}

/// Words that one conflict-free warp (f32) or half-warp (f64) access covers.
pub fn bank_words(real_bytes: usize) -> usize {
    128 / real_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worst bank conflict (accesses serialised on one bank) of one access
    /// by `lanes` consecutive threads that touch word `address(lane)`.
    fn worst_conflict(lanes: usize, bank_words: usize, address: impl Fn(usize) -> usize) -> usize {
        let mut per_bank = vec![std::collections::BTreeSet::new(); bank_words];
        for lane in 0..lanes {
            let a = address(lane);
            per_bank[a % bank_words].insert(a);
        }
        per_bank.iter().map(|words| words.len()).max().unwrap_or(0)
    }

    /// Every exchange of every power-of-two radix schedule is conflict free:
    /// the writes of each stage and the reads of the next one.
    #[test]
    fn power_of_two_exchanges_are_conflict_free() {
        for bank in [32, 16] {
            for radix in [2, 4, 8, 16, 32] {
                for n in [64, 256, 1024, 4096] {
                    let mut stride = 1;
                    while stride * radix < n {
                        let pad = Padding::for_stage(radix, stride, bank);
                        let butterflies = n / radix;
                        for warp in (0..butterflies).step_by(bank) {
                            for r in 0..radix {
                                let write = |lane: usize| {
                                    let j = warp + lane;
                                    pad.apply(
                                        (j / stride) * stride * radix + j % stride + r * stride,
                                    )
                                };
                                let lanes = bank.min(butterflies);
                                assert_eq!(
                                    worst_conflict(lanes, bank, write),
                                    1,
                                    "write: radix {radix} stride {stride} n {n} banks {bank}"
                                );
                                let read = |lane: usize| pad.apply(warp + lane + r * butterflies);
                                assert_eq!(
                                    worst_conflict(lanes, bank, read),
                                    1,
                                    "read: radix {radix} stride {stride} n {n} banks {bank}"
                                );
                            }
                        }
                        stride *= radix;
                    }
                }
            }
        }
    }
}
