//! The compile cache for CUBINs. NVRTC takes from tens of milliseconds to
//! seconds per generated source, which would dominate plan creation; so each
//! CUBIN is kept in memory for the life of the process and on disk across
//! processes, keyed by a hash of everything that determines it: the source
//! text, the architecture, the NVRTC options, the version of this crate and
//! the version of NVRTC (rocFFT's kernel cache keys on the same things).
//!
//! The key is a 128-bit FNV-1a hash (Fowler, Noll, Vo; offset basis and prime
//! from the FNV reference), taken over length-prefixed fields so that no two
//! different field lists hash the same byte stream. FNV is not cryptographic:
//! the cache trusts whoever can write its directory, like any build cache.
//! Each disk entry carries its key and a 64-bit FNV-1a checksum of its
//! contents, and is written to a temporary file and renamed into place, so a
//! reader sees a whole entry or none; an entry that is truncated, corrupt or
//! unreadable is compiled again and rewritten, never trusted.
//!
//! Where entries live: `$FFTGEN_CACHE_DIR` if set, else
//! `$XDG_CACHE_HOME/fftgen/cuda`, else `$HOME/.cache/fftgen/cuda`;
//! `FFTGEN_NO_DISK_CACHE=1` keeps the cache in memory only.

use super::nvrtc::{compile_to_cubin_check, cubin_options, is_real_arch, nvrtc_version};
use super::plans::PlanCache;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// Environment variable naming the directory of the disk cache.
pub const CACHE_DIR_ENV: &str = "FFTGEN_CACHE_DIR";

/// Environment variable that, set to `1` (or `true`), turns the disk cache off.
pub const NO_DISK_CACHE_ENV: &str = "FFTGEN_NO_DISK_CACHE";

/// The first bytes of every disk entry; the trailing digit is the format version.
const MAGIC: &[u8; 16] = b"fftgen-cubin-v1\n";

/// Bytes of the fixed header: magic, key, cubin length, log length, checksum.
const HEADER_BYTES: usize = 16 + 16 + 8 + 8 + 8;

/// What a CUBIN is cached under: a 128-bit hash of what determines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey(pub u128);

impl CacheKey {
    /// The key of `source` compiled for `arch` with `options` by the NVRTC
    /// loaded in this process and this version of fftgen-runtime.
    pub fn new(source: &str, arch: &str, options: &[String]) -> Self {
        Self::from_parts(
            source,
            arch,
            options,
            env!("CARGO_PKG_VERSION"),
            nvrtc_version(),
        )
    }

    /// The key from every part given explicitly (`nvrtc` is `None` when
    /// NVRTC's version is unknown).
    pub fn from_parts(
        source: &str,
        arch: &str,
        options: &[String],
        runtime_version: &str,
        nvrtc: Option<(i32, i32)>,
    ) -> Self {
        let nvrtc = match nvrtc {
            Some((major, minor)) => format!("{major}.{minor}"),
            None => "unknown".to_string(),
        };
        let mut hash = Fnv128::new();
        hash.field(b"fftgen-cuda-cubin");
        hash.field(runtime_version.as_bytes());
        hash.field(nvrtc.as_bytes());
        hash.field(arch.as_bytes());
        hash.field(&(options.len() as u64).to_le_bytes());
        for option in options {
            hash.field(option.as_bytes());
        }
        hash.field(source.as_bytes());
        CacheKey(hash.finish())
    }
}

impl fmt::Display for CacheKey {
    /// 32 lowercase hexadecimal digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// Where a CUBIN handed out by the cache came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CacheOrigin {
    /// This cache already held it in memory.
    Memory,
    /// Read from the disk cache.
    Disk,
    /// NVRTC compiled it just now.
    Compiled,
}

/// A CUBIN from the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedCubin {
    pub key: CacheKey,
    /// The architecture it was compiled for, e.g. `sm_90`.
    pub arch: String,
    /// The CUBIN (an ELF image), loadable with cuModuleLoadData.
    pub cubin: Arc<[u8]>,
    /// NVRTC's log from the compilation (ptxas's resource usage per kernel),
    /// kept with the entry so that cache hits still report it.
    pub log: Arc<str>,
    pub origin: CacheOrigin,
}

/// What a cache has done since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Requests answered from memory.
    pub memory_hits: u64,
    /// Requests answered from the disk cache.
    pub disk_hits: u64,
    /// Successful NVRTC compilations (failed ones are not cached or counted).
    pub compiles: u64,
    /// Time spent in successful NVRTC compilations.
    pub compile_time: Duration,
    /// Entries written to disk.
    pub disk_writes: u64,
    /// Disk entries that were unreadable, truncated, corrupt or for another
    /// key, and so compiled again.
    pub disk_rejected: u64,
    /// Entries that could not be written (the CUBIN was still returned).
    pub disk_write_failures: u64,
}

