//! The arguments of `fft_kernel!`: `key = value` pairs separated by commas,
//! parsed into an [`FftSpec`] plus the tokens each value came from, so that
//! errors found later (by the generator) can still point at the value to fix.
//! Values are parsed as expressions first and checked per key afterwards, so a
//! value of the wrong form gets a message that names the key and shows the
//! form it takes, rather than a bare parse error.

use fftgen::{Direction, FftSpec, Normalization, Placement, Precision, TransformKind};
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Error, Expr, Ident, Lit, LitInt, Result, Token};

/// Every key the macro accepts, in the order the documentation lists them.
const KEYS: [&str; 9] = [
    "n",
    "shape",
    "kind",
    "radix",
    "precision",
    "direction",
    "normalization",
    "placement",
    "name",
];

/// A parsed, checked `fft_kernel!` call.
pub struct KernelArgs {
    /// The transform to generate.
    pub spec: FftSpec,
    /// Whether the caller gave `direction` explicitly.
    pub direction_tokens: Option<TokenStream>,
    /// The tokens of the `n` value (or of the `shape` list), where size
    /// errors point.
    pub n_tokens: TokenStream,
    /// The tokens of the radix list, if one was given.
    pub radix_tokens: Option<RadixTokens>,
    /// The struct name the caller chose, if any.
    pub name: Option<Ident>,
    /// The call as written, normalised: `fft_kernel!(n = 4096, radix = [8, 8, 8, 8])`.
    pub invocation: String,
}

/// Where the radix list and each of its elements were written.
pub struct RadixTokens {
    pub list: TokenStream,
    pub elements: Vec<(usize, TokenStream)>,
}

/// One `key = value` pair, before its value is checked.
struct Entry {
    key: Ident,
    value: Expr,
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> Result<Self> {
        let key = Ident::parse_any(input).map_err(|e| {
            Error::new(
                e.span(),
                format!(
                    "expected a key such as `n = 4096`; valid keys are: {}",
                    KEYS.join(", ")
                ),
            )
        })?;
        if !input.peek(Token![=]) {
            return Err(input.error(format!("expected `=` after `{key}`, as in `n = 4096`")));
        }
        input.parse::<Token![=]>()?;
        let value = input.parse::<Expr>()?;
        Ok(Entry { key, value })
    }
}

impl Parse for KernelArgs {
    fn parse(input: ParseStream) -> Result<Self> {
        let entries = Punctuated::<Entry, Token![,]>::parse_terminated(input)?;
        let mut seen: Vec<String> = Vec::new();
        let mut rendered = Vec::new();
        let mut spec = FftSpec::new(0);
        let mut n_tokens = None;
        let mut radix_tokens = None;
        let mut direction_tokens = None;
        let mut name = None;

        for Entry { key, value } in &entries {
            let key_text = key.unraw().to_string();
            if !KEYS.contains(&key_text.as_str()) {
                return Err(Error::new(
                    key.span(),
                    format!(
                        "unknown key `{key_text}`; valid keys are: {}",
                        KEYS.join(", ")
                    ),
                ));
            }
            if seen.contains(&key_text) {
                return Err(Error::new(
                    key.span(),
                    format!("duplicate key `{key_text}`; give each key once and remove this one"),
                ));
            }
            seen.push(key_text.clone());
            if (key_text == "n" || key_text == "shape") && n_tokens.is_some() {
                return Err(Error::new(
                    key.span(),
                    "`n` and `shape` are exclusive: `n = 4096` means `shape = [4096]`; \
                     give one of them and remove this one",
                ));
            }
            match key_text.as_str() {
                "n" => {
                    spec.shape = vec![integer(value, "`n`", "n = 4096")?];
                    n_tokens = Some(value.to_token_stream());
                }
                "shape" => {
                    spec.shape = shape_list(value)?;
                    n_tokens = Some(value.to_token_stream());
                }
                "kind" => spec.kind = kind(value)?,
                "radix" => {
                    let radices = radix_list(value)?;
                    spec.choices.radices = Some(radices.elements.iter().map(|&(r, _)| r).collect());
                    radix_tokens = Some(radices);
                }
                "precision" => {
                    spec.precision = match word(value, "precision", &["f32", "f64"])? {
                        "f32" => Precision::F32,
                        _ => Precision::F64,
                    };
                }
                "direction" => {
                    spec.directions =
                        match word(value, "direction", &["forward", "inverse", "both"])? {
                            "forward" => vec![Direction::Forward],
                            "inverse" => vec![Direction::Inverse],
                            _ => vec![Direction::Forward, Direction::Inverse],
                        };
                    direction_tokens = Some(value.to_token_stream());
                }
                "normalization" => {
                    spec.normalization =
                        match word(value, "normalization", &["none", "inverse", "unitary"])? {
                            "none" => Normalization::None,
                            "inverse" => Normalization::Inverse,
                            _ => Normalization::Unitary,
                        };
                }
                "placement" => {
                    spec.placement = match word(value, "placement", &["out_of_place", "in_place"])?
                    {
                        "out_of_place" => Placement::OutOfPlace,
                        _ => Placement::InPlace,
                    };
                }
                _ => name = Some(identifier(value)?),
            }
            rendered.push(format!("{key_text} = {}", render(value)));
        }

        let n_tokens = n_tokens.ok_or_else(|| {
            Error::new(
                Span::call_site(),
                "missing `n`: give the transform length, e.g. `fft_kernel!(n = 4096, radix = [8, 8, 8, 8])`, \
                 or a shape, e.g. `fft_kernel!(shape = [1024, 1024])`",
            )
        })?;
        Ok(KernelArgs {
            spec,
            direction_tokens,
            n_tokens,
            radix_tokens,
            name,
            invocation: format!("fft_kernel!({})", rendered.join(", ")),
        })
    }
}

