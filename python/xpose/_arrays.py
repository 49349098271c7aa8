"""xpose._arrays: what xpose reads from an array (pointer, shape, strides in elements, dtype, device) and how it
makes a result of the same kind: NumPy arrays, PyTorch tensors, CuPy arrays, any __cuda_array_interface__ object
(Numba's too) and any __dlpack__ producer. No array library is required: each is imported only when an array of it
arrives."""
import ctypes
import sys

from . import _pool

SIZES = (1, 2, 4, 8, 16)  # the element sizes the library moves
CPU = -1  # Arr.device for host memory; CUDA arrays carry their device's number, or None where it is not known


class Arr:
    """One array as the library sees it. strides are in elements, or None where some byte stride is not a multiple
    of the element size (the caller then works on a copy); ptr is the address of element 0 (index 0 in every
    dimension, wherever negative strides put it). `keep` holds whatever must live as long as ptr is used."""
    __slots__ = ("obj", "kind", "ptr", "shape", "strides", "itemsize", "dtype", "device", "readonly", "stream",
                 "keep")

    def __init__(self, obj, kind, ptr, shape, strides, itemsize, dtype, device, readonly=False, stream=None,
                 keep=None):
        self.obj, self.kind, self.ptr, self.shape, self.strides = obj, kind, ptr, shape, strides
        self.itemsize, self.dtype, self.device, self.readonly = itemsize, dtype, device, readonly
        self.stream, self.keep = stream, keep


def elem_strides(byte_strides, itemsize):
    """Byte strides in elements, or None where one is not a whole number of elements."""
    if any(s % itemsize for s in byte_strides):
        return None
    return tuple(s // itemsize for s in byte_strides)


def _unsupported_dtype(dtype, itemsize):
    return TypeError(f"xpose: unsupported dtype {dtype} ({itemsize} bytes): xpose moves elements of 1, 2, 4, 8 or 16 "
                     "bytes (bool, int8-64, uint8-64, float16, bfloat16, float32/64, complex64/128)")


# --- NumPy ------------------------------------------------------------------------------------------------------

def numpy_dtype_ok(dt):
    """TypeError unless NumPy's dtype is plain bits of a supported size (object arrays hold references: never)."""
    if dt.hasobject or dt.itemsize not in SIZES:
        raise _unsupported_dtype(dt, dt.itemsize)


def from_numpy(a):
    numpy_dtype_ok(a.dtype)
    es = a.itemsize
    return Arr(a, "numpy", a.__array_interface__["data"][0], a.shape, elem_strides(a.strides, es), es, a.dtype,
               CPU, readonly=not a.flags.writeable)


# --- PyTorch ----------------------------------------------------------------------------------------------------

def from_torch(t):
    import torch
    if t.layout != torch.strided or t.is_quantized:
        raise TypeError(f"xpose: a PyTorch tensor of layout {t.layout}{' (quantized)' * t.is_quantized} has no "
                        "plain strides; pass a dense strided tensor (x.to_dense())")
    if t.is_conj() or t.is_neg():  # lazy conjugation or negation: the memory does not hold the values yet
        t = t.resolve_conj().resolve_neg()
    es = t.element_size()
    if es not in SIZES:
        raise _unsupported_dtype(t.dtype, es)
    dev = t.device
    if dev.type == "cuda":
        device = dev.index if dev.index is not None else torch.cuda.current_device()
    elif dev.type == "cpu":
        device = CPU
    else:
        raise TypeError(f"xpose: PyTorch device {dev} is not supported; use CPU or CUDA tensors")
    return Arr(t, "torch", t.data_ptr(), tuple(t.shape), tuple(t.stride()), es, t.dtype, device)


# --- CuPy -------------------------------------------------------------------------------------------------------

def from_cupy(a):
    numpy_dtype_ok(a.dtype)
    es = a.itemsize
    return Arr(a, "cupy", a.data.ptr, a.shape, elem_strides(a.strides, es), es, a.dtype, a.device.id)


# --- __cuda_array_interface__ -----------------------------------------------------------------------------------

_TYPESTR_KIND = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex"}


def typestr_name(typestr):
    """'<f4' -> 'float32', '|b1' -> 'bool': the array-interface type as a NumPy-style name (other kinds keep their
    type string, so that two arrays compare equal only where their strings do)."""
    kind, size = typestr[1], int(typestr[2:])
    if kind == "b" and size == 1:
        return "bool"
    if kind in _TYPESTR_KIND and kind != "b":
        return f"{_TYPESTR_KIND[kind]}{8 * size}"
    return typestr


def from_cai(obj):
    d = obj.__cuda_array_interface__
    if d.get("mask") is not None:
        raise TypeError("xpose: masked arrays (__cuda_array_interface__ with a mask) are not supported")
    typestr = d["typestr"]
    es = int(typestr[2:])
    if es not in SIZES or typestr[1] == "O":
        raise _unsupported_dtype(typestr, es)
    shape = tuple(d["shape"])
    strides = d.get("strides")
    if strides is None:  # C-contiguous
        strides, run = [], 1
        for n in reversed(shape):
            strides.append(run)
            run *= n
        strides = tuple(reversed(strides))
    else:
        strides = elem_strides(strides, es)
    ptr, readonly = d["data"]
    kind = "numba" if type(obj).__module__.startswith("numba") else "cai"
    return Arr(obj, kind, ptr or 0, shape, strides, es, typestr_name(typestr), None, readonly=bool(readonly),
               stream=d.get("stream"))


# --- DLPack -----------------------------------------------------------------------------------------------------

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}


