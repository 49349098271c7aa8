"""xpose: transpose and permute arrays at the speed of memory, on the CPU and on NVIDIA GPUs.

    import numpy as np, xpose
    a = np.arange(12.0).reshape(3, 4)
    xpose.transpose(a)                 # == a.T, as a new C-contiguous array
    xpose.permute(x, (0, 2, 1))        # PyTorch's name; the same as xpose.transpose(x, (0, 2, 1))
    xpose.matrix_transpose(x)          # the last two axes, leading axes a batch (NumPy 2's matrix_transpose, .mT)

Arrays in, arrays of the same kind out: NumPy arrays (any strides, C or Fortran order, read-only views), PyTorch
tensors (CPU or CUDA), CuPy arrays, Numba device arrays and other objects with __cuda_array_interface__ or
__dlpack__. Every element type of 1, 2, 4, 8 or 16 bytes: bool, int8-64, uint8-64, float16, bfloat16, float32/64,
complex64/128 (bits move unchanged). The result is a new C-contiguous array made by the input's own library on the
input's device, or `out=`. CUDA calls are asynchronous on the caller's current stream (PyTorch's or CuPy's) unless
`stream=` names another. Bad arguments raise ValueError or TypeError before the library is called; a status of the
library raises XposeError (its name and message). The C library is the libxpose.so installed beside this package,
or $XPOSE_LIB."""
import ctypes as _ct
import sys as _sys

from . import _arrays, _lib, _pool
from ._lib import XposeError

__all__ = ["transpose", "permute", "matrix_transpose", "sum", "min", "max", "set_threads", "get_threads",
           "set_result_cache", "result_cache_info", "variants", "cuda_available", "XposeError", "__version__"]

__version__ = _lib.xpose_version().decode()

_CPU = _arrays.CPU
_check = _lib.check
_execute = _lib.xpose_permute_execute
_execute_cuda = _lib.xpose_permute_execute_cuda
_from_buffer, _addressof = _ct.c_char.from_buffer, _ct.addressof
_POOL_MIN = _pool.MIN_BYTES


class _Plan:
    """A libxpose permutation plan and what it was made for. Destroyed with its last reference, so that a plan that
    leaves the cache while another thread runs it lives until that thread is done."""
    __slots__ = ("handle", "out_shape", "src_off", "dst_off")

    def __init__(self, handle, out_shape, src_off=0, dst_off=0):
        self.handle, self.out_shape = handle, out_shape
        self.src_off, self.dst_off = src_off, dst_off  # bytes added to the pointers: see _make_plan

    def __del__(self, destroy=_lib.xpose_permute_plan_destroy):
        destroy(self.handle)


# Plans by what defines them, so that a repeated call does no checking, planning or ctypes array building.
# _np_plans: NumPy on the host, keyed (element size, shape, axes as given, byte strides, out's byte strides or None);
# _plans: every kind, keyed (backend, element size, shape, axes as given, element strides, out's element strides,
# None where dense). Plans of empty arrays are never made. Bounded: the oldest plan goes first.
_np_plans, _plans = {}, {}
_PLANS_MAX = 256


def _remember(cache, key, plan):
    if len(cache) >= _PLANS_MAX:
        try:
            del cache[next(iter(cache))]
        except (RuntimeError, StopIteration, KeyError):  # another thread changed the cache meanwhile
            pass
    cache[key] = plan


def _axes(axes, ndim):
    """NumPy's rules: None reverses the axes; else a permutation of 0..ndim-1, negative axes counting from the end."""
    if axes is None:
        return tuple(range(ndim - 1, -1, -1))
    if len(axes) != ndim:
        raise ValueError(f"xpose: axes {axes} do not match an array of {ndim} dimensions")
    perm = []
    for ax in axes:
        if isinstance(ax, bool) or not hasattr(ax, "__index__"):
            raise TypeError(f"xpose: axes must be integers, got {type(ax).__name__}")
        ax = ax.__index__()
        if not -ndim <= ax < ndim:
            raise ValueError(f"xpose: axis {ax} is out of bounds for an array of {ndim} dimensions")
        perm.append(ax + ndim if ax < 0 else ax)
    if len(set(perm)) != ndim:
        raise ValueError(f"xpose: repeated axis in axes {axes}")
    return tuple(perm)


def _distinct(shape, strides):
    """True where no two elements share an address: the dimensions, sorted by stride, each stepping past the span of
    those below it (sufficient; it refuses only interleavings that no library allocates)."""
    span = 0
    for n, s in sorted(((n, abs(s)) for n, s in zip(shape, strides) if n > 1), key=lambda t: t[1]):
        if s <= span:
            return False
        span += (n - 1) * s
    return True


