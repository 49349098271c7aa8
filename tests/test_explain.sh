#!/usr/bin/env bash
# test_explain.sh: `xpose explain`, the CPU model of the GPU ladder: the seeds' hand-counted sectors at 16384^2
# floats, the bank conflicts each shared layout must show, an edge shape, block classes against every block, and
# bad input (exit 2, one line on stderr).
set -u
X="$1"
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
usage_error() { # usage_error DESCRIPTION -- command...: exit 2 with exactly one line on stderr
    local what=$1; shift 2
    local err; err=$("$@" 2>&1 >/dev/null); local got=$?
    local lines; lines=$(printf '%s\n' "$err" | grep -c .)
    if [ "$got" -eq 2 ] && [ "$lines" -eq 1 ]; then ok; else bad "$what: exit $got, $lines lines on stderr: $err"; fi
}
# field VARIANT KEY [ARGS...]: the JSON value of KEY for VARIANT at 16384^2 floats (or ARGS).
field() {
    local v=$1 k=$2; shift 2
    local args=("$@"); [ ${#args[@]} -eq 0 ] && args=(--size 16384 --type float)
    "$X" explain "$v" "${args[@]}" --format json |
        python3 -c "import json,sys; r=json.load(sys.stdin)['results'][0]; print(r['$k'])"
}
expect() { # expect DESCRIPTION GOT WANT
    if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', wanted '$3'"; fi
}
# The seeds' hand figures (seed 002): naive 16x16 reads 33,554,432 sectors at 100 %, writes 134,217,728 at 25 %.
# fast's plan (explain_plan.c), on a named card's facts: the path its rules pick, the same as tests/test_fast_plan.c.
expect "fast 16384^2 float path" "$(field fast path --size 16384 --type float --card h200)" synced
expect "fast 16384^2 float cluster" "$(field fast cluster --size 16384 --type float --card h200)" 8
expect "fast 4001x4003 u8 on a V100" "$(field fast path --rows 4001 --cols 4003 --type u8 --card v100)" shifted
expect "fast 1024^2 float on an A100" "$(field fast path --size 1024 --type float --card a100)" one-wave
expect "fast/small 8192^2 double" "$(field fast/small path --size 8192 --type double --card h200)" small-lab
usage_error "fast with an unknown card" -- "$X" explain fast --card tpu
usage_error "fast with --ncu" -- "$X" explain fast --ncu
usage_error "fast with an offset inside an element" -- "$X" explain fast --type double --src-offset 4
expect "naive/16x16 load_sectors" "$(field naive/16x16 load_sectors)" 33554432
expect "naive/16x16 store_sectors" "$(field naive/16x16 store_sectors)" 134217728
expect "naive/16x16 load_efficiency" "$(field naive/16x16 load_efficiency)" 1.0
expect "naive/16x16 store_efficiency" "$(field naive/16x16 store_efficiency)" 0.25
expect "naive/8x8 store_sectors" "$(field naive/8x8 store_sectors)" 67108864
expect "naive/8x8 store_efficiency" "$(field naive/8x8 store_efficiency)" 0.5
expect "naive/16x16 dram_bytes" "$(field naive/16x16 dram_bytes)" $((2 * 16384 * 16384 * 4))
expect "naive/16x16 no shared memory" "$(field naive/16x16 smem_store_conflict_ways)" None
# The plain tile stores tile(r, tx) at tx * TILE + r: a warp's row of the source goes down a column of the tile,
# 32 ways at TILE 32; its reads go along a row. Padding and swizzling remove both.
expect "shared/32 store ways" "$(field shared/32 smem_store_conflict_ways)" 32
expect "shared/32 load ways" "$(field shared/32 smem_load_conflict_ways)" 1
for v in shared-pad/32 shared-swizzle/32; do
    expect "$v load ways" "$(field $v smem_load_conflict_ways)" 1
    expect "$v store ways" "$(field $v smem_store_conflict_ways)" 1
done
# An edge shape, 1000 x 999 floats: every variant's sectors at least the bytes each side moves / 32, efficiency
# at most 1; block classes give what enumerating every block gives.
edge=$("$X" explain --all --rows 1000 --cols 999 --type float --format json 2>/dev/null)
full=$("$X" explain --all --rows 1000 --cols 999 --type float --format json --exhaustive 2>/dev/null)
if printf '%s\n' "$edge" | python3 -c "
import json, sys
rs = json.load(sys.stdin)['results']
assert len(rs) >= 18, len(rs)
for r in rs:
    assert r['load_sectors'] >= 1000 * 999 * 4 / 32, r
    assert r['store_sectors'] >= 999 * 1000 * 4 / 32, r
    assert 0 < r['load_efficiency'] <= 1 and 0 < r['store_efficiency'] <= 1, r
    assert r['dram_bytes'] >= 2 * 1000 * 999 * 4, r
"; then ok; else bad "edge shape totals"; fi
strip() { python3 -c "
import json, sys
rs = json.load(sys.stdin)['results']
for r in rs:
    r.pop('model_seconds')
print(json.dumps(rs, sort_keys=True))"; }
if [ "$(printf '%s\n' "$edge" | strip)" = "$(printf '%s\n' "$full" | strip)" ]; then ok; else bad "classes != every block"; fi
b=$("$X" explain shared/16 --rows 100 --cols 37 --ld-src 50 --ld-dst 120 --batch 3 --elem-size 2 --format json --exhaustive | strip)
c=$("$X" explain shared/16 --rows 100 --cols 37 --ld-src 50 --ld-dst 120 --batch 3 --elem-size 2 --format json | strip)
expect "classes, leading dimensions and batch" "$b" "$c"
# Every format prints; --all's table lists each ladder variant.
for f in table csv md; do
    if "$X" explain --all --size 256 --format $f >/dev/null 2>&1; then ok; else bad "--format $f"; fi
done
expect "--all rows" "$("$X" explain --all --size 256 --format csv 2>/dev/null | tail -n +2 | wc -l)" 18
expect "--bandwidth" "$(field naive/16x16 predicted_ms --size 16384 --type float --bandwidth 2000)" 1.074
usage_error "no variant" -- "$X" explain
usage_error "unknown variant" -- "$X" explain nosuch
usage_error "no model for fast-like peers" -- "$X" explain cublas-geam
usage_error "no model for memcpy" -- "$X" explain memcpy
usage_error "no model for a CPU variant" -- "$X" explain cpu-naive
usage_error "no model for a reduction" -- "$X" explain reduce-naive
usage_error "bad size" -- "$X" explain naive --size abc
usage_error "zero size" -- "$X" explain naive --size 0
usage_error "bad type" -- "$X" explain naive --type quad
usage_error "bad elem size" -- "$X" explain naive --elem-size 3
usage_error "bad format" -- "$X" explain naive --format xml
usage_error "bad bandwidth" -- "$X" explain naive --bandwidth -5
usage_error "short ld" -- "$X" explain naive --size 64 --ld-src 32
usage_error "variant and --all" -- "$X" explain naive --all
usage_error "unknown option" -- "$X" explain naive --bogus
# --ncu: where there is no ncu or no GPU, exit 2 and one line; the child run, its CSV and the comparison through a
# stand-in ncu that checks its arguments and prints tests/ncu_sample.csv (naive/16x16 at 16384^2 floats).
usage_error "--ncu without ncu" -- env PATH=/nonexistent XPOSE_NCU= "$X" explain naive/16x16 --ncu
T=$(mktemp -d)
sample="$(cd "$(dirname "$0")" && pwd)/ncu_sample.csv"
trap 'rm -rf "$T"' EXIT
cat >"$T/ncu" <<EOS
#!/bin/sh
case " \$* " in
*" --csv --page raw "*"--kernel-name regex:naive_kernel "*"--launch-count 1 "*" bench --backend cuda "*)
    ;;
*) echo "==ERROR== stand-in ncu: unexpected arguments: \$*"; exit 1 ;;
esac
case " \$* " in
*" --variants naive/16x16 --rows 16384 --cols 16384 --elem-size 4 --batch 1 "*"--reps 1 --by-row "*)
    cat "$sample"; exit 0 ;;