impl CacheStats {
    /// What happened between `earlier` and `self` (counters subtract).
    pub fn since(&self, earlier: &CacheStats) -> CacheStats {
        CacheStats {
            memory_hits: self.memory_hits.saturating_sub(earlier.memory_hits),
            disk_hits: self.disk_hits.saturating_sub(earlier.disk_hits),
            compiles: self.compiles.saturating_sub(earlier.compiles),
            compile_time: self.compile_time.saturating_sub(earlier.compile_time),
            disk_writes: self.disk_writes.saturating_sub(earlier.disk_writes),
            disk_rejected: self.disk_rejected.saturating_sub(earlier.disk_rejected),
            disk_write_failures: self
                .disk_write_failures
                .saturating_sub(earlier.disk_write_failures),
        }
    }
}

#[derive(Default)]
struct Counters {
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    compiles: AtomicU64,
    compile_nanos: AtomicU64,
    disk_writes: AtomicU64,
    disk_rejected: AtomicU64,
    disk_write_failures: AtomicU64,
}

impl Counters {
    fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// One entry: its CUBIN and log once known (None while unbuilt or after a
/// failed compilation).
type Slot = Mutex<Option<(Arc<[u8]>, Arc<str>)>>;

/// A cache of CUBINs, in memory and optionally on disk. Thread-safe: different
/// sources compile in parallel; the same source asked for from two threads at
/// once is compiled once and the second thread waits for it.
pub struct CubinCache {
    disk_dir: Option<PathBuf>,
    // One slot per key, so that a compilation holds only its own slot's lock.
    slots: Mutex<HashMap<CacheKey, Arc<Slot>>>,
    counters: Counters,
    plans: PlanCache,
}

impl fmt::Debug for CubinCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CubinCache")
            .field("disk_dir", &self.disk_dir)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl CubinCache {
    /// A cache that keeps CUBINs in memory only.
    pub fn memory_only() -> Self {
        Self::with_optional_disk_dir(None)
    }

    /// A cache that also keeps CUBINs in `dir` (created when first written).
    pub fn with_disk_dir(dir: impl Into<PathBuf>) -> Self {
        Self::with_optional_disk_dir(Some(dir.into()))
    }

    fn with_optional_disk_dir(disk_dir: Option<PathBuf>) -> Self {
        CubinCache {
            disk_dir,
            slots: Mutex::new(HashMap::new()),
            counters: Counters::default(),
            plans: PlanCache::default(),
        }
    }

    /// A cache whose disk directory comes from the environment
    /// ([`default_disk_dir`]).
    pub fn from_env() -> Self {
        Self::with_optional_disk_dir(default_disk_dir())
    }

    /// The process-wide cache that [`super::CudaFft::new`] uses, made from
    /// the environment on first use.
    pub fn global() -> &'static CubinCache {
        static GLOBAL: OnceLock<CubinCache> = OnceLock::new();
        GLOBAL.get_or_init(CubinCache::from_env)
    }

    /// The directory of the disk cache, if it has one.
    pub fn disk_dir(&self) -> Option<&Path> {
        self.disk_dir.as_deref()
    }

    /// The file that holds (or would hold) the entry of `key` on disk.
    pub fn entry_path(&self, key: CacheKey) -> Option<PathBuf> {
        self.disk_dir
            .as_ref()
            .map(|dir| dir.join(format!("{key}.cubin")))
    }

