//! Every difference between CUDA C++ and OpenCL C, in one place (where VkFFT
//! spreads `#if`s over thirty files). Lowering builds one AST; a `Dialect`
//! spells it.

use super::lang::{Builtin, Intrinsic, Param, ParamKind, Space, Type};
use crate::{Backend, Precision};

/// How one kernel language spells the constructs the AST uses.
pub trait Dialect {
    fn backend(&self) -> Backend;
    fn precision(&self) -> Precision;

    /// Lines every source file starts with (extensions, helper macros).
    fn prelude(&self) -> String;
    /// Qualifiers and return type of a kernel entry point.
    fn kernel_prefix(&self, threads_per_block: usize, min_blocks_per_sm: usize) -> String;
    /// Qualifiers and return type of an inlined helper.
    fn helper_prefix(&self, returns: Option<Type>) -> String;
    /// The address-space qualifier of a global pointer (`__global `).
    fn global_qualifier(&self) -> &'static str;
    /// The no-alias qualifier of a pointer, with its trailing space.
    fn restrict_qualifier(&self) -> &'static str;
    /// The 32- and 64-bit unsigned integer types.
    fn unsigned_names(&self) -> (&'static str, &'static str);
    fn space_qualifier(&self, space: Space) -> &'static str;
    fn barrier(&self) -> &'static str;
    fn builtin(&self, builtin: Builtin) -> String;
    fn intrinsic(&self, f: Intrinsic, args: &[String]) -> String;
    fn make_complex(&self, re: &str, im: &str) -> String;
    /// Loads `element` (a global buffer indexed) through L2 only, leaving L1
    /// to data that is read again.
    fn l2_only_load(&self, element: &str) -> String;

    /// The declaration of array `name` of `len` values of type `ty` in
    /// dynamic shared memory at `offset` bytes; by default a static one.
    fn dynamic_shared_array(&self, ty: &str, name: &str, len: usize, _offset: usize) -> String {
        format!("{}{ty} {name}[{len}];", self.space_qualifier(Space::Shared))
    }

    fn param(&self, param: &Param) -> String {
        match param.kind {
            ParamKind::Global {
                ty,
                read_only,
                restrict,
            } => format!(
                "{}{}{}* {}{}",
                self.global_qualifier(),
                if read_only { "const " } else { "" },
                self.type_name(ty),
                if restrict {
                    self.restrict_qualifier()
                } else {
                    ""
                },
                param.name
            ),
            ParamKind::Private(ty) => format!("{}* {}", self.type_name(ty), param.name),
            ParamKind::Value(ty) => format!("const {} {}", self.type_name(ty), param.name),
        }
    }

    fn type_name(&self, ty: Type) -> String {
        let (uint, index) = self.unsigned_names();
        match ty {
            Type::Real => self.real_name().into(),
            Type::Complex => self.complex_name().into(),
            Type::Uint => uint.into(),
            Type::Index => index.into(),
            Type::Bool => "bool".into(),
            Type::GlobalReals => format!("{}{}*", self.global_qualifier(), self.real_name()),
        }
    }

    /// A real literal that reads back as exactly the value rounded to the
    /// kernel's precision.
    fn real_literal(&self, value: f64) -> String {
        let text = match self.precision() {
            Precision::F32 => format!("{:?}f", value as f32),
            Precision::F64 => format!("{value:?}"),
        };
        if value.is_sign_negative() {
            format!("({text})")
        } else {
            text
        }
    }

    fn real_name(&self) -> &'static str {
        match self.precision() {
            Precision::F32 => "float",
            Precision::F64 => "double",
        }
    }

    fn complex_name(&self) -> &'static str {
        match self.precision() {
            Precision::F32 => "float2",
            Precision::F64 => "double2",
        }
    }
}

/// The dialect for `backend` and `precision`.
pub fn dialect(backend: Backend, precision: Precision) -> Box<dyn Dialect> {
    match backend {
        Backend::Cuda => Box::new(Cuda::new(precision)),
        Backend::OpenCl => Box::new(OpenCl::new(precision)),
    }
}

/// CUDA C++ as NVRTC compiles it (no headers needed: NVRTC provides the
/// vector types and `make_float2`).
#[derive(Debug, Clone, Copy)]
pub struct Cuda {
    precision: Precision,
}

impl Cuda {
    pub fn new(precision: Precision) -> Cuda {
        Cuda { precision }
    }
}

