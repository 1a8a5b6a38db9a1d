//! The typed key that names a kernel. The name encodes every parameter that
//! changes the generated code and parses back (rocFFT's kernel names, made
//! reversible so nothing re-parses meaning out of strings by hand).

use crate::plan::{ExchangeBuffers, InputCaching};
use crate::{Direction, Normalization, Placement, Precision};
use std::fmt;
use std::str::FromStr;

/// Everything that distinguishes one generated kernel from another.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelKey {
    pub n: usize,
    pub radices: Vec<usize>,
    pub threads_per_fft: usize,
    pub ffts_per_block: usize,
    /// Written into the name as `_l2` when the input skips L1, and not at
    /// all otherwise, so default kernels keep their names.
    pub input_caching: InputCaching,
    /// Written as `_x2` when stages write two sets of exchange arrays in
    /// turn, and not at all for one set.
    pub exchange_buffers: ExchangeBuffers,
    pub precision: Precision,
    pub direction: Direction,
    pub placement: Placement,
    pub normalization: Normalization,
}

impl fmt::Display for KernelKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let radices: Vec<String> = self.radices.iter().map(|r| r.to_string()).collect();
        let direction = match self.direction {
            Direction::Forward => "fwd",
            Direction::Inverse => "inv",
        };
        let placement = match self.placement {
            Placement::OutOfPlace => "oop",
            Placement::InPlace => "ip",
        };
        let caching = match self.input_caching {
            InputCaching::L1AndL2 => "",
            InputCaching::L2Only => "_l2",
        };
        let buffers = match self.exchange_buffers {
            ExchangeBuffers::Reused => "",
            ExchangeBuffers::Alternating => "_x2",
        };
        write!(
            f,
            "fftgen_c2c_n{}_r{}_t{}_m{}{caching}{buffers}_{}_{}_{}_norm{}",
            self.n,
            radices.join("x"),
            self.threads_per_fft,
            self.ffts_per_block,
            self.precision,
            direction,
            placement,
            self.normalization
        )
    }
}

impl FromStr for KernelKey {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        let bad = || format!("`{name}` is not an fftgen kernel name");
        let rest = name.strip_prefix("fftgen_c2c_").ok_or_else(bad)?;
        let mut fields: Vec<&str> = rest.split('_').collect();
        let input_caching = match fields.get(4) {
            Some(&"l2") => {
                fields.remove(4);
                InputCaching::L2Only
            }
            _ => InputCaching::L1AndL2,
        };
        let exchange_buffers = match fields.get(4) {
            Some(&"x2") => {
                fields.remove(4);
                ExchangeBuffers::Alternating
            }
            _ => ExchangeBuffers::Reused,
        };
        let [n, radices, t, m, precision, direction, placement, norm] = fields[..] else {
            return Err(bad());
        };
        let number = |field: &str, prefix: &str| -> Result<usize, String> {
            field
                .strip_prefix(prefix)
                .and_then(|v| v.parse().ok())
                .ok_or_else(bad)
        };
        let radices = radices
            .strip_prefix('r')
            .ok_or_else(bad)?
            .split('x')
            .map(|r| r.parse().map_err(|_| bad()))
            .collect::<Result<Vec<usize>, String>>()?;
        Ok(KernelKey {
            n: number(n, "n")?,
            radices,
            threads_per_fft: number(t, "t")?,
            ffts_per_block: number(m, "m")?,
            input_caching,
            exchange_buffers,
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
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let key = KernelKey {
            n: 4096,
            radices: vec![8, 8, 8, 8],
            threads_per_fft: 512,
            ffts_per_block: 1,
            input_caching: InputCaching::L1AndL2,
            exchange_buffers: ExchangeBuffers::Reused,
            precision: Precision::F32,
            direction: Direction::Inverse,
            placement: Placement::InPlace,
            normalization: Normalization::Unitary,
        };
        let name = key.to_string();
        assert_eq!(
            name,
            "fftgen_c2c_n4096_r8x8x8x8_t512_m1_f32_inv_ip_normunitary"
        );
        assert_eq!(name.parse::<KernelKey>(), Ok(key.clone()));
        assert!("fftgen_c2c_n12".parse::<KernelKey>().is_err());

        let l2_only = KernelKey {
            n: 1331,
            radices: vec![11, 11, 11],
            threads_per_fft: 121,
            input_caching: InputCaching::L2Only,
            ..key
        };
        let name = l2_only.to_string();
        assert_eq!(
            name,
            "fftgen_c2c_n1331_r11x11x11_t121_m1_l2_f32_inv_ip_normunitary"
        );
        assert_eq!(name.parse::<KernelKey>(), Ok(l2_only));
        assert!(
            "fftgen_c2c_n1331_r11x11x11_t121_m1_l1_f32_inv_ip_normunitary"
                .parse::<KernelKey>()
                .is_err()
        );

        let alternating = KernelKey {
            n: 2401,
            radices: vec![7, 7, 7, 7],
            threads_per_fft: 343,
            input_caching: InputCaching::L2Only,
            exchange_buffers: ExchangeBuffers::Alternating,
            ..key
        };
        let name = alternating.to_string();
        assert_eq!(
            name,
            "fftgen_c2c_n2401_r7x7x7x7_t343_m1_l2_x2_f32_inv_ip_normunitary"
        );
        assert_eq!(name.parse::<KernelKey>(), Ok(alternating));
    }
}