def _dense(shape, strides):
    """True where the element strides are C-contiguous for shape (extents of 1 take any stride)."""
    run = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != run:
            return False
        run *= n
    return True


def _packed(shape, strides):
    """True where the elements fill a contiguous run in some order (C, Fortran, or any permutation of them): what a
    reduction can read as one array."""
    run = 1
    for s, n in sorted((s, n) for n, s in zip(shape, strides) if n > 1):
        if s != run:
            return False
        run *= n
    return True


def _size(shape):
    n = 1
    for e in shape:
        n *= e
    return n


def _where(device):
    return {_CPU: "the host", None: "a CUDA device"}.get(device, f"CUDA device {device}")


def _view(x, stream):
    """x's Arr, aligned and of whole-element strides: else a copy by x's own library, or ValueError."""
    a = _arrays.view(x, stream)
    if a.strides is None or a.ptr % a.itemsize:
        c = _arrays.contiguous_copy(a)
        if c is None:
            raise ValueError("xpose: the array's strides or address are not whole elements of its dtype; pass a "
                             "contiguous copy")
        a = _arrays.view(c)
    return a


def _same_dtype(a, o):
    if a.kind in ("numpy", "cupy") and o.kind in ("numpy", "cupy"):
        return a.dtype == o.dtype
    return a.itemsize == o.itemsize and _arrays.dtype_name(a) == _arrays.dtype_name(o)


def _out(a, out, shape, stream):
    """The Arr of `out` where it can take a result of `shape` like a's; else ValueError or TypeError saying why."""
    o = _arrays.view(out, stream)
    if o.obj is not out:  # PyTorch's lazy conjugation or negation: the memory is not what out reads as
        raise ValueError("xpose: out is a conjugated or negated view (x.conj()); pass a tensor of its own")
    if o.kind == "dlpack":  # a DLPack capsule does not say whether its memory may be written
        raise TypeError("xpose: out must be a NumPy, CuPy or PyTorch array or expose __cuda_array_interface__")
    if tuple(o.shape) != tuple(shape):
        raise ValueError(f"xpose: out has shape {tuple(o.shape)}, the result needs {tuple(shape)}")
    if not _same_dtype(a, o):
        raise TypeError(f"xpose: out has dtype {o.dtype}, the result needs {a.dtype}")
    if (a.device == _CPU) != (o.device == _CPU) or (a.device is not None and o.device is not None
                                                    and a.device != o.device):
        raise ValueError(f"xpose: out is on {_where(o.device)}, the input on {_where(a.device)}; use one device")
    if o.readonly:
        raise ValueError("xpose: out is read-only")
    if o.strides is None or o.ptr % o.itemsize:
        raise ValueError("xpose: out's strides or address are not whole elements of its dtype")
    if not _distinct(o.shape, o.strides):
        raise ValueError(f"xpose: out's strides {o.strides} (elements) make elements share memory; pass a "
                         "C-contiguous out")
    return o


def _make_plan(a, perm, dst_strides):
    """Plans a's permutation `perm` into dst_strides (None: dense) with the library; XposeError on its status.
    The library writes through positive strides only: a destination dimension of negative stride is walked from its
    other end, and so is the source dimension that lands in it, from pointers moved by src_off and dst_off bytes."""
    shape, src = a.shape, a.strides
    if not shape:  # a 0-d array: one element
        shape, perm, src = (1,), (0,), (1,)
    src_off = dst_off = 0
    if dst_strides is not None and any(s < 0 for s in dst_strides):
        src, dst_strides = list(src), list(dst_strides)
        for k, d in enumerate(perm):
            if dst_strides[k] < 0 and shape[d] > 1:
                dst_off += (shape[d] - 1) * dst_strides[k] * a.itemsize
                src_off += (shape[d] - 1) * src[d] * a.itemsize
                dst_strides[k], src[d] = -dst_strides[k], -src[d]
    r = len(shape)
    handle = _ct.c_void_p()
    backend = _lib.BACKEND_CPU if a.device == _CPU else _lib.BACKEND_CUDA
    _check(_lib.xpose_permute_plan_create(_ct.byref(handle), backend, a.itemsize, r, (_ct.c_size_t * r)(*shape),
                                          (_ct.c_int * r)(*perm), (_ct.c_int64 * r)(*src),
                                          None if dst_strides is None else (_ct.c_int64 * r)(*dst_strides)))
    return _Plan(handle.value, tuple(a.shape[p] for p in perm) if a.shape else (), src_off, dst_off)


