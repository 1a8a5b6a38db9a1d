#!/usr/bin/env python3
"""The distribution of cuFFT/ours over a `fftgen bench --random` report:
every row's ratio of cuFFT's median time to ours (above 1: we are faster),
the worst, the 10th percentile and the median, each row's error against its
tolerance, and the rows under a floor, worst first.

    python3 scripts/random_summary.py REPORT.json [PART.json ...] [--floor 0.85] [--markdown] [--vkfft VKFFT.json]

Several reports are the parts of one sample timed in runs of their own
(`fftgen bench --random 50 --seed S`, then `--random 100 --seed S
--random-from 50`): their rows count as one.

With --vkfft (scripts/device/vkfft_bench.py --cases on the same cases and
GPU), also VkFFT/ours per row, from each one's share of its own run's copy
bandwidth (above 1: we are faster).
"""
import argparse
import json


def label(row):
    shape = "x".join(str(a) for a in row["axes"])
    kind = row["kind"]
    direction = row.get("direction")
    if kind != "c2c" and direction:
        kind = {"forward": "r2c", "inverse": "c2r"}.get(direction, direction)
    return f"{shape} {row['precision']} {kind}"


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report", nargs="+")
    parser.add_argument("--floor", type=float, default=0.85)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--vkfft")
    args = parser.parse_args()
    parts = [json.load(open(path)) for path in args.report]
    report = parts[0]
    rows = []
    for row in (row for part in parts for row in part["rows"]):
        ours, cufft, copy = row.get("ours"), row.get("cufft"), row.get("copy")
        if not ours or not cufft:
            print(f"no time: {label(row)} {row.get('notes')}")
            continue
        ratio = cufft["median_ms"] / ours["median_ms"]
        of_copy = copy["median_ms"] / ours["median_ms"] if copy else float("nan")
        error = row.get("ours_error")
        within = error is not None and error <= row["tolerance"]
        rows.append((ratio, of_copy, label(row), row["passes"], error, within))
    ratios = [r[0] for r in rows]
    draw = report.get("random") or {}
    print(f"{report['device']}, {report['date_utc']}, seed {draw.get('seed')}, "
          f"{len(rows)} rows: cuFFT/ours worst {min(ratios):.3f}, "
          f"10th percentile {percentile(ratios, 0.1):.3f}, "
          f"median {percentile(ratios, 0.5):.3f}, best {max(ratios):.3f}; "
          f"{sum(r < args.floor for r in ratios)} under {args.floor}, "
          f"{sum(not r[5] for r in rows)} outside the tolerance")
    print("rows under 1.0, worst first:")
    for ratio, of_copy, name, passes, error, within in sorted(rows):
        if ratio >= 1.0:
            break
        print(f"  {ratio:.3f}  {name:28s} passes {passes}  ours {100 * of_copy:.0f}% of copy"
              f"  error {error:.2e}{'' if within else ' OVER TOLERANCE'}")
    if args.vkfft:
        vkfft_summary(json.load(open(args.vkfft))["rows"], rows)
    if args.markdown:
        print("\n| shape | cuFFT/ours | ours % of copy | passes | error |")
        print("|---|---|---|---|---|")
        for ratio, of_copy, name, passes, error, within in sorted(rows):
            print(f"| {name} | {ratio:.2f} | {100 * of_copy:.0f} | {passes} | {error:.1e} |")


def vkfft_label(row):
    shape = "x".join(str(a) for a in row["shape"])
    kind = row.get("kind", "c2c")
    if kind == "r2c":
        kind = {"forward": "r2c", "inverse": "c2r"}[row["direction"]]
    return f"{shape} {row['precision']} {kind}"


def vkfft_summary(vkfft_rows, rows):
    """VkFFT/ours over the rows both timed: ours % of copy over VkFFT's."""
    theirs = {vkfft_label(r): r["vkfft_pct_copy"] / 100 for r in vkfft_rows if "vkfft_pct_copy" in r}
    failed = [vkfft_label(r) for r in vkfft_rows if "vkfft_pct_copy" not in r]
    pairs = sorted((of_copy / theirs[name], name) for _, of_copy, name, *_ in rows if name in theirs)
    if not pairs:
        print("VkFFT: no row in common")
        return
    ratios = [p[0] for p in pairs]
    print(f"VkFFT/ours over {len(pairs)} rows: worst {min(ratios):.3f}, "
          f"10th percentile {percentile(ratios, 0.1):.3f}, median {percentile(ratios, 0.5):.3f}, "
          f"best {max(ratios):.3f}; VkFFT failed on {len(failed)}: {', '.join(failed)}")
    print("rows under 1.0 against VkFFT, worst first:")
    for ratio, name in pairs:
        if ratio >= 1.0:
            break
        print(f"  {ratio:.3f}  {name}")


if __name__ == "__main__":
    main()
