#!/usr/bin/env bash
# test_install.sh: `cmake --install` into a fresh prefix, then the README's API example built against the installed
# tree alone, four ways: find_package(xpose) with xpose::xpose and with xpose::xpose_static (a C-only project of its
# own), and pkg-config for libxpose.so and, with --static, for libxpose.a. Each must run and print the right line;
# the installed libxpose.so must NEED no peer library (cuBLAS, OpenBLAS); the installed CLI must run.
# Usage: test_install.sh BUILD_DIR C_COMPILER EXAMPLE.c CONSUMER_PROJECT_DIR
set -u
build=$1 cc=$2 example=$3 consumer=$4
want="t[3] = {4, 8, 12}"
prefix=$(mktemp -d) || exit 1
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run_example() { # name binary
    local out
    out=$("$2") || fail "$1: the example exited $?"
    [ "$out" = "$want" ] || fail "$1: the example printed '$out'"
    echo "$1: ok ($out)"
}
cmake --install "$build" --prefix "$prefix/usr" > "$prefix/install.log" 2>&1 ||
    { cat "$prefix/install.log"; fail "cmake --install"; }
inst=$prefix/usr
pc=$(find "$inst" -name xpose.pc) && [ -n "$pc" ] || fail "no xpose.pc installed"
libdir=$(dirname "$(dirname "$pc")")
[ -f "$inst/include/xpose.h" ] || fail "xpose.h not installed"
[ -f "$libdir/cmake/xpose/xposeConfig.cmake" ] || fail "no xposeConfig.cmake in $libdir/cmake/xpose"
[ -f "$libdir/cmake/xpose/xposeConfigVersion.cmake" ] || fail "no xposeConfigVersion.cmake"
[ -f "$libdir/libxpose.a" ] || fail "libxpose.a not installed"
[ -x "$inst/bin/xpose" ] || fail "the xpose CLI not installed"
version=$(sed -n 's/^#define XPOSE_VERSION_STRING "\(.*\)"$/\1/p' "$inst/include/xpose.h")

# The lean library: no peer library among libxpose.so's needs.
needed=$(objdump -p "$libdir/libxpose.so" | awk '/NEEDED/ {print $2}')
echo "libxpose.so NEEDs:" $needed
echo "$needed" | grep -qiE 'cublas|openblas|blas' && fail "libxpose.so needs a peer library"
# Every build exports every function the installed headers declare (a CPU-only build too: its CUDA entry points
# return XPOSE_ERR_NOT_BUILT), and nothing else.
declared_in() { grep -ho 'XPOSE_API [^(]*(' "$@" | grep -o 'xpose_[a-z_]*' | sort -u; }
declared=$(declared_in "$inst/include/xpose.h" "$inst/include/xpose_cuda.h")
exported=$(nm -D --defined-only "$libdir/libxpose.so" | awk '{print $3}' | sort -u)
[ "$declared" = "$exported" ] || fail "libxpose.so exports $(echo $exported), the headers declare $(echo $declared)"
echo "libxpose.so exports the $(echo "$declared" | wc -l) functions the headers declare"
# libxpose_dist (where NCCL was found) exports what xpose_dist.h declares, and libxpose needs no NCCL.
echo "$needed" | grep -q nccl && fail "libxpose.so needs NCCL"
if [ -f "$inst/include/xpose_dist.h" ]; then
    declared=$(declared_in "$inst/include/xpose_dist.h")
    exported=$(nm -D --defined-only "$libdir/libxpose_dist.so" | awk '{print $3}' | sort -u)
    [ "$declared" = "$exported" ] || fail "libxpose_dist.so exports $(echo $exported), xpose_dist.h declares $(echo $declared)"
    echo "libxpose_dist.so exports the $(echo "$declared" | wc -l) functions xpose_dist.h declares"
fi
soname=$(objdump -p "$libdir/libxpose.so" | awk '/SONAME/ {print $2}')
abi=$(sed -n 's/^#define XPOSE_ABI_VERSION \([0-9]*\)$/\1/p' "$inst/include/xpose.h")
[ "$soname" = "libxpose.so.$abi" ] || fail "SONAME $soname, xpose.h says ABI $abi"

# pkg-config, as a user's build would call it (the .pc finds its prefix from where it lies).
export PKG_CONFIG_PATH=$(dirname "$pc")
[ "$(pkg-config --modversion xpose)" = "$version" ] || fail "pkg-config says $(pkg-config --modversion xpose), xpose.h $version"
"$cc" -std=c11 -o "$prefix/ex_pc" "$example" $(pkg-config --cflags --libs xpose) -Wl,-rpath,"$libdir" ||
    fail "the example does not build with pkg-config --libs xpose"
ldd "$prefix/ex_pc" | grep -q "$libdir/libxpose.so" || fail "pkg-config: the example did not load the installed libxpose.so"
run_example "pkg-config (shared)" "$prefix/ex_pc"
# --static: the same flags plus Libs.private, with libxpose.a named so the linker cannot take the .so instead.
static_libs=$(pkg-config --static --libs xpose | sed 's/-lxpose\b/-l:libxpose.a/')
"$cc" -std=c11 -o "$prefix/ex_pc_static" "$example" $(pkg-config --cflags xpose) $static_libs ||
    fail "the example does not link with pkg-config --static --libs xpose ($static_libs)"
ldd "$prefix/ex_pc_static" | grep -q libxpose.so && fail "pkg-config --static: the example loads libxpose.so"
run_example "pkg-config --static" "$prefix/ex_pc_static"

# find_package(xpose) from a project of its own.
cmake -S "$consumer" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$inst" -DCMAKE_C_COMPILER="$cc" \
      -DEXAMPLE="$example" > "$prefix/consumer.log" 2>&1 &&
    cmake --build "$prefix/consumer" >> "$prefix/consumer.log" 2>&1 ||
    { cat "$prefix/consumer.log"; fail "find_package(xpose): the consumer project does not build"; }
ldd "$prefix/consumer/example_shared" | grep -q "$libdir/libxpose.so" ||
    fail "xpose::xpose: the example did not load the installed libxpose.so"
ldd "$prefix/consumer/example_static" | grep -q libxpose.so && fail "xpose::xpose_static: the example loads libxpose.so"
run_example "find_package xpose::xpose" "$prefix/consumer/example_shared"
run_example "find_package xpose::xpose_static" "$prefix/consumer/example_static"

# libxpose_dist where it was built: find_package(xpose COMPONENTS dist) gives xpose::dist, which loads and runs.
if [ -f "$inst/include/xpose_dist.h" ]; then
    cmake -S "$(dirname "$consumer")/consumer_dist" -B "$prefix/consumer_dist" -DCMAKE_PREFIX_PATH="$inst" \
          -DCMAKE_C_COMPILER="$cc" > "$prefix/consumer_dist.log" 2>&1 &&
        cmake --build "$prefix/consumer_dist" >> "$prefix/consumer_dist.log" 2>&1 ||
        { cat "$prefix/consumer_dist.log"; fail "find_package(xpose COMPONENTS dist) does not build"; }
    [ "$("$prefix/consumer_dist/dist_probe")" = "dist ok" ] || fail "xpose::dist: the probe did not run right"
    echo "find_package xpose COMPONENTS dist: ok"
fi
"$inst/bin/xpose" --version | grep -q "^xpose $version" || fail "the installed CLI: xpose --version does not say $version"
"$inst/bin/xpose" list > /dev/null || fail "the installed CLI: xpose list exited $?"
echo "installed $version into a fresh prefix; four ways of linking the example printed: $want"
