"""test_lib.py: the package around the library: version, variants(), set_threads, cuda_available, and variant= on
(batched) 2-D transposes, dense and with leading dimensions, against NumPy."""
import numpy as np
import pytest
from conftest import poisoned, random_array, same_bits

import xpose


def test_version():
    assert xpose.__version__.count(".") == 2


def test_variants():
    vs = xpose.variants()
    ids = [v.id for v in vs]
    assert "cpu-naive" in ids and "shared-pad/16" in ids
    naive = vs[ids.index("cpu-naive")]
    assert naive.backend == "cpu" and naive.family == "transpose" and naive.available
    assert naive.elem_sizes == (1, 2, 4, 8, 16)
    gpu = vs[ids.index("shared-pad/16")]
    assert gpu.backend == "cuda" and (gpu.available or gpu.why_not)


def test_threads():
    before = xpose.get_threads()
    try:
        assert xpose.set_threads(1) == 1
        assert xpose.get_threads() == 1
        a = np.arange(600 * 700, dtype=np.int16).reshape(600, 700)
        same_bits(xpose.transpose(a), a.T)
    finally:
        xpose.set_threads(before)


def test_cuda_available_is_a_bool():
    assert xpose.cuda_available() in (True, False)


@pytest.mark.parametrize("variant", ["cpu-naive", "cpu-blocked/32", "cpu-fast"])
def test_variants_transpose(rng, variant):
    a = random_array(rng, (45, 67), np.float64)
    same_bits(xpose.transpose(a, variant=variant), a.T)
    b = random_array(rng, (3, 2, 20, 30), np.uint8)
    same_bits(xpose.matrix_transpose(b, variant=variant), np.swapaxes(b, -1, -2))
    same_bits(xpose.transpose(b, (0, 1, 3, 2), variant=variant), np.swapaxes(b, -1, -2))
    src = random_array(rng, (4, 30, 50), np.int32)[:, 2:27, 5:45]  # leading dimension 50, batch stride 1500
    big = poisoned((4, 50, 40), np.int32)
    out = big[:, :40, :25]
    xpose.matrix_transpose(src, out=out, variant=variant)
    same_bits(out, np.swapaxes(src, -1, -2))
    assert (big[:, 40:].view(np.uint8) == 0xA5).all() and (big[:, :40, 25:].view(np.uint8) == 0xA5).all()
