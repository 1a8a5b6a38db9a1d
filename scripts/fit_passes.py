"""Fits a cost model of whole plans, a sum over their passes, to measured
times without a GPU: each row of a random sample's bench JSON (`fftgen bench
--random`) is planned again by this build (`fftgen plan --json`, so the
sample should be of a build that plans alike), its passes' features summed
(passes, stages, 1024 / threads resident per SM, column passes, column tiles
narrower than 32 bytes, f64 scarcity), and time over the copy's fitted by
least squares on half of the rows. Prints the fit's error and rank
correlation on the other half beside the one-kernel model's (plan/cost.rs,
the H100's coefficients), then, for each shape of the variants logs
(`variants.sh`), which plan each model picks against the fastest, and how
many pairs of plans of one shape (3% apart or more) each orders right.
Bluestein plans are left out (their passes move rows of M, not the copy's
bytes).

    python3 scripts/fit_passes.py --sample docs/bench/h200_random_2071.json \
        --variants docs/bench/h200_variants_2071_misses.log ...
"""
import argparse, json, random, re, subprocess
import numpy as np

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--binary", default="./target/release/fftgen")
parser.add_argument("--target", default="h200")
parser.add_argument("--sample", required=True)
parser.add_argument("--variants", nargs="*", default=[])
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--precision", choices=["f32", "f64"], help="fit and report on rows of one precision")
cli = parser.parse_args()
BIN = cli.binary
cache = {}
def plan(args, binary=BIN):
    key = (binary, args)
    if key not in cache:
        out = subprocess.run([binary, "plan", "--target", cli.target, "--json"] + args.split(),
                             capture_output=True, text=True)
        cache[key] = json.loads(out.stdout) if out.returncode == 0 else None
    return cache[key]

def features(p, direction):
    passes = p["passes"] if direction != "inverse" or not p["inverse_passes"] else p["inverse_passes"]
    f64 = p["precision"] == "f64"
    rows = []
    for q in passes:
        if q.get("chirp"):
            return None
        s = len(q["stages"])
        threads = q["threads_per_block"]
        resident = max(1, q["min_blocks_per_sm"]) * (-(-threads // 32) * 32)
        scarcity = 1024 / resident
        column = q["io"] == "ColumnTile" or q["output_io"] == "ColumnTile"
        tile_bytes = q["ffts_per_block"] * (16 if f64 else 8)
        narrow = 1.0 if column and tile_bytes < 32 else 0.0
        rows.append([1.0, s, scarcity, narrow, scarcity * f64, float(column)])
    return np.array(rows).sum(axis=0)

OLD = np.array([0.4764, 0.16223, 0.12971, 0, 0, 0])

def rows_of_sample(path):
    d = json.load(open(path))
    out = []
    for r in d["rows"]:
        if cli.precision and r["precision"] != cli.precision:
            continue
        shape = "x".join(map(str, r["axes"]))
        args = f"--n {shape} --precision {r['precision']} --kind {'r2c' if r['kind'] in ('r2c','c2r') else 'c2c'}"
        p = plan(args)
        if p is None: continue
        x = features(p, r.get("direction") or "forward")
        if x is None: continue
        ours = r["ours"]["median_ms"] if r["kind"] != "c2r" or not r.get("ours_inverse") else r["ours_inverse"]["median_ms"]
        out.append((args + " " + (r.get("direction") or ""), x, ours / r["copy"]["median_ms"]))
    return out

data = rows_of_sample(cli.sample)
print(len(data), "rows without Bluestein")
random.seed(cli.seed)
random.shuffle(data)
half = len(data) // 2
fit, test = data[:half], data[half:]
X = np.array([x for _, x, _ in fit]); y = np.array([t for _, _, t in fit])
w, *_ = np.linalg.lstsq(X, y, rcond=None)
np.set_printoptions(suppress=True)
print("fitted (per pass, per stage, per scarcity, narrow tile, f64 scarcity, column pass):", np.round(w, 4))
def report(name, coef, rows):
    pred = np.array([x @ coef for _, x, _ in rows]); meas = np.array([t for _, _, t in rows])
    err = np.abs(pred - meas) / meas
    rank = np.corrcoef(np.argsort(np.argsort(pred)), np.argsort(np.argsort(meas)))[0, 1]
    print(f"{name}: median |err| {np.median(err):.2f}, spearman {rank:.3f}")
report("fitted on held-out", w, test)
report("one-kernel model on held-out", OLD, test)

def variants(path):
    out = []
    label = None
    for line in open(path):
        m = re.match(r"== (\S+) (\S+) (.*)", line)
        if m:
            rest = m.group(3)
            shape_flags = ""
            sm = re.search(r"--shape '([^']*)'", rest)
            if sm:
                shape_flags = " ".join(sm.group(1).split()[1:])
                rest = rest[:sm.start()]
            base = " ".join(rest.split())
            args = base + " " + shape_flags
            label = (base, args.strip())
            continue
        m = re.match(r"\s+N = (?:(r2c|c2r) )?\S+ (forward|inverse)?.*ours ([0-9.]+) ms, cuFFT ([0-9.]+) ms, copy ([0-9.]+) ms", line)
        if m and label:
            direction = m.group(2) or ("inverse" if m.group(1) == "c2r" else "forward")
            out.append((label[0] + " " + direction, label[1], direction, float(m.group(3)) / float(m.group(5))))
    return out

pairs_total = {"fitted": [0, 0], "one-kernel": [0, 0]}
split_pairs = {"fitted": [0, 0], "one-kernel": [0, 0]}
for path in cli.variants:
    rows = variants(path)
    groups = {}
    for key, args, direction, t in rows:
        p = plan(args)
        if p is None: continue
        x = features(p, direction)
        if x is None: continue
        groups.setdefault(key, []).append((args, x, t))
    for key, items in groups.items():
        if len(items) < 2: continue
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                a, b = items[i], items[j]
                if abs(a[2] - b[2]) / min(a[2], b[2]) < 0.03: continue
                truth = a[2] < b[2]
                for name, coef in [("fitted", w), ("one-kernel", OLD)]:
                    pa, pb = a[1] @ coef, b[1] @ coef
                    if pa == pb: continue
                    pairs_total[name][1] += 1
                    pairs_total[name][0] += (pa < pb) == truth
                    # Plans of several passes each: the ranking of splits.
                    if a[1][0] > 1 and b[1][0] > 1:
                        split_pairs[name][1] += 1
                        split_pairs[name][0] += (pa < pb) == truth
        if items:
            best = min(items, key=lambda it: it[2])
            pick_f = min(items, key=lambda it: it[1] @ w)
            pick_o = min(items, key=lambda it: it[1] @ OLD)
            print(f"{key[:60]:60s} best {best[2]:.2f} fitted pick {pick_f[2]:.2f} one-kernel pick {pick_o[2]:.2f}")
print("pairs of plans of one shape ordered right (3% apart or more):",
      {name: f"{right} of {total}" for name, (right, total) in pairs_total.items()})
print("of them, pairs of plans of several passes each:",
      {name: f"{right} of {total}" for name, (right, total) in split_pairs.items()})
