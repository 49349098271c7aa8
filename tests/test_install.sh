#!/usr/bin/env bash
# test_install.sh: `cmake --install` into a fresh prefix, then the README's API example built from the installed
# header and libxpose.so alone (flags from the installed pkg-config file), run, and its output checked; the installed
# CLI must run too. Usage: test_install.sh BUILD_DIR C_COMPILER EXAMPLE.c
set -u
build=$1 cc=$2 example=$3
prefix=$(mktemp -d) || exit 1
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$prefix" > "$prefix/install.log" 2>&1 ||
    { cat "$prefix/install.log"; fail "cmake --install"; }
pc=$(find "$prefix" -name xpose.pc) && [ -n "$pc" ] || fail "no xpose.pc installed"
[ -f "$prefix/include/xpose.h" ] || fail "xpose.h not installed"
[ -x "$prefix/bin/xpose" ] || fail "the xpose CLI not installed"
# The .pc's own variables, as pkg-config would expand them (pkg-config itself need not be installed).
pcdir=$(dirname "$pc")
expand() { sed -n "s/^$1=//p" "$pc" | sed "s|\${pcfiledir}|$pcdir|"; }
pfx=$(expand prefix)
libdir=$(expand libdir | sed "s|\${prefix}|$pfx|")
incdir=$(expand includedir | sed "s|\${prefix}|$pfx|")
[ -f "$libdir/libxpose.so" ] || fail "libxpose.so not in the .pc's libdir ($libdir)"
[ -f "$incdir/xpose.h" ] || fail "xpose.h not in the .pc's includedir ($incdir)"
"$cc" -std=c11 -o "$prefix/example" "$example" -I"$incdir" -L"$libdir" -lxpose -Wl,-rpath,"$libdir" ||
    fail "the example does not build against the installed library"
out=$("$prefix/example") || fail "the example exited $?"
[ "$out" = "t[3] = {4, 8, 12}" ] || fail "the example printed '$out'"
ldd "$prefix/example" | grep -q "$libdir/libxpose.so" || fail "the example did not load the installed libxpose.so"
"$prefix/bin/xpose" list > /dev/null || fail "the installed CLI: xpose list exited $?"
echo "installed into a fresh prefix; the example built from it printed: $out"
