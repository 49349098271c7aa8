"""xpose.py: Python bindings (ctypes) for libxpose.so's transpose calls, CPU and CUDA, on raw pointers.

Pointers are integers: `ctypes.addressof(buf)` for host memory, `tensor.data_ptr()` (PyTorch) or
`array.data.ptr` (CuPy) for device memory. Every call raises XposeError with the library's status and
message where the library returns one; nothing is retried or hidden.

    import xpose
    lib = xpose.Library()                      # $XPOSE_LIB, else build/libxpose.so, else the system's
    lib.transpose(src, dst, rows=3, cols=4, elem_size=4)
"""
import ctypes
import ctypes.util
import os

BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA = 0, 1, 2


class Layout(ctypes.Structure):
    """xpose_layout (include/xpose.h), field for field."""
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("rows", "cols", "elem_size", "ld_src", "ld_dst", "batch", "stride_src", "stride_dst")]


class XposeError(RuntimeError):
    def __init__(self, status, message):
        super().__init__(f"xpose status {status}: {message}")
        self.status = status


def _find_library():
    """$XPOSE_LIB, else the build folder beside this one (the README's `make` puts it there), else the loader's."""
    env = os.environ.get("XPOSE_LIB")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "libxpose.so")
    if os.path.exists(here):
        return here
    found = ctypes.util.find_library("xpose")
    if not found:
        raise OSError("libxpose.so not found: build it (make) or set XPOSE_LIB to its path")
    return found


class Library:
    """One loaded libxpose.so."""

    def __init__(self, path=None):
        self.path = path or _find_library()
        self._lib = ctypes.CDLL(self.path)
        lib = self._lib
        lay, vp = ctypes.POINTER(Layout), ctypes.c_void_p
        lib.xpose_strerror.restype = ctypes.c_char_p
        lib.xpose_strerror.argtypes = [ctypes.c_int]
        lib.xpose_version.restype = ctypes.c_char_p
        lib.xpose_version.argtypes = []
        lib.xpose_cuda_status.restype = ctypes.c_int
        lib.xpose_cuda_status.argtypes = []
        lib.xpose_transpose.restype = ctypes.c_int
        lib.xpose_transpose.argtypes = [ctypes.c_int, lay, vp, vp]
        lib.xpose_transpose_variant.restype = ctypes.c_int
        lib.xpose_transpose_variant.argtypes = [ctypes.c_char_p, lay, vp, vp]
        # cudaStream_t is a pointer; 0 is the legacy default stream.
        lib.xpose_transpose_cuda.restype = ctypes.c_int
        lib.xpose_transpose_cuda.argtypes = [lay, vp, vp, vp]
        lib.xpose_transpose_variant_cuda.restype = ctypes.c_int
        lib.xpose_transpose_variant_cuda.argtypes = [ctypes.c_char_p, lay, vp, vp, vp]

    def version(self):
        return self._lib.xpose_version().decode()

    def cuda_status(self):
        """0 (XPOSE_OK) where CUDA variants can run, else the negative status saying why not."""
        return self._lib.xpose_cuda_status()

    def strerror(self, status):
        return self._lib.xpose_strerror(status).decode()

    def _check(self, status):
        if status != 0:
            raise XposeError(status, self.strerror(status))

    def transpose(self, src, dst, rows, cols, elem_size, ld_src=0, ld_dst=0, batch=1, stride_src=0,
                  stride_dst=0, backend=BACKEND_AUTO, variant=None):
        """dst (cols x rows) := the transpose of src (rows x cols), as xpose_transpose(_variant)."""
        lay = Layout(rows, cols, elem_size, ld_src, ld_dst, batch, stride_src, stride_dst)
        if variant is None:
            self._check(self._lib.xpose_transpose(backend, ctypes.byref(lay), src, dst))
        else:
            self._check(self._lib.xpose_transpose_variant(variant.encode(), ctypes.byref(lay), src, dst))

    def transpose_cuda(self, src, dst, rows, cols, elem_size, ld_src=0, ld_dst=0, batch=1, stride_src=0,
                       stride_dst=0, stream=0, variant=None):
        """The same on device pointers, asynchronous on `stream` (a cudaStream_t as an integer)."""
        lay = Layout(rows, cols, elem_size, ld_src, ld_dst, batch, stride_src, stride_dst)
        if variant is None:
            self._check(self._lib.xpose_transpose_cuda(ctypes.byref(lay), src, dst, stream))
        else:
            self._check(self._lib.xpose_transpose_variant_cuda(variant.encode(), ctypes.byref(lay), src, dst,
                                                               stream))
