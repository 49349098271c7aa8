#!/usr/bin/env python3
"""skew_banks.py: bank model of fast's skewed tile (src/cuda/fast_skew.cuh) that picks its shared-memory row stride.

For 4- and 8-byte elements it counts, for every residue of lds and ldd (in elements, mod 16 / element
size), the shared-memory wavefronts of one interior tile, stores plus gathers, for each candidate row
stride, and prints the best: skew_stride_4() in src/cuda/fast.cu holds the 4-byte table. For 1- and 2-byte
elements, whose residues are too many for a table, it sums over a few misaligned shapes and prints the
strides with the fewest (SkewStride in src/cuda/fast.cu). A wavefront is one pass of the 32 banks; a warp
access whose lanes hit one bank at k different words takes k. Stores follow skew_load_vectors (1-4 bytes) and
skew_load_async (8 bytes, one element a lane); gathers follow skew_tile.
With --bytes it prints skew_stride_1()'s table instead: the 1-byte wavefronts of every stride 128-167 at each
residue of lds % 8 and ldd % 8 (two pitches each), the four strides whose best at each residue comes closest to that
residue's own best (the largest ratio smallest), and the stride each residue takes (about 4 minutes).
Usage: python3 tools/skew_banks.py [--bytes]
"""
import itertools
import random
import sys

THREADS, TR = 256, 64