def _permute(x, axes, out, stream):
    if axes is not None and type(axes) is not tuple:
        axes = tuple(axes)
    np = _sys.modules.get("numpy")
    if np is not None and type(x) is np.ndarray and stream is None and (out is None or type(out) is np.ndarray):
        # NumPy's fast path: a cached plan and the per-call checks that no key can hold (dtype, alignment, out).
        dt = x.dtype
        key = (dt.itemsize, x.shape, axes, x.strides, None if out is None else out.strides)
        plan = _np_plans.get(key)
        if plan is not None and not dt.hasobject:
            plain = dt.kind in "biufc"  # types the buffer protocol exports (not datetimes, not ml_dtypes')
            if out is None:
                nb = x.nbytes  # the result's too
                if nb < _POOL_MIN:
                    res = np.empty(plan.out_shape, dt)
                else:
                    res = _pool.empty(np, plan.out_shape, dt, nb)
                dst = _addressof(_from_buffer(res)) if plain else res.__array_interface__["data"][0]
            elif out.dtype == dt and out.shape == plan.out_shape and out.flags.writeable:
                res = out
                dst = _addressof(_from_buffer(out)) if plain and out.flags.c_contiguous else \
                    out.__array_interface__["data"][0]
            else:
                return _permute_any(x, axes, out, stream, None)
            # ctypes reads a C-contiguous writable array's address 3x faster than NumPy's interface dict
            f = x.flags
            if plain and f.c_contiguous and f.writeable:
                src = _addressof(_from_buffer(x))
            else:
                src = x.__array_interface__["data"][0]
            if not (src | dst) % dt.itemsize:
                _check(_execute(plan.handle, src + plan.src_off, dst + plan.dst_off))
                return res
            return _permute_any(x, axes, out, stream, None)
        return _permute_any(x, axes, out, stream, key)
    return _permute_any(x, axes, out, stream, None)


def _permute_any(x, axes, out, stream, np_key):
    """Every kind of array, and the NumPy fast path's first call of each key (np_key: that key)."""
    h = None if stream is None else _arrays.stream_handle(stream)
    a = _view(x, h)
    if a.device == _CPU and stream is not None:
        raise ValueError("xpose: stream= is for CUDA arrays; this one is on the host")
    perm = _axes(axes, len(a.shape))
    backend = 1 if a.device == _CPU else 2
    if not _size(a.shape):  # nothing to move: no plan, no call
        out_shape = tuple(a.shape[p] for p in perm)
        return _arrays.empty(a, out_shape) if out is None else _out(a, out, out_shape, h).obj
    if out is None:
        res = _arrays.empty(a, tuple(a.shape[p] for p in perm))  # first: an unknown library's TypeError comes first
        o = _arrays.view(res)
        key = (backend, a.itemsize, a.shape, axes, a.strides, None)
        plan = _plans.get(key)
        if plan is None:
            plan = _make_plan(a, perm, None)
            _remember(_plans, key, plan)
    else:
        o = _out(a, out, tuple(a.shape[p] for p in perm), h)
        res = out
        dst = None if _dense(o.shape, o.strides) else tuple(o.strides)
        key = (backend, a.itemsize, a.shape, axes, a.strides, dst)
        plan = _plans.get(key)
        if plan is None:
            plan = _make_plan(a, perm, dst)
            _remember(_plans, key, plan)
    if np_key is not None and a.obj is x:  # not a copy: the fast path can take this key from now on
        _remember(_np_plans, np_key, plan)
    src, dst = a.ptr + plan.src_off, o.ptr + plan.dst_off
    if a.device == _CPU:
        _check(_execute(plan.handle, src, dst))
    else:
        with _arrays.device_of(a):
            _check(_execute_cuda(plan.handle, src, dst, _arrays.current_stream(a) if h is None else h))
    return res


def _variant(x, axes, out, stream, variant):
    """The lab path: one named variant of xpose_transpose_variant(_cuda) on a (batched) 2-D transpose."""
    if axes is not None and type(axes) is not tuple:
        axes = tuple(axes)
    h = None if stream is None else _arrays.stream_handle(stream)
    a = _view(x, h)
    nd = len(a.shape)
    perm = _axes(axes, nd)
    if nd < 2 or perm != tuple(range(nd - 2)) + (nd - 1, nd - 2):
        raise ValueError(f"xpose: variant= runs 2-D transposes, batched over leading axes; axes {perm} of an array "
                         f"of {nd} dimensions is not one (use matrix_transpose, or no variant)")
    out_shape = tuple(a.shape[p] for p in perm)
    if out is None:
        res = _arrays.empty(a, out_shape)
        o = _arrays.view(res)
    else:
        res, o = out, _out(a, out, out_shape, h)
    rows, cols = a.shape[-2], a.shape[-1]
    batch, ss, lds = _matrices(a.shape, a.strides, "input")
    _, sd, ldd = _matrices(o.shape, o.strides, "out")
    lay = _lib.Layout(rows, cols, a.itemsize, lds, ldd, batch, ss, sd)
    name = variant.encode()
    if a.device == _CPU:
        if stream is not None:
            raise ValueError("xpose: stream= is for CUDA arrays; this one is on the host")
        _check(_lib.xpose_transpose_variant(name, _ct.byref(lay), a.ptr, o.ptr))
    else:
        with _arrays.device_of(a):
            _check(_lib.xpose_transpose_variant_cuda(name, _ct.byref(lay), a.ptr, o.ptr,
                                                     _arrays.current_stream(a) if h is None else h))
    return res


