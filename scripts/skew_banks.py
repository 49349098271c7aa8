#!/usr/bin/env python3
"""skew_banks.py: bank model of fast's skewed tile (src/cuda/fast_skew.cuh) that picks its shared-memory row stride.

For 4- and 8-byte elements it counts, for every residue of lds and ldd (in elements, mod 16 / element
size), the shared-memory wavefronts of one interior tile, stores plus gathers, for each candidate row
stride, and prints the best: skew_stride_4() in src/cuda/fast.cu holds the 4-byte table. For 1- and 2-byte
elements, whose residues are too many for a table, it sums over a few misaligned shapes and prints the
strides with the fewest (SkewStride in src/cuda/fast.cu). A wavefront is one pass of the 32 banks; a warp
access whose lanes hit one bank at k different words takes k. Stores follow skew_load_vectors (1-4 bytes) and
skew_load_async (8 bytes, one element a lane); gathers follow skew_tile.
With --bytes (--halves) it prints skew_stride_1()'s (skew_stride_2()'s) table instead: the 1-byte (2-byte) wavefronts
of every stride 128-175 (256-302) at each residue of lds % 16 and ldd % 32 (lds % 8, ldd % 16), the six (five)
strides whose best at each residue comes closest to that residue's own best, and the stride each residue takes,
folded to ldd % 16 (% 8) where the two halves agree (bytes: about 5 minutes on two cores), and for bytes the
residues whose tiles take at least 1400 wavefronts at their stride (skew_heavy_1). The counts match Nsight
Compute's: at 2501 x 2503 bytes, stride 131, the model's 527 wavefronts a tile past one a warp access against 515
shared-memory bank conflicts a tile counted by l1tex__data_bank_conflicts_pipe_lsu_mem_shared (2401 x 2403 at 135: 271
against 267; 2001 x 4001 at 165: 15 and 15).
Usage: python3 scripts/skew_banks.py [--bytes | --halves]
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


def _residue_counts(job):
    es, a, b, strides = job
    return (a, b), {rs: tile_wavefronts(es, 16384 + a, 4096 + b, rs, trials=1) for rs in strides}


def residue_table(es, strides, keep):
    """The stride table of es-byte skewed tiles (skew_stride_1 / skew_stride_2 in src/cuda/fast.cu), by lds % (16 / es)
    (rows) and ldd % (32 / es) (columns): the residues that fix every row's offset in its vector and every window's
    offset in its sector, so that each entry is exact for every pitch of that residue (with base pointers on 32 bytes,
    as cudaMalloc gives). Of the candidate strides, `keep` chosen greedily, then swapped one at a time while that
    lowers the worst ratio to a residue's best (then the total); each residue takes the chosen stride it counts
    fewest wavefronts at."""
    import multiprocessing
    mods = (16 // es, 32 // es)
    jobs = [(es, a, b, strides) for a in range(mods[0]) for b in range(mods[1])]
    with multiprocessing.Pool() as pool:
        counts = dict(pool.map(_residue_counts, jobs))
    best = {k: min(m.values()) for k, m in counts.items()}

    def score(chosen):  # the worst ratio to the residue's best, then the total
        return (max(min(counts[k][r] for r in chosen) / best[k] for k in counts),
                sum(min(counts[k][r] for r in chosen) for k in counts))

    chosen = []
    for _ in range(keep):
        chosen.append(min((r for r in strides if r not in chosen), key=lambda r: score(chosen + [r])))
    better = True
    while better:
        better = False
        for i, r in itertools.product(range(keep), strides):
            trial = chosen[:i] + [r] + chosen[i + 1:]
            if r not in chosen and score(trial) < score(chosen):
                chosen, better = trial, True
    chosen.sort()
    print(f"{es}-byte strides {tuple(chosen)}: at most {score(chosen)[0]:.2f}x a residue's best; wavefronts a tile, "
          f"mean over residues: {score(chosen)[1] / len(counts):.0f} (each residue's best: "
          f"{sum(best.values()) / len(counts):.0f})")
    table = [[min(chosen, key=lambda r: (counts[a, b][r], r)) for b in range(mods[1])] for a in range(mods[0])]
    half = mods[1] // 2
    if all(row[:half] == row[half:] for row in table):  # so far always: the table then goes by ldd % (16 / es)
        print(f"(columns b and b + {half} agree in every row: by lds % {mods[0]} and ldd % {half})")
        table = [row[:half] for row in table]
    for row in table:
        print("    {" + ", ".join(map(str, row)) + "},")
    if es == 1:  # skew_heavy_1: bit ldd % 16 of row lds % 16 where a tile takes at least 1400 at its stride
        heavy = [[max(counts[a, b][table[a][b]], counts[a, b + 16][table[a][b]]) >= 1400 for b in range(16)]
                 for a in range(16)]
        masks = [sum(1 << b for b in range(16) if heavy[a][b]) for a in range(16)]
        print("heavy residues (skew_heavy_1):", ", ".join(f"0x{m:04x}" for m in masks))
    return counts


def main():
    if "--bytes" in sys.argv[1:]:
        residue_table(1, range(128, 176), 6)
        return
    if "--halves" in sys.argv[1:]:
        residue_table(2, range(256, 304, 2), 5)
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
