"""test_torch.py: PyTorch tensors, CPU and CUDA: every dtype (bfloat16 included) against PyTorch's own permute, bit
for bit; strided views and batches; out= and its checks (device, dtype, shape); lazily conjugated tensors; streams
(the current one by default, stream= otherwise); reductions; a tensor past 2^31 elements; tensors seen only through
__dlpack__ or __cuda_array_interface__. Skipped without PyTorch; the CUDA tests without a GPU or a CUDA build."""
import itertools

import pytest

import xpose

torch = pytest.importorskip("torch")

DTYPES = [torch.bool, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64, torch.complex64, torch.complex128]
DTYPES += [getattr(torch, n) for n in ("uint16", "uint32", "uint64", "float8_e4m3fn") if hasattr(torch, n)]
DEVICES = ["cpu"]
if torch.cuda.is_available() and xpose.cuda_available():
    DEVICES.append("cuda")
cuda_only = pytest.mark.skipif("cuda" not in DEVICES, reason="no CUDA device, or libxpose built without CUDA")
BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.int64}


def bits(t):
    """t's bytes as integers of its element size, so that equality is bit for bit (16 bytes: two int64 each); flat,
    since a contiguous tensor may keep any stride on a dimension of extent 1, which view() refuses."""
    t = t.contiguous().reshape(-1)
    return t.view(BITS[t.element_size()])


def same(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype and got.device == want.device
    assert torch.equal(bits(got), bits(want))


def random_tensor(shape, dtype, device, gen=None):
    es = torch.empty((), dtype=dtype).element_size()
    n = 1
    for s in shape:
        n *= s
    raw = torch.randint(0, 256, (n * es,), dtype=torch.uint8, device=device, generator=gen)
    if dtype == torch.bool:  # only 0 and 1 are bools: PyTorch's own copies turn any other byte into 1
        raw &= 1
    return raw.view(dtype).reshape(shape)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=[str(d)[6:] for d in DTYPES])
def test_every_dtype(device, dtype):
    torch.manual_seed(1)
    for shape in ((1, 1), (1, 37), (29, 1), (17, 33), (65, 127), (300, 700)):
        x = random_tensor(shape, dtype, device)
        y = xpose.transpose(x)
        assert isinstance(y, torch.Tensor) and y.is_contiguous()
        same(y, x.t())
    x = random_tensor((4, 7, 9), dtype, device)
    for axes in itertools.permutations(range(3)):
        same(xpose.permute(x, axes), x.permute(axes))
    same(xpose.matrix_transpose(x), x.mT)


@pytest.mark.parametrize("device", DEVICES)
def test_strided_views_and_batches(device):
    base = random_tensor((20, 30, 40), torch.float32, device)
    for v in (base[::2, 1::3, 5:37], base.transpose(0, 2)[::3], base[:, 4], base[..., ::5], base.permute(1, 2, 0)):
        for axes in itertools.permutations(range(v.dim())):
            same(xpose.permute(v, axes), v.permute(axes))
    b = random_tensor((3, 4, 50, 70), torch.float16, device)[:, 1:3, 5:45, ::2]
    same(xpose.matrix_transpose(b), b.mT)


@pytest.mark.parametrize("device", DEVICES)
def test_out(device):
    x = random_tensor((37, 45), torch.float64, device)
    out = torch.full((45, 37), -1.0, dtype=torch.float64, device=device)
    assert xpose.transpose(x, out=out) is out
    same(out, x.t())
    big = torch.full((90, 111), 7.0, dtype=torch.float64, device=device)
    xpose.transpose(x, out=big[::2, ::3])
    same(big[::2, ::3], x.t())
    keep = torch.ones_like(big, dtype=torch.bool)
    keep[::2, ::3] = False
    assert (big[keep] == 7.0).all()
    with pytest.raises(ValueError, match="shape"):
        xpose.transpose(x, out=torch.empty(45, 36, dtype=torch.float64, device=device))
    with pytest.raises(TypeError, match="dtype"):
        xpose.transpose(x, out=torch.empty(45, 37, dtype=torch.float32, device=device))
    with pytest.raises(ValueError, match="share memory"):
        xpose.transpose(x, out=torch.empty(1, 37, dtype=torch.float64, device=device).expand(45, 37))


def test_conjugate_and_negative_views():
    x = torch.randn(5, 6, dtype=torch.complex64)
    c = x.conj()  # lazily conjugated: the memory holds x
    assert c.is_conj()
    same(xpose.transpose(c), c.t().resolve_conj())
    n = torch.randn(5, 6, dtype=torch.complex128).conj().imag  # negative bit set
    same(xpose.transpose(n), n.t().resolve_neg())
    with pytest.raises(ValueError, match="conjugated"):
        xpose.transpose(x, out=torch.empty(6, 5, dtype=torch.complex64).conj())