def _matrices(shape, strides, what):
    """(batch, batch stride, leading dimension) of an array of matrices as xpose_layout takes them: rows of unit
    stride, matrices evenly spaced; ValueError otherwise."""
    rows, cols = shape[-2], shape[-1]
    if cols > 1 and strides[-1] != 1:
        raise ValueError(f"xpose: variant= needs the {what}'s rows contiguous (last stride 1); pass a copy")
    ld = strides[-2] if rows > 1 else cols
    batch, step = 1, 0
    for n, s in zip(reversed(shape[:-2]), reversed(strides[:-2])):
        if n == 1:
            continue
        if batch > 1 and s != step * batch:
            raise ValueError(f"xpose: variant= needs the {what}'s matrices evenly spaced; pass a copy")
        step = s if batch == 1 else step
        batch *= n
    if ld < 0 or step < 0:
        raise ValueError(f"xpose: variant= takes no negative strides ({what}); pass a copy")
    return batch, step, ld


def transpose(x, axes=None, out=None, *, stream=None, variant=None):
    """The axes of x permuted, as np.transpose(x, axes): no axes reverses them, axes[k] names the input axis that
    becomes axis k of the result (negative axes count from the end).

    x: a NumPy array (any strides, C or Fortran order, read-only views), a PyTorch tensor, a CuPy array, or any
    object with __cuda_array_interface__ or __dlpack__; dtypes of 1, 2, 4, 8 or 16 bytes. Returns a new C-contiguous
    array of x's library on x's device (NumPy for other libraries' host arrays), or `out` filled: it must have the
    result's shape and x's dtype, lie on x's device and give every element its own place (any strides that do);
    otherwise ValueError or TypeError before anything runs. CUDA: asynchronous on `stream` (an integer
    cudaStream_t, a PyTorch or CuPy stream), by default the current stream of x's library. A result allocated on
    one stream and written on another is the caller's to order, as in PyTorch.

    variant: a named variant of the lab ("shared-pad/16", "cpu-blocked/32"; xpose.variants() lists them) instead of
    the production path, for 2-D or batched 2-D transposes (axes swapping the last two) whose rows are contiguous;
    ValueError otherwise. Raises XposeError where the library returns a status."""
    if variant is not None:
        return _variant(x, axes, out, stream, variant)
    return _permute(x, axes, out, stream)


def permute(x, axes, out=None, *, stream=None):
    """PyTorch's name for transpose(x, axes): result axis k is x's axis axes[k]. See transpose."""
    if axes is None:
        raise TypeError("xpose.permute: axes are required (transpose(x) reverses them)")
    return _permute(x, axes, out, stream)


def matrix_transpose(x, out=None, *, stream=None, variant=None):
    """The last two axes swapped, leading axes a batch: NumPy 2's matrix_transpose, the array API's x.mT. x needs at
    least two dimensions (ValueError). See transpose for arrays, out, stream and variant."""
    shape = getattr(x, "shape", None)
    if shape is None:  # a DLPack-only producer, or no array at all (TypeError)
        shape = _arrays.view(x, None if stream is None else _arrays.stream_handle(stream)).shape
    nd = len(shape)
    if nd < 2:
        raise ValueError(f"xpose.matrix_transpose: x has {nd} dimensions; it needs at least 2")
    axes = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    if variant is not None:
        return _variant(x, axes, out, stream, variant)
    return _permute(x, axes, out, stream)


# --- reductions -------------------------------------------------------------------------------------------------

_REDUCE_TYPES = {"float32": 0, "float64": 1, "int32": 2, "int64": 3}  # xpose_dtype


