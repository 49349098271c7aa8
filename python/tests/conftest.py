"""conftest.py: shared helpers of the xpose package's tests: random arrays of every dtype, the reference (NumPy's own
transpose, compared byte for byte) and poisoned destinations."""
import numpy as np
import pytest

POISON = 0xA5

# Every dtype of 1, 2, 4, 8 and 16 bytes NumPy has; bfloat16 where ml_dtypes is installed.
DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16, np.int32, np.uint32, np.float32, np.int64,
          np.uint64, np.float64, np.complex64, np.complex128, np.dtype("datetime64[ns]"), np.dtype("V4")]
if np.dtype(np.longdouble).itemsize == 16:
    DTYPES.append(np.longdouble)
try:
    import ml_dtypes

    DTYPES.append(ml_dtypes.bfloat16)
except ImportError:
    pass
DTYPE_IDS = [np.dtype(d).name for d in DTYPES]


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def random_array(rng, shape, dtype):
    """Random bits of `dtype` (every byte random: NaNs, odd bools and all), C-contiguous."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    return rng.integers(0, 256, size=n, dtype=np.uint8).view(dt).reshape(shape)


def poisoned(shape, dtype):
    dt = np.dtype(dtype)
    return np.full(int(np.prod(shape, dtype=np.int64)) * dt.itemsize, POISON, np.uint8).view(dt).reshape(shape)


def same_bits(got, want):
    """Same shape, dtype and bytes, element for element (NaNs compare by their bits)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()