/// The value of an unsuffixed (or `usize`) integer literal; `what` names it
/// in messages (`n`, `each radix`).
fn integer(value: &Expr, what: &str, example: &str) -> Result<usize> {
    let not_literal = || {
        Error::new_spanned(
            value,
            format!(
                "{what} must be an integer literal, as in `{example}`; the macro runs before constants \
                 and expressions have values, so write the number itself"
            ),
        )
    };
    match value {
        Expr::Lit(lit) if lit.attrs.is_empty() => match &lit.lit {
            Lit::Int(int) => usize_literal(int, what),
            _ => Err(not_literal()),
        },
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => Err(Error::new_spanned(
            value,
            format!("{what} must be positive, as in `{example}`"),
        )),
        Expr::Group(group) => integer(&group.expr, what, example),
        _ => Err(not_literal()),
    }
}

fn usize_literal(int: &LitInt, what: &str) -> Result<usize> {
    if !matches!(int.suffix(), "" | "usize") {
        return Err(Error::new(
            int.span(),
            format!("{what} is a usize; drop the `{}` suffix", int.suffix()),
        ));
    }
    int.base10_parse::<usize>().map_err(|_| {
        Error::new(
            int.span(),
            format!(
                "{} does not fit in a usize; {what} must be far smaller",
                int.base10_digits()
            ),
        )
    })
}

