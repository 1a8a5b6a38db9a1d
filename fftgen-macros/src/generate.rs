//! Runs the generator for a checked call and turns each of its errors into a
//! compile error at the token that caused it: size errors at the `n` value,
//! radix errors at the radix list (or the one radix that is unsupported).
//! The message is the generator's own, which already says what to do.

use crate::args::KernelArgs;
use fftgen::{Error as GenError, Generated};
use proc_macro2::{Span, TokenStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use syn::Error;

/// Sizes above this are rejected before planning: no plan comes near it,
/// and factoring a huge prime would stall the compiler.
const SIZE_CHECKED_BEFORE_PLANNING: usize = 1 << 32;

/// The sources and manifest for `args`, or a spanned error.
pub fn generate(args: &KernelArgs) -> syn::Result<Generated> {
    let spec = &args.spec;
    if spec.n() > SIZE_CHECKED_BEFORE_PLANNING {
        let max = fftgen::plan::validate::MAX_POINTS;
        return Err(spanned(
            args,
            &GenError::TooLarge {
                n: spec.n(),
                precision: spec.precision,
                max,
            },
        ));
    }
    match catch_unwind(AssertUnwindSafe(|| {
        fftgen::generate(spec, &args.invocation)
    })) {
        Ok(Ok(generated)) => Ok(generated),
        Ok(Err(error)) => Err(spanned(args, &error)),
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error::new(
                Span::call_site(),
                format!(
                    "fftgen panicked while generating `{}` (a bug in fftgen; please report it with this call): {detail}",
                    args.invocation
                ),
            ))
        }
    }
}

/// The generator's error, placed on the token it is about.
fn spanned(args: &KernelArgs, error: &GenError) -> Error {
    let radix_list = args.radix_tokens.as_ref().map(|r| r.list.clone());
    let at: Option<TokenStream> = match error {
        GenError::ZeroSize
        | GenError::TrivialSize
        | GenError::PrimeAxisUnsupported { .. }
        | GenError::TooLarge { .. } => Some(args.n_tokens.clone()),
        GenError::ChoiceWithBluestein { .. } => radix_list.or_else(|| Some(args.n_tokens.clone())),
        GenError::UnsupportedRadix { radix } => args
            .radix_tokens
            .as_ref()
            .and_then(|r| r.elements.iter().find(|(value, _)| value == radix))
            .map(|(_, tokens)| tokens.clone())
            .or(radix_list),
        GenError::EmptyRadixList
        | GenError::RadixProduct { .. }
        | GenError::UnlaunchableRadices { .. } => {
            radix_list.or_else(|| Some(args.n_tokens.clone()))
        }
        GenError::NoDirection => args.direction_tokens.clone(),
        // Template errors (fftgen bugs) and any variant added later.
        _ => None,
    };
    match at {
        Some(tokens) => Error::new_spanned(tokens, error),
        None => Error::new(Span::call_site(), error),
    }
}