def test_cpu_reductions():
    x = torch.randn(1000, dtype=torch.float64)
    s = xpose.sum(x)
    assert isinstance(s, torch.Tensor) and s.shape == () and torch.allclose(s, x.sum())
    i = torch.randint(-100, 100, (31, 17), dtype=torch.int32)
    assert xpose.max(i.t()) == i.max() and xpose.min(i) == i.min()


@cuda_only
def test_cuda_device_checks():
    x = random_tensor((8, 9), torch.float32, "cuda")
    with pytest.raises(ValueError, match="device"):
        xpose.transpose(x, out=torch.empty(9, 8))  # on the host
    with pytest.raises(ValueError, match="device"):
        xpose.transpose(x.cpu(), out=torch.empty(9, 8, device="cuda"))
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match="device"):
            xpose.transpose(x, out=torch.empty(9, 8, device="cuda:1"))
        y = random_tensor((8, 9), torch.float32, "cuda:1")
        z = xpose.transpose(y)  # runs on y's device, whichever is current
        assert z.device == y.device
        same(z, y.t())


@cuda_only
def test_cuda_current_stream_and_stream_argument():
    """A non-blocking stream holds the input's last write behind a long sleep: a transpose on any other stream would
    read stale data. On the current stream (by default) and on stream= it reads the new values."""
    n = 4096
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.zeros(n, n, device="cuda")
        torch.cuda._sleep(200_000_000)
        x.fill_(3.0)
        y = xpose.transpose(x)
    s.synchronize()
    assert (y == 3.0).all()
    out = torch.empty(n, n, device="cuda")
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)
        x.fill_(5.0)
    xpose.transpose(x, out=out, stream=s)  # PyTorch's default stream is current here; s is named
    s.synchronize()
    assert (out == 5.0).all()
    xpose.transpose(x, out=out, stream=s.cuda_stream)  # an integer cudaStream_t
    s.synchronize()
    assert (out == 5.0).all()


@cuda_only
def test_cuda_variant():
    x = random_tensor((3, 100, 70), torch.float32, "cuda")
    same(xpose.matrix_transpose(x, variant="shared-pad/16"), x.mT)
    same(xpose.transpose(x[0], variant="naive"), x[0].t())
    with pytest.raises(ValueError, match="2-D"):
        xpose.transpose(x, variant="shared-pad/16")


@cuda_only
def test_cuda_reductions():
    x = torch.randn(3_000_001, device="cuda")
    s = xpose.sum(x)
    assert s.device == x.device and s.shape == ()
    assert torch.allclose(s.double(), x.double().sum(), rtol=1e-4, atol=1e-2)
    i = torch.randint(-(1 << 40), 1 << 40, (777, 333), dtype=torch.int64, device="cuda")
    assert xpose.max(i.t()) == i.max() and xpose.min(i) == i.min() and xpose.sum(i) == i.sum()


@cuda_only
def test_cuda_past_2_to_the_31_elements():
    free, _ = torch.cuda.mem_get_info()
    rows, cols = 65536, 32769  # 2^31 + 2^16 bytes: offsets past a 32-bit index
    if free < 3 * rows * cols + (1 << 30):
        pytest.skip("not enough GPU memory")
    x = torch.randint(0, 255, (rows, cols), dtype=torch.uint8, device="cuda")
    y = xpose.transpose(x)
    assert torch.equal(y[-1], x[:, -1]) and torch.equal(y[:, -1], x[-1])
    assert torch.equal(y, x.t())
    del x, y
    torch.cuda.empty_cache()


@cuda_only
def test_cuda_through_dlpack_and_the_array_interface():
    x = random_tensor((40, 30, 20), torch.int16, "cuda")[:, ::2]

    class DLPackOnly:
        def __dlpack__(self, stream=None):
            return x.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    class InterfaceOnly:
        __cuda_array_interface__ = x.__cuda_array_interface__

    for producer in (DLPackOnly(), InterfaceOnly()):
        with pytest.raises(TypeError, match="out="):
            xpose.permute(producer, (2, 0, 1))
        out = torch.empty(20, 40, 15, dtype=torch.int16, device="cuda")
        xpose.permute(producer, (2, 0, 1), out=out)
        torch.cuda.synchronize()
        same(out, x.permute(2, 0, 1))
