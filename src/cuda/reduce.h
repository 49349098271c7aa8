/* reduce.h: C-ABI launchers of the GPU reductions, named by src/cuda/reduce_variants.c. */
#ifndef XP_CUDA_REDUCE_H
#define XP_CUDA_REDUCE_H

#include "xp_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The seed 003 ladder, 256 threads per block: p0 is the step. */
enum {
    XR_STEP_NAIVE = 1,      /* interleaved addressing, divergent branching */
    XR_STEP_STRIDE = 2,     /* interleaved addressing, strided index (bank conflicts) */
    XR_STEP_SEQUENTIAL = 3, /* sequential addressing */
    XR_STEP_FIRST_ADD = 4,  /* first combine during the load: half the blocks */
    XR_STEP_UNROLL = 5,     /* the last warp unrolled */
    XR_STEP_MULTIPLE = 6    /* several elements per thread, every step unrolled */
};
int xp_cuda_reduce_ladder(const xp_reduce_call *c);

/* Production: p0 16-byte loads in flight per thread, p1 threads per block. */
int xp_cuda_reduce_fast(const xp_reduce_call *c);

/* CUB DeviceReduce with the same operators and accumulators: the library reference. */
int xp_cuda_reduce_cub(const xp_reduce_call *c);

#ifdef __cplusplus
}
#endif
#endif