def from_dlpack(obj, stream):
    """Reads a legacy DLPack capsule (DLManagedTensor starts with its DLTensor) without consuming it: the producer
    keeps the memory, and the capsule's destructor returns it. CUDA producers are asked to order their work before
    `stream` (the one the call runs on)."""
    dev_type, dev_id = obj.__dlpack_device__()
    if dev_type in (_DL_CPU, _DL_CUDA_HOST):
        capsule, device = obj.__dlpack__(), CPU
    elif dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        capsule, device = obj.__dlpack__(stream=stream), int(dev_id)
    else:
        raise TypeError(f"xpose: DLPack device type {dev_type} is not supported; use CPU or CUDA arrays")
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    code, bits = t.dtype.code, t.dtype.bits
    es = bits // 8
    if t.dtype.lanes != 1 or bits % 8 or es not in SIZES or code not in _DL_CODES:
        raise _unsupported_dtype(f"DLPack(code {code}, bits {bits}, lanes {t.dtype.lanes})", es)
    name = "bool" if code == 6 else f"{_DL_CODES[code]}{bits}"
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides, run = [0] * t.ndim, 1
        for i in reversed(range(t.ndim)):
            strides[i], run = run, run * shape[i]
        strides = tuple(strides)
    return Arr(obj, "dlpack", (t.data or 0) + t.byte_offset, shape, strides, es, name, device, keep=capsule)


# --- any array --------------------------------------------------------------------------------------------------