    /// The cache's counters so far.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        CacheStats {
            memory_hits: get(&c.memory_hits),
            disk_hits: get(&c.disk_hits),
            compiles: get(&c.compiles),
            compile_time: Duration::from_nanos(get(&c.compile_nanos)),
            disk_writes: get(&c.disk_writes),
            disk_rejected: get(&c.disk_rejected),
            disk_write_failures: get(&c.disk_write_failures),
        }
    }

    /// Forgets every CUBIN and plan held in memory (the disk cache stays),
    /// so that the next request of each goes to disk or NVRTC.
    pub fn clear_memory(&self) {
        self.slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.plans.clear();
    }

    /// The plans made through this cache, loaded on their contexts.
    pub fn plans(&self) -> &PlanCache {
        &self.plans
    }

    /// The CUBIN of `source` for `arch` (a real architecture such as
    /// `sm_90`): from memory, else from disk, else compiled by NVRTC with
    /// [`cubin_options`] and stored in both. Compilation errors are returned
    /// and not cached; disk errors never fail the request.
    pub fn get_or_compile(&self, source: &str, arch: &str) -> Result<CachedCubin> {
        if !is_real_arch(arch) {
            return Err(Error::InvalidCudaArch {
                arch: arch.to_string(),
            });
        }
        if let Some(offset) = source.find('\0') {
            return Err(Error::SourceHasNul { offset });
        }
        let key = CacheKey::new(source, arch, &cubin_options(arch));
        let found = |(cubin, log): (Arc<[u8]>, Arc<str>), origin| CachedCubin {
            key,
            arch: arch.to_string(),
            cubin,
            log,
            origin,
        };

        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.entry(key).or_default())
        };
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = slot.as_ref() {
            Counters::bump(&self.counters.memory_hits);
            return Ok(found(entry.clone(), CacheOrigin::Memory));
        }
        if let Some(entry) = self.read_disk(key) {
            Counters::bump(&self.counters.disk_hits);
            *slot = Some(entry.clone());
            return Ok(found(entry, CacheOrigin::Disk));
        }

        let started = Instant::now();
        let compiled = compile_to_cubin_check(source, arch)?;
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        Counters::bump(&self.counters.compiles);
        self.counters
            .compile_nanos
            .fetch_add(nanos, Ordering::Relaxed);

        let entry: (Arc<[u8]>, Arc<str>) = (compiled.cubin.into(), compiled.log.into());
        self.write_disk(key, &entry);
        *slot = Some(entry.clone());
        Ok(found(entry, CacheOrigin::Compiled))
    }

    /// The valid disk entry of `key`, if there is one. A missing file is a
    /// plain miss; anything else that is wrong counts as rejected.
    fn read_disk(&self, key: CacheKey) -> Option<(Arc<[u8]>, Arc<str>)> {
        let path = self.entry_path(key)?;
        match fs::read(&path) {
            Ok(bytes) => {
                let entry = decode_entry(&bytes, key);
                if entry.is_none() {
                    Counters::bump(&self.counters.disk_rejected);
                }
                entry.map(|(cubin, log)| (cubin.into(), log.into()))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(_) => {
                Counters::bump(&self.counters.disk_rejected);
                None
            }
        }
    }

    /// Writes the entry of `key` if there is a disk cache; failures are
    /// counted, never returned.
    fn write_disk(&self, key: CacheKey, (cubin, log): &(Arc<[u8]>, Arc<str>)) {
        let (Some(dir), Some(path)) = (self.disk_dir.as_deref(), self.entry_path(key)) else {
            return;
        };
        let counter = match write_atomically(dir, &path, &encode_entry(key, cubin, log)) {
            Ok(()) => &self.counters.disk_writes,
            Err(_) => &self.counters.disk_write_failures,
        };
        Counters::bump(counter);
    }
}

/// The disk cache directory the environment asks for: `$FFTGEN_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/fftgen/cuda` (when absolute), else
/// `$HOME/.cache/fftgen/cuda`; `None` when `FFTGEN_NO_DISK_CACHE` is `1` or
/// `true`, or when none of these variables is set.
pub fn default_disk_dir() -> Option<PathBuf> {
    disk_dir_from(|name| std::env::var_os(name))
}

/// [`default_disk_dir`] with the environment given as a lookup function.
fn disk_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|value| !value.is_empty());
    if let Some(off) = set(NO_DISK_CACHE_ENV) {
        let off = off.to_string_lossy().trim().to_ascii_lowercase();
        if off == "1" || off == "true" || off == "yes" {
            return None;
        }
    }
    if let Some(dir) = set(CACHE_DIR_ENV) {
        return Some(PathBuf::from(dir));
    }
    // The XDG base directory specification says to ignore relative paths.
    if let Some(xdg) = set("XDG_CACHE_HOME").map(PathBuf::from) {
        if xdg.is_absolute() {
            return Some(xdg.join("fftgen").join("cuda"));
        }
    }
    set("HOME").map(|home| {
        PathBuf::from(home)
            .join(".cache")
            .join("fftgen")
            .join("cuda")
    })
}

/// Writes `bytes` to a temporary file in `dir` and renames it to `path`, so
/// that readers never see a partial entry.
fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    fs::create_dir_all(dir)?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(
        ".{file_name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = fs::File::create(&temp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| fs::rename(&temp, path));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// A disk entry: magic, key, cubin length, log length, checksum (all
/// little-endian), then the cubin and the log.
fn encode_entry(key: CacheKey, cubin: &[u8], log: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES + cubin.len() + log.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&key.0.to_le_bytes());
    bytes.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(log.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&checksum(cubin, log.as_bytes()).to_le_bytes());
    bytes.extend_from_slice(cubin);
    bytes.extend_from_slice(log.as_bytes());
    bytes
}

