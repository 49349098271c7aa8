"""test_reduce.py: xpose.sum / min / max on NumPy arrays of the four reduction types against NumPy, contiguous and
not (a copy is made first), returning NumPy scalars of the input's type."""
import numpy as np
import pytest

import xpose


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_reductions(rng, dtype):
    if np.dtype(dtype).kind == "f":
        a = rng.standard_normal((37, 53)).astype(dtype)
    else:
        a = rng.integers(-1000, 1000, size=(37, 53)).astype(dtype)
    for v in (a, a.T, a[::2, 3:], a[::-1], np.asfortranarray(a), a[5]):
        s, lo, hi = xpose.sum(v), xpose.min(v), xpose.max(v)
        assert type(s) is np.dtype(dtype).type and type(lo) is type(s)
        assert lo == v.min() and hi == v.max()
        if np.dtype(dtype).kind == "f":
            assert s == pytest.approx(v.astype(np.float64).sum(), rel=1e-4, abs=1e-3)
        else:
            assert s == v.sum()
    assert xpose.sum(np.zeros(0, dtype)) == 0


def test_large_reduction(rng):
    a = rng.integers(-5, 5, size=1_000_003).astype(np.int64)
    assert xpose.sum(a) == a.sum()
    assert xpose.max(a) == a.max()
