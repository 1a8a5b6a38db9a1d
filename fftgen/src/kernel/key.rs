//! The typed key that names a kernel. The name encodes every setting that
//! changes the generated code and parses back (rocFFT's kernel names, made
//! reversible so nothing re-parses meaning out of strings by hand). Lowering
//! reads the plan; the key only names what it lowered.

use crate::plan::{
    ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch, Pass, Plan,
    TwiddleTables,
};
use crate::{Direction, Normalization, Placement, Precision};
use std::fmt;
use std::str::FromStr;

/// Everything that distinguishes one generated kernel from another: the
/// transform, and every shape choice of its pass (what the paddings, lane
/// layout and shared-memory stride follow from).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelKey {
    /// Whether the kernel is the real axis's pass of a real transform: its
    /// name then reads `r2c` (forward) or `c2r` (inverse) for `c2c`.
    pub real: bool,
    pub n: usize,
    pub radices: Vec<usize>,
    pub threads_per_fft: usize,
    pub ffts_per_block: usize,
    /// The CUDA launch bound, `_b<blocks>`.
    pub min_blocks_per_sm: usize,
    pub input_caching: InputCaching,
    pub exchange_buffers: ExchangeBuffers,
    pub exchange_width: ExchangeWidth,
    pub first_write: FirstWrite,
    pub padding_search: PaddingSearch,
    pub twiddle_tables: TwiddleTables,
    pub precision: Precision,
    pub direction: Direction,
    pub placement: Placement,
    pub normalization: Normalization,
    /// For passes of multi-pass and multi-dimensional plans, a hash of where
    /// they read and write, their four-step twiddle and their scale
    /// (`_g` and 16 hex digits); `None` for a dense 1D batch.
    pub layout: Option<u64>,
}

/// A choice written into the name as a token when it differs from the
/// default, and not at all otherwise (`_l2`: input through L2 only).
struct Token {
    text: &'static str,
    is_set: fn(&KernelKey) -> bool,
    set: fn(&mut KernelKey),
}

/// A token for `field` set to `value`.
macro_rules! token {
    ($text:literal, $field:ident, $value:expr) => {
        Token {
            text: $text,
            is_set: |k| k.$field == $value,
            set: |k| k.$field = $value,
        }
    };
}

/// The optional tokens, in the order they appear in a name.
const TOKENS: [Token; 7] = [
    token!("l2", input_caching, InputCaching::L2Only),
    token!("x2", exchange_buffers, ExchangeBuffers::Alternating),
    token!("w1", exchange_width, ExchangeWidth::OnePartAtATime),
    token!("wi", exchange_width, ExchangeWidth::Interleaved),
    token!("fi", first_write, FirstWrite::Immediate),
    token!("pa", padding_search, PaddingSearch::AllRadices),
    token!("ts", twiddle_tables, TwiddleTables::SplitLarge),
];

impl KernelKey {
    /// The key of the kernel that runs `pass` of `plan` in `direction`.
    pub fn of(plan: &Plan, pass: &Pass, direction: Direction) -> KernelKey {
        let dense_batch = pass.access.is_dense(pass.n)
            && pass.access.ffts_per_transform() == 1
            && pass.step_twiddle.is_none()
            && pass.normalizes
            && plan.n == pass.n
            && !pass.dynamic_shared
            && pass.real.is_none()
            && pass.chirp.is_none()
            && pass.fused_axes.is_none();
        let layout = (!dense_batch).then(|| {
            // A real step is hashed only where there is one, so that the
            // names of complex passes stay as they were.
            let real = match (pass.real, pass.chirp, &pass.fused_axes) {
                (Some(real), _, Some(fused)) => format!(" {real:?} {fused:?}"),
                (Some(real), _, _) => format!(" {real:?}"),
                (None, Some(chirp), _) => format!(" {chirp:?}"),
                (None, None, Some(fused)) => format!(" {fused:?}"),
                (None, None, None) => String::new(),
            };
            fnv1a(&format!(
                "{:?} {:?}{real} {:?} {:?} {:?} {} {} {}",
                pass.access,
                pass.step_twiddle,
                pass.io,
                pass.output_io,
                pass.lanes,
                pass.fft_stride,
                pass.normalizes,
                plan.n
            ))
        });
        KernelKey {
            real: pass.real.is_some(),
            layout,
            n: pass.n,
            radices: pass.radices(),
            threads_per_fft: pass.threads_per_fft,
            ffts_per_block: pass.ffts_per_block,
            min_blocks_per_sm: pass.min_blocks_per_sm,
            input_caching: pass.input_caching,
            exchange_buffers: pass.exchange_buffers,
            exchange_width: pass.exchange_width,
            first_write: pass.first_write,
            padding_search: pass.padding_search,
            twiddle_tables: pass.twiddle_tables,
            precision: plan.precision,
            direction,
            placement: match plan.writes_in_place(pass) {
                true => Placement::InPlace,
                false => Placement::OutOfPlace,
            },
            normalization: plan.normalization,
        }
    }
}

