"""transpose_torch.py: the README's Python example: a PyTorch tensor transposed on the GPU by libxpose.so."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import torch  # noqa: E402
import xpose  # noqa: E402

lib = xpose.Library()  # $XPOSE_LIB, else build/libxpose.so
x = torch.randn(4096, 1000, device="cuda")
y = torch.empty(1000, 4096, device="cuda")
lib.transpose_cuda(x.data_ptr(), y.data_ptr(), 4096, 1000, 4, stream=torch.cuda.current_stream().cuda_stream)
assert torch.equal(y, x.t()), "y is not the transpose of x"
print("y == x.t():", True)
