//! Compiling CUDA C++ with NVRTC to a CUBIN for one real architecture. Asking
//! for `sm_XY` rather than `compute_XY` makes NVRTC run ptxas, so register and
//! shared-memory overflows are caught on a machine without a GPU. cudarc's
//! safe `compile_ptx` stops at PTX, so this goes through its `result`/`sys`
//! layer for the CUBIN. NVRTC is loaded at run time; cudarc panics when a call
//! finds no library, so every entry point checks for it first.

use crate::error::{Error, Result};
use cudarc::nvrtc::{result, sys};
use std::ffi::{CStr, CString};
use std::sync::OnceLock;

/// Makes ptxas report registers, spills and shared memory per kernel in the
/// log. NVRTC 13 then drops ptxas's error messages from the log, so a failed
/// compilation is repeated without it to get them.
const VERBOSE: &str = "--ptxas-options=--verbose";

/// The result of a successful NVRTC compilation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledCuda {
    /// The architecture compiled for, e.g. `sm_90`.
    pub arch: String,
    /// Every option NVRTC was given.
    pub options: Vec<String>,
    /// The compiler's log: warnings, and ptxas's resource usage per kernel.
    pub log: String,
    /// The CUBIN, loadable with cuModuleLoadData on a GPU of `arch`.
    pub cubin: Vec<u8>,
}

impl CompiledCuda {
    /// Size of the CUBIN, bytes.
    pub fn cubin_bytes(&self) -> usize {
        self.cubin.len()
    }
}

/// Whether the NVRTC library can be loaded (checked once per process).
pub fn nvrtc_available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the library by its usual names.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Whether the CUDA driver library (libcuda.so) can be loaded (checked once per process).
pub fn driver_available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the library by its usual names.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// `Ok` if the CUDA driver can be loaded, else the error that says what to install.
pub fn check_driver() -> Result<()> {
    if driver_available() {
        Ok(())
    } else {
        Err(Error::CudaDriverMissing)
    }
}

/// The options [`compile_to_cubin_check`] gives NVRTC for `arch` (the
/// verbose ptxas flag last); the compile cache hashes them into its keys.
pub fn cubin_options(arch: &str) -> Vec<String> {
    vec![format!("--gpu-architecture={arch}"), VERBOSE.to_string()]
}

/// The version of the loaded NVRTC library as (major, minor), or `None` when
/// NVRTC cannot be loaded (checked once per process).
pub fn nvrtc_version() -> Option<(i32, i32)> {
    static VERSION: OnceLock<Option<(i32, i32)>> = OnceLock::new();
    *VERSION.get_or_init(|| {
        if !nvrtc_available() {
            return None;
        }
        let (mut major, mut minor) = (0, 0);
        // SAFETY: NVRTC is loadable (checked above); both pointers are valid for writes.
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
            .result()
            .ok()
            .map(|()| (major, minor))
    })
}

/// Compiles `source` for `arch` (a real architecture such as `sm_90`) through
/// NVRTC and ptxas, returning the CUBIN and the log.
pub fn compile_to_cubin_check(source: &str, arch: &str) -> Result<CompiledCuda> {
    if !is_real_arch(arch) {
        return Err(Error::InvalidCudaArch {
            arch: arch.to_string(),
        });
    }
    if !nvrtc_available() {
        return Err(Error::NvrtcMissing);
    }
    let src = CString::new(source).map_err(|e| Error::SourceHasNul {
        offset: e.nul_position(),
    })?;
    let mut options = cubin_options(arch);

    let (verbose, verbose_log) = compile(&src, &options)?;
    match verbose {
        Ok(cubin) => Ok(CompiledCuda {
            arch: arch.to_string(),
            options,
            log: verbose_log,
            cubin,
        }),
        Err(status) => {
            options.pop();
            let (_, quiet_log) = compile(&src, &options)?;
            let log = if quiet_log.contains(&verbose_log) {
                quiet_log
            } else {
                format!("{quiet_log}\n{verbose_log}")
            };
            Err(Error::NvrtcCompile {
                arch: arch.to_string(),
                status,
                log,
            })
        }
    }
}

/// One NVRTC compilation: the CUBIN or the failure status, and the log.
fn compile(
    src: &CStr,
    options: &[String],
) -> Result<(std::result::Result<Vec<u8>, String>, String)> {
    let program = ProgramGuard(
        result::create_program(src, Some(c"fftgen.cu"))
            .map_err(|e| nvrtc_error("nvrtcCreateProgram", e))?,
    );
    // SAFETY: the program was just created and is destroyed only by the guard.
    let compiled = unsafe { result::compile_program(program.0, options) };
    // SAFETY: as above; the log exists whether or not compilation succeeded.
    let log = unsafe { result::get_program_log(program.0) }
        .map(|raw| c_chars_to_string(&raw))
        .map_err(|e| nvrtc_error("nvrtcGetProgramLog", e))?;
    match compiled {
        // SAFETY: as above; the program compiled.
        Ok(()) => Ok((Ok(unsafe { get_cubin(program.0) }?), log)),
        Err(e) => Ok((Err(format!("{:?}", e.0)), log)),
    }
}

/// `sm_` then digits, then at most one letter (`sm_90`, `sm_90a`, `sm_100f`).
pub(crate) fn is_real_arch(arch: &str) -> bool {
    let Some(rest) = arch.strip_prefix("sm_") else {
        return false;
    };
    let digits = rest.trim_end_matches(|c: char| c.is_ascii_lowercase());
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && rest.len() - digits.len() <= 1
}

/// # Safety
/// `program` must be a compiled, not yet destroyed NVRTC program.
unsafe fn get_cubin(program: sys::nvrtcProgram) -> Result<Vec<u8>> {
    let mut size = 0usize;
    unsafe { sys::nvrtcGetCUBINSize(program, &mut size) }
        .result()
        .map_err(|e| nvrtc_error("nvrtcGetCUBINSize", e))?;
    let mut cubin = vec![0u8; size];
    unsafe { sys::nvrtcGetCUBIN(program, cubin.as_mut_ptr().cast()) }
        .result()
        .map_err(|e| nvrtc_error("nvrtcGetCUBIN", e))?;
    Ok(cubin)
}

fn nvrtc_error(call: &'static str, error: result::NvrtcError) -> Error {
    Error::Nvrtc {
        call,
        status: format!("{:?}", error.0),
    }
}

/// The NUL-terminated text NVRTC writes, as a String.
fn c_chars_to_string(raw: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).collect();
    match CStr::from_bytes_until_nul(&bytes) {
        Ok(text) => text.to_string_lossy().trim_end().to_string(),
        Err(_) => String::from_utf8_lossy(&bytes).trim_end().to_string(),
    }
}

/// Destroys the NVRTC program when dropped, on every path out.
struct ProgramGuard(sys::nvrtcProgram);

impl Drop for ProgramGuard {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed only here.
        // A failure to free cannot be acted on; the memory is lost either way.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}
