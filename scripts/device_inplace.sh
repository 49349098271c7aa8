#!/usr/bin/env bash
# device_inplace.sh: the in-place transposes' GPU check, run on the device machine from the repository root: Release
# build for sm_90, the GPU in-place tests, then issue 38's shapes as % of memcpy of the same bytes in the same run:
# squares of at least 1 GiB at every element size, and the seven rectangles. Logs and one CSV go to $OUT (default
# ./device-out); a short table is printed last.
# Usage: bash scripts/device_inplace.sh [--bench]   (--bench: the benches only, reusing $BUILD where it holds a build)
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${BUILD:-/tmp/xpose-device-build}
{ cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DXPOSE_OPENBLAS=OFF &&
    cmake --build "$B" -j"$(nproc)" --target xpose_cli test_gpu_inplace; } > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "device: $(cat "$OUT/gpu.txt")"
if [ "${1:-}" != "--bench" ]; then
    "$B/tests/test_gpu_inplace" > "$OUT/test_gpu_inplace.log" 2>&1
    echo "test_gpu_inplace: exit $? ($(tail -1 "$OUT/test_gpu_inplace.log"))"
    grep -E "check failed|FAILED" "$OUT/test_gpu_inplace.log" | head -20
fi
X="$B/xpose"
CSV="$OUT/inplace.csv"
V="--backend cuda --reps ${REPS:-20} --format csv"
{
    "$X" bench --op inplace --size 32768 --type u8 --variants inplace-square $V
    "$X" bench --op inplace --size 24576 --type u16 --variants inplace-square $V
    "$X" bench --op inplace --size 16384 --type float --variants inplace-square $V
    "$X" bench --op inplace --size 12288 --type double --variants inplace-square $V
    "$X" bench --op inplace --size 8192 --type c128 --variants inplace-square $V
    for s in "16384 8192" "8192 16384" "8191 16381" "32768 1000" "1000 32768" "46341 46343"; do
        set -- $s
        "$X" bench --op inplace --rows "$1" --cols "$2" --type float --variants inplace-rect $V
    done
    "$X" bench --op inplace --rows 32768 --cols 8192 --type u8 --variants inplace-rect $V
} > "$OUT/bench.log" 2> "$OUT/bench-notes.log"
echo "bench: exit $?"
grep -h '^variant,' "$OUT/bench.log" | head -1 > "$CSV"
grep -hv '^variant,' "$OUT/bench.log" >> "$CSV"
# variant,params,backend,rows,cols,elem_size,batch,threads,ms,gbps,pct_memcpy,...,verified(15)
awk -F, 'NR > 1 { printf "%-16s %-4s %6sx%-6s %2s B %9.3f ms %8.1f GB/s %6.1f %% %s\n", $1, $2, $4, $5, $6, $9, $10, $11, $15 }' "$CSV"
