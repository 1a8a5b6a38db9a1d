//! The shared-memory padding of the Stockham exchange: which words of a
//! transform's slice of shared memory each value goes to so that a warp's
//! accesses spread over the banks (seed 000, section IV.A: "pad with Ns empty
//! values between every 16 values", restated for 32 banks and generalised).
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
//! q * Ns banks, which separates all groups when Ns * R is a power of two,
//! while the next stage's unit-stride reads still see B consecutive words.
//! The rule leaves odd radices unpadded: a stride of R words is coprime with
//! the bank count, so the first stage's writes are conflict free.
//!
//! For even radices that are not powers of two (10, 20 in N = 1000 and 4000)
//! that rule leaves conflicts and makes the padded address of each value a
//! division the kernel computes value by value. There [`Padding::for_exchange`]
//! searches periods and gaps with a model of the warp's accesses
//! ([`ExchangeCost`]): bank conflicts of the writes and of the next stage's
//! reads, plus the address arithmetic of every access whose padded position
//! is not the butterfly's first position plus a constant.
//!
//! Odd radices conflict too after the first stage: with 7 < Ns < 32, lane
//! groups of Ns words start Ns R words apart (2401's second exchange: 301
//! wavefronts where 154 is the floor; 2187's third 207 for 144, 2197's second
//! 221 for 156, 3125's second 300 for 200). The same search removes those
//! of 2187, 2197 and 3125 entirely and a quarter of 2401's
//! ([`PaddingSearch::AllRadices`]); it is a plan choice until measured.

use serde::{Deserialize, Serialize};

/// `index + (index / period) * gap`; the identity when `gap` is zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// Which exchanges [`Padding::for_exchange`] searches a padding for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaddingSearch {
    /// Those of even radices (the rule's conflicts at 1000 and 4000, measured
    /// faster searched); odd radices stay unpadded. The default.
    EvenRadices,
    /// Those of every radix: odd radices past the first stage too.
    AllRadices,
}

fftgen_manifest::text_enum!(PaddingSearch as "a padding search" {
    EvenRadices => "even-radices",
    AllRadices => "all-radices",
});

/// One exchange between two stages, as the padding search sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    pub n: usize,
    /// Threads per transform; consecutive threads are consecutive lanes.
    pub threads: usize,
    /// Radix and stride (Ns) of the stage that writes.
    pub radix: usize,
    pub stride: usize,
    /// Radix of the stage that reads.
    pub next_radix: usize,
    /// Words one conflict-free access covers ([`bank_words`]).
    pub bank_words: usize,
}

/// What an exchange costs under one padding, in shared-memory wavefronts
/// (one per conflict-free access of B lanes, more where lanes collide on a
/// bank) and in accesses whose address the kernel computes on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExchangeCost {
    pub wavefronts: usize,
    pub computed_addresses: usize,
}

impl ExchangeCost {
    /// One figure to minimise: a computed address costs a few integer
    /// instructions per access where a constant offset costs none; weighed
    /// here as half a wavefront.
    fn score(self) -> usize {
        2 * self.wavefronts + self.computed_addresses
    }
}

impl Padding {
    /// The padding for `exchange`: [`Padding::for_stage`] where it is free of
    /// conflicts and its addresses are constant offsets (every power-of-two
    /// schedule) or where `search` leaves the exchange's radix to the rule,
    /// otherwise the cheapest period and gap by [`ExchangeCost`], using at
    /// most n / 8 extra words.
    pub fn for_exchange(exchange: Exchange, search: PaddingSearch) -> Padding {
        let rule = Padding::for_stage(exchange.radix, exchange.stride, exchange.bank_words);
        if exchange.radix % 2 == 1 && search == PaddingSearch::EvenRadices {
            return rule;
        }
        let rule_cost = exchange.cost(rule);
        if rule_cost == exchange.ideal() {
            return rule;
        }
        let span = exchange.stride * exchange.radix;
        let periods = (0..8)
            .map(|k| span << k)
            .chain((0..8).map(|k| exchange.bank_words << k))
            .filter(|&period| period < exchange.n);
        let gaps = (1..=8).chain([exchange.stride, 2 * exchange.stride]);
        let mut best = (rule_cost.score(), rule.padded_len(exchange.n), rule);
        for period in periods {
            for gap in gaps.clone() {
                let padding = Padding { period, gap };
                let len = padding.padded_len(exchange.n);
                if len > exchange.n + exchange.n / 8 {
                    continue;
                }
                let candidate = (exchange.cost(padding).score(), len, padding);
                if (candidate.0, candidate.1) < (best.0, best.1) {
                    best = candidate;
                }
            }
        }
        best.2
    }

    /// Whether `pad(x + c) = pad(x) + c * (period + gap) / period` for every
    /// x: `c` spans whole periods.
    pub fn shifts_by_periods(self, c: usize) -> bool {
        self.is_none() || c % self.period == 0
    }

