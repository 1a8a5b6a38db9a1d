//! The kernel AST (rocFFT's generator, in Rust): high-level FFT operations
//! lower into these statements, and every node renders itself through a
//! [`Dialect`], with only the parentheses operator precedence requires.
//! Nothing here knows which backend it serves.

use super::dialect::Dialect;
pub use super::lang::{Builtin, Intrinsic, Param, ParamKind, Space, Type};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Binary operators, in C's precedence classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Lt,
    And,
}

impl BinOp {
    fn precedence(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 5,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Lt => 3,
            BinOp::And => 1,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Lt => "<",
            BinOp::And => "&&",
        }
    }

    /// Operators for which `a op (b op c)` differs from `(a op b) op c`.
    fn right_needs_parens_at_equal_precedence(self) -> bool {
        matches!(self, BinOp::Sub | BinOp::Div | BinOp::Rem | BinOp::Mul)
    }
}

/// Real or imaginary part of a complex value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Re,
    Im,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Var(String),
    /// An integer literal (unsigned in generated code).
    Uint(u64),
    /// A real literal in the kernel's precision.
    Real(f64),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Part(Box<Expr>, Part),
    Intrinsic(Intrinsic, Vec<Expr>),
    Call(String, Vec<Expr>),
    Builtin(Builtin),
    Complex(Box<Expr>, Box<Expr>),
    Cast(Type, Box<Expr>),
    /// `(cond ? then : otherwise)`: only the chosen side is evaluated.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A load of global memory (an `Index` into a buffer) that skips L1;
    /// see [`Dialect::l2_only_load`].
    L2OnlyLoad(Box<Expr>),
}

/// Shorthands that keep lowering code readable.
pub fn var(name: impl Into<String>) -> Expr {
    Expr::Var(name.into())
}

pub fn uint(value: usize) -> Expr {
    Expr::Uint(value as u64)
}

impl Expr {
    /// Builds `self op other`, folding the integer identities that index
    /// arithmetic produces for stride 1 or offset 0 (x + 0, x * 1, x / 1, x % 1).
    fn binary(self, op: BinOp, other: Expr) -> Expr {
        match (op, &self, &other) {
            (BinOp::Add, _, Expr::Uint(0)) | (BinOp::Mul | BinOp::Div, _, Expr::Uint(1)) => self,
            (BinOp::Add, Expr::Uint(0), _) | (BinOp::Mul, Expr::Uint(1), _) => other,
            (BinOp::Rem, _, Expr::Uint(1)) | (BinOp::Mul, _, Expr::Uint(0)) => Expr::Uint(0),
            _ => Expr::Binary(op, Box::new(self), Box::new(other)),
        }
    }
    pub fn add(self, other: Expr) -> Expr {
        self.binary(BinOp::Add, other)
    }
    pub fn sub(self, other: Expr) -> Expr {
        self.binary(BinOp::Sub, other)
    }
    pub fn mul(self, other: Expr) -> Expr {
        self.binary(BinOp::Mul, other)
    }
    pub fn div(self, other: Expr) -> Expr {
        self.binary(BinOp::Div, other)
    }
    pub fn rem(self, other: Expr) -> Expr {
        self.binary(BinOp::Rem, other)
    }
    pub fn lt(self, other: Expr) -> Expr {
        self.binary(BinOp::Lt, other)
    }
    pub fn and(self, other: Expr) -> Expr {
        self.binary(BinOp::And, other)
    }
    pub fn neg(self) -> Expr {
        Expr::Neg(Box::new(self))
    }
    pub fn at(self, index: Expr) -> Expr {
        Expr::Index(Box::new(self), Box::new(index))
    }
    pub fn re(self) -> Expr {
        Expr::Part(Box::new(self), Part::Re)
    }
    pub fn im(self) -> Expr {
        Expr::Part(Box::new(self), Part::Im)
    }
    pub fn select(cond: Expr, then: Expr, otherwise: Expr) -> Expr {
        Expr::Select(Box::new(cond), Box::new(then), Box::new(otherwise))
    }

    pub fn cast(self, ty: Type) -> Expr {
        Expr::Cast(ty, Box::new(self))
    }
    pub fn complex(re: Expr, im: Expr) -> Expr {
        Expr::Complex(Box::new(re), Box::new(im))
    }
    pub fn fma(a: Expr, b: Expr, c: Expr) -> Expr {
        Expr::Intrinsic(Intrinsic::Fma, vec![a, b, c])
    }
    pub fn call(name: impl Into<String>, args: Vec<Expr>) -> Expr {
        Expr::Call(name.into(), args)
    }
    /// This global-memory element, loaded through L2 only.
    pub fn l2_only(self) -> Expr {
        Expr::L2OnlyLoad(Box::new(self))
    }

