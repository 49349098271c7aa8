#!/usr/bin/env python3
"""skew_banks.py: bank model of fast's skewed tile (src/cuda/fast_skew.cuh) that picks its shared-memory row stride.

For every residue of lds and ldd (in elements, mod 16 / element size) it counts the shared-memory wavefronts of
one interior tile, stores plus gathers, for each candidate row stride, and prints the best: the table
skew_stride_4() in src/cuda/fast.cu holds its output for 4-byte elements. A wavefront is one pass of the
32 banks; a warp access whose lanes hit one bank at k different words takes k.
Usage: python3 tools/skew_banks.py
"""
import random

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


def tile_wavefronts(es, lds, ldd, rs, trials=3):
    """Mean wavefronts per tile, as skew_interior_tile moves it (same slot and lane mapping)."""
    e_per, tc = 16 // es, 256 // es
    sr, nv = TR + e_per - 1, tc // e_per + 1
    rnd, total = random.Random(3), 0
    for _ in range(trials):
        r0, c0 = TR * rnd.randrange(1, 100), tc * rnd.randrange(1, 100)
        top = r0 - (e_per - 1)
        shift = [(((top + rr) * lds + c0) * es) % 16 for rr in range(sr)]
        for w0 in range(0, sr * nv, 32):  # stores: word x of each aligned vector at its true column
            for x in range(e_per):
                addrs = []
                for q in range(w0, w0 + 32):
                    rr, vec = divmod(q, nv)
                    b = vec * 16 - shift[rr] + x * es if q < sr * nv else -1
                    addrs.append(rr * rs + b if 0 <= b < tc * es else None)
                total += wavefronts(addrs, es)
        nvr = TR // e_per
        for wi in range(tc * nvr // 32):  # gathers: E elements of one column per output vector
            for e in range(e_per):
                addrs = []
                for lane in range(32):
                    vec, jj = (wi % (nvr // 8)) * 8 + (lane & 7), (wi // (nvr // 8)) * 4 + (lane >> 3)
                    d = (((c0 + jj) * ldd + r0) * es % 16) // es
                    addrs.append((e_per - 1 - d + vec * e_per + e) * rs + jj * es)
                total += wavefronts(addrs, es)
    return total / trials


def main():
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
