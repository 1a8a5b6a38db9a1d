#!/usr/bin/env python3
"""VkFFT side by side with fftgen's bench, on the GPU machine: times pyvkfft's
VkFFTApp (CUDA backend, out of place) on the shapes `fftgen bench` times, by
the same method (docs/perf.md): 1 GiB batches of random complex values,
3 warm-up launches, then 7 groups of 10 launches each timed with CUDA events,
the median per launch, and a device-to-device copy of the same bytes in the
same run; the relative L2 error of the first transforms against numpy's f64
FFT. Writes JSON rows that `scripts/perf_table.py --vkfft FILE` puts in the
VkFFT column.

    usage: python3 vkfft_bench.py --sizes 4096,6561,1000x1000 [--precision f32] --json OUT
           python3 vkfft_bench.py --cases CASES --json OUT

CASES holds a case a line, `SHAPE PRECISION KIND` (`fftgen bench --random K
--seed S --list` prints them): a c2c case is a row as above, an r2c case two
rows, VkFFT's R2C and C2R, each moving the reals and the half spectrum once
(its batch fills 1 GiB with the larger side, as the bench's does).

pyvkfft is not on the device image: build it from its source distribution
there first (scripts/device/vkfft.sh does, from .devbin/pyvkfft.tar.gz).
"""
import argparse
import json
import sys

import cupy as cp
import numpy as np
from pyvkfft.cuda import VkFFTApp

GIB_ELEMENTS = {"f32": 1 << 27, "f64": 1 << 26}
WARMUP, GROUPS, REPEATS = 3, 7, 10


def parse_shape(text):
    return tuple(int(axis) for axis in text.split("x"))


def timed(launch):
    """Median milliseconds per launch over GROUPS event-timed groups."""
    for _ in range(WARMUP):
        launch()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(GROUPS):
        start.record()
        for _ in range(REPEATS):
            launch()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / REPEATS)
    return float(np.median(times))


def row(shape, precision):
    points = int(np.prod(shape))
    batch = max(1, GIB_ELEMENTS[precision] // points)
    real = np.float32 if precision == "f32" else np.float64
    cp.random.seed(1)
    parts = [cp.random.uniform(-1, 1, (batch,) + shape, dtype=real) for _ in range(2)]
    src = parts[0] + 1j * parts[1]
    del parts
    dst = cp.empty_like(src)
    nbytes = 2 * src.nbytes
    copy_ms = timed(lambda: cp.copyto(dst, src))
    app = VkFFTApp(src.shape, src.dtype, ndim=len(shape), inplace=False)
    vkfft_ms = timed(lambda: app.fft(src, dst))
    # Accuracy on the first transforms (to 2^22 points), against numpy in f64.
    check = min(batch, max(1, (1 << 22) // points))
    error = None
    if points <= 1 << 22:
        axes = tuple(range(1, len(shape) + 1))
        want = np.fft.fftn(cp.asnumpy(src[:check]).astype(np.complex128), axes=axes)
        app.fft(src, dst)
        got = cp.asnumpy(dst[:check]).astype(np.complex128)
        error = float(np.linalg.norm(got - want) / np.linalg.norm(want))
    copy_gbs = nbytes / copy_ms / 1e6
    vkfft_gbs = nbytes / vkfft_ms / 1e6
    return {
        "shape": list(shape),
        "precision": precision,
        "kind": "c2c",
        "batch": batch,
        "copy_ms": copy_ms,
        "vkfft_ms": vkfft_ms,
        "vkfft_pct_copy": 100 * vkfft_gbs / copy_gbs,
        "vkfft_error": error,
    }


def real_rows(shape, precision):
    """VkFFT's R2C and C2R of `shape` (the last axis real), out of place."""
    real = np.float32 if precision == "f32" else np.float64
    complex_ = np.complex64 if precision == "f32" else np.complex128
    points = int(np.prod(shape))
    half_shape = shape[:-1] + (shape[-1] // 2 + 1,)
    half_points = int(np.prod(half_shape))
    larger = max(points * np.dtype(real).itemsize, half_points * np.dtype(complex_).itemsize)
    batch = max(1, (1 << 30) // larger)
    cp.random.seed(1)
    reals = cp.random.uniform(-1, 1, (batch,) + shape, dtype=real)
    spectrum = cp.empty((batch,) + half_shape, dtype=complex_)
    back = cp.empty_like(reals)
    nbytes = reals.nbytes + spectrum.nbytes
    copy_src = cp.empty(nbytes // 2, dtype=cp.uint8)
    copy_dst = cp.empty_like(copy_src)
    copy_ms = timed(lambda: cp.copyto(copy_dst, copy_src))
    app = VkFFTApp(reals.shape, real, ndim=len(shape), r2c=True, inplace=False)
    rows = []
    for direction, launch in [
        ("forward", lambda: app.fft(reals, spectrum)),
        ("inverse", lambda: app.ifft(spectrum, back)),
    ]:
        app.fft(reals, spectrum)
        ms = timed(launch)
        rows.append({
            "shape": list(shape), "precision": precision, "kind": "r2c", "direction": direction,
            "batch": batch, "copy_ms": copy_ms, "vkfft_ms": ms,
            "vkfft_pct_copy": 100 * copy_ms / ms,
        })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes")
    parser.add_argument("--cases")
    parser.add_argument("--precision", default="f32", choices=["f32", "f64"])
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows = []
    if args.cases:
        cases = [line.split() for line in open(args.cases) if line.strip()]
    else:
        cases = [(text, args.precision, "c2c") for text in args.sizes.split(",")]
    for text, precision, kind in cases:
        try:
            if kind == "r2c":
                for r in real_rows(parse_shape(text), precision):
                    rows.append(r)
                    print(f"{text} {precision} r2c {r['direction']}: VkFFT {r['vkfft_ms']:.4f} ms, "
                          f"{r['vkfft_pct_copy']:.1f}% of the copy", flush=True)
                continue
            rows.append(row(parse_shape(text), precision))
            r = rows[-1]
            print(f"{text}: VkFFT {r['vkfft_ms']:.4f} ms, copy {r['copy_ms']:.4f} ms, "
                  f"{r['vkfft_pct_copy']:.1f}% of the copy, error {r['vkfft_error']}", flush=True)
        except Exception as e:  # a shape VkFFT cannot plan is a row without figures
            print(f"{text}: VkFFT failed: {e}", file=sys.stderr, flush=True)
            rows.append({"shape": list(parse_shape(text)), "precision": precision, "kind": kind,
                         "error": str(e)})
        cp.get_default_memory_pool().free_all_blocks()
        # Written after every shape, so a run cut short keeps what it timed.
        with open(args.json, "w") as out:
            json.dump({"device": device, "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