def _reduce(x, op, stream):
    h = None if stream is None else _arrays.stream_handle(stream)
    a = _view(x, h)
    t = _REDUCE_TYPES.get(_arrays.dtype_name(a))
    if t is None:
        raise TypeError(f"xpose: reductions take float32, float64, int32 and int64 arrays, not {a.dtype}")
    if not _packed(a.shape, a.strides):  # the library reduces a contiguous run: make one with a permutation
        a = _view(_permute(a.obj, tuple(range(len(a.shape))), None, stream), h)
    res = _arrays.empty(a, ())
    r = _arrays.view(res)
    if a.device == _CPU:
        if stream is not None:
            raise ValueError("xpose: stream= is for CUDA arrays; this one is on the host")
        _check(_lib.xpose_reduce(_lib.BACKEND_CPU, op, t, a.ptr, _size(a.shape), r.ptr))
        return res[()] if a.kind in ("numpy", "dlpack") else res  # NumPy's reductions return scalars
    with _arrays.device_of(a):
        _check(_lib.xpose_reduce_cuda(op, t, a.ptr, _size(a.shape), r.ptr,
                                      _arrays.current_stream(a) if h is None else h))
    return res


def sum(x, *, stream=None):
    """The sum of all elements of a float32, float64, int32 or int64 array (integers wrap as in C). An x whose
    elements do not fill one contiguous run (C, Fortran or any order) is first made contiguous: a copy by xpose.
    NumPy: a NumPy scalar; PyTorch and CuPy: a 0-d array on x's device (CUDA: asynchronous on `stream`, as
    transpose)."""
    return _reduce(x, 0, stream)


def min(x, *, stream=None):
    """The smallest element, as sum takes and returns it; XposeError (XPOSE_ERR_EMPTY) for an empty array."""
    return _reduce(x, 1, stream)


def max(x, *, stream=None):
    """The largest element, as sum takes and returns it; XposeError (XPOSE_ERR_EMPTY) for an empty array."""
    return _reduce(x, 2, stream)


# --- the library ------------------------------------------------------------------------------------------------

def set_threads(n):
    """Threads of xpose's CPU calls (0 or less: one per processor), for the whole process; the caller's OpenMP
    setting is left alone. Returns the count now in effect."""
    return _lib.xpose_set_threads(int(n))


def get_threads():
    """Threads xpose's CPU calls use now."""
    return _lib.xpose_get_threads()


def set_result_cache(max_bytes):
    """The most memory that freed NumPy results of 32 MiB or more may keep for the next result of the same size
    (0: none; the cache is then off and what it held is released). Such results live on memory of their own (their
    .base is an xpose object, .flags.owndata is False); once the last array on it is gone, it waits in the cache,
    marked MADV_FREE so that the kernel may reclaim it under memory pressure, and the next result of that size skips
    the page faults of fresh memory (3x the transpose's own time at 256 MiB). Oldest first out beyond the limit.
    Default: $XPOSE_RESULT_CACHE (bytes, K/M/G suffixes) or the smaller of 1 GiB and 1/16 of the memory. Returns the
    previous limit."""
    return _pool.set_limit(max_bytes)


def result_cache_info():
    """The result cache now: {"limit", "idle_bytes", "idle_blocks", "min_bytes"} (see set_result_cache)."""
    return _pool.info()


def cuda_available():
    """True where the library was built with CUDA and a device is usable."""
    return _lib.xpose_cuda_status() == 0


class Variant(tuple):
    """One row of the variant registry: id ("name/params", what variant= takes), name, params, about, backend
    ("cpu" or "cuda"), family ("transpose", "copy", "reduce" or "inplace"), elem_sizes, available, why_not."""
    __slots__ = ()
    _fields = ("id", "name", "params", "about", "backend", "family", "elem_sizes", "available", "why_not")

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __getattr__(self, name):
        try:
            return self[self._fields.index(name)]
        except ValueError:
            raise AttributeError(name) from None

    def __repr__(self):
        return f"Variant({self[0]!r}, {self.backend}, {self.family}, available={self.available})"


def variants():
    """Every variant of the library (xpose list), as Variant tuples."""
    out, info = [], _lib.VariantInfo()
    for i in range(_lib.xpose_variant_count()):
        _check(_lib.xpose_variant_get(i, _ct.byref(info)))
        name, params = info.name.decode(), info.params.decode()
        out.append(Variant(f"{name}/{params}" if params else name, name, params, info.about.decode(),
                           {1: "cpu", 2: "cuda"}.get(info.backend, str(info.backend)),
                           {0: "transpose", 1: "copy", 2: "reduce", 3: "inplace"}.get(info.family, str(info.family)),
                           tuple(1 << k for k in range(5) if info.elem_sizes >> k & 1), bool(info.available),
                           (info.why_not or b"").decode()))
    return out