def view(x, stream=None):
    """The Arr of any supported array; TypeError for anything else."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.ndarray):
        return from_numpy(x)
    mod = type(x).__module__
    if mod.startswith("torch") and hasattr(x, "data_ptr"):
        return from_torch(x)
    if mod.startswith("cupy") and hasattr(x, "data"):
        return from_cupy(x)
    if hasattr(x, "__cuda_array_interface__"):
        return from_cai(x)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return from_dlpack(x, 1 if stream is None else stream)
    raise TypeError(f"xpose: cannot read an array from {type(x).__name__}: pass a NumPy array, a CuPy array, a "
                    "PyTorch tensor, or an object with __cuda_array_interface__ or __dlpack__")


def dtype_name(a):
    """The element type as one comparable name: 'float32', 'bfloat16', 'bool' ... whatever library made it."""
    d = a.dtype
    if isinstance(d, str):
        return d
    if a.kind == "torch":
        return str(d).rsplit(".", 1)[-1]
    return d.name  # NumPy and CuPy (ml_dtypes' bfloat16 is 'bfloat16')


def _nbytes(shape, itemsize):
    for n in shape:
        itemsize *= n
    return itemsize


def empty(a, shape, dtype=None):
    """A new C-contiguous array of `shape`, of a's kind, element type and device (a's by default)."""
    kind = a.kind
    if kind == "numpy":
        import numpy as np
        return _pool.empty(np, shape, a.dtype, _nbytes(shape, a.itemsize))
    if kind == "torch":
        import torch
        return torch.empty(shape, dtype=a.dtype, device=a.obj.device)
    if kind == "cupy":
        import cupy
        with cupy.cuda.Device(a.device):
            return cupy.empty(shape, a.dtype)
    if kind == "numba":
        from numba import cuda
        return cuda.device_array(shape, dtype=a.obj.dtype)
    if a.device == CPU:  # a DLPack producer on the host: the result is a NumPy array
        import numpy as np
        try:
            dt = np.dtype(a.dtype)
        except TypeError:
            if a.dtype != "bfloat16":
                raise TypeError(f"xpose: NumPy has no dtype {a.dtype} for the result; pass out=") from None
            try:
                import ml_dtypes
            except ImportError:
                raise TypeError("xpose: a bfloat16 result on the host needs ml_dtypes (pip install ml_dtypes), "
                                "or pass out=") from None
            dt = np.dtype(ml_dtypes.bfloat16)
        return _pool.empty(np, shape, dt, _nbytes(shape, dt.itemsize))
    raise TypeError(f"xpose: cannot allocate a result like {type(a.obj).__name__} (a CUDA array of another "
                    "library); pass out= (a CuPy array, a PyTorch tensor or any writable __cuda_array_interface__)")


def contiguous_copy(a):
    """A C-contiguous copy by a's own library, for strides that are not whole elements; None where there is none."""
    if a.kind == "numpy":
        import numpy as np
        return np.array(a.obj, order="C")  # always a copy: an aligned one too
    if a.kind == "cupy":
        import cupy
        return cupy.array(a.obj, order="C")
    return None


# --- devices and streams ----------------------------------------------------------------------------------------

def stream_handle(stream):
    """A cudaStream_t as an integer from an integer, a PyTorch stream (.cuda_stream), a CuPy stream (.ptr) or any
    object of the __cuda_stream__ protocol."""
    if isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:  # (version, handle), from a method (the protocol) or, in some releases, a property
        return int((proto() if callable(proto) else proto)[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    raise TypeError(f"xpose: stream= takes an integer cudaStream_t, a PyTorch or CuPy stream, or an object with "
                    f"__cuda_stream__; got {type(stream).__name__}")


def current_stream(a):
    """The stream a's library would run on now: PyTorch's or CuPy's current stream of a's device; the stream of a
    __cuda_array_interface__ (the legacy default stream where it names none)."""
    if a.kind == "torch":
        import torch
        return torch.cuda.current_stream(a.device).cuda_stream
    if a.kind == "cupy":
        import cupy
        with cupy.cuda.Device(a.device):
            return cupy.cuda.get_current_stream().ptr
    if a.kind == "dlpack":
        return 1  # what from_dlpack asked the producer to order its work before
    return a.stream or 0


class device_of:
    """Makes a's device the current one for the call (xpose runs on the CUDA runtime's current device), where a's
    library can say so (PyTorch, CuPy) and it is not already."""
    __slots__ = ("ctx",)

    def __init__(self, a):
        self.ctx = None
        if a.kind == "torch":
            import torch
            if torch.cuda.current_device() != a.device:
                self.ctx = torch.cuda.device(a.device)
        elif a.kind == "cupy":
            import cupy
            if cupy.cuda.runtime.getDevice() != a.device:
                self.ctx = cupy.cuda.Device(a.device)

    def __enter__(self):
        if self.ctx is not None:
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)
