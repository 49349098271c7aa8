#!/usr/bin/env bash
# device_check.sh: the GPU session check, run on the device machine from the repository root: Release build for
# sm_90, the GPU tests, the Python package's tests, compute-sanitizer memcheck and racecheck over the `fast` rows,
# then the peer and shape benches behind README's H200 tables, the small-squares peer sweep (device_sweep.sh) and
# the PyTorch / CuPy comparisons (python_peers.py; the permutation suite, permute_peers.py). Logs go to $OUT
# (default ./device-out); a short table is printed last.
# Usage: [SANITIZE=0] bash scripts/device_check.sh [--quick|--bench]   (--quick: tests and sanitizers only; --bench: the
# benches only, reusing $BUILD where it holds a build; SANITIZE=0: no sanitizers, for a tree whose kernels are
# byte-identical to ones they passed). --quick then --bench is the whole check in two device calls.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${BUILD:-/tmp/xpose-device-build}
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DXPOSE_OPENBLAS=OFF > "$OUT/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
[ "${1:-}" = "--bench" ] || {
(cd "$B" && ctest -L gpu --output-on-failure > "$OUT/ctest-gpu.log" 2>&1)
echo "ctest -L gpu: exit $? ($(grep -E 'tests passed' "$OUT/ctest-gpu.log"))"
(cd "$B" && ctest -R cli --output-on-failure > "$OUT/ctest-cli.log" 2>&1) # the bench's GPU rows, both timing orders
echo "ctest -R cli: exit $? ($(grep -E 'tests passed' "$OUT/ctest-cli.log"))"
# The Python package on this build's libxpose.so: its pytest suite (the PyTorch and CuPy CUDA tests run here, where
# those and a GPU are present; examples included) and the PyTorch example on its own.
XPOSE_LIB="$B/libxpose.so" PYTHONPATH=python python3 -m pytest -q -p no:cacheprovider python/tests \
    > "$OUT/pytest.log" 2>&1
echo "pytest python/tests: exit $? ($(tail -1 "$OUT/pytest.log"))"
XPOSE_LIB="$B/libxpose.so" PYTHONPATH=python python3 examples/transpose_torch.py > "$OUT/example-torch.log" 2>&1
echo "examples/transpose_torch.py: exit $? ($(tail -1 "$OUT/example-torch.log"))"
for tool in $([ "${SANITIZE:-1}" = 0 ] || echo memcheck racecheck); do
    compute-sanitizer --tool "$tool" "$B/tests/test_gpu_transpose" fast --no-huge > "$OUT/$tool.log" 2>&1
    echo "$tool: exit $? ($(tail -1 "$OUT/$tool.log"))"
done
# Host memory given to the CUDA backend: refused before any launch, the context still usable after (memcheck would
# report a kernel's access to host memory).
compute-sanitizer --tool memcheck "$B/tests/test_gpu_pointers" > "$OUT/pointers.log" 2>&1
echo "test_gpu_pointers under memcheck: exit $? ($(tail -1 "$OUT/pointers.log"))"
grep -E "xpose_(transpose|reduce)\(CUDA\)|reads pageable|right after" "$OUT/pointers.log"
"$B/xpose" overhead > "$OUT/overhead.txt" 2>&1
echo "xpose overhead: exit $?"
cat "$OUT/overhead.txt"
}
[ "${1:-}" = "--quick" ] && exit 0
X="$B/xpose"
V="--backend cuda --variants fast,cublas-geam,memcpy --reps 30" # --backend cuda: no cpu-naive row, seconds a rep on the host
{
    "$X" bench --peers --reps 100
    "$X" bench --peers --rows 32768 --cols 8192 --reps 100
    "$X" bench --rows 8191 --cols 8193 --type float $V
    "$X" bench --rows 8191 --cols 8193 --type double $V
    "$X" bench --size 4000 --type float $V
    "$X" bench --rows 4001 --cols 4003 --type float $V
    "$X" bench --size 1024 --batch 64 --type float $V
    "$X" bench --size 16384 --ld-src 16400 --ld-dst 16400 --type float $V
    "$X" bench --size 16384 --ld-src 16400 --ld-dst 16400 --type u8 $V
    "$X" bench --size 16384 --ld-dst 16388 --type float $V
    "$X" bench --size 16384 --ld-dst 16385 --type c128 $V
    "$X" bench --rows 8191 --cols 8193 --type u8 $V
    "$X" bench --rows 4001 --cols 4003 --type u8 $V
    "$X" bench --rows 2047 --cols 2049 --type u8 $V
    "$X" bench --size 16384 --ld-src 16392 --ld-dst 16392 --type u8 $V
    "$X" bench --size 8192 --ld-src 8208 --ld-dst 8208 --type u8 $V
    "$X" bench --rows 4001 --cols 4003 --type u16 $V
    "$X" bench --size 1024 --type u8 $V
    "$X" bench --size 3000 --type u16 $V
    "$X" bench --rows 1 --cols 1000000 --type float $V
    "$X" bench --rows 1000000 --cols 1 --type u8 $V
} > "$OUT/bench.txt" 2>&1
BUILD="$B" OUT="$OUT" RUNS=2 REPS=1000 bash scripts/device_sweep.sh > "$OUT/sweep.txt" 2>&1
python3 scripts/python_peers.py --lib "$B/libxpose.so" --reps 30 --csv "$OUT/python-peers.csv" > "$OUT/python-peers.txt" 2>&1 ||
    echo "python_peers.py: exit $?" >> "$OUT/python-peers.txt"
# The N-d permutation suite (issue 36): xpose's rows with their plans, then PyTorch and CuPy on the same cases.
"$X" bench --preset permute --backend cuda --reps 20 --csv "$OUT/permute.csv" > "$OUT/permute.txt" 2>&1
python3 scripts/permute_peers.py --lib "$B/libxpose.so" --reps 20 --csv "$OUT/permute-peers.csv" \
    > "$OUT/permute-peers.txt" 2>&1 || echo "permute_peers.py: exit $?" >> "$OUT/permute-peers.txt"
echo "== fast, cublas-geam and memcpy rows (variant, shape, elem, GB/s, % of memcpy)"
grep -E '^(fast  |cublas-geam|memcpy) ' "$OUT/bench.txt" | awk '{print $1, $2, $3, $(NF-4), $(NF-3)}'
echo "== peer sweep, % of memcpy in two runs (scripts/device_sweep.sh)"
cat "$OUT/sweep.txt"
echo "== against PyTorch and CuPy, % of memcpy (scripts/python_peers.py)"
cat "$OUT/python-peers.txt"
echo "== the permutation suite against PyTorch and CuPy, % of memcpy (scripts/permute_peers.py)"
cat "$OUT/permute-peers.txt"