def wavefronts(addrs, nbytes):
    """Wavefronts of one warp access: addrs[lane] is a byte address or None (lane off)."""
    groups = [range(32)] if nbytes <= 4 else [range(16), range(16, 32)]  # 8-byte accesses: two half-warps
    total = 0
    for g in groups:
        banks = {}
        for lane in g:
            if addrs[lane] is None:
                continue
            for w in range(max(1, nbytes // 4)):
                word = addrs[lane] // 4 + w
                banks.setdefault(word % 32, set()).add(word)
        total += max((len(s) for s in banks.values()), default=0)
    return total


SHAPES = {1: (128, 128), 2: (64, 128)}  # SkewShape; FastTile (64 x 256 bytes) for 4 and 8 bytes


def store_warps(es, tr, tc, sr):
    """The warps that fill the tile, as lists of 32 (row, vector) pairs (None: lane idle), in
    skew_load_vectors' order: thread t takes vector t % NCH of rows t / NCH + PER * round, then the extra
    vector NCH of row t. 8 bytes (skew_load_async): (row, element) pairs, one element a lane."""
    if es == 8:
        per = THREADS // tc
        return [[(t // tc + per * it, t % tc) if t // tc + per * it < sr else None for t in range(w, w + 32)]
                for it in range((sr + per - 1) // per) for w in range(0, THREADS, 32)]
    nch = tc * es // 16
    per = THREADS // nch
    warps = [[(t // nch + per * it, t % nch) if t // nch + per * it < sr else None for t in range(w, w + 32)]
             for it in range((sr + per - 1) // per) for w in range(0, THREADS, 32)]
    return warps + [[(t, nch) if t < sr else None for t in range(w, w + 32)] for w in range(0, THREADS, 32)]


def tile_wavefronts(es, lds, ldd, rs, trials=3):
    """Mean wavefronts per tile, as skew_tile moves it (same slot and lane mapping, stores in words or, for
    1 and 2 bytes, in elements)."""
    e_per, w = 16 // es, 32 // es  # elements per vector; windows start on 32-byte sectors
    tr, tc = SHAPES.get(es, (TR, 256 // es))
    sr, unit = tr + w - 1, min(es, 4)
    rnd, total = random.Random(3), 0
    for _ in range(trials):
        r0, c0 = tr * rnd.randrange(1, 100), tc * rnd.randrange(1, 100)
        top = r0 - (w - 1)
        shift = [(((top + rr) * lds + c0) * es) % 16 for rr in range(sr)]
        for warp in store_warps(es, tr, tc, sr):  # stores: each lane's (row, vector) or None
            if es == 8:  # cp.async of one element a lane, at its column
                total += wavefronts([None if q is None else q[0] * rs + q[1] * 8 for q in warp], 8)
                continue
            for x in range(16 // unit):  # unit x of each aligned vector at its true column
                addrs = []
                for q in warp:
                    b = -1 if q is None else q[1] * 16 - shift[q[0]] + x * unit
                    addrs.append(q[0] * rs + b if 0 <= b < tc * es else None)
                total += wavefronts(addrs, unit)
        nvr = tr // e_per
        for wi in range(tc * nvr // 32):  # gathers: E elements of one column per output vector
            for e in range(e_per):
                addrs = []
                for lane in range(32):
                    vec, jj = (wi % (nvr // 8)) * 8 + (lane & 7), (wi // (nvr // 8)) * 4 + (lane >> 3)
                    d = (((c0 + jj) * ldd + r0) * es % 32) // es
                    addrs.append((w - 1 - d + vec * e_per + e) * rs + jj * es)
                total += wavefronts(addrs, es)
    return total / trials


def small_elements():
    """1 and 2 bytes: wavefronts summed over misaligned shapes, best strides first."""
    shapes = ((8193, 8191), (4001, 4003), (16385, 16387), (16387, 16384), (16384, 16389))
    for es, strides in ((1, range(128, 168)), (2, range(256, 300, 2))):
        tr, tc = SHAPES[es]
        counts = {rs: sum(tile_wavefronts(es, a, b, rs, trials=1) for a, b in shapes) for rs in strides}
        best = sorted(counts, key=counts.get)[:3]
        padded = tc * es + 4
        print(f"{es}-byte elements ({tr} x {tc} tiles): best strides " +
              ", ".join(f"{rs} ({counts[rs]:.0f})" for rs in best) + f"; padded {padded}: {counts[padded]:.0f}")


def byte_table(strides=range(128, 168), keep=4):
    """skew_stride_1's table: by lds % 8 (rows) and ldd % 8 (columns), from `keep` strides."""
    counts = {}
    for a, b in itertools.product(range(8), range(8)):
        pitches = [(16384 + a + 8 * k, 4096 + b + 8 * j) for k, j in ((0, 1), (1, 0))]
        counts[a, b] = {rs: sum(tile_wavefronts(1, p, q, rs, trials=1) for p, q in pitches) / 2 for rs in strides}
    best = {k: min(m.values()) for k, m in counts.items()}

    def score(chosen):  # the worst ratio to the residue's best, then the total
        return (max(min(counts[k][r] for r in chosen) / best[k] for k in counts),
                sum(min(counts[k][r] for r in chosen) for k in counts))

    chosen = min(itertools.combinations(strides, keep), key=score)
    print(f"strides {chosen}: at most {score(chosen)[0]:.2f}x a residue's best (135 alone: {score((135,))[0]:.2f}x)")
    for a in range(8):
        row = [min(chosen, key=lambda r: (counts[a, b][r], r != 135)) for b in range(8)]
        print("    {" + ", ".join(map(str, row)) + "},")


def main():
    if "--bytes" in sys.argv[1:]:
        byte_table()
        return
    small_elements()
    for es, strides in ((4, range(260, 288, 4)), (8, range(264, 304, 8))):
        mod = 16 // es
        print(f"{es}-byte elements: best stride by lds % {mod} (rows) and ldd % {mod} (columns)")
        for a in range(mod):
            best = []
            for b in range(mod):
                lds, ldd = 16384 + a + (mod if a == 0 and b == 0 else 0), 16384 + b
                counts = {rs: tile_wavefronts(es, lds, ldd, rs) for rs in strides}
                rs = min(counts, key=counts.get)
                best.append(f"{rs} ({counts[rs]:.0f}; {counts[strides[0]]:.0f} at {strides[0]})")
            print("  ", " | ".join(best))


if __name__ == "__main__":
    main()
