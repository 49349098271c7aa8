#!/usr/bin/env bash
# test_cli.sh: the xpose CLI: bad input exits 2 with one message; list/info work; JSON output parses.
set -u
X="$1"
fail=0 pass=0
expect() { # expect STATUS DESCRIPTION -- command...
    local want=$1 what=$2; shift 3
    local err; err=$("$@" 2>&1 >/dev/null); local got=$?
    if [ "$got" -eq "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what: exit $got, wanted $want"; fi
    if [ "$want" -eq 2 ] && [ -z "$err" ]; then fail=$((fail + 1)); echo "FAIL: $what: no message on stderr"; fi
}
expect 2 "no command" -- "$X"
expect 2 "unknown command" -- "$X" frobnicate
expect 2 "unknown option" -- "$X" bench --bogus
expect 2 "non-numeric size" -- "$X" bench --size abc
expect 2 "negative size" -- "$X" bench --size -5
expect 2 "zero size" -- "$X" bench --size 0
expect 2 "size with junk" -- "$X" bench --size 12x
expect 2 "missing value" -- "$X" bench --size
expect 2 "unknown variant" -- "$X" bench --variants no-such-variant
expect 2 "unknown format" -- "$X" bench --format xml
expect 2 "unknown type" -- "$X" bench --type quaternion
expect 2 "bad elem size" -- "$X" bench --elem-size 3
expect 2 "rows without cols" -- "$X" bench --rows 5
expect 2 "unallocatable size" -- "$X" bench --size 100000000 --backend cpu
expect 2 "overflowing size" -- "$X" bench --size 18446744073709551615 --backend cpu
expect 2 "ld smaller than cols" -- "$X" bench --rows 8 --cols 8 --ld-src 4 --backend cpu
expect 2 "unknown preset" -- "$X" bench --preset seed999
expect 2 "bad threads" -- "$X" bench --threads 0
expect 2 "list with junk" -- "$X" list --junk
expect 0 "help" -- "$X" --help
expect 0 "bench help" -- "$X" bench --help
expect 0 "list" -- "$X" list
expect 0 "info" -- "$X" info
expect 0 "small bench" -- "$X" bench --size 64 --backend cpu --reps 2

json=$("$X" bench --size 300 --backend cpu --format json --reps 2)
if printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d["results"]
assert rows, "no rows"
for r in rows:
    for k in ("variant", "params", "rows", "cols", "elem_size", "ms", "gbps", "pct_memcpy", "verified"):
        assert k in r, k
    assert r["verified"] is True, r
assert any(r["variant"] == "cpu-naive" for r in rows)
'; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --format json does not parse or has unverified rows"; fi

csv_lines=$("$X" bench --size 100 --backend cpu --format csv --reps 1 | wc -l)
if [ "$csv_lines" -ge 3 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: csv has $csv_lines lines"; fi

if command -v gnuplot >/dev/null 2>&1; then
    png=$(mktemp --suffix=.png)
    if "$X" bench --size 128 --backend cpu --reps 1 --plot "$png" >/dev/null && [ -s "$png" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --plot made no PNG"; fi
    rm -f "$png"
else
    expect 2 "plot without gnuplot" -- "$X" bench --size 64 --backend cpu --reps 1 --plot /tmp/x.png
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