    /// Precedence of the outermost operator (postfix and primary bind tightest).
    fn precedence(&self) -> u8 {
        match self {
            Expr::Binary(op, ..) => op.precedence(),
            Expr::Neg(_) | Expr::Cast(..) => 6,
            _ => 7,
        }
    }

    pub fn render(&self, d: &dyn Dialect) -> String {
        match self {
            Expr::Var(name) => name.clone(),
            Expr::Uint(v) => format!("{v}u"),
            Expr::Real(v) => d.real_literal(*v),
            Expr::Binary(op, a, b) => {
                let left = a.render_within(d, op.precedence(), false);
                let right = b.render_within(
                    d,
                    op.precedence(),
                    op.right_needs_parens_at_equal_precedence(),
                );
                format!("{left} {} {right}", op.symbol())
            }
            Expr::Neg(a) => format!("-{}", a.render_within(d, 6, true)),
            Expr::Index(a, i) => format!("{}[{}]", a.render_within(d, 7, false), i.render(d)),
            Expr::Part(a, part) => {
                let field = match part {
                    Part::Re => "x",
                    Part::Im => "y",
                };
                format!("{}.{field}", a.render_within(d, 7, false))
            }
            Expr::Intrinsic(f, args) => d.intrinsic(*f, &render_all(d, args)),
            Expr::Call(name, args) => format!("{name}({})", render_all(d, args).join(", ")),
            Expr::Builtin(b) => d.builtin(*b),
            Expr::Complex(re, im) => d.make_complex(&re.render(d), &im.render(d)),
            Expr::Cast(ty, a) => format!("({}){}", d.type_name(*ty), a.render_within(d, 6, false)),
            Expr::L2OnlyLoad(element) => d.l2_only_load(&element.render(d)),
            Expr::Select(cond, then, otherwise) => format!(
                "({} ? {} : {})",
                cond.render(d),
                then.render(d),
                otherwise.render(d)
            ),
        }
    }

    /// Renders as an operand of an operator of `precedence`.
    fn render_within(&self, d: &dyn Dialect, precedence: u8, strict: bool) -> String {
        let own = self.precedence();
        if own < precedence || (strict && own == precedence) {
            format!("({})", self.render(d))
        } else {
            self.render(d)
        }
    }
}

impl Expr {
    /// Adds the names of the functions this expression calls to `names`.
    fn collect_calls(&self, names: &mut BTreeSet<String>) {
        match self {
            Expr::Var(_) | Expr::Uint(_) | Expr::Real(_) | Expr::Builtin(_) => {}
            Expr::Neg(a) | Expr::Part(a, _) | Expr::Cast(_, a) | Expr::L2OnlyLoad(a) => {
                a.collect_calls(names)
            }
            Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Complex(a, b) => {
                a.collect_calls(names);
                b.collect_calls(names);
            }
            Expr::Select(cond, then, otherwise) => {
                for e in [cond, then, otherwise] {
                    e.collect_calls(names);
                }
            }
            Expr::Intrinsic(_, args) => args.iter().for_each(|a| a.collect_calls(names)),
            Expr::Call(name, args) => {
                names.insert(name.clone());
                args.iter().for_each(|a| a.collect_calls(names));
            }
        }
    }
}

fn render_all(d: &dyn Dialect, args: &[Expr]) -> Vec<String> {
    args.iter().map(|a| a.render(d)).collect()
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `const? ty name = init;`
    Let {
        ty: Type,
        name: String,
        init: Expr,
        constant: bool,
    },
    Array {
        space: Space,
        ty: Type,
        name: String,
        len: usize,
    },
    Assign(Expr, Expr),
    If(Expr, Vec<Stmt>),
    /// Block-wide barrier that also orders shared-memory accesses.
    Barrier,
    Comment(String),
    /// A `{ }` scope.
    Scope(Vec<Stmt>),
    /// An expression evaluated for its effect (a call).
    Expr(Expr),
    Return(Expr),
}

pub fn let_const(ty: Type, name: impl Into<String>, init: Expr) -> Stmt {
    Stmt::Let {
        ty,
        name: name.into(),
        init,
        constant: true,
    }
}

pub fn assign(target: Expr, value: Expr) -> Stmt {
    Stmt::Assign(target, value)
}

