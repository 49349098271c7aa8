#!/usr/bin/env bash
# test_subproject.sh: a user's project that add_subdirectory()s the xpose source tree gets xpose::xpose and
# xpose::xpose_static, and builds neither the CLI nor the tests. CPU-only (-DXPOSE_CUDA=OFF), to keep it short.
# Usage: test_subproject.sh XPOSE_SOURCE C_COMPILER EXAMPLE.c CONSUMER_PROJECT_DIR
set -u
src=$1 cc=$2 example=$3 consumer=$4
want="t[3] = {4, 8, 12}"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake -S "$consumer" -B "$dir" -DXPOSE_SOURCE="$src" -DXPOSE_CUDA=OFF -DCMAKE_C_COMPILER="$cc" \
      -DEXAMPLE="$example" > "$dir/log" 2>&1 && cmake --build "$dir" -j 2 >> "$dir/log" 2>&1 ||
    { cat "$dir/log"; fail "the project that adds xpose as a subdirectory does not build"; }
for ex in example_shared example_static; do
    out=$("$dir/$ex") || fail "$ex exited $?"
    [ "$out" = "$want" ] || fail "$ex printed '$out'"
done
# Neither the CLI nor a test was built as a subproject.
built=$(find "$dir/xpose" -type f -executable -name 'xpose' -o -type f -executable -name 'test_*' | head -3)
[ -z "$built" ] || fail "a subproject built the CLI or tests: $built"
grep -q "xpose_cli\|test_status" "$dir/Makefile" "$dir/xpose/Makefile" && fail "a subproject has CLI or test targets"
echo "add_subdirectory(xpose): xpose::xpose and xpose::xpose_static both printed: $want; no CLI, no tests"
