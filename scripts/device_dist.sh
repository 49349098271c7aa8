#!/usr/bin/env bash
# device_dist.sh: the distributed transpose on a multi-GPU device machine, from the repository root: Release build
# for sm_90, the multigpu tests (mpirun, 2 processes), then `mpirun -np P xpose bench --op dist` for each P in NPS
# (default "2 4 8", as many as there are GPUs) at the sizes and types below. Logs and CSVs go to $OUT (default
# ./device-out).
# Usage: bash scripts/device_dist.sh [--test|--bench]   SIZES (default "16384 32768"), TYPES ("float u8 c128"),
# NPS, REPS (20), SWEEP and SWEEP_TYPES (below), TEST_ENV (knobs for a second test run), LIMIT (540 s).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${BUILD:-/tmp/xpose-device-build}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{
    nvidia-smi -L
    nvidia-smi topo -m
    mpirun --version | head -2
    grep -m3 -E "define NCCL_(MAJOR|MINOR|PATCH)" /usr/include/nccl.h
} > "$OUT/machine.txt" 2>&1
{ cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DXPOSE_OPENBLAS=OFF &&
    cmake --build "$B" -j"$(nproc)" --target xpose_cli test_dist; } > "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
grep -i "dist" "$OUT/build.log" | head -3
echo "built after ${SECONDS} s; $(nvidia-smi -L | wc -l) GPUs"
LIMIT=${LIMIT:-540}
if [ "${1:-}" != "--bench" ]; then
    timeout $((LIMIT - SECONDS - 60)) bash tests/test_multigpu.sh "$B/tests/test_dist" 2 > "$OUT/test.log" 2>&1
    echo "test_multigpu: exit $? after ${SECONDS} s"; grep -E "checks|FAIL|failed" "$OUT/test.log" | head -20
    if [ -n "${TEST_ENV:-}" ]; then # e.g. several chunks and copy streams where the tests' sizes pick one
        env ${TEST_ENV//,/ } timeout $((LIMIT - SECONDS - 60)) bash tests/test_multigpu.sh "$B/tests/test_dist" 2 \
            > "$OUT/test2.log" 2>&1
        echo "test_multigpu with $TEST_ENV: exit $? after ${SECONDS} s"; grep -E "checks|FAIL|failed" "$OUT/test2.log" | head -20
    fi
fi
[ "${1:-}" = "--test" ] && exit 0
fwd=()
mpirun --version 2>&1 | grep -q "Open MPI" && fwd=(--oversubscribe -x NCCL_NVLS_ENABLE -x PATH -x LD_LIBRARY_PATH)
gpus=$(nvidia-smi -L | wc -l)
for np in ${NPS:-2 4 8}; do
    [ "$np" -le "$gpus" ] || continue
    for t in ${TYPES:-float u8 c128}; do
        left=$((LIMIT - SECONDS))
        [ "$left" -gt 20 ] || { echo "out of time before np $np $t"; continue; }
        timeout "$left" mpirun -np "$np" "${fwd[@]}" "$B/xpose" bench --op dist --size "$(echo ${SIZES:-16384 32768} | tr ' ' ,)" \
            --type "$t" --reps "${REPS:-20}" --format csv > "$OUT/one.csv" 2>> "$OUT/dist.log"
        echo "np $np $t: exit $? after ${SECONDS} s"
        # One CSV for the whole run (the device tool brings back few files): the first header, then rows.
        if [ -s "$OUT/dist.csv" ]; then tail -n +2 "$OUT/one.csv" >> "$OUT/dist.csv"; else cat "$OUT/one.csv" > "$OUT/dist.csv"; fi
    done
done
# SWEEP="SET ...": each SET is a comma-separated list of measurement knobs (XPOSE_DIST_CHUNKS=4,XPOSE_DIST_AHEAD=2),
# run at SIZES for each type in SWEEP_TYPES (default float) and each P in
# NPS; one line per size into sweep.txt: the setting, then each row's ms and % of the faster all-to-all.
for np in ${NPS:-2 4 8}; do
    [ "$np" -le "$gpus" ] || continue
    for set in ${SWEEP:-}; do
        for t in ${SWEEP_TYPES:-float}; do
            left=$((LIMIT - SECONDS))
            [ "$left" -gt 20 ] || break 2
            vars=(); for kv in ${set//,/ }; do vars+=(-x "$kv"); done
            timeout "$left" mpirun -np "$np" "${fwd[@]}" "${vars[@]}" "$B/xpose" bench --op dist \
                --size "$(echo ${SIZES:-16384 32768} | tr ' ' ,)" --type "$t" --reps 10 --format csv > "$OUT/one.csv" 2>&1
            awk -F, -v h="np $np $t $set" '$1 ~ /^(dist|nccl-)/ { k = $4; r[k] = r[k] " " $1 " " $9 " " $11 }
                END { for (k in r) print h " n=" k ":" r[k] }' "$OUT/one.csv" | tee -a "$OUT/sweep.txt"
        done
    done
done
rm -f "$OUT/one.csv"
cut -d, -f1,2,4,6,9,11,15 "$OUT/dist.csv"
