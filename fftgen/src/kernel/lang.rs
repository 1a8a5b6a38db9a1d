//! The words of the kernel language that both the AST ([`super::ast`]) and
//! the dialects ([`super::dialect`]) name: value types, address spaces,
//! hardware builtins, intrinsics and parameters. The AST builds with them
//! and renders through a dialect; a dialect spells them. Neither imports
//! the other's internals, so the arrows point one way: ast -> dialect ->
//! lang.

/// Value types; the dialect names them for the kernel's precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// The kernel's real type (float or double).
    Real,
    /// The kernel's complex type (float2 or double2).
    Complex,
    /// 32-bit unsigned integer.
    Uint,
    /// 64-bit unsigned integer, for offsets into large batches.
    Index,
    Bool,
    /// A pointer to reals in global memory, for casts: the reals of an
    /// in-place real transform, addressed through its complex buffer.
    GlobalReals,
}

/// Functions whose spelling differs between dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intrinsic {
    /// Fused multiply-add `a * b + c`.
    Fma,
}

/// Values the hardware provides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    ThreadIndex,
    BlockIndex,
}

/// Memory a declared array lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// Per-thread registers.
    Private,
    /// Shared by the block (CUDA `__shared__`, OpenCL `__local`).
    Shared,
    /// Shared by the block, carved at `offset` bytes from the memory the
    /// launch requests (CUDA's dynamic shared memory, which alone may go
    /// past 48 KiB); OpenCL declares it like [`Space::Shared`].
    DynamicShared { offset: usize },
}

/// How a function parameter is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A pointer to global memory.
    Global {
        ty: Type,
        read_only: bool,
        restrict: bool,
    },
    /// A pointer to the caller's registers (a private array).
    Private(Type),
    Value(Type),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}