    /// The padded distance of `c` words when [`Padding::shifts_by_periods`].
    pub fn padded_shift(self, c: usize) -> usize {
        if self.is_none() {
            c
        } else {
            c / self.period * (self.period + self.gap)
        }
    }

    /// Whether the writes of a stage of `radix` and `stride` land at
    /// `pad(head) + r * stride'` with one constant per output r: the outputs
    /// of a butterfly stay within one period, or each spans whole periods.
    pub fn linear_for_writes(self, radix: usize, stride: usize) -> bool {
        self.is_none() || self.period % (stride * radix) == 0 || stride % self.period == 0
    }

    /// The padded offset of output `r` from the butterfly's first output,
    /// when [`Padding::linear_for_writes`].
    pub fn write_offset(self, radix: usize, stride: usize, r: usize) -> usize {
        if self.is_none() || self.period % (stride * radix) == 0 {
            r * stride
        } else {
            self.padded_shift(r * stride)
        }
    }
}

impl Exchange {
    /// Wavefronts when every access is conflict free, and no computed address.
    fn ideal(&self) -> ExchangeCost {
        ExchangeCost {
            wavefronts: self.accesses(self.radix) + self.accesses(self.next_radix),
            computed_addresses: 0,
        }
    }

    /// Accesses (groups of B lanes, per output and round of butterflies) of
    /// a stage of `radix`: thread t's b-th butterfly is j = t + b T.
    fn accesses(&self, radix: usize) -> usize {
        let butterflies = self.n / radix;
        (0..butterflies)
            .step_by(self.threads)
            .map(|round| {
                let active = (butterflies - round).min(self.threads);
                active.div_ceil(self.bank_words) * radix
            })
            .sum()
    }

    /// The model: every access of B consecutive lanes of one transform, the
    /// writes of this stage and the reads of the next.
    pub fn cost(&self, padding: Padding) -> ExchangeCost {
        let (radix, stride) = (self.radix, self.stride);
        let written = self.n / radix;
        let write = |j: usize, r: usize| {
            padding.apply((j / stride) * stride * radix + j % stride + r * stride)
        };
        let read_butterflies = self.n / self.next_radix;
        let read = |j: usize, r: usize| padding.apply(j + r * read_butterflies);
        let wavefronts = self.wavefronts(written, radix, &write)
            + self.wavefronts(read_butterflies, self.next_radix, &read);
        let mut computed_addresses = 0;
        if !padding.linear_for_writes(radix, stride) {
            computed_addresses += self.accesses(radix);
        }
        if !padding.shifts_by_periods(read_butterflies) {
            computed_addresses += self.accesses(self.next_radix);
        }
        ExchangeCost {
            wavefronts,
            computed_addresses,
        }
    }

    /// Wavefronts of all accesses `address(j, r)` of a stage with
    /// `butterflies` butterflies of `radix` outputs.
    fn wavefronts(
        &self,
        butterflies: usize,
        radix: usize,
        address: &dyn Fn(usize, usize) -> usize,
    ) -> usize {
        let bank = self.bank_words;
        let mut words_on_bank: Vec<Vec<usize>> = vec![Vec::new(); bank];
        let mut total = 0;
        for round in (0..butterflies).step_by(self.threads) {
            let end = (round + self.threads).min(butterflies);
            for group in (round..end).step_by(bank) {
                for r in 0..radix {
                    let words = (group..(group + bank).min(end)).map(|j| address(j, r));
                    total += access_wavefronts(&mut words_on_bank, words);
                }
            }
        }
        total
    }
}

/// Wavefronts of one access that touches `words` (one per lane of a group
/// of [`bank_words`] lanes): the most distinct words one bank holds, the
/// banks being `words_on_bank.len()` (a scratch list per bank, cleared here).
pub(super) fn access_wavefronts(
    words_on_bank: &mut [Vec<usize>],
    words: impl Iterator<Item = usize>,
) -> usize {
    let banks = words_on_bank.len();
    words_on_bank.iter_mut().for_each(Vec::clear);
    for word in words {
        let on_bank = &mut words_on_bank[word % banks];
        if !on_bank.contains(&word) {
            on_bank.push(word);
        }
    }
    words_on_bank.iter().map(Vec::len).max().unwrap_or(0)
}

