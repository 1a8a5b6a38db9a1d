//! The `fftgen` command as a user runs it: `emit` writes both sources and
//! the manifest, `plan` prints the table, `check` passes on PoCL and its
//! `--save` files agree with numpy.fft, and bad input is one line on stderr
//! with exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fftgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fftgen"))
        .args(args)
        .output()
        .expect("the fftgen binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fftgen-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn in_ci() -> bool {
    matches!(std::env::var("CI").as_deref(), Ok("true") | Ok("1"))
}

fn skip(reason: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {reason}");
}

#[test]
fn emit_writes_sources_and_manifest() {
    let out = scratch("emit");
    let result = fftgen(&[
        "emit",
        "--n",
        "4096",
        "--radix",
        "8,8,8,8",
        "--backend",
        "all",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let stem = out.join("fftgen_n4096_r8x8x8x8_f32");
    let cuda = std::fs::read_to_string(stem.with_extension("cu")).unwrap();
    let opencl = std::fs::read_to_string(stem.with_extension("cl")).unwrap();
    let manifest: fftgen::Manifest =
        serde_json::from_str(&std::fs::read_to_string(stem.with_extension("json")).unwrap())
            .unwrap();
    assert!(cuda.contains("generated, do not edit"));
    assert!(cuda.contains("Regenerate with: fftgen emit --n 4096 --radix 8,8,8,8"));
    assert_eq!(manifest.n, 4096);
    assert_eq!(manifest.transforms.len(), 2);
    for pass in manifest.transforms.iter().flat_map(|t| &t.passes) {
        // The second launch bound (minimum blocks per SM) depends on the occupancy model, so only the
        // thread count the manifest promises is pinned here.
        let signature = cuda
            .lines()
            .find(|line| {
                line.contains("__global__") && line.contains(&format!(" {}(", pass.kernel))
            })
            .unwrap();
        assert!(
            signature.contains(&format!("__launch_bounds__({}, ", pass.block[0])),
            "{signature}"
        );
        assert!(opencl.contains(&format!("void {}(", pass.kernel)));
        assert!(pass.shared_bytes > 0 && pass.shared_bytes <= 48 * 1024);
        // input, output, batch, and the twiddle table the manifest carries.
        assert_eq!(pass.args.len(), 4);
        assert!(matches!(
            pass.args[3],
            fftgen_runtime::KernelArg::Twiddles { table: 0, .. }
        ));
        assert!(
            signature.contains("const float2* __restrict__ twiddles)"),
            "{signature}"
        );
    }
    assert_eq!(manifest.twiddle_tables.len(), 1);
    assert_eq!(manifest.twiddle_tables[0].len(), manifest.n - 8);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn plan_prints_the_table() {
    let result = fftgen(&["plan", "--n", "1000"]);
    assert!(result.status.success());
    let text = String::from_utf8_lossy(&result.stdout);
    for expected in [
        "radices            [10, 10, 10]",
        "threads per FFT    100",
        "shared memory",
        "operations",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in:\n{text}");
    }
}

/// A column one pass plans but the planner splits says why, and how to
/// keep one pass; `--split N` does.
#[test]
fn plan_says_why_a_narrow_column_is_split() {
    let args = [
        "plan",
        "--n",
        "12000x32",
        "--precision",
        "f64",
        "--target",
        "h200",
    ];
    let text = String::from_utf8_lossy(&fftgen(&args).stdout).to_string();
    // Two passes of the split the plan model ranks first, then the rows.
    let split = text
        .lines()
        .find_map(|line| line.strip_prefix("passes per axis: "))
        .and_then(|axes| axes.split(", ").next())
        .map(|first| {
            first
                .split(" x ")
                .map(|f| f.trim().parse::<usize>().unwrap())
                .collect::<Vec<_>>()
        });
    assert!(
        split
            .as_ref()
            .is_some_and(|s| s.len() == 2 && s.iter().product::<usize>() == 12000),
        "{text}"
    );
    assert!(text.contains(", 32 (first axis first)"), "{text}");
    assert!(
        text.contains("axis 0 (12000) split though one pass plans it (`--split 12000`)"),
        "{text}"
    );
    let whole = fftgen(&[&args[..], &["--split", "12000"]].concat());
    let text = String::from_utf8_lossy(&whole.stdout).to_string();
    assert!(text.contains("passes per axis: 12000, 32"), "{text}");
    assert!(!text.contains("split though one pass"), "{text}");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let cases: [(&[&str], &str); 9] = [
        (&["plan", "--n", "0"], "n = 0 is not a transform size"),
        (
            &["plan", "--n", "37", "--radix", "37"],
            "runs Bluestein's algorithm",
        ),
        (
            &[
                "emit",
                "--n",
                "64",
                "--radix",
                "8,4",
                "--out",
                "/nonexistent-never-written",
            ],
            "multiply to 32, not 64",
        ),
        (&["plan", "--n", "2147483648"], "is too large in f32"),
        (&["check", "--n", "64", "--batch", "0"], "--batch 0"),
        (
            &["check", "--n", "4096", "--batch", "5000000"],
            "of host memory (input, outputs and the f64 reference)",
        ),
        (
            &[
                "plan",
                "--n",
                "64",
                "--exchange-width",
                "one-part-at-a-time",
            ],
            "one-part-at-a-time exchange does not fit n = 64",
        ),
        (
            &["plan", "--n", "4000", "--exchange-buffers", "alternating"],
            "alternating exchange buffers do not fit n = 4000",
        ),
        (
            &["tune", "--sizes", "64", "--groups", "0"],
            "--repeats and --groups must be at least 1",
        ),
    ];
    for (args, message) in cases {
        let result = fftgen(args);
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(message),
            "{args:?}: {stderr}"
        );
    }
    assert!(!Path::new("/nonexistent-never-written").exists());
}

#[test]
fn check_passes_on_pocl_and_saved_files_agree_with_numpy() {
    let out = scratch("check");
    let result = fftgen(&[
        "check",
        "--backend",
        "opencl",
        "--platform",
        "Portable",
        "--n",
        "1000",
        "--batch",
        "4",
        "--direction",
        "forward",
        "--save",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    if result.status.code() == Some(2) && stderr.contains("OpenCL") && !in_ci() {
        return skip(&format!("PoCL unavailable: {stderr}"));
    }
    assert!(result.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("relative L2 error") && stdout.contains(" ok"),
        "{stdout}"
    );

    let script = format!(
        "import numpy as np\nx = np.load('{0}/input.npy')\ny = np.load('{0}/output.npy')\n\
         assert x.dtype == np.complex64 and x.shape == (4, 1000), (x.dtype, x.shape)\n\
         want = np.fft.fft(x.astype(np.complex128), axis=1)\n\
         print(np.linalg.norm(y - want) / np.linalg.norm(want))\n",
        out.display()
    );
    match Command::new("python3").args(["-c", &script]).output() {
        Ok(numpy) if numpy.status.success() => {
            let error: f64 = String::from_utf8_lossy(&numpy.stdout)
                .trim()
                .parse()
                .unwrap();
            assert!(error < 1e-6, "numpy disagrees: relative error {error}");
        }
        Ok(numpy) if !in_ci() => skip(&format!(
            "numpy unavailable: {}",
            String::from_utf8_lossy(&numpy.stderr)
        )),
        other => panic!("CI=true but python3 with numpy failed: {other:?}"),
    }
    let _ = std::fs::remove_dir_all(out);
}

/// The CI sample of the accuracy sweep (docs/accuracy.md ran it over
/// every length to 10,000 through CUDA): every 2499th length (2, 5000 by
/// Stockham's passes; 2501, 7499, 9998 by Bluestein's), both precisions on PoCL.
#[test]
fn sweep_samples_pass_on_pocl() {
    let out = scratch("sweep").with_extension("txt");
    let result = fftgen(&[
        "sweep",
        "--backend",
        "opencl",
        "--platform",
        "Portable",
        "--from",
        "2",
        "--to",
        "10000",
        "--step",
        "2499",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    if result.status.code() == Some(2) && stderr.contains("OpenCL") && !in_ci() {
        return skip(&format!("PoCL unavailable: {stderr}"));
    }
    assert!(result.status.success(), "{stderr}");
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 10, "{lines}");
    assert!(lines.lines().all(|l| l.ends_with(" ok")), "{lines}");
    let _ = std::fs::remove_file(out);
}

#[test]
fn targets_and_wisdom_files_choose_the_plan() {
    let plan = |args: &[&str], env: Option<&Path>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_fftgen"));
        command.arg("plan").args(args).env_remove("FFTGEN_WISDOM");
        if let Some(file) = env {
            command.env("FFTGEN_WISDOM", file);
        }
        let result = command.output().expect("the fftgen binary runs");
        assert!(
            result.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        String::from_utf8_lossy(&result.stdout).into_owned()
    };
    // The measured 343-thread shape of 2401 runs through CUDA, not through
    // NVIDIA's OpenCL (256 threads per work-group for these kernels).
    assert!(plan(&["--n", "2401", "--target", "h200"], None).contains("threads per FFT    343"));
    assert!(!plan(&["--n", "2401", "--target", "opencl-nvidia"], None)
        .contains("threads per FFT    343"));

    // A wisdom file of one's own wins over the built-in ones, named by flag
    // or by FFTGEN_WISDOM, for the GPU model it names.
    let dir = scratch("wisdom");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.json");
    std::fs::write(
        &file,
        r#"{"gpu": "H200", "entries": [
            {"precision": "f32", "n": 1000, "choices": {"radix": [8, 5, 5, 5]}}]}"#,
    )
    .unwrap();
    let mine = "radices            [8, 5, 5, 5]";
    let flag = [
        "--n",
        "1000",
        "--target",
        "h200",
        "--wisdom",
        file.to_str().unwrap(),
    ];
    assert!(plan(&flag, None).contains(mine));
    assert!(plan(&["--n", "1000", "--target", "h200"], Some(&file)).contains(mine));
    assert!(!plan(&["--n", "1000", "--target", "h100"], Some(&file)).contains(mine));

    // Bad targets, wisdom files and per-size shapes are errors that say what to do.
    let cases: [(&[&str], &str); 3] = [
        (
            &["plan", "--n", "64", "--target", "h300"],
            "is not a target; expected one of",
        ),
        (
            &["plan", "--n", "64", "--wisdom", "/nonexistent/w.json"],
            "cannot read it",
        ),
        (
            &["bench", "--shape", "--radix 8,8"],
            "does not start with a size",
        ),
    ];
    for (args, message) in cases {
        let result = fftgen(args);
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shapes_and_layouts_are_parsed_and_checked() {
    // A shape and layouts travel into the header's command line as given.
    let out = scratch("layouts");
    let result = fftgen(&[
        "emit",
        "--n",
        "64x48",
        "--input-strides",
        "50,1",
        "--input-distance",
        "3200",
        "--output-strides",
        "48,1",
        "--output-distance",
        "3072",
        "--backend",
        "cuda",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let emitted: String = std::fs::read_dir(&out)
        .unwrap()
        .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
        .collect();
    assert!(
        emitted.contains(
            "fftgen emit --n 64x48 --input-strides 50,1 --input-distance 3200 \
             --output-strides 48,1 --output-distance 3072"
        ),
        "the header reproduces the shape and layouts"
    );
    let _ = std::fs::remove_dir_all(&out);
    let plan = fftgen(&["plan", "--n", "64x48x40"]);
    assert!(
        plan.status.success(),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
    assert!(String::from_utf8_lossy(&plan.stdout).starts_with("shape = 64x48x40, "));

    let cases: [(&[&str], &str); 7] = [
        (&["plan", "--n", "0x64"], "axis of length 0"),
        (&["plan", "--n", "64xfoo"], "is not a shape"),
        (&["plan", "--n", "2x2x2x2"], "has 4 axes"),
        (
            &["plan", "--n", "64x48", "--input-strides", "48,1"],
            "--input-strides and --input-distance go together",
        ),
        (
            &[
                "plan",
                "--n",
                "64x48",
                "--input-strides",
                "40,1",
                "--input-distance",
                "4000",
            ],
            "overlap",
        ),
        (
            &[
                "check",
                "--n",
                "64x48",
                "--output-strides",
                "48,1",
                "--output-distance",
                "3000",
            ],
            "give a distance of at least 3072",
        ),
        (
            &[
                "plan",
                "--n",
                "64",
                "--placement",
                "in-place",
                "--output-strides",
                "1",
                "--output-distance",
                "64",
            ],
            "for out-of-place transforms",
        ),
    ];
    for (args, message) in cases {
        let result = fftgen(args);
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// `fftgen bench --random K --seed S --list`: the drawn cases, one per line,
/// without a GPU; the same lines for the same seed in every build (scripts
/// reuse them), the shorter draw the start of the longer.
#[test]
fn bench_random_lists_the_same_cases_for_a_seed() {
    let list = |args: &[&str]| {
        let result = fftgen(args);
        assert!(
            result.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        String::from_utf8(result.stdout).unwrap()
    };
    let drawn = list(&["bench", "--random", "8", "--seed", "42", "--list"]);
    assert_eq!(
        drawn,
        "3x14 f32 c2c\n24948 f64 c2c\n6x8788 f32 c2c\n1820x13860 f64 c2c\n\
         704x2x1120 f64 r2c\n676x4 f32 c2c\n10x3 f64 c2c\n31x267 f64 r2c\n"
    );
    let longer = list(&["bench", "--random", "20", "--seed", "42", "--list"]);
    assert!(longer.starts_with(&drawn) && longer.lines().count() == 20);
    assert_ne!(
        drawn,
        list(&["bench", "--random", "8", "--seed", "43", "--list"])
    );
    let sizes = list(&["bench", "--random", "8", "--seed", "42", "--print-sizes"]);
    assert_eq!(
        sizes,
        "3x14,24948,6x8788,1820x13860,704x2x1120,676x4,10x3,31x267\n"
    );
    // Listed shapes list the same way, in the order they run.
    let listed = list(&["bench", "--kind", "r2c", "--n", "4096,8", "--list"]);
    assert_eq!(listed, "8 f32 r2c\n4096 f32 r2c\n");
    // Drawn cases carry their own shapes, precisions and kinds.
    for args in [
        &["bench", "--random", "5", "--n", "4096"][..],
        &["bench", "--random", "5", "--precision", "f64"],
        &["bench", "--random", "0", "--list"],
    ] {
        let result = fftgen(args);
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}
