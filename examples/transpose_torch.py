"""transpose_torch.py: the README's PyTorch example: tensors transposed by xpose on the GPU (on the CPU where there is
none), on PyTorch's current stream. Exits 0 with a note where PyTorch is not installed."""
import sys

try:
    import torch
except ImportError:
    print("transpose_torch.py: skipped: PyTorch is not installed")
    sys.exit(0)

import xpose

device = "cuda" if torch.cuda.is_available() and xpose.cuda_available() else "cpu"
x = torch.randn(4096, 1000, device=device)
y = xpose.transpose(x)  # a new tensor on x's device, ordered on PyTorch's current stream
assert torch.equal(y, x.t()), "y is not the transpose of x"

b = torch.randint(0, 255, (16, 64, 48), dtype=torch.uint8, device=device)
out = torch.empty(16, 48, 64, dtype=torch.uint8, device=device)
xpose.matrix_transpose(b, out=out)  # batched: b.mT, into out
assert torch.equal(out, b.mT)
print(f"y == x.t() on {device}: True")
