#!/bin/sh
# test_python.sh: the Python package's pytest suite (python/tests) over this build's libxpose.so, without pip
# (XPOSE_LIB, PYTHONPATH). Skipped (77) where python3 lacks NumPy or pytest; .ci/run installs both in a venv.
# Usage: test_python.sh PYTHON SOURCE_DIR LIBXPOSE
py=$1 src=$2 lib=$3
if ! "$py" -c "import numpy, pytest" 2>/dev/null; then
    echo "test_python: skipped: $py has no numpy or pytest (pip install numpy pytest)"
    exit 77
fi
XPOSE_LIB=$lib PYTHONPATH=$src/python exec "$py" -m pytest -q -p no:cacheprovider "$src/python/tests"
