"""test_numpy.py: xpose.transpose / permute / matrix_transpose on NumPy arrays against NumPy's own transpose, byte for
byte: every dtype, C and Fortran order, strided, negative-stride, broadcast, read-only and misaligned views, batches,
random ranks and permutations, empty and 0-d arrays, and out= (dense and strided, poison outside it kept)."""
import itertools

import numpy as np
import pytest
from conftest import DTYPE_IDS, DTYPES, POISON, poisoned, random_array, same_bits

import xpose


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_every_dtype(rng, dtype):
    for shape in ((1, 1), (1, 37), (29, 1), (3, 5), (17, 33), (64, 64), (65, 127)):
        a = random_array(rng, shape, dtype)
        got = xpose.transpose(a)
        assert got.flags.c_contiguous
        same_bits(got, a.T)
    a = random_array(rng, (4, 7, 9), dtype)
    for axes in itertools.permutations(range(3)):
        same_bits(xpose.permute(a, axes), np.transpose(a, axes))
    same_bits(xpose.matrix_transpose(a), np.swapaxes(a, -1, -2))


def test_the_issue_example():
    a = np.ones((3, 5))
    assert (xpose.transpose(a) == a.T).all()


@pytest.mark.parametrize("order", ["C", "F"])
def test_orders(rng, order):
    a = np.asarray(random_array(rng, (6, 10, 14), np.float32), order=order)
    for axes in [None, (0, 1, 2), (2, 0, 1), (1, 0, 2), (0, 2, 1)]:
        same_bits(xpose.transpose(a, axes), np.transpose(a, axes))


def test_strided_and_negative_views(rng):
    base = random_array(rng, (20, 30, 40), np.int16)
    views = [base[::2, 1::3, 5:37], base[::-1], base[:, ::-2, :], base[3:17, ::-1, ::-5], base.transpose(2, 0, 1)[::3],
             base[..., 7], base[4], base[4, ::-1].T, base[:, 0:1, :], np.asfortranarray(base)[1::2, :, ::4]]
    for v in views:
        for axes in itertools.permutations(range(v.ndim)):
            same_bits(xpose.transpose(v, axes), np.transpose(v, axes))


def test_read_only_and_broadcast(rng):
    a = random_array(rng, (33, 17), np.float64)
    a.flags.writeable = False
    same_bits(xpose.transpose(a), a.T)
    b = np.broadcast_to(np.arange(7, dtype=np.int32), (5, 3, 7))  # stride 0, read-only
    same_bits(xpose.transpose(b, (2, 0, 1)), np.transpose(b, (2, 0, 1)))


def test_strides_not_whole_elements_and_misaligned(rng):
    rec = np.zeros(50, dtype=[("a", "u1"), ("b", "<i4")])  # packed: field b's stride is 5 bytes, its address odd
    rec["b"] = rng.integers(-1000, 1000, size=50)
    v = rec["b"].reshape(5, 10)
    same_bits(xpose.transpose(v), v.T)
    raw = np.zeros(8 * 60 + 1, np.uint8)
    m = raw[1:].view(np.float64).reshape(6, 10)  # misaligned by one byte
    m[...] = rng.standard_normal((6, 10))
    same_bits(xpose.transpose(m), m.T)


def test_batches(rng):
    a = random_array(rng, (3, 4, 50, 70), np.complex64)
    same_bits(xpose.matrix_transpose(a), np.swapaxes(a, -1, -2))
    same_bits(xpose.matrix_transpose(a[:, 1:3, 5:45, ::2]), np.swapaxes(a[:, 1:3, 5:45, ::2], -1, -2))
    if hasattr(np, "matrix_transpose"):
        same_bits(xpose.matrix_transpose(a), np.matrix_transpose(a))


def test_random_ranks_and_permutations(rng):
    for _ in range(60):
        rank = int(rng.integers(1, 7))
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rank))
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        a = random_array(rng, shape, dtype)
        if rng.random() < 0.5:  # a strided view of a larger array
            big = random_array(rng, tuple(n * 2 for n in shape), dtype)
            a = big[tuple(slice(None, None, 2) if rng.random() < 0.5 else slice(0, n) for n in shape)]
        axes = tuple(int(i) for i in rng.permutation(rank))
        same_bits(xpose.permute(a, axes), np.transpose(a, axes))
        same_bits(xpose.transpose(a), a.T)


