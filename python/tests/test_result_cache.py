"""test_result_cache.py: the cache of large NumPy results' memory (xpose.set_result_cache): values, dtype, shape and
flags of cached results, lifetime (memory returns only after the last view is gone), the bound, the off switch,
$XPOSE_RESULT_CACHE, no growth over many calls, and threads. MIN_BYTES is lowered so that small arrays exercise it."""
import gc
import threading
import tracemalloc

import numpy as np
import pytest
from conftest import DTYPE_IDS, DTYPES, random_array, same_bits

import xpose
from xpose import _pool

SMALL = 64 << 10
LIMIT = 4 << 20


@pytest.fixture(autouse=True)
def small_cache(monkeypatch):
    """Results from 64 KiB up go through a 4 MiB cache, emptied before and after each test."""
    monkeypatch.setattr(_pool, "MIN_BYTES", SMALL)
    monkeypatch.setattr(xpose, "_POOL_MIN", SMALL)
    old = xpose.set_result_cache(0)
    xpose.set_result_cache(LIMIT)
    yield
    gc.collect()
    xpose.set_result_cache(0)
    xpose.set_result_cache(old)


def cached(r):
    return isinstance(r.base, np.ndarray) and isinstance(r.base.base, _pool._Block)


def addr(r):
    return r.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_values_dtype_shape_flags(rng, dtype):
    for shape, axes in (((256, 300), None), ((12, 64, 90), (2, 0, 1)), ((300, 257), None)):
        a = random_array(rng, shape, dtype)
        for _ in range(3):  # fresh, then reused memory
            got = xpose.transpose(a, axes)
            assert cached(got)
            assert got.dtype == a.dtype and got.shape == np.transpose(a, axes).shape
            assert got.flags.c_contiguous and got.flags.writeable and got.flags.aligned
            same_bits(got, np.transpose(a, axes))
            got[...] = a.flat[0]  # writable all through; the next result must not see this
            del got
    same_bits(xpose.matrix_transpose(a), np.swapaxes(a, -1, -2))


def test_every_entry_point_and_below_the_threshold(rng):
    a = random_array(rng, (256, 256), np.float32)  # 256 KiB
    assert cached(xpose.transpose(a)) and cached(xpose.permute(a, (1, 0))) and cached(xpose.matrix_transpose(a))
    assert cached(xpose.transpose(a[::2, ::-1].repeat(2, axis=0)))  # the slow path's first call, then cached plans
    assert cached(xpose.transpose(a, variant="cpu-blocked/32"))
    small = xpose.transpose(a[:64, :64])  # 16 KiB: NumPy's own memory
    assert small.flags.owndata and small.base is None


def test_memory_returns_after_the_last_view(rng):
    a = random_array(rng, (256, 256), np.float32)
    r = xpose.transpose(a)
    p = addr(r)
    v = r[3:9, ::2]
    del r
    gc.collect()
    assert xpose.result_cache_info()["idle_blocks"] == 0  # v still reads it
    v2 = xpose.transpose(a)
    assert addr(v2) != p
    same_bits(v, a.T[3:9, ::2])
    del v
    info = xpose.result_cache_info()
    assert info["idle_blocks"] == 1 and info["idle_bytes"] == a.nbytes
    v3 = xpose.transpose(a)  # takes the block back
    assert addr(v3) == p and xpose.result_cache_info()["idle_blocks"] == 0
    same_bits(v3, a.T)
    same_bits(v2, a.T)


def test_bounded_oldest_first(rng):
    xpose.set_result_cache(3 * (256 << 10))
    arrays = [random_array(rng, (256, 256), np.float32) for _ in range(5)]
    results = [xpose.transpose(x) for x in arrays]
    del results
    info = xpose.result_cache_info()
    assert info["idle_blocks"] == 3 and info["idle_bytes"] == 3 * (256 << 10) <= info["limit"]
    xpose.set_result_cache(256 << 10)  # lowering releases what is over at once
    assert xpose.result_cache_info()["idle_blocks"] == 1
    big = random_array(rng, (512, 512), np.float32)  # 1 MiB: over the limit, so NumPy's own
    assert not cached(xpose.transpose(big))


def test_off_switch():
    a = np.arange(256 * 256, dtype=np.float32).reshape(256, 256)
    xpose.transpose(a)
    assert xpose.result_cache_info()["idle_blocks"] == 1
    assert xpose.set_result_cache(0) == LIMIT
    info = xpose.result_cache_info()
    assert info["limit"] == 0 and info["idle_blocks"] == 0 and info["idle_bytes"] == 0
    r = xpose.transpose(a)
    assert r.flags.owndata and r.base is None
    same_bits(r, a.T)
    with pytest.raises(ValueError):
        xpose.set_result_cache(-1)


@pytest.mark.parametrize("env, want", [("0", 0), ("4096", 4096), ("64M", 64 << 20), ("1.5G", 3 << 29),
                                       ("2k", 2048), ("512MB", 512 << 20)])
def test_environment_limit(monkeypatch, env, want):
    monkeypatch.setenv("XPOSE_RESULT_CACHE", env)
    assert _pool._default_limit() == want


def test_default_limit(monkeypatch):
    monkeypatch.delenv("XPOSE_RESULT_CACHE", raising=False)
    assert 0 < _pool._default_limit() <= 1 << 30


def test_no_growth_over_many_calls(rng):
    a = random_array(rng, (256, 512), np.float32)  # 512 KiB
    with open("/proc/self/statm") as f:
        rss = lambda: int(f.seek(0) or f.read().split()[1]) * _pool._PAGE  # noqa: E731
        for limit in (1 << 20, 0):
            xpose.set_result_cache(limit)
            for _ in range(20):
                b = xpose.transpose(a)
            gc.collect()
            tracemalloc.start()
            r0, t0 = rss(), tracemalloc.get_traced_memory()[0]
            for _ in range(500):
                b = xpose.transpose(a)
            del b
            gc.collect()
            grew = tracemalloc.get_traced_memory()[0] - t0
            tracemalloc.stop()
            assert grew < 64 << 10, grew
            assert rss() - r0 < 8 << 20
            assert xpose.result_cache_info()["idle_bytes"] <= limit


def test_threads(rng):
    arrays = [random_array(rng, (128 + 32 * k, 256), np.uint32) for k in range(4)]
    want = [np.ascontiguousarray(x.T) for x in arrays]
    errors = []

    def work(k):
        try:
            keep = []
            for i in range(200):
                r = xpose.transpose(arrays[(k + i) % 4])
                if not np.array_equal(r, want[(k + i) % 4]):
                    errors.append("wrong values")
                keep.append(r)
                if len(keep) > 2:
                    keep.pop(0)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    gc.collect()
    info = xpose.result_cache_info()
    assert info["idle_bytes"] == sum(s for s, _ in _pool._idle) <= info["limit"]