/// Words that one conflict-free warp (f32) or half-warp (f64) access covers.
pub fn bank_words(real_bytes: usize) -> usize {
    128 / real_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exchange after a radix-`radix` stage of stride `stride` on
    /// `threads` threads, with 32 banks of 4-byte words.
    fn exchange(
        n: usize,
        threads: usize,
        radix: usize,
        stride: usize,
        next_radix: usize,
    ) -> Exchange {
        Exchange {
            n,
            threads,
            radix,
            stride,
            next_radix,
            bank_words: 32,
        }
    }

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
    /// Power-of-two schedules keep the proven rule; the mixed even radices of
    /// 1000 and 4000 get paddings with fewer wavefronts and constant offsets.
    #[test]
    fn the_search_keeps_the_rule_where_it_is_ideal_and_beats_it_elsewhere() {
        for bank in [32, 16] {
            for (n, threads, radices) in [
                (4096, 256, vec![16, 16, 16]),
                (1024, 32, vec![32, 32]),
                (2048, 128, vec![16, 16, 8]),
                (512, 64, vec![8, 8, 8]),
                (4096, 256, vec![8, 8, 8, 8]),
            ] {
                let mut stride = 1;
                for pair in radices.windows(2) {
                    let exchange = Exchange {
                        n,
                        threads,
                        radix: pair[0],
                        stride,
                        next_radix: pair[1],
                        bank_words: bank,
                    };
                    let rule = Padding::for_stage(pair[0], stride, bank);
                    for search in [PaddingSearch::EvenRadices, PaddingSearch::AllRadices] {
                        assert_eq!(
                            Padding::for_exchange(exchange, search),
                            rule,
                            "{n} {radices:?}"
                        );
                    }
                    assert_eq!(exchange.cost(rule), exchange.ideal(), "{n} {radices:?}");
                    stride *= pair[0];
                }
            }
        }
        for (n, threads, radix, stride, next_radix) in [
            (4000, 200, 20, 1, 20),
            (4000, 200, 20, 20, 10),
            (1000, 100, 10, 1, 10),
        ] {
            let exchange = exchange(n, threads, radix, stride, next_radix);
            let rule = Padding::for_stage(radix, stride, 32);
            let chosen = Padding::for_exchange(exchange, PaddingSearch::EvenRadices);
            let (before, after) = (exchange.cost(rule), exchange.cost(chosen));
            assert!(
                after.score() < before.score(),
                "{n}: {rule:?} {before:?} -> {chosen:?} {after:?}"
            );
            assert!(after.wavefronts <= before.wavefronts);
            assert!(chosen.padded_len(n) <= n + n / 8);
        }
    }

    /// Odd radices stay unpadded by default; searched, the exchanges the
    /// model finds conflicts in get conflict-free paddings with constant
    /// offsets, and those it finds ideal stay unpadded.
    #[test]
    fn odd_radices_are_searched_when_asked() {
        // (n, threads, radix, stride, next radix, wavefronts unpadded, searched)
        for (n, threads, radix, stride, next_radix, unpadded, searched) in [
            (2187, 243, 9, 27, 9, 207, 144),
            (2197, 169, 13, 13, 13, 221, 156),
            (3125, 125, 25, 25, 5, 300, 200),
            (2401, 343, 7, 7, 7, 301, 266),
            (2401, 343, 7, 1, 7, 154, 154),
        ] {
            let exchange = exchange(n, threads, radix, stride, next_radix);
            assert_eq!(
                Padding::for_exchange(exchange, PaddingSearch::EvenRadices),
                Padding::NONE
            );
            assert_eq!(exchange.cost(Padding::NONE).wavefronts, unpadded, "{n}");
            let chosen = Padding::for_exchange(exchange, PaddingSearch::AllRadices);
            let cost = exchange.cost(chosen);
            assert_eq!(cost.wavefronts, searched, "{n}: {chosen:?}");
            assert_eq!(cost.computed_addresses, 0, "{n}: {chosen:?}");
            assert!(chosen.padded_len(n) <= n + n / 8);
            if unpadded == searched {
                assert_eq!(chosen, Padding::NONE);
            }
        }
    }

    /// The constant offsets the lowering uses are the padded positions.
    #[test]
    fn constant_offsets_match_the_padding() {
        for padding in [
            Padding { period: 32, gap: 1 },
            Padding {
                period: 400,
                gap: 4,
            },
            Padding {
                period: 160,
                gap: 1,
            },
            Padding { period: 20, gap: 3 },
            Padding::NONE,
        ] {
            for (radix, stride) in [(20, 1), (20, 20), (10, 10), (16, 1), (8, 64), (5, 160)] {
                if padding.linear_for_writes(radix, stride) {
                    for j in 0..400 {
                        let head = (j / stride) * stride * radix + j % stride;
                        for r in 0..radix {
                            assert_eq!(
                                padding.apply(head + r * stride),
                                padding.apply(head) + padding.write_offset(radix, stride, r),
                                "{padding:?} radix {radix} stride {stride} j {j} r {r}"
                            );
                        }
                    }
                }
            }
            for c in [200, 400, 640, 1000] {
                if padding.shifts_by_periods(c) {
                    for x in 0..1000 {
                        assert_eq!(
                            padding.apply(x + c),
                            padding.apply(x) + padding.padded_shift(c)
                        );
                    }
                }
            }
        }
    }
}
