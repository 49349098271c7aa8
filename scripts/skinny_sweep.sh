#!/usr/bin/env bash
# skinny_sweep.sh: transposes with one short side (2 to 128 elements, both ways, every element size), each as % of the
# copy in the same `xpose bench` run (memcpy on CUDA; the faster of cpu-memcpy and cpu-stream on the CPU): the shapes
# outside the suites where the narrow, padded, staged and sub-banded paths live (docs/tuning.md, "fast: narrow
# matrices", "permute: staged skinny kernel", "cpu-fast: padded narrow rows"). CSV on stdout: side,orient,type,pct
# (orient w: side x N, n: N x side).
# Usage: [XPOSE=build/xpose] [BACKEND=cuda|cpu] [THREADS=1] [MIB=128] [REPS=10] [SIDES="2 3 ..."] [TYPES="u8 ..."]
#        bash scripts/skinny_sweep.sh
set -eu
X=${XPOSE:-build/xpose}
BACKEND=${BACKEND:-cuda}
MIB=${MIB:-128}
REPS=${REPS:-10}
SIDES=${SIDES:-"2 3 4 5 6 7 8 9 12 16 24 32 48 63 64 96 128"}
TYPES=${TYPES:-"u8 u16 float double c128"}
[ -x "$X" ] || { echo "skinny_sweep.sh: no xpose binary at $X (set XPOSE)" >&2; exit 2; }
if [ "$BACKEND" = cpu ]; then
    variants=cpu-fast,cpu-memcpy,cpu-stream
    fast=cpu-fast
    extra=(--threads "${THREADS:-1}")
else
    variants=fast,memcpy
    fast=fast
    extra=()
fi
echo "side,orient,type,pct"
for t in $TYPES; do
    case $t in u8) es=1 ;; u16) es=2 ;; float) es=4 ;; double) es=8 ;; c128) es=16 ;; *) echo "bad type $t" >&2; exit 2 ;; esac
    for s in $SIDES; do
        n=$(((MIB << 20) / (s * es)))
        for o in w n; do
            if [ $o = w ]; then r=$s c=$n; else r=$n c=$s; fi
            pct=$("$X" bench --rows $r --cols $c --type $t --backend "$BACKEND" --variants $variants --reps "$REPS" \
                "${extra[@]}" --format csv 2>/dev/null | awk -F, -v f=$fast '$1 == f && $2 == "" {print $11}')
            echo "$s,$o,$t,${pct:-error}"
        done
    done
done
