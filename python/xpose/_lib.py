"""xpose._lib: loads libxpose.so (the package's own, or $XPOSE_LIB) and declares its C functions for ctypes.

Every function is looked up and typed once, at import; a call passes plain integers (pointers, sizes) and ctypes
arrays, so nothing is parsed per call. XposeError carries a library status as its name and message."""
import ctypes
import os

# Status values and names as include/xpose.h lists them (XPOSE_STATUS_LIST); the values are fixed forever, and
# python/tests/test_errors.py checks this table against the header.
STATUS_NAMES = {
    0: "XPOSE_OK", -1: "XPOSE_ERR_NULL", -2: "XPOSE_ERR_ELEM_SIZE", -3: "XPOSE_ERR_LEADING_DIM",
    -4: "XPOSE_ERR_OVERFLOW", -5: "XPOSE_ERR_OVERLAP", -6: "XPOSE_ERR_BATCH_STRIDE", -7: "XPOSE_ERR_UNKNOWN_VARIANT",
    -8: "XPOSE_ERR_UNSUPPORTED", -9: "XPOSE_ERR_NOT_BUILT", -10: "XPOSE_ERR_NO_DEVICE", -11: "XPOSE_ERR_CUDA",
    -12: "XPOSE_ERR_NO_MEMORY", -13: "XPOSE_ERR_INVALID", -14: "XPOSE_ERR_EMPTY", -15: "XPOSE_ERR_LIBRARY",
    -16: "XPOSE_ERR_ALIGNMENT", -17: "XPOSE_ERR_POINTER", -18: "XPOSE_ERR_PERM", -19: "XPOSE_ERR_RANK",
    -20: "XPOSE_ERR_STRIDE", -21: "XPOSE_ERR_MISMATCH", -22: "XPOSE_ERR_COMM",
}
BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA = 0, 1, 2
MAX_RANK = 32


class XposeError(RuntimeError):
    """A status from libxpose: `name` (e.g. "XPOSE_ERR_OVERLAP"), `message` (what to do) and `status` (its value)."""

    def __init__(self, name, message, status=None):
        super().__init__(name, message)
        self.name, self.message, self.status = name, message, status

    def __str__(self):
        return f"{self.name}: {self.message}"


class Layout(ctypes.Structure):
    """xpose_layout (include/xpose.h), field for field."""
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("rows", "cols", "elem_size", "ld_src", "ld_dst", "batch", "stride_src", "stride_dst")]


class VariantInfo(ctypes.Structure):
    """xpose_variant_info (include/xpose.h), field for field."""
    _fields_ = [("name", ctypes.c_char_p), ("params", ctypes.c_char_p), ("about", ctypes.c_char_p),
                ("backend", ctypes.c_int), ("family", ctypes.c_int), ("elem_sizes", ctypes.c_uint),
                ("available", ctypes.c_int), ("threaded", ctypes.c_int), ("why_not", ctypes.c_char_p)]


def library_path():
    """$XPOSE_LIB (a build tree's libxpose.so, for tests without pip), else the libxpose.so installed beside this
    file, else a build/ folder of the source tree this file lies in (python/xpose/ -> ../../build)."""
    env = os.environ.get("XPOSE_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "libxpose.so"), os.path.join(here, "..", "..", "build", "libxpose.so")):
        if os.path.exists(path):
            return path
    raise ImportError("xpose: libxpose.so not found beside the package; install with `pip install .` from the "
                      "repository, or set XPOSE_LIB to a built libxpose.so")


_P, _SZ, _I, _VP = ctypes.POINTER, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p
# name: (restype, argtypes). Pointers travel as integers (c_void_p); arrays of extents, axes and strides as ctypes
# arrays. cudaStream_t is a pointer: 0 is the legacy default stream.
_SIGNATURES = {
    "xpose_version": (ctypes.c_char_p, []),
    "xpose_strerror": (ctypes.c_char_p, [_I]),
    "xpose_cuda_status": (_I, []),
    "xpose_set_threads": (_I, [_I]),
    "xpose_get_threads": (_I, []),
    "xpose_variant_count": (_I, []),
    "xpose_variant_get": (_I, [_I, _P(VariantInfo)]),
    "xpose_transpose_variant": (_I, [ctypes.c_char_p, _P(Layout), _VP, _VP]),
    "xpose_transpose_variant_cuda": (_I, [ctypes.c_char_p, _P(Layout), _VP, _VP, _VP]),
    "xpose_reduce": (_I, [_I, _I, _I, _VP, _SZ, _VP]),
    "xpose_reduce_cuda": (_I, [_I, _I, _VP, _SZ, _VP, _VP]),
    "xpose_permute_plan_create": (_I, [_P(_VP), _I, _SZ, _I, _P(_SZ), _P(_I), _P(ctypes.c_int64),
                                       _P(ctypes.c_int64)]),
    "xpose_permute_execute": (_I, [_VP, _VP, _VP]),
    "xpose_permute_execute_cuda": (_I, [_VP, _VP, _VP, _VP]),
    "xpose_permute_plan_describe": (_I, [_VP, _I, ctypes.c_char_p, _SZ]),
    "xpose_permute_plan_destroy": (None, [_VP]),
}

path = library_path()
lib = ctypes.CDLL(path)
for _name, (_res, _args) in _SIGNATURES.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError:
        raise ImportError(f"xpose: {path} has no {_name}: it is older than this package; rebuild it from the same "
                          "source tree (pip install . or make)") from None
    _fn.restype, _fn.argtypes = _res, _args
    globals()[_name] = _fn


def error(status):
    """The XposeError for a nonzero library status."""
    return XposeError(STATUS_NAMES.get(status, f"XPOSE_STATUS_{status}"), lib.xpose_strerror(status).decode(), status)


def check(status):
    if status:
        raise error(status)
