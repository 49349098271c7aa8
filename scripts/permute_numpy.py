"""permute_numpy.py: NumPy's `np.ascontiguousarray(a.transpose(p))` on the CPU cases of the permutation suite (issue 36:
`xpose bench --preset permute --backend cpu`), the peer of the CPU target "at least 5x NumPy"; with --transpose, its
`np.ascontiguousarray(a.T)` on the CPU peer table's squares of every element size (`xpose bench --backend cpu --peers
--size 4000,8192`), the peer of issue 40's "at least 10x NumPy".

Each case is scaled as cli/bench_permute.c scales it for the CPU (the largest extent above 4 halved until the tensor fits
64 MiB), so that the shape column matches the bench's. Timed cold, as the bench's CPU rows are: a read of a buffer
twice the last-level cache before each run (--flush-mib, default 600), the figure the median of --reps runs. The
first result is checked against the permuted view (values, and C order). NumPy runs this on one thread
whatever the thread count, so its figure is the peer of both of the bench's passes.

Usage: python3 scripts/permute_numpy.py [--reps 5] [--flush-mib 600] [--transpose N[,N...]] [--csv FILE]
"""
import argparse
import csv
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from permute_peers import SUITE  # noqa: E402  (the suite's one list; imports no GPU package it lacks)

CPU_BYTES = 64 << 20  # cli/bench_permute.c: SUITE_CPU_BYTES
KEEP = 4  # cli/bench_permute.c: SUITE_KEEP
ITEM = {"u8": np.uint8, "bf16": np.uint16, "u16": np.uint16, "float": np.float32, "double": np.float64,
        "c128": np.complex128}


def scale_for_cpu(shape, es):
    """cli/bench_permute.c's scale_for_cpu: the largest extent above KEEP halved until the tensor fits CPU_BYTES."""
    shape = list(shape)
    while int(np.prod(shape)) * es > CPU_BYTES:
        big = max((k for k in range(len(shape)) if shape[k] > KEEP), key=lambda k: (shape[k], -k), default=None)
        if big is None:
            break
        shape[big] //= 2
    return tuple(shape)


def shape_text(shape, perm):
    """The bench's shape column: "D0xD1x... (P0,P1,...)"."""
    return "x".join(map(str, shape)) + " (" + ",".join(map(str, perm)) + ")"


def cases(args):
    """(name, shape, perm, type) of the suite scaled for the CPU, or with --transpose the squares of every size."""
    if args.transpose:
        return [(f"transpose {n}^2", (n, n), (1, 0), t) for n in map(int, args.transpose.split(","))
                for t in ("u8", "u16", "float", "double", "c128")]
    return [(name, scale_for_cpu(shape, np.dtype(ITEM[tname]).itemsize), perm, tname)
            for name, shape, perm, tname in SUITE]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--flush-mib", type=int, default=600)
    ap.add_argument("--transpose", help="square sizes N[,N...]: NumPy's 2-D transpose at every element size")
    ap.add_argument("--csv")
    args = ap.parse_args()
    flush = np.ones(args.flush_mib << 17, dtype=np.float64)
    rng = np.random.default_rng(1)
    rows = []
    for name, shape, perm, tname in cases(args):
        dt = np.dtype(ITEM[tname])
        a = rng.integers(0, 1 << (8 * min(dt.itemsize, 4) - 1), size=shape).astype(dt)
        out = np.ascontiguousarray(a.transpose(perm))
        if not np.array_equal(out, a.transpose(perm)) or not out.flags.c_contiguous:
            sys.exit(f"permute_numpy.py: {name} {shape_text(shape, perm)}: NumPy's result is wrong")
        del out
        times = []
        for _ in range(args.reps):
            flush.sum()
            t0 = time.perf_counter()
            out = np.ascontiguousarray(a.transpose(perm))
            times.append((time.perf_counter() - t0) * 1e3)
            del out
        ms = statistics.median(times)
        rows.append({"case": name, "shape": shape_text(shape, perm), "dtype": tname, "elem_size": dt.itemsize,
                     "numpy_ms": f"{ms:.4f}", "gbps": f"{2 * a.nbytes / ms / 1e6:.2f}", "reps": args.reps})
        print(f"{name:18} {rows[-1]['shape']:36} {tname:6} {ms:9.3f} ms {rows[-1]['gbps']:>7} GB/s", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
