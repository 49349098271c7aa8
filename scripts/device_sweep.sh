#!/usr/bin/env bash
# device_sweep.sh: the small-squares peer sweep behind README's table, run on the device machine from the repository
# root: Release build for sm_90 (skipped if $BUILD already holds one), then RUNS x `xpose bench --peers --sweep
# --sweep-max 4096` at REPS repetitions, each a CSV under $OUT, and sweep_compare.py's table of them last.
# Usage: [RUNS=2] [REPS=1000] [VARIANTS=fast/,cublas-geam,memcpy] [ORDER=--by-row] bash scripts/device_sweep.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
B=${BUILD:-/tmp/xpose-device-build}
mkdir -p "$OUT"
if [ ! -x "$B/xpose" ]; then
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DXPOSE_OPENBLAS=OFF > "$OUT/build.log" 2>&1 &&
        cmake --build "$B" -j"$(nproc)" >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
csvs=()
for r in $(seq 1 "${RUNS:-2}"); do
    f="$OUT/sweep${ORDER:+-byrow}-$r.csv"
    "$B/xpose" bench --peers --sweep --sweep-max 4096 --variants "${VARIANTS:-fast/,cublas-geam,memcpy}" \
        --reps "${REPS:-1000}" --format csv ${ORDER:-} > "$f" 2> "$f.err" || echo "sweep $r: exit $? ($(tail -1 "$f.err"))"
    csvs+=("$f")
done
python3 scripts/sweep_compare.py "${csvs[@]}"