def test_big_enough_to_thread(rng):
    a = random_array(rng, (300, 700), np.uint8)  # past the library's 128 KiB serial bound
    same_bits(xpose.transpose(a), a.T)
    b = random_array(rng, (40, 50, 60), np.float32)
    same_bits(xpose.permute(b, (2, 0, 1)), np.transpose(b, (2, 0, 1)))


def test_axes_forms(rng):
    a = random_array(rng, (2, 3, 4), np.int32)
    same_bits(xpose.transpose(a, [2, 0, 1]), np.transpose(a, (2, 0, 1)))
    same_bits(xpose.transpose(a, (-1, 0, -2)), np.transpose(a, (2, 0, 1)))
    same_bits(xpose.permute(a, np.array([1, 2, 0])), np.transpose(a, (1, 2, 0)))


def test_empty_and_0d(rng):
    for shape in ((0, 5), (3, 0, 2), (0,)):
        a = np.zeros(shape, np.float32)
        got = xpose.transpose(a)
        assert got.shape == a.T.shape and got.dtype == a.dtype
    s = np.array(3.5)
    got = xpose.transpose(s)
    assert got.shape == () and got == 3.5
    one = np.array([1, 2, 3], np.int8)
    same_bits(xpose.transpose(one), one)


def test_repeated_calls_use_the_cache_correctly(rng):
    # the same key with other data, other dtypes of one size, and a misaligned array of a cached key
    for dtype in (np.float32, np.int32, np.uint32, np.dtype("V4")):
        for _ in range(3):
            a = random_array(rng, (9, 11), dtype)
            same_bits(xpose.transpose(a), a.T)
    raw = np.zeros(4 * 99 + 2, np.uint8)
    m = raw[2:].view(np.float32).reshape(9, 11)
    m[...] = 7
    same_bits(xpose.transpose(m), m.T)


def test_out_dense(rng):
    a = random_array(rng, (37, 45), np.float32)
    out = poisoned((45, 37), np.float32)
    res = xpose.transpose(a, out=out)
    assert res is out
    same_bits(out, a.T)
    res = xpose.transpose(a, None, out)  # positional, as np.transpose has no out but the array API order
    same_bits(res, a.T)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float64, np.complex128], ids=["u8", "f16", "f64", "c128"])
def test_out_strided_keeps_poison(rng, dtype):
    a = random_array(rng, (13, 7, 11), dtype)
    big = poisoned((2 * 11 + 1, 13, 3 * 7), dtype)
    out = big[1::2, :, ::3]  # (11, 13, 7), strided, not contiguous
    xpose.permute(a, (2, 0, 1), out=out)
    same_bits(out, np.transpose(a, (2, 0, 1)))
    mask = np.ones(big.shape, bool)
    mask[1::2, :, ::3] = False
    assert (big.view(np.uint8).reshape(big.shape + (-1,))[mask] == POISON).all()
    fout = np.asfortranarray(poisoned((7, 11, 13), dtype))
    xpose.permute(a, (1, 2, 0), out=fout)
    same_bits(fout, np.transpose(a, (1, 2, 0)))
    for _ in range(2):  # negative strides: planned, then from the cache (the pointers moved to the other end)
        rbig = poisoned((11, 7, 26), dtype)
        rout = rbig[::-1, :, ::-2]
        xpose.transpose(a, out=rout)
        same_bits(rout, a.T)
        assert (np.ascontiguousarray(rbig[:, :, ::2]).view(np.uint8) == POISON).all()


def test_dlpack_producer(rng):
    """A host array known only through __dlpack__ (as JAX's are): read through the capsule, result NumPy."""

    class Producer:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a = random_array(rng, (8, 9, 10), np.int64)[:, ::-1, 1::2]
    got = xpose.permute(Producer(a), (1, 2, 0))
    assert isinstance(got, np.ndarray)
    same_bits(got, np.transpose(a, (1, 2, 0)))
    out = poisoned((5, 8, 9), np.int64)
    xpose.permute(Producer(a), (2, 0, 1), out=out)
    same_bits(out, np.transpose(a, (2, 0, 1)))
    same_bits(xpose.matrix_transpose(Producer(a)), np.swapaxes(a, -1, -2))
    assert xpose.sum(Producer(a)) == a.sum()