esac
echo "==ERROR== stand-in ncu: unexpected arguments: \$*"; exit 1
EOS
printf '#!/bin/sh\necho "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"\nexit 1\n' >"$T/ncu-perm"
chmod +x "$T/ncu" "$T/ncu-perm"
# Without a GPU (`xpose info` says "gpu: none"), --ncu must refuse; with one, the stand-in ncu would run.
if "$X" info | grep -q '^gpu: none'; then
    if env PATH="$T:$PATH" "$X" explain naive/16x16 --ncu --format json 2>/dev/null >/dev/null; then
        bad "--ncu: ran without a GPU"
    else ok; fi
    usage_error "--ncu without a GPU" -- env PATH="$T:$PATH" "$X" explain naive/16x16 --ncu
fi
export XPOSE_EXPLAIN_NO_GPU_CHECK=1
got=$(env PATH="$T:$PATH" "$X" explain naive/16x16 --ncu --format json 2>"$T/err" | python3 -c "
import json, sys
n = json.load(sys.stdin)['results'][0]['ncu']
print(n['load_sectors'], n['store_sectors'], n['dram_bytes'], n['diff_pct']['store_sectors'],
      n['diff_pct']['smem_load_wavefronts'], round(n['diff_pct']['dram_bytes'], 4))")
expect "--ncu json" "$got" "33554432 134217728 2147527936 0.0 0 0.0021"
got=$(env XPOSE_NCU="$T/ncu" "$X" explain naive/16x16 --ncu --format md 2>/dev/null | grep -c '^| naive/16x16 | ')
expect "--ncu md: model, ncu, diff per quantity" "$got" 6
got=$(env XPOSE_NCU="$T/ncu" "$X" explain naive/16x16 --ncu --format csv 2>/dev/null | python3 -c "
import csv, sys
r = list(csv.DictReader(sys.stdin))[0]
print(r['ncu_load_sectors'], r['diff_pct_store_sectors'], r['ncu_error'])")
expect "--ncu csv" "$got" "33554432 0.0000 "
out=$(env XPOSE_NCU="$T/ncu-perm" "$X" explain --all --size 64 --ncu 2>"$T/err"); st=$?
expect "--ncu, no counter permission: exit" "$st" 1
expect "--ncu, no counter permission: one ncu run" "$(grep -c 'ncu [0-9]*/' "$T/err")" 1
line="ncu failed: ncu exited 1: ==ERROR== ERR_NVGPUCTRPERM"
if grep -q "ERR_NVGPUCTRPERM" "$T/err" && printf '%s\n' "$out" | grep -q "$line"; then ok
else bad "--ncu, no counter permission: ncu's line reported"; fi
unset XPOSE_EXPLAIN_NO_GPU_CHECK
echo "test_explain: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
