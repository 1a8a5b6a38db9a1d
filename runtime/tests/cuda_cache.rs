//! The CUBIN cache without a GPU: NVRTC compiles for sm_90 once, later
//! requests come from memory or, in a fresh cache on the same directory,
//! from disk; damaged entries are compiled again and rewritten; compile
//! errors are not cached; disk failures never fail a request. Every test uses
//! its own cache and directory, so they run in parallel.

mod common;

use fftgen_runtime::cuda::{cubin_options, CacheKey, CacheOrigin, CacheStats, CubinCache};
use fftgen_runtime::Error;
use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

const ARCH: &str = "sm_90";

/// A tiny kernel; `tag` makes each test's source (and so its key) distinct.
fn source(tag: &str) -> String {
    format!(
        r#"// {tag}
extern "C" __global__ void scale(float2* data, unsigned int n) {{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{ data[i].x *= 2.0f; data[i].y *= 2.0f; }}
}}
"#
    )
}

/// An empty directory of this test's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("fftgen-cuda-cache-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        TempDir(dir)
    }

    /// Files in the directory, by name.
    fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.0)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// For a test that compiles: an empty directory of its own, or None after
/// reporting that NVRTC is missing.
fn compiling_in_dir(test: &str) -> Option<TempDir> {
    common::nvrtc(test).then(|| TempDir::new(test))
}

/// For a test that compiles: a cache in memory only and a source of its own
/// (`tag` makes it), or None after reporting that NVRTC is missing.
fn compiling_in_memory(test: &str, tag: &str) -> Option<(CubinCache, String)> {
    common::nvrtc(test).then(|| (CubinCache::memory_only(), source(tag)))
}

/// Compiles `src` through `cache`, checking that NVRTC ran (no cache had
/// it), and returns the cache's statistics after.
fn compile_anew(cache: &CubinCache, src: &str) -> CacheStats {
    let compiled = cache
        .get_or_compile(src, ARCH)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compiled.origin, CacheOrigin::Compiled);
    cache.stats()
}

fn key(source: &str) -> CacheKey {
    CacheKey::new(source, ARCH, &cubin_options(ARCH))
}

#[test]
fn keys_change_with_every_part() {
    // No NVRTC needed: keys are hashes.
    let options = cubin_options(ARCH);
    let base = CacheKey::from_parts("src", ARCH, &options, "0.1.0", Some((13, 0)));
    assert_eq!(
        base,
        CacheKey::from_parts("src", ARCH, &options, "0.1.0", Some((13, 0))),
        "keys are deterministic"
    );
    let others = [
        CacheKey::from_parts("src ", ARCH, &options, "0.1.0", Some((13, 0))),
        CacheKey::from_parts("src", "sm_80", &options, "0.1.0", Some((13, 0))),
        CacheKey::from_parts("src", ARCH, &options[..1], "0.1.0", Some((13, 0))),
        CacheKey::from_parts("src", ARCH, &options, "0.2.0", Some((13, 0))),
        CacheKey::from_parts("src", ARCH, &options, "0.1.0", Some((13, 1))),
        CacheKey::from_parts("src", ARCH, &options, "0.1.0", None),
    ];
    for (i, other) in others.iter().enumerate() {
        assert_ne!(base, *other, "changing part {i} changes the key");
    }
    assert_eq!(base.to_string().len(), 32);
}

#[test]
fn invalid_requests_fail_before_nvrtc() {
    let cache = CubinCache::memory_only();
    assert!(matches!(
        cache.get_or_compile(&source("arch"), "compute_90"),
        Err(Error::InvalidCudaArch { .. })
    ));
    assert!(matches!(
        cache.get_or_compile("kernel\0", ARCH),
        Err(Error::SourceHasNul { offset: 6 })
    ));
    assert_eq!(cache.stats(), CacheStats::default());
}

