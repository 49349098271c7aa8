"""test_cupy.py: CuPy arrays on the GPU against CuPy's own transpose, byte for byte: every dtype, strided and
negative-stride views, batches, out= and its checks, CuPy's current stream and stream=, reductions. Skipped without
CuPy, a GPU or a CUDA build of libxpose."""
import itertools

import numpy as np
import pytest
from conftest import DTYPE_IDS, DTYPES, random_array

import xpose

cupy = pytest.importorskip("cupy")
try:
    usable = cupy.cuda.runtime.getDeviceCount() > 0 and xpose.cuda_available()
except Exception:  # no driver
    usable = False
pytestmark = pytest.mark.skipif(not usable, reason="no CUDA device, or libxpose built without CUDA")


def same(got, want):
    assert isinstance(got, cupy.ndarray) and got.shape == want.shape and got.dtype == want.dtype
    assert cupy.ascontiguousarray(got).get().tobytes() == cupy.ascontiguousarray(want).get().tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_every_dtype(rng, dtype):
    if np.dtype(dtype).kind in "MV" or np.dtype(dtype).name in ("bfloat16", "float128"):
        pytest.skip("CuPy has no such dtype")
    for shape in ((1, 1), (1, 37), (29, 1), (17, 33), (65, 127), (300, 700)):
        x = cupy.asarray(random_array(rng, shape, dtype))
        y = xpose.transpose(x)
        assert y.flags.c_contiguous
        same(y, x.T)
    x = cupy.asarray(random_array(rng, (4, 7, 9), dtype))
    for axes in itertools.permutations(range(3)):
        same(xpose.permute(x, axes), cupy.transpose(x, axes))


def test_strided_negative_and_batched(rng):
    base = cupy.asarray(random_array(rng, (20, 30, 40), np.float32))
    for v in (base[::2, 1::3, 5:37], base[::-1], base[:, ::-2], base[3:17, ::-1, ::-5], cupy.asfortranarray(base)):
        for axes in itertools.permutations(range(3)):
            same(xpose.permute(v, axes), cupy.transpose(v, axes))
    b = cupy.asarray(random_array(rng, (3, 4, 50, 70), np.complex128))
    same(xpose.matrix_transpose(b), cupy.swapaxes(b, -1, -2))


def test_out_and_checks(rng):
    x = cupy.asarray(random_array(rng, (37, 45), np.float64))
    out = cupy.empty((45, 37))
    assert xpose.transpose(x, out=out) is out
    same(out, x.T)
    big = cupy.full((90, 111), 7.0)
    xpose.transpose(x, out=big[::2, ::3])
    same(big[::2, ::3], x.T)
    with pytest.raises(ValueError, match="shape"):
        xpose.transpose(x, out=cupy.empty((45, 36)))
    with pytest.raises(TypeError, match="dtype"):
        xpose.transpose(x, out=cupy.empty((45, 37), cupy.float32))
    with pytest.raises(ValueError, match="device"):
        xpose.transpose(x, out=np.empty((45, 37)))
    with pytest.raises(ValueError, match="device"):
        xpose.transpose(x.get(), out=out)


def test_streams(rng):
    s = cupy.cuda.Stream(non_blocking=True)
    x = cupy.asarray(random_array(rng, (2048, 2048), np.float32))
    with s:
        y = xpose.transpose(x)  # CuPy's current stream: s
    s.synchronize()
    same(y, x.T)
    out = cupy.empty_like(x)
    xpose.transpose(x, out=out, stream=s)
    s.synchronize()
    same(out, x.T)


def test_reductions(rng):
    x = cupy.asarray(rng.standard_normal(1_000_003))
    s = xpose.sum(x)
    assert isinstance(s, cupy.ndarray) and s.shape == ()
    assert abs(float(s) - float(x.sum())) < 1e-6 * float(abs(x).sum())
    i = cupy.asarray(rng.integers(-1000, 1000, (333, 77)).astype(np.int32))
    assert int(xpose.max(i.T)) == int(i.max()) and int(xpose.min(i)) == int(i.min())