impl Dialect for Cuda {
    fn backend(&self) -> Backend {
        Backend::Cuda
    }
    fn precision(&self) -> Precision {
        self.precision
    }
    fn prelude(&self) -> String {
        String::new()
    }
    fn kernel_prefix(&self, threads_per_block: usize, min_blocks_per_sm: usize) -> String {
        format!("extern \"C\" __global__ void __launch_bounds__({threads_per_block}, {min_blocks_per_sm})")
    }
    fn helper_prefix(&self, returns: Option<Type>) -> String {
        let ret = returns.map_or_else(|| "void".to_string(), |t| self.type_name(t));
        format!("static __device__ __forceinline__ {ret}")
    }
    fn global_qualifier(&self) -> &'static str {
        ""
    }
    fn restrict_qualifier(&self) -> &'static str {
        "__restrict__ "
    }
    fn unsigned_names(&self) -> (&'static str, &'static str) {
        ("unsigned int", "unsigned long long")
    }
    fn space_qualifier(&self, space: Space) -> &'static str {
        match space {
            Space::Private => "",
            Space::Shared => "__shared__ ",
            Space::DynamicShared { .. } => "",
        }
    }
    fn dynamic_shared_array(&self, ty: &str, name: &str, _len: usize, offset: usize) -> String {
        let declare = match offset {
            0 => "extern __shared__ __align__(16) unsigned char fftgen_dynamic_shared[];\n    ",
            _ => "",
        };
        format!("{declare}{ty}* const {name} = ({ty}*)(fftgen_dynamic_shared + {offset});")
    }
    fn barrier(&self) -> &'static str {
        "__syncthreads()"
    }
    fn builtin(&self, builtin: Builtin) -> String {
        match builtin {
            Builtin::ThreadIndex => "threadIdx.x".into(),
            Builtin::BlockIndex => "blockIdx.x".into(),
        }
    }
    fn intrinsic(&self, f: Intrinsic, args: &[String]) -> String {
        let name = match (f, self.precision) {
            (Intrinsic::Fma, Precision::F32) => "fmaf",
            (Intrinsic::Fma, Precision::F64) => "fma",
        };
        format!("{name}({})", args.join(", "))
    }
    fn make_complex(&self, re: &str, im: &str) -> String {
        format!("make_{}({re}, {im})", self.complex_name())
    }
    fn l2_only_load(&self, element: &str) -> String {
        // ld.global.cg: cache at the global level (L2), not in L1.
        format!("__ldcg(&{element})")
    }
}

/// OpenCL C 1.2.
#[derive(Debug, Clone, Copy)]
pub struct OpenCl {
    precision: Precision,
}

impl OpenCl {
    pub fn new(precision: Precision) -> OpenCl {
        OpenCl { precision }
    }
}

impl Dialect for OpenCl {
    fn backend(&self) -> Backend {
        Backend::OpenCl
    }
    fn precision(&self) -> Precision {
        self.precision
    }
    fn prelude(&self) -> String {
        match self.precision {
            Precision::F64 => "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n".into(),
            Precision::F32 => String::new(),
        }
    }
    fn kernel_prefix(&self, threads_per_block: usize, _min_blocks_per_sm: usize) -> String {
        // OpenCL C has no occupancy hint; the work-group size is fixed.
        format!("__kernel __attribute__((reqd_work_group_size({threads_per_block}, 1, 1))) void")
    }
    fn helper_prefix(&self, returns: Option<Type>) -> String {
        let ret = returns.map_or_else(|| "void".to_string(), |t| self.type_name(t));
        format!("static inline {ret}")
    }
    fn global_qualifier(&self) -> &'static str {
        "__global "
    }
    fn restrict_qualifier(&self) -> &'static str {
        "restrict "
    }
    fn unsigned_names(&self) -> (&'static str, &'static str) {
        ("uint", "ulong")
    }
    fn space_qualifier(&self, space: Space) -> &'static str {
        match space {
            Space::Private => "",
            Space::Shared | Space::DynamicShared { .. } => "__local ",
        }
    }
    fn barrier(&self) -> &'static str {
        "barrier(CLK_LOCAL_MEM_FENCE)"
    }
    fn builtin(&self, builtin: Builtin) -> String {
        match builtin {
            Builtin::ThreadIndex => "(uint)get_local_id(0)".into(),
            Builtin::BlockIndex => "(uint)get_group_id(0)".into(),
        }
    }
    fn intrinsic(&self, f: Intrinsic, args: &[String]) -> String {
        let name = match f {
            Intrinsic::Fma => "fma",
        };
        format!("{name}({})", args.join(", "))
    }
    fn make_complex(&self, re: &str, im: &str) -> String {
        format!("({})({re}, {im})", self.complex_name())
    }
    fn l2_only_load(&self, element: &str) -> String {
        // OpenCL C has no per-load cache hint: a plain load.
        element.to_string()
    }
}