/// FNV-1a, 64 bits: a stable hash (std's may change between releases).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl fmt::Display for KernelKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A pass of no radix stages (a real step of its own) reads `r0`.
        let radices: Vec<String> = match self.radices.is_empty() {
            true => vec!["0".into()],
            false => self.radices.iter().map(|r| r.to_string()).collect(),
        };
        let tokens: String = TOKENS
            .iter()
            .filter(|t| (t.is_set)(self))
            .map(|t| format!("_{}", t.text))
            .chain(self.layout.map(|hash| format!("_g{hash:016x}")))
            .collect();
        let direction = match self.direction {
            Direction::Forward => "fwd",
            Direction::Inverse => "inv",
        };
        let placement = match self.placement {
            Placement::OutOfPlace => "oop",
            Placement::InPlace => "ip",
        };
        let kind = match (self.real, self.direction) {
            (false, _) => "c2c",
            (true, Direction::Forward) => "r2c",
            (true, Direction::Inverse) => "c2r",
        };
        write!(
            f,
            "fftgen_{kind}_n{}_r{}_t{}_m{}_b{}{tokens}_{}_{direction}_{placement}_norm{}",
            self.n,
            radices.join("x"),
            self.threads_per_fft,
            self.ffts_per_block,
            self.min_blocks_per_sm,
            self.precision,
            self.normalization
        )
    }
}

