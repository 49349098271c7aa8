#!/usr/bin/env bash
# explain_ncu.sh: on the device machine, from the repository root: Release build for sm_90, then
# `xpose explain --all --ncu` at 16384^2 float: the CPU model of each GPU ladder variant's global sectors and
# requests, shared wavefronts and bank conflicts and DRAM bytes next to what Nsight Compute counts, with the
# difference. One ncu sweep (about 18 child runs), in JSON to $OUT (default ./device-out), logs there too; the
# markdown tables (`--format md`'s: the model's, then model vs ncu, made from the JSON) are printed last.
# Usage: bash scripts/explain_ncu.sh [extra xpose explain options, e.g. --type double]
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${BUILD:-/tmp/xpose-device-build}
if ! { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DXPOSE_OPENBLAS=OFF &&
    cmake --build "$B" -j"$(nproc)" --target xpose_cli; } > "$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    exit 1
fi
# ncu: on PATH, else where the CUDA toolkit or a standalone Nsight Compute puts it.
if ! command -v ncu > /dev/null && [ -z "${XPOSE_NCU:-}" ]; then
    for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/* /usr/local/NVIDIA-Nsight-Compute*; do
        [ -x "$d/ncu" ] && { export PATH="$d:$PATH"; break; }
    done
fi
ncu --version 2>&1 | tail -1 | tee "$OUT/explain-ncu-version.txt"
X="$B/xpose"
args=(--all --size 16384 --type float "$@")
"$X" explain "${args[@]}" --ncu --format json > "$OUT/explain-ncu.json" 2> "$OUT/explain-ncu.log"
st=$?
echo "xpose explain ${args[*]} --ncu --format json: exit $st ($OUT/explain-ncu.json)"
grep "ncu failed" "$OUT/explain-ncu.log" | head -5
{
    "$X" explain "${args[@]}" --format md 2>&1 # the model alone: no GPU time
    python3 - "$OUT/explain-ncu.json" <<'EOP'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
q = ["load_sectors", "store_sectors", "load_requests", "store_requests", "smem_load_wavefronts",
     "smem_store_wavefronts", "smem_load_wavefronts_sass", "smem_store_wavefronts_sass", "smem_load_bank_conflicts",
     "smem_store_bank_conflicts", "dram_bytes"]
def model(r, k):
    if k.endswith("_sass"):  # the model's wavefronts, against ncu's per-instruction (SASS-derived) count
        return r[k[:-len("_sass")]]
    if k == "smem_load_bank_conflicts":
        return r["smem_load_wavefronts"] - r["smem_load_requests"]
    if k == "smem_store_bank_conflicts":
        return r["smem_store_wavefronts"] - r["smem_store_requests"]
    return r[k]
print("\n| variant | quantity | model | ncu | diff % |\n|---|---|--:|--:|--:|")
for r in rs:
    n = r.get("ncu", {})
    if "error" in n or not n:
        print("| %s | ncu failed: %s | | | |" % (r["variant"], n.get("error", "not measured")))
        continue
    for k in q:
        m, v, d = model(r, k), n[k], n["diff_pct"][k]
        if m == 0 and v == 0:
            continue
        print("| %s | %s | %d | %d | %s |" % (r["variant"], k, m, v, "-" if d is None else "%+.1f" % d))
EOP
} > "$OUT/explain-ncu.md"
cat "$OUT/explain-ncu.md"
exit $st