/// A bracketed list of integer literals, with the tokens of each element.
fn radix_list(value: &Expr) -> Result<RadixTokens> {
    let Expr::Array(array) = value else {
        return Err(Error::new_spanned(
            value,
            "`radix` takes a list of integer literals whose product is n, as in `radix = [8, 8, 8, 8]`",
        ));
    };
    let elements = array
        .elems
        .iter()
        .map(|element| {
            Ok((
                integer(element, "each radix", "radix = [8, 8, 8, 8]")?,
                element.to_token_stream(),
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RadixTokens {
        list: value.to_token_stream(),
        elements,
    })
}

/// A bracketed list of 1 to 3 axis lengths, first axis first, each at least 1.
fn shape_list(value: &Expr) -> Result<Vec<usize>> {
    let example = "shape = [1024, 1024]";
    let Expr::Array(array) = value else {
        return Err(Error::new_spanned(
            value,
            format!("`shape` takes a list of axis lengths, first axis first, as in `{example}`"),
        ));
    };
    if array.elems.is_empty() || array.elems.len() > 3 {
        return Err(Error::new_spanned(
            value,
            format!(
                "`shape` lists 1 to 3 axis lengths, as in `{example}`; this list has {}",
                array.elems.len()
            ),
        ));
    }
    array
        .elems
        .iter()
        .map(
            |element| match integer(element, "each axis of `shape`", example)? {
                0 => Err(Error::new_spanned(
                    element,
                    "an axis of length 0 holds no points; every axis of `shape` must be at least 1",
                )),
                length => Ok(length),
            },
        )
        .collect()
}

/// One of `valid`, written as an identifier or a string literal.
fn word(value: &Expr, key: &str, valid: &[&'static str]) -> Result<&'static str> {
    let expected = || {
        valid
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = match value {
        Expr::Path(path) if path.attrs.is_empty() && path.qself.is_none() => {
            path.path.get_ident().map(|ident| ident.unraw().to_string())
        }
        Expr::Lit(lit) if lit.attrs.is_empty() => match &lit.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    };
    let Some(text) = text else {
        return Err(Error::new_spanned(
            value,
            format!("`{key}` takes one of {}", expected()),
        ));
    };
    valid.iter().copied().find(|&v| v == text).ok_or_else(|| {
        Error::new_spanned(
            value,
            format!(
                "`{text}` is not a valid {key}; expected one of {}",
                expected()
            ),
        )
    })
}

/// `c2c` or `r2c`.
fn kind(value: &Expr) -> Result<TransformKind> {
    match word(value, "kind", &["c2c", "r2c"]) {
        Ok("r2c") => Ok(TransformKind::R2c),
        Ok(_) => Ok(TransformKind::C2c),
        // C2R is the inverse of `r2c` rather than a kind of its own.
        Err(_) if word(value, "kind", &["c2r"]).is_ok() => Err(Error::new_spanned(
            value,
            "`c2r` is not a kind: `kind = r2c` generates the R2C (forward) and the C2R \
             (inverse) kernels; add `direction = inverse` for the C2R alone",
        )),
        Err(e) => Err(e),
    }
}

/// The struct name: a plain identifier.
fn identifier(value: &Expr) -> Result<Ident> {
    match value {
        Expr::Path(path) if path.attrs.is_empty() && path.qself.is_none() => {
            path.path.get_ident().cloned().ok_or_else(|| {
                Error::new_spanned(
                    value,
                    "`name` takes a plain identifier, as in `name = Fft4096`",
                )
            })
        }
        _ => Err(Error::new_spanned(
            value,
            "`name` takes an identifier, as in `name = Fft4096`",
        )),
    }
}

/// A checked value as the header records it: literals and identifiers as
/// written, lists as `[a, b, c]`.
fn render(value: &Expr) -> String {
    match value {
        Expr::Array(array) => {
            let elements: Vec<String> = array.elems.iter().map(render).collect();
            format!("[{}]", elements.join(", "))
        }
        Expr::Group(group) => render(&group.expr),
        other => other.to_token_stream().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(call: &str) -> Result<KernelArgs> {
        syn::parse_str(call)
    }

    #[test]
    fn kind_takes_c2c_and_r2c() {
        let real = parse("n = 4096, kind = r2c").unwrap();
        assert_eq!(real.spec.kind, TransformKind::R2c);
        assert_eq!(real.invocation, "fft_kernel!(n = 4096, kind = r2c)");
        assert_eq!(
            parse(r#"n = 64, kind = "c2c""#).unwrap().spec.kind,
            TransformKind::C2c
        );
        assert_eq!(parse("n = 64").unwrap().spec.kind, TransformKind::C2c);
    }

    /// SplitMix64: the test's own seeded generator (the macro crate has no
    /// dependency to spare for one).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
            options[self.next() as usize % options.len()]
        }
    }

    /// A value for `key`, valid or not: what a user might write.
    fn value(rng: &mut Rng, key: &str) -> String {
        let numbers = [
            "0", "1", "2", "8", "64", "1000", "4096", "6561", "97", "-4", "1e3",
        ];
        let number = rng.pick(&numbers).to_string();
        let list = |rng: &mut Rng, len: u64| {
            let items: Vec<&str> = (0..len).map(|_| rng.pick(&numbers)).collect();
            format!("[{}]", items.join(", "))
        };
        match (key, rng.next() % 4) {
            (_, 0) => rng
                .pick(&[
                    "\"x\"",
                    "[]",
                    "foo",
                    "18446744073709551616",
                    "(1, 2)",
                    "[[2]]",
                    "1.5",
                ])
                .to_string(),
            ("n", _) => number,
            ("shape", _) | ("radix", _) => {
                let len = 1 + rng.next() % 4;
                list(rng, len)
            }
            ("kind", _) => rng.pick(&["c2c", "r2c", "\"r2c\"", "c2r"]).to_string(),
            ("precision", _) => rng.pick(&["f32", "f64", "f16"]).to_string(),
            ("direction", _) => rng.pick(&["forward", "inverse", "both", "up"]).to_string(),
            ("normalization", _) => rng.pick(&["none", "inverse", "unitary", "all"]).to_string(),
            ("placement", _) => rng
                .pick(&["in_place", "out_of_place", "inplace"])
                .to_string(),
            _ => rng
                .pick(&["MyFft", "\"MyFft\"", "1abc", "r#type"])
                .to_string(),
        }
    }

    /// Random calls, valid and not, through the parser and the generator:
    /// each gives kernels or a compile-time error with a message, never a
    /// panic.
    #[test]
    fn random_calls_generate_or_say_why_and_never_panic() {
        let mut rng = Rng(2026_11_25);
        let (mut generated, mut refused) = (0, 0);
        for case in 0..400 {
            let mut keys = KEYS.to_vec();
            keys.push("radices");
            let pairs: Vec<String> = (0..1 + rng.next() % 4)
                .map(|_| {
                    let key = rng.pick(&keys);
                    format!("{key} = {}", value(&mut rng, key))
                })
                .collect();
            let call = pairs.join(", ");
            let outcome = std::panic::catch_unwind(|| {
                let args = parse(&call)?;
                crate::generate::generate(&args).map(|_| ())
            });
            match outcome {
                Ok(Ok(())) => generated += 1,
                Ok(Err(e)) => {
                    refused += 1;
                    assert!(!e.to_string().is_empty(), "case {case}: `{call}`");
                }
                Err(_) => panic!("case {case}: `{call}` panicked"),
            }
        }
        eprintln!("{generated} generated, {refused} refused");
        assert!(
            generated > 10 && refused > 100,
            "{generated} generated, {refused} refused"
        );
    }

    #[test]
    fn other_kinds_say_what_to_write() {
        let message = |call: &str| parse(call).err().expect(call).to_string();
        assert_eq!(
            message("n = 64, kind = real"),
            "`real` is not a valid kind; expected one of `c2c`, `r2c`"
        );
        assert!(message("n = 64, kind = c2r").contains("add `direction = inverse`"));
        assert!(message("n = 64, kind = [1]").contains("`kind` takes one of `c2c`, `r2c`"));
    }
}
