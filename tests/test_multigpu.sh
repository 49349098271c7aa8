#!/usr/bin/env bash
# test_multigpu.sh: runs a multi-GPU test program under `mpirun -np NP` (default 2), one process per GPU; exits 77
# (skipped) where mpirun or NP GPUs are missing. NVLink multicast stays off (NCCL_NVLS_ENABLE=0): the device
# machines' rule.
# Usage: test_multigpu.sh PROGRAM [NP] [ARGS...]
set -u
prog=$1 np=${2:-2}
shift $(($# > 1 ? 2 : 1))
command -v mpirun >/dev/null 2>&1 || { echo "skipped: no mpirun on the PATH"; exit 77; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${gpus:-0}" -ge "$np" ] || { echo "skipped: ${gpus:-0} GPUs here, the test needs $np"; exit 77; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI forwards only the variables named with -x; MPICH forwards the whole environment.
fwd=()
if mpirun --version 2>&1 | grep -q "Open MPI"; then
    fwd=(--oversubscribe -x NCCL_NVLS_ENABLE -x PATH -x LD_LIBRARY_PATH)
    for v in $(compgen -e | grep '^XPOSE_'); do fwd+=(-x "$v"); done # measurement knobs, XPOSE_DIST_CHUNKS...
fi
exec mpirun -np "$np" "${fwd[@]}" "$prog" "$@"