impl FromStr for KernelKey {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        let bad = || format!("`{name}` is not an fftgen kernel name");
        let (real, rest) = match name.get(..11) {
            Some("fftgen_c2c_") => (false, &name[11..]),
            Some("fftgen_r2c_") | Some("fftgen_c2r_") => (true, &name[11..]),
            _ => return Err(bad()),
        };
        let fields: Vec<&str> = rest.split('_').collect();
        let [n, radices, t, m, b, ref middle @ .., precision, direction, placement, norm] =
            fields[..]
        else {
            return Err(bad());
        };
        let number = |field: &str, prefix: &str| -> Result<usize, String> {
            field
                .strip_prefix(prefix)
                .and_then(|v| v.parse().ok())
                .ok_or_else(bad)
        };
        let radices = match radices.strip_prefix('r').ok_or_else(bad)? {
            "0" => Vec::new(),
            list => list
                .split('x')
                .map(|r| r.parse().map_err(|_| bad()))
                .collect::<Result<Vec<usize>, String>>()?,
        };
        let mut key = KernelKey {
            real,
            n: number(n, "n")?,
            radices,
            threads_per_fft: number(t, "t")?,
            ffts_per_block: number(m, "m")?,
            min_blocks_per_sm: number(b, "b")?,
            input_caching: InputCaching::L1AndL2,
            exchange_buffers: ExchangeBuffers::Reused,
            exchange_width: ExchangeWidth::BothParts,
            first_write: FirstWrite::AfterBarrier,
            padding_search: PaddingSearch::EvenRadices,
            twiddle_tables: TwiddleTables::Direct,
            precision: precision.parse()?,
            direction: match direction {
                "fwd" => Direction::Forward,
                "inv" => Direction::Inverse,
                _ => return Err(bad()),
            },
            placement: match placement {
                "oop" => Placement::OutOfPlace,
                "ip" => Placement::InPlace,
                _ => return Err(bad()),
            },
            normalization: norm.strip_prefix("norm").ok_or_else(bad)?.parse()?,
            layout: None,
        };
        for text in middle {
            if let Some(hash) = text.strip_prefix('g').filter(|h| h.len() == 16) {
                key.layout = Some(u64::from_str_radix(hash, 16).map_err(|_| bad())?);
                continue;
            }
            let token = TOKENS.iter().find(|t| t.text == *text).ok_or_else(bad)?;
            (token.set)(&mut key);
        }
        // Tokens out of order, repeated or contradicting each other do not
        // name the key they parse to.
        if key.to_string() != name {
            return Err(bad());
        }
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> KernelKey {
        KernelKey {
            real: false,
            n: 4096,
            radices: vec![8, 8, 8, 8],
            threads_per_fft: 512,
            ffts_per_block: 1,
            min_blocks_per_sm: 2,
            input_caching: InputCaching::L1AndL2,
            exchange_buffers: ExchangeBuffers::Reused,
            exchange_width: ExchangeWidth::BothParts,
            first_write: FirstWrite::AfterBarrier,
            padding_search: PaddingSearch::EvenRadices,
            twiddle_tables: TwiddleTables::Direct,
            precision: Precision::F32,
            direction: Direction::Inverse,
            placement: Placement::InPlace,
            normalization: Normalization::Unitary,
            layout: None,
        }
    }

    #[test]
    fn names_round_trip() {
        let name = key().to_string();
        assert_eq!(
            name,
            "fftgen_c2c_n4096_r8x8x8x8_t512_m1_b2_f32_inv_ip_normunitary"
        );
        assert_eq!(name.parse::<KernelKey>(), Ok(key()));
        assert!("fftgen_c2c_n12".parse::<KernelKey>().is_err());

        let every_token = KernelKey {
            n: 2401,
            radices: vec![7, 7, 7, 7],
            threads_per_fft: 343,
            min_blocks_per_sm: 5,
            input_caching: InputCaching::L2Only,
            exchange_buffers: ExchangeBuffers::Alternating,
            exchange_width: ExchangeWidth::Interleaved,
            first_write: FirstWrite::Immediate,
            padding_search: PaddingSearch::AllRadices,
            twiddle_tables: TwiddleTables::SplitLarge,
            ..key()
        };
        let name = every_token.to_string();
        assert_eq!(
            name,
            "fftgen_c2c_n2401_r7x7x7x7_t343_m1_b5_l2_x2_wi_fi_pa_ts_f32_inv_ip_normunitary"
        );
        assert_eq!(name.parse::<KernelKey>(), Ok(every_token));

        let one_part = KernelKey {
            exchange_width: ExchangeWidth::OnePartAtATime,
            ..key()
        };
        assert_eq!(one_part.to_string().parse::<KernelKey>(), Ok(one_part));
    }

    #[test]
    fn malformed_names_are_refused() {
        for name in [
            // An unknown token, one out of order, one twice, both widths.
            "fftgen_c2c_n4096_r8x8x8x8_t512_m1_b2_l1_f32_inv_ip_normunitary",
            "fftgen_c2c_n4096_r8x8x8x8_t512_m1_b2_x2_l2_f32_inv_ip_normunitary",
            "fftgen_c2c_n4096_r8x8x8x8_t512_m1_b2_l2_l2_f32_inv_ip_normunitary",
            "fftgen_c2c_n4096_r8x8x8x8_t512_m1_b2_w1_wi_f32_inv_ip_normunitary",
            // No launch bound.
            "fftgen_c2c_n4096_r8x8x8x8_t512_m1_f32_inv_ip_normunitary",
        ] {
            assert!(name.parse::<KernelKey>().is_err(), "{name}");
        }
    }
}
