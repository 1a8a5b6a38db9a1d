#!/usr/bin/env python3
"""Warps each emitted CUDA kernel keeps resident per SM, from ptxas (sm_90)
on this machine, no GPU needed: the kernels of the cases `fftgen bench
--random K --seed S --list` draws (or of the shapes given), planned for a
Hopper target, lowest first. A kernel that leaves an SM a few warps waits
on memory with nothing to switch to (390 f64's one block of 210 threads at
146 registers ran at 50% of the copy), so the list names suspects to time,
not verdicts: tiles of columns hide it better than rows do.

    source scripts/env.sh
    cargo build --release -p fftgen-cli
    cargo build --release -p fftgen-runtime --example ptxas
    python3 scripts/occupancy.py --random 100 --seed 2062 [--target h100] [--lowest 40]
    python3 scripts/occupancy.py --cases "390 f64 c2c" "7168x8192 f32 r2c"

Residency: the least of the blocks the registers (allocated 8 at a time),
the shared memory (static plus the manifest's dynamic bytes, 1 KiB reserved
a block), the threads (2048) and 32 blocks allow on an H100/H200 SM.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

REGISTERS_PER_SM = 65536
SHARED_BYTES_PER_SM = 233472
RESERVED_SHARED_PER_BLOCK = 1024
THREADS_PER_SM = 2048
BLOCKS_PER_SM = 32


def cases(args):
    if args.cases:
        return [c.split() for c in args.cases]
    listed = subprocess.run(
        [args.fftgen, "bench", "--random", str(args.random), "--seed", str(args.seed), "--list"],
        capture_output=True, text=True, check=True).stdout
    return [line.split() for line in listed.splitlines() if line.strip()]


def dynamic_shared(manifest):
    """Each kernel's dynamic shared bytes, wherever the manifest lists it."""
    found = {}

    def walk(node):
        if isinstance(node, dict):
            if "name" in node and "dynamic_shared_bytes" in node:
                found[node["name"]] = node["dynamic_shared_bytes"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(manifest)
    return found


def kernels(args, shape, precision, kind, out):
    """(name, registers, shared bytes, threads, spilled bytes) of each kernel."""
    emitted = subprocess.run(
        [args.fftgen, "emit", "--n", shape, "--precision", precision, "--kind", kind,
         "--target", args.target, "--backend", "cuda", "--out", out],
        capture_output=True, text=True)
    if emitted.returncode:
        return []
    source_file = next(f for f in os.listdir(out) if f.endswith(".cu"))
    source = open(os.path.join(out, source_file)).read()
    manifest = json.load(open(os.path.join(out, source_file[:-3] + ".json")))
    dynamic = dynamic_shared(manifest)
    threads = {m.group(2): int(m.group(1))
               for m in re.finditer(r"__launch_bounds__\((\d+), \d+\) (\w+)\(", source)}
    report = subprocess.run([args.ptxas, os.path.join(out, source_file)],
                            capture_output=True, text=True)
    text = report.stdout + report.stderr
    pattern = (r"entry function '(\w+)'.*?\n.*?(\d+) bytes spill stores.*?\n"
               r"\s*Used (\d+) registers(?:.*?(\d+) bytes smem)?")
    found = []
    for m in re.finditer(pattern, text):
        name = m.group(1)
        if name in threads:
            shared = int(m.group(4) or 0) + dynamic.get(name, 0)
            found.append((name, int(m.group(3)), shared, threads[name], int(m.group(2))))
    return found


def resident_warps(registers, shared, threads):
    warps = -(-threads // 32)
    allocated = -(-registers // 8) * 8
    by_registers = REGISTERS_PER_SM // (allocated * 32 * warps)
    by_shared = SHARED_BYTES_PER_SM // (shared + RESERVED_SHARED_PER_BLOCK) if shared else BLOCKS_PER_SM
    by_threads = THREADS_PER_SM // (warps * 32)
    blocks = min(by_registers, by_shared, by_threads, BLOCKS_PER_SM)
    return blocks * warps, blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cases", nargs="*", help='"SHAPE PRECISION KIND" each')
    parser.add_argument("--target", default="h100")
    parser.add_argument("--lowest", type=int, default=40)
    parser.add_argument("--fftgen", default="target/release/fftgen")
    parser.add_argument("--ptxas", default="target/release/examples/ptxas")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (shape, precision, kind) in enumerate(cases(args)):
            out = os.path.join(tmp, str(i))
            for name, registers, shared, threads, spilled in kernels(args, shape, precision, kind, out):
                warps, blocks = resident_warps(registers, shared, threads)
                rows.append((warps, f"{shape} {precision} {kind}", name, registers, shared,
                             threads, blocks, spilled))
    rows.sort()
    print(f"{'warps':>5}  {'case':24}  {'kernel':60}  regs  shared  threads  blocks  spilled")
    for warps, case, name, registers, shared, threads, blocks, spilled in rows[:args.lowest]:
        print(f"{warps:5d}  {case:24}  {name[:60]:60}  {registers:4d}  {shared:6d}  {threads:7d}"
              f"  {blocks:6d}  {spilled:7d}")


if __name__ == "__main__":
    main()