impl Stmt {
    /// Adds the names of the functions this statement calls to `names`.
    fn collect_calls(&self, names: &mut BTreeSet<String>) {
        match self {
            Stmt::Let { init: e, .. } | Stmt::Expr(e) | Stmt::Return(e) => e.collect_calls(names),
            Stmt::Assign(target, value) => {
                target.collect_calls(names);
                value.collect_calls(names);
            }
            Stmt::If(cond, body) => {
                cond.collect_calls(names);
                body.iter().for_each(|s| s.collect_calls(names));
            }
            Stmt::Scope(body) => body.iter().for_each(|s| s.collect_calls(names)),
            Stmt::Array { .. } | Stmt::Barrier | Stmt::Comment(_) => {}
        }
    }

    pub fn render_into(&self, d: &dyn Dialect, indent: usize, out: &mut String) {
        let pad = "    ".repeat(indent);
        match self {
            Stmt::Let {
                ty,
                name,
                init,
                constant,
            } => {
                let qualifier = if *constant { "const " } else { "" };
                let _ = writeln!(
                    out,
                    "{pad}{qualifier}{} {name} = {};",
                    d.type_name(*ty),
                    init.render(d)
                );
            }
            Stmt::Array {
                space: Space::DynamicShared { offset },
                ty,
                name,
                len,
            } => {
                let _ = writeln!(
                    out,
                    "{pad}{}",
                    d.dynamic_shared_array(&d.type_name(*ty), name, *len, *offset)
                );
            }
            Stmt::Array {
                space,
                ty,
                name,
                len,
            } => {
                let _ = writeln!(
                    out,
                    "{pad}{}{} {name}[{len}];",
                    d.space_qualifier(*space),
                    d.type_name(*ty)
                );
            }
            Stmt::Assign(target, value) => {
                let _ = writeln!(out, "{pad}{} = {};", target.render(d), value.render(d));
            }
            Stmt::If(cond, body) => {
                let _ = writeln!(out, "{pad}if ({}) {{", cond.render(d));
                for s in body {
                    s.render_into(d, indent + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Barrier => {
                let _ = writeln!(out, "{pad}{};", d.barrier());
            }
            Stmt::Comment(text) => {
                let _ = writeln!(out, "{pad}// {text}");
            }
            Stmt::Scope(body) => {
                let _ = writeln!(out, "{pad}{{");
                for s in body {
                    s.render_into(d, indent + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Expr(e) => {
                let _ = writeln!(out, "{pad}{};", e.render(d));
            }
            Stmt::Return(e) => {
                let _ = writeln!(out, "{pad}return {};", e.render(d));
            }
        }
    }
}

/// A kernel entry point or a device helper.
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionKind {
    /// An entry point; `min_blocks_per_sm` tells the compiler how many
    /// blocks must fit on one multiprocessor, which caps registers per thread.
    Kernel {
        threads_per_block: usize,
        min_blocks_per_sm: usize,
    },
    Helper {
        returns: Option<Type>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub kind: FunctionKind,
    pub name: String,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

impl Function {
    /// The names of the functions (helpers, butterflies) its body calls:
    /// a source file must define each of them before it.
    pub fn calls(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        self.body.iter().for_each(|s| s.collect_calls(&mut names));
        names
    }

    pub fn render(&self, d: &dyn Dialect) -> String {
        let params: Vec<String> = self.params.iter().map(|p| d.param(p)).collect();
        let prefix = match self.kind {
            FunctionKind::Kernel {
                threads_per_block,
                min_blocks_per_sm,
            } => d.kernel_prefix(threads_per_block, min_blocks_per_sm),
            FunctionKind::Helper { returns } => d.helper_prefix(returns),
        };
        let mut out = format!("{prefix} {}({})\n{{\n", self.name, params.join(", "));
        for s in &self.body {
            s.render_into(d, 1, &mut out);
        }
        out.push_str("}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::dialect::Cuda;
    use crate::Precision;

    #[test]
    fn parentheses_follow_precedence() {
        let d = Cuda::new(Precision::F32);
        let e = var("a")
            .sub(var("b").sub(var("c")))
            .mul(var("d").add(var("e")));
        assert_eq!(e.render(&d), "(a - (b - c)) * (d + e)");
        let e = var("a").add(var("b").mul(var("c"))).add(var("d"));
        assert_eq!(e.render(&d), "a + b * c + d");
        assert_eq!(var("x").neg().neg().render(&d), "-(-x)");
        assert_eq!(
            var("a").div(var("b").mul(var("c"))).render(&d),
            "a / (b * c)"
        );
        assert_eq!(
            var("j")
                .div(uint(1))
                .mul(uint(8))
                .add(var("j").rem(uint(1)))
                .add(uint(0))
                .render(&d),
            "j * 8u"
        );
    }
}
