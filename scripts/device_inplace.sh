#!/usr/bin/env bash
# device_inplace.sh: the in-place transposes' GPU check, run on the device machine from the repository root: Release
# build for sm_90, issue 38's shapes as % of memcpy of the same bytes in the same run (the seven rectangles, and squares
# of at least 1 GiB at every element size; every row verified), then the GPU in-place tests and racecheck on rows split
# over a cluster. Logs and one CSV go to $OUT (default ./device-out); a short table is printed last.
# Usage: [SANITIZE=0] bash scripts/device_inplace.sh [--bench|--test]   (the benches or the tests only; $BUILD is
# reused where it holds a build; SANITIZE=0: no racecheck). LIMIT (405 s: one device call) bounds the whole script,
# TEST_SECONDS (130) what the benches leave for the tests.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${BUILD:-/tmp/xpose-device-build}
{ cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DXPOSE_OPENBLAS=OFF &&
    cmake --build "$B" -j"$(nproc)" --target xpose_cli test_gpu_inplace; } > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "device: $(cat "$OUT/gpu.txt"); built after ${SECONDS} s"
LIMIT=${LIMIT:-405}
X="$B/xpose"
CSV="$OUT/inplace.csv"
V="--backend cuda --reps ${REPS:-20} --format csv"
export X V OUT
t=$((LIMIT - SECONDS - ${TEST_SECONDS:-130}))
[ "$t" -gt 30 ] || t=30
if [ "${1:-}" != "--test" ]; then
    timeout "$t" bash -c '
    {
        for s in "16384 8192" "8192 16384" "8191 16381" "32768 1000" "1000 32768"; do
            set -- $s
            "$X" bench --op inplace --rows "$1" --cols "$2" --type float --variants inplace-rect $V
        done
        "$X" bench --op inplace --rows 32768 --cols 8192 --type u8 --variants inplace-rect $V
        "$X" bench --op inplace --size 32768 --type u8 --variants inplace-square $V
        "$X" bench --op inplace --size 24576 --type u16 --variants inplace-square $V
        "$X" bench --op inplace --size 16384 --type float --variants inplace-square $V
        "$X" bench --op inplace --size 12288 --type double --variants inplace-square $V
        "$X" bench --op inplace --size 8192 --type c128 --variants inplace-square $V
        "$X" bench --op inplace --rows 46341 --cols 46343 --type float --variants inplace-rect/,inplace-rect/split,inplace-rect/big $V
    } > "$OUT/bench.log" 2> "$OUT/bench-notes.log"'
    echo "bench: exit $? (at ${SECONDS} s)"
fi
if [ "${1:-}" != "--bench" ]; then
    t=$((LIMIT - SECONDS - 5))
    [ "$t" -gt 30 ] || t=30
    timeout "$t" "$B/tests/test_gpu_inplace" > "$OUT/test_gpu_inplace.log" 2>&1
    echo "test_gpu_inplace: exit $? ($(tail -1 "$OUT/test_gpu_inplace.log"); at ${SECONDS} s)"
    grep -E "check failed|FAILED|while:" "$OUT/test_gpu_inplace.log" | head -20
    # racecheck on rows split over a cluster (distributed shared memory), gcd 1 and not, both forms, small enough to
    # take seconds; one-block rows and the squares are covered by the same kernels' tests above.
    [ "${SANITIZE:-1}" = 0 ] ||
        for s in "3 26003 float split" "26003 3 float split" "4 26004 float split" "3 30011 double " \
            "5 60013 u16 split"; do
            set -- $s
            log="$OUT/racecheck-${1}x${2}.log"
            compute-sanitizer --tool racecheck "$X" bench --op inplace --rows "$1" --cols "$2" --type "$3" \
                --backend cuda --reps 1 --variants "inplace-rect/${4:-}" > "$log" 2>&1
            echo "racecheck ${1}x${2} $3 ${4:-production}: exit $? ($(grep -m1 'RACECHECK SUMMARY' "$log"))"
        done
fi
[ -f "$OUT/bench.log" ] || exit 0
grep -h '^variant,' "$OUT/bench.log" | head -1 > "$CSV"
grep -hv '^variant,' "$OUT/bench.log" >> "$CSV"
# variant,params,backend,rows,cols,elem_size,batch,threads,ms,gbps,pct_memcpy,...,verified (15th), status (16th)
awk -F, 'NR > 1 { printf "%-14s %-4s %6sx%-6s %2sB %9.3f ms %7.1f GB/s %6.1f %% %s %s\n", $1, $2, $4, $5, $6, $9, $10, $11, $15, $16 }' "$CSV"
