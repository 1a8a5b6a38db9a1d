//! The shape choices: every decision about how a pass runs that a user, a
//! measurement (wisdom) or the tuner may make in place of the planner,
//! written once. The spec carries them, the command line parses them (clap,
//! behind this crate's `clap` feature), wisdom files store them (serde, with
//! the command line's spellings), the bench takes them per size and tune
//! varies them. Adding a choice is a field here plus the lowering that reads
//! it (cuFFTDx's execution description: block shape, elements per thread,
//! FFTs per block, kept apart from what the transform is).

use super::{
    ColumnIo, ExchangeBuffers, ExchangeWidth, FirstWrite, InputCaching, PaddingSearch, Pass, Plan,
    StepTwiddleForm, TwiddleTables,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Choices made in place of the planner; `None` leaves one to it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct ShapeChoices {
    /// Radix sequence, first stage first (e.g. 8,8,8,8); the planner chooses
    /// when omitted.
    #[serde(rename = "radix", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long = "radix", value_delimiter = ','))]
    pub radices: Option<Vec<usize>>,
    /// Threads that cooperate on one transform. Fewer hold more values each
    /// (more registers, fewer idle lanes); more hold fewer (more resident
    /// warps).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub threads_per_fft: Option<usize>,
    /// CUDA launch bound: blocks that must fit on one SM together, which caps
    /// registers per thread (OpenCL C has no such hint and ignores it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub min_blocks_per_sm: Option<usize>,
    /// Transforms one block computes. More share barriers; fewer let blocks
    /// finish and start independently.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub ffts_per_block: Option<usize>,
    /// Caches the input loads go through: l1-and-l2, or l2-only (CUDA's
    /// `ld.global.cg`, so the twiddle table keeps L1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub input_caching: Option<InputCaching>,
    /// Shared exchange arrays: one set reused by every stage (reused: two
    /// barriers per exchange) or two written in turn (alternating: one
    /// barrier, twice the shared memory).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub exchange_buffers: Option<ExchangeBuffers>,
    /// Complex values through shared memory: both-parts at once in two
    /// arrays, one-part-at-a-time (half the shared memory, twice the
    /// barriers) or interleaved (one array of complex values).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub exchange_width: Option<ExchangeWidth>,
    /// Whether the block synchronises before the first stage's shared-memory
    /// writes (after-barrier) or each warp stores at once (immediate).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub first_write: Option<FirstWrite>,
    /// Which exchanges get a searched shared-memory padding: those of
    /// even-radices or of all-radices.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub padding_search: Option<PaddingSearch>,
    /// How stages read their twiddles: direct (one table entry each) or
    /// split-large (stages whose table slice would pass 16 KiB read the
    /// product of two tables of about sqrt(span) entries, which stay in L1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub twiddle_tables: Option<TwiddleTables>,
    /// Plans of several passes: the lengths of the passes an axis is split
    /// into, first pass first (e.g. 16,16,4096 for 2^20: the four-step FFT
    /// over three passes); the axis is the one whose length is their
    /// product. The planner splits into as few passes as it can otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub split: Option<Vec<usize>>,
    /// Plans of several passes: how column passes move their strided sides,
    /// through a shared-memory tile (tile) or straight between global
    /// memory and registers where that coalesces (global, seed 000 IV.A).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub column_io: Option<ColumnIo>,
    /// Plans of several passes: how a pass that stores straight from
    /// registers forms its four-step twiddles, per-point (two table loads per
    /// point, which differ from lane to lane) or base-times-stride (one such
    /// pair per butterfly, times roots a warp shares).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(long))]
    pub step_twiddles: Option<StepTwiddleForm>,
}

impl ShapeChoices {
    /// Every choice `pass` made, pinned: planning with them gives `pass`
    /// again, and a variant differs from it only where it is changed.
    pub fn pinned(pass: &Pass) -> ShapeChoices {
        ShapeChoices {
            radices: Some(pass.radices()),
            threads_per_fft: Some(pass.threads_per_fft),
            min_blocks_per_sm: Some(pass.min_blocks_per_sm),
            ffts_per_block: Some(pass.ffts_per_block),
            input_caching: Some(pass.input_caching),
            exchange_buffers: Some(pass.exchange_buffers),
            exchange_width: Some(pass.exchange_width),
            first_write: Some(pass.first_write),
            padding_search: Some(pass.padding_search),
            twiddle_tables: Some(pass.twiddle_tables),
            split: None,
            column_io: None,
            step_twiddles: None,
        }
    }

    /// The choices that plan `plan` again: those of its one pass, pinned,
    /// or for a plan of several passes its split and column I/O (each
    /// pass's shape stays the planner's).
    pub fn pinned_plan(plan: &Plan) -> ShapeChoices {
        if let [pass] = plan.passes.as_slice() {
            return ShapeChoices::pinned(pass);
        }
        ShapeChoices {
            split: plan
                .axis_factors
                .iter()
                .rev()
                .find(|factors| factors.len() > 1)
                .cloned(),
            column_io: Some(plan.column_io),
            step_twiddles: plan
                .passes
                .iter()
                .find_map(|p| p.step_twiddle.map(|t| t.form)),
            ..ShapeChoices::default()
        }
    }

    /// The choices of the passes' shapes alone: those a plan of several
    /// passes cannot take (its passes are shaped by the planner).
    pub fn one_kernel_only(&self) -> ShapeChoices {
        ShapeChoices {
            split: None,
            column_io: None,
            step_twiddles: None,
            ..self.clone()
        }
    }

    /// The choices only a plan of several passes takes.
    pub fn several_passes_only(&self) -> ShapeChoices {
        ShapeChoices {
            split: self.split.clone(),
            column_io: self.column_io,
            step_twiddles: self.step_twiddles,
            ..ShapeChoices::default()
        }
    }

    /// Each choice made, as its command-line flag (without `--`) and value,
    /// in declaration order: `[("radix", "8,8,8,8"), ("threads-per-fft", "256")]`.
    pub fn flags(&self) -> Vec<(String, String)> {
        let Value::Object(fields) = self.to_value() else {
            unreachable!("a struct serialises to an object")
        };
        fields
            .into_iter()
            .map(|(flag, value)| {
                let text = match value {
                    Value::Array(items) => items
                        .iter()
                        .map(|item| item.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                (flag, text)
            })
            .collect()
    }

    /// These choices, with those left open taken from `fallback`.
    pub fn or(&self, fallback: &ShapeChoices) -> ShapeChoices {
        let (Value::Object(mut merged), Value::Object(mine)) =
            (fallback.to_value(), self.to_value())
        else {
            unreachable!("a struct serialises to an object")
        };
        merged.extend(mine);
        serde_json::from_value(Value::Object(merged)).expect("fields of the same struct")
    }

    /// Whether every choice is left to the planner.
    pub fn is_empty(&self) -> bool {
        *self == ShapeChoices::default()
    }

    fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("shape choices always serialise")
    }
}

/// The command-line flags, e.g. `--radix 8,8,8,8 --threads-per-fft 256`.
impl fmt::Display for ShapeChoices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flags: Vec<String> = self
            .flags()
            .into_iter()
            .map(|(flag, value)| format!("--{flag} {value}"))
            .collect();
        f.write_str(&flags.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> ShapeChoices {
        ShapeChoices {
            radices: Some(vec![7, 7, 7, 7]),
            threads_per_fft: Some(343),
            exchange_width: Some(ExchangeWidth::Interleaved),
            padding_search: Some(PaddingSearch::AllRadices),
            ..ShapeChoices::default()
        }
    }

    #[test]
    fn flags_use_the_command_line_spelling_in_declaration_order() {
        assert_eq!(
            example().to_string(),
            "--radix 7,7,7,7 --threads-per-fft 343 --exchange-width interleaved \
             --padding-search all-radices"
        );
        assert_eq!(ShapeChoices::default().to_string(), "");
    }

    #[test]
    fn json_round_trips_and_rejects_unknown_keys() {
        let json = serde_json::to_string(&example()).unwrap();
        assert_eq!(
            json,
            r#"{"radix":[7,7,7,7],"threads-per-fft":343,"exchange-width":"interleaved","padding-search":"all-radices"}"#
        );
        assert_eq!(
            serde_json::from_str::<ShapeChoices>(&json).unwrap(),
            example()
        );
        let unknown = serde_json::from_str::<ShapeChoices>(r#"{"radices":[8]}"#).unwrap_err();
        assert!(
            unknown.to_string().contains("unknown field `radices`"),
            "{unknown}"
        );
        let bad = serde_json::from_str::<ShapeChoices>(r#"{"first-write":"never"}"#).unwrap_err();
        assert!(
            bad.to_string().contains("after-barrier, immediate"),
            "{bad}"
        );
    }

    #[test]
    fn choices_made_win_over_the_fallback() {
        let fallback = ShapeChoices {
            radices: Some(vec![49, 49]),
            min_blocks_per_sm: Some(4),
            ..ShapeChoices::default()
        };
        let merged = example().or(&fallback);
        assert_eq!(merged.radices, Some(vec![7, 7, 7, 7]));
        assert_eq!(merged.min_blocks_per_sm, Some(4));
        assert_eq!(merged.threads_per_fft, Some(343));
        assert_eq!(ShapeChoices::default().or(&fallback), fallback);
    }
}
