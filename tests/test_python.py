"""test_python.py: python/xpose.py over libxpose.so on the CPU: fresh random matrices of every element size against a
reference written here, poisoned destinations (bytes outside the matrix must stay poisoned), and bad input that must
raise XposeError with the library's status. Usage: XPOSE_LIB=path/libxpose.so python3 tests/test_python.py"""
import ctypes
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import xpose  # noqa: E402

POISON = 0xA5
checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print("FAIL:", what)


def reference(src, rows, cols, es, lds, ldd, batch, ss, sd, dst_len):
    """The expected destination bytes: poison everywhere but the transposed elements."""
    out = bytearray([POISON]) * dst_len
    for b in range(batch):
        for i in range(rows):
            for j in range(cols):
                s = (b * ss + i * lds + j) * es
                d = (b * sd + j * ldd + i) * es
                out[d:d + es] = src[s:s + es]
    return bytes(out)


def case(lib, rows, cols, es, pad_src=0, pad_dst=0, batch=1, backend=xpose.BACKEND_CPU, variant=None):
    lds, ldd = cols + pad_src, rows + pad_dst
    ss, sd = rows * lds, cols * ldd
    src_len, dst_len = batch * ss * es, batch * sd * es
    src = (ctypes.c_ubyte * src_len).from_buffer_copy(bytes(random.getrandbits(8) for _ in range(src_len)))
    dst = (ctypes.c_ubyte * dst_len).from_buffer_copy(bytes([POISON]) * dst_len)
    lib.transpose(ctypes.addressof(src), ctypes.addressof(dst), rows, cols, es, ld_src=lds, ld_dst=ldd, batch=batch,
                  stride_src=ss, stride_dst=sd, backend=backend, variant=variant)
    want = reference(bytes(src), rows, cols, es, lds, ldd, batch, ss, sd, dst_len)
    check(bytes(dst) == want, f"{rows}x{cols} es={es} pads={pad_src},{pad_dst} batch={batch} variant={variant}")


def expect_error(lib, status, what, **kw):
    buf = (ctypes.c_ubyte * 64)()
    args = dict(src=ctypes.addressof(buf), dst=ctypes.addressof(buf) + 32, rows=2, cols=2, elem_size=4,
                backend=xpose.BACKEND_CPU)
    args.update(kw)
    try:
        lib.transpose(**args)
        check(False, f"{what}: no error raised")
    except xpose.XposeError as e:
        check(e.status == status, f"{what}: status {e.status}, expected {status}")
        check(str(e).endswith(lib.strerror(status)), f"{what}: message {e}")


def main():
    random.seed(12345)
    lib = xpose.Library()
    check(lib.version().count(".") == 2, f"version {lib.version()!r}")
    for es in (1, 2, 4, 8, 16):
        for rows, cols in ((1, 1), (1, 37), (29, 1), (3, 5), (17, 33), (64, 64), (65, 127)):
            case(lib, rows, cols, es)
        case(lib, 40, 23, es, pad_src=3, pad_dst=5)
        case(lib, 9, 14, es, pad_src=1, batch=3)
        case(lib, 33, 70, es, variant="cpu-naive")
    # 2^15 elements past the library's threading bound, so the OpenMP path runs too.
    case(lib, 300, 700, 1)
    expect_error(lib, -2, "element size 3", elem_size=3)
    expect_error(lib, -1, "NULL source", src=None)
    expect_error(lib, -3, "leading dimension below the row", ld_src=1)
    buf = (ctypes.c_ubyte * 64)()
    expect_error(lib, -5, "overlapping buffers", src=ctypes.addressof(buf), dst=ctypes.addressof(buf) + 4)
    expect_error(lib, -7, "unknown variant", variant="no-such-variant")
    print(f"{checks} checks, {failures} failed")
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
