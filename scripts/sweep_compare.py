#!/usr/bin/env python3
"""sweep_compare.py: % of memcpy per row of `xpose bench --format csv` files, side by side, and where `fast` is behind
cublas-geam. Usage: sweep_compare.py A.csv [B.csv ...]  (prints one line per element size and shape)."""
import csv
import sys


def load(path):
    """{(elem_size, rows, cols): {variant/params: pct}} of one CSV (its '#' note line skipped)."""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["status"] != "0" or r["verified"] not in ("true", "yes") or not r["pct_memcpy"] or float(r["pct_memcpy"]) < 0:
                continue
            key = (int(r["elem_size"]), int(r["rows"]), int(r["cols"]))
            name = r["variant"] + ("/" + r["params"] if r["params"] else "")
            out.setdefault(key, {})[name] = float(r["pct_memcpy"])
    return out


def main(paths):
    runs = [load(p) for p in paths]
    names = []
    for run in runs:
        for rows in run.values():
            names += [n for n in rows if n not in names and n != "memcpy"]
    print("elem shape        " + "  ".join(f"{n:>{6 * len(runs) + 2}}" for n in names) + "  fast behind cuBLAS in")
    behind_total = 0
    for key in sorted({k for run in runs for k in run}):
        cells, behind = [], 0
        for n in names:
            cells.append(" ".join(f"{run.get(key, {}).get(n, float('nan')):6.1f}" for run in runs))
        for run in runs:
            row = run.get(key, {})
            if "fast" in row and "cublas-geam" in row and row["fast"] < row["cublas-geam"]:
                behind += 1
        behind_total += behind
        shape = f"{key[1]}x{key[2]}"
        print(f"{key[0]:>4} {shape:<12} " + "  ".join(f"{c:>{6 * len(runs) + 2}}" for c in cells) +
              f"  {behind}/{len(runs)}")
    print(f"fast behind cublas-geam: {behind_total} (shape, run) pairs")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: sweep_compare.py A.csv [B.csv ...]")
    main(sys.argv[1:])