/// The cubin and log of a disk entry, or `None` if anything about it is wrong.
fn decode_entry(bytes: &[u8], key: CacheKey) -> Option<(Vec<u8>, String)> {
    let (header, body) = bytes.split_at_checked(HEADER_BYTES)?;
    let u64_at = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(header.get(at..at + 8)?.try_into().ok()?))
    };
    if &header[..16] != MAGIC || header[16..32] != key.0.to_le_bytes() {
        return None;
    }
    let cubin_len = usize::try_from(u64_at(32)?).ok()?;
    let log_len = usize::try_from(u64_at(40)?).ok()?;
    if cubin_len.checked_add(log_len)? != body.len() {
        return None;
    }
    let (cubin, log) = body.split_at(cubin_len);
    if checksum(cubin, log) != u64_at(48)? || !cubin.starts_with(b"\x7fELF") {
        return None;
    }
    Some((cubin.to_vec(), String::from_utf8(log.to_vec()).ok()?))
}

/// 64-bit FNV-1a of `a` followed by `b`.
fn checksum(a: &[u8], b: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    a.iter().chain(b).fold(OFFSET, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// 128-bit FNV-1a over length-prefixed fields.
struct Fnv128(u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    fn new() -> Self {
        Fnv128(Self::OFFSET)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u128::from(byte)).wrapping_mul(Self::PRIME);
        }
    }

    /// The field's length, then the field, so field boundaries are part of the hash.
    fn field(&mut self, field: &[u8]) {
        self.bytes(&(field.len() as u64).to_le_bytes());
        self.bytes(field);
    }

    fn finish(&self) -> u128 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_directory_follows_the_documented_order() {
        let all = [
            (CACHE_DIR_ENV, "/explicit"),
            ("XDG_CACHE_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ];
        assert_eq!(disk_dir_from(env(&all)), Some(PathBuf::from("/explicit")));
        assert_eq!(
            disk_dir_from(env(&all[1..])),
            Some(PathBuf::from("/xdg/fftgen/cuda"))
        );
        assert_eq!(
            disk_dir_from(env(&all[2..])),
            Some(PathBuf::from("/home/u/.cache/fftgen/cuda"))
        );
        assert_eq!(disk_dir_from(env(&[])), None);
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
        let relative = [("XDG_CACHE_HOME", "rel"), ("HOME", "/h")];
        assert_eq!(
            disk_dir_from(env(&relative)),
            Some(PathBuf::from("/h/.cache/fftgen/cuda"))
        );
        // Empty values count as unset.
        let empty = [(CACHE_DIR_ENV, ""), ("HOME", "/h")];
        assert_eq!(
            disk_dir_from(env(&empty)),
            Some(PathBuf::from("/h/.cache/fftgen/cuda"))
        );
    }

    #[test]
    fn the_disk_cache_can_be_turned_off() {
        for off in ["1", "true", "TRUE"] {
            let vars = [(NO_DISK_CACHE_ENV, off), (CACHE_DIR_ENV, "/explicit")];
            assert_eq!(disk_dir_from(env(&vars)), None, "{off}");
        }
        let on = [(NO_DISK_CACHE_ENV, "0"), (CACHE_DIR_ENV, "/explicit")];
        assert_eq!(disk_dir_from(env(&on)), Some(PathBuf::from("/explicit")));
    }

    #[test]
    fn fnv_matches_the_reference_vectors() {
        // From the FNV reference: FNV-1a of "" and of "a".
        assert_eq!(checksum(b"", b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(checksum(b"a", b""), 0xaf63_dc4c_8601_ec8c);
        let mut h = Fnv128::new();
        h.bytes(b"a");
        assert_eq!(h.finish(), 0xd228_cb69_6f1a_8caf_7891_2b70_4e4a_8964);
    }

    #[test]
    fn entries_round_trip_and_reject_any_damage() {
        let key = CacheKey(42);
        let cubin = b"\x7fELF and the rest".to_vec();
        let bytes = encode_entry(key, &cubin, "ptxas log");
        assert_eq!(
            decode_entry(&bytes, key),
            Some((cubin.clone(), "ptxas log".to_string()))
        );
        assert_eq!(decode_entry(&bytes, CacheKey(43)), None, "another key");
        assert_eq!(
            decode_entry(&bytes[..bytes.len() - 1], key),
            None,
            "truncated"
        );
        assert_eq!(
            decode_entry(&bytes[..10], key),
            None,
            "shorter than the header"
        );
        for at in [0, 20, HEADER_BYTES + 5, bytes.len() - 1] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            assert_eq!(decode_entry(&flipped, key), None, "byte {at} flipped");
        }
        let not_elf = encode_entry(key, b"PTX text", "");
        assert_eq!(decode_entry(&not_elf, key), None, "not an ELF image");
    }

    #[test]
    fn keys_separate_fields() {
        let key = |source: &str, arch: &str| {
            CacheKey::from_parts(source, arch, &[], "0.1.0", Some((13, 0)))
        };
        assert_ne!(key("ab", "sm_90"), key("a", "bsm_90"));
        assert_eq!(key("ab", "sm_90").to_string().len(), 32);
    }
}
