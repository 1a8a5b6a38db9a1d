#!/usr/bin/env python3
"""Prints the docs/perf.md table of one `fftgen bench --json` report.

    python3 scripts/perf_table.py docs/bench/h200_f32.json
    python3 scripts/perf_table.py --peers ../shared/peers.md docs/bench/h200_f32.json
    python3 scripts/perf_table.py --plan-columns docs/bench/h100_f32.json

`--peers FILE` adds VkFFT's % of the copy from a peers table (FILE's section
for the report's GPU model, e.g. "# Peers measured on the H200 (date)", rows
`| c2c | f32 | (batch, N) | ... |`), where it has the size; "-" elsewhere.
`--vkfft FILE` takes it from the JSON that scripts/device/vkfft.sh writes
(VkFFT timed on the same shapes and GPU), before the peers table.
`--plan-columns` adds the batch after N and plan creation (cold, disk and
memory cache, ms) at the end. `--compact` prints the columns docs/perf.md
shows: N, passes, radices (one-kernel plans), ours and cuFFT ms, cuFFT/ours,
% of the copy (ours, cuFFT, VkFFT from --peers), both errors and plan
creation.

N is the shape as `fftgen bench --sizes` takes it (8192, 1024x1024); a plan of
several passes shows their count in the radices column and "-" for the
one-kernel shape. Numbers a row lacks (cuFFT failed to plan) are "-".

Ratios under 1.00 (cuFFT faster) are bold. The shape column lists threads per
transform, transforms per block, launch bound and the caches the input goes
through, then the exchange choices that differ from the defaults.
"""
import json
import re
import sys

DEFAULTS = {
    "exchange_buffers": "Reused",
    "exchange_width": "BothParts",
    "first_write": "AfterBarrier",
    "padding_search": "EvenRadices",
}
SHORT = {
    "Interleaved": "interleaved",
    "OnePartAtATime": "one part",
    "Alternating": "alternating",
    "Immediate": "no first barrier",
    "AllRadices": "odd padding",
    "L1AndL2": "L1+L2",
    "L2Only": "L2",
}


# Reports written before the bench's rows held one `shape` (the command
# line's spellings) named each choice as a field of its own.
OLD_FIELDS = {
    "radix": "radices",
    "threads-per-fft": "threads_per_fft",
    "ffts-per-block": "ffts_per_block",
    "min-blocks-per-sm": "min_blocks_per_sm",
    "input-caching": "input_caching",
    "exchange-buffers": "exchange_buffers",
    "exchange-width": "exchange_width",
    "first-write": "first_write",
    "padding-search": "padding_search",
}
SPELLED = {
    "both-parts": "BothParts", "one-part-at-a-time": "OnePartAtATime", "interleaved": "Interleaved",
    "reused": "Reused", "alternating": "Alternating", "after-barrier": "AfterBarrier",
    "immediate": "Immediate", "even-radices": "EvenRadices", "all-radices": "AllRadices",
    "l1-and-l2": "L1AndL2", "l2-only": "L2Only",
}


def choices(row):
    """The row's shape with the old field names and spellings, either way."""
    if "shape" not in row:
        return row
    shape = row["shape"]
    spelled = lambda v: SPELLED.get(v, v) if isinstance(v, str) else v
    return {old: spelled(shape.get(new)) for new, old in OLD_FIELDS.items()}


def fmt_err(x):
    if x is None:
        return "-"
    return "0" if x == 0 else f"{x:.2e}".replace("e-0", "e-")


def fixed(x, digits):
    return "-" if x is None else f"{x:.{digits}f}"


def label(row):
    """The shape as --sizes spells it; reports before shapes had only n."""
    return "x".join(map(str, row.get("axes") or [row["n"]]))


def passes(row):
    """Kernels per transform; reports before multi-pass plans had one."""
    return row.get("passes", 1)


def radices(row):
    if passes(row) > 1:
        return f"{passes(row)} passes"
    return "x".join(map(str, choices(row)["radices"] or []))


def shape(row):
    if passes(row) > 1:
        return "-"
    row = choices(row)
    parts = [
        str(row["threads_per_fft"]),
        str(row["ffts_per_block"]),
        str(row["min_blocks_per_sm"]),
        SHORT.get(row["input_caching"], row["input_caching"]),
    ]
    # Exchange widths that the planner picked by fit (f64 4096's one part) are
    # listed too: they are part of the kernel that ran.
    for key, default in DEFAULTS.items():
        if row.get(key, default) != default:
            parts.append(SHORT.get(row[key], row[key]))
    return ", ".join(parts)


def ms(timing):
    return f"{timing['median_ms']:.4f}" if timing else "-"


def plan_ms(row):
    plan = row.get("plan_creation")
    if not plan:
        return "-"
    cold, disk, memory = plan["cold_ms"], plan["disk_ms"], plan["memory_ms"]
    return f"{cold:.0f}/{disk:.1f}/{memory:.2f}"


def vkfft_pct_copy(peers_path, device, precision):
    """VkFFT's % of the copy by N, from the section of `peers_path` whose
    heading names a model that `device` contains."""
    table, section_matches = {}, False
    for line in open(peers_path):
        heading = re.match(r"#+ Peers measured on the (\S+)", line)
        if heading:
            section_matches = heading.group(1) in device
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not section_matches or len(cells) != 9 or cells[0] != "c2c" or cells[1] != precision:
            continue
        shape_dims = re.fullmatch(r"\((\d+), (\d+)\)", cells[2])
        if shape_dims:
            table[int(shape_dims.group(2))] = cells[7]
    return table