#[test]
fn a_second_request_comes_from_memory() {
    let Some((cache, src)) = compiling_in_memory("a_second_request_comes_from_memory", "memory")
    else {
        return;
    };
    let first = cache
        .get_or_compile(&src, ARCH)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.origin, CacheOrigin::Compiled);
    assert_eq!(first.arch, ARCH);
    assert_eq!(&first.cubin[..4], b"\x7fELF");
    assert!(first.log.contains("registers"), "{}", first.log);
    assert_eq!(first.key, key(&src));

    let second = cache.get_or_compile(&src, ARCH).unwrap();
    assert_eq!(second.origin, CacheOrigin::Memory);
    assert!(
        Arc::ptr_eq(&first.cubin, &second.cubin),
        "the same bytes, not a copy"
    );
    assert_eq!(second.log, first.log, "the log survives the cache");

    let stats = cache.stats();
    assert_eq!(
        (stats.compiles, stats.memory_hits, stats.disk_hits),
        (1, 1, 0)
    );
    assert!(stats.compile_time > std::time::Duration::ZERO);
    assert_eq!(cache.disk_dir(), None);
    assert_eq!(cache.entry_path(first.key), None);

    cache.clear_memory();
    assert_eq!(
        cache.get_or_compile(&src, ARCH).unwrap().origin,
        CacheOrigin::Compiled,
        "after clear_memory, with no disk cache, NVRTC runs again"
    );
}

#[test]
fn a_fresh_cache_on_the_same_directory_reads_the_disk() {
    let Some(dir) = compiling_in_dir("a_fresh_cache_on_the_same_directory_reads_the_disk") else {
        return;
    };
    let src = source("disk");
    let writer = CubinCache::with_disk_dir(&dir.0);
    let compiled = writer
        .get_or_compile(&src, ARCH)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compiled.origin, CacheOrigin::Compiled);
    let path = writer.entry_path(compiled.key).unwrap();
    assert!(path.is_file(), "{} was written", path.display());
    assert_eq!(
        dir.files(),
        vec![format!("{}.cubin", compiled.key)],
        "one entry and no temporary file left behind"
    );
    assert_eq!(writer.stats().disk_writes, 1);

    let reader = CubinCache::with_disk_dir(&dir.0);
    let read = reader.get_or_compile(&src, ARCH).unwrap();
    assert_eq!(read.origin, CacheOrigin::Disk);
    assert!(read.cubin == compiled.cubin, "the same CUBIN");
    assert_eq!(read.log, compiled.log);
    assert_eq!(
        reader.get_or_compile(&src, ARCH).unwrap().origin,
        CacheOrigin::Memory,
        "a disk hit is kept in memory"
    );
    let stats = reader.stats();
    assert_eq!(
        (
            stats.compiles,
            stats.disk_hits,
            stats.memory_hits,
            stats.disk_writes
        ),
        (0, 1, 1, 0)
    );
    assert_eq!(stats.since(&stats), CacheStats::default());
}

#[test]
fn damaged_entries_are_compiled_again_and_rewritten() {
    let Some(dir) = compiling_in_dir("damaged_entries_are_compiled_again_and_rewritten") else {
        return;
    };
    let src = source("damaged");
    let first = CubinCache::with_disk_dir(&dir.0)
        .get_or_compile(&src, ARCH)
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.0.join(format!("{}.cubin", first.key));
    let good = fs::read(&path).unwrap();

    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    let damages: [(&str, Vec<u8>); 4] = [
        ("garbage", b"not a cache entry".to_vec()),
        ("empty", Vec::new()),
        ("truncated", good[..good.len() - 7].to_vec()),
        ("one byte flipped", flipped),
    ];
    for (what, bytes) in damages {
        fs::write(&path, &bytes).unwrap();
        let cache = CubinCache::with_disk_dir(&dir.0);
        let again = cache
            .get_or_compile(&src, ARCH)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(again.origin, CacheOrigin::Compiled, "{what}");
        assert!(again.cubin == first.cubin, "{what}: the same CUBIN");
        let stats = cache.stats();
        assert_eq!((stats.disk_rejected, stats.disk_writes), (1, 1), "{what}");
        // The entry was rewritten: a fresh cache reads it (the log, which
        // holds ptxas's compile time, may differ from the first one's).
        let reread = CubinCache::with_disk_dir(&dir.0)
            .get_or_compile(&src, ARCH)
            .unwrap();
        assert_eq!(
            reread.origin,
            CacheOrigin::Disk,
            "{what}: the entry is rewritten"
        );
        assert!(reread.cubin == first.cubin, "{what}");
    }

    // A directory where the entry should be cannot be read as a file.
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    let stats = compile_anew(&CubinCache::with_disk_dir(&dir.0), &src);
    assert_eq!((stats.disk_rejected, stats.disk_write_failures), (1, 1));
}

