//! The typed key that names a kernel. The name encodes every parameter that
//! changes the generated code and parses back (rocFFT's kernel names, made
//! reversible so nothing re-parses meaning out of strings by hand).

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
        write!(
            f,
            "fftgen_c2c_n{}_r{}_t{}_m{}_{}_{}_{}_norm{}",
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
        let fields: Vec<&str> = rest.split('_').collect();
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
        assert_eq!(name.parse::<KernelKey>(), Ok(key));
        assert!("fftgen_c2c_n12".parse::<KernelKey>().is_err());
    }
}
