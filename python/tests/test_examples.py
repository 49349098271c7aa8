"""test_examples.py: the examples (examples/*.py) run as a user runs them, with this test's Python and package."""
import os
import subprocess
import sys

import pytest

import xpose

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")


def run(name):
    path = os.path.join(EXAMPLES, name)
    if not os.path.exists(path):
        pytest.skip(f"{name} is not beside this checkout")
    # the package this test imported, wherever it came from (site-packages, or PYTHONPATH and $XPOSE_LIB)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (os.path.dirname(os.path.dirname(xpose.__file__)), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=300, env=env)


def test_numpy_example():
    r = run("transpose_numpy.py")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "t[3] = [ 3.  7. 11.]\n"


def test_torch_example():
    r = run("transpose_torch.py")
    assert r.returncode == 0, r.stderr
    try:
        import torch  # noqa: F401 (only whether it imports)
    except ImportError:
        assert r.stdout.startswith("transpose_torch.py: skipped")
    else:
        assert r.stdout.startswith("y == x.t() on ")
