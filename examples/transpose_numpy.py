"""transpose_numpy.py: the README's Python example: NumPy arrays transposed and permuted by xpose."""
import numpy as np

import xpose

a = np.arange(12, dtype=np.float32).reshape(3, 4)
t = xpose.transpose(a)  # a.T, as a new C-contiguous array
assert (t == a.T).all() and t.flags.c_contiguous

x = np.random.default_rng(0).standard_normal((8, 3, 32, 32))  # NCHW
y = xpose.permute(x, (0, 2, 3, 1))  # NHWC, as np.transpose(x, (0, 2, 3, 1)) but contiguous
assert (y == np.transpose(x, (0, 2, 3, 1))).all()

f = np.asfortranarray(x[:, 0])  # any strides: Fortran order here
out = np.empty((8, 32, 32))
xpose.matrix_transpose(f, out=out)  # the last two axes, into out
assert (out == np.swapaxes(f, -1, -2)).all()
print("t[3] =", t[3])  # [ 3.  7. 11.]