def vkfft_from_json(path):
    """VkFFT's % of the copy by shape label, from scripts/device/vkfft.sh."""
    rows = json.load(open(path))["rows"]
    return {
        "x".join(str(a) for a in r["shape"]): f"{r['vkfft_pct_copy']:.1f}"
        for r in rows
        if "vkfft_pct_copy" in r
    }


def vk_cell(row, vkfft):
    """The VkFFT column of `row`: by shape label (vkfft JSON), else by N for
    1D lengths (the peers table), else "-"."""
    if label(row) in vkfft:
        return vkfft[label(row)]
    return vkfft.get(row["n"], "-") if "x" not in label(row) else "-"


def compact(report, vkfft):
    vk_head, vk_align = (" VkFFT % copy |", "---:|") if vkfft is not None else ("", "")
    print("| N | passes | radices | ours ms | cuFFT ms | cuFFT/ours | ours % copy | cuFFT % copy |"
          f"{vk_head} ours err | cuFFT err | plan ms cold/disk/mem |")
    print(f"|---:|---:|:---|---:|---:|---:|---:|---:|{vk_align}---:|---:|---:|")
    for row in report["rows"]:
        ratio = row["cufft_over_ours"]
        ratio_text = "-" if ratio is None else (f"{ratio:.2f}" if ratio >= 1 else f"**{ratio:.2f}**")
        vk = f" {vk_cell(row, vkfft)} |" if vkfft is not None else ""
        one_kernel = row.get("passes", 1) == 1
        print(
            f"| {label(row)} | {row.get('passes', 1)} | {radices(row) if one_kernel else '-'} "
            f"| {ms(row['ours'])} | {ms(row['cufft'])} | {ratio_text} "
            f"| {fixed(row['ours_pct_copy'], 1)} | {fixed(row['cufft_pct_copy'], 1)} |{vk}"
            f" {fmt_err(row['ours_error'])} | {fmt_err(row['cufft_error'])} | {plan_ms(row)} |"
        )


def main(path, plan_columns, peers, compact_table=False, vkfft_json=None):
    report = json.load(open(path))
    vkfft = vkfft_pct_copy(peers, report["device"], report["precision"]) if peers else None
    if vkfft_json:
        vkfft = {**(vkfft or {}), **vkfft_from_json(vkfft_json)}
    if compact_table:
        return compact(report, vkfft)
    batch_head, batch_align = ("| batch ", "---:|") if plan_columns else ("", "")
    plan_head, plan_align = (" plan ms cold/disk/mem |", "---:|") if plan_columns else ("", "")
    vk_head, vk_align = (" VkFFT % copy |", "---:|") if vkfft is not None else ("", "")
    print(f"| N {batch_head}| radices | threads/FFT, per block, bound, input, exchange | ours ms "
          "| ours inv ms | cuFFT ms | copy ms | cuFFT/ours | ours % copy | cuFFT % copy |"
          f"{vk_head} ours err | cuFFT err | OpenCL ms |{plan_head}")
    print(f"|---:|{batch_align}:---|:---|---:|---:|---:|---:|---:|---:|---:|{vk_align}"
          f"---:|---:|---:|{plan_align}")
    for row in report["rows"]:
        ratio = row["cufft_over_ours"]
        if ratio is None:
            ratio_text = "-"
        else:
            ratio_text = f"{ratio:.4f}" if ratio >= 1 else f"**{ratio:.4f}**"
        batch = f" {row['batch']} |" if plan_columns else ""
        plan = f" {plan_ms(row)} |" if plan_columns else ""
        vk = f" {vk_cell(row, vkfft)} |" if vkfft is not None else ""
        print(
            f"| {label(row)} |{batch} {radices(row)} | {shape(row)} "
            f"| {ms(row['ours'])} | {ms(row['ours_inverse'])} | {ms(row['cufft'])} | {ms(row['copy'])} "
            f"| {ratio_text} | {fixed(row['ours_pct_copy'], 1)} | {fixed(row['cufft_pct_copy'], 1)} |{vk}"
            f" {fmt_err(row['ours_error'])} | {fmt_err(row['cufft_error'])} | {ms(row.get('opencl'))} |"
            f"{plan}"
        )


USAGE = "usage: perf_table.py [--compact] [--plan-columns] [--peers PEERS.md] [--vkfft VKFFT.json] BENCH.json"


def take_value(args, flag):
    """The value after `flag` in `args` (both removed), or None without it."""
    if flag not in args:
        return None
    at = args.index(flag)
    if at + 1 >= len(args):
        sys.exit(USAGE)
    value = args[at + 1]
    del args[at:at + 2]
    return value


if __name__ == "__main__":
    args = sys.argv[1:]
    plan_columns = "--plan-columns" in args
    compact_table = "--compact" in args
    args = [a for a in args if a not in ("--plan-columns", "--compact")]
    peers = take_value(args, "--peers")
    vkfft_json = take_value(args, "--vkfft")
    if len(args) != 1:
        sys.exit(USAGE)
    main(args[0], plan_columns, peers, compact_table, vkfft_json)
