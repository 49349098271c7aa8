/* reduce_variants.c: the registry rows of GPU reductions: the seed 003 ladder, production, CUB. */
#include "reduce.h"

#define GPU_R(name, params, p0, p1, fn, about)                                                                         \
    {                                                                                                                  \
        name, params, about, XPOSE_BACKEND_CUDA, XPOSE_FAMILY_REDUCE, p0, p1, 0, NULL, XP_CUDA_FN(fn), 0, NULL         \
    }
#define LADDER(name, step, about) GPU_R(name, "", step, 256, xp_cuda_reduce_ladder, about)

static const xp_variant rows[] = {
    LADDER("reduce-naive", XR_STEP_NAIVE, "seed 003 step 1: interleaved addressing, divergent branching"),
    LADDER("reduce-stride", XR_STEP_STRIDE, "step 2: interleaved addressing, strided index (bank conflicts)"),
    LADDER("reduce-sequential", XR_STEP_SEQUENTIAL, "step 3: sequential addressing"),
    LADDER("reduce-first-add", XR_STEP_FIRST_ADD, "step 4: first add during the load, half the blocks"),
    LADDER("reduce-unroll", XR_STEP_UNROLL, "step 5: last warp unrolled, no __syncthreads in it"),
    LADDER("reduce-multiple", XR_STEP_MULTIPLE, "step 6: 16 elements per thread, tree fully unrolled"),
    GPU_R("reduce-fast", "4x512", 4, 512, xp_cuda_reduce_fast,
          "one resident wave, 16-byte loads in flight x threads, shuffles, deterministic 2-pass finish"),
    GPU_R("reduce-fast", "4x256", 4, 256, xp_cuda_reduce_fast, "reduce-fast, 256-thread blocks"),
    GPU_R("reduce-fast", "8x256", 8, 256, xp_cuda_reduce_fast, "reduce-fast, 8 loads in flight, 256 threads"),
    GPU_R("reduce-fast", "2x512", 2, 512, xp_cuda_reduce_fast, "reduce-fast, 2 loads in flight, 512 threads"),
    GPU_R("reduce-cub", "", 0, 0, xp_cuda_reduce_cub,
          "CUB DeviceReduce::Reduce with the same operators and accumulators: the library reference"),
};

const xp_variant_table xp_cuda_reduce_table = {rows, XP_COUNT_OF(rows)};
