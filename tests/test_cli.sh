#!/usr/bin/env bash
# test_cli.sh: the xpose CLI: bad input exits 2 with one message; list/info work; JSON output parses; --size and
# --threads lists give a row per size and thread count, each related to the references of its own setup; rows are
# written as they are measured, to stdout and --json/--csv/--md files; the JSON records the run's context; --op permute
# rows are verified and carry their plan.
set -u
X="$1"
fail=0 pass=0
expect() { # expect STATUS DESCRIPTION -- command...
    local want=$1 what=$2; shift 3
    local err; err=$("$@" 2>&1 >/dev/null); local got=$?
    if [ "$got" -eq "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what: exit $got, wanted $want"; fi
    if [ "$want" -eq 2 ] && [ -z "$err" ]; then fail=$((fail + 1)); echo "FAIL: $what: no message on stderr"; fi
}
usage_error() { # usage_error DESCRIPTION -- command...: exit 2 with exactly one line on stderr
    local what=$1; shift 2
    local err; err=$("$@" 2>&1 >/dev/null); local got=$?
    local lines; lines=$(printf '%s\n' "$err" | grep -c .)
    if [ "$got" -eq 2 ] && [ "$lines" -eq 1 ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: $what: exit $got with $lines lines on stderr, wanted exit 2 with 1: $err"; fi
}
# check DESCRIPTION TEXT PYTHON: runs the Python assertions with TEXT on stdin.
check() {
    if printf '%s\n' "$2" | python3 -c "$3"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
# Whether GPU variants can run here: `xpose info` says "gpu: none (why)" where they cannot.
if "$X" info | grep -q '^gpu: none'; then have_gpu=0; else have_gpu=1; fi
expect 2 "no command" -- "$X"
expect 2 "unknown command" -- "$X" frobnicate
usage_error "unknown option" -- "$X" bench --bogus
usage_error "non-numeric size" -- "$X" bench --size abc
usage_error "negative size" -- "$X" bench --size -5
usage_error "zero size" -- "$X" bench --size 0
usage_error "size with junk" -- "$X" bench --size 12x
usage_error "missing value" -- "$X" bench --size
usage_error "unknown variant" -- "$X" bench --variants no-such-variant
usage_error "unknown format" -- "$X" bench --format xml
usage_error "unknown type" -- "$X" bench --type quaternion
usage_error "bad elem size" -- "$X" bench --elem-size 3
usage_error "rows without cols" -- "$X" bench --rows 5
usage_error "unallocatable size" -- "$X" bench --size 100000000 --backend cpu
usage_error "overflowing size" -- "$X" bench --size 18446744073709551615 --backend cpu
usage_error "ld smaller than cols" -- "$X" bench --rows 8 --cols 8 --ld-src 4 --backend cpu
usage_error "unknown preset" -- "$X" bench --preset seed999
usage_error "on/off option with a value" -- "$X" bench --warm=no --size 8 --backend cpu --reps 1
usage_error "--size with --rows/--cols" -- "$X" bench --size 8 --rows 5 --cols 5 --backend cpu --reps 1
usage_error "--type with --elem-size" -- "$X" bench --type float --elem-size 1 --size 8 --backend cpu --reps 1
usage_error "GPU preset on the CPU backend" -- "$X" bench --preset seed001 --backend cpu --reps 1
usage_error "reduction named in the transpose bench" -- "$X" bench --variants cpu-reduce --size 8 --backend cpu --reps 1
usage_error "no named variant takes the element size" -- "$X" bench --variants cpu-openblas --type u8 --size 8 --backend cpu --reps 1
# (CSV has no place for notes: they go to stderr.)
# (Where OpenBLAS was not built, the note says that instead.)
if "$X" list | grep -q '^cpu-openblas .* yes '; then why="not run at 1-byte elements, which it does not take: cpu-openblas"
else why="not built here: cpu-openblas"; fi
check "a named variant left out at an element size is said" "$("$X" bench --variants cpu-fast/,cpu-openblas --type u8 --size 8 --backend cpu --reps 1 --format csv 2>&1)" '
import sys
text = sys.stdin.read()
assert "'"$why"'" in text, text
assert any(l.startswith("cpu-fast,") for l in text.splitlines()), text
'
usage_error "--plot to a directory" -- "$X" bench --plot /tmp --size 8 --backend cpu --reps 1
usage_error "bad threads" -- "$X" bench --threads x --size 64 --backend cpu --reps 1
usage_error "size list, trailing comma" -- "$X" bench --size 4000, --backend cpu --reps 1
usage_error "size list, leading comma" -- "$X" bench --size ,4000 --backend cpu --reps 1
usage_error "size list, empty entry" -- "$X" bench --size 64,,96 --backend cpu --reps 1
usage_error "size list, zero" -- "$X" bench --size 0,5 --backend cpu --reps 1
usage_error "size list, junk" -- "$X" bench --size 64,9x --backend cpu --reps 1
usage_error "size list, too many" -- "$X" bench --size 1,2,3,4,5,6,7,8,9 --backend cpu --reps 1
usage_error "size list, repeated" -- "$X" bench --size 64,64 --backend cpu --reps 1
usage_error "size list, too long an entry" -- "$X" bench --size 64,123456789012345678901234567890123456789 --backend cpu --reps 1
usage_error "size list with --rows/--cols" -- "$X" bench --size 64,96 --rows 8 --cols 8 --backend cpu --reps 1
usage_error "--rows/--cols with a size list" -- "$X" bench --rows 8 --cols 8 --size 64,96 --backend cpu --reps 1
usage_error "size list with --sweep" -- "$X" bench --sweep --sweep-max 256 --size 64,96 --backend cpu --reps 1
usage_error "size list with the sweep preset" -- "$X" bench --preset seed004 --size 64,96 --reps 1
# A preset sets what the user did not: an explicit --type stays.
check "a preset keeps --type" "$("$X" bench --preset seed000 --type u8 --size 64 --backend cpu --reps 1 --format csv)" '
import csv, sys
rows = [r for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#"))]
assert rows and all(r["elem_size"] == "1" for r in rows), rows
'
# --peers runs every element size, or the one --type names.
check "--peers keeps --type" "$("$X" bench --peers --type u16 --size 64 --backend cpu --reps 1 --format csv)" '
import csv, sys
rows = [r for r in csv.DictReader(l for l in sys.stdin if not l.startswith("#"))]
assert rows and all(r["elem_size"] == "2" for r in rows), rows
'
usage_error "size list, one too big" -- "$X" bench --size 64,100000000 --backend cpu --reps 1
usage_error "threads list, junk" -- "$X" bench --threads 1,x --size 64 --backend cpu --reps 1
usage_error "threads list, negative" -- "$X" bench --threads 2,-1 --size 64 --backend cpu --reps 1
usage_error "threads list, too big" -- "$X" bench --threads 1,4097 --size 64 --backend cpu --reps 1
usage_error "threads list, trailing comma" -- "$X" bench --threads 1, --size 64 --backend cpu --reps 1
usage_error "threads list, repeated" -- "$X" bench --threads 2,2 --size 64 --backend cpu --reps 1
usage_error "threads list, too many" -- "$X" bench --threads 1,2,3,4,5,6,7,8,9 --size 64 --backend cpu --reps 1
usage_error "threads list with --op reduce" -- "$X" bench --op reduce --threads 1,2 --n 1000 --backend cpu --reps 1
usage_error "sweep top below its first size" -- "$X" bench --sweep --sweep-max 100 --backend cpu --reps 1
usage_error "reduction of zero elements" -- "$X" bench --op reduce --n 0 --backend cpu --reps 1
# Options the chosen --op does not read are refused, not ignored.
usage_error "--sweep with --rows/--cols" -- "$X" bench --sweep --rows 100 --cols 200 --sweep-max 256 --backend cpu --reps 1
usage_error "--sweep-max without a sweep" -- "$X" bench --size 64 --sweep-max 512 --backend cpu --reps 1
usage_error "--batch with --op reduce" -- "$X" bench --op reduce --n 1000 --batch 3 --backend cpu --reps 1
usage_error "--size with --op reduce" -- "$X" bench --op reduce --size 64 --backend cpu --reps 1
usage_error "--elem-size with --op reduce" -- "$X" bench --op reduce --elem-size 8 --backend cpu --reps 1
usage_error "--reduce-op with a transpose" -- "$X" bench --size 64 --reduce-op min --backend cpu --reps 1
usage_error "--n with a transpose" -- "$X" bench --size 64 --n 1000 --backend cpu --reps 1
expect 2 "list with junk" -- "$X" list --junk
# CPU rows are timed cold unless --warm: a read of twice the last-level cache before every timed run (the note counts
# them: as many as the CPU rows' repetitions), for transposes and reductions alike; --warm says so instead.
flushes='
import json, re, sys
d = json.load(sys.stdin)
m = re.search(r"CPU rows timed cold: a [0-9]+ MiB read .* before each of the ([0-9]+) timed runs", d["note"])
assert m, d["note"]
runs = sum(r["reps"] for r in d["results"] if r["threads"])
assert runs > 0 and int(m.group(1)) == runs, (m.group(1), runs)
'
warm_note='
import json, sys
d = json.load(sys.stdin)
assert "CPU rows timed warm (--warm)" in d["note"] and "timed cold" not in d["note"], d["note"]
'
for args in "--size 64 --backend cpu --variants cpu-fast --reps 2" "--op reduce --n 1000 --backend cpu --reps 2"; do
    check "cold note, $args" "$("$X" bench $args --format json)" "$flushes"
    check "warm note, $args" "$("$X" bench $args --format json --warm)" "$warm_note"
done
# Where GPU rows are skipped, the reduce bench gives the same whole reason as the transpose bench.
t_note=$("$X" bench --size 64 --reps 1 --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["note"])')
r_note=$("$X" bench --op reduce --n 1000 --reps 1 --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["note"])')
why=$(printf '%s\n' "$t_note" | sed -n 's/^GPU variants skipped: \([^;]*\);.*/\1/p')
if [ -z "$why" ] || printf '%s\n' "$r_note" | grep -qF "GPU variants skipped: $why;"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: reduce note does not give the whole skip reason '$why': $r_note"; fi
expect 0 "help" -- "$X" --help
expect 0 "bench help" -- "$X" bench --help
expect 0 "list" -- "$X" list
expect 0 "info" -- "$X" info
# The cache sizes, and where they came from: the kernel's sysfs where Linux has it, which the cold-cache flush sizes
# itself from (twice the L3).
check "info: cache sizes and their source" "$("$X" info)" '
import os, re, sys
line = r"^cpu caches: L1d (\d+) KiB, L2 (\d+) KiB, L3 (\d+) KiB \(from (sysfs|sysconf)\)$"
m = re.search(line, sys.stdin.read(), re.M)
assert m, "no cache line"
if os.path.exists("/sys/devices/system/cpu/cpu0/cache/index0/size"):
    assert m.group(4) == "sysfs" and int(m.group(1)) > 0, m.group(0)
'
expect 0 "small bench" -- "$X" bench --size 64 --backend cpu --reps 2
# GPU rows of a shape take turns rep by rep, or with --by-row one row after another: either way each is verified and
# timed the asked number of times, and the note says which order ran (or, with no GPU, why none did).
order_check='
import json, sys
d = json.load(sys.stdin)
gpu = [r for r in d["results"] if r["backend"] == "cuda"]
want = sys.argv[1]
if gpu:
    assert want in d["note"], d["note"]
    for r in gpu:
        assert r["verified"] and r["reps"] == 3, r
else:
    assert "GPU variants skipped" in d["note"], d["note"]
'
# Without a GPU a GPU-only selection leaves nothing to run (exit 2); beside a CPU variant, the CPU row runs.
for order in "" --by-row; do
    want=$([ -n "$order" ] && echo "one after another" || echo "timed in turn, rep by rep, in a new shuffled order")
    variants=fast,naive,memcpy
    if [ "$have_gpu" = 0 ]; then
        usage_error "GPU-only selection without a GPU $order" -- "$X" bench --size 96 --variants $variants --reps 3 $order
        variants=$variants,cpu-fast/
    fi
    out=$("$X" bench --size 96 --variants $variants --reps 3 --format json $order)
    if printf '%s\n' "$out" | python3 -c "$order_check" "$want"; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: GPU timing order '$order'"; fi
done

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

# --backend cuda keeps the run on the GPU: no one-thread cpu-naive row (seconds a rep on large matrices), so GPU rows
# have no speedup; with the default backends the row is there.
if [ "$have_gpu" = 1 ]; then
    names=$("$X" bench --size 64 --backend cuda --variants fast,memcpy --reps 2 --format csv | cut -d, -f1)
else
    names=
fi
names_all=$("$X" bench --size 64 --backend all --variants cpu-fast --reps 2 --format csv | cut -d, -f1)
if ! printf '%s\n' "$names" | grep -qx cpu-naive && printf '%s\n' "$names_all" | grep -qx cpu-naive; then
    pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: cpu-naive with --backend cuda, or missing without it"; fi

csv_lines=$("$X" bench --size 100 --backend cpu --format csv --reps 1 | wc -l)
if [ "$csv_lines" -ge 3 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: csv has $csv_lines lines"; fi

# The thread counts of the rows of variants that use the library's threads (cpu-naive and OpenBLAS's omatcopy run on one).
threads_of() { python3 -c 'import json, sys; print(sorted({r["threads"] for r in json.load(sys.stdin)["results"] if r["variant"] not in ("cpu-naive", "cpu-openblas")}))'; }

# Without --threads, every CPU row states the library's default thread count, the one xpose info reports.
default_threads=$("$X" info | sed -n 's/.* \([0-9][0-9]*\) threads for CPU variants/\1/p')
got=$("$X" bench --size 64 --backend cpu --reps 1 --format json | threads_of)
if [ "$got" = "[$default_threads]" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: default threads: rows say $got, xpose info says $default_threads"; fi

# A build without OpenMP runs every CPU variant on one thread, whatever --threads asks: then only [1] is expected.
# (Asked with a single value, so that a broken list cannot pass for a build without OpenMP.)
if [ "$("$X" bench --size 8 --variants cpu-memcpy --threads 2 --reps 1 --format json 2>/dev/null | threads_of)" = "[2]" ]
then export WANT_THREADS="[1, 2]"; else export WANT_THREADS="[1]"; echo "note: this build runs CPU variants on one thread"; fi

# Two sizes x two thread counts: every threaded variant has a row for each, the one-thread ones (cpu-naive) one row per
# size at 1 thread; each row's % memcpy is against the faster of the cpu-memcpy and cpu-stream rows of its own size and
# --threads pass (a one-thread variant runs in the first pass), which its "reference" names, and the note says so; its
# speedup is against the size's cpu-naive row.
json=$("$X" bench --size 64,96 --threads 1,2 --backend cpu --reps 1 --format json)
check "--size 64,96 --threads 1,2 rows and their references" "$json" '
import json, os, sys
d = json.load(sys.stdin)
rows = d["results"]
want_threads = json.loads(os.environ["WANT_THREADS"])
assert "against the faster of cpu-memcpy and cpu-stream of the same shape" in d["note"], d["note"]
assert {r["rows"] for r in rows} == {64, 96} and all(r["cols"] == r["rows"] for r in rows), "sizes"
one = ("cpu-naive", "cpu-openblas")
assert sorted({r["threads"] for r in rows}) == want_threads, "threads %s" % sorted({r["threads"] for r in rows})
names = {(r["variant"], r["params"]) for r in rows}
assert {"cpu-naive", "cpu-memcpy", "cpu-stream", "cpu-fast"} <= {n for n, _ in names}, names
for n in names:
    for size in (64, 96):
        for t in want_threads:
            k = [r for r in rows if (r["variant"], r["params"]) == n and r["rows"] == size and r["threads"] == t]
            want = 1 if n[0] not in one or t == 1 else 0
            assert len(k) == want, "%s at %d, %d threads: %d rows" % (n, size, t, len(k))
def ref(a, name):
    t = want_threads[0] if a["variant"] in one else a["threads"]  # the pass it ran in
    b = [r for r in rows if r["variant"] == name and r["rows"] == a["rows"] and (name in one or r["threads"] == t)]
    assert len(b) == 1, (name, a)
    return b[0]["ms"]
for r in rows:
    assert r["verified"] is True, r
    assert r["pct_memcpy"] is not None and r["speedup"] is not None, r
    # Both copies move the same bytes: the faster has the shorter time.
    fast_ms = min(ref(r, "cpu-memcpy"), ref(r, "cpu-stream"))
    assert ref(r, r["reference"]) == fast_ms, ("reference", r)
    # JSON carries 6 significant digits: the ratios agree to well within 0.1 %.
    assert abs(r["pct_memcpy"] / (100 * fast_ms / r["ms"]) - 1) < 1e-3, ("% memcpy", r)
    assert abs(r["speedup"] / (ref(r, "cpu-naive") / r["ms"]) - 1) < 1e-3, ("speedup", r)
'

# The table: a threads column, aligned under its header, and a finite % memcpy in every row (--peers: all element
# sizes; cpu-openblas, where it was built, once per size and element size it takes, on one thread).
export OPENBLAS_ROWS=$("$X" list | grep -c '^cpu-openblas .* yes ')
table=$("$X" bench --size 64,96 --threads 1,2 --backend cpu --peers --reps 1)
check "table with a threads column" "$table" '
import json, os, sys
lines = sys.stdin.read().splitlines()
head, body = lines[0], [l for l in lines[1:] if l.startswith("cpu-")]
cols = head.split()
assert cols[:6] == ["variant", "params", "shape", "elem", "threads", "ms"], cols
end = head.index("threads") + len("threads")
want_threads = json.loads(os.environ["WANT_THREADS"])
per_size = len(want_threads) * 15 + 3 * int(os.environ["OPENBLAS_ROWS"])  # fast, memcpy, stream x 5; openblas x 3
assert len(body) == 2 * per_size, (len(body), per_size)
seen = set()
for l in body:
    assert l[end - 1].isdigit() and l[end] == " ", "threads column not aligned: " + l
    f = l.split()
    seen.add((f[1], int(f[2]), int(f[3])))  # shape, elem, threads (no params in these rows)
    assert f[6] != "-" and 0 < float(f[6]) < 1e9, "no finite % memcpy: " + l
assert len(seen) == 2 * 5 * len(want_threads), sorted(seen)
'

csv=$("$X" bench --size 64 --threads 1,2 --backend cpu --variants cpu-fast --reps 1 --format csv)
check "csv threads field" "$csv" '
import csv, json, os, sys
lines = sys.stdin.read().splitlines()
assert not any(l.startswith("#") for l in lines), lines  # the notes go to stderr
rows = list(csv.DictReader(lines))
assert rows and all(len(r) == 22 and None not in r and None not in r.values() for r in rows), rows
assert sorted({int(r["threads"]) for r in rows}) == json.loads(os.environ["WANT_THREADS"]), rows
'

md=$("$X" bench --size 64 --threads 1,2 --backend cpu --variants cpu-fast --reps 1 --format md)
check "md threads column" "$md" '
import json, os, sys
lines = [l for l in sys.stdin.read().splitlines() if l.startswith("|")]
head = [c.strip() for c in lines[0].strip("|").split("|")]
assert head[4] == "threads", head
cells = [[c.strip() for c in l.strip("|").split("|")] for l in lines[2:]]
assert all(len(c) == len(head) for c in cells), cells
assert sorted({int(c[4]) for c in cells}) == json.loads(os.environ["WANT_THREADS"]), cells
'

if command -v gnuplot >/dev/null 2>&1; then
    png=$(mktemp --suffix=.png)
    if "$X" bench --size 128 --backend cpu --reps 1 --plot "$png" >/dev/null && [ -s "$png" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --plot made no PNG"; fi
    rm -f "$png"
    if "$X" bench --sweep --sweep-max 512 --threads 1,2 --peers --backend cpu --reps 1 --plot "$png" >/dev/null && [ -s "$png" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --sweep --threads 1,2 --plot made no PNG"; fi
    rm -f "$png"
else
    expect 2 "plot without gnuplot" -- "$X" bench --size 64 --backend cpu --reps 1 --plot /tmp/x.png
fi
# xpose overhead: a CSV of its rows; bad input exits 2 with one line; --version names the header's version.
usage_error "overhead: unknown option" -- "$X" overhead --bogus
usage_error "overhead: zero rows" -- "$X" overhead --rows 0
usage_error "overhead: unknown backend" -- "$X" overhead --backend tpu
usage_error "overhead: stray argument" -- "$X" overhead extra
check "overhead --csv: a header and the four CPU rows (permutations too), each a positive time" \
    "$("$X" overhead --backend cpu --calls 20 --rounds 3 --csv --size 9 --type double)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert [r["call"] for r in rows] == ["xpose_transpose", "plain nested loop", "xpose_permute (1,0), one call",
                                     "permute plan create+destroy, rank 4"], rows
assert all(r["backend"] == "cpu" and r["rows"] == "9" and r["elem_size"] == "8" and float(r["us_per_call"]) > 0
           for r in rows), rows
'
if ! "$X" --version | grep -q "CUDA backend yes"; then
    usage_error "overhead --backend cuda without CUDA" -- "$X" overhead --backend cuda
fi
want_version=$(sed -n 's/^#define XPOSE_VERSION_STRING "\(.*\)"$/\1/p' "$(dirname "$0")/../include/xpose.h")
check "--version says the version and the build" "$("$X" --version)" "
import sys
t = sys.stdin.read()
assert t.startswith('xpose $want_version (ABI '), t
assert 'CUDA backend' in t and 'OpenMP' in t and 'cublas-geam' in t, t
import re
assert re.search(r'^commit: [^ ]+$', t, re.M), t  # git's short hash at configure time, an override, or unknown
assert re.search(r'^build: [^,]*, CUDA backend (yes|no), CUDA architectures (none|[0-9a-z,-]+), OpenMP (yes|no)$', t, re.M), t
assert re.search(r'^peers: cpu-openblas (yes|no), cublas-geam (yes|no)$', t, re.M), t
"
# --- bench -h / --help: the usage on stdout, exit 0; getopt_long's --opt=value form reads like --opt value.
check "bench -h and --help print the usage" "$("$X" bench -h; "$X" bench --help)" '
import sys
t = sys.stdin.read()
assert t.count("usage: xpose bench") == 2 and "--json FILE" in t, t
'
expect 0 "bench -h" -- "$X" bench -h
usage_error "stray argument" -- "$X" bench --size 8 extra
check "--size=N reads as --size N" "$("$X" bench --size=48 --backend=cpu --variants=cpu-fast/ --reps=1 --format=csv)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["rows"] == "48" for r in rows), rows
'

# --- --threads 0: one thread per processor, as xpose_set_threads(0) reads it (a build without OpenMP: one).
want0=$([ "$WANT_THREADS" = "[1]" ] && echo "[1]" || echo "[$(nproc)]")
got=$("$X" bench --size 64 --threads 0 --backend cpu --variants cpu-fast/ --reps 1 --format json | threads_of)
if [ "$got" = "$want0" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: --threads 0 ran $got, wanted $want0"; fi

# --- Nothing to run is a usage error (one line, exit 2); something to run beside what cannot run, a note.
usage_error "GPU variant on --backend cpu" -- "$X" bench --variants cublas-geam --backend cpu --size 64 --reps 1
usage_error "reduction on --backend cpu, named GPU" -- "$X" bench --op reduce --variants reduce-sequential --backend cpu --n 1000 --reps 1
if [ "$have_gpu" = 0 ]; then
    usage_error "--backend cuda without a GPU" -- "$X" bench --backend cuda --size 64 --reps 1
    usage_error "--peers --backend cuda without a GPU" -- "$X" bench --peers --backend cuda --size 64 --reps 1
    usage_error "--op reduce --backend cuda without a GPU" -- "$X" bench --op reduce --backend cuda --n 1000 --reps 1
    usage_error "GPU preset without a GPU" -- "$X" bench --preset seed002 --size 64 --reps 1
fi
check "a variant left out by --backend is said" "$("$X" bench --variants cpu-fast/,fast --backend cpu --size 64 --reps 1 --format json)" '
import json, sys
d = json.load(sys.stdin)
assert "left out by --backend cpu: fast" in d["note"], d["note"]
assert {r["variant"] for r in d["results"]} == {"cpu-naive", "cpu-memcpy", "cpu-stream", "cpu-fast"}, d["results"]
'

# --- One run, four outputs: the table on stdout and the same rows in --json, --csv and --md files, in the same order;
# verified reads true/false in each; the CSV has no comment line and every field of every row.
out_dir=$(mktemp -d)
table=$("$X" bench --size 64,96 --type u16 --backend cpu --variants cpu-fast/ --reps 3 --json "$out_dir/r.json" \
    --csv "$out_dir/r.csv" --md "$out_dir/r.md" 2>"$out_dir/err")
check "--json, --csv and --md beside the table" "$table" "
import csv, json, re, sys
table = sys.stdin.read().splitlines()
head, rows_t = table[0], [l for l in table[1:] if l.startswith('cpu-')]
d = json.load(open('$out_dir/r.json'))
text = open('$out_dir/r.csv').read()
assert '#' not in text, text
rows_c = list(csv.DictReader(text.splitlines()))
md = [l for l in open('$out_dir/r.md').read().splitlines() if l.startswith('| cpu-')]
rows_j = d['results']
assert len(rows_j) == len(rows_c) == len(md) == len(rows_t) == 8, (len(rows_j), len(rows_c), len(md), len(rows_t))
for j, c, m, t in zip(rows_j, rows_c, md, rows_t):
    assert j['variant'] == c['variant'] == m.split('|')[1].strip() == t.split()[0], (j, c, m, t)
    assert j['verified'] is True and c['verified'] == 'true' and m.split('|')[11].strip() == 'true', (j, c, m)
    assert t.split()[-1] == 'true', t
    assert None not in c and None not in c.values() and len(c) == 22, c
    # Column widths fixed before the first row: every row's verified word under the header's.
    assert t.index(t.split()[-1]) == head.index('verified'), (head, t)
notes = [l for l in table if l.startswith('note: ')]
assert any(l.startswith('note: CPU rows timed cold') for l in notes), notes
assert any(l.startswith('note: CPU rows of a shape and thread count timed in turn') for l in notes), notes
assert table[-1].startswith('note: CPU rows\' %memcpy: against the faster of'), table[-1]
assert open('$out_dir/err').read() == '', open('$out_dir/err').read()
"
if python3 -c 'import pandas' 2>/dev/null; then
    check "pandas reads the CSV" "$out_dir/r.csv" '
import sys, pandas
df = pandas.read_csv(sys.stdin.read().strip())
assert len(df) == 8 and df["verified"].dtype == bool and df["ms"].notna().all(), df
'
fi
usage_error "--json into a missing directory" -- "$X" bench --size 64 --backend cpu --reps 1 --json /nonexistent-xpose-dir/r.json

# --- The JSON's context and per-row fields: build, date, host, GPU (none where there is none), command line, seed,
# notes; each row's type name, leading dimensions, batch, reps and min <= median <= max.
check "JSON context and row fields" "$(cat "$out_dir/r.json")" "
import json, re, sys
d = json.load(sys.stdin)
c = d['context']
assert c['version'] == '$want_version' and c['commit'] and c['build_type'], c
assert re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ', c['date']), c['date']
assert c['host_cpu'] and isinstance(c['openmp'], bool), c
for k in ('gpu', 'gpu_driver', 'cuda_runtime', 'cuda_architectures'):
    assert isinstance(c[k], str) and c[k], (k, c)
if $have_gpu == 0:
    assert c['gpu'] == 'none', c
assert c['command_line'].startswith('xpose bench --size 64,96 --type u16'), c['command_line']
assert c['seed'] == 2026 and c['notes'] and '; '.join(c['notes']) == d['note'], c
for r in d['results']:
    assert r['dtype'] == 'u16' and r['batch'] == 1 and r['reps'] >= 1, r
    assert r['ld_src'] == r['cols'] and r['ld_dst'] == r['rows'], r
    assert 0 < r['min_ms'] <= r['median_ms'] <= r['max_ms'], r
"
strided=$("$X" bench --rows 40 --cols 24 --ld-src 30 --ld-dst 50 --batch 2 --elem-size 4 --backend cpu \
    --variants cpu-fast/ --reps 1 --seed 7 --format json)
check "dtype of --elem-size, leading dimensions and batch" "$strided" '
import json, sys
d = json.load(sys.stdin)
assert d["context"]["seed"] == 7, d["context"]
for r in d["results"]:
    copy = r["variant"] in ("cpu-memcpy", "cpu-stream")  # a copy moves the same elements densely
    assert r["dtype"] == "e4" and r["batch"] == 2, r
    assert (r["ld_src"], r["ld_dst"]) == ((24, 40) if copy else (30, 50)), r
'
rm -rf "$out_dir"

# --- Rows are written as they are measured: a run stopped after its first rows has left them, whole, on stdout
# (TERM: a background job of a script ignores INT).
slow=$(mktemp)
# --warm: no 600 MiB cache flush before each repetition, so the first rows come in time on a loaded (or sanitized) run.
"$X" bench --size 64,3000 --backend cpu --reps 50 --warm > "$slow" 2>/dev/null &
bench_pid=$!
for _ in $(seq 1 3000); do
    [ "$(grep -c '^cpu-' "$slow")" -ge 3 ] && break
    sleep 0.1
done
kill -TERM "$bench_pid" 2>/dev/null
wait "$bench_pid"
status=$?
check "an interrupted run keeps its rows (exit $status)" "$(cat "$slow")" "
import sys
lines = sys.stdin.read().splitlines()
assert $status != 0, 'the run finished before it was stopped'
assert lines[0].split()[0] == 'variant', lines
rows = [l for l in lines[1:] if l.startswith('cpu-')]
assert len(rows) >= 3 and all(l.split()[-1] == 'true' for l in rows), lines
"
rm -f "$slow"

# --- The CLI's sources: each file says what it is for in its first line, and no two files call each other in a
# circle (the calls between files go one way).
check "cli/ sources: a first-line comment each, no circular calls between files" "$(dirname "$0")/../cli" '
import os, re, sys
root = sys.stdin.read().strip()
files = sorted(f for f in os.listdir(root) if f.endswith((".c", ".h")))
text = {}
for f in files:
    src = open(os.path.join(root, f)).read()
    assert re.match(r"/\* %s: \S" % re.escape(f), src), "no first-line comment saying what it is for: " + f
    src = re.sub(r"/\*.*?\*/|//[^\n]*|\"(\\.|[^\"\\])*\"", " ", src, flags=re.S)
    text[f] = src
# A function defined at file scope (not static) belongs to its file; gpu_bench.c and gpu_none.c are one side.
owner = {}
for f, src in text.items():
    if f.endswith(".c"):
        for m in re.finditer(r"^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\([^;{]*\)\s*\{", src, re.M):
            owner[m.group(1)] = "gpu" if f in ("gpu_bench.c", "gpu_none.c", "gpu_overhead.c") else f
edges = {}
for f, src in ((f, src) for f, src in text.items() if f.endswith(".c")):
    me = "gpu" if f in ("gpu_bench.c", "gpu_none.c", "gpu_overhead.c") else f
    for name in set(re.findall(r"\b(\w+)\s*\(", src)):
        if owner.get(name, me) != me:
            edges.setdefault(me, set()).add(owner[name])
def cycle(node, path):
    for nxt in edges.get(node, ()):
        if nxt in path:
            return path[path.index(nxt):] + [nxt]
        c = cycle(nxt, path + [nxt])
        if c:
            return c
    return None
for start in list(edges):
    c = cycle(start, [start])
    assert not c, "circular calls: " + " -> ".join(c)
assert edges.get("bench.c") and "bench_transpose.c" in edges["bench.c"], edges
'
# --op inplace: in-place rows next to the copy rows, each verified against the out-of-place reference; options the
# in-place bench does not read, and variants of another family, are refused.
usage_error "unknown op" -- "$X" bench --op sideways --size 64 --backend cpu --reps 1
for opt in "--ld-src 80" "--ld-dst 80" "--peers" "--sweep" "--preset seed000" "--plot /tmp/xpose-ip.png"; do
    usage_error "$opt with --op inplace" -- "$X" bench --op inplace --size 64 $opt --backend cpu --reps 1
done
usage_error "an out-of-place variant in the in-place bench" -- "$X" bench --op inplace --variants cpu-fast --size 64 --backend cpu --reps 1
usage_error "an in-place variant in the transpose bench" -- "$X" bench --variants cpu-inplace-rect --size 64 --backend cpu --reps 1
usage_error "an in-place variant in the reduce bench" -- "$X" bench --op reduce --variants cpu-inplace-rect --n 1000 --backend cpu --reps 1
check "--op inplace: every row verified, related to its copy rows and the cycle-following baseline" "$("$X" bench --op inplace --rows 96 --cols 160 --batch 3 --backend cpu --reps 2 --format json)" '
import json, sys
d = json.load(sys.stdin)
rows = {r["variant"]: r for r in d["results"]}
assert all(r["verified"] for r in d["results"]), d["results"]
for v in ("cpu-memcpy", "cpu-stream", "cpu-inplace-naive", "cpu-inplace-rect"):
    assert v in rows, (v, list(rows))
r = rows["cpu-inplace-rect"]
assert (r["rows"], r["cols"], r["batch"]) == (96, 160, 3), r
assert r["pct_memcpy"] is not None and r["speedup"] is not None, r
assert "cpu-inplace-square" not in rows and "not run at 96x160: cpu-inplace-square" in d["note"], d["note"]
assert "re-filled from the source before each timed run" in d["note"], d["note"]
'
check "--op inplace: a square list, one setup per size" "$("$X" bench --op inplace --size 64,96 --type u16 --variants cpu-inplace-square --backend cpu --reps 1 --format csv)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
sq = [r for r in rows if r["variant"] == "cpu-inplace-square"]
assert [r["rows"] for r in sq] == ["64", "96"] and all(r["elem_size"] == "2" and r["verified"] == "true" for r in sq), rows
assert all(r["pct_memcpy"] for r in sq), rows
'
if [ "$have_gpu" -eq 0 ]; then
    usage_error "--op inplace --backend cuda without a GPU" -- "$X" bench --op inplace --backend cuda --size 64 --reps 1
fi
# A plot that cannot be drawn is refused before the bench runs (gnuplot would draw the PNG to standard output instead).
usage_error "plot into a missing directory" -- "$X" bench --size 64 --backend cpu --reps 1 --plot /nonexistent-xpose-dir/x.png
usage_error "plot file name with a quote" -- "$X" bench --size 64 --backend cpu --reps 1 --plot "/tmp/xpose'plot.png"
usage_error "plot into a directory name" -- "$X" bench --size 64 --backend cpu --reps 1 --plot /tmp/
out=$("$X" bench --size 64 --backend cpu --reps 1 --plot /nonexistent-xpose-dir/x.png 2>/dev/null)
if [ -z "$out" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: an unwritable --plot path still ran the bench"; fi
# --op permute: the permutation through the plan API beside copies of the same bytes, each row verified; its plan
# (the canonical form and the route) in the row; bad --shape / --perm and options of other benches exit 2.
usage_error "permute without --perm" -- "$X" bench --op permute --shape 4,5 --backend cpu --reps 1
usage_error "permute without --shape" -- "$X" bench --op permute --perm 1,0 --backend cpu --reps 1
usage_error "perm not a permutation (axis twice)" -- "$X" bench --op permute --shape 4,5,6 --perm 0,0,1 --backend cpu --reps 1
usage_error "perm not a permutation (axis past the rank)" -- "$X" bench --op permute --shape 4,5,6 --perm 0,1,3 --backend cpu --reps 1
usage_error "perm shorter than the shape" -- "$X" bench --op permute --shape 4,5,6 --perm 1,0 --backend cpu --reps 1
usage_error "perm with a negative axis" -- "$X" bench --op permute --shape 4,5 --perm -1,0 --backend cpu --reps 1
usage_error "shape with a zero" -- "$X" bench --op permute --shape 4,0 --perm 1,0 --backend cpu --reps 1
usage_error "shape of rank 33" -- "$X" bench --op permute --shape 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --perm 0 --backend cpu --reps 1
usage_error "--size with --op permute" -- "$X" bench --op permute --shape 4,5 --perm 1,0 --size 64 --backend cpu --reps 1
usage_error "--variants with --op permute" -- "$X" bench --op permute --shape 4,5 --perm 1,0 --variants cpu-fast --backend cpu --reps 1
usage_error "--shape with a transpose" -- "$X" bench --size 64 --shape 4,5 --backend cpu --reps 1
usage_error "--perm with a reduction" -- "$X" bench --op reduce --perm 1,0 --backend cpu --reps 1
usage_error "the permute preset with another --op" -- "$X" bench --op reduce --preset permute --backend cpu --reps 1
usage_error "the permute preset with a shape" -- "$X" bench --preset permute --shape 4,5 --perm 1,0 --backend cpu --reps 1
usage_error "a transpose preset with --op permute" -- "$X" bench --op permute --preset seed000 --backend cpu --reps 1
if [ "$have_gpu" = 0 ]; then
    usage_error "permute on --backend cuda without a GPU" -- "$X" bench --op permute --shape 4,5 --perm 1,0 --backend cuda --reps 1
fi
permute_check='
import json, sys
d = json.load(sys.stdin)
rows = d["results"]
names = [r["variant"] for r in rows]
assert names.count("cpu-permute") == 2 and names.count("cpu-memcpy") == 2, names
for r in rows:
    assert r["verified"] is True and r["status"] == "ok", r
    assert r["shape"] == sys.argv[1] and r["dtype"] == sys.argv[2], r
perm = [r for r in rows if r["variant"] == "cpu-permute"]
for r in perm:
    assert r["plan"].startswith("rank ") and " -> " in r["plan"], r["plan"]
    assert r["pct_memcpy"] is not None and r["plan_us"] > 0, r
assert sorted(r["threads"] for r in perm) == [1, 2], perm
assert "plans created in" in d["note"], d["note"]
'
for c in "12,7,5,3 3,1,0,2 u16 rank 4" "64,3 1,0 u8 transpose/cpu-fast/64x3" "5,9,4 1,0,2 c128 rows/" "6,5,4 2,1,0 double tiles/"; do
    set -- $c
    out=$("$X" bench --op permute --shape "$1" --perm "$2" --type "$3" --backend cpu --reps 2 --threads 1,2 --format json)
    want_shape="$(echo "$1" | tr , x) ($2)"
    if printf '%s\n' "$out" | python3 -c "$permute_check" "$want_shape" "$3" && printf '%s\n' "$out" | grep -q "$4"; then
        pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --op permute --shape $1 --perm $2 --type $3"; fi
done
# CSV: the shape, the plan (quoted: it holds commas) and the planning time close each row.
check "permute CSV" "$("$X" bench --op permute --shape 30,20,10 --perm 2,0,1 --backend cpu --reps 1 --format csv)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert [r["variant"] for r in rows] == ["cpu-memcpy", "cpu-stream", "cpu-fast", "cpu-permute"], rows
f, p = rows[2], rows[3]
assert f["plan"] == "yardstick: a 2-D 75x80 transpose of the same bytes" and f["verified"] == "true", f
assert p["shape"] == "30x20x10 (2,0,1)" and p["plan"].startswith("rank 2 canonical (10,600)"), p
assert float(p["plan_us"]) > 0 and p["verified"] == "true" and float(p["pct_memcpy"]) > 0, p
'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