#[test]
fn an_unwritable_directory_still_returns_the_cubin() {
    let Some(dir) = compiling_in_dir("an_unwritable_directory_still_returns_the_cubin") else {
        return;
    };
    fs::create_dir_all(&dir.0).unwrap();
    // A file where the cache directory should be: create_dir_all fails.
    let blocked = dir.0.join("file");
    fs::write(&blocked, b"in the way").unwrap();
    let stats = compile_anew(&CubinCache::with_disk_dir(&blocked), &source("unwritable"));
    assert_eq!((stats.disk_writes, stats.disk_write_failures), (0, 1));
}

#[test]
fn compile_errors_are_returned_and_not_cached() {
    let Some(dir) = compiling_in_dir("compile_errors_are_returned_and_not_cached") else {
        return;
    };
    let cache = CubinCache::with_disk_dir(&dir.0);
    let broken = r#"extern "C" __global__ void broken(float* x) { x[0] = ; }"#;
    for _ in 0..2 {
        match cache.get_or_compile(broken, ARCH) {
            Err(Error::NvrtcCompile { log, .. }) => assert!(log.contains("error"), "{log}"),
            other => panic!("expected a compile error, got {other:?}"),
        }
    }
    let stats = cache.stats();
    assert_eq!(
        (stats.compiles, stats.memory_hits, stats.disk_writes),
        (0, 0, 0)
    );
    assert!(dir.files().is_empty(), "{:?}", dir.files());
}

#[test]
fn concurrent_requests_for_one_source_compile_once() {
    let Some((cache, src)) = compiling_in_memory(
        "concurrent_requests_for_one_source_compile_once",
        "concurrent",
    ) else {
        return;
    };
    let origins: Vec<CacheOrigin> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|_| scope.spawn(|| cache.get_or_compile(&src, ARCH).map(|c| c.origin)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    });
    let compiled = origins
        .iter()
        .filter(|&&o| o == CacheOrigin::Compiled)
        .count();
    assert_eq!(compiled, 1, "{origins:?}");
    let stats = cache.stats();
    assert_eq!((stats.compiles, stats.memory_hits), (1, 5));
}

#[test]
fn the_global_cache_is_one_per_process() {
    let a = CubinCache::global() as *const CubinCache;
    let b = CubinCache::global() as *const CubinCache;
    assert_eq!(a, b);
}

/// The directory the child half of the two-process test compiles into.
const CHILD_DIR_ENV: &str = "FFTGEN_TEST_CHILD_CACHE_DIR";

/// The source both processes of the two-process test compile.
fn shared_source() -> String {
    source("two processes")
}

/// The child half of `two_processes_compiling_one_key_share_its_entry`: a
/// process of its own that compiles the shared source through a cache on
/// the directory the parent names (nothing to do when run by itself).
#[test]
#[ignore = "a child process of two_processes_compiling_one_key_share_its_entry"]
fn child_compiles_into_the_shared_directory() {
    let Some(dir) = std::env::var_os(CHILD_DIR_ENV) else {
        return;
    };
    let cache = CubinCache::with_disk_dir(PathBuf::from(dir));
    let compiled = cache
        .get_or_compile(&shared_source(), ARCH)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!compiled.cubin.is_empty());
    assert_eq!(cache.stats().disk_write_failures, 0);
}

#[test]
fn two_processes_compiling_one_key_share_its_entry() {
    let Some(dir) = compiling_in_dir("two_processes") else {
        return;
    };
    // Four processes at once, each writing the same entry: each writes a
    // file of its own and renames it over the entry, so a reader never sees
    // half of one.
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--exact", "child_compiles_into_the_shared_directory"])
                .args(["--ignored", "--test-threads=1"])
                .env(CHILD_DIR_ENV, &dir.0)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("a child process")
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().expect("the child's output");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // One whole entry and no temporary file left; a fresh cache reads it.
    let src = shared_source();
    assert_eq!(dir.files(), [format!("{}.cubin", key(&src))]);
    let fresh = CubinCache::with_disk_dir(&dir.0);
    let read = fresh.get_or_compile(&src, ARCH).unwrap();
    assert_eq!(read.origin, CacheOrigin::Disk);
    assert_eq!(fresh.stats().disk_rejected, 0);
}
