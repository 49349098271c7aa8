"""test_errors.py: every error path of the package: bad out (shape, dtype, read-only, overlapping, wrong kind), bad
axes, unsupported dtypes and objects, stream= on the host, variant= on what it cannot take (ValueError or TypeError,
before any C call), and the library's statuses as XposeError with the status's name and message."""
import os
import re

import numpy as np
import pytest
from conftest import POISON, poisoned

import xpose
from xpose import _lib

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "xpose.h")


def untouched(out):
    return (out.view(np.uint8) == POISON).all()


def test_out_wrong_shape_never_written():
    a = np.ones((300, 200), np.float32)
    for shape in ((200, 299), (199, 300), (300, 200), (200, 300, 1), (60000,)):
        out = poisoned(shape, np.float32)
        with pytest.raises(ValueError, match="shape"):
            xpose.transpose(a, out=out)
        assert untouched(out)


def test_out_wrong_dtype():
    a = np.ones((3, 4), np.float32)
    for dt in (np.int32, np.float64, np.float16):
        with pytest.raises(TypeError, match="dtype"):
            xpose.transpose(a, out=np.empty((4, 3), dt))


def test_out_read_only_or_overlapping():
    a = np.ones((3, 4), np.int8)
    ro = np.empty((4, 3), np.int8)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        xpose.transpose(a, out=ro)
    buf = np.zeros(12, np.int8)
    shared = np.lib.stride_tricks.as_strided(buf, shape=(4, 3), strides=(1, 1))  # writable, elements overlap
    with pytest.raises(ValueError, match="share memory"):
        xpose.transpose(a, out=shared)
    assert not buf.any()


def test_out_not_an_array():
    with pytest.raises(TypeError):
        xpose.transpose(np.ones((2, 2)), out=[[0, 0], [0, 0]])


def test_out_overlapping_the_input_is_a_library_status():
    buf = np.zeros(64, np.float32)
    with pytest.raises(xpose.XposeError) as e:
        xpose.transpose(buf[:16].reshape(4, 4), out=buf[8:24].reshape(4, 4))
    assert e.value.name == "XPOSE_ERR_OVERLAP" and e.value.status == -5
    assert "overlap" in e.value.message and "XPOSE_ERR_OVERLAP" in str(e.value)


def test_bad_axes():
    a = np.ones((2, 3, 4))
    with pytest.raises(ValueError, match="repeated"):
        xpose.transpose(a, (0, 0, 1))
    with pytest.raises(ValueError, match="out of bounds"):
        xpose.transpose(a, (0, 1, 3))
    with pytest.raises(ValueError, match="out of bounds"):
        xpose.transpose(a, (0, 1, -4))
    with pytest.raises(ValueError, match="dimensions"):
        xpose.transpose(a, (1, 0))
    with pytest.raises(TypeError, match="integers"):
        xpose.transpose(a, (0, 1, 2.0))
    with pytest.raises(TypeError):
        xpose.permute(a, None)
    with pytest.raises(ValueError, match="at least 2"):
        xpose.matrix_transpose(np.ones(5))


def test_unsupported_dtypes_and_objects():
    for a in (np.array([[1, "x"]], dtype=object), np.zeros((2, 2), "S3"), np.zeros((2, 2), "U3")[..., None],
              np.zeros((2, 3), np.dtype("V32"))):
        if a.dtype.itemsize in (1, 2, 4, 8, 16) and not a.dtype.hasobject:
            continue
        with pytest.raises(TypeError, match="dtype"):
            xpose.transpose(a)
    for x in ([[1, 2], [3, 4]], 3.0, "ab", None):
        for fn in (xpose.transpose, xpose.matrix_transpose, xpose.sum):
            with pytest.raises(TypeError, match="cannot read an array"):
                fn(x)


def test_object_dtype_never_takes_a_cached_plan():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    xpose.transpose(a)  # caches the key of (8 bytes, (2, 3), C strides)
    with pytest.raises(TypeError, match="dtype"):
        xpose.transpose(a.astype(object))


def test_stream_on_the_host():
    with pytest.raises(ValueError, match="stream"):
        xpose.transpose(np.ones((2, 3)), stream=0)
    with pytest.raises(TypeError, match="stream"):
        xpose.transpose(np.ones((2, 3)), stream="default")


def test_rank_past_the_library_limit():
    a = np.zeros((1,) * 33, np.int8)
    with pytest.raises(xpose.XposeError) as e:
        xpose.transpose(a)
    assert e.value.name == "XPOSE_ERR_RANK"


def test_variant_errors():
    with pytest.raises(xpose.XposeError) as e:
        xpose.transpose(np.ones((4, 4), np.float32), variant="no-such-variant")
    assert e.value.name == "XPOSE_ERR_UNKNOWN_VARIANT"
    with pytest.raises(ValueError, match="2-D"):
        xpose.transpose(np.ones((2, 3, 4), np.float32), variant="cpu-naive")  # reversed axes: not batched 2-D
    with pytest.raises(ValueError, match="2-D"):
        xpose.transpose(np.ones(4, np.float32), variant="cpu-naive")
    with pytest.raises(ValueError, match="contiguous"):
        xpose.transpose(np.ones((4, 6), np.float32)[:, ::2], variant="cpu-naive")
    with pytest.raises(ValueError, match="contiguous"):
        xpose.transpose(np.ones((4, 6), np.float32, order="F"), variant="cpu-naive")


def test_unknown_cuda_array_needs_out():
    """A __cuda_array_interface__ of no known library: the result cannot be allocated (TypeError before any C call);
    given out, the library refuses host memory as CUDA memory with a status, never a crash."""
    host = np.zeros((4, 5), np.float32)
    other = np.zeros((5, 4), np.float32)

    class Fake:
        def __init__(self, a):
            self.__cuda_array_interface__ = {"shape": a.shape, "typestr": "<f4", "strides": None, "version": 3,
                                             "data": (a.__array_interface__["data"][0], False), "stream": None}

    with pytest.raises(TypeError, match="out="):
        xpose.transpose(Fake(host))
    with pytest.raises(ValueError, match="device"):
        xpose.transpose(Fake(host), out=other)
    with pytest.raises(xpose.XposeError) as e:
        xpose.transpose(Fake(host), out=Fake(other))
    assert e.value.name in ("XPOSE_ERR_NOT_BUILT", "XPOSE_ERR_NO_DEVICE", "XPOSE_ERR_POINTER")


def test_reduce_errors():
    with pytest.raises(TypeError, match="float32"):
        xpose.sum(np.ones(4, np.int8))
    with pytest.raises(xpose.XposeError) as e:
        xpose.min(np.ones(0, np.float32))
    assert e.value.name == "XPOSE_ERR_EMPTY"
    with pytest.raises(ValueError, match="stream"):
        xpose.max(np.ones(3), stream=0)


def test_status_table_matches_the_header():
    if not os.path.exists(HEADER):
        pytest.skip("include/xpose.h is not beside this checkout")
    text = open(HEADER).read()
    listed = {int(v): n for n, v in re.findall(r"X\((XPOSE_\w+), (-?\d+),", text)}
    assert listed and listed == _lib.STATUS_NAMES
    for status, name in listed.items():
        if status:
            err = _lib.error(status)
            assert err.name == name and err.status == status and err.message


def test_library_built_from_this_tree():
    if not os.path.exists(HEADER):
        pytest.skip("include/xpose.h is not beside this checkout")
    version = re.search(r'#define XPOSE_VERSION_STRING "([0-9.]+)"', open(HEADER).read()).group(1)
    assert xpose.__version__ == version
